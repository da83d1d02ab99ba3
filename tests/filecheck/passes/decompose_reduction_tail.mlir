// RUN: xtir-opt %s -p 'decompose-reduction{func=at_k0 block=matmul loop=k_0},decompose-reduction{func=at_i0 block=matmul loop=i_0},decompose-reduction{func=rows block=matmul loop=k},reorder{func=large loops=k_1,i,k_0}' | filecheck %s
// A reduction split by a factor that does not divide it (k = 60 by 8): block "matmul" gets the
// tail predicate `k_0 * 8 + k_1 < 60`. It keeps the first step (k = 0) of every instance and cuts
// only the last ones, so the init still runs first and once: decompose-reduction and reorder
// accept it (TVM does too).

// decompose-reduction: the init block keeps the conjuncts that test none of the reduction loops
// it leaves (TVM's RemakePredicate), here the tail of the split of i; the update keeps both.
// CHECK-LABEL: func.func @at_k0
// CHECK-NEXT:    block.for %i0 = 0 to 3 "i_0" {
// CHECK-NEXT:      block.for %i_1_init = 0 to 8 "i_1_init" {
// CHECK-NEXT:        block.for %j_init = 0 to 16 "j_init" {
// CHECK-NEXT:          block.block "matmul_init"(%vi = spatial(20, %i0 * 8 + %i_1_init), %vj = spatial(16, %j_init)) where(%i0 * 8 + %i_1_init < 20) {
// CHECK:             block.for %k0 = 0 to 8 "k_0" {
// CHECK-NEXT:        block.for %i1 = 0 to 8 "i_1" {
// CHECK-NEXT:          block.for %j = 0 to 16 "j" {
// CHECK-NEXT:            block.for %k1 = 0 to 8 "k_1" {
// CHECK-NEXT:              block.block "matmul_update"(%vi_1 = spatial(20, %i0 * 8 + %i1), %vj_1 = spatial(16, %j), %vk = reduce(60, %k0 * 8 + %k1)) where(%i0 * 8 + %i1 < 20, %k0 * 8 + %k1 < 60) {

// At the outermost loop the init block copies i_0 too.
// CHECK-LABEL: func.func @at_i0
// CHECK-NEXT:    block.for %i_0_init = 0 to 3 "i_0_init" {
// CHECK-NEXT:      block.for %i_1_init = 0 to 8 "i_1_init" {
// CHECK-NEXT:        block.for %j_init = 0 to 16 "j_init" {
// CHECK-NEXT:          block.block "matmul_init"(%vi = spatial(20, %i_0_init * 8 + %i_1_init), %vj = spatial(16, %j_init)) where(%i_0_init * 8 + %i_1_init < 20) {
// CHECK:         block.for %i0 = 0 to 3 "i_0" {
// CHECK-NEXT:      block.for %k0 = 0 to 8 "k_0" {
// CHECK:                 block.block "matmul_update"(%vi_1 = spatial(20, %i0 * 8 + %i1), %vj_1 = spatial(16, %j), %vk = reduce(60, %k0 * 8 + %k1)) where(%i0 * 8 + %i1 < 20, %k0 * 8 + %k1 < 60) {

// A tail that depends on the row (`i + k < 10`): rows from 10 on run no step and keep C's old
// values, so the init block keeps the conjunct where k is 0, `i < 10` (TVM would drop it and
// zero those rows).
// CHECK-LABEL: func.func @rows
// CHECK-NEXT:    block.for %i = 0 to 16 "i" {
// CHECK-NEXT:      block.for %j = 0 to 16 "j" {
// CHECK-NEXT:        block.block "matmul_init"(%vi = spatial(16, %i), %vj = spatial(16, %j)) where(%i < 10) {
// CHECK:             block.for %k = 0 to 16 "k" {
// CHECK-NEXT:          block.block "matmul_update"(%vi_1 = spatial(16, %i), %vj_1 = spatial(16, %j), %vk = reduce(16, %k)) where(%i + %k < 10) {

// reorder: k_1 outermost, k_0 innermost. The init still runs at each instance's first step,
// shown without running the 4096 x 16 x 1024 iterations (too many to enumerate).
// CHECK-LABEL: func.func @large
// CHECK-NEXT:    block.for %k1 = 0 to 8 "k_1" {
// CHECK-NEXT:      block.for %j = 0 to 16 "j" {
// CHECK-NEXT:        block.for %i = 0 to 4096 "i" {
// CHECK-NEXT:          block.for %k0 = 0 to 128 "k_0" {
// CHECK-NEXT:            block.block "matmul"(%vi = spatial(4096, %i), %vj = spatial(16, %j), %vk = reduce(1020, %k0 * 8 + %k1)) where(%k0 * 8 + %k1 < 1020) {
// CHECK-NEXT:              block.init {

