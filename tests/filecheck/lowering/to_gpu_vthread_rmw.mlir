// RUN: xtir-opt %s -p 'lower-blocks,lower-to-gpu' | filecheck %s
// RUN: xtir-translate %s --target cuda | filecheck %s --check-prefix=CUDA

// Read-modify-writes under a vthread loop that do not use the virtual thread. Block G
// (G = 2G + A[k] over a serial k) runs once per virtual thread, as the loop run serially does:
// G = 2(2G + a0) + a1 ..., twice over. Its statement (loads too) is wrapped whole in a loop over
// the virtual threads, k inside (pushing the vthread loop into k would run a0 twice, then a1).
// Block S (S[t] += 1, S shared) likewise: each thread reads and writes its own element, so the
// virtual threads' loop needs no barrier inside (before: both refused).

func.func @main(%G: memref<4x4xf32>, %A: memref<4x4x3xf32>, %O: memref<4x4xf32>) {
  %S = block.alloc : memref<4xf32, "shared">
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      block.block "I"(%vb = spatial(4, %b), %vt = spatial(4, %t)) {
        %g = block.load %G[%vb, %vt] : memref<4x4xf32>
        block.store %g, %S[%vt] : memref<4xf32, "shared">
      }
    }
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      block.for %u = 0 to 2 "v" bind("vthread.x") {
        block.for %k = 0 to 3 "k" {
          block.block "G"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(3, %k)) {
            %g = block.load %G[%vb, %vt] : memref<4x4xf32>
            %a = block.load %A[%vb, %vt, %vk] : memref<4x4x3xf32>
            %two = arith.constant 2.0 : f32
            %m = arith.mulf %g, %two : f32
            %s = arith.addf %m, %a : f32
            block.store %s, %G[%vb, %vt] : memref<4x4xf32>
          }
        }
        block.block "S"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %s = block.load %S[%vt] : memref<4xf32, "shared">
          %one = arith.constant 1.0 : f32
          %s1 = arith.addf %s, %one : f32
          block.store %s1, %S[%vt] : memref<4xf32, "shared">
        }
      }
    }
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      block.block "O"(%vb = spatial(4, %b), %vt = spatial(4, %t)) {
        %x = block.load %S[3 - %vt] : memref<4xf32, "shared">
        block.store %x, %O[%vb, %vt] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// CHECK: memref.store %g, %S[%t] : memref<4xf32, "shared">
// CHECK-NEXT: scf.for %u = %c0 to %c2 step %c1 {
// CHECK-NEXT: scf.for %k = %c0 to %c3 step %c1 {
// CHECK-NEXT: %g_1 = memref.load %G[%b, %t] : memref<4x4xf32>
// CHECK-NEXT: %a = memref.load %A[%b, %t, %k] : memref<4x4x3xf32>
// CHECK-NEXT: %m = arith.mulf %g_1, %two : f32
// CHECK-NEXT: %s = arith.addf %m, %a : f32
// CHECK-NEXT: memref.store %s, %G[%b, %t] : memref<4x4xf32>
// CHECK-NEXT: } {xtir.loop_name = "k"}
// CHECK-NEXT: } {xtir.loop_name = "v", xtir.vthread = "vthread.x"}
// CHECK-NEXT: scf.for %u_1 = %c0 to %c2 step %c1 {
// CHECK-NEXT: %s_1 = memref.load %S[%t] : memref<4xf32, "shared">
// CHECK-NEXT: %s1 = arith.addf %s_1, %one : f32
// CHECK-NEXT: memref.store %s1, %S[%t] : memref<4xf32, "shared">
// CHECK-NEXT: } {xtir.loop_name = "v", xtir.vthread = "vthread.x", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %0 = arith.muli %t, %c_neg1 : index
// CHECK-NEXT: %1 = arith.addi %0, %c3 : index
// CHECK-NEXT: %x = memref.load %S[%1] : memref<4xf32, "shared">
// CHECK-NEXT: memref.store %x, %O[%b, %t] : memref<4x4xf32>
// CHECK-NEXT: "gpu.return"() : () -> ()

// CUDA: S[t] = G[b * 4 + t];
// CUDA-NEXT: for (int v = 0; v < 2; ++v) {
// CUDA-NEXT: for (int k = 0; k < 3; ++k) {
// CUDA-NEXT: G[b * 4 + t] = G[b * 4 + t] * 2.0f + A[b * 12 + t * 3 + k];
// CUDA-NEXT: }
// CUDA-NEXT: }
// CUDA-NEXT: #pragma unroll
// CUDA-NEXT: for (int v_1 = 0; v_1 < 2; ++v_1) {
// CUDA-NEXT: S[t] = S[t] + 1.0f;
// CUDA-NEXT: }
// CUDA-NEXT: __syncthreads();
// CUDA-NEXT: O[b * 4 + t] = S[t * -1 + 3];
