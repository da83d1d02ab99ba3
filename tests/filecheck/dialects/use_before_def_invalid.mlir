// RUN: xtir-opt %s --split-input-file --verify-diagnostics
// A value must be defined before it is used: above the use in the same block, or above the op
// whose region holds the use. xDSL checks no dominance, so these parsed, and xtir.build and
// xtir.evaluate then crashed with a KeyError.

// A store of %s above the addf that defines it (found by the fuzzer's `swap_lines`).
func.func @store_before_add(%A: memref<4xf32>, %B: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) {
      // expected-error @+1 {{'block.store' op operand 0 (%s) is used before it is defined}}
      block.store %s, %B[%vi] : memref<4xf32>
      %a = block.load %A[%vi] : memref<4xf32>
      // expected-note @+1 {{%s is defined here}}
      %s = arith.addf %a, %a : f32
    }
  }
  func.return
}

// -----

// A use inside a loop of a value defined after the loop.
func.func @use_in_region_before_def(%A: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) {
      // expected-error @+1 {{'block.store' op operand 0 (%c) is used before it is defined}}
      block.store %c, %A[%vi] : memref<4xf32>
    }
  }
  // expected-note @+1 {{%c is defined here}}
  %c = arith.constant 1.0 : f32
  func.return
}
