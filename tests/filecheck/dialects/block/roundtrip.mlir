// RUN: xtir-opt %s | xtir-opt | filecheck %s
// RUN: xtir-opt %s --print-op-generic | xtir-opt | filecheck %s

builtin.module {
  func.func @main(%A: memref<1024x1024xf32>, %C: memref<1024xf32>) {
    block.for %i = 0 to 1024 "i" parallel {
      block.for %k = 0 to 1024 "k" {
        block.block "sum"(%vi = spatial(1024, %i), %vk = reduce(1024, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi] : memref<1024xf32>
          }
          %c = block.load %C[%vi] : memref<1024xf32>
          %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %C[%vi] : memref<1024xf32>
        }
      }
    }
    func.return
  }
}

// CHECK:      block.for %i = 0 to 1024 "i" parallel {
// CHECK-NEXT:   block.for %k = 0 to 1024 "k" {
// CHECK-NEXT:     block.block "sum"(%vi = spatial(1024, %i), %vk = reduce(1024, %k)) {
// CHECK-NEXT:       block.init {
// CHECK:            block.store %zero, %C[%vi] : memref<1024xf32>
// CHECK:          %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
