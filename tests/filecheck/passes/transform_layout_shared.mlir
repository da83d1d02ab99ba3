// RUN: xtir-opt %s -p 'double-buffer{block=A_shared},transform-layout{buffer=A_shared permutation=1,0}' | filecheck %s
// RUN: xtir-opt %s -p 'transform-layout{buffer=A_shared permutation=1,0},double-buffer{block=A_shared}' | filecheck %s

// transform-layout on a shared-memory cache: the row sum of double_buffer.mlir with A's tile
// stored k-major (A_shared[k, i], TVM's transform_layout with `lambda i, k: (k, i)` on the
// cache-read buffer), so the threads of a block, one per row, read consecutive words at each k
// (cuda/double_buffer_transposed.mlir). The fetch writes A_shared[v1, v0], the sum reads
// A_shared[vk, vi]; the double-buffer mark stays on the new allocation, in either order (it was
// dropped when transform-layout came second, leaving the buffer silently single).

// CHECK: builtin.module {
// CHECK-NEXT: func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
// CHECK-NEXT: %A_shared = block.alloc {double_buffer_scope} : memref<64x64xf32, "shared">
// CHECK-NEXT: block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// CHECK-NEXT: block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
// CHECK-NEXT: block.for %k0 = 0 to 8 "k_0" {
// CHECK-NEXT: block.for %ax0 = 0 to 8 "ax0" {
// CHECK-NEXT: block.for %ax1 = 0 to 8 "ax1" bind("threadIdx.x") {
// CHECK-NEXT: block.block "A_shared"(%v0 = spatial(64, %i0 * 8 + %ax0), %v1 = spatial(64, %k0 * 8 + %ax1)) {
// CHECK-NEXT: %0 = block.load %A[%v0, %v1] : memref<64x64xf32>
// CHECK-NEXT: block.store %0, %A_shared[%v1, %v0] : memref<64x64xf32, "shared">
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: block.for %k1 = 0 to 8 "k_1" {
// CHECK-NEXT: block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 8 + %k1)) {
// CHECK-NEXT: block.init {
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: block.store %zero, %S[%vi] : memref<64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %s = block.load %S[%vi] : memref<64xf32>
// CHECK-NEXT: %a = block.load %A_shared[%vk, %vi] : memref<64x64xf32, "shared">
// CHECK-NEXT: %sum = arith.addf %s, %a : f32
// CHECK-NEXT: block.store %sum, %S[%vi] : memref<64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: }

builtin.module {
  func.func @main(%A: memref<64x64xf32>, %S: memref<64xf32>) {
    %A_shared = block.alloc : memref<64x64xf32, "shared">
    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
      block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
        block.for %k0 = 0 to 8 "k_0" {
          block.for %ax0 = 0 to 8 "ax0" {
            block.for %ax1 = 0 to 8 "ax1" bind("threadIdx.x") {
              block.block "A_shared"(%v0 = spatial(64, %i0 * 8 + %ax0), %v1 = spatial(64, %k0 * 8 + %ax1)) {
                %0 = block.load %A[%v0, %v1] : memref<64x64xf32>
                block.store %0, %A_shared[%v0, %v1] : memref<64x64xf32, "shared">
              }
            }
          }
          block.for %k1 = 0 to 8 "k_1" {
            block.block "S"(%vi = spatial(64, %i0 * 8 + %i1), %vk = reduce(64, %k0 * 8 + %k1)) {
              block.init {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %S[%vi] : memref<64xf32>
              }
              %s = block.load %S[%vi] : memref<64xf32>
              %a = block.load %A_shared[%vi, %vk] : memref<64x64xf32, "shared">
              %sum = arith.addf %s, %a : f32
              block.store %sum, %S[%vi] : memref<64xf32>
            }
          }
        }
      }
    }
    func.return
  }
}

