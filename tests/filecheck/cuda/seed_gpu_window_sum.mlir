// Seed 002 window sum: A_shared of the 130 floats a block reads, fetched cooperatively (ax0_1 -> threadIdx.x),
// one __syncthreads() between the fetch and the reads (TVM 0.27: gpu_window.cu.txt).
// RUN: xtir-translate %s -p 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},cache-read{block=B index=0 scope="shared"},compute-at{block=A_shared loop=i_1},split{loop=ax0 factors=-1,128},bind{loop=ax0_1 thread="threadIdx.x"}' --target cuda | filecheck %s

// CHECK:      extern "C" __global__ void __launch_bounds__(128) main_kernel(const float* __restrict__ A, float* __restrict__ B) {
// CHECK-NEXT:   __shared__ __align__(16) float A_shared[130];
// CHECK-NEXT:   const int i_0 = (int)blockIdx.x;
// CHECK-NEXT:   const int i_1 = (int)threadIdx.x;
// CHECK-NEXT:   const int v = i_0 * 128;
// CHECK-NEXT:   for (int ax0_0 = 0; ax0_0 < 2; ++ax0_0) {
// CHECK-NEXT:     const int v_1 = ax0_0 * 128;
// CHECK-NEXT:     const int v_2 = v_1 + i_1;
// CHECK-NEXT:     if (v_2 < 130) {
// CHECK-NEXT:       A_shared[v_2] = A[v + v_1 + i_1];
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   B[v + i_1] = A_shared[i_1] + A_shared[i_1 + 1] + A_shared[i_1 + 2];
// CHECK-NEXT: }
// CHECK:      // Host side of @main(A, B):
// CHECK-NEXT: //   main_kernel<<<dim3(8, 1, 1), dim3(128, 1, 1)>>>(A, B);  // 128 threads/block, 520 bytes __shared__

// MyModuleWindowSun of seed 002: a window sum over 3 neighbours, float32,
// B[vi] = A[vi] + A[vi + 1] + A[vi + 2] with A of 1026 and B of 1024 elements.
builtin.module {
  func.func @main(%A: memref<1026xf32>, %B: memref<1024xf32>) {
    block.for %i = 0 to 1024 "i" {
      block.block "B"(%vi = spatial(1024, %i)) {
        %a0 = block.load %A[%vi] : memref<1026xf32>
        %a1 = block.load %A[%vi + 1] : memref<1026xf32>
        %a2 = block.load %A[%vi + 2] : memref<1026xf32>
        %s01 = arith.addf %a0, %a1 : f32
        %sum = arith.addf %s01, %a2 : f32
        block.store %sum, %B[%vi] : memref<1024xf32>
      }
    }
    func.return
  }
}
