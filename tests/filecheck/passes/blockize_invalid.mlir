// RUN: xtir-opt %s --split-input-file -p 'blockize{loop=i_1}' --verify-diagnostics
// What blockize refuses.

// A loop with two child blocks (TVM: "The loop ... is required to have only one child block").
func.func @two_child_blocks(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
  block.for %i0 = 0 to 8 "i_0" {
    // expected-error @+1 {{'block.for' op blockize: loop "i_1" must have exactly one child block, found 2}}
    block.for %i1 = 0 to 8 "i_1" {
      // expected-note @+1 {{block "P" is a child block of loop "i_1"}}
      block.block "P"(%vi = spatial(8, %i0), %vj = spatial(8, %i1)) {
        %a = block.load %A[%vi, %vj] : memref<8x8xf32>
        block.store %a, %B[%vi, %vj] : memref<8x8xf32>
      }
      // expected-note @+1 {{block "Q" is a child block of loop "i_1"}}
      block.block "Q"(%vi = spatial(8, %i0), %vj = spatial(8, %i1)) {
        %b = block.load %B[%vi, %vj] : memref<8x8xf32>
        block.store %b, %A[%vi, %vj] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// The inner loop of a non-dividing split: the block's predicate (T.where) cannot be
// divided (TVM: "The bindings of the inner block ... can not be blockized by the loops
// starting at ...").
func.func @predicate(%A: memref<1000xf32>, %B: memref<1000xf32>) {
  block.for %i0 = 0 to 63 "i_0" {
    block.for %i1 = 0 to 16 "i_1" {
      // expected-error @+1 {{'block.block' op blockize: block "B" has a predicate (from a non-dividing split); the bindings of the inner block cannot be blockized by the loops starting at "i_1"}}
      block.block "B"(%vi = spatial(1000, %i0 * 16 + %i1)) where(%i0 * 16 + %i1 < 1000) {
        %a = block.load %A[%vi] : memref<1000xf32>
        block.store %a, %B[%vi] : memref<1000xf32>
      }
    }
  }
  func.return
}

// -----

// A binding that is not (outer) * E + (inner loops): fused loops split again. (TVM's
// iterator analysis can divide this one; xtir's is stricter and refuses it.)
func.func @not_divisible(%A: memref<16x16xf32>) {
  block.for %i0 = 0 to 32 "i_0" {
    block.for %i1 = 0 to 8 "i_1" {
      // expected-error @+1 {{'block.block' op blockize: the bindings of the inner block "B" cannot be blockized by the loops starting at "i_1": %vi is not (outer) * E + (inner loops ranging over [0, E))}}
      block.block "B"(%vi = spatial(16, (%i0 * 8 + %i1) floordiv 16), %vj = spatial(16, (%i0 * 8 + %i1) mod 16)) {
        %a = block.load %A[%vi, %vj] : memref<16x16xf32>
        block.store %a, %A[%vi, %vj] : memref<16x16xf32>
      }
    }
  }
  func.return
}

// -----

// expected-error @+1 {{'func.func' op blockize: no loop named "i_1"; loops: i}}
func.func @unknown_loop(%A: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "P"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// i_1 binds nothing of S and runs inside its reduction loop k: S runs its init at each
// iteration of i_1 where vk = 0, wiping the step before. The outer block would run it once.
func.func @init_again(%A: memref<4x6xf32>, %C: memref<4xf32>) {
  block.for %x = 0 to 4 "x" {
    block.for %k = 0 to 6 "k" {
      // expected-error @+1 {{'block.for' op blockize: block "S" runs its init when every reduce variable is 0, which under loop "i_1" is not the first step of each instance (every reduce variable is 0 again at a later step of an instance, which runs the init again); the outer block would run it once, before them all}}
      block.for %i1 = 0 to 2 "i_1" {
        block.block "S"(%vx = spatial(4, %x), %vk = reduce(6, %k)) {
          // expected-note @+1 {{the init of block "S"}}
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vx] : memref<4xf32>
          }
          %c = block.load %C[%vx] : memref<4xf32>
          %a = block.load %A[%vx, %vk] : memref<4x6xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %C[%vx] : memref<4xf32>
        }
      }
    }
  }
  func.return
}
