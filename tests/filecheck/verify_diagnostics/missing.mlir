// RUN: not xtir-opt %s --split-input-file --verify-diagnostics -p 'split{loop=i factors=62,16}' 2>&1 | filecheck %s
// An expected diagnostic that does not come fails the run (exit 1); the failure is
// reported at the directive, `file:line:col` (col: where `expected-` starts).

// The split is legal here, so no error comes.
func.func @legal(%A: memref<992xf32>) {
  // CHECK: missing.mlir:[[# @LINE + 1]]:6: error: expected error "smaller than the extent" was not produced on line [[# @LINE + 2]]
  // expected-error @+1 {{smaller than the extent}}
  block.for %i = 0 to 992 "i" {
    block.block "B"(%vi = spatial(992, %i)) {
      %a = block.load %A[%vi] : memref<992xf32>
      block.store %a, %A[%vi] : memref<992xf32>
    }
  }
  func.return
}

// -----

// The wrong line: the directive is missing, and the error it meant is unexpected.
func.func @wrong_line(%A: memref<1000xf32>) {
  // CHECK: missing.mlir:[[# @LINE + 2]]:6: error: expected error "the product of factors (992)" was not produced on line [[# @LINE + 4]]
  // CHECK: missing.mlir:[[# @LINE + 2]]:3: error: unexpected error: 'block.for' op split: the product of factors (992) is smaller than the extent of loop "i" (1000)
  // expected-error @+2 {{the product of factors (992)}}
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// -----

// Two directives on one line: the error matches the first; the warning never comes.
func.func @two_on_a_line(%A: memref<1000xf32>) {
  // CHECK-NOT: error: expected error "the product of factors"
  // CHECK: missing.mlir:[[# @LINE + 1]]:52: error: expected warning "a warning xtir does not give" was not produced on line [[# @LINE + 2]]
  // expected-error @+1 {{the product of factors}} expected-warning @+1 {{a warning xtir does not give}}
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// -----

// The wrong kind: the text matches, but an error is not a warning.
func.func @wrong_kind(%A: memref<1000xf32>) {
  // CHECK: missing.mlir:[[# @LINE + 2]]:6: error: expected warning "is smaller than the extent" was not produced on line [[# @LINE + 3]]
  // CHECK: missing.mlir:[[# @LINE + 2]]:3: error: unexpected error: 'block.for' op split: {{.*}} (the expected-warning at {{.*}}missing.mlir:[[# @LINE + 1]]:6 has its text: wrong kind?)
  // expected-warning @+1 {{is smaller than the extent}}
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// -----

// @unknown expects a diagnostic without a location; this one has a location.
// CHECK: missing.mlir:[[# @LINE + 2]]:4: error: expected error "smaller" was not produced at an unknown location
// CHECK: missing.mlir:[[# @LINE + 3]]:3: error: unexpected error: 'block.for' op split: the product of factors (992)
// expected-error @unknown {{smaller}}
func.func @unknown(%A: memref<1000xf32>) {
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}
