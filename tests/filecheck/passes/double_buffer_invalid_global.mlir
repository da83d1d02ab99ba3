// RUN: xtir-opt %s -p 'double-buffer{block=S}' --verify-diagnostics
// What double-buffer refuses, on the row sum of double_buffer.mlir scheduled otherwise.

// A block writing a global buffer (the computation itself).
builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 8 "k_0" {
          block.for %k1 = 0 to 8 "k_1" {
            // expected-error @+1 {{'block.block' op double-buffer: block "S" writes S of global scope; double buffering applies to a shared-memory cache (cache-read with scope "shared")}}
            block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 8 + %k1)) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<64xf32>
              }
              %s = block.load %S[%vi] : memref<64xf32>
              %a = block.load %A[%vi, %vk] : memref<64x64xf32>
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
