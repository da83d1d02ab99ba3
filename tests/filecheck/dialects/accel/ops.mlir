// RUN: xtir-opt %s | xtir-opt | filecheck %s
// RUN: xtir-opt %s --print-op-generic | xtir-opt | filecheck %s

// The tensorized matmul of seed 001: 16x16 regions `%buf[offset : size, ...]`, offsets
// are index expressions of (outer) block iteration variables, tmm16 works on the
// accelerator scopes.

// CHECK-LABEL: func.func @tensorized
// CHECK:      %A_reg = block.alloc : memref<16x16xf32, "global.A_reg">
// CHECK-NEXT: %B_reg = block.alloc : memref<16x16xf32, "global.B_reg">
// CHECK-NEXT: %C_acc = block.alloc : memref<64x64xf32, "global.accumulator">
// CHECK:      block.block "matmul_o_init"(%vi_o = spatial(4, %i), %vj_o = spatial(4, %j)) {
// CHECK-NEXT:   accel.fill_zero %C_acc[%vi_o * 16 : 16, %vj_o * 16 : 16] : memref<64x64xf32, "global.accumulator">
// CHECK-NEXT: }
// CHECK:      block.block "matmul_o_update"(%vi_o_1 = spatial(4, %i), %vj_o_1 = spatial(4, %j), %vk_o = reduce(4, %k)) {
// CHECK-NEXT:   accel.dma_copy %A_reg[0 : 16, 0 : 16], %A[%vi_o_1 * 16 : 16, %vk_o * 16 : 16] : memref<16x16xf32, "global.A_reg">, memref<64x64xf32>
// CHECK-NEXT:   accel.dma_copy %B_reg[0 : 16, 0 : 16], %B[%vj_o_1 * 16 : 16, %vk_o * 16 : 16] : memref<16x16xf32, "global.B_reg">, memref<64x64xf32>
// CHECK-NEXT:   accel.tmm16 %C_acc[%vi_o_1 * 16 : 16, %vj_o_1 * 16 : 16], %A_reg[0 : 16, 0 : 16], %B_reg[0 : 16, 0 : 16] : memref<64x64xf32, "global.accumulator">, memref<16x16xf32, "global.A_reg">, memref<16x16xf32, "global.B_reg">
// CHECK-NEXT: }
// CHECK:      block.block "C_global.accumulator"(%v0 = spatial(4, %i), %v1 = spatial(4, %j)) {
// CHECK-NEXT:   accel.dma_copy %C[%v0 * 16 : 16, %v1 * 16 : 16], %C_acc[%v0 * 16 : 16, %v1 * 16 : 16] {note = "write back"} : memref<64x64xf32>, memref<64x64xf32, "global.accumulator">
// CHECK-NEXT: }
func.func @tensorized(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  %A_reg = block.alloc : memref<16x16xf32, "global.A_reg">
  %B_reg = block.alloc : memref<16x16xf32, "global.B_reg">
  %C_acc = block.alloc : memref<64x64xf32, "global.accumulator">
  block.for %i_0 = 0 to 4 "i_0" {
    block.for %j_0 = 0 to 4 "j_0" {
      block.block "matmul_o_init"(%vi_o = spatial(4, %i_0), %vj_o = spatial(4, %j_0)) {
        accel.fill_zero %C_acc[%vi_o * 16 : 16, %vj_o * 16 : 16] : memref<64x64xf32, "global.accumulator">
      }
      block.for %k_0 = 0 to 4 "k_0" {
        block.block "matmul_o_update"(%vi_o = spatial(4, %i_0), %vj_o = spatial(4, %j_0), %vk_o = reduce(4, %k_0)) {
          accel.dma_copy %A_reg[0 : 16, 0 : 16], %A[%vi_o * 16 : 16, %vk_o * 16 : 16] : memref<16x16xf32, "global.A_reg">, memref<64x64xf32>
          accel.dma_copy %B_reg[0 : 16, 0 : 16], %B[%vj_o * 16 : 16, %vk_o * 16 : 16] : memref<16x16xf32, "global.B_reg">, memref<64x64xf32>
          accel.tmm16 %C_acc[%vi_o * 16 : 16, %vj_o * 16 : 16], %A_reg[0 : 16, 0 : 16], %B_reg[0 : 16, 0 : 16] : memref<64x64xf32, "global.accumulator">, memref<16x16xf32, "global.A_reg">, memref<16x16xf32, "global.B_reg">
        }
      }
      block.block "C_global.accumulator"(%v0 = spatial(4, %i_0), %v1 = spatial(4, %j_0)) {
        accel.dma_copy %C[%v0 * 16 : 16, %v1 * 16 : 16], %C_acc[%v0 * 16 : 16, %v1 * 16 : 16] {note = "write back"} : memref<64x64xf32>, memref<64x64xf32, "global.accumulator">
      }
    }
  }
  func.return
}

// Outside blocks, offsets are constants or loop variables; dma_copy and fill_zero take
// any scope and any tile-sized-or-larger buffer.
// CHECK-LABEL: func.func @plain
// CHECK:      accel.fill_zero %S[0 : 16, 16 : 16] : memref<32x32xf32, "shared">
// CHECK-NEXT: block.for %t = 0 to 2 "t" {
// CHECK-NEXT:   accel.dma_copy %S[%t * 16 : 16, 0 : 16], %G[0 : 16, %t * 16 + 8 : 16] : memref<32x32xf32, "shared">, memref<16x64xf32>
// CHECK-NEXT: }
func.func @plain(%G: memref<16x64xf32>) {
  %S = block.alloc : memref<32x32xf32, "shared">
  accel.fill_zero %S[0 : 16, 16 : 16] : memref<32x32xf32, "shared">
  block.for %t = 0 to 2 "t" {
    accel.dma_copy %S[%t * 16 : 16, 0 : 16], %G[0 : 16, 8 + %t * 16 : 16] : memref<32x32xf32, "shared">, memref<16x64xf32>
  }
  func.return
}
