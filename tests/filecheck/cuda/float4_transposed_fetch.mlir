// RUN: xtir-translate %s -p 'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,8},split{loop=j factors=-1,8,8},split{loop=k factors=-1,8},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},fuse{loops=i_1,j_1},reverse-compute-at{block=C_local loop=i_1_j_1_fused},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1_j_1_fused thread="threadIdx.x"},cache-read{block=C index=0 scope="shared"},compute-at{block=A_shared loop=k_0},fuse{loops="A_shared/ax0","A_shared/ax1"},split{loop="A_shared/ax0_ax1_fused" factors=-1,64,4},bind{loop="A_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="A_shared/ax0_ax1_fused_2"},cache-read{block=C index=1 scope="shared"},compute-at{block=B_shared loop=k_0},fuse{loops="B_shared/ax0","B_shared/ax1"},split{loop="B_shared/ax0_ax1_fused" factors=-1,64,4},bind{loop="B_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="B_shared/ax0_ax1_fused_2"},transform-layout{buffer=A_shared permutation=1,0}' --target cuda | filecheck %s

// Seed 002's shared GEMM with A's tile k-major (transform-layout): the fetch of A runs along a row of A
// in global memory (contiguous, 16-byte aligned: the proof of cuda_align) but down a column of A_shared,
// so it is one float4 load and four scalar stores of its lanes; B's fetch stays a float4 copy.

// CHECK:      for (int ax0_ax1_fused_0 = 0; ax0_ax1_fused_0 < 2; ++ax0_ax1_fused_0) {
// CHECK-NEXT:   const int v_5 = ax0_ax1_fused_0 * 256 + i_1_j_1_fused * 4;
// CHECK-NEXT:   const int v_6 = v_5 / 8;
// CHECK-NEXT:   const int v_7 = v_5 % 8;
// CHECK-NEXT:   const float4 A4 = *(const float4*)(A + ((v + v_6) * 1024 + v_4 + v_7));  // ax0_ax1_fused_2: 4 floats, stored one by one
// CHECK-NEXT:   A_shared[v_7 * 64 + v_6] = A4.x;
// CHECK-NEXT:   A_shared[(ax0_ax1_fused_0 * 256 + i_1_j_1_fused * 4 + 1) % 8 * 64 + (ax0_ax1_fused_0 * 256 + i_1_j_1_fused * 4 + 1) / 8] = A4.y;
// CHECK-NEXT:   A_shared[(ax0_ax1_fused_0 * 256 + i_1_j_1_fused * 4 + 2) % 8 * 64 + (ax0_ax1_fused_0 * 256 + i_1_j_1_fused * 4 + 2) / 8] = A4.z;
// CHECK-NEXT:   A_shared[(ax0_ax1_fused_0 * 256 + i_1_j_1_fused * 4 + 3) % 8 * 64 + (ax0_ax1_fused_0 * 256 + i_1_j_1_fused * 4 + 3) / 8] = A4.w;
// CHECK-NEXT: }
// CHECK-NEXT: for (int ax0_ax1_fused_0_1 = 0; ax0_ax1_fused_0_1 < 2; ++ax0_ax1_fused_0_1) {
// CHECK-NEXT:   const int v_8 = ax0_ax1_fused_0_1 * 256 + i_1_j_1_fused * 4;
// CHECK-NEXT:   const int v_9 = v_8 / 64;
// CHECK-NEXT:   const int v_10 = v_8 % 64;
// CHECK-NEXT:   *(float4*)(B_shared + (v_9 * 64 + v_10)) = *(const float4*)(B + ((v_4 + v_9) * 1024 + v_1 + v_10));  // ax0_ax1_fused_2: 4 floats
// CHECK-NEXT: }
// CHECK-NEXT: __syncthreads();

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
