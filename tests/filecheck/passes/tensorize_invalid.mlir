// RUN: xtir-opt %s --split-input-file -p 'tensorize{block=mm intrin=tmm16}' --verify-diagnostics
// What tensorize refuses, matching a block against tmm16 (C += A · Bᵀ on 16x16 tiles,
// A in "global.A_reg", B in "global.B_reg", C in "global.accumulator"): each message
// names the first thing that differs and what the intrinsic expects instead. Block
// "mm" wraps one 16x16x16 nest; its reference form is @constant_offsets in
// tensorize.mlir. Refusals that depend on the pass's options: tensorize_invalid_operands.mlir.

// Wrong scope: A was not cached into the accelerator's A register (no cache-read).
func.func @wrong_scope(%A: memref<16x16xf32>, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": A is in scope "global" where the intrinsic's A must be in "global.A_reg" (cache it there with cache-read/cache-write)}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            // expected-note @+1 {{it differs from the intrinsic here}}
            %a = block.load %A[%vi, %vk] : memref<16x16xf32>
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// Wrong extent: 8x8x8 tiles (split by 8 instead of 16).
func.func @wrong_extent(%A: memref<8x8xf32, "global.A_reg">, %B: memref<8x8xf32, "global.B_reg">, %C: memref<8x8xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": loop "i" has extent 8 where the intrinsic's loop "i" has 16}}
  block.block "mm"() {
    // expected-note @+1 {{it differs from the intrinsic here}}
    block.for %i = 0 to 8 "i" {
      block.for %j = 0 to 8 "j" {
        block.for %k = 0 to 8 "k" {
          block.block "mm_tile"(%vi = spatial(8, %i), %vj = spatial(8, %j), %vk = reduce(8, %k)) {
            %c = block.load %C[%vi, %vj] : memref<8x8xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<8x8xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<8x8xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<8x8xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// Transposed B: C += A · B (B indexed [vk, vj]) is not tmm16's C += A · Bᵀ.
func.func @transposed_b(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": block.load of B: dimension 0 is indexed by vk where the intrinsic indexes B by vjj, i.e. vj here (a transposed or permuted operand?)}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            // expected-note @+1 {{it differs from the intrinsic here}}
            %b = block.load %B[%vk, %vj] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// Wrong element type: f64 buffers (the first one bound, C, is reported).
func.func @wrong_dtype(%A: memref<16x16xf64, "global.A_reg">, %B: memref<16x16xf64, "global.B_reg">, %C: memref<16x16xf64, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": C has element type f64 where the intrinsic's C has f32}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            // expected-note @+1 {{it differs from the intrinsic here}}
            %c = block.load %C[%vi, %vj] : memref<16x16xf64, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf64, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf64, "global.B_reg">
            %ab = arith.mulf %a, %b : f64
            %sum = arith.addf %c, %ab : f64
            block.store %sum, %C[%vi, %vj] : memref<16x16xf64, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// Not a reduction: the same body with k declared spatial.
func.func @k_spatial(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": iteration variable %vk is spatial where the intrinsic's %vkk is reduce}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          // expected-note @+1 {{it differs from the intrinsic here}}
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = spatial(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// Not a reduction: a 16x16x16 elementwise product.
func.func @elementwise(%A: memref<16x16x16xf32, "global.A_reg">, %B: memref<16x16x16xf32, "global.B_reg">, %C: memref<16x16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": iteration variable %vk is spatial where the intrinsic's %vkk is reduce}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          // expected-note @+1 {{it differs from the intrinsic here}}
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = spatial(16, %k)) {
            %a = block.load %A[%vi, %vj, %vk] : memref<16x16x16xf32, "global.A_reg">
            %b = block.load %B[%vi, %vj, %vk] : memref<16x16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            block.store %ab, %C[%vi, %vj, %vk] : memref<16x16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// Missing init decomposition: the tensorized block still has its init (seed step
// decompose-reduction skipped).
func.func @outer_init(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  block.for %ko = 0 to 1 "k_0" {
    // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": block "mm" has an init, but the intrinsic only accumulates; split the init off first with decompose-reduction}}
    block.block "mm"(%vk_o = reduce(1, %ko)) {
      block.init {
        block.for %i = 0 to 16 "i" {
          block.for %j = 0 to 16 "j" {
            block.block "mm_init"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            }
          }
        }
      }
      block.for %i = 0 to 16 "i" {
        block.for %j = 0 to 16 "j" {
          block.for %k = 0 to 16 "k" {
            block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
              %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
              %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
              %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
              %ab = arith.mulf %a, %b : f32
              %sum = arith.addf %c, %ab : f32
              block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            }
          }
        }
      }
    }
  }
  func.return
}

// -----

// Missing init decomposition: the inner block has the init.
func.func @inner_init(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": block "mm_tile" has an init, but the intrinsic only accumulates; split the init off first with decompose-reduction}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          // expected-note @+1 {{it differs from the intrinsic here}}
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            }
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// The body is not one loop nest around one block: a zeroing block sits beside k.
func.func @not_a_nest(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": the body of block "mm" is not a loop nest around a single block}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.block "zero"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
        }
        block.for %k = 0 to 16 "k" {
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// Two loops (a 16x16 copy) where the intrinsic has three.
func.func @too_few_loops(%A: memref<16x16xf32, "global.A_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": the body has 2 loops (i, j) where the intrinsic has 3 (i, j, k)}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
          %a = block.load %A[%vi, %vj] : memref<16x16xf32, "global.A_reg">
          block.store %a, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
        }
      }
    }
  }
  func.return
}

// -----

// The iteration variables are bound to the loops in another order.
func.func @permuted_binding(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": iteration variable %vi is bound to j where the intrinsic binds %vii to i (in this nest's loops)}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          // expected-note @+1 {{it differs from the intrinsic here}}
          block.block "mm_tile"(%vi = spatial(16, %j), %vj = spatial(16, %i), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// A predicate (T.where): the intrinsic computes whole tiles.
func.func @predicate(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": block "mm_tile" has a where predicate; the intrinsic computes whole tiles}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          // expected-note @+1 {{it differs from the intrinsic here}}
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) where(%i < 15) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// A different computation: C -= A · Bᵀ.
func.func @subtracts(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": the body has arith.subf where the intrinsic has arith.addf}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            // expected-note @+1 {{it differs from the intrinsic here}}
            %sum = arith.subf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// The statements are compared op by op, without commutativity (as TVM's
// TensorizeComparator): B · A is not A · B.
func.func @commuted_operands(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": operand 0 of arith.mulf is the load of B where the intrinsic uses the load of A}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            // expected-note @+1 {{it differs from the intrinsic here}}
            %ab = arith.mulf %b, %a : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// An extra statement.
func.func @extra_statement(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": block "mm_tile" has 7 statements where the intrinsic's has 6}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %ab2 = arith.mulf %ab, %ab : f32
            %sum = arith.addf %c, %ab2 : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// C is read from one buffer and written to another.
func.func @two_buffers(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">, %D: memref<16x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": the intrinsic accesses C as one buffer, but the block uses both C and D there}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            // expected-note @+1 {{it differs from the intrinsic here}}
            block.store %sum, %D[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// C is read at one tile and written at another.
func.func @two_tiles(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<32x16xf32, "global.accumulator">) {
  // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": C is accessed at two different tiles ([0, 0] and [16, 0])}}
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<32x16xf32, "global.accumulator">
            %a = block.load %A[%vi, %vk] : memref<16x16xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            // expected-note @+1 {{it differs from the intrinsic here}}
            block.store %sum, %C[%vi + 16, %vj] : memref<32x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// The tile leaves the buffer: A's columns 12..27 of 24. The verifier refuses the input
// before tensorize runs.
func.func @tile_leaves_buffer(%A: memref<16x24xf32, "global.A_reg">, %B: memref<16x24xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  block.block "mm"() {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        block.for %k = 0 to 16 "k" {
          block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            %c = block.load %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
            // expected-error @+1 {{'block.load' op block.load on %A: index 1 ranges over [12, 27], outside the dimension's [0, 23]}}
            %a = block.load %A[%vi, %vk + 12] : memref<16x24xf32, "global.A_reg">
            %b = block.load %B[%vj, %vk + 8] : memref<16x24xf32, "global.B_reg">
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32, "global.accumulator">
          }
        }
      }
    }
  }
  func.return
}

// -----

// The tile can leave the buffer for some value of the outer variable: rows
// vo * 16 .. vo * 16 + 15 of A's 24, with vo in [0, 1]. Under the predicate only vo = 0
// runs, so the verifier accepts the accesses; tensorize does not reason about predicates.
func.func @tile_can_leave_buffer(%A: memref<24x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">, %C: memref<24x16xf32, "global.accumulator">) {
  block.for %o = 0 to 2 "o" {
    // expected-error @+1 {{'block.block' op tensorize: block "mm" does not match tensor intrinsic "tmm16": the 16-wide tile of A along dimension 0 starts at vo * 16, so it covers up to [0, 32), outside the buffer's [0, 24)}}
    block.block "mm"(%vo = spatial(2, %o)) where(%o < 1) {
      block.for %i = 0 to 16 "i" {
        block.for %j = 0 to 16 "j" {
          block.for %k = 0 to 16 "k" {
            block.block "mm_tile"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
              %c = block.load %C[%vo * 8 + %vi, %vj] : memref<24x16xf32, "global.accumulator">
              // expected-note @+1 {{it differs from the intrinsic here}}
              %a = block.load %A[%vo * 16 + %vi, %vk] : memref<24x16xf32, "global.A_reg">
              %b = block.load %B[%vj, %vk] : memref<16x16xf32, "global.B_reg">
              %ab = arith.mulf %a, %b : f32
              %sum = arith.addf %c, %ab : f32
              block.store %sum, %C[%vo * 8 + %vi, %vj] : memref<24x16xf32, "global.accumulator">
            }
          }
        }
      }
    }
  }
  func.return
}
