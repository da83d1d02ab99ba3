// The tmm16 tensor intrinsic of seed 001 (TensorIntrin "tmm16"): C += A · Bᵀ on
// 16x16 float32 tiles held in the accelerator's register scopes.
// @tmm16_desc is the description (what the intrinsic computes, as a block with no
// init, so it accumulates into C); @tmm16_impl is the implementation, one accel.tmm16.
// Both give the same result on the same inputs.
builtin.module {
  func.func @tmm16_desc(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "tmm16"(%vii = spatial(16, %i), %vjj = spatial(16, %j), %vkk = reduce(16, %k)) {
            %c = block.load %C[%vii, %vjj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vii, %vkk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vjj, %vkk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vii, %vjj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
    func.return
  }
  func.func @tmm16_impl(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
    accel.tmm16 %C[0 : 16, 0 : 16], %A[0 : 16, 0 : 16], %B[0 : 16, 0 : 16] : memref<16x16xf32, "global.accumulator">, memref<16x16xf32, "global.A_reg">, memref<16x16xf32, "global.B_reg">
    func.return
  }
}
