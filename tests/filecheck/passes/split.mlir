// RUN: xtir-opt %s -p 'split{func=infer loop=i factors=-1,16},split{func=three loop=j factors=2,-1,4},split{func=non_dividing loop=i factors=-1,16},split{func=cover loop=i factors=63,16},split{func=reduction loop=k factors=-1,16},split{func=two_blocks loop=i factors=-1,4}' | filecheck %s
// split (TVM's sch.split): the loop becomes a nest L_0, L_1, ... outermost first; the
// blocks below bind the old variable to L_0 * F1 + L_1. When the factors cover more
// than the extent, the blocks get TVM's T.where predicate.

// -1 is TVM's None: 1024 = 64 * 16 (seed 002's `sch.split(i, factors=[None, 128])`).
// CHECK-LABEL: func.func @infer
// CHECK-NEXT:    block.for %i0 = 0 to 64 "i_0" {
// CHECK-NEXT:      block.for %i1 = 0 to 16 "i_1" {
// CHECK-NEXT:        block.block "C"(%vi = spatial(1024, %i0 * 16 + %i1)) {
// CHECK-NEXT:          %a = block.load %A[%vi] : memref<1024xf32>
// CHECK-NEXT:          block.store %a, %C[%vi] : memref<1024xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @infer(%A: memref<1024xf32>, %C: memref<1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.block "C"(%vi = spatial(1024, %i)) {
      %a = block.load %A[%vi] : memref<1024xf32>
      block.store %a, %C[%vi] : memref<1024xf32>
    }
  }
  func.return
}

// Three factors, the middle one inferred: 1024 = 2 * 128 * 4. The loops around the
// split loop and the other binding are untouched.
// CHECK-LABEL: func.func @three
// CHECK-NEXT:    block.for %i = 0 to 4 "i" {
// CHECK-NEXT:      block.for %j0 = 0 to 2 "j_0" {
// CHECK-NEXT:        block.for %j1 = 0 to 128 "j_1" {
// CHECK-NEXT:          block.for %j2 = 0 to 4 "j_2" {
// CHECK-NEXT:            block.block "C"(%vi = spatial(4, %i), %vj = spatial(1024, %j0 * 512 + %j1 * 4 + %j2)) {
// CHECK-NEXT:              %a = block.load %A[%vi, %vj] : memref<4x1024xf32>
// CHECK-NEXT:              block.store %a, %C[%vi, %vj] : memref<4x1024xf32>
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @three(%A: memref<4x1024xf32>, %C: memref<4x1024xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 1024 "j" {
      block.block "C"(%vi = spatial(4, %i), %vj = spatial(1024, %j)) {
        %a = block.load %A[%vi, %vj] : memref<4x1024xf32>
        block.store %a, %C[%vi, %vj] : memref<4x1024xf32>
      }
    }
  }
  func.return
}

// 1000 by 16: ceil(1000 / 16) = 63 outer iterations, and the predicate keeps the last
// 8 of the 1008 iterations from running, exactly TVM's
//   for i_0, i_1 in T.grid(63, 16): ... T.where(i_0 * 16 + i_1 < 1000)
// (reference/tvm/ir/err_split_1000_by_16).
// CHECK-LABEL: func.func @non_dividing
// CHECK-NEXT:    block.for %i0 = 0 to 63 "i_0" {
// CHECK-NEXT:      block.for %i1 = 0 to 16 "i_1" {
// CHECK-NEXT:        block.block "B"(%vi = spatial(1000, %i0 * 16 + %i1)) where(%i0 * 16 + %i1 < 1000) {
// CHECK-NEXT:          %a = block.load %A[%vi] : memref<1000xf32>
// CHECK-NEXT:          %b = arith.addf %a, %a : f32
// CHECK-NEXT:          block.store %b, %B[%vi] : memref<1000xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @non_dividing(%A: memref<1000xf32>, %B: memref<1000xf32>) {
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      %b = arith.addf %a, %a : f32
      block.store %b, %B[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// Explicit factors whose product (1008) exceeds the extent: accepted, same predicate.
// CHECK-LABEL: func.func @cover
// CHECK-NEXT:    block.for %i0 = 0 to 63 "i_0" {
// CHECK-NEXT:      block.for %i1 = 0 to 16 "i_1" {
// CHECK-NEXT:        block.block "B"(%vi = spatial(1000, %i0 * 16 + %i1)) where(%i0 * 16 + %i1 < 1000) {
func.func @cover(%A: memref<1000xf32>, %B: memref<1000xf32>) {
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %B[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// Splitting a reduction loop: the reduce variable is bound to k_0 * 16 + k_1 and the
// init is untouched.
// CHECK-LABEL: func.func @reduction
// CHECK-NEXT:    block.for %i = 0 to 64 "i" {
// CHECK-NEXT:      block.for %k0 = 0 to 4 "k_0" {
// CHECK-NEXT:        block.for %k1 = 0 to 16 "k_1" {
// CHECK-NEXT:          block.block "sum"(%vi = spatial(64, %i), %vk = reduce(64, %k0 * 16 + %k1)) {
// CHECK-NEXT:            block.init {
// CHECK-NEXT:              %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:              block.store %zero, %S[%vi] : memref<64xf32>
// CHECK-NEXT:            }
// CHECK-NEXT:            %s = block.load %S[%vi] : memref<64xf32>
// CHECK-NEXT:            %a = block.load %A[%vi, %vk] : memref<64x64xf32>
func.func @reduction(%A: memref<64x64xf32>, %S: memref<64xf32>) {
  block.for %i = 0 to 64 "i" {
    block.for %k = 0 to 64 "k" {
      block.block "sum"(%vi = spatial(64, %i), %vk = reduce(64, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %S[%vi] : memref<64xf32>
        }
        %s = block.load %S[%vi] : memref<64xf32>
        %a = block.load %A[%vi, %vk] : memref<64x64xf32>
        %t = arith.addf %s, %a : f32
        block.store %t, %S[%vi] : memref<64xf32>
      }
    }
  }
  func.return
}

// A non-dividing split (10 by 4: 3 * 4 = 12) predicates every block under the loop.
// CHECK-LABEL: func.func @two_blocks
// CHECK-NEXT:    block.for %i0 = 0 to 3 "i_0" {
// CHECK-NEXT:      block.for %i1 = 0 to 4 "i_1" {
// CHECK-NEXT:        block.block "X"(%vi = spatial(10, %i0 * 4 + %i1)) where(%i0 * 4 + %i1 < 10) {
// CHECK:             block.block "Y"(%vi_1 = spatial(10, %i0 * 4 + %i1)) where(%i0 * 4 + %i1 < 10) {
func.func @two_blocks(%A: memref<10xf32>, %B: memref<10xf32>) {
  block.for %i = 0 to 10 "i" {
    block.block "X"(%vi = spatial(10, %i)) {
      %a = block.load %A[%vi] : memref<10xf32>
      block.store %a, %B[%vi] : memref<10xf32>
    }
    block.block "Y"(%vi = spatial(10, %i)) {
      %b = block.load %B[%vi] : memref<10xf32>
      block.store %b, %A[%vi] : memref<10xf32>
    }
  }
  func.return
}
