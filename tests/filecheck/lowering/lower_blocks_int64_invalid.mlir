// RUN: not xtir-opt %s --split-input-file -p lower-blocks 2>&1 | filecheck %s
// Index arithmetic is signed 64-bit: an index expression constant that does not fit is
// refused at the op that uses it. (The verifier refuses such an access when it leaves its
// buffer; here the predicate keeps %i at 0, where the index is 0. Lowering used to wrap 2^63
// to a negative constant and crash on 2^64 with xDSL's VerifyException.)

func.func @main(%A: memref<4xf32>, %B: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) where(%i < 1) {
      // CHECK: {{.*}}lower_blocks_int64_invalid.mlir:[[# @LINE + 1]]:7: error: 'block.load' op blocks-to-scf: index constant 9223372036854775808 does not fit in 64 bits (at most 9223372036854775807); index arithmetic is signed 64-bit
      %a = block.load %A[%vi * 9223372036854775808] : memref<4xf32>
      block.store %a, %B[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

func.func @main(%A: memref<4xf32>, %B: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) where(%i < 1) {
      %a = block.load %A[%vi] : memref<4xf32>
      // CHECK: {{.*}}lower_blocks_int64_invalid.mlir:[[# @LINE + 1]]:7: error: 'block.store' op blocks-to-scf: index constant 18446744073709551616 does not fit in 64 bits (at most 9223372036854775807); index arithmetic is signed 64-bit
      block.store %a, %B[%vi * 18446744073709551616] : memref<4xf32>
    }
  }
  func.return
}
