// matmul_bias of seed 004 (TVM's mm_bias, reference fre_bias_0_before, which uses
// 16x16 buffers; this example keeps the 1024x1024 float32 size): temp = A · Bᵀ
// reduced into an intermediate buffer (block "matmul", init temp = 0), then
// D = temp + C (block "add").
// xtir-run: numpy D = A @ B.T + C
builtin.module {
  func.func @main(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>, %D: memref<1024x1024xf32>) {
    %temp = block.alloc : memref<1024x1024xf32>
    block.for %i = 0 to 1024 "i" {
      block.for %j = 0 to 1024 "j" {
        block.for %k = 0 to 1024 "k" {
          block.block "matmul"(%vi = spatial(1024, %i), %vj = spatial(1024, %j), %vk = reduce(1024, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %temp[%vi, %vj] : memref<1024x1024xf32>
            }
            %t = block.load %temp[%vi, %vj] : memref<1024x1024xf32>
            %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
            %b = block.load %B[%vj, %vk] : memref<1024x1024xf32>
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %t, %ab : f32
            block.store %sum, %temp[%vi, %vj] : memref<1024x1024xf32>
          }
        }
      }
    }
    block.for %i = 0 to 1024 "i" {
      block.for %j = 0 to 1024 "j" {
        block.block "add"(%vi = spatial(1024, %i), %vj = spatial(1024, %j)) {
          %t = block.load %temp[%vi, %vj] : memref<1024x1024xf32>
          %c = block.load %C[%vi, %vj] : memref<1024x1024xf32>
          %sum = arith.addf %t, %c : f32
          block.store %sum, %D[%vi, %vj] : memref<1024x1024xf32>
        }
      }
    }
    func.return
  }
}
