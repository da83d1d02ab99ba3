// RUN: xtir-opt %s --split-input-file -p 'compute-inline{block=B}' --verify-diagnostics
// Each refusal leaves the IR as it was; the message names the block, the buffer and why.

// B writes a function argument: its result is an output of the function (TVM: "The
// block is an output block").
func.func @main(%A: memref<8xf32>, %X: memref<8xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op compute-inline: block "B" is an output block: it writes X, an argument of function "main"; only a block writing an intermediate buffer (block.alloc) can be inlined}}
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %X[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A reduction block (init, reduce variable) is not complete.
func.func @main(%A: memref<8x4xf32>, %C: memref<8xf32>) {
  %X = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.for %k = 0 to 4 "k" {
      // expected-error @+1 {{'block.block' op compute-inline: block "B" is a reduction block (reduce variable %vk); the primitive needs a complete block: spatial iteration variables only, no init}}
      block.block "B"(%vi = spatial(8, %i), %vk = reduce(4, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %X[%vi] : memref<8xf32>
        }
        %b = block.load %X[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x4xf32>
        %s = arith.addf %b, %a : f32
        block.store %s, %X[%vi] : memref<8xf32>
      }
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A block with a predicate (here from a non-dividing split) does not run over its whole domain.
func.func @main(%A: memref<10xf32>, %C: memref<10xf32>) {
  %X = block.alloc : memref<10xf32>
  block.for %i0 = 0 to 3 "i_0" {
    block.for %i1 = 0 to 4 "i_1" {
      // expected-error @+1 {{'block.block' op compute-inline: block "B" has a predicate (where i0 * 4 + i1 < 10); the primitive needs a block that runs over its whole domain}}
      block.block "B"(%vi = spatial(10, %i0 * 4 + %i1)) where(%i0 * 4 + %i1 < 10) {
        %a = block.load %A[%vi] : memref<10xf32>
        block.store %a, %X[%vi] : memref<10xf32>
      }
    }
  }
  block.for %i = 0 to 10 "i" {
    block.block "C"(%vi = spatial(10, %i)) {
      %b = block.load %X[%vi] : memref<10xf32>
      block.store %b, %C[%vi] : memref<10xf32>
    }
  }
  func.return
}

// -----

// Store indices must be the iteration variables themselves: X[vi + 1] is not.
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
  %X = block.alloc : memref<9xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      // expected-error @+1 {{'block.store' op compute-inline: block "B" stores X[vi + 1]; an inlined block must store at its iteration variables (%vi), each exactly once and alone in its index, so that every read of X names the iteration that computed it}}
      block.store %a, %X[%vi + 1] : memref<9xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi + 1] : memref<9xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Every iteration variable must index the store: B(vi, vj) writing X[vi] overwrites
// X[vi] once per vj, so a read of X[vi] does not say which vj computed it.
func.func @main(%A: memref<8x4xf32>, %C: memref<8xf32>) {
  %X = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        // expected-error @+1 {{'block.store' op compute-inline: block "B" stores X[vi]; an inlined block must store at its iteration variables (%vi, %vj), each exactly once and alone in its index, so that every read of X names the iteration that computed it}}
        block.store %a, %X[%vi] : memref<8xf32>
      }
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A repeated variable (a diagonal store) is not a one-to-one map either.
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
  %X = block.alloc : memref<8x8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      // expected-error @+1 {{'block.store' op compute-inline: block "B" stores X[vi, vi]; an inlined block must store at its iteration variables (%vi)}}
      block.store %a, %X[%vi, %vi] : memref<8x8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi, %vi] : memref<8x8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A block reading the buffer it writes (a scan) cannot be inlined.
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
  %X = block.alloc : memref<9xf32>
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op compute-inline: block "B" reads X, the buffer it writes; it cannot be inlined}}
    block.block "B"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<9xf32>
      %a = block.load %A[%vi] : memref<8xf32>
      %s = arith.addf %a, %b : f32
      block.store %s, %X[%vi] : memref<9xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<9xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// The body must be loads, pure arithmetic and one final store.
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>, %D: memref<8xf32>) {
  %X = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op compute-inline: the body of block "B" must end in its only block.store, `X[...] = f(...)`; it has 2 stores}}
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %X[%vi] : memref<8xf32>
      block.store %a, %D[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A loop inside the block is not an inlinable body.
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
  %X = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-error @+1 {{'block.for' op compute-inline: block "B" contains block.for; an inlinable body holds only block.load, side-effect-free arithmetic, if_then_else (an scf.if yielding values computed so) and one final block.store}}
      block.for %k = 0 to 2 "k" {
        %a = block.load %A[%k] : memref<8xf32>
      }
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %X[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Only the iteration variables, buffers and values the block computes travel with a
// copy of its body; a value from the function is not one of them (TVM: "there should
// be no variables other than the index variables").
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
  %X = block.alloc : memref<8xf32>
  %scale = arith.constant 3.000000e+00 : f32
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      // expected-error @+1 {{'arith.mulf' op compute-inline: block "B" uses %scale, defined outside the block; an inlinable body may use only its own iteration variables, buffers and the values it computes}}
      %b = arith.mulf %a, %scale : f32
      block.store %b, %X[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// B must be the only producer of its buffer (a note points at B's write).
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
  %X = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      // expected-note @+1 {{block "B" writes X}}
      block.store %a, %X[%vi] : memref<8xf32>
    }
  }
  block.block "fix"() {
    %zero = arith.constant 0.000000e+00 : f32
    // expected-error @+1 {{'block.store' op compute-inline: block "fix" also writes X; block "B" must be its only producer to be inlined}}
    block.store %zero, %X[0] : memref<8xf32>
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A is written between B and its consumer: the inlined copy would read the new A (a note
// points at B's read).
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
  %X = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      // expected-note @+1 {{block "B" reads A}}
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %X[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "bump"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      %s = arith.addf %a, %a : f32
      // expected-error @+1 {{'block.store' op compute-inline: block "bump" writes A, which block "B" reads, in the loop nests from it to its consumers; inlined, the read would move past that write}}
      block.store %s, %A[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// The only block of a scope cannot be removed (TVM's "the only leaf in the scope").
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
  %X = block.alloc : memref<8xf32>
  block.block "outer"() {
    block.for %i = 0 to 8 "i" {
      // expected-error @+1 {{'block.block' op compute-inline: block "B" is the only block in the scope of block "outer"; removing it would leave the scope empty}}
      block.block "B"(%vi = spatial(8, %i)) {
        %a = block.load %A[%vi] : memref<8xf32>
        block.store %a, %X[%vi] : memref<8xf32>
      }
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %X[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Only block.load reads of X can take B's computation; another use of X cannot (a note
// points at B's write).
func.func @main(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
  %X = block.alloc : memref<16x16xf32>
  block.for %i = 0 to 16 "i" {
    block.for %j = 0 to 16 "j" {
      block.block "B"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
        %a = block.load %A[%vi, %vj] : memref<16x16xf32>
        // expected-note @+1 {{block "B" writes X}}
        block.store %a, %X[%vi, %vj] : memref<16x16xf32>
      }
    }
  }
  block.block "C"() {
    // expected-error @+1 {{'accel.dma_copy' op compute-inline: accel.dma_copy in block "C" uses X; only block.load reads of an inlined buffer can be replaced by its computation}}
    accel.dma_copy %C[0 : 16, 0 : 16], %X[0 : 16, 0 : 16] : memref<16x16xf32>, memref<16x16xf32>
  }
  func.return
}

// -----

// B reads A inside an if_then_else, and W overwrites A before B's consumer: inlined, the
// read would see W's values.
builtin.module {
  func.func @main(%A: memref<8xf32>, %D: memref<8xf32>) {
    %P = block.alloc : memref<8xf32>
    block.for %i = 0 to 8 "i" {
      block.block "B"(%vi = spatial(8, %i)) {
        %c5 = arith.constant 5 : index
        %lt = arith.cmpi slt, %vi, %c5 : index
        %v = scf.if %lt -> (f32) {
          // expected-note @+1 {{block "B" reads A}}
          %a = block.load %A[%vi] : memref<8xf32>
          scf.yield %a : f32
        } else {
          %z = arith.constant 0.000000e+00 : f32
          scf.yield %z : f32
        }
        block.store %v, %P[%vi] : memref<8xf32>
      }
    }
    block.for %j = 0 to 8 "j" {
      block.block "W"(%vj = spatial(8, %j)) {
        %o = arith.constant 1.000000e+02 : f32
        // expected-error @+1 {{compute-inline: block "W" writes A, which block "B" reads, in the loop nests from it to its consumers; inlined, the read would move past that write}}
        block.store %o, %A[%vj] : memref<8xf32>
      }
    }
    block.for %k = 0 to 8 "k" {
      block.block "D"(%vk = spatial(8, %k)) {
        %p = block.load %P[%vk] : memref<8xf32>
        block.store %p, %D[%vk] : memref<8xf32>
      }
    }
    func.return
  }
}

// -----

// An if_then_else branch of B uses a value defined outside B: a copy of B elsewhere cannot.
builtin.module {
  func.func @main(%A: memref<8xf32>, %D: memref<8xf32>) {
    %P = block.alloc : memref<8xf32>
    %z = arith.constant 0.000000e+00 : f32
    block.for %i = 0 to 8 "i" {
      block.block "B"(%vi = spatial(8, %i)) {
        %c5 = arith.constant 5 : index
        %lt = arith.cmpi slt, %vi, %c5 : index
        %v = scf.if %lt -> (f32) {
          %a = block.load %A[%vi] : memref<8xf32>
          scf.yield %a : f32
        } else {
          // expected-error @+1 {{compute-inline: block "B" uses %z, defined outside the block; an inlinable body may use only its own iteration variables, buffers and the values it computes}}
          scf.yield %z : f32
        }
        block.store %v, %P[%vi] : memref<8xf32>
      }
    }
    block.for %k = 0 to 8 "k" {
      block.block "D"(%vk = spatial(8, %k)) {
        %p = block.load %P[%vk] : memref<8xf32>
        block.store %p, %D[%vk] : memref<8xf32>
      }
    }
    func.return
  }
}
