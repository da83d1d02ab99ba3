// MatmulBlockModule of seed 001: C = A · Bᵀ, 1024x1024x1024, float32, written with
// 16x16x16 tile blocks. The outer block "tmm-16x16" (vi0, vj0 spatial, vk0 reduce,
// all over 64 tiles) zeroes its C tile in its init through the nested block
// "tmm_init", and accumulates through the nested block "tmm". The nested blocks
// index with the outer block's iteration variables.
// xtir-run: numpy C = A @ B.T
builtin.module {
  func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
    block.for %i0 = 0 to 64 "i0" {
      block.for %j0 = 0 to 64 "j0" {
        block.for %k0 = 0 to 64 "k0" {
          block.block "tmm-16x16"(%vi0 = spatial(64, %i0), %vj0 = spatial(64, %j0), %vk0 = reduce(64, %k0)) {
            block.init {
              block.for %i1 = 0 to 16 "i1" {
                block.for %j1 = 0 to 16 "j1" {
                  block.block "tmm_init"(%vi1 = spatial(16, %i1), %vj1 = spatial(16, %j1)) {
                    %zero = arith.constant 0.000000e+00 : f32
                    block.store %zero, %C[%vi0 * 16 + %vi1, %vj0 * 16 + %vj1] : memref<1024x1024xf32>
                  }
                }
              }
            }
            block.for %i1 = 0 to 16 "i1" {
              block.for %j1 = 0 to 16 "j1" {
                block.for %k1 = 0 to 16 "k1" {
                  block.block "tmm"(%vi1 = spatial(16, %i1), %vj1 = spatial(16, %j1), %vk1 = reduce(16, %k1)) {
                    %c = block.load %C[%vi0 * 16 + %vi1, %vj0 * 16 + %vj1] : memref<1024x1024xf32>
                    %a = block.load %A[%vi0 * 16 + %vi1, %vk0 * 16 + %vk1] : memref<1024x1024xf32>
                    %b = block.load %B[%vj0 * 16 + %vj1, %vk0 * 16 + %vk1] : memref<1024x1024xf32>
                    %ab = arith.mulf %a, %b : f32
                    %sum = arith.addf %c, %ab : f32
                    block.store %sum, %C[%vi0 * 16 + %vi1, %vj0 * 16 + %vj1] : memref<1024x1024xf32>
                  }
                }
              }
            }
          }
        }
      }
    }
    func.return
  }
}
