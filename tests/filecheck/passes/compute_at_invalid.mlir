// RUN: xtir-opt %s --split-input-file -p 'compute-at{block=B loop=i}' --verify-diagnostics
// What compute-at refuses; every check runs before the IR changes.

// The loop encloses the block (TVM: "Expected the block ... and loop ... to be under
// the same block scope, and loop not to be the ancestor of block").
func.func @loop_encloses_block(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  // expected-error @+1 {{'block.for' op compute-at: block "B" and loop "i" must be under the same block scope, and the loop must not enclose the block}}
  block.for %i = 0 to 8 "i" {
    // expected-note @+1 {{block "B" is here}}
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// The loop is inside another block (the body of "C_o"): a different block scope.
func.func @different_scope(%A: memref<8x4xf32>, %C: memref<8x4xf32>) {
  %B = block.alloc : memref<8x4xf32>
  block.for %i0 = 0 to 8 "i0" {
    block.for %j0 = 0 to 4 "j0" {
      // expected-note @+1 {{block "B" is here}}
      block.block "B"(%vi = spatial(8, %i0), %vj = spatial(4, %j0)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        block.store %a, %B[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  block.for %io = 0 to 8 "io" {
    block.block "C_o"(%vio = spatial(8, %io)) {
      // expected-error @+1 {{'block.for' op compute-at: block "B" and loop "i" must be under the same block scope, and the loop must not enclose the block}}
      block.for %i = 0 to 4 "i" {
        block.block "C"(%vj = spatial(4, %i)) {
          %b = block.load %B[%vio, %vj] : memref<8x4xf32>
          block.store %b, %C[%vio, %vj] : memref<8x4xf32>
        }
      }
    }
  }
  func.return
}

// -----

// An output block: B writes a function argument, which outlives the loop nest.
func.func @output_block(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>) {
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{'block.block' op compute-at: block "B" is an output block: it writes B, an argument of the function}}
    block.block "B"(%vi = spatial(8, %j)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Another block writes the buffer too: B is not its only producer.
func.func @two_writers(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{'block.block' op compute-at: B is also written by block(s) B2; block "B" must be its only producer}}
    block.block "B"(%vi = spatial(8, %j)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %k = 0 to 8 "k" {
    // expected-note @+1 {{block "B2" writes B}}
    block.block "B2"(%vi = spatial(8, %k)) {
      %b = block.load %B[%vi] : memref<8xf32>
      %s = arith.addf %b, %b : f32
      block.store %s, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Nothing reads what B writes.
func.func @no_consumer(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{'block.block' op compute-at: block "B" has no consumer of B in its scope}}
    block.block "B"(%vi = spatial(8, %j)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A second consumer D is outside loop i: it would read B where B is no longer computed.
func.func @consumer_outside_loop(%A: memref<8xf32>, %C: memref<8xf32>, %D: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %j = 0 to 8 "j" {
    block.block "B"(%vi = spatial(8, %j)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  // expected-error @+1 {{'block.for' op compute-at: consumer block(s) D of B are not under loop "i"; all consumers of block "B" must be}}
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  block.for %k = 0 to 8 "k" {
    // expected-note @+1 {{block "D" reads B outside loop "i"}}
    block.block "D"(%vi = spatial(8, %k)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %D[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// B comes after the loop holding its consumer: moving it would change what C reads.
func.func @block_after_consumer(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{'block.block' op compute-at: block "B" runs after its consumers under loop "i"}}
    block.block "B"(%vi = spatial(8, %j)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// W, under loop i after the consumer, writes X, which B reads: B would see W's values.
func.func @input_written_later(%X: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %j = 0 to 8 "j" {
    // expected-note @+1 {{block "B" reads X}}
    block.block "B"(%vi = spatial(8, %j)) {
      %x = block.load %X[%vi] : memref<8xf32>
      block.store %x, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
    // expected-error @+1 {{'block.block' op compute-at: block "W" writes X, which block "B" reads, after "B" and before the end of loop "i"; computed under the loop, "B" would read those writes}}
    block.block "W"(%vi = spatial(8, %i)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %X[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// B's write index vi + vj is not one variable times a stride plus a constant, so the
// needed region cannot be turned into ranges of vi and vj.
func.func @not_strided(%A: memref<8x4xf32>, %C: memref<11xf32>) {
  %B = block.alloc : memref<11xf32>
  block.for %j0 = 0 to 8 "j0" {
    block.for %k0 = 0 to 4 "k0" {
      // expected-error @+1 {{'block.block' op compute-at: block "B" indexes dimension 0 of B with an expression that is not one iteration variable times a stride plus a constant; its iteration range cannot be inferred}}
      block.block "B"(%vi = spatial(8, %j0), %vj = spatial(4, %k0)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        block.store %a, %B[%vi + %vj] : memref<11xf32>
      }
    }
  }
  block.for %i = 0 to 11 "i" {
    block.block "C"(%vi = spatial(11, %i)) {
      %b = block.load %B[%vi] : memref<11xf32>
      block.store %b, %C[%vi] : memref<11xf32>
    }
  }
  func.return
}

// -----

// One variable in two dimensions (the diagonal B[vi, vi]).
func.func @var_in_two_dims(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8x8xf32>
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{'block.block' op compute-at: block "B" indexes B with %vi in more than one dimension; its iteration range cannot be inferred}}
    block.block "B"(%vi = spatial(8, %j)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi, %vi] : memref<8x8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi, %vi] : memref<8x8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// B writes every other element (stride 2); C reads B[vi + 1], which starts at an odd index.
func.func @misaligned_stride(%A: memref<8xf32>, %C: memref<7xf32>) {
  %B = block.alloc : memref<16xf32>
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{'block.block' op compute-at: the region B needs along dimension 0 does not start at a multiple of the stride 2 of %vi}}
    block.block "B"(%vi = spatial(8, %j)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi * 2] : memref<16xf32>
    }
  }
  block.for %i = 0 to 7 "i" {
    block.block "C"(%vi = spatial(7, %i)) {
      %b = block.load %B[%vi * 2 + 1] : memref<16xf32>
      block.store %b, %C[%vi] : memref<7xf32>
    }
  }
  func.return
}

// -----

// Handles: no block named B; the error lists the blocks.
// expected-error @+1 {{'func.func' op compute-at: no block named "B"; blocks: P, C}}
func.func @no_such_block(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %j = 0 to 8 "j" {
    block.block "P"(%vi = spatial(8, %j)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// No loop named i; the error lists the loops.
// expected-error @+1 {{'func.func' op compute-at: no loop named "i"; loops: x, y}}
func.func @no_such_loop(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %x = 0 to 8 "x" {
    block.block "B"(%vi = spatial(8, %x)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %y = 0 to 8 "y" {
    block.block "C"(%vi = spatial(8, %y)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Two loops named i: the error names each by a block under it.
// expected-error @+1 {{'func.func' op compute-at: loop name "i" is ambiguous: 2 loops have it; name one by a block it encloses: B/i, C/i}}
func.func @ambiguous_loop(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i2 = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i2)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// B halves its buffer in place: recomputed under a loop, it would halve it again.
func.func @update_in_place(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %x = 0 to 8 "x" {
    // expected-error @+1 {{'block.block' op compute-at: block "B" updates B in place (it reads the buffer it writes, and no init resets it); moved, it may run more than once for an instance, and each run would apply the update again}}
    block.block "B"(%vx = spatial(8, %x)) {
      %b = block.load %B[%vx] : memref<8xf32>
      %h = arith.constant 5.000000e-01 : f32
      %m = arith.mulf %b, %h : f32
      block.store %m, %B[%vx] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// B runs the even instances only (its predicate is no bound on %vx): new loops over a
// box of instances would run the odd ones too.
func.func @scattered_predicate(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %f = 0 to 8 "x" {
    // expected-error @+1 {{'block.block' op compute-at: the loops and predicate of block "B" run 4 of the 7 instances in the box around them; new loops could not run the same ones}}
    block.block "B"(%vx = spatial(8, %f)) where(%f mod 2 < 1) {
      %a = block.load %A[%vx] : memref<8xf32>
      block.store %a, %B[%vx] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Computed under i, B would run in every iteration of the parallel loop j around it (each
// writes all of B_shared): a race the build would refuse.
func.func @recomputed_under_parallel(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
  %B_shared = block.alloc : memref<8x8xf32, "shared">
  block.block "B"(%v0_o = spatial(1, 0), %v1_o = spatial(1, 0)) {
    block.for %ax0 = 0 to 8 "ax0" {
      block.for %ax1 = 0 to 8 "ax1" {
        block.block "B_shared"(%v0_i = spatial(8, %ax0), %v1_i = spatial(8, %ax1)) {
          %0 = block.load %B[%v0_i, %v1_i] : memref<8x8xf32>
          block.store %0, %B_shared[%v0_i, %v1_i] : memref<8x8xf32, "shared">
        }
      }
    }
  }
  block.for %r = 0 to 8 "r" {
    // expected-error @+1 {{'block.for' op compute-at: after the change, parallel loop "j" would race: block "B_shared" writes an element of B_shared in iteration 7 of loop "j" that block "matmul" reads in iteration 0; its iterations must stay independent}}
    block.for %j = 0 to 8 "j" parallel {
      block.for %i = 0 to 8 "i" {
        block.block "matmul"(%vi = spatial(8, %r), %vj = spatial(8, %j), %vk = reduce(8, %i)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<8x8xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<8x8xf32>
          %a = block.load %A[%vi, %vk] : memref<8x8xf32>
          %b = block.load %B_shared[%vj, %vk] : memref<8x8xf32, "shared">
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<8x8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// A rotated reduce binding: the init runs at k = 3, wiping the steps k = 0 .. 2. The new
// loops would start each instance with its init and keep them.
func.func @rotated_init(%A: memref<4x6xf32>, %D: memref<4xf32>) {
  %T = block.alloc : memref<4xf32>
  block.for %x = 0 to 4 "x" {
    block.for %k = 0 to 6 "k" {
      // expected-error @+1 {{'block.block' op compute-at: the init of block "B" runs when every reduce variable is 0, which is not the first step of each instance (the first has %vk = 3); from new loops, which start each instance with its init, the block would keep steps the init now wipes}}
      block.block "B"(%vx = spatial(4, %x), %vk = reduce(6, (%k + 3) mod 6)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %T[%vx] : memref<4xf32>
        }
        %t = block.load %T[%vx] : memref<4xf32>
        %a = block.load %A[%vx, %vk] : memref<4x6xf32>
        %s = arith.addf %t, %a : f32
        block.store %s, %T[%vx] : memref<4xf32>
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "C"(%vi = spatial(4, %i)) {
      %t = block.load %T[%vi] : memref<4xf32>
      block.store %t, %D[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// As @recomputed_under_parallel with j vectorized: after the change the copy loop ax1 is vectorized inside j, and a
// loop d elsewhere is vectorized too; each vectorized loop is still checked (the nested ones
// each on its own lowered copy, the others on one: passes/loop_kind.py).
func.func @recomputed_under_vectorized(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>, %D: memref<8xf32>) {
  %B_shared = block.alloc : memref<8x8xf32, "shared">
  block.block "B"(%v0_o = spatial(1, 0), %v1_o = spatial(1, 0)) {
    block.for %ax0 = 0 to 8 "ax0" {
      block.for %ax1 = 0 to 8 "ax1" vectorized {
        block.block "B_shared"(%v0_i = spatial(8, %ax0), %v1_i = spatial(8, %ax1)) {
          %0 = block.load %B[%v0_i, %v1_i] : memref<8x8xf32>
          block.store %0, %B_shared[%v0_i, %v1_i] : memref<8x8xf32, "shared">
        }
      }
    }
  }
  block.for %r = 0 to 8 "r" {
    // expected-error @+1 {{'block.for' op compute-at: after the change, vectorized loop "j" would race: block "B_shared" writes an element of B_shared in iteration 7 of loop "j" that block "matmul" reads in iteration 0; its iterations must stay independent}}
    block.for %j = 0 to 8 "j" vectorized {
      block.for %i = 0 to 8 "i" {
        block.block "matmul"(%vi = spatial(8, %r), %vj = spatial(8, %j), %vk = reduce(8, %i)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<8x8xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<8x8xf32>
          %a = block.load %A[%vi, %vk] : memref<8x8xf32>
          %b = block.load %B_shared[%vj, %vk] : memref<8x8xf32, "shared">
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<8x8xf32>
        }
      }
    }
  }
  block.for %d = 0 to 8 "d" vectorized {
    block.block "D"(%vd = spatial(8, %d)) {
      %one = arith.constant 1.000000e+00 : f32
      block.store %one, %D[%vd] : memref<8xf32>
    }
  }
  func.return
}
