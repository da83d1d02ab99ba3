// RUN: xtir-opt %s -p 'decompose-reduction{func=seed block=matmul_o loop=k_0},decompose-reduction{func=at_reduction_loop block=matmul loop=k},decompose-reduction{func=at_outer_loop block=matmul loop=i}' | filecheck %s
// decompose-reduction (TVM's sch.decompose_reduction): block B's init becomes block
// B_init just before loop L, over copies (named L_init) of the loops from L down that
// its spatial bindings use; B without its init becomes B_update.

// Seed 001 after blockize, decomposed at k_0: exactly TVM's (reference/tvm/ir/
// tmm_05_decompose_reduction, without the caches):
//   for i_0, j_0 in T.grid(64, 64):
//       with T.block("matmul_o_init"):
//           vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
//           for i_1, j_1 in T.grid(16, 16):
//               with T.block("matmul_init"): ...
//       for k_0 in T.serial(64):
//           with T.block("matmul_o_update"):
//               vi_o, vj_o, vk_o = T.axis.remap("SSR", [i_0, j_0, k_0])
//               for i_1, j_1, k_1 in T.grid(16, 16, 16):
//                   with T.block("matmul"): ...
// CHECK-LABEL: func.func @seed
// CHECK-NEXT:    block.for %i0 = 0 to 64 "i_0" {
// CHECK-NEXT:      block.for %j0 = 0 to 64 "j_0" {
// CHECK-NEXT:        block.block "matmul_o_init"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0)) {
// CHECK-NEXT:          block.for %i1 = 0 to 16 "i_1" {
// CHECK-NEXT:            block.for %j1 = 0 to 16 "j_1" {
// CHECK-NEXT:              block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// CHECK-NEXT:                %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:                block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32>
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        block.for %k0 = 0 to 64 "k_0" {
// CHECK-NEXT:          block.block "matmul_o_update"(%vi_o_1 = spatial(64, %i0), %vj_o_1 = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// CHECK-NEXT:            block.for %i1_1 = 0 to 16 "i_1" {
// CHECK-NEXT:              block.for %j1_1 = 0 to 16 "j_1" {
// CHECK-NEXT:                block.for %k1 = 0 to 16 "k_1" {
// CHECK-NEXT:                  block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// CHECK-NEXT:                    %c = block.load %C[%vi_o_1 * 16 + %vi_i, %vj_o_1 * 16 + %vj_i] : memref<1024x1024xf32>
// CHECK-NEXT:                    %a = block.load %A[%vi_o_1 * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// CHECK-NEXT:                    %b = block.load %B[%vj_o_1 * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// CHECK-NEXT:                    %ab = arith.mulf %a, %b : f32
// CHECK-NEXT:                    %sum = arith.addf %c, %ab : f32
// CHECK-NEXT:                    block.store %sum, %C[%vi_o_1 * 16 + %vi_i, %vj_o_1 * 16 + %vj_i] : memref<1024x1024xf32>
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
        block.block "matmul_o"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
          block.init {
            block.for %i1 = 0 to 16 "i_1" {
              block.for %j1 = 0 to 16 "j_1" {
                block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
                  %zero = arith.constant 0.000000e+00 : f32
                  block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32>
                }
              }
            }
          }
          block.for %i1 = 0 to 16 "i_1" {
            block.for %j1 = 0 to 16 "j_1" {
              block.for %k1 = 0 to 16 "k_1" {
                block.block "matmul"(%vi_i = spatial(16, %i1), %vj_i = spatial(16, %j1), %vk_i = reduce(16, %k1)) {
                  %c = block.load %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
                  %a = block.load %A[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
                  %b = block.load %B[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
                  %ab = arith.mulf %a, %b : f32
                  %sum = arith.addf %c, %ab : f32
                  block.store %sum, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
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

// At the reduction loop itself: the init block goes just before k, under i and j,
// with no loop copies.
// CHECK-LABEL: func.func @at_reduction_loop
// CHECK-NEXT:    block.for %i = 0 to 4 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.block "matmul_init"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
// CHECK-NEXT:          %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:          block.store %zero, %C[%vi, %vj] : memref<4x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        block.for %k = 0 to 16 "k" {
// CHECK-NEXT:          block.block "matmul_update"(%vi_1 = spatial(4, %i), %vj_1 = spatial(4, %j), %vk = reduce(16, %k)) {
// CHECK-NEXT:            %c = block.load %C[%vi_1, %vj_1] : memref<4x4xf32>
func.func @at_reduction_loop(%A: memref<4x16xf32>, %B: memref<4x16xf32>, %C: memref<4x4xf32>) {
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

// At the outermost loop: the init block gets its own loops i_init, j_init (TVM's names).
// CHECK-LABEL: func.func @at_outer_loop
// CHECK-NEXT:    block.for %i_init = 0 to 4 "i_init" {
// CHECK-NEXT:      block.for %j_init = 0 to 4 "j_init" {
// CHECK-NEXT:        block.block "matmul_init"(%vi = spatial(4, %i_init), %vj = spatial(4, %j_init)) {
// CHECK-NEXT:          %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:          block.store %zero, %C[%vi, %vj] : memref<4x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    block.for %i = 0 to 4 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.for %k = 0 to 16 "k" {
// CHECK-NEXT:          block.block "matmul_update"(%vi_1 = spatial(4, %i), %vj_1 = spatial(4, %j), %vk = reduce(16, %k)) {
func.func @at_outer_loop(%A: memref<4x16xf32>, %B: memref<4x16xf32>, %C: memref<4x4xf32>) {
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
