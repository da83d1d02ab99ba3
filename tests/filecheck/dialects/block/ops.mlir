// RUN: xtir-opt %s | xtir-opt | filecheck %s
// RUN: xtir-opt %s --print-op-generic | xtir-opt | filecheck %s

// Loop kinds: serial is the default and prints without a keyword; thread-bound
// loops print their tag; annotations follow the body as `attributes {...}`.
// CHECK-LABEL: func.func @loop_kinds
// CHECK:      block.for %i = 0 to 4 "i" {
// CHECK-NEXT:   block.for %j = 0 to 8 "j" parallel {
// CHECK-NEXT:     block.for %k = 0 to 4 "k" vectorized {
// CHECK-NEXT:       block.for %l = 0 to 2 "l" unrolled {
// CHECK-NEXT:         block.for %tx = 0 to 32 "tx" bind("threadIdx.x") {
// CHECK-NEXT:           block.for %bx = 0 to 2 "bx" bind("blockIdx.y") {
// CHECK-NEXT:           } attributes {pragma_auto_unroll_max_step = 16 : i64, pragma_unroll_explicit = false}
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
func.func @loop_kinds() {
  block.for %i = 0 to 4 "i" serial {
    block.for %j = 0 to 8 "j" parallel {
      block.for %k = 0 to 4 "k" vectorized {
        block.for %l = 0 to 2 "l" unrolled {
          block.for %tx = 0 to 32 "tx" bind("threadIdx.x") {
            block.for %bx = 0 to 2 "bx" bind("blockIdx.y") {
            } attributes {pragma_auto_unroll_max_step = 16 : i64, pragma_unroll_explicit = false}
          }
        }
      }
    }
  }
  func.return
}

// Buffers: the memref memory space is the storage scope; no space means "global".
// CHECK-LABEL: func.func @alloc
// CHECK-NEXT:  %g = block.alloc : memref<16x16xf32>
// CHECK-NEXT:  %s = block.alloc : memref<16x16xf32, "shared">
// CHECK-NEXT:  %l = block.alloc : memref<4xf16, "local">
// CHECK-NEXT:  %a = block.alloc : memref<16x16xf32, "global.A_reg">
// CHECK-NEXT:  %c = block.alloc : memref<16x16xf32, "global.accumulator">
// CHECK-NEXT:  %e = block.alloc {tag = "e"} : memref<1xi32>
func.func @alloc() {
  %g = block.alloc : memref<16x16xf32>
  %s = block.alloc : memref<16x16xf32, "shared">
  %l = block.alloc : memref<4xf16, "local">
  %a = block.alloc : memref<16x16xf32, "global.A_reg">
  %c = block.alloc : memref<16x16xf32, "global.accumulator">
  %e = block.alloc {tag = "e"} : memref<1xi32>
  func.return
}

