// RUN: xtir-opt %s -p 'cache-read{block=sum index=0 scope="shared"}' | filecheck %s

builtin.module {
  func.func @main(%A: memref<8x4xf32>, %C: memref<8xf32>) {
    block.for %i = 0 to 8 "i" {
      block.for %k = 0 to 4 "k" {
        block.block "sum"(%vi = spatial(8, %i), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi] : memref<8xf32>
          }
          %c = block.load %C[%vi] : memref<8xf32>
          %a = block.load %A[%vi, %vk] : memref<8x4xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %C[%vi] : memref<8xf32>
        }
      }
    }
    func.return
  }
}

// CHECK:      %A_shared = block.alloc : memref<8x4xf32, "shared">
// CHECK-NEXT: block.for %ax0 = 0 to 8 "ax0" {
// CHECK-NEXT:   block.for %ax1 = 0 to 4 "ax1" {
// CHECK-NEXT:     block.block "A_shared"(%v0 = spatial(8, %ax0), %v1 = spatial(4, %ax1)) {
// CHECK-NEXT:       %{{.*}} = block.load %A[%v0, %v1] : memref<8x4xf32>
// CHECK-NEXT:       block.store %{{.*}}, %A_shared[%v0, %v1] : memref<8x4xf32, "shared">
// CHECK:      block.for %i = 0 to 8 "i" {
// CHECK:            %a = block.load %A_shared[%vi, %vk] : memref<8x4xf32, "shared">
