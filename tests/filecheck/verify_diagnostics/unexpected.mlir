// RUN: not xtir-opt %s --split-input-file --verify-diagnostics -p 'split{loop=i factors=62,16}' 2>&1 | filecheck %s
// A diagnostic that no directive expects fails the run (exit 1); the failure is
// reported where the diagnostic is, with its message.

// No directive at all.
func.func @no_directive(%A: memref<1000xf32>) {
  // CHECK: unexpected.mlir:[[# @LINE + 1]]:3: error: unexpected error: 'block.for' op split: the product of factors (992) is smaller than the extent of loop "i" (1000)
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// -----

// A directive on the right line whose text is not in the message: both are reported.
func.func @other_text(%A: memref<1000xf32>) {
  // CHECK: unexpected.mlir:[[# @LINE + 2]]:6: error: expected error "the product of factors (1000)" was not produced on line [[# @LINE + 3]]
  // CHECK: unexpected.mlir:[[# @LINE + 2]]:3: error: unexpected error: 'block.for' op split: the product of factors (992) is smaller
  // expected-error @+1 {{the product of factors (1000)}}
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// -----
// A diagnostic without a location needs `@unknown`; the failure names the first line of the chunk.
// CHECK: unexpected.mlir:[[# @LINE - 2]]: error: unexpected error with no location (in the input from line [[# @LINE - 2]]): the module has 2 functions (f, g); choose one with func=NAME
func.func @f() {
  func.return
}
func.func @g() {
  func.return
}

// -----

// A parse error, unexpected.
func.func @parse_error() {
  // CHECK: unexpected.mlir:[[# @LINE + 1]]:18: error: unexpected error: block.for loops start at 0
  block.for %i = 1 to 8 "i" {
  }
  func.return
}

// -----

// The next chunk is checked after a failing one: its error is expected, so nothing more is reported.
// CHECK-NOT: error:
func.func @expected(%A: memref<1000xf32>) {
  // expected-error @+1 {{the product of factors (992)}}
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}
