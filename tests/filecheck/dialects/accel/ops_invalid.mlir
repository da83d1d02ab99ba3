// RUN: xtir-opt %s --split-input-file --verify-diagnostics
// One case per verifier (or syntax) rule of the accel dialect; each expected-error pins the
// line of the diagnostic and its message (--verify-diagnostics: any other error fails).

// tmm16 works on 16x16 regions.
func.func @tmm16_region_size(%C: memref<16x16xf32, "global.accumulator">, %A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">) {
  // expected-error @+1 {{'accel.tmm16' op accel.tmm16 operand C (C) is a 8x16 region; accel.tmm16 works on 16x16 regions}}
  accel.tmm16 %C[0 : 8, 0 : 16], %A[0 : 16, 0 : 16], %B[0 : 16, 0 : 16] : memref<16x16xf32, "global.accumulator">, memref<16x16xf32, "global.A_reg">, memref<16x16xf32, "global.B_reg">
  func.return
}

// -----

// tmm16 reads A from the global.A_reg scope...
func.func @tmm16_scope_A(%C: memref<16x16xf32, "global.accumulator">, %A: memref<16x16xf32, "shared">, %B: memref<16x16xf32, "global.B_reg">) {
  // expected-error @+1 {{'accel.tmm16' op accel.tmm16 operand A (A) is in scope "shared"; it must be in "global.A_reg"}}
  accel.tmm16 %C[0 : 16, 0 : 16], %A[0 : 16, 0 : 16], %B[0 : 16, 0 : 16] : memref<16x16xf32, "global.accumulator">, memref<16x16xf32, "shared">, memref<16x16xf32, "global.B_reg">
  func.return
}

// -----

// ...B from global.B_reg...
func.func @tmm16_scope_B(%C: memref<16x16xf32, "global.accumulator">, %A: memref<16x16xf32, "global.A_reg">, %B_A: memref<16x16xf32, "global.A_reg">) {
  // expected-error @+1 {{'accel.tmm16' op accel.tmm16 operand B (B_A) is in scope "global.A_reg"; it must be in "global.B_reg"}}
  accel.tmm16 %C[0 : 16, 0 : 16], %A[0 : 16, 0 : 16], %B_A[0 : 16, 0 : 16] : memref<16x16xf32, "global.accumulator">, memref<16x16xf32, "global.A_reg">, memref<16x16xf32, "global.A_reg">
  func.return
}

// -----

// ...and accumulates into global.accumulator (a memref without a space is "global").
func.func @tmm16_scope_C(%C: memref<16x16xf32>, %A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">) {
  // expected-error @+1 {{'accel.tmm16' op accel.tmm16 operand C (C) is in scope "global"; it must be in "global.accumulator"}}
  accel.tmm16 %C[0 : 16, 0 : 16], %A[0 : 16, 0 : 16], %B[0 : 16, 0 : 16] : memref<16x16xf32>, memref<16x16xf32, "global.A_reg">, memref<16x16xf32, "global.B_reg">
  func.return
}

// -----

// tmm16 works on f32.
func.func @tmm16_f16(%C: memref<16x16xf16, "global.accumulator">, %A: memref<16x16xf16, "global.A_reg">, %B: memref<16x16xf16, "global.B_reg">) {
  // expected-error @+1 {{'accel.tmm16' op accel.tmm16 operand C (C) holds f16; accel.tmm16 works on f32}}
  accel.tmm16 %C[0 : 16, 0 : 16], %A[0 : 16, 0 : 16], %B[0 : 16, 0 : 16] : memref<16x16xf16, "global.accumulator">, memref<16x16xf16, "global.A_reg">, memref<16x16xf16, "global.B_reg">
  func.return
}

// -----

// tmm16 takes three regions.
func.func @tmm16_region_count(%C: memref<16x16xf32, "global.accumulator">, %A: memref<16x16xf32, "global.A_reg">) {
  // expected-error @+1 {{'accel.tmm16' op accel.tmm16 takes 3 buffer regions, got 2}}
  accel.tmm16 %C[0 : 16, 0 : 16], %A[0 : 16, 0 : 16] : memref<16x16xf32, "global.accumulator">, memref<16x16xf32, "global.A_reg">
  func.return
}

