// RUN: xtir-opt %s -p 'double-buffer{block=A_local}' --verify-diagnostics
// What double-buffer refuses, on the row sum of double_buffer.mlir scheduled otherwise.

// A cache in local memory: each thread's own, nothing to pipeline across threads.
builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    %A_local = block.alloc : memref<64x64xf32, "local">
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 8 "k_0" {
          block.for %ax0 = 0 to 8 "ax0" {
            // expected-error @+1 {{'block.block' op double-buffer: block "A_local" writes A_local of scope local; double buffering applies to a shared-memory cache (cache-read with scope "shared")}}
            block.block "A_local"(%v0 = spatial(64, %i0 * 8 + %i1), %v1 = spatial(64, %k0 * 8 + %ax0)) {
              %0 = block.load %A[%v0, %v1] : memref<64x64xf32>
              block.store %0, %A_local[%v0, %v1] : memref<64x64xf32, "local">
            }
          }
          block.for %k1 = 0 to 8 "k_1" {
            block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 8 + %k1)) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<64xf32>
              }
              %s = block.load %S[%vi] : memref<64xf32>
              %a = block.load %A_local[%vi, %vk] : memref<64x64xf32, "local">
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
