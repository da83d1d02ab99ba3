// RUN: xtir-opt %s -p version-edge-blocks | filecheck %s

// Hand-written gpu-dialect input: 8 blocks of 32 threads copy 4 elements each under the guard
// `i_0 * 128 + i_1 * 4 + v < 1024`, which every block satisfies wholly (at most 7 * 128 + 127):
// the guard is dropped from both copies. The guard `< 1000` of the second copy holds wholly for
// the blocks i_0 * 128 < 873: the kernel is versioned on it.

// CHECK:      %[[BASE:.*]] = arith.addi %0, %1 : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 873 : index
// CHECK-NEXT: %[[FAST:.*]] = arith.cmpi slt, %0, %[[LIMIT]] : index
// CHECK-NEXT: scf.if %[[FAST]] {
// CHECK-NEXT:   scf.for %v = %c0 to %c4 step %c1 {
// CHECK-NEXT:     %[[I:.*]] = arith.addi %[[BASE]], %v : index
// CHECK-NEXT:     %a = memref.load %A[%[[I]]] : memref<1024xf32>
// CHECK-NEXT:     memref.store %a, %B[%[[I]]] : memref<1024xf32>
// CHECK-NEXT:   } {xtir.loop_name = "i_2", xtir.loop_kind = "vectorized"}
// CHECK-NEXT:   scf.for %w = %c0 to %c4 step %c1 {
// CHECK-NEXT:     %[[J:.*]] = arith.addi %[[BASE]], %w : index
// CHECK-NEXT:     %b = memref.load %A[%[[J]]] : memref<1024xf32>
// CHECK-NEXT:     memref.store %b, %C[%[[J]]] : memref<1024xf32>
// CHECK-NEXT:   } {xtir.loop_name = "i_2", xtir.loop_kind = "vectorized"}
// CHECK-NEXT: } else {
// CHECK-NEXT:   scf.for %v_1 = %c0 to %c4 step %c1 {
// CHECK-NEXT:     %[[I1:.*]] = arith.addi %[[BASE]], %v_1 : index
// CHECK-NEXT:     %a_1 = memref.load %A[%[[I1]]] : memref<1024xf32>
// CHECK-NEXT:     memref.store %a_1, %B[%[[I1]]] : memref<1024xf32>
// CHECK-NEXT:   } {xtir.loop_name = "i_2", xtir.loop_kind = "vectorized"}
// CHECK-NEXT:   scf.for %w_1 = %c0 to %c4 step %c1 {
// CHECK-NEXT:     %[[J1:.*]] = arith.addi %[[BASE]], %w_1 : index
// CHECK-NEXT:     %{{.*}} = arith.cmpi slt, %[[J1]], %c1000 : index
// CHECK-NEXT:     scf.if

// RUN: xtir-opt %s -p version-edge-blocks | filecheck %s --check-prefix=ONLY
// ONLY-COUNT-1: } else {
// ONLY-NOT:     } else {

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "main_kernels"}> ({
    "gpu.func"() <{function_type = (memref<1024xf32>, memref<1024xf32>, memref<1024xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c128 = arith.constant 128 : index
      %c1000 = arith.constant 1000 : index
      %c1024 = arith.constant 1024 : index
      %i_0 = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_0"]} : () -> index
      %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_1"]} : () -> index
      %0 = arith.muli %i_0, %c128 : index
      %1 = arith.muli %i_1, %c4 : index
      %2 = arith.addi %0, %1 : index
      scf.for %v = %c0 to %c4 step %c1 {
        %3 = arith.addi %2, %v : index
        %4 = arith.cmpi slt, %3, %c1024 : index
        scf.if %4 {
          %a = memref.load %A[%3] : memref<1024xf32>
          memref.store %a, %B[%3] : memref<1024xf32>
        }
      } {xtir.loop_name = "i_2", xtir.loop_kind = "vectorized"}
      scf.for %w = %c0 to %c4 step %c1 {
        %5 = arith.addi %2, %w : index
        %6 = arith.cmpi slt, %5, %c1000 : index
        scf.if %6 {
          %b = memref.load %A[%5] : memref<1024xf32>
          memref.store %b, %C[%5] : memref<1024xf32>
        }
      } {xtir.loop_name = "i_2", xtir.loop_kind = "vectorized"}
      "gpu.return"() : () -> ()
    }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.known_grid_size = array<i32: 8, 1, 1>} : () -> ()
  }) : () -> ()
  func.func @main(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    "gpu.launch_func"(%c8, %c1, %c1, %c32, %c1, %c1, %A, %B, %C) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>) -> ()
    func.return
  }
}