// A reduction block (the matmul of seed 000) with its init.
// CHECK-LABEL: func.func @matmul
// CHECK:      block.for %i = 0 to 128 "i" {
// CHECK-NEXT:   block.for %j = 0 to 128 "j" {
// CHECK-NEXT:     block.for %k = 0 to 128 "k" {
// CHECK-NEXT:       block.block "matmul"(%vi = spatial(128, %i), %vj = spatial(128, %j), %vk = reduce(128, %k)) {
// CHECK-NEXT:         block.init {
// CHECK-NEXT:           %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:           block.store %zero, %C[%vi, %vj] : memref<128x128xf32>
// CHECK-NEXT:         }
// CHECK-NEXT:         %c = block.load %C[%vi, %vj] : memref<128x128xf32>
// CHECK-NEXT:         %a = block.load %A[%vi, %vk] : memref<128x128xf32>
// CHECK-NEXT:         %b = block.load %B[%vj, %vk] : memref<128x128xf32>
// CHECK-NEXT:         %ab = arith.mulf %a, %b : f32
// CHECK-NEXT:         %sum = arith.addf %c, %ab : f32
// CHECK-NEXT:         block.store %sum, %C[%vi, %vj] : memref<128x128xf32>
// CHECK-NEXT:       }
func.func @matmul(%A: memref<128x128xf32>, %B: memref<128x128xf32>, %C: memref<128x128xf32>) {
  block.for %i = 0 to 128 "i" {
    block.for %j = 0 to 128 "j" {
      block.for %k = 0 to 128 "k" {
        block.block "matmul"(%vi = spatial(128, %i), %vj = spatial(128, %j), %vk = reduce(128, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<128x128xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<128x128xf32>
          %a = block.load %A[%vi, %vk] : memref<128x128xf32>
          %b = block.load %B[%vj, %vk] : memref<128x128xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<128x128xf32>
        }
      }
    }
  }
  func.return
}

// Split loops (xDSL keeps `%x_N` suffixes out of name hints, so the loop named "i_0"
// prints as %i), a predicate for the imperfect split of 63, and index expressions:
// constants, negative coefficients, floordiv and mod. Terms print largest stride first.
// CHECK-LABEL: func.func @expressions
// CHECK:      block.for %i = 0 to 4 "i_0" {
// CHECK-NEXT:   block.for %i_1 = 0 to 16 "i_1" {
// CHECK-NEXT:     block.for %f = 0 to 64 "f" {
// CHECK-NEXT:       block.block "E"(%vi = spatial(63, %i * 16 + %i_1), %vf = spatial(64, %f)) where(%i * 16 + %i_1 < 63) {
// CHECK-NEXT:         %x = block.load %A[%vi, -%vf + 63] : memref<63x64xf32>
// CHECK-NEXT:         %y = block.load %B[%vf mod 4 * 16 + %vf floordiv 4] : memref<64xf32>
// CHECK-NEXT:         %z = block.load %B[(%vi + 1) floordiv 2] : memref<64xf32>
// CHECK-NEXT:         %w = block.load %W[%vf * 2 - %vi + 62] : memref<192xf32>
// CHECK-NEXT:         %u = block.load %B[(%vf * 3 - 1) mod 64] : memref<64xf32>
// CHECK-NEXT:         %v = block.load %B[7] : memref<64xf32>
// CHECK-NEXT:         %s = arith.addf %x, %y : f32
// CHECK-NEXT:         block.store %s, %A[%vi, %vf] : memref<63x64xf32>
// CHECK-NEXT:       }
func.func @expressions(%A: memref<63x64xf32>, %B: memref<64xf32>, %W: memref<192xf32>) {
  block.for %i_0 = 0 to 4 "i_0" {
    block.for %i_1 = 0 to 16 "i_1" {
      block.for %f = 0 to 64 "f" {
        block.block "E"(%vi = spatial(63, %i_0 * 16 + %i_1), %vf = spatial(64, %f)) where(%i_0 * 16 + %i_1 < 63) {
          %x = block.load %A[%vi, 63 - %vf] : memref<63x64xf32>
          %y = block.load %B[%vf floordiv 4 + (%vf mod 4) * 16] : memref<64xf32>
          %z = block.load %B[(%vi + 1) floordiv 2] : memref<64xf32>
          %w = block.load %W[-%vi + %vf * 2 - 3 + 65] : memref<192xf32>
          %u = block.load %B[(3 * %vf - 1) mod 64] : memref<64xf32>
          %v = block.load %B[2 * 3 + 1] : memref<64xf32>
          %s = arith.addf %x, %y : f32
          block.store %s, %A[%vi, %vf] : memref<63x64xf32>
        }
      }
    }
  }
  func.return
}

// Fused loop: bindings use floordiv/mod of one loop; a predicate with several conditions.
// CHECK-LABEL: func.func @fused
// CHECK:      block.block "F"(%vi = spatial(8, %ij floordiv 16), %vj = spatial(16, %ij mod 16)) where(%ij floordiv 16 < 7, %ij mod 16 < 15) {
func.func @fused(%A: memref<8x16xf32>, %v: f32) {
  block.for %ij = 0 to 128 "i_j_fused" {
    block.block "F"(%vi = spatial(8, %ij floordiv 16), %vj = spatial(16, %ij mod 16)) where(%ij floordiv 16 < 7, %ij mod 16 < 15) {
      block.store %v, %A[%vi, %vj] : memref<8x16xf32>
    }
  }
  func.return
}

// Nested blocks (blockize): the inner block binds to the loops between it and the outer
// block, and uses the outer block's iteration variables in its indices. Init bodies may
// themselves hold loops and blocks.
// CHECK-LABEL: func.func @nested
// CHECK:      block.for %i = 0 to 4 "i_0" {
// CHECK-NEXT:   block.for %j = 0 to 4 "j_0" {
// CHECK-NEXT:     block.for %k = 0 to 4 "k_0" {
// CHECK-NEXT:       block.block "matmul_o"(%vi_o = spatial(4, %i), %vj_o = spatial(4, %j), %vk_o = reduce(4, %k)) {
// CHECK-NEXT:         block.init {
// CHECK-NEXT:           block.for %i_1 = 0 to 16 "i_1" {
// CHECK-NEXT:             block.for %j_1 = 0 to 16 "j_1" {
// CHECK-NEXT:               block.block "matmul_init"(%vi_i_init = spatial(16, %i_1), %vj_i_init = spatial(16, %j_1)) {
// CHECK-NEXT:                 %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:                 block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<64x64xf32>
// CHECK:              block.for %i_2 = 0 to 16 "i_1" {
// CHECK-NEXT:           block.for %j_2 = 0 to 16 "j_1" {
// CHECK-NEXT:             block.for %k_1 = 0 to 16 "k_1" {
// CHECK-NEXT:               block.block "matmul"(%vi_i = spatial(16, %i_2), %vj_i = spatial(16, %j_2), %vk_i = reduce(16, %k_1)) {
// CHECK-NEXT:                 %c = block.load %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<64x64xf32>
// CHECK-NEXT:                 %a = block.load %A[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<64x64xf32>
// CHECK-NEXT:                 %b = block.load %B[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<64x64xf32>
func.func @nested(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  block.for %i_0 = 0 to 4 "i_0" {
    block.for %j_0 = 0 to 4 "j_0" {
      block.for %k_0 = 0 to 4 "k_0" {
        block.block "matmul_o"(%vi_o = spatial(4, %i_0), %vj_o = spatial(4, %j_0), %vk_o = reduce(4, %k_0)) {
          block.init {
            block.for %i_1 = 0 to 16 "i_1" {
              block.for %j_1 = 0 to 16 "j_1" {
                block.block "matmul_init"(%vi_i_init = spatial(16, %i_1), %vj_i_init = spatial(16, %j_1)) {
                  %zero = arith.constant 0.000000e+00 : f32
                  block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<64x64xf32>
                }
              }
            }
          }
          block.for %i_1 = 0 to 16 "i_1" {
            block.for %j_1 = 0 to 16 "j_1" {
              block.for %k_1 = 0 to 16 "k_1" {
                block.block "matmul"(%vi_i = spatial(16, %i_1), %vj_i = spatial(16, %j_1), %vk_i = reduce(16, %k_1)) {
                  %c = block.load %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<64x64xf32>
                  %a = block.load %A[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<64x64xf32>
                  %b = block.load %B[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<64x64xf32>
                  %ab = arith.mulf %a, %b : f32
                  %sum = arith.addf %c, %ab : f32
                  block.store %sum, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<64x64xf32>
                }
              }
            }
          }
        }
      }
    }
  }
  func.return
}

// Loops inside a block are seen directly; a block with no iteration variables (a root
// block) and an empty init body also round-trip.
// CHECK-LABEL: func.func @loops_in_block
// CHECK:      block.block "root"() {
// CHECK-NEXT:   block.for %ax0 = 0 to 16 "ax0" {
// CHECK-NEXT:     %x = block.load %A[%ax0] : memref<16xf32>
// CHECK-NEXT:     block.store %x, %B[-%ax0 + 15] : memref<16xf32>
// CHECK:      block.block "r"(%vk = reduce(16, %k)) {
// CHECK-NEXT:   block.init {
// CHECK-NEXT:   }
// CHECK-NEXT: }
func.func @loops_in_block(%A: memref<16xf32>, %B: memref<16xf32>) {
  block.block "root"() {
    block.for %ax0 = 0 to 16 "ax0" {
      %x = block.load %A[%ax0] : memref<16xf32>
      block.store %x, %B[15 - %ax0] : memref<16xf32>
    }
  }
  block.for %k = 0 to 16 "k" {
    block.block "r"(%vk = reduce(16, %k)) {
      block.init {
      }
    }
  }
  func.return
}
