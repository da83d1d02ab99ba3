// RUN: xtir-opt %s -p 'cache-write{block=sum index=0 scope="local"}' | filecheck %s

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

// CHECK:      %C_local = block.alloc : memref<8xf32, "local">
// CHECK-NEXT: block.for %i = 0 to 8 "i" {
// CHECK:            block.store %zero, %C_local[%vi] : memref<8xf32, "local">
// CHECK:          %c = block.load %C_local[%vi] : memref<8xf32, "local">
// CHECK:          block.store %s, %C_local[%vi] : memref<8xf32, "local">
// CHECK:      block.for %ax0 = 0 to 8 "ax0" {
// CHECK-NEXT:   block.block "C_local"(%v0 = spatial(8, %ax0)) {
// CHECK-NEXT:     %{{.*}} = block.load %C_local[%v0] : memref<8xf32, "local">
// CHECK-NEXT:     block.store %{{.*}}, %C[%v0] : memref<8xf32>
