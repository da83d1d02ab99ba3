// RUN: xtir-opt %s -p 'double-buffer{block=A_shared}' | filecheck %s
// RUN: xtir-translate %s -p 'double-buffer{block=A_shared}' --target cuda | filecheck %s --check-prefix=CUDA
// RUN: xtir-opt %s -p 'double-buffer{block=A_shared}' 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

// double-buffer over a reduction loop of one iteration (here k_0, the k tile being all of k) with no
// serial loop of more around it inside the thread mapping: no next tile to fetch while computing on
// this one, so it is a no-op, the buffer left unmarked and single (it was refused, "needs at least 2").
// A k_1 of one iteration under a longer k_0 pipelines k_0: double_buffer_unit_loop.mlir.
// A warning says why nothing is done: the search for a loop to pipeline stops at the thread
// mapping (i_1, threadIdx.x).

// WARN: double_buffer_one_iteration.mlir:29:15: warning: double-buffer: block "A_shared" fetches A_shared at loop "k_0" of one iteration, and no serial loop of more holds it inside loop "i_1" bound to threadIdx.x: the tile is fetched once, no next tile to overlap with the computation; A_shared is left single. To pipeline it, split the reduction loop (a tile shorter than the loop) and compute the fetch at the outer part

// CHECK:      %A_shared = block.alloc : memref<64x64xf32, "shared">
// CHECK-NOT:  double_buffer_scope

// CUDA:       __shared__ __align__(16) float A_shared[512];
// CUDA-NOT:   A_shared[1024]
// CUDA:       main_kernel<<<dim3(8, 1, 1), dim3(8, 1, 1)>>>(A, S);  // 8 threads/block, 2048 bytes __shared__

builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc : memref<64x64xf32, "shared">
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 1 "k_0" {
          block.for %ax0 = 0 to 8 "ax0" bind("threadIdx.x") {
            block.for %ax1 = 0 to 64 "ax1" {
              block.block "A_shared"(%v0 = spatial(64, %i0 * 8 + %ax0), %v1 = spatial(64, %ax1)) {
                %0 = block.load %A[%v0, %v1] : memref<64x64xf32>
                block.store %0, %A_shared[%v0, %v1] : memref<64x64xf32, "shared">
              }
            }
          }
          block.for %k1 = 0 to 64 "k_1" {
            block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 64 + %k1)) {
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
    func.return
  }
}
