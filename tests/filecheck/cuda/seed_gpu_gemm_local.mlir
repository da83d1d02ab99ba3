// Seed 002 GEMM with local blocking (8,8,8,8,4): C_local of 64 floats per thread, k_1 unrolled, the init
// decomposed out of k_0 (TVM 0.27: gpu_gemm_local_blocking.cu.txt, which has ~20 unused variables; this has none).
// RUN: xtir-translate %s -p 'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,8},split{loop=j factors=-1,8,8},split{loop=k factors=-1,4},unroll{loop=k_1},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},reverse-compute-at{block=C_local loop=j_1},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1 thread="threadIdx.x"},bind{loop=j_1 thread="threadIdx.y"},decompose-reduction{block=C loop=k_0}' --target cuda | filecheck %s

// CHECK:      extern "C" __global__ void __launch_bounds__(64) main_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
// CHECK-NEXT:   __align__(16) float C_local[64];
// CHECK-NEXT:   const int i_0 = (int)blockIdx.x;
// CHECK-NEXT:   const int j_0 = (int)blockIdx.y;
// CHECK-NEXT:   const int i_1 = (int)threadIdx.x;
// CHECK-NEXT:   const int j_1 = (int)threadIdx.y;
// CHECK-NEXT:   const int v = i_0 * 64 + i_1 * 8;
// CHECK-NEXT:   for (int i_2_init = 0; i_2_init < 8; ++i_2_init) {
// CHECK-NEXT:     for (int j_2_init = 0; j_2_init < 8; ++j_2_init) {
// CHECK-NEXT:       C_local[i_2_init * 8 + j_2_init] = 0.0f;
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   const int v_1 = j_0 * 64 + j_1 * 8;
// CHECK-NEXT:   for (int k_0 = 0; k_0 < 256; ++k_0) {
// CHECK-NEXT:     #pragma unroll
// CHECK-NEXT:     for (int k_1 = 0; k_1 < 4; ++k_1) {
// CHECK-NEXT:       const int v_2 = k_0 * 4 + k_1;
// CHECK-NEXT:       for (int i_2 = 0; i_2 < 8; ++i_2) {
// CHECK-NEXT:         for (int j_2 = 0; j_2 < 8; ++j_2) {
// CHECK-NEXT:           C_local[i_2 * 8 + j_2] = C_local[i_2 * 8 + j_2] + A[(v + i_2) * 1024 + v_2] * B[v_2 * 1024 + v_1 + j_2];
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int ax0 = 0; ax0 < 8; ++ax0) {
// CHECK-NEXT:     for (int ax1 = 0; ax1 < 8; ++ax1) {
// CHECK-NEXT:       C[(v + ax0) * 1024 + v_1 + ax1] = C_local[ax0 * 8 + ax1];
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      // Host side of @main(A, B, C):
// CHECK-NEXT: //   main_kernel<<<dim3(16, 16, 1), dim3(8, 8, 1)>>>(A, B, C);  // 64 threads/block, 0 bytes __shared__

// MyModuleMatmul of seed 002 (the GPU matmul before scheduling): C = A · B,
// 1024x1024x1024, float32; note B is indexed [vk, vj] here, not transposed.
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
