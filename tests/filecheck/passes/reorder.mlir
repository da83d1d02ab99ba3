// RUN: xtir-opt %s -p 'reorder{func=seed loops=i_0,j_0,k_0,i_1,j_1,k_1},reorder{func=partial loops=k,i}' | filecheck %s
// reorder (TVM's sch.reorder): the named loops of one chain take the chain positions
// they occupy, in the order given; unnamed loops of the chain stay where they are.

// Seed 001 after the three splits: i_0, i_1, j_0, j_1, k_0, k_1 become
//   for i_0, j_0, k_0, i_1, j_1, k_1 in T.grid(64, 64, 64, 16, 16, 16)
// with the block (bindings, init, body) unchanged (reference/tvm/ir/tmm_01_split_reorder).
// CHECK-LABEL: func.func @seed
// CHECK-NEXT:    block.for %i0 = 0 to 64 "i_0" {
// CHECK-NEXT:      block.for %j0 = 0 to 64 "j_0" {
// CHECK-NEXT:        block.for %k0 = 0 to 64 "k_0" {
// CHECK-NEXT:          block.for %i1 = 0 to 16 "i_1" {
// CHECK-NEXT:            block.for %j1 = 0 to 16 "j_1" {
// CHECK-NEXT:              block.for %k1 = 0 to 16 "k_1" {
// CHECK-NEXT:                block.block "matmul"(%vi = spatial(1024, %i0 * 16 + %i1), %vj = spatial(1024, %j0 * 16 + %j1), %vk = reduce(1024, %k0 * 16 + %k1)) {
// CHECK-NEXT:                  block.init {
// CHECK-NEXT:                    %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:                    block.store %zero, %C[%vi, %vj] : memref<1024x1024xf32>
// CHECK-NEXT:                  }
// CHECK-NEXT:                  %c = block.load %C[%vi, %vj] : memref<1024x1024xf32>
// CHECK-NEXT:                  %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
// CHECK-NEXT:                  %b = block.load %B[%vj, %vk] : memref<1024x1024xf32>
// CHECK-NEXT:                  %ab = arith.mulf %a, %b : f32
// CHECK-NEXT:                  %sum = arith.addf %c, %ab : f32
// CHECK-NEXT:                  block.store %sum, %C[%vi, %vj] : memref<1024x1024xf32>
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
    block.for %i1 = 0 to 16 "i_1" {
      block.for %j0 = 0 to 64 "j_0" {
        block.for %j1 = 0 to 16 "j_1" {
          block.for %k0 = 0 to 64 "k_0" {
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

// reorder(k, i) on the chain i, j, k: k and i swap places, j (not named) stays in the
// middle; each loop keeps its kind.
// CHECK-LABEL: func.func @partial
// CHECK-NEXT:    block.for %k = 0 to 32 "k" unrolled {
// CHECK-NEXT:      block.for %j = 0 to 16 "j" {
// CHECK-NEXT:        block.for %i = 0 to 8 "i" parallel {
// CHECK-NEXT:          block.block "T"(%vi = spatial(8, %i), %vj = spatial(16, %j), %vk = spatial(32, %k)) {
func.func @partial(%A: memref<8x16x32xf32>) {
  block.for %i = 0 to 8 "i" parallel {
    block.for %j = 0 to 16 "j" {
      block.for %k = 0 to 32 "k" unrolled {
        block.block "T"(%vi = spatial(8, %i), %vj = spatial(16, %j), %vk = spatial(32, %k)) {
          %a = block.load %A[%vi, %vj, %vk] : memref<8x16x32xf32>
          block.store %a, %A[%vi, %vj, %vk] : memref<8x16x32xf32>
        }
      }
    }
  }
  func.return
}
