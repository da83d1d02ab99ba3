// RUN: xtir-opt %s -p 'cache-write{block=b index=1 scope="global"}' --verify-diagnostics
// The block has an init, but the init resets D, not C: the body adds into C's value from
// before the block, which the cache would not hold. (Only the buffers the init writes are
// left out of a reduction block's reads.)

func.func @main(%A: memref<4x4xf32>, %C: memref<4xf32>, %D: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 4 "k" {
      // expected-error @+1 {{'block.block' op cache-write: block "b" reads C without an init that writes it first, so the cache C_global would start uninitialized; cache-write a reduction before decompose-reduction}}
      block.block "b"(%vi = spatial(4, %i), %vk = reduce(4, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %D[%vi] : memref<4xf32>
        }
        %a = block.load %A[%vi, %vk] : memref<4x4xf32>
        %c = block.load %C[%vi] : memref<4xf32>
        %c2 = arith.addf %c, %a : f32
        block.store %c2, %C[%vi] : memref<4xf32>
        %d = block.load %D[%vi] : memref<4xf32>
        %d2 = arith.addf %d, %a : f32
        block.store %d2, %D[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}
