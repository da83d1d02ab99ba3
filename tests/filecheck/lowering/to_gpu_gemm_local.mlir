// RUN: xtir-opt %s -p 'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,8},split{loop=j factors=-1,8,8},split{loop=k factors=-1,4},unroll{loop=k_1},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},reverse-compute-at{block=C_local loop=j_1},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1 thread="threadIdx.x"},bind{loop=j_1 thread="threadIdx.y"},decompose-reduction{block=C loop=k_0},lower-blocks,lower-to-gpu' | filecheck %s

// Seed 002 (6.1.5), GEMM with local blocking (8, 8, 8, 8, 4; unroll k_1; decompose-reduction):
// C_local is an 8x8 per-thread array, no shared memory, no barrier (TVM 0.27:
// ../shared/reference/tvm/ir/gpu_gemm_local_blocking.cu.txt). k_1 keeps xtir.loop_kind = "unrolled".

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT: func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
// CHECK-NEXT: %0 = arith.constant 16 : index
// CHECK-NEXT: %1 = arith.constant 1 : index
// CHECK-NEXT: %2 = arith.constant 8 : index
// CHECK-NEXT: "gpu.launch_func"(%0, %0, %1, %2, %2, %1, %A, %B, %C) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<1024x1024xf32>, memref<1024x1024xf32>, memref<1024x1024xf32>) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.module"() <{sym_name = "main_kernels"}> ({
// CHECK-NEXT: "gpu.func"() <{function_type = (memref<1024x1024xf32>, memref<1024x1024xf32>, memref<1024x1024xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>):
// CHECK-NEXT: %C_local = memref.alloca() : memref<8x8xf32, "local">
// CHECK-NEXT: %i = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_0"]} : () -> index
// CHECK-NEXT: %j = "gpu.block_id"() <{dimension = #gpu<dim y>}> {xtir.loop_names = ["j_0"]} : () -> index
// CHECK-NEXT: %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_1"]} : () -> index
// CHECK-NEXT: %j_1 = "gpu.thread_id"() <{dimension = #gpu<dim y>}> {xtir.loop_names = ["j_1"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %c256 = arith.constant 256 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %0 = arith.muli %i, %c64 : index
// CHECK-NEXT: %1 = arith.muli %j, %c64 : index
// CHECK-NEXT: %2 = arith.muli %i_1, %c8 : index
// CHECK-NEXT: %3 = arith.addi %0, %2 : index
// CHECK-NEXT: scf.for %i_2_init = %c0 to %c8 step %c1 {
// CHECK-NEXT: scf.for %j_2_init = %c0 to %c8 step %c1 {
// CHECK-NEXT: memref.store %zero, %C_local[%i_2_init, %j_2_init] : memref<8x8xf32, "local">
// CHECK-NEXT: } {xtir.loop_name = "j_2_init"}
// CHECK-NEXT: } {xtir.loop_name = "i_2_init"}
// CHECK-NEXT: %4 = arith.muli %j_1, %c8 : index
// CHECK-NEXT: %5 = arith.addi %1, %4 : index
// CHECK-NEXT: scf.for %k0 = %c0 to %c256 step %c1 {
// CHECK-NEXT: %6 = arith.muli %k0, %c4 : index
// CHECK-NEXT: scf.for %k1 = %c0 to %c4 step %c1 {
// CHECK-NEXT: %7 = arith.addi %6, %k1 : index
// CHECK-NEXT: scf.for %i2 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %8 = arith.addi %3, %i2 : index
// CHECK-NEXT: scf.for %j2 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %c = memref.load %C_local[%i2, %j2] : memref<8x8xf32, "local">
// CHECK-NEXT: %a = memref.load %A[%8, %7] : memref<1024x1024xf32>
// CHECK-NEXT: %9 = arith.addi %5, %j2 : index
// CHECK-NEXT: %b = memref.load %B[%7, %9] : memref<1024x1024xf32>
// CHECK-NEXT: %ab = arith.mulf %a, %b : f32
// CHECK-NEXT: %sum = arith.addf %c, %ab : f32
// CHECK-NEXT: memref.store %sum, %C_local[%i2, %j2] : memref<8x8xf32, "local">
// CHECK-NEXT: } {xtir.loop_name = "j_2"}
// CHECK-NEXT: } {xtir.loop_name = "i_2"}
// CHECK-NEXT: } {xtir.loop_name = "k_1", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: } {xtir.loop_name = "k_0"}
// CHECK-NEXT: scf.for %ax0 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %10 = arith.addi %3, %ax0 : index
// CHECK-NEXT: scf.for %ax1 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %11 = memref.load %C_local[%ax0, %ax1] : memref<8x8xf32, "local">
// CHECK-NEXT: %12 = arith.addi %5, %ax1 : index
// CHECK-NEXT: memref.store %11, %C[%10, %12] : memref<1024x1024xf32>
// CHECK-NEXT: } {xtir.loop_name = "ax1"}
// CHECK-NEXT: } {xtir.loop_name = "ax0"}
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 8, 8, 1>, gpu.known_grid_size = array<i32: 16, 16, 1>, xtir.shared_bytes = 0 : i64} : () -> ()
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
