// RUN: xtir-opt %s -p lower-blocks,lower-to-gpu --verify-diagnostics
// A local buffer passed between thread blocks: block b writes L[b], and every block reads L[0], which
// only block 0 wrote. Run in order (the evaluator) each block reads A[0]; on the GPU each thread has
// its own L, so blocks other than 0 would read an element nobody wrote in theirs. lower-to-gpu's
// per-thread rule for local buffers covers blockIdx axes as it does threadIdx ones (it skipped them,
// and this compiled; the cuda-cpu emulation happened to give A[0] everywhere).

builtin.module {
  func.func @main(%A: memref<4xf32>, %B: memref<4xf32>) {
    // expected-error @+1 {{'memref.alloca' op lower-to-gpu: local buffer L is used by every thread block of loop "b" (blockIdx.x) but allocated outside it: thread blocks would share it; local buffers are per thread}}
    %L = block.alloc : memref<4xf32, "local">
    block.for %b = 0 to 4 "b" bind("blockIdx.x") {
      block.for %t = 0 to 1 "t" bind("threadIdx.x") {
        block.block "W"(%vb = spatial(4, %b)) {
          %x = block.load %A[%vb] : memref<4xf32>
          block.store %x, %L[%vb] : memref<4xf32, "local">
        }
        block.block "R"(%vb = spatial(4, %b)) {
          %x = block.load %L[0] : memref<4xf32, "local">
          block.store %x, %B[%vb] : memref<4xf32>
        }
      }
    }
    func.return
  }
}
