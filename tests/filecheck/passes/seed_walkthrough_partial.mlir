// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1}' | filecheck %s --check-prefix=SPLIT
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1}' | filecheck %s --check-prefix=BLOCKIZE
// RUN: xtir-opt %s -p 'split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},decompose-reduction{block=matmul_o loop=k_0}' | filecheck %s --check-prefix=DECOMPOSE
// Seed 001's walkthrough (6.2.2.4, without the cache steps), one prefix per printed step:
//   i, ii = sch.split(i, factors=[None, 16])  (and j, k)
//   sch.reorder(i, j, k, ii, ji, ki)           -> SPLIT
//   block_mm = sch.blockize(ii)                -> BLOCKIZE
//   sch.decompose_reduction(block_mm, k)       -> DECOMPOSE
// Same loops, extents, names and bindings as the seed's printed IR.

// SPLIT:        block.for %i0 = 0 to 64 "i_0" {
// SPLIT-NEXT:     block.for %j0 = 0 to 64 "j_0" {
// SPLIT-NEXT:       block.for %k0 = 0 to 64 "k_0" {
// SPLIT-NEXT:         block.for %i1 = 0 to 16 "i_1" {
// SPLIT-NEXT:           block.for %j1 = 0 to 16 "j_1" {
// SPLIT-NEXT:             block.for %k1 = 0 to 16 "k_1" {
// SPLIT-NEXT:               block.block "matmul"(%vi = spatial(1024, %i0 * 16 + %i1), %vj = spatial(1024, %j0 * 16 + %j1), %vk = reduce(1024, %k0 * 16 + %k1)) {
// SPLIT-NEXT:                 block.init {
// SPLIT-NEXT:                   %zero = arith.constant 0.000000e+00 : f32
// SPLIT-NEXT:                   block.store %zero, %C[%vi, %vj] : memref<1024x1024xf32>
// SPLIT-NEXT:                 }
// SPLIT-NEXT:                 %c = block.load %C[%vi, %vj] : memref<1024x1024xf32>
// SPLIT-NEXT:                 %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
// SPLIT-NEXT:                 %b = block.load %B[%vj, %vk] : memref<1024x1024xf32>
// SPLIT-NEXT:                 %ab = arith.mulf %a, %b : f32
// SPLIT-NEXT:                 %sum = arith.addf %c, %ab : f32
// SPLIT-NEXT:                 block.store %sum, %C[%vi, %vj] : memref<1024x1024xf32>
// SPLIT-NEXT:               }
// SPLIT-NEXT:             }
// SPLIT-NEXT:           }
// SPLIT-NEXT:         }
// SPLIT-NEXT:       }
// SPLIT-NEXT:     }
// SPLIT-NEXT:   }
// SPLIT-NEXT:   func.return

// BLOCKIZE:        block.for %i0 = 0 to 64 "i_0" {
// BLOCKIZE-NEXT:     block.for %j0 = 0 to 64 "j_0" {
// BLOCKIZE-NEXT:       block.for %k0 = 0 to 64 "k_0" {
// BLOCKIZE-NEXT:         block.block "matmul_o"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// BLOCKIZE-NEXT:           block.init {
// BLOCKIZE-NEXT:             block.for %i1 = 0 to 16 "i_1" {
// BLOCKIZE-NEXT:               block.for %j1 = 0 to 16 "j_1" {
// BLOCKIZE-NEXT:                 block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// BLOCKIZE-NEXT:                   %zero = arith.constant 0.000000e+00 : f32
// BLOCKIZE-NEXT:                   block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32>
// BLOCKIZE-NEXT:                 }
// BLOCKIZE-NEXT:               }
// BLOCKIZE-NEXT:             }
// BLOCKIZE-NEXT:           }
// BLOCKIZE-NEXT:           block.for %i1_1 = 0 to 16 "i_1" {
// BLOCKIZE-NEXT:             block.for %j1_1 = 0 to 16 "j_1" {
// BLOCKIZE-NEXT:               block.for %k1 = 0 to 16 "k_1" {
// BLOCKIZE-NEXT:                 block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// BLOCKIZE-NEXT:                   %c = block.load %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
// BLOCKIZE-NEXT:                   %a = block.load %A[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// BLOCKIZE-NEXT:                   %b = block.load %B[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// BLOCKIZE-NEXT:                   %ab = arith.mulf %a, %b : f32
// BLOCKIZE-NEXT:                   %sum = arith.addf %c, %ab : f32
// BLOCKIZE-NEXT:                   block.store %sum, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
// BLOCKIZE-NEXT:                 }
// BLOCKIZE-NEXT:               }
// BLOCKIZE-NEXT:             }
// BLOCKIZE-NEXT:           }
// BLOCKIZE-NEXT:         }
// BLOCKIZE-NEXT:       }
// BLOCKIZE-NEXT:     }
// BLOCKIZE-NEXT:   }
// BLOCKIZE-NEXT:   func.return

