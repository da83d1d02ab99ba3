// RUN: xtir-opt %s --split-input-file -p 'reverse-compute-inline{block=C}' --verify-diagnostics
// Each refusal leaves the IR as it was; the message names the blocks, the buffer and why.

// relu after matmul: the producer is a reduction, which TVM refuses too (its producer
// must be a complete block); fold such epilogues with decompose-reduction first, or
// keep them as a separate block.
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>) {
  %X = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 4 "k" {
        // expected-error @+1 {{'block.block' op reverse-compute-inline: block "matmul", the producer of X, is a reduction block (reduce variable %vk); the primitive needs a complete block: spatial iteration variables only, no init (TVM: The consumer block to be inlined is required to have only a single producer block, and the producer block should be a complete block who has only a single consumer)}}
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %X[%vi, %vj] : memref<4x4xf32>
          }
          %x = block.load %X[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x4xf32>
          %b = block.load %B[%vj, %vk] : memref<4x4xf32>
          %ab = arith.mulf %a, %b : f32
          %s = arith.addf %x, %ab : f32
          block.store %s, %X[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "C"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %x = block.load %X[%vi, %vj] : memref<4x4xf32>
        %zero = arith.constant 0.000000e+00 : f32
        %c = arith.maximumf %x, %zero : f32
        block.store %c, %C[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// A reduction consumer is not complete either.
func.func @main(%A: memref<4x4xf32>, %C: memref<4xf32>) {
  %X = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "P"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<4x4xf32>
        block.store %a, %X[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 4 "k" {
      // expected-error @+1 {{'block.block' op reverse-compute-inline: block "C" is a reduction block (reduce variable %vk); the primitive needs a complete block: spatial iteration variables only, no init (TVM: The block has init statement)}}
      block.block "C"(%vi = spatial(4, %i), %vk = reduce(4, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<4xf32>
        }
        %c = block.load %C[%vi] : memref<4xf32>
        %x = block.load %X[%vi, %vk] : memref<4x4xf32>
        %s = arith.addf %c, %x : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}

// -----

// The consumer runs every other instance: the producer cannot be limited to them.
func.func @main(%A: memref<6xf32>, %C: memref<6xf32>) {
  %X = block.alloc : memref<6xf32>
  block.for %i = 0 to 6 "i" {
    block.block "P"(%vi = spatial(6, %i)) {
      %a = block.load %A[%vi] : memref<6xf32>
      block.store %a, %X[%vi] : memref<6xf32>
    }
  }
  block.for %i = 0 to 3 "i" {
    // expected-error @+1 {{'block.block' op reverse-compute-inline: the loops of block "C" run 3 of the 5 instances in the box around them; the producer cannot be limited to them}}
    block.block "C"(%vi = spatial(6, %i * 2)) {
      %x = block.load %X[%vi] : memref<6xf32>
      block.store %x, %C[%vi] : memref<6xf32>
    }
  }
  func.return
}

// -----

// Two produced buffers: which producer would take the consumer? (TVM: "the block is
// allowed to read only a single buffer region")
func.func @main(%A: memref<4xf32>, %C: memref<4xf32>) {
  %X = block.alloc : memref<4xf32>
  %Y = block.alloc : memref<4xf32>
  block.for %i = 0 to 4 "i" {
    block.block "P"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %X[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "Y"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %Y[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.block' op reverse-compute-inline: block "C" reads 2 buffers that blocks write (X, Y); the inlined consumer must read exactly one produced buffer, `Y[...] = g(X[vi, vj, ...], inputs...)`, its other reads being inputs no block writes}}
    block.block "C"(%vi = spatial(4, %i)) {
      %x = block.load %X[%vi] : memref<4xf32>
      %y = block.load %Y[%vi] : memref<4xf32>
      %c = arith.addf %x, %y : f32
      block.store %c, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// The consumer reads nothing a block produces.
func.func @main(%A: memref<4xf32>, %B: memref<4xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %B[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.block' op reverse-compute-inline: block "C" reads no buffer that a block writes; the inlined consumer must read exactly one produced buffer}}
    block.block "C"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// The produced buffer is a function argument: the producer's writes are results.
func.func @main(%A: memref<4xf32>, %X: memref<4xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "P"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %X[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.block' op reverse-compute-inline: block "C" reads X, an argument of function "main": its producer's writes are results of the function and cannot be replaced; only a consumer of an intermediate buffer (block.alloc) can be inlined}}
    block.block "C"(%vi = spatial(4, %i)) {
      %x = block.load %X[%vi] : memref<4xf32>
      block.store %x, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// Reads of the input at shifted indices do not name one producer iteration each.
func.func @main(%A: memref<5xf32>, %C: memref<4xf32>) {
  %X = block.alloc : memref<5xf32>
  block.for %i = 0 to 5 "i" {
    block.block "P"(%vi = spatial(5, %i)) {
      %a = block.load %A[%vi] : memref<5xf32>
      block.store %a, %X[%vi] : memref<5xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "C"(%vi = spatial(4, %i)) {
      // expected-error @+1 {{'block.load' op reverse-compute-inline: block "C" reads X[vi + 1]; an inlined consumer must read its input at its iteration variables (%vi), each exactly once and alone in its index, so that they can be expressed through the producer's}}
      %x = block.load %X[%vi + 1] : memref<5xf32>
      block.store %x, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// A broadcast (vj unused in the read) cannot be expressed through the producer's variables.
func.func @main(%A: memref<4xf32>, %C: memref<4x2xf32>) {
  %X = block.alloc : memref<4xf32>
  block.for %i = 0 to 4 "i" {
    block.block "P"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %X[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 2 "j" {
      block.block "C"(%vi = spatial(4, %i), %vj = spatial(2, %j)) {
        // expected-error @+1 {{'block.load' op reverse-compute-inline: block "C" reads X[vi]; an inlined consumer must read its input at its iteration variables (%vi, %vj)}}
        %x = block.load %X[%vi] : memref<4xf32>
        block.store %x, %C[%vi, %vj] : memref<4x2xf32>
      }
    }
  }
  func.return
}

// -----

// Two reads of the input at different indices.
func.func @main(%A: memref<4x4xf32>, %C: memref<4x4xf32>) {
  %X = block.alloc : memref<4x4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "P"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<4x4xf32>
        block.store %a, %X[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "C"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %x = block.load %X[%vi, %vj] : memref<4x4xf32>
        // expected-error @+1 {{'block.load' op reverse-compute-inline: block "C" reads X[vi, vj] and X[vj, vi]; an inlined consumer must read its input at one index only}}
        %xt = block.load %X[%vj, %vi] : memref<4x4xf32>
        %c = arith.addf %x, %xt : f32
        block.store %c, %C[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  func.return
}

// -----

// Two producers of the input (TVM: the consumer needs a single producer); a note points
// at each producer's write.
func.func @main(%A: memref<4xf32>, %C: memref<4xf32>) {
  %X = block.alloc : memref<4xf32>
  block.for %i = 0 to 4 "i" {
    block.block "P"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      // expected-note @+1 {{block "P" writes X}}
      block.store %a, %X[%vi] : memref<4xf32>
    }
  }
  block.block "fix"() {
    %zero = arith.constant 0.000000e+00 : f32
    // expected-note @+1 {{block "fix" writes X}}
    block.store %zero, %X[0] : memref<4xf32>
  }
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.block' op reverse-compute-inline: X is written by block "P" and block "fix"; block "C" can only be inlined into a single producer block}}
    block.block "C"(%vi = spatial(4, %i)) {
      %x = block.load %X[%vi] : memref<4xf32>
      block.store %x, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// The input has a second consumer, which still needs it (a note points at the consumer
// to inline).
func.func @main(%A: memref<4xf32>, %C: memref<4xf32>, %D: memref<4xf32>) {
  %X = block.alloc : memref<4xf32>
  block.for %i = 0 to 4 "i" {
    block.block "P"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %X[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    // expected-note @+1 {{block "C" reads X}}
    block.block "C"(%vi = spatial(4, %i)) {
      %x = block.load %X[%vi] : memref<4xf32>
      block.store %x, %C[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "D"(%vi = spatial(4, %i)) {
      // expected-error @+1 {{'block.load' op reverse-compute-inline: block "D" also reads X; its producer "P" must have block "C" as its only consumer}}
      %x = block.load %X[%vi] : memref<4xf32>
      block.store %x, %D[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// The consumer's output is read between producer and consumer: writing it earlier, in
// the producer, would change what that block sees (a note points at the consumer).
func.func @main(%A: memref<4xf32>, %C: memref<4xf32>, %D: memref<4xf32>) {
  %X = block.alloc : memref<4xf32>
  block.for %i = 0 to 4 "i" {
    block.block "P"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %X[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "peek"(%vi = spatial(4, %i)) {
      // expected-error @+1 {{'block.load' op reverse-compute-inline: block "peek" reads C in the loop nests from block "P" to block "C"; writing C in "P" would reorder it with that access}}
      %c = block.load %C[%vi] : memref<4xf32>
      block.store %c, %D[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    // expected-note @+1 {{block "C" writes C}}
    block.block "C"(%vi = spatial(4, %i)) {
      %x = block.load %X[%vi] : memref<4xf32>
      block.store %x, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// The producer's body must be inlinable too: its single store is where the consumer goes.
func.func @main(%A: memref<4xf32>, %C: memref<4xf32>, %D: memref<4xf32>) {
  %X = block.alloc : memref<4xf32>
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.block' op reverse-compute-inline: the body of block "P", the producer of X, must end in its only block.store, `X[...] = f(...)`; it has 2 stores}}
    block.block "P"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %X[%vi] : memref<4xf32>
      block.store %a, %D[%vi] : memref<4xf32>
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "C"(%vi = spatial(4, %i)) {
      %x = block.load %X[%vi] : memref<4xf32>
      block.store %x, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// C reads Y, which block "Q" produces, inside an if_then_else: it reads two produced buffers.
builtin.module {
  func.func @main(%A: memref<8xf32>, %D: memref<8xf32>) {
    %X = block.alloc : memref<8xf32>
    %Y = block.alloc : memref<8xf32>
    block.for %i = 0 to 8 "i" {
      block.block "P"(%vi = spatial(8, %i)) {
        %a = block.load %A[%vi] : memref<8xf32>
        block.store %a, %X[%vi] : memref<8xf32>
      }
    }
    block.for %j = 0 to 8 "j" {
      block.block "Q"(%vj = spatial(8, %j)) {
        %a = block.load %A[%vj] : memref<8xf32>
        %t = arith.addf %a, %a : f32
        block.store %t, %Y[%vj] : memref<8xf32>
      }
    }
    block.for %k = 0 to 8 "k" {
      // expected-error @+1 {{reverse-compute-inline: block "C" reads 2 buffers that blocks write (X, Y); the inlined consumer must read exactly one produced buffer}}
      block.block "C"(%vk = spatial(8, %k)) {
        %x = block.load %X[%vk] : memref<8xf32>
        %c5 = arith.constant 5 : index
        %lt = arith.cmpi slt, %vk, %c5 : index
        %v = scf.if %lt -> (f32) {
          %y = block.load %Y[%vk] : memref<8xf32>
          scf.yield %y : f32
        } else {
          %z = arith.constant 0.000000e+00 : f32
          scf.yield %z : f32
        }
        %s = arith.addf %x, %v : f32
        block.store %s, %D[%vk] : memref<8xf32>
      }
    }
    func.return
  }
}

// -----

// C reads X, the buffer its producer writes, only inside an if_then_else.
builtin.module {
  func.func @main(%A: memref<8xf32>, %D: memref<8xf32>) {
    %X = block.alloc : memref<8xf32>
    block.for %i = 0 to 8 "i" {
      block.block "P"(%vi = spatial(8, %i)) {
        %a = block.load %A[%vi] : memref<8xf32>
        block.store %a, %X[%vi] : memref<8xf32>
      }
    }
    block.for %k = 0 to 8 "k" {
      block.block "C"(%vk = spatial(8, %k)) {
        %c5 = arith.constant 5 : index
        %lt = arith.cmpi slt, %vk, %c5 : index
        %v = scf.if %lt -> (f32) {
          // expected-error @+1 {{reverse-compute-inline: block "C" reads X inside an if_then_else; an inlined consumer must read its input unconditionally, in its body}}
          %x = block.load %X[%vk] : memref<8xf32>
          scf.yield %x : f32
        } else {
          %z = arith.constant 0.000000e+00 : f32
          scf.yield %z : f32
        }
        block.store %v, %D[%vk] : memref<8xf32>
      }
    }
    func.return
  }
}
