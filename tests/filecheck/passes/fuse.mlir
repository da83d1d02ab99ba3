// RUN: xtir-opt %s -p 'fuse{func=two loops=i,j},fuse{func=three loops=i,j,k},fuse{func=reduction loops=j,k}' | filecheck %s
// fuse (TVM's sch.fuse): perfectly nested loops, outermost first, become one loop named
// L0_L1_fused with the product of the extents; each old variable becomes
// `fused floordiv (inner extents) mod extent` (TVM's `//` and `%`).

// CHECK-LABEL: func.func @two
// CHECK-NEXT:    block.for %i_j_fused = 0 to 128 "i_j_fused" {
// CHECK-NEXT:      block.block "B"(%vi = spatial(8, %i_j_fused floordiv 16), %vj = spatial(16, %i_j_fused mod 16)) {
// CHECK-NEXT:        %a = block.load %A[%vi, %vj] : memref<8x16xf32>
// CHECK-NEXT:        block.store %a, %B[%vi, %vj] : memref<8x16xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @two(%A: memref<8x16xf32>, %B: memref<8x16xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 16 "j" {
      block.block "B"(%vi = spatial(8, %i), %vj = spatial(16, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x16xf32>
        block.store %a, %B[%vi, %vj] : memref<8x16xf32>
      }
    }
  }
  func.return
}

// Three loops: the middle variable is (fused floordiv 4) mod 16.
// CHECK-LABEL: func.func @three
// CHECK-NEXT:    block.for %i_j_k_fused = 0 to 512 "i_j_k_fused" {
// CHECK-NEXT:      block.block "B"(%vi = spatial(8, %i_j_k_fused floordiv 64), %vj = spatial(16, (%i_j_k_fused floordiv 4) mod 16), %vk = spatial(4, %i_j_k_fused mod 4)) {
func.func @three(%A: memref<8x16x4xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 16 "j" {
      block.for %k = 0 to 4 "k" {
        block.block "B"(%vi = spatial(8, %i), %vj = spatial(16, %j), %vk = spatial(4, %k)) {
          %a = block.load %A[%vi, %vj, %vk] : memref<8x16x4xf32>
          block.store %a, %A[%vi, %vj, %vk] : memref<8x16x4xf32>
        }
      }
    }
  }
  func.return
}

// Fusing a spatial and a reduction loop: the outer loop i stays, the kinds of the
// iteration variables stay.
// CHECK-LABEL: func.func @reduction
// CHECK-NEXT:    block.for %i = 0 to 4 "i" {
// CHECK-NEXT:      block.for %j_k_fused = 0 to 64 "j_k_fused" {
// CHECK-NEXT:        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j_k_fused floordiv 16), %vk = reduce(16, %j_k_fused mod 16)) {
// CHECK-NEXT:          block.init {
func.func @reduction(%A: memref<4x16xf32>, %B: memref<4x16xf32>, %C: memref<4x4xf32>) {
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
