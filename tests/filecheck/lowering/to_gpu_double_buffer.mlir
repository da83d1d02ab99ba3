// RUN: xtir-opt %s -p 'double-buffer{block=A_shared},lower-blocks,lower-to-gpu' | filecheck %s

// lower-to-gpu's part of double buffering (TVM's InjectDoubleBuffer), on the row sum of
// passes/double_buffer.mlir: A_shared, sized to one 8x8 tile, gets a leading dimension of 2
// (tile k in half k mod 2). Tile 0 is fetched before k_0; iteration k_0 loads tile k_0 + 1 into
// registers (A_shared_next, one per thread) first, computes on half k_0 mod 2, then stores the
// registers into the other half; the last iteration runs after the loop without a fetch.
// One barrier per iteration, at the top of k_0: the stores at the end of iteration k_0 - 1 wrote
// the half this one reads and overwrote the half iteration k_0 - 2 read (the barrier at the top
// of k_0 - 1 separates those); the prologue's fetch needs no barrier of its own (the loop's first
// one follows), the epilogue one before its reads (the last stores).

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT: func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
// CHECK-NEXT: %0 = arith.constant 8 : index
// CHECK-NEXT: %1 = arith.constant 1 : index
// CHECK-NEXT: "gpu.launch_func"(%0, %1, %1, %0, %1, %1, %A, %S) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<64x64xf32>, memref<64xf32>) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.module"() <{sym_name = "main_kernels"}> ({
// CHECK-NEXT: "gpu.func"() <{function_type = (memref<64x64xf32>, memref<64xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<64x64xf32>, %S: memref<64xf32>):
// CHECK-NEXT: %A_shared = memref.alloca() : memref<2x8x8xf32, "shared">
// CHECK-NEXT: %A_shared_next = memref.alloca() : memref<8xf32, "local">
// CHECK-NEXT: %i = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_0"]} : () -> index
// CHECK-NEXT: %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_1", "ax1", "ax1", "ax1"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c7 = arith.constant 7 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %c56 = arith.constant 56 : index
// CHECK-NEXT: %0 = arith.muli %i, %c8 : index
// CHECK-NEXT: %1 = arith.addi %0, %i_1 : index
// CHECK-NEXT: scf.for %ax0 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %2 = arith.addi %0, %ax0 : index
// CHECK-NEXT: %3 = arith.addi %c0, %i_1 : index
// CHECK-NEXT: %4 = memref.load %A[%2, %3] : memref<64x64xf32>
// CHECK-NEXT: memref.store %4, %A_shared[%c0, %ax0, %i_1] : memref<2x8x8xf32, "shared">
// CHECK-NEXT: } {xtir.loop_name = "ax0"}
// CHECK-NEXT: scf.for %k0 = %c0 to %c7 step %c1 {
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %5 = arith.addi %k0, %c1 : index
// CHECK-NEXT: %6 = arith.remsi %k0, %c2 : index
// CHECK-NEXT: %7 = arith.remsi %5, %c2 : index
// CHECK-NEXT: %8 = arith.muli %k0, %c8 : index
// CHECK-NEXT: %9 = arith.muli %5, %c8 : index
// CHECK-NEXT: scf.for %ax0_1 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %10 = arith.addi %0, %ax0_1 : index
// CHECK-NEXT: %11 = arith.addi %9, %i_1 : index
// CHECK-NEXT: %12 = memref.load %A[%10, %11] : memref<64x64xf32>
// CHECK-NEXT: memref.store %12, %A_shared_next[%ax0_1] : memref<8xf32, "local">
// CHECK-NEXT: } {xtir.loop_name = "ax0"}
// CHECK-NEXT: scf.for %k1 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %13 = arith.addi %8, %k1 : index
// CHECK-NEXT: %14 = arith.cmpi eq, %13, %c0 : index
// CHECK-NEXT: scf.if %14 {
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %zero, %S[%1] : memref<64xf32>
// CHECK-NEXT: }{xtir.init}
// CHECK-NEXT: %s = memref.load %S[%1] : memref<64xf32>
// CHECK-NEXT: %a = memref.load %A_shared[%6, %i_1, %k1] : memref<2x8x8xf32, "shared">
// CHECK-NEXT: %sum = arith.addf %s, %a : f32
// CHECK-NEXT: memref.store %sum, %S[%1] : memref<64xf32>
// CHECK-NEXT: } {xtir.loop_name = "k_1"}
// CHECK-NEXT: scf.for %ax0_2 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %15 = memref.load %A_shared_next[%ax0_2] : memref<8xf32, "local">
// CHECK-NEXT: memref.store %15, %A_shared[%7, %ax0_2, %i_1] : memref<2x8x8xf32, "shared">
// CHECK-NEXT: } {xtir.loop_name = "ax0"}
// CHECK-NEXT: } {xtir.loop_name = "k_0"}
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: scf.for %k1_1 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %16 = arith.addi %c56, %k1_1 : index
// CHECK-NEXT: %17 = arith.cmpi eq, %16, %c0 : index
// CHECK-NEXT: scf.if %17 {
// CHECK-NEXT: %zero_1 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %zero_1, %S[%1] : memref<64xf32>
// CHECK-NEXT: }{xtir.init}
// CHECK-NEXT: %s_1 = memref.load %S[%1] : memref<64xf32>
// CHECK-NEXT: %a_1 = memref.load %A_shared[%c1, %i_1, %k1_1] : memref<2x8x8xf32, "shared">
// CHECK-NEXT: %sum_1 = arith.addf %s_1, %a_1 : f32
// CHECK-NEXT: memref.store %sum_1, %S[%1] : memref<64xf32>
// CHECK-NEXT: } {xtir.loop_name = "k_1"}
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 8, 1, 1>, gpu.known_grid_size = array<i32: 8, 1, 1>, xtir.shared_bytes = 512 : i64} : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: }

builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc : memref<64x64xf32, "shared">
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 8 "k_0" {
          block.for %ax0 = 0 to 8 "ax0" {
            block.for %ax1 = 0 to 8 "ax1" bind("threadIdx.x") {
              block.block "A_shared"(%v0 = spatial(64, %i0 * 8 + %ax0), %v1 = spatial(64, %k0 * 8 + %ax1)) {
                %0 = block.load %A[%v0, %v1] : memref<64x64xf32>
                block.store %0, %A_shared[%v0, %v1] : memref<64x64xf32, "shared">
              }
            }
          }
          block.for %k1 = 0 to 8 "k_1" {
            block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 8 + %k1)) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<64xf32>
              }
              %s = block.load %S[%vi] : memref<64xf32>
              %a = block.load %A_shared[%vi, %vk] : memref<64x64xf32, "shared">
              %sum = arith.addf %s, %a : f32
              block.store %sum, %S[%vi] : memref<64xf32>
            }
          }
        }
      }
    }
    func.return
  }
}

