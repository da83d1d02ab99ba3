// RUN: not xtir-opt %s -p 'compute-at{block=B loop=i}' 2>&1 | filecheck %s --match-full-lines --strict-whitespace
// RUN: xtir-opt %s -p 'compute-at{block=B loop=i}' --verify-diagnostics
// How a refusal is written (MLIR's form): the error at the op refused, with its source line and a
// caret, then a `note:` at the other block involved, with its line and caret. The pass name is
// added by the pipeline driver, not by the pass. --verify-diagnostics wants the note announced.

// CHECK:{{.*}}diagnostics_notes.mlir:[[# @LINE + 21]]:5: error: 'block.block' op compute-at: block "W" writes X, which block "B" reads, after "B" and before the end of loop "i"; computed under the loop, "B" would read those writes
// CHECK-NEXT:    block.block "W"(%vi = spatial(8, %i)) {
// CHECK-NEXT:    ^
// CHECK-NEXT:{{.*}}diagnostics_notes.mlir:[[# @LINE + 7]]:5: note: block "B" reads X
// CHECK-NEXT:    block.block "B"(%vi = spatial(8, %j)) {
// CHECK-NEXT:    ^
func.func @input_written_later(%X: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %j = 0 to 8 "j" {
    // expected-note @+1 {{block "B" reads X}}
    block.block "B"(%vi = spatial(8, %j)) {
      %x = block.load %X[%vi] : memref<8xf32>
      block.store %x, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
    // expected-error @+1 {{'block.block' op compute-at: block "W" writes X, which block "B" reads}}
    block.block "W"(%vi = spatial(8, %i)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %X[%vi] : memref<8xf32>
    }
  }
  func.return
}
