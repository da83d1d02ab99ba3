// RUN: xtir-opt %s -p blocks-to-scf | filecheck %s
// blocks-to-scf (a stage of lower-blocks, on loop nests whose blocks are inlined): block.for
// becomes scf.for from the prologue's constants with its name (and kind) as attributes,
// block.load / block.store index expressions become arith feeding memref.load / store, and
// block.alloc a memref.alloca at the start of the function. cse and licm run after it in
// lower-blocks; here each access computes its own indices.

// CHECK-LABEL: func.func @copy(%A: memref<4x8xf32>, %B: memref<32xf32>) {
// CHECK-NEXT:    %T = memref.alloca() : memref<32xf32, "local">
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      scf.for %j = %c0 to %c8 step %c1 {
// CHECK-NEXT:        %a = memref.load %A[%i, %j] : memref<4x8xf32>
// CHECK-NEXT:        %0 = arith.muli %i, %c8 : index
// CHECK-NEXT:        %1 = arith.addi %0, %j : index
// CHECK-NEXT:        memref.store %a, %T[%1] : memref<32xf32, "local">
// CHECK-NEXT:        %2 = arith.muli %i, %c8 : index
// CHECK-NEXT:        %3 = arith.addi %2, %j : index
// CHECK-NEXT:        %t = memref.load %T[%3] : memref<32xf32, "local">
// CHECK-NEXT:        %4 = arith.muli %i, %c8 : index
// CHECK-NEXT:        %5 = arith.addi %4, %j : index
// CHECK-NEXT:        memref.store %t, %B[%5] : memref<32xf32>
// CHECK-NEXT:      } {xtir.loop_name = "j", xtir.loop_kind = "vectorized"}
// CHECK-NEXT:    } {xtir.loop_name = "i", xtir.loop_kind = "parallel"}
// CHECK-NEXT:    func.return
func.func @copy(%A: memref<4x8xf32>, %B: memref<32xf32>) {
  %T = block.alloc : memref<32xf32, "local">
  block.for %i = 0 to 4 "i" parallel {
    block.for %j = 0 to 8 "j" vectorized {
      %a = block.load %A[%i, %j] {xtir.block = "B"} : memref<4x8xf32>
      block.store %a, %T[%i * 8 + %j] {xtir.block = "B"} : memref<32xf32, "local">
      %t = block.load %T[%i * 8 + %j] {xtir.block = "C"} : memref<32xf32, "local">
      block.store %t, %B[%i * 8 + %j] {xtir.block = "C"} : memref<32xf32>
    }
  }
  func.return
}
