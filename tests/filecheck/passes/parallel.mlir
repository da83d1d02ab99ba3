// RUN: xtir-opt %s -p 'parallel{func=spatial loop=j},parallel{func=split_inner loop=i_1},parallel{func=in_place loop=i},parallel{func=intermediate loop="matmul/i"},parallel{func=fused loop=f},parallel{func=private_scratch loop=k}' | filecheck %s
// parallel (TVM's sch.parallel) marks a loop "parallel"; nothing else changes. A loop that feeds
// only spatial iteration variables is accepted, even above a reduction loop, as long as no two
// iterations touch an element one of them writes (parallel_invalid.mlir).

// CHECK-LABEL: func.func @spatial
// CHECK-NEXT:    block.for %i = 0 to 4 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" parallel {
// CHECK-NEXT:        block.for %k = 0 to 16 "k" {
// CHECK-NEXT:          block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(16, %k)) {
// CHECK-NEXT:            block.init {
func.func @spatial(%A: memref<4x16xf32>, %B: memref<4x16xf32>, %C: memref<4x4xf32>) {
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

// The inner loop of a non-dividing split (1000 by 16): the predicate stays.
// CHECK-LABEL: func.func @split_inner
// CHECK-NEXT:    block.for %i0 = 0 to 63 "i_0" {
// CHECK-NEXT:      block.for %i1 = 0 to 16 "i_1" parallel {
// CHECK-NEXT:        block.block "B"(%vi = spatial(1000, %i0 * 16 + %i1)) where(%i0 * 16 + %i1 < 1000) {
func.func @split_inner(%A: memref<1000xf32>, %B: memref<1000xf32>) {
  block.for %i0 = 0 to 63 "i_0" {
    block.for %i1 = 0 to 16 "i_1" {
      block.block "B"(%vi = spatial(1000, %i0 * 16 + %i1)) where(%i0 * 16 + %i1 < 1000) {
        %a = block.load %A[%vi] : memref<1000xf32>
        block.store %a, %B[%vi] : memref<1000xf32>
      }
    }
  }
  func.return
}

// An in-place update: each iteration reads and writes only its own element of U.
// CHECK-LABEL: func.func @in_place
// CHECK-NEXT:    block.for %i = 0 to 16 "i" parallel {
func.func @in_place(%U: memref<16xf32>, %T: memref<16xf32>) {
  block.for %i = 0 to 16 "i" {
    block.block "U"(%vi = spatial(16, %i)) {
      %u = block.load %U[%vi] : memref<16xf32>
      %t = block.load %T[%vi] : memref<16xf32>
      %half = arith.constant 5.000000e-01 : f32
      %h = arith.mulf %u, %half : f32
      %s = arith.addf %h, %t : f32
      block.store %s, %U[%vi] : memref<16xf32>
    }
  }
  func.return
}

// Iterations of matmul's i write disjoint rows of temp, which the add block reads after the
// loop: not a race, though temp is allocated outside the loop (examples/matmul_bias.mlir).
// CHECK-LABEL: func.func @intermediate
// CHECK:         block.for %i = 0 to 4 "i" parallel {
// CHECK:         block.for %i_1 = 0 to 4 "i" {
func.func @intermediate(%A: memref<4x8xf32>, %B: memref<4x8xf32>, %C: memref<4x4xf32>, %D: memref<4x4xf32>) {
  %temp = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 8 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(8, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x4xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x8xf32>
          %b = block.load %B[%vj, %vk] : memref<4x8xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "add"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %t = block.load %temp[%vi, %vj] : memref<4x4xf32>
        %c = block.load %C[%vi, %vj] : memref<4x4xf32>
        %sum = arith.addf %t, %c : f32
        block.store %sum, %D[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// A fused loop: C[f floordiv 4, f mod 4] is a different element in each iteration.
// CHECK-LABEL: func.func @fused
// CHECK-NEXT:    block.for %f = 0 to 16 "f" parallel {
func.func @fused(%C: memref<4x4xf32>) {
  block.for %f = 0 to 16 "f" {
    block.block "C"(%vi = spatial(4, %f floordiv 4), %vj = spatial(4, %f mod 4)) {
      %c = block.load %C[%vi, %vj] : memref<4x4xf32>
      %s = arith.addf %c, %c : f32
      block.store %s, %C[%vi, %vj] : memref<4x4xf32>
    }
  }
  func.return
}

// A scratch buffer written and then read in each iteration: each iteration gets its own
// (compact-buffers allocates it inside the loop).
// CHECK-LABEL: func.func @private_scratch
// CHECK:         block.for %k = 0 to 16 "k" parallel {
func.func @private_scratch(%A: memref<16xf32>, %B: memref<16xf32>) {
  %T = block.alloc : memref<1xf32>
  block.for %k = 0 to 16 "k" {
    block.block "w"(%vi = spatial(16, %k)) {
      %a = block.load %A[%vi] : memref<16xf32>
      block.store %a, %T[0] : memref<1xf32>
    }
    block.block "r"(%vi = spatial(16, %k)) {
      %t = block.load %T[0] : memref<1xf32>
      block.store %t, %B[%vi] : memref<16xf32>
    }
  }
  func.return
}
