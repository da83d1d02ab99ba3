// RUN: xtir-opt %s -p 'lower-blocks,lower-to-gpu' | filecheck %s
// RUN: xtir-translate %s --target cuda --entry two_vthread_loops | filecheck %s --check-prefix=CUDA
// RUN: xtir-translate %s --target cuda --entry thread_loop_after_a_vthread_loop | filecheck %s --check-prefix=CUDA2

// Two loops of one thread tag in a kernel: the analyses name both by the first one's variable
// (u for w, t for s), but the shared accesses rebased in the second nest keep their own loops'
// variables: inject_virtual_threads copies the first nest and erases it, and each vthread loop
// is pushed down on its own (TVM injects each vthread AttrStmt apart). Before, the second nest
// used the erased loop's variable ("the kernel uses %t, computed on the host"). The same held
// for a threadIdx nest after a vthread loop whose thread loop came first (the second function).

func.func @two_vthread_loops(%A: memref<4x8xf32>, %O: memref<4x8xf32>) {
  %S = block.alloc : memref<8xf32, "shared">
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "u" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.block "S"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %a = block.load %A[%vb, %vt * 2 + %vu] : memref<4x8xf32>
          block.store %a, %S[%vt * 2 + %vu] : memref<8xf32, "shared">
        }
      }
    }
    block.for %w = 0 to 2 "w" bind("vthread.x") {
      block.for %s = 0 to 4 "s" bind("threadIdx.x") {
        block.block "O"(%vb = spatial(4, %b), %vs = spatial(4, %s), %vw = spatial(2, %w)) {
          %x = block.load %S[7 - %vs * 2 - %vw] : memref<8xf32, "shared">
          block.store %x, %O[%vb, %vs * 2 + %vw] : memref<4x8xf32>
        }
      }
    }
  }
  func.return
}

func.func @thread_loop_after_a_vthread_loop(%A: memref<4x8xf32>, %O: memref<4x4xf32>) {
  %S = block.alloc : memref<8xf32, "shared">
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "u" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.block "S"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %a = block.load %A[%vb, %vt * 2 + %vu] : memref<4x8xf32>
          block.store %a, %S[%vt * 2 + %vu] : memref<8xf32, "shared">
        }
      }
    }
    block.for %s = 0 to 4 "s" bind("threadIdx.x") {
      block.block "O"(%vb = spatial(4, %b), %vs = spatial(4, %s)) {
        %x = block.load %S[7 - %vs] : memref<8xf32, "shared">
        block.store %x, %O[%vb, %vs] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// CHECK: "gpu.func"() <{function_type = (memref<4x8xf32>, memref<4x8xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<4x8xf32>, %O: memref<4x8xf32>):
// CHECK-NEXT: %S = memref.alloca() : memref<8xf32, "shared">
// CHECK-NEXT: %b = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["b"]} : () -> index
// CHECK-NEXT: %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["t", "s"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %c_neg2 = arith.constant -2 : index
// CHECK-NEXT: %c7 = arith.constant 7 : index
// CHECK-NEXT: scf.for %u = %c0 to %c2 step %c1 {
// CHECK-NEXT: %0 = arith.muli %t, %c2 : index
// CHECK-NEXT: %1 = arith.addi %0, %u : index
// CHECK-NEXT: %a = memref.load %A[%b, %1] : memref<4x8xf32>
// CHECK-NEXT: memref.store %a, %S[%1] : memref<8xf32, "shared">
// CHECK-NEXT: } {xtir.loop_name = "u", xtir.vthread = "vthread.x", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: scf.for %w = %c0 to %c2 step %c1 {
// CHECK-NEXT: %2 = arith.muli %t, %c_neg2 : index
// CHECK-NEXT: %3 = arith.subi %2, %w : index
// CHECK-NEXT: %4 = arith.addi %3, %c7 : index
// CHECK-NEXT: %x = memref.load %S[%4] : memref<8xf32, "shared">
// CHECK-NEXT: %5 = arith.muli %t, %c2 : index
// CHECK-NEXT: %6 = arith.addi %5, %w : index
// CHECK-NEXT: memref.store %x, %O[%b, %6] : memref<4x8xf32>
// CHECK-NEXT: } {xtir.loop_name = "w", xtir.vthread = "vthread.x", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK: "gpu.func"() <{function_type = (memref<4x8xf32>, memref<4x4xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<4x8xf32>, %O: memref<4x4xf32>):
// CHECK-NEXT: %S = memref.alloca() : memref<8xf32, "shared">
// CHECK-NEXT: %b = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["b"]} : () -> index
// CHECK-NEXT: %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["t", "s"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %c_neg1 = arith.constant -1 : index
// CHECK-NEXT: %c7 = arith.constant 7 : index
// CHECK-NEXT: scf.for %u = %c0 to %c2 step %c1 {
// CHECK-NEXT: %0 = arith.muli %t, %c2 : index
// CHECK-NEXT: %1 = arith.addi %0, %u : index
// CHECK-NEXT: %a = memref.load %A[%b, %1] : memref<4x8xf32>
// CHECK-NEXT: memref.store %a, %S[%1] : memref<8xf32, "shared">
// CHECK-NEXT: } {xtir.loop_name = "u", xtir.vthread = "vthread.x", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %2 = arith.muli %t, %c_neg1 : index
// CHECK-NEXT: %3 = arith.addi %2, %c7 : index
// CHECK-NEXT: %x = memref.load %S[%3] : memref<8xf32, "shared">
// CHECK-NEXT: memref.store %x, %O[%b, %t] : memref<4x4xf32>
// CHECK-NEXT: "gpu.return"() : () -> ()

// CUDA: extern "C" __global__ void __launch_bounds__(4) two_vthread_loops_kernel(const float* __restrict__ A, float* __restrict__ O) {
// CUDA-NEXT: __shared__ __align__(16) float S[8];
// CUDA-NEXT: const int b = (int)blockIdx.x;
// CUDA-NEXT: const int t = (int)threadIdx.x;
// CUDA-NEXT: #pragma unroll
// CUDA-NEXT: for (int u = 0; u < 2; ++u) {
// CUDA-NEXT: const int v = t * 2 + u;
// CUDA-NEXT: S[v] = A[b * 8 + v];
// CUDA-NEXT: }
// CUDA-NEXT: __syncthreads();
// CUDA-NEXT: #pragma unroll
// CUDA-NEXT: for (int w = 0; w < 2; ++w) {
// CUDA-NEXT: O[b * 8 + t * 2 + w] = S[t * -2 - w + 7];
// CUDA-NEXT: }
// CUDA-NEXT: }

// CUDA2: extern "C" __global__ void __launch_bounds__(4) thread_loop_after_a_vthread_loop_kernel(const float* __restrict__ A, float* __restrict__ O) {
// CUDA2-NEXT: __shared__ __align__(16) float S[8];
// CUDA2-NEXT: const int b = (int)blockIdx.x;
// CUDA2-NEXT: const int t = (int)threadIdx.x;
// CUDA2-NEXT: #pragma unroll
// CUDA2-NEXT: for (int u = 0; u < 2; ++u) {
// CUDA2-NEXT: const int v = t * 2 + u;
// CUDA2-NEXT: S[v] = A[b * 8 + v];
// CUDA2-NEXT: }
// CUDA2-NEXT: __syncthreads();
// CUDA2-NEXT: O[b * 4 + t] = S[t * -1 + 7];
// CUDA2-NEXT: }
