// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=0 factor=32 offset=1}' | filecheck %s
// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=-2 factor=32 offset=0},storage-align{block=B index=0 axis=0 factor=32 offset=1}' | filecheck %s --check-prefix=UPDATE
// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=1 factor=4 offset=3},storage-align{block=B index=0 axis=0 factor=32 offset=1}' | filecheck %s --check-prefix=BOTH
// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=0 factor=32 offset=1},transform-layout{buffer=B permutation=1,0}' | filecheck %s --check-prefix=MOVED
// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=0 factor=32 offset=1},lower-blocks' | filecheck %s --check-prefix=LOWERED
// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=1 factor=8 offset=1},lower-blocks' | filecheck %s --check-prefix=MIDDLE

// storage-align records the alignment on the buffer's allocation (TVM's buffer_dim_align, less the
// buffer index: the allocation is the buffer). Axis -2 is axis 0 of a 2-D buffer, and aligning an
// axis again replaces its alignment (TVM's test_storage_align_update); other axes keep theirs.
// transform-layout moves the alignment with its dimension; lower-blocks pads the strides: rows of
// 16 floats become 33 apart (the next stride that is 1 mod 32).

// CHECK:       %B = block.alloc {buffer_dim_align = [array<i64: 0, 32, 1>]} : memref<16x16xf32>
// CHECK-NEXT:  block.for %i = 0 to 16 "i" {
// UPDATE:      %B = block.alloc {buffer_dim_align = [array<i64: 0, 32, 1>]} : memref<16x16xf32>
// BOTH:        %B = block.alloc {buffer_dim_align = [array<i64: 0, 32, 1>, array<i64: 1, 4, 3>]} : memref<16x16xf32>
// MOVED:       %B = block.alloc {buffer_dim_align = [array<i64: 1, 32, 1>]} : memref<16x16xf32>
// MOVED:       block.store %a, %B[%vj, %vi] : memref<16x16xf32>
// LOWERED:     %B = memref.alloca() {buffer_dim_align = [array<i64: 0, 32, 1>]} : memref<16x16xf32, strided<[33, 1]>>
// LOWERED:     memref.store %a, %B[%i, %j] : memref<16x16xf32, strided<[33, 1]>>
// LOWERED:     memref.load %B[%j2, %i2] : memref<16x16xf32, strided<[33, 1]>>
// The innermost stride, 1, is 1 mod 8 already: no padding.
// MIDDLE:      %B = memref.alloca() {buffer_dim_align = [array<i64: 1, 8, 1>]} : memref<16x16xf32>
builtin.module {
  func.func @main(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
    %B = block.alloc : memref<16x16xf32>
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.block "B"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
          %a = block.load %A[%vi, %vj] : memref<16x16xf32>
          block.store %a, %B[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
    block.for %i2 = 0 to 16 "i2" {
      block.for %j2 = 0 to 16 "j2" {
        block.block "C"(%vi = spatial(16, %i2), %vj = spatial(16, %j2)) {
          %b = block.load %B[%vj, %vi] : memref<16x16xf32>
          block.store %b, %C[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
    func.return
  }
}