// -----

// dma_copy takes a destination and a source: not one region...
func.func @dma_copy_one_region(%A: memref<16x16xf32>) {
  // expected-error @+1 {{'accel.dma_copy' op accel.dma_copy takes 2 buffer regions, got 1}}
  accel.dma_copy %A[0 : 16, 0 : 16] : memref<16x16xf32>
  func.return
}

// -----

// ...nor three.
func.func @dma_copy_three_regions(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>) {
  // expected-error @+1 {{'accel.dma_copy' op accel.dma_copy takes 2 buffer regions, got 3}}
  accel.dma_copy %A[0 : 16, 0 : 16], %B[0 : 16, 0 : 16], %C[0 : 16, 0 : 16] : memref<16x16xf32>, memref<16x16xf32>, memref<16x16xf32>
  func.return
}

// -----

// dma_copy moves 16x16 regions too.
func.func @dma_copy_region_size(%A: memref<16x16xf32, "global.A_reg">, %G: memref<64x64xf32>) {
  // expected-error @+1 {{'accel.dma_copy' op accel.dma_copy operand src (G) is a 16x32 region; accel.dma_copy works on 16x16 regions}}
  accel.dma_copy %A[0 : 16, 0 : 16], %G[0 : 16, 0 : 32] : memref<16x16xf32, "global.A_reg">, memref<64x64xf32>
  func.return
}

// -----

// A buffer smaller than a tile cannot hold a 16x16 region.
func.func @fill_zero_small_buffer(%S: memref<8x64xf32>) {
  // expected-error @+1 {{'accel.fill_zero' op accel.fill_zero operand dst (S): buffer memref<8x64xf32> is smaller than a 16x16 tile}}
  accel.fill_zero %S[0 : 16, 0 : 16] : memref<8x64xf32>
  func.return
}

// -----

// One offset and one size per buffer dimension.
func.func @fill_zero_rank(%S: memref<16x16xf32>) {
  // expected-error @+1 {{'accel.fill_zero' op accel.fill_zero: one offset and one size per buffer dimension expected}}
  accel.fill_zero %S[0 : 16] : memref<16x16xf32>
  func.return
}

// -----

// One buffer type per region.
func.func @type_count(%S: memref<16x16xf32>) {
  // expected-error @+1 {{accel.fill_zero: expected 1 buffer types, got 2}}
  accel.fill_zero %S[0 : 16, 0 : 16] : memref<16x16xf32>, memref<16x16xf32>
  func.return
}

// -----

// Storage scopes are strings.
func.func @scope_not_string(%S: memref<16x16xf32, 3>) {
  // expected-error @+1 {{'accel.fill_zero' op accel.fill_zero buffer %S has memory space 3 : i64; the storage scope of a buffer must be a string such as "global", "shared", "local" or "global.A_reg"}}
  accel.fill_zero %S[0 : 16, 0 : 16] : memref<16x16xf32, 3>
  func.return
}

// -----

// Inside a block, offsets use iteration variables, not the loops outside the block.
func.func @loop_var_in_block(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "copy"(%vi = spatial(4, %i)) {
      // expected-error @+1 {{'accel.dma_copy' op loop variable %i of loop "i" is used inside block "copy"; a block sees the loops outside it only through its iteration variables}}
      accel.dma_copy %A[%i * 16 : 16, 0 : 16], %B[%vi * 16 : 16, 0 : 16] : memref<64x64xf32>, memref<64x64xf32>
    }
  }
  func.return
}

// -----

// Offsets are affine.
func.func @offset_not_affine(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      // expected-error @+1 {{index expression is not affine: a product of two variables}}
      accel.dma_copy %A[%i * %j : 16, 0 : 16], %B[0 : 16, 0 : 16] : memref<64x64xf32>, memref<64x64xf32>
    }
  }
  func.return
}
