// MyModuleMatmul of seed 002 (the GPU matmul before scheduling): C = A · B,
// 1024x1024x1024, float32; note B is indexed [vk, vj] here, not transposed.
// xtir-run: numpy C = A @ B
builtin.module {
  func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
    block.for %i = 0 to 1024 "i" {
      block.for %j = 0 to 1024 "j" {
        block.for %k = 0 to 1024 "k" {
          block.block "C"(%vi = spatial(1024, %i), %vj = spatial(1024, %j), %vk = reduce(1024, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<1024x1024xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<1024x1024xf32>
            %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
            %b = block.load %B[%vk, %vj] : memref<1024x1024xf32>
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<1024x1024xf32>
          }
        }
      }
    }
    func.return
  }
}
