// transform-layout stores an allocated buffer with its dimensions permuted: the allocation
// takes the permuted shape and every access the permuted indices (packing B's panel for a
// matmul that reads B[vj, vk]: the copy writes B_global[v1, v0], the matmul reads B_global[vk, vj]).
// RUN: xtir-opt %s -p 'cache-read{block=matmul index=1 scope="global"},transform-layout{buffer=B_global permutation=1,0}' | filecheck %s

func.func @main(%A: memref<4x8xf32>, %B: memref<6x8xf32>, %C: memref<4x6xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 6 "j" {
      block.for %k = 0 to 8 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(6, %j), %vk = reduce(8, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<4x6xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<4x6xf32>
          %a = block.load %A[%vi, %vk] : memref<4x8xf32>
          %b = block.load %B[%vj, %vk] : memref<6x8xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<4x6xf32>
        }
      }
    }
  }
  func.return
}

// CHECK:      %B_global = block.alloc : memref<8x6xf32, "global">
// CHECK:      block.block "B_global"(%v0 = spatial(6, %ax0), %v1 = spatial(8, %ax1)) {
// CHECK-NEXT:   %0 = block.load %B[%v0, %v1] : memref<6x8xf32>
// CHECK-NEXT:   block.store %0, %B_global[%v1, %v0] : memref<8x6xf32, "global">
// CHECK:      %a = block.load %A[%vi, %vk] : memref<4x8xf32>
// CHECK-NEXT: %b = block.load %B_global[%vk, %vj] : memref<8x6xf32, "global">
