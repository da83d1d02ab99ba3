// RUN: xtir-opt %s -p convert-scf-to-cf-annotated | filecheck %s
// convert-scf-to-cf-annotated (a stage of convert-to-llvm, lowering/loops.py): xDSL's
// scf → cf patterns, except that a loop's annotation stays on its back edge (xDSL's
// convert-scf-to-cf drops it); an innermost vectorized loop is annotated vectorize = true.

// CHECK-LABEL: func.func @vectorized(%A: memref<64xf32>) {
// CHECK:         cf.br ^[[HEAD:bb[0-9]+]](%c0 : index)
// CHECK-NEXT:  ^[[HEAD]](%i: index):
// CHECK-NEXT:    %[[COND:.*]] = arith.cmpi slt, %i, %c64 : index
// CHECK-NEXT:    cf.cond_br %[[COND]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    memref.store %zero, %A[%i] : memref<64xf32>
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %i, %c1 : index
// CHECK-NEXT:    cf.br ^[[HEAD]](%[[NEXT]] : index) {xtir.loop_annotation = {name = "i", vectorize = true}}
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    func.return
func.func @vectorized(%A: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %zero, %A[%i] : memref<64xf32>
  } {xtir.loop_name = "i", xtir.loop_kind = "vectorized"}
  func.return
}