builtin.module {
  func.func @at_k0(%A: memref<20x60xf32>, %B: memref<16x60xf32>, %C: memref<20x16xf32>) {
    block.for %i0 = 0 to 3 "i_0" {
      block.for %k0 = 0 to 8 "k_0" {
        block.for %i1 = 0 to 8 "i_1" {
          block.for %j = 0 to 16 "j" {
            block.for %k1 = 0 to 8 "k_1" {
                  block.block "matmul"(%vi = spatial(20, %i0 * 8 + %i1), %vj = spatial(16, %j), %vk = reduce(60, %k0 * 8 + %k1)) where(%i0 * 8 + %i1 < 20, %k0 * 8 + %k1 < 60) {
                    block.init {
                      %zero = arith.constant 0.000000e+00 : f32
                      block.store %zero, %C[%vi, %vj] : memref<20x16xf32>
                    }
                    %c = block.load %C[%vi, %vj] : memref<20x16xf32>
                    %a = block.load %A[%vi, %vk] : memref<20x60xf32>
                    %b = block.load %B[%vj, %vk] : memref<16x60xf32>
                    %ab = arith.mulf %a, %b : f32
                    %sum = arith.addf %c, %ab : f32
                    block.store %sum, %C[%vi, %vj] : memref<20x16xf32>
                  }
            }
          }
        }
      }
    }
    func.return
  }

  func.func @at_i0(%A: memref<20x60xf32>, %B: memref<16x60xf32>, %C: memref<20x16xf32>) {
    block.for %i0 = 0 to 3 "i_0" {
      block.for %k0 = 0 to 8 "k_0" {
        block.for %i1 = 0 to 8 "i_1" {
          block.for %j = 0 to 16 "j" {
            block.for %k1 = 0 to 8 "k_1" {
                  block.block "matmul"(%vi = spatial(20, %i0 * 8 + %i1), %vj = spatial(16, %j), %vk = reduce(60, %k0 * 8 + %k1)) where(%i0 * 8 + %i1 < 20, %k0 * 8 + %k1 < 60) {
                    block.init {
                      %zero = arith.constant 0.000000e+00 : f32
                      block.store %zero, %C[%vi, %vj] : memref<20x16xf32>
                    }
                    %c = block.load %C[%vi, %vj] : memref<20x16xf32>
                    %a = block.load %A[%vi, %vk] : memref<20x60xf32>
                    %b = block.load %B[%vj, %vk] : memref<16x60xf32>
                    %ab = arith.mulf %a, %b : f32
                    %sum = arith.addf %c, %ab : f32
                    block.store %sum, %C[%vi, %vj] : memref<20x16xf32>
                  }
            }
          }
        }
      }
    }
    func.return
  }

  func.func @rows(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>) {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "matmul"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) where(%i + %k < 10) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<16x16xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<16x16xf32>
            %a = block.load %A[%vi, %vk] : memref<16x16xf32>
            %b = block.load %B[%vj, %vk] : memref<16x16xf32>
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32>
          }
        }
      }
    }
    func.return
  }

  func.func @large(%A: memref<4096x1020xf32>, %B: memref<16x1020xf32>, %C: memref<4096x16xf32>) {
    block.for %i = 0 to 4096 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k0 = 0 to 128 "k_0" {
          block.for %k1 = 0 to 8 "k_1" {
                block.block "matmul"(%vi = spatial(4096, %i), %vj = spatial(16, %j), %vk = reduce(1020, %k0 * 8 + %k1)) where(%k0 * 8 + %k1 < 1020) {
                  block.init {
                    %zero = arith.constant 0.000000e+00 : f32
                    block.store %zero, %C[%vi, %vj] : memref<4096x16xf32>
                  }
                  %c = block.load %C[%vi, %vj] : memref<4096x16xf32>
                  %a = block.load %A[%vi, %vk] : memref<4096x1020xf32>
                  %b = block.load %B[%vj, %vk] : memref<16x1020xf32>
                  %ab = arith.mulf %a, %b : f32
                  %sum = arith.addf %c, %ab : f32
                  block.store %sum, %C[%vi, %vj] : memref<4096x16xf32>
                }
          }
        }
      }
    }
    func.return
  }
}
