// RUN: xtir-opt %s -p 'cache-write{block=C index=0 scope="local"},split{loop=j factors=2,4,2},reorder{loops=i,j_0,j_1,k,j_2},reverse-compute-at{block=C_local loop=j_1},bind{loop=i thread="blockIdx.x"},bind{loop=j_0 thread="vthread.x"},bind{loop=j_1 thread="threadIdx.x"},lower-blocks,lower-to-gpu' | filecheck %s
// RUN: xtir-translate %s -p 'cache-write{block=C index=0 scope="local"},split{loop=j factors=2,4,2},reorder{loops=i,j_0,j_1,k,j_2},reverse-compute-at{block=C_local loop=j_1},bind{loop=i thread="blockIdx.x"},bind{loop=j_0 thread="vthread.x"},bind{loop=j_1 thread="threadIdx.x"}' --target cuda | filecheck %s --check-prefix=CUDA

// Virtual threads (inject-virtual-threads, lowering/virtual_threads.py): j = 16 split (2, 4, 2)
// with the 2 on vthread.x, 4 real threads each computing columns 8v + 2tx + (0, 1). The vthread
// loop is pushed through the thread loop and k down to the statements that use it: A's element
// (the same for both virtual threads) is loaded once per k, outside the virtual threads' loop;
// C_local, allocated inside the vthread loop, becomes one 2-element array per virtual thread
// (2x2); the launch has 4 threads per block, not 8.

func.func @main(%A: memref<4x4xf32>, %B: memref<4x16xf32>, %C: memref<4x16xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 16 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "C"(%vi = spatial(4, %i), %vj = spatial(16, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.0 : f32
            block.store %zero, %C[%vi, %vj] : memref<4x16xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<4x16xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vk, %vj] : memref<4x16xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<4x16xf32>
        }
      }
    }
  }
  func.return
}

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT: func.func @main(%A: memref<4x4xf32>, %B: memref<4x16xf32>, %C: memref<4x16xf32>) {
// CHECK-NEXT: %0 = arith.constant 4 : index
// CHECK-NEXT: %1 = arith.constant 1 : index
// CHECK-NEXT: "gpu.launch_func"(%0, %1, %1, %0, %1, %1, %A, %B, %C) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<4x4xf32>, memref<4x16xf32>, memref<4x16xf32>) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.module"() <{sym_name = "main_kernels"}> ({
// CHECK-NEXT: "gpu.func"() <{function_type = (memref<4x4xf32>, memref<4x16xf32>, memref<4x16xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<4x4xf32>, %B: memref<4x16xf32>, %C: memref<4x16xf32>):
// CHECK-NEXT: %C_local = memref.alloca() : memref<2x1x2xf32, "local">
// CHECK-NEXT: %i = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i"]} : () -> index
// CHECK-NEXT: %j = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["j_1"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: scf.for %0 = %c0 to %c4 step %c1 {
// CHECK-NEXT: scf.for %1 = %c0 to %c2 step %c1 {
// CHECK-NEXT: %2 = arith.cmpi eq, %0, %c0 : index
// CHECK-NEXT: scf.if %2 {
// CHECK-NEXT: scf.for %j0 = %c0 to %c2 step %c1 {
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %zero, %C_local[%j0, %c0, %1] : memref<2x1x2xf32, "local">
// CHECK-NEXT: } {xtir.loop_name = "j_0", xtir.vthread = "vthread.x", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: }{xtir.init}
// CHECK-NEXT: %a = memref.load %A[%i, %0] : memref<4x4xf32>
// CHECK-NEXT: scf.for %j0_1 = %c0 to %c2 step %c1 {
// CHECK-NEXT: %c = memref.load %C_local[%j0_1, %c0, %1] : memref<2x1x2xf32, "local">
// CHECK-NEXT: %3 = arith.muli %j0_1, %c8 : index
// CHECK-NEXT: %4 = arith.muli %j, %c2 : index
// CHECK-NEXT: %5 = arith.addi %3, %4 : index
// CHECK-NEXT: %6 = arith.addi %5, %1 : index
// CHECK-NEXT: %b = memref.load %B[%0, %6] : memref<4x16xf32>
// CHECK-NEXT: %ab = arith.mulf %a, %b : f32
// CHECK-NEXT: %sum = arith.addf %c, %ab : f32
// CHECK-NEXT: memref.store %sum, %C_local[%j0_1, %c0, %1] : memref<2x1x2xf32, "local">
// CHECK-NEXT: } {xtir.loop_name = "j_0", xtir.vthread = "vthread.x", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: } {xtir.loop_name = "j_2"}
// CHECK-NEXT: } {xtir.loop_name = "k"}
// CHECK-NEXT: scf.for %7 = %c0 to %c2 step %c1 {
// CHECK-NEXT: scf.for %j0_2 = %c0 to %c2 step %c1 {
// CHECK-NEXT: %8 = memref.load %C_local[%j0_2, %c0, %7] : memref<2x1x2xf32, "local">
// CHECK-NEXT: %9 = arith.muli %j0_2, %c8 : index
// CHECK-NEXT: %10 = arith.muli %j, %c2 : index
// CHECK-NEXT: %11 = arith.addi %9, %10 : index
// CHECK-NEXT: %12 = arith.addi %11, %7 : index
// CHECK-NEXT: memref.store %8, %C[%i, %12] : memref<4x16xf32>
// CHECK-NEXT: } {xtir.loop_name = "j_0", xtir.vthread = "vthread.x", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: } {xtir.loop_name = "ax0"}
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 4, 1, 1>, gpu.known_grid_size = array<i32: 4, 1, 1>, xtir.shared_bytes = 0 : i64} : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: }

// CUDA: extern "C" __global__ void __launch_bounds__(4) main_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
// CUDA-NEXT: __align__(16) float C_local[4];
// CUDA-NEXT: const int i = (int)blockIdx.x;
// CUDA-NEXT: const int j_1 = (int)threadIdx.x;
// CUDA-NEXT: for (int k = 0; k < 4; ++k) {
// CUDA-NEXT: for (int j_2 = 0; j_2 < 2; ++j_2) {
// CUDA-NEXT: if (k == 0) {
// CUDA-NEXT: #pragma unroll
// CUDA-NEXT: for (int j_0 = 0; j_0 < 2; ++j_0) {
// CUDA-NEXT: C_local[j_0 * 2 + j_2] = 0.0f;
// CUDA-NEXT: }
// CUDA-NEXT: }
// CUDA-NEXT: const float a = A[i * 4 + k];
// CUDA-NEXT: #pragma unroll
// CUDA-NEXT: for (int j_0_1 = 0; j_0_1 < 2; ++j_0_1) {
// CUDA-NEXT: C_local[j_0_1 * 2 + j_2] = C_local[j_0_1 * 2 + j_2] + a * B[k * 16 + j_0_1 * 8 + j_1 * 2 + j_2];
// CUDA-NEXT: }
// CUDA-NEXT: }
// CUDA-NEXT: }
// CUDA-NEXT: for (int ax0 = 0; ax0 < 2; ++ax0) {
// CUDA-NEXT: #pragma unroll
// CUDA-NEXT: for (int j_0_2 = 0; j_0_2 < 2; ++j_0_2) {
// CUDA-NEXT: C[i * 16 + j_0_2 * 8 + j_1 * 2 + ax0] = C_local[j_0_2 * 2 + ax0];
// CUDA-NEXT: }
// CUDA-NEXT: }
// CUDA-NEXT: }
