// RUN: xtir-opt %s -p 'double-buffer{block=A_shared},lower-blocks,lower-to-gpu' | filecheck %s
// RUN: xtir-opt %s -p 'lower-blocks,lower-to-gpu' | filecheck %s --check-prefix=PLAIN

// Double buffering on the last, partial tile: the row sum of to_gpu_double_buffer.mlir over 60
// rows, 8 per block (i_0 * 8 + i_1 < 60: the last block has 4). The fetch is guarded by the same
// edge on its row (i_0 * 8 + ax0 < 60) and the sum by its own; A_shared is still one 8x8 tile per
// block, doubled (2x8x8, not 2x60x64): a read guarded by an edge at or below the fetch's reads
// only what the fetch wrote. The registers staging the next tile are loaded and stored under the
// fetch's guard. Without double buffering A_shared is the one 8x8 tile (PLAIN).

// PLAIN: %A_shared = memref.alloca() : memref<8x8xf32, "shared">

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT: func.func @main(%A: memref<60x64xf32>, %S: memref<60xf32>) {
// CHECK-NEXT: %0 = arith.constant 8 : index
// CHECK-NEXT: %1 = arith.constant 1 : index
// CHECK-NEXT: "gpu.launch_func"(%0, %1, %1, %0, %1, %1, %A, %S) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<60x64xf32>, memref<60xf32>) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.module"() <{sym_name = "main_kernels"}> ({
// CHECK-NEXT: "gpu.func"() <{function_type = (memref<60x64xf32>, memref<60xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<60x64xf32>, %S: memref<60xf32>):
// CHECK-NEXT: %A_shared = memref.alloca() : memref<2x8x8xf32, "shared">
// CHECK-NEXT: %A_shared_next = memref.alloca() : memref<8xf32, "local">
// CHECK-NEXT: %i = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_0"]} : () -> index
// CHECK-NEXT: %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_1", "ax1", "ax1", "ax1"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c60 = arith.constant 60 : index
// CHECK-NEXT: %c7 = arith.constant 7 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %0 = arith.muli %i, %c8 : index
// CHECK-NEXT: %1 = arith.addi %0, %i_1 : index
// CHECK-NEXT: %2 = arith.cmpi slt, %1, %c60 : index
// CHECK-NEXT: scf.for %ax0 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %3 = arith.addi %0, %ax0 : index
// CHECK-NEXT: %4 = arith.cmpi slt, %3, %c60 : index
// CHECK-NEXT: scf.if %4 {
// CHECK-NEXT: %5 = arith.muli %c0, %c8 : index
// CHECK-NEXT: %6 = arith.addi %5, %i_1 : index
// CHECK-NEXT: %7 = memref.load %A[%3, %6] : memref<60x64xf32>
// CHECK-NEXT: memref.store %7, %A_shared[%c0, %ax0, %i_1] : memref<2x8x8xf32, "shared">
// CHECK-NEXT: }
// CHECK-NEXT: } {xtir.loop_name = "ax0"}
// CHECK-NEXT: scf.for %k0 = %c0 to %c7 step %c1 {
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %8 = arith.addi %k0, %c1 : index
// CHECK-NEXT: %9 = arith.remsi %k0, %c2 : index
// CHECK-NEXT: %10 = arith.remsi %8, %c2 : index
// CHECK-NEXT: scf.for %ax0_1 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %11 = arith.addi %0, %ax0_1 : index
// CHECK-NEXT: %12 = arith.cmpi slt, %11, %c60 : index
// CHECK-NEXT: scf.if %12 {
// CHECK-NEXT: %13 = arith.muli %8, %c8 : index
// CHECK-NEXT: %14 = arith.addi %13, %i_1 : index
// CHECK-NEXT: %15 = memref.load %A[%11, %14] : memref<60x64xf32>
// CHECK-NEXT: memref.store %15, %A_shared_next[%ax0_1] : memref<8xf32, "local">
// CHECK-NEXT: }
// CHECK-NEXT: } {xtir.loop_name = "ax0"}
// CHECK-NEXT: scf.for %k1 = %c0 to %c8 step %c1 {
// CHECK-NEXT: scf.if %2 {
// CHECK-NEXT: %16 = arith.muli %k0, %c8 : index
// CHECK-NEXT: %17 = arith.addi %16, %k1 : index
// CHECK-NEXT: %18 = arith.cmpi eq, %17, %c0 : index
// CHECK-NEXT: scf.if %18 {
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %zero, %S[%1] : memref<60xf32>
// CHECK-NEXT: }{xtir.init}
// CHECK-NEXT: %s = memref.load %S[%1] : memref<60xf32>
// CHECK-NEXT: %a = memref.load %A_shared[%9, %i_1, %k1] : memref<2x8x8xf32, "shared">
// CHECK-NEXT: %sum = arith.addf %s, %a : f32
// CHECK-NEXT: memref.store %sum, %S[%1] : memref<60xf32>
// CHECK-NEXT: }
// CHECK-NEXT: } {xtir.loop_name = "k_1"}
// CHECK-NEXT: scf.for %ax0_2 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %19 = arith.addi %0, %ax0_2 : index
// CHECK-NEXT: %20 = arith.cmpi slt, %19, %c60 : index
// CHECK-NEXT: scf.if %20 {
// CHECK-NEXT: %21 = memref.load %A_shared_next[%ax0_2] : memref<8xf32, "local">
// CHECK-NEXT: memref.store %21, %A_shared[%10, %ax0_2, %i_1] : memref<2x8x8xf32, "shared">
// CHECK-NEXT: }
// CHECK-NEXT: } {xtir.loop_name = "ax0"}
// CHECK-NEXT: } {xtir.loop_name = "k_0"}
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: scf.for %k1_1 = %c0 to %c8 step %c1 {
// CHECK-NEXT: scf.if %2 {
// CHECK-NEXT: %22 = arith.muli %c7, %c8 : index
// CHECK-NEXT: %23 = arith.addi %22, %k1_1 : index
// CHECK-NEXT: %24 = arith.cmpi eq, %23, %c0 : index
// CHECK-NEXT: scf.if %24 {
// CHECK-NEXT: %zero_1 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %zero_1, %S[%1] : memref<60xf32>
// CHECK-NEXT: }{xtir.init}
// CHECK-NEXT: %s_1 = memref.load %S[%1] : memref<60xf32>
// CHECK-NEXT: %a_1 = memref.load %A_shared[%c1, %i_1, %k1_1] : memref<2x8x8xf32, "shared">
// CHECK-NEXT: %sum_1 = arith.addf %s_1, %a_1 : f32
// CHECK-NEXT: memref.store %sum_1, %S[%1] : memref<60xf32>
// CHECK-NEXT: }
// CHECK-NEXT: } {xtir.loop_name = "k_1"}
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 8, 1, 1>, gpu.known_grid_size = array<i32: 8, 1, 1>, xtir.shared_bytes = 512 : i64} : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: }

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
