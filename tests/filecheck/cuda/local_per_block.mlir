// RUN: xtir-translate %s --target cuda | filecheck %s
// A local buffer each thread block uses whole and privately (writes both elements, then reads them),
// in a kernel with no threadIdx axis: compact-buffers moves it into the blockIdx loop, one per thread
// (the loop's iterations are the threads here), and lower-to-gpu takes it (its per-thread rule
// refuses a local buffer left outside a blockIdx loop of more than one block:
// lowering/to_gpu_local_blocks_invalid.mlir).

// CHECK:      extern "C" __global__ void __launch_bounds__(1) main_kernel(const float* __restrict__ A, float* __restrict__ B) {
// CHECK-NEXT:   __align__(16) float L[2];
// CHECK-NEXT:   const int b = (int)blockIdx.x;
// CHECK-NEXT:   for (int j = 0; j < 2; ++j) {
// CHECK-NEXT:     L[j] = A[b * 2 + j];
// CHECK-NEXT:   }
// CHECK-NEXT:   B[b] = L[0] + L[1];
// CHECK-NEXT: }
// CHECK:      main_kernel<<<dim3(4, 1, 1), dim3(1, 1, 1)>>>(A, B);

builtin.module {
  func.func @main(%A: memref<4x2xf32>, %B: memref<4xf32>) {
    %L = block.alloc : memref<2xf32, "local">
    block.for %b = 0 to 4 "b" bind("blockIdx.x") {
      block.for %j = 0 to 2 "j" {
        block.block "W"(%vb = spatial(4, %b), %vj = spatial(2, %j)) {
          %x = block.load %A[%vb, %vj] : memref<4x2xf32>
          block.store %x, %L[%vj] : memref<2xf32, "local">
        }
      }
      block.block "R"(%vb = spatial(4, %b)) {
        %x = block.load %L[0] : memref<2xf32, "local">
        %y = block.load %L[1] : memref<2xf32, "local">
        %z = arith.addf %x, %y : f32
        block.store %z, %B[%vb] : memref<4xf32>
      }
    }
    func.return
  }
}
