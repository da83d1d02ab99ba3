// RUN: xtir-opt %s -p 'blockize{func=seed loop=i_1},blockize{func=spatial loop=i_1},blockize{func=whole_reduction loop=j}' | filecheck %s
// blockize (TVM's sch.blockize): the subtree at loop L becomes the body of a new block
// X_o whose iteration variables are the outer parts of X's bindings; X keeps the inner
// parts (v_i) and reads v_o * E + v_i. A reduction's init moves to X_o, over copies of
// the inner spatial loops, as block X_init with variables v_i_init.

// Seed 001 after split x3 + reorder, blockize(i_1): exactly TVM's output
// (reference/tvm/ir/tmm_02_blockize):
//   for i_0, j_0, k_0 in T.grid(64, 64, 64):
//       with T.block("matmul_o"):
//           vi_o, vj_o, vk_o = T.axis.remap("SSR", [i_0, j_0, k_0])
//           with T.init():
//               for i_1, j_1 in T.grid(16, 16):
//                   with T.block("matmul_init"):
//                       vi_i_init, vj_i_init = T.axis.remap("SS", [i_1, j_1])
//                       C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init] = T.float32(0)
//           for i_1, j_1, k_1 in T.grid(16, 16, 16):
//               with T.block("matmul"):
//                   vi_i, vj_i, vk_i = T.axis.remap("SSR", [i_1, j_1, k_1])
//                   C[vi_o * 16 + vi_i, vj_o * 16 + vj_i] = ...
// CHECK-LABEL: func.func @seed
// CHECK-NEXT:    block.for %i0 = 0 to 64 "i_0" {
// CHECK-NEXT:      block.for %j0 = 0 to 64 "j_0" {
// CHECK-NEXT:        block.for %k0 = 0 to 64 "k_0" {
// CHECK-NEXT:          block.block "matmul_o"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// CHECK-NEXT:            block.init {
// CHECK-NEXT:              block.for %i1 = 0 to 16 "i_1" {
// CHECK-NEXT:                block.for %j1 = 0 to 16 "j_1" {
// CHECK-NEXT:                  block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// CHECK-NEXT:                    %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:                    block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32>
// CHECK-NEXT:                  }
// CHECK-NEXT:                }
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:            block.for %i1_1 = 0 to 16 "i_1" {
// CHECK-NEXT:              block.for %j1_1 = 0 to 16 "j_1" {
// CHECK-NEXT:                block.for %k1 = 0 to 16 "k_1" {
// CHECK-NEXT:                  block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// CHECK-NEXT:                    %c = block.load %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
// CHECK-NEXT:                    %a = block.load %A[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// CHECK-NEXT:                    %b = block.load %B[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// CHECK-NEXT:                    %ab = arith.mulf %a, %b : f32
// CHECK-NEXT:                    %sum = arith.addf %c, %ab : f32
// CHECK-NEXT:                    block.store %sum, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
// CHECK-NEXT:                  }
// CHECK-NEXT:                }
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @seed(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
  block.for %i0 = 0 to 64 "i_0" {
    block.for %j0 = 0 to 64 "j_0" {
      block.for %k0 = 0 to 64 "k_0" {
        block.for %i1 = 0 to 16 "i_1" {
          block.for %j1 = 0 to 16 "j_1" {
            block.for %k1 = 0 to 16 "k_1" {
              block.block "matmul"(%vi = spatial(1024, %i0 * 16 + %i1), %vj = spatial(1024, %j0 * 16 + %j1), %vk = reduce(1024, %k0 * 16 + %k1)) {
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
      }
    }
  }
  func.return
}

// A block without init: no X_init, just the two blocks.
// CHECK-LABEL: func.func @spatial
// CHECK-NEXT:    block.for %i0 = 0 to 8 "i_0" {
// CHECK-NEXT:      block.block "C_o"(%vi_o = spatial(8, %i0)) {
// CHECK-NEXT:        block.for %i1 = 0 to 128 "i_1" {
// CHECK-NEXT:          block.block "C"(%vi_i = spatial(128, %i1)) {
// CHECK-NEXT:            %a = block.load %A[%vi_o * 128 + %vi_i] : memref<1024xf32>
// CHECK-NEXT:            block.store %a, %C[%vi_o * 128 + %vi_i] : memref<1024xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @spatial(%A: memref<1024xf32>, %C: memref<1024xf32>) {
  block.for %i0 = 0 to 8 "i_0" {
    block.for %i1 = 0 to 128 "i_1" {
      block.block "C"(%vi = spatial(1024, %i0 * 128 + %i1)) {
        %a = block.load %A[%vi] : memref<1024xf32>
        block.store %a, %C[%vi] : memref<1024xf32>
      }
    }
  }
  func.return
}

// The loops from j down cover %vj and %vk whole: as in TVM (preserve_unit_iters), the
// outer block keeps them as unit variables `spatial(1, 0)` / `reduce(1, 0)`, so it is
// still a reduction block and takes the init; the inner block drops %vi (all outer).
// CHECK-LABEL: func.func @whole_reduction
// CHECK-NEXT:    block.for %i = 0 to 4 "i" {
// CHECK-NEXT:      block.block "matmul_o"(%vi_o = spatial(4, %i), %vj_o = spatial(1, 0), %vk_o = reduce(1, 0)) {
// CHECK-NEXT:        block.init {
// CHECK-NEXT:          block.for %j = 0 to 4 "j" {
// CHECK-NEXT:            block.block "matmul_init"(%vj_i_init = spatial(4, %j)) {
// CHECK-NEXT:              %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:              block.store %zero, %C[%vi_o, %vj_i_init] : memref<4x4xf32>
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        block.for %j_1 = 0 to 4 "j" {
// CHECK-NEXT:          block.for %k = 0 to 16 "k" {
// CHECK-NEXT:            block.block "matmul"(%vj_i = spatial(4, %j_1), %vk_i = reduce(16, %k)) {
// CHECK-NEXT:              %c = block.load %C[%vi_o, %vj_i] : memref<4x4xf32>
// CHECK-NEXT:              %a = block.load %A[%vi_o, %vk_i] : memref<4x16xf32>
func.func @whole_reduction(%A: memref<4x16xf32>, %B: memref<4x16xf32>, %C: memref<4x4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 16 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(16, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<4x4xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x16xf32>
          %b = block.load %B[%vj, %vk] : memref<4x16xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  func.return
}
