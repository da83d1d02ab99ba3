// RUN: xtir-opt %s -p 'double-buffer{block=A_shared}' | filecheck %s
// RUN: xtir-translate %s -p 'double-buffer{block=A_shared}' --target cuda | filecheck %s --check-prefix=CUDA

// The fetch computed at k_1, a loop of one iteration (split{loop=k factors=-1,1,4}): loops of one
// iteration are passed over, as TVM drops them, and k_0 (16 iterations) is pipelined.

// CHECK:      %A_shared = block.alloc {double_buffer_scope} : memref<64x64xf32, "shared">

// CUDA:       __shared__ __align__(16) float A_shared[64];
// CUDA:       for (int k_0 = 0; k_0 < 15; ++k_0) {
// CUDA-NEXT:    __syncthreads();
// CUDA:       main_kernel<<<dim3(8, 1, 1), dim3(8, 1, 1)>>>(A, S);  // 8 threads/block, 256 bytes __shared__

builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc : memref<64x64xf32, "shared">
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 16 "k_0" {
          block.for %k1 = 0 to 1 "k_1" {
            block.for %ax0 = 0 to 8 "ax0" bind("threadIdx.x") {
              block.for %ax1 = 0 to 4 "ax1" {
                block.block "A_shared"(%v0 = spatial(64, %i0 * 8 + %ax0), %v1 = spatial(64, %k0 * 4 + %k1 * 4 + %ax1)) {
                  %0 = block.load %A[%v0, %v1] : memref<64x64xf32>
                  block.store %0, %A_shared[%v0, %v1] : memref<64x64xf32, "shared">
                }
              }
            }
            block.for %k2 = 0 to 4 "k_2" {
              block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 4 + %k1 * 4 + %k2)) {
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
    }
    func.return
  }
}
