// RUN: xtir-opt %s -p 'lower-blocks,lower-to-gpu' | filecheck %s
// RUN: xtir-translate %s --target cuda | filecheck %s --check-prefix=CUDA
// RUN: xtir-translate %s --target cuda --bank-report | filecheck %s --check-prefix=BANKS

// A cooperative fetch under a vthread loop, in an unrolled loop (MetaSchedule's fetch at an
// unrolled k_1): its element does not use the virtual thread, so it runs once per real thread,
// not once per virtual thread. The vthread loop is pushed through the unrolled loop "r" (wrapped
// whole, the fetch would run twice, and no barrier could sit between it and the reads); the
// barrier stays between the fetch and the reads of both virtual threads.

func.func @main(%A: memref<4x16xf32>, %O: memref<4x2x8xf32>) {
  %S = block.alloc : memref<8xf32, "shared">
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.for %r = 0 to 2 "r" unrolled {
          block.for %f = 0 to 4 "f" bind("threadIdx.x") {
            block.for %e = 0 to 2 "e" {
              block.block "S"(%vb = spatial(4, %b), %vr = spatial(2, %r), %vf = spatial(8, %f * 2 + %e)) {
                %a = block.load %A[%vb, %vr * 8 + %vf] : memref<4x16xf32>
                block.store %a, %S[%vf] : memref<8xf32, "shared">
              }
            }
          }
          block.block "O"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u), %vr = spatial(2, %r)) {
            %x = block.load %S[7 - %vt * 2 - %vu] : memref<8xf32, "shared">
            block.store %x, %O[%vb, %vr, %vt * 2 + %vu] : memref<4x2x8xf32>
          }
        }
      }
    }
  }
  func.return
}

// CHECK: "gpu.func"() <{function_type = (memref<4x16xf32>, memref<4x2x8xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<4x16xf32>, %O: memref<4x2x8xf32>):
// CHECK-NEXT: %S = memref.alloca() : memref<8xf32, "shared">
// CHECK-NEXT: %b = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["b"]} : () -> index
// CHECK-NEXT: %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["t", "f"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %c_neg2 = arith.constant -2 : index
// CHECK-NEXT: %c7 = arith.constant 7 : index
// CHECK-NEXT: scf.for %0 = %c0 to %c2 step %c1 {
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %1 = arith.muli %0, %c8 : index
// CHECK-NEXT: %2 = arith.muli %t, %c2 : index
// CHECK-NEXT: %3 = arith.addi %1, %2 : index
// CHECK-NEXT: scf.for %e = %c0 to %c2 step %c1 {
// CHECK-NEXT: %4 = arith.addi %3, %e : index
// CHECK-NEXT: %a = memref.load %A[%b, %4] : memref<4x16xf32>
// CHECK-NEXT: %5 = arith.addi %2, %e : index
// CHECK-NEXT: memref.store %a, %S[%5] : memref<8xf32, "shared">
// CHECK-NEXT: } {xtir.loop_name = "e"}
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: scf.for %u = %c0 to %c2 step %c1 {
// CHECK-NEXT: %6 = arith.muli %t, %c_neg2 : index
// CHECK-NEXT: %7 = arith.subi %6, %u : index
// CHECK-NEXT: %8 = arith.addi %7, %c7 : index
// CHECK-NEXT: %x = memref.load %S[%8] : memref<8xf32, "shared">
// CHECK-NEXT: %9 = arith.addi %2, %u : index
// CHECK-NEXT: memref.store %x, %O[%b, %0, %9] : memref<4x2x8xf32>
// CHECK-NEXT: } {xtir.loop_name = "v", xtir.vthread = "vthread.x", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: } {xtir.loop_name = "r", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: "gpu.return"() : () -> ()

// CUDA: extern "C" __global__ void __launch_bounds__(4) main_kernel(const float* __restrict__ A, float* __restrict__ O) {
// CUDA-NEXT: __shared__ __align__(16) float S[8];
// CUDA-NEXT: const int b = (int)blockIdx.x;
// CUDA-NEXT: const int t = (int)threadIdx.x;
// CUDA-NEXT: #pragma unroll
// CUDA-NEXT: for (int r = 0; r < 2; ++r) {
// CUDA-NEXT: __syncthreads();
// CUDA-NEXT: const int v = t * 2;
// CUDA-NEXT: for (int e = 0; e < 2; ++e) {
// CUDA-NEXT: S[v + e] = A[b * 16 + r * 8 + v + e];
// CUDA-NEXT: }
// CUDA-NEXT: __syncthreads();
// CUDA-NEXT: #pragma unroll
// CUDA-NEXT: for (int v_1 = 0; v_1 < 2; ++v_1) {
// CUDA-NEXT: O[b * 16 + r * 8 + v + v_1] = S[t * -2 - v_1 + 7];
// CUDA-NEXT: }
// CUDA-NEXT: }
// CUDA-NEXT: }

// The bank report counts the load of S 4 times per warp, as by hand and in the PTX (4
// ld.shared.f32): 2 virtual threads in each of the 2 iterations of r. Its address does not move
// along the unrolled r, but r refetches S between (before: 2, r's trips left out as if nvcc
// loaded once).
// BANKS: // Shared-memory banks of @main_kernel (first warp):
// BANKS-NEXT: //   store S (4-byte) in r/e: 1 wavefronts per warp (ideal 1), conflict-free; 4 time(s) per warp
// BANKS-NEXT: //   load S (4-byte) in r/v: 1 wavefronts per warp (ideal 1), conflict-free; 4 time(s) per warp
