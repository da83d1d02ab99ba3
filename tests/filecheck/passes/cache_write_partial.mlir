// RUN: xtir-opt %s -p 'cache-write{func=predicated block=B index=0 scope="local"},cache-write{func=column block=B1 index=0 scope="local"},cache-write{func=fused block=S index=0 scope="local"},cache-write{func=init_tile block=T_o index=0 scope="local"}' | filecheck %s
// cache-write of a block that writes part of its buffer copies back only the box of
// elements it writes (TVM's cache region): the rest of the buffer keeps what other
// blocks, or the caller, put there. The box is shown to be exactly what the block
// writes (analysis/footprint.py); cache_write_invalid.mlir has what is refused.

// A non-dividing split's predicate `i_0 * 16 + i_1 < 120` bounds the index: C[0:120].
// CHECK-LABEL: func.func @predicated
// CHECK:      block.for %ax0 = 0 to 120 "ax0" {
// CHECK-NEXT:   block.block "C_local"(%v0 = spatial(128, %ax0)) {
// CHECK-NEXT:     %{{.*}} = block.load %C_local[%v0] : memref<128xf32, "local">
// CHECK-NEXT:     block.store %{{.*}}, %C[%v0] : memref<128xf32>
func.func @predicated(%A: memref<128xf32>, %C: memref<128xf32>) {
  block.for %i0 = 0 to 8 "i_0" {
    block.for %i1 = 0 to 16 "i_1" {
      block.block "B"(%v = spatial(128, %i0 * 16 + %i1)) where(%i0 * 16 + %i1 < 120) {
        %a = block.load %A[%v] : memref<128xf32>
        block.store %a, %C[%v] : memref<128xf32>
      }
    }
  }
  func.return
}

// Column 1 only: column 0, written by B0 before, stays. As TVM, the copy keeps the
// unit loop and binds v1 = 1 + ax1.
// CHECK-LABEL: func.func @column
// CHECK:      block.for %ax0 = 0 to 8 "ax0" {
// CHECK-NEXT:   block.for %ax1 = 0 to 1 "ax1" {
// CHECK-NEXT:     block.block "C_local"(%v0 = spatial(8, %ax0), %v1 = spatial(2, %ax1 + 1)) {
func.func @column(%A: memref<8xf32>, %C: memref<8x2xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B0"(%v = spatial(8, %i)) {
      %a = block.load %A[%v] : memref<8xf32>
      block.store %a, %C[%v, 0] : memref<8x2xf32>
    }
  }
  block.for %i = 0 to 8 "i2" {
    block.block "B1"(%v = spatial(8, %i)) {
      %a = block.load %A[%v] : memref<8xf32>
      block.store %a, %C[%v, 1] : memref<8x2xf32>
    }
  }
  func.return
}

// Fused loops split by a non-dividing factor: the predicate bounds the fused index, not
// a buffer index, so the written elements are counted by running the loops: the first
// 10 rows, all of them.
// CHECK-LABEL: func.func @fused
// CHECK:      block.for %ax0 = 0 to 10 "ax0" {
// CHECK-NEXT:   block.for %ax1 = 0 to 12 "ax1" {
// CHECK-NEXT:     block.block "C_local"(%v0 = spatial(12, %ax0), %v1 = spatial(12, %ax1)) {
func.func @fused(%A: memref<12x4xf32>, %C: memref<12x12xf32>) {
  block.for %f0 = 0 to 18 "f_0" {
    block.for %f1 = 0 to 7 "f_1" {
      block.for %k = 0 to 4 "k" {
        block.block "S"(%vi = spatial(12, (%f0 * 7 + %f1) floordiv 12), %vj = spatial(12, (%f0 * 7 + %f1) mod 12),
                        %vk = reduce(4, %k)) where(%f0 * 7 + %f1 < 120) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<12x12xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<12x12xf32>
          %a = block.load %A[%vj, %vk] : memref<12x4xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %C[%vi, %vj] : memref<12x12xf32>
        }
      }
    }
  }
  func.return
}

// A blockized reduction over the first tile of C only: its init writes through an
// inner block under loops of its own, which is checked to stay within what the body
// writes, C[0:4].
// CHECK-LABEL: func.func @init_tile
// CHECK:      block.for %ax0 = 0 to 4 "ax0" {
// CHECK-NEXT:   block.block "C_local"(%v0 = spatial(8, %ax0)) {
func.func @init_tile(%A: memref<8x4xf32>, %C: memref<8xf32>) {
  block.for %io = 0 to 1 "i_0" {
    block.for %k = 0 to 4 "k" {
      block.block "T_o"(%vio = spatial(2, %io), %vk = reduce(4, %k)) {
        block.init {
          block.for %ii = 0 to 4 "i_1_init" {
            block.block "T_init"(%vii = spatial(4, %ii)) {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vio * 4 + %vii] : memref<8xf32>
            }
          }
        }
        block.for %ii = 0 to 4 "i_1" {
          block.block "T"(%vii = spatial(4, %ii)) {
            %c = block.load %C[%vio * 4 + %vii] : memref<8xf32>
            %a = block.load %A[%vio * 4 + %vii, %vk] : memref<8x4xf32>
            %s = arith.addf %c, %a : f32
            block.store %s, %C[%vio * 4 + %vii] : memref<8xf32>
          }
        }
      }
    }
  }
  func.return
}