// DECOMPOSE:        block.for %i0 = 0 to 64 "i_0" {
// DECOMPOSE-NEXT:     block.for %j0 = 0 to 64 "j_0" {
// DECOMPOSE-NEXT:       block.block "matmul_o_init"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0)) {
// DECOMPOSE-NEXT:         block.for %i1 = 0 to 16 "i_1" {
// DECOMPOSE-NEXT:           block.for %j1 = 0 to 16 "j_1" {
// DECOMPOSE-NEXT:             block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// DECOMPOSE-NEXT:               %zero = arith.constant 0.000000e+00 : f32
// DECOMPOSE-NEXT:               block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32>
// DECOMPOSE-NEXT:             }
// DECOMPOSE-NEXT:           }
// DECOMPOSE-NEXT:         }
// DECOMPOSE-NEXT:       }
// DECOMPOSE-NEXT:       block.for %k0 = 0 to 64 "k_0" {
// DECOMPOSE-NEXT:         block.block "matmul_o_update"(%vi_o_1 = spatial(64, %i0), %vj_o_1 = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// DECOMPOSE-NEXT:           block.for %i1_1 = 0 to 16 "i_1" {
// DECOMPOSE-NEXT:             block.for %j1_1 = 0 to 16 "j_1" {
// DECOMPOSE-NEXT:               block.for %k1 = 0 to 16 "k_1" {
// DECOMPOSE-NEXT:                 block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// DECOMPOSE-NEXT:                   %c = block.load %C[%vi_o_1 * 16 + %vi_i, %vj_o_1 * 16 + %vj_i] : memref<1024x1024xf32>
// DECOMPOSE-NEXT:                   %a = block.load %A[%vi_o_1 * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// DECOMPOSE-NEXT:                   %b = block.load %B[%vj_o_1 * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// DECOMPOSE-NEXT:                   %ab = arith.mulf %a, %b : f32
// DECOMPOSE-NEXT:                   %sum = arith.addf %c, %ab : f32
// DECOMPOSE-NEXT:                   block.store %sum, %C[%vi_o_1 * 16 + %vi_i, %vj_o_1 * 16 + %vj_i] : memref<1024x1024xf32>
// DECOMPOSE-NEXT:                 }
// DECOMPOSE-NEXT:               }
// DECOMPOSE-NEXT:             }
// DECOMPOSE-NEXT:           }
// DECOMPOSE-NEXT:         }
// DECOMPOSE-NEXT:       }
// DECOMPOSE-NEXT:     }
// DECOMPOSE-NEXT:   }
// DECOMPOSE-NEXT:   func.return

// MatmulModule of seed 001: C = A · Bᵀ, 1024x1024x1024, float32.
func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.for %j = 0 to 1024 "j" {
      block.for %k = 0 to 1024 "k" {
        block.block "matmul"(%vi = spatial(1024, %i), %vj = spatial(1024, %j), %vk = reduce(1024, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<1024x1024xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<1024x1024xf32>
          %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
          %b = block.load %B[%vj, %vk] : memref<1024x1024xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<1024x1024xf32>
        }
      }
    }
  }
  func.return
}
