// Seed 002 (6.1.3) vector add: split by 128, i_0 -> blockIdx.x, i_1 -> threadIdx.x (TVM 0.27: gpu_vecadd.cu.txt).
// RUN: xtir-translate %s -p 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"}' --target cuda | filecheck %s

// CHECK:      extern "C" __global__ void __launch_bounds__(128) main_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
// CHECK-NEXT:   const int i_0 = (int)blockIdx.x;
// CHECK-NEXT:   const int i_1 = (int)threadIdx.x;
// CHECK-NEXT:   const int v = i_0 * 128 + i_1;
// CHECK-NEXT:   C[v] = A[v] + B[v];
// CHECK-NEXT: }
// CHECK:      // Host side of @main(A, B, C):
// CHECK-NEXT: //   main_kernel<<<dim3(8, 1, 1), dim3(128, 1, 1)>>>(A, B, C);  // 128 threads/block, 0 bytes __shared__

// MyModuleVecAdd of seed 002: C = A + B on 1024-element float32 vectors.
builtin.module {
  func.func @main(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
    block.for %i = 0 to 1024 "i" {
      block.block "C"(%vi = spatial(1024, %i)) {
        %a = block.load %A[%vi] : memref<1024xf32>
        %b = block.load %B[%vi] : memref<1024xf32>
        %sum = arith.addf %a, %b : f32
        block.store %sum, %C[%vi] : memref<1024xf32>
      }
    }
    func.return
  }
}
