// RUN: xtir-opt %s --split-input-file --verify-diagnostics -p 'split{loop=i factors=62,16}' | filecheck %s
// Every form of directive that --verify-diagnostics reads, each matching the one
// error of its chunk: the run exits 0, and chunks without errors print their IR.

// @+N: N lines below the directive.
func.func @relative_below(%A: memref<1000xf32>) {
  // expected-error @+1 {{'block.for' op split: the product of factors (992) is smaller than the extent of loop "i" (1000)}}
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// -----

// No designator: the diagnostic is on the directive's own line.
func.func @same_line(%A: memref<1000xf32>) {
  block.for %i = 0 to 1000 "i" { // expected-error {{the product of factors (992)}}
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// -----

// @-N: N lines above; @+N counts the lines in between, directives or not.
func.func @relative_above(%A: memref<1000xf32>) {
  block.for %i = 0 to 1000 "i" {
  // expected-error @-1 {{split: the product of factors}}
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// -----

// @below: the next line without a directive (the comment lines between are skipped).
// The -re form: text outside {{ }} is literal (here the quotes and the semicolon),
// inside is a regular expression.
// expected-error-re @below {{'func.func' op split: no loop named "i"; loops: {{[a-z]+, [a-z]+}}}}
func.func @below(%A: memref<8x8xf32>) {
  block.for %x = 0 to 8 "x" {
    block.for %y = 0 to 8 "y" {
      block.block "B"(%vx = spatial(8, %x), %vy = spatial(8, %y)) {
        %a = block.load %A[%vx, %vy] : memref<8x8xf32>
        block.store %a, %A[%vx, %vy] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// @above: the nearest line above without a directive.
func.func @above(%A: memref<992xf32>, %B: memref<992xf32>) {
// expected-error-re @above {{loop name "i" is ambiguous: {{[0-9]+}} loops have it; name one by a block it encloses: P/i, Q/i}}
  block.for %i = 0 to 992 "i" {
    block.block "P"(%vi = spatial(992, %i)) {
      %a = block.load %A[%vi] : memref<992xf32>
      block.store %a, %B[%vi] : memref<992xf32>
    }
  }
  block.for %i2 = 0 to 992 "i" {
    block.block "Q"(%vi = spatial(992, %i2)) {
      %b = block.load %B[%vi] : memref<992xf32>
      block.store %b, %A[%vi] : memref<992xf32>
    }
  }
  func.return
}

// -----

// @unknown: a diagnostic with no location (the pass cannot choose a function).
// expected-error @unknown {{the module has 2 functions (f, g); choose one with func=NAME}}
func.func @f() {
  func.return
}
func.func @g() {
  func.return
}

// -----

// Parse errors are diagnostics too.
func.func @parse_error() {
  // expected-error @+1 {{loops start at 0}}
  block.for %i = 1 to 8 "i" {
  }
  func.return
}

// -----

// A chunk without errors expects none, and its IR is printed.
// CHECK:      func.func @fine
// CHECK:        block.for %i0 = 0 to 62 "i_0" {
// CHECK-NEXT:     block.for %i1 = 0 to 16 "i_1" {
func.func @fine(%A: memref<992xf32>) {
  block.for %i = 0 to 992 "i" {
    block.block "B"(%vi = spatial(992, %i)) {
      %a = block.load %A[%vi] : memref<992xf32>
      block.store %a, %A[%vi] : memref<992xf32>
    }
  }
  func.return
}
