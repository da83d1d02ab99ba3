// RUN: xtir-opt %s -p 'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,8},split{loop=j factors=-1,8,8},split{loop=k factors=-1,8},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},fuse{loops=i_1,j_1},reverse-compute-at{block=C_local loop=i_1_j_1_fused},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1_j_1_fused thread="threadIdx.x"},cache-read{block=C index=0 scope="shared"},compute-at{block=A_shared loop=k_0},fuse{loops="A_shared/ax0","A_shared/ax1"},split{loop="A_shared/ax0_ax1_fused" factors=-1,64,4},bind{loop="A_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="A_shared/ax0_ax1_fused_2"},cache-read{block=C index=1 scope="shared"},compute-at{block=B_shared loop=k_0},fuse{loops="B_shared/ax0","B_shared/ax1"},split{loop="B_shared/ax0_ax1_fused" factors=-1,64,4},bind{loop="B_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="B_shared/ax0_ax1_fused_2"},lower-blocks,lower-to-gpu' | filecheck %s

// Seed 002 (6.1.6), GEMM with shared-memory blocking (fused thread axis, cooperative fetch,
// vectorize 4). As in TVM 0.27 (../shared/reference/tvm/ir/gpu_gemm_shared_blocking.cu.txt):
// A_shared is the 64x8 tile and B_shared the 8x64 tile of one k_0 iteration (4096 bytes in all),
// a barrier at the top of k_0 (the next iteration's fetch overwrites what this one read) and one
// between the fetches and the reads; C_local is a per-thread 8x8 array.

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT: func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// CHECK-NEXT: %0 = arith.constant 16 : index
// CHECK-NEXT: %1 = arith.constant 1 : index
// CHECK-NEXT: %2 = arith.constant 64 : index
// CHECK-NEXT: "gpu.launch_func"(%0, %0, %1, %2, %1, %1, %A, %B, %C) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<1024x1024xf32>, memref<1024x1024xf32>, memref<1024x1024xf32>) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.module"() <{sym_name = "main_kernels"}> ({
// CHECK-NEXT: "gpu.func"() <{function_type = (memref<1024x1024xf32>, memref<1024x1024xf32>, memref<1024x1024xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>):
// CHECK-NEXT: %A_shared = memref.alloca() : memref<64x8xf32, "shared">
// CHECK-NEXT: %B_shared = memref.alloca() : memref<8x64xf32, "shared">
// CHECK-NEXT: %C_local = memref.alloca() : memref<8x8xf32, "local">
// CHECK-NEXT: %i = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_0"]} : () -> index
// CHECK-NEXT: %j = "gpu.block_id"() <{dimension = #gpu<dim y>}> {xtir.loop_names = ["j_0"]} : () -> index
// CHECK-NEXT: %i_1_j_1_fused = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_1_j_1_fused", "ax0_ax1_fused_1", "ax0_ax1_fused_1"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %c128 = arith.constant 128 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %c256 = arith.constant 256 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %0 = arith.muli %i, %c64 : index
// CHECK-NEXT: %1 = arith.muli %j, %c64 : index
// CHECK-NEXT: %2 = arith.floordivsi %i_1_j_1_fused, %c8 : index
// CHECK-NEXT: %3 = arith.muli %2, %c8 : index
// CHECK-NEXT: %4 = arith.addi %0, %3 : index
// CHECK-NEXT: %5 = arith.remsi %i_1_j_1_fused, %c8 : index
// CHECK-NEXT: %6 = arith.muli %5, %c8 : index
// CHECK-NEXT: %7 = arith.addi %1, %6 : index
// CHECK-NEXT: scf.for %k0 = %c0 to %c128 step %c1 {
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %8 = arith.muli %k0, %c8 : index
// CHECK-NEXT: scf.for %ax0_ax1_fused0 = %c0 to %c2 step %c1 {
// CHECK-NEXT: %9 = arith.muli %ax0_ax1_fused0, %c256 : index
// CHECK-NEXT: %10 = arith.muli %i_1_j_1_fused, %c4 : index
// CHECK-NEXT: %11 = arith.addi %9, %10 : index
// CHECK-NEXT: scf.for %ax0_ax1_fused2 = %c0 to %c4 step %c1 {
// CHECK-NEXT: %12 = arith.addi %11, %ax0_ax1_fused2 : index
// CHECK-NEXT: %13 = arith.floordivsi %12, %c8 : index
// CHECK-NEXT: %14 = arith.addi %0, %13 : index
// CHECK-NEXT: %15 = arith.remsi %12, %c8 : index
// CHECK-NEXT: %16 = arith.addi %8, %15 : index
// CHECK-NEXT: %17 = memref.load %A[%14, %16] : memref<1024x1024xf32>
// CHECK-NEXT: memref.store %17, %A_shared[%13, %15] : memref<64x8xf32, "shared">
// CHECK-NEXT: } {xtir.loop_name = "ax0_ax1_fused_2", xtir.loop_kind = "vectorized"}
// CHECK-NEXT: } {xtir.loop_name = "ax0_ax1_fused_0"}
// CHECK-NEXT: scf.for %ax0_ax1_fused0_1 = %c0 to %c2 step %c1 {
// CHECK-NEXT: %18 = arith.muli %ax0_ax1_fused0_1, %c256 : index
// CHECK-NEXT: %19 = arith.muli %i_1_j_1_fused, %c4 : index
// CHECK-NEXT: %20 = arith.addi %18, %19 : index
// CHECK-NEXT: scf.for %ax0_ax1_fused2_1 = %c0 to %c4 step %c1 {
// CHECK-NEXT: %21 = arith.addi %20, %ax0_ax1_fused2_1 : index
// CHECK-NEXT: %22 = arith.floordivsi %21, %c64 : index
// CHECK-NEXT: %23 = arith.addi %8, %22 : index
// CHECK-NEXT: %24 = arith.remsi %21, %c64 : index
// CHECK-NEXT: %25 = arith.addi %1, %24 : index
// CHECK-NEXT: %26 = memref.load %B[%23, %25] : memref<1024x1024xf32>
// CHECK-NEXT: memref.store %26, %B_shared[%22, %24] : memref<8x64xf32, "shared">
// CHECK-NEXT: } {xtir.loop_name = "ax0_ax1_fused_2", xtir.loop_kind = "vectorized"}
// CHECK-NEXT: } {xtir.loop_name = "ax0_ax1_fused_0"}
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: scf.for %k1 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %27 = arith.addi %8, %k1 : index
// CHECK-NEXT: %28 = arith.cmpi eq, %27, %c0 : index
// CHECK-NEXT: scf.for %i2 = %c0 to %c8 step %c1 {
// CHECK-NEXT: scf.for %j2 = %c0 to %c8 step %c1 {
// CHECK-NEXT: scf.if %28 {
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %zero, %C_local[%i2, %j2] : memref<8x8xf32, "local">
// CHECK-NEXT: }{xtir.init}
// CHECK-NEXT: %c = memref.load %C_local[%i2, %j2] : memref<8x8xf32, "local">
// CHECK-NEXT: %29 = arith.addi %3, %i2 : index
// CHECK-NEXT: %a = memref.load %A_shared[%29, %k1] : memref<64x8xf32, "shared">
// CHECK-NEXT: %30 = arith.addi %6, %j2 : index
// CHECK-NEXT: %b = memref.load %B_shared[%k1, %30] : memref<8x64xf32, "shared">
// CHECK-NEXT: %ab = arith.mulf %a, %b : f32
// CHECK-NEXT: %sum = arith.addf %c, %ab : f32
// CHECK-NEXT: memref.store %sum, %C_local[%i2, %j2] : memref<8x8xf32, "local">
// CHECK-NEXT: } {xtir.loop_name = "j_2"}
// CHECK-NEXT: } {xtir.loop_name = "i_2"}
// CHECK-NEXT: } {xtir.loop_name = "k_1"}
// CHECK-NEXT: } {xtir.loop_name = "k_0"}
// CHECK-NEXT: scf.for %ax0 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %31 = arith.addi %4, %ax0 : index
// CHECK-NEXT: scf.for %ax1 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %32 = memref.load %C_local[%ax0, %ax1] : memref<8x8xf32, "local">
// CHECK-NEXT: %33 = arith.addi %7, %ax1 : index
// CHECK-NEXT: memref.store %32, %C[%31, %33] : memref<1024x1024xf32>
// CHECK-NEXT: } {xtir.loop_name = "ax1"}
// CHECK-NEXT: } {xtir.loop_name = "ax0"}
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 64, 1, 1>, gpu.known_grid_size = array<i32: 16, 16, 1>, xtir.shared_bytes = 4096 : i64} : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: }

builtin.module {
  func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
    block.for %i = 0 to 1024 "i" {
      block.for %j = 0 to 1024 "j" {
        block.for %k = 0 to 1024 "k" {
          block.block "C"(%vi = spatial(1024, %i), %vj = spatial(1024, %j), %vk = reduce(1024, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<1024x1024xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<1024x1024xf32>
            %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
            %b = block.load %B[%vk, %vj] : memref<1024x1024xf32>
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<1024x1024xf32>
          }
        }
      }
    }
    func.return
  }
}
