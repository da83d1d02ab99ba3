// RUN: xtir-opt %s -p 'lower-blocks,lower-to-gpu,version-edge-blocks' | filecheck %s
// RUN: xtir-opt %s -p 'lower-blocks,lower-to-gpu,version-edge-blocks,version-edge-blocks' | filecheck %s --check-prefix=TWICE

// The row sum over 60 rows, 8 a block (the input of to_gpu_double_buffer_edge.mlir, not double-buffered):
// the fetch's guard `i_0 * 8 + ax0 < 60` and the sum's `i_0 * 8 + i_1 < 60` hold for a whole block
// when i_0 * 8 < 53, so blocks 0 to 6 run the body without them; block 7 runs the guarded copy. The
// init's `k_0 * 8 + k_1 == 0` is no edge guard: both copies keep it. Both copies hold the barriers,
// which the whole block reaches or not (the condition is on the block id alone).

// CHECK:      %[[ROW:.*]] = arith.addi %[[I0:.*]], %i_1 : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 53 : index
// CHECK-NEXT: %[[FAST:.*]] = arith.cmpi slt, %[[I0]], %[[LIMIT]] : index
// CHECK-NEXT: scf.if %[[FAST]] {
// CHECK-NEXT:   scf.for %k0 = %c0 to %c8 step %c1 {
// CHECK-NEXT:     "gpu.barrier"() : () -> ()
// CHECK-NEXT:     scf.for %ax0 = %c0 to %c8 step %c1 {
// CHECK-NEXT:       arith.addi
// CHECK-NEXT:       arith.muli
// CHECK-NEXT:       arith.addi
// CHECK-NEXT:       memref.load %A
// CHECK-NEXT:       memref.store
// CHECK-NEXT:     } {xtir.loop_name = "ax0"}
// CHECK-NEXT:     "gpu.barrier"() : () -> ()
// CHECK-NEXT:     scf.for %k1 = %c0 to %c8 step %c1 {
// CHECK-NEXT:       arith.muli
// CHECK-NEXT:       arith.addi
// CHECK-NEXT:       %[[FIRST:.*]] = arith.cmpi eq
// CHECK-NEXT:       scf.if %[[FIRST]] {
// CHECK:            memref.store %sum, %S[%[[ROW]]]
// CHECK-NEXT:     } {xtir.loop_name = "k_1"}
// CHECK-NEXT:   } {xtir.loop_name = "k_0"}
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[INSIDE:.*]] = arith.cmpi slt, %[[ROW]], %c60 : index
// CHECK-NEXT:   scf.for %k0_1 = %c0 to %c8 step %c1 {
// CHECK-NEXT:     "gpu.barrier"() : () -> ()
// CHECK-NEXT:     scf.for %ax0_1 = %c0 to %c8 step %c1 {
// CHECK-NEXT:       arith.addi
// CHECK-NEXT:       %[[FETCHED:.*]] = arith.cmpi slt, %{{.*}}, %c60 : index
// CHECK-NEXT:       scf.if %[[FETCHED]] {
// CHECK:          "gpu.barrier"() : () -> ()
// CHECK-NEXT:     scf.for %k1_1 = %c0 to %c8 step %c1 {
// CHECK-NEXT:       scf.if %[[INSIDE]] {
// CHECK-NEXT:         arith.muli
// CHECK-NEXT:         arith.addi
// CHECK-NEXT:         arith.cmpi eq
// CHECK:      "gpu.return"() : () -> ()

// A second run leaves the kernel as it is (marked xtir.edge_versions): the guards it would find in
// the guarded copy are the edge blocks' own, to version them again would nest a copy no block runs.
// TWICE:     } else {
// TWICE-NOT: } else {
// TWICE:     xtir.edge_versions

builtin.module {
  func.func @main(%A: memref<60x64xf32>, %S: memref<60xf32>) {
    %A_shared = block.alloc : memref<60x64xf32, "shared">
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 8 "k_0" {
          block.for %ax0 = 0 to 8 "ax0" {
            block.for %ax1 = 0 to 8 "ax1" bind("threadIdx.x") {
              block.block "A_shared"(%v0 = spatial(60, %i0 * 8 + %ax0), %v1 = spatial(64, %k0 * 8 + %ax1)) where(%i0 * 8 + %ax0 < 60) {
                %0 = block.load %A[%v0, %v1] : memref<60x64xf32>
                block.store %0, %A_shared[%v0, %v1] : memref<60x64xf32, "shared">
              }
            }
          }
          block.for %k1 = 0 to 8 "k_1" {
            block.block "S"(%vi = spatial(60, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 8 + %k1)) where(%i0 * 8 + %i1 < 60) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<60xf32>
              }
              %s = block.load %S[%vi] : memref<60xf32>
              %a = block.load %A_shared[%vi, %vk] : memref<60x64xf32, "shared">
              %sum = arith.addf %s, %a : f32
              block.store %sum, %S[%vi] : memref<60xf32>
            }
          }
        }
      }
    }
    func.return
  }
}
