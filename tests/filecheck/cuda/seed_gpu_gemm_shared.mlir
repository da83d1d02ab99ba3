// Seed 002 GEMM with shared-memory blocking: A_shared/B_shared tiles of 512 floats fetched with float4
// (the vectorized loop of 4 is proved 16-byte aligned), barriers before the fetch and before the reads
// (TVM 0.27: gpu_gemm_shared_blocking.cu.txt).
// RUN: xtir-translate %s -p 'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,8},split{loop=j factors=-1,8,8},split{loop=k factors=-1,8},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},fuse{loops=i_1,j_1},reverse-compute-at{block=C_local loop=i_1_j_1_fused},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1_j_1_fused thread="threadIdx.x"},cache-read{block=C index=0 scope="shared"},compute-at{block=A_shared loop=k_0},fuse{loops="A_shared/ax0","A_shared/ax1"},split{loop="A_shared/ax0_ax1_fused" factors=-1,64,4},bind{loop="A_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="A_shared/ax0_ax1_fused_2"},cache-read{block=C index=1 scope="shared"},compute-at{block=B_shared loop=k_0},fuse{loops="B_shared/ax0","B_shared/ax1"},split{loop="B_shared/ax0_ax1_fused" factors=-1,64,4},bind{loop="B_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="B_shared/ax0_ax1_fused_2"}' --target cuda | filecheck %s

// CHECK:      extern "C" __global__ void __launch_bounds__(64) main_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
// CHECK-NEXT:   __shared__ __align__(16) float A_shared[512];
// CHECK-NEXT:   __shared__ __align__(16) float B_shared[512];
// CHECK-NEXT:   __align__(16) float C_local[64];
// CHECK-NEXT:   const int i_0 = (int)blockIdx.x;
// CHECK-NEXT:   const int j_0 = (int)blockIdx.y;
// CHECK-NEXT:   const int i_1_j_1_fused = (int)threadIdx.x;
// CHECK-NEXT:   const int v = i_0 * 64;
// CHECK-NEXT:   const int v_1 = j_0 * 64;
// CHECK-NEXT:   const int v_2 = i_1_j_1_fused / 8 * 8;
// CHECK-NEXT:   const int v_3 = i_1_j_1_fused % 8 * 8;
// CHECK-NEXT:   for (int k_0 = 0; k_0 < 128; ++k_0) {
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:     const int v_4 = k_0 * 8;
// CHECK-NEXT:     for (int ax0_ax1_fused_0 = 0; ax0_ax1_fused_0 < 2; ++ax0_ax1_fused_0) {
// CHECK-NEXT:       const int v_5 = ax0_ax1_fused_0 * 256 + i_1_j_1_fused * 4;
// CHECK-NEXT:       const int v_6 = v_5 / 8;
// CHECK-NEXT:       const int v_7 = v_5 % 8;
// CHECK-NEXT:       *(float4*)(A_shared + (v_6 * 8 + v_7)) = *(const float4*)(A + ((v + v_6) * 1024 + v_4 + v_7));  // ax0_ax1_fused_2: 4 floats
// CHECK-NEXT:     }
// CHECK-NEXT:     for (int ax0_ax1_fused_0_1 = 0; ax0_ax1_fused_0_1 < 2; ++ax0_ax1_fused_0_1) {
// CHECK-NEXT:       const int v_8 = ax0_ax1_fused_0_1 * 256 + i_1_j_1_fused * 4;
// CHECK-NEXT:       const int v_9 = v_8 / 64;
// CHECK-NEXT:       const int v_10 = v_8 % 64;
// CHECK-NEXT:       *(float4*)(B_shared + (v_9 * 64 + v_10)) = *(const float4*)(B + ((v_4 + v_9) * 1024 + v_1 + v_10));  // ax0_ax1_fused_2: 4 floats
// CHECK-NEXT:     }
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:     for (int k_1 = 0; k_1 < 8; ++k_1) {
// CHECK-NEXT:       for (int i_2 = 0; i_2 < 8; ++i_2) {
// CHECK-NEXT:         for (int j_2 = 0; j_2 < 8; ++j_2) {
// CHECK-NEXT:           if (v_4 + k_1 == 0) {
// CHECK-NEXT:             C_local[i_2 * 8 + j_2] = 0.0f;
// CHECK-NEXT:           }
// CHECK-NEXT:           C_local[i_2 * 8 + j_2] = C_local[i_2 * 8 + j_2] + A_shared[(v_2 + i_2) * 8 + k_1] * B_shared[k_1 * 64 + v_3 + j_2];
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int ax0 = 0; ax0 < 8; ++ax0) {
// CHECK-NEXT:     for (int ax1 = 0; ax1 < 8; ++ax1) {
// CHECK-NEXT:       C[(v + v_2 + ax0) * 1024 + v_1 + v_3 + ax1] = C_local[ax0 * 8 + ax1];
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      // Host side of @main(A, B, C):
// CHECK-NEXT: //   main_kernel<<<dim3(16, 16, 1), dim3(64, 1, 1)>>>(A, B, C);  // 64 threads/block, 4096 bytes __shared__

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
