// RUN: xtir-opt %s -p expand-unrolled-loops | filecheck %s
// expand-unrolled-loops (a stage of convert-to-llvm, lowering/loops.py): a loop of kind
// "unrolled" with a constant trip count is unrolled in the IR (xDSL's unroll pattern);
// other loops stay. to_llvm.mlir shows loops too big to unroll here.

// CHECK-LABEL: func.func @unrolled(%A: memref<4xf32>) {
// CHECK:         %i = arith.constant 0 : index
// CHECK-NEXT:    memref.store %zero, %A[%i] : memref<4xf32>
// CHECK-NEXT:    %i_1 = arith.constant 1 : index
// CHECK-NEXT:    memref.store %zero, %A[%i_1] : memref<4xf32>
// CHECK-NEXT:    %i_2 = arith.constant 2 : index
// CHECK-NEXT:    memref.store %zero, %A[%i_2] : memref<4xf32>
// CHECK-NEXT:    %i_3 = arith.constant 3 : index
// CHECK-NEXT:    memref.store %zero, %A[%i_3] : memref<4xf32>
// CHECK-NEXT:    scf.for %j = %c0 to %c4 step %c1 {
// CHECK-NEXT:      memref.store %zero, %A[%j] : memref<4xf32>
// CHECK-NEXT:    } {xtir.loop_name = "j"}
func.func @unrolled(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %zero, %A[%i] : memref<4xf32>
  } {xtir.loop_name = "i", xtir.loop_kind = "unrolled"}
  scf.for %j = %c0 to %c4 step %c1 {
    memref.store %zero, %A[%j] : memref<4xf32>
  } {xtir.loop_name = "j"}
  func.return
}
