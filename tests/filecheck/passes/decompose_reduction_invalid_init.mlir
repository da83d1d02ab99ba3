// RUN: xtir-opt %s --split-input-file -p 'decompose-reduction{block=S loop=i}' --verify-diagnostics
// decompose-reduction hoists the init before the loop, so it writes earlier: no other
// block under the loop may see that, reading or writing the buffer before "S" does in
// the same iteration.

// E copies the old row of D before S reduces into it.
func.func @reader_before(%A: memref<4x3xf32>, %D: memref<4x2xf32>, %E: memref<4x2xf32>) {
  // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "S" at loop "i": block "E" reads D under the loop before it; the hoisted init would write it first}}
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 2 "j" {
      // expected-note @+1 {{block "E" reads D}}
      block.block "E"(%vi = spatial(4, %i), %vj = spatial(2, %j)) {
        %d = block.load %D[%vi, %vj] : memref<4x2xf32>
        block.store %d, %E[%vi, %vj] : memref<4x2xf32>
      }
    }
    block.for %j = 0 to 2 "jj" {
      block.for %k = 0 to 3 "k" {
        block.block "S"(%vi = spatial(4, %i), %vj = spatial(2, %j), %vk = reduce(3, %k)) {
          block.init {
            %z = arith.constant 0.000000e+00 : f32
            block.store %z, %D[%vi, %vj] : memref<4x2xf32>
          }
          %c = block.load %D[%vi, %vj] : memref<4x2xf32>
          %a = block.load %A[%vi, %vk] : memref<4x3xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %D[%vi, %vj] : memref<4x2xf32>
        }
      }
    }
  }
  func.return
}

// -----

// E runs after S, but reads the next row of D, which S reduces into only in the next
// iteration: before that, its old value.
func.func @reader_ahead(%A: memref<5x3xf32>, %D: memref<5x2xf32>, %E: memref<4x2xf32>) {
  // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "S" at loop "i": block "E" reads D under the loop outside what "S" computes in the same iteration; the hoisted init would have written there already}}
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 2 "jj" {
      block.for %k = 0 to 3 "k" {
        block.block "S"(%vi = spatial(5, %i), %vj = spatial(2, %j), %vk = reduce(3, %k)) {
          block.init {
            %z = arith.constant 0.000000e+00 : f32
            block.store %z, %D[%vi, %vj] : memref<5x2xf32>
          }
          %c = block.load %D[%vi, %vj] : memref<5x2xf32>
          %a = block.load %A[%vi, %vk] : memref<5x3xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %D[%vi, %vj] : memref<5x2xf32>
        }
      }
    }
    block.for %j = 0 to 2 "j" {
      // expected-note @+1 {{block "E" reads D}}
      block.block "E"(%vi = spatial(4, %i), %vj = spatial(2, %j)) {
        %d = block.load %D[%vi + 1, %vj] : memref<5x2xf32>
        block.store %d, %E[%vi, %vj] : memref<4x2xf32>
      }
    }
  }
  func.return
}
