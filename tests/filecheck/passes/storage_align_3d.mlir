// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=0 factor=32 offset=1},lower-blocks{compact=false}' | filecheck %s --check-prefix=OUTER
// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=-2 factor=8 offset=1},lower-blocks{compact=false}' | filecheck %s --check-prefix=MIDDLE

// A 3-D buffer. Aligned on its outer axis, only that stride grows (12 to 33); aligned on its
// middle axis, the innermost stride stays 1, the middle one goes from 4 to 9 (1 mod 8) and the
// outer one spans 3 padded rows (27).
// OUTER:   memref.alloca() {buffer_dim_align = [array<i64: 0, 32, 1>]} : memref<2x3x4xf32, strided<[33, 4, 1]>>
// MIDDLE:  memref.alloca() {buffer_dim_align = [array<i64: 1, 8, 1>]} : memref<2x3x4xf32, strided<[27, 9, 1]>>
// MIDDLE:  memref.store %a, %B[%i, %j, %k] : memref<2x3x4xf32, strided<[27, 9, 1]>>
builtin.module {
  func.func @main(%A: memref<2x3x4xf32>, %C: memref<2x3x4xf32>) {
    %B = block.alloc : memref<2x3x4xf32>
    block.for %i = 0 to 2 "i" {
      block.for %j = 0 to 3 "j" {
        block.for %k = 0 to 4 "k" {
          block.block "B"(%vi = spatial(2, %i), %vj = spatial(3, %j), %vk = spatial(4, %k)) {
            %a = block.load %A[%vi, %vj, %vk] : memref<2x3x4xf32>
            block.store %a, %B[%vi, %vj, %vk] : memref<2x3x4xf32>
          }
        }
      }
    }
    block.for %i2 = 0 to 2 "i2" {
      block.for %j2 = 0 to 3 "j2" {
        block.for %k2 = 0 to 4 "k2" {
          block.block "C"(%vi = spatial(2, %i2), %vj = spatial(3, %j2), %vk = spatial(4, %k2)) {
            %b = block.load %B[%vi, %vj, %vk] : memref<2x3x4xf32>
            block.store %b, %C[%vi, %vj, %vk] : memref<2x3x4xf32>
          }
        }
      }
    }
    func.return
  }
}
