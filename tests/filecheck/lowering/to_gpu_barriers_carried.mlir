// RUN: xtir-opt %s -p lower-blocks,lower-to-gpu | filecheck %s

// Iteration k of a serial loop writes row k of S (W, thread t writes column t) and reads row
// k - 1 (R, thread u reads column u + 1, written by another thread one iteration before). Within
// an iteration the two rows differ at every k, so W and R need no barrier between them; the read
// of the next iteration (row k, shifted one iteration) meets this iteration's write: one barrier,
// at the top of k. (The row index compared at k for the write and k + 1 for the next iteration's
// read; compared at one k, they would never meet and the race would go unnoticed.)

// CHECK: scf.for %k = %c0 to %c8 step %c1 {
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %a = memref.load %A[%k, %t] : memref<8x64xf32>
// CHECK-NEXT: memref.store %a, %S[%k, %t] : memref<8x64xf32, "shared">
// CHECK-NOT: "gpu.barrier"
// CHECK: %s = memref.load %S[%2, %3] : memref<8x64xf32, "shared">
// CHECK-NEXT: memref.store %s, %B[%k, %t] : memref<8x64xf32>
// CHECK-NEXT: } {xtir.loop_name = "k"}
// CHECK-NEXT: "gpu.return"() : () -> ()

builtin.module {
  func.func @main(%A: memref<8x64xf32>, %B: memref<8x64xf32>) {
    %S = block.alloc : memref<8x64xf32, "shared">
    block.for %b = 0 to 1 "b" bind("blockIdx.x") {
      block.for %k = 0 to 8 "k" {
        block.for %t = 0 to 64 "t" bind("threadIdx.x") {
          block.block "W"(%vk = spatial(8, %k), %vt = spatial(64, %t)) {
            %a = block.load %A[%vk, %vt] : memref<8x64xf32>
            block.store %a, %S[%vk, %vt] : memref<8x64xf32, "shared">
          }
        }
        block.for %u = 0 to 64 "u" bind("threadIdx.x") {
          block.block "R"(%vk = spatial(8, %k), %vu = spatial(64, %u)) {
            %s = block.load %S[(%vk + 7) mod 8, (%vu + 1) mod 64] : memref<8x64xf32, "shared">
            block.store %s, %B[%vk, %vu] : memref<8x64xf32>
          }
        }
      }
    }
    func.return
  }
}
