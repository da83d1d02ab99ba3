// RUN: xtir-opt %s --split-input-file -p 'reverse-compute-at{block=C loop=i}' --verify-diagnostics
// What reverse-compute-at refuses; every check runs before the IR changes.

// A reduction consumer: it would run again, init included, for every iteration of i.
func.func @reduction_consumer(%A: memref<8x4xf32>, %S: memref<8xf32>) {
  %B = block.alloc : memref<8x4xf32>
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        block.store %a, %B[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  block.for %x = 0 to 8 "x" {
    block.for %k = 0 to 4 "k" {
      // expected-error @+1 {{'block.block' op reverse-compute-at: block "C" is a reduction block (reduce variable %vk); the primitive needs a complete block: spatial iteration variables only, no init}}
      block.block "C"(%vx = spatial(8, %x), %vk = reduce(4, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %S[%vx] : memref<8xf32>
        }
        %s = block.load %S[%vx] : memref<8xf32>
        %b = block.load %B[%vx, %vk] : memref<8x4xf32>
        %t = arith.addf %s, %b : f32
        block.store %t, %S[%vx] : memref<8xf32>
      }
    }
  }
  func.return
}

// -----

// The loop encloses the block.
func.func @loop_encloses_block(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  // expected-error @+1 {{'block.for' op reverse-compute-at: block "C" and loop "i" must be under the same block scope, and the loop must not enclose the block}}
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
    // expected-note @+1 {{block "C" is here}}
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// The loop is inside block "B_o": another block scope than C's.
func.func @different_scope(%A: memref<8x4xf32>, %C: memref<8x4xf32>) {
  %B = block.alloc : memref<8x4xf32>
  block.for %io = 0 to 8 "io" {
    block.block "B_o"(%vio = spatial(8, %io)) {
      // expected-error @+1 {{'block.for' op reverse-compute-at: block "C" and loop "i" must be under the same block scope, and the loop must not enclose the block}}
      block.for %i = 0 to 4 "i" {
        block.block "B"(%vj = spatial(4, %i)) {
          %a = block.load %A[%vio, %vj] : memref<8x4xf32>
          block.store %a, %B[%vio, %vj] : memref<8x4xf32>
        }
      }
    }
  }
  block.for %x = 0 to 8 "x" {
    block.for %y = 0 to 4 "y" {
      // expected-note @+1 {{block "C" is here}}
      block.block "C"(%vx = spatial(8, %x), %vy = spatial(4, %y)) {
        %b = block.load %B[%vx, %vy] : memref<8x4xf32>
        block.store %b, %C[%vx, %vy] : memref<8x4xf32>
      }
    }
  }
  func.return
}

// -----

// C reads B and P, but P's producer Q is not under loop i: at i, C would read P before
// Q wrote it.
func.func @producer_outside_loop(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  %P = block.alloc : memref<8xf32>
  // expected-error @+1 {{'block.for' op reverse-compute-at: producer block(s) Q of P are not under loop "i"; all producers of block "C" must be}}
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %q = 0 to 8 "q" {
    // expected-note @+1 {{block "Q" writes P outside loop "i"}}
    block.block "Q"(%vq = spatial(8, %q)) {
      %a = block.load %A[%vq] : memref<8xf32>
      %p = arith.mulf %a, %a : f32
      block.store %p, %P[%vq] : memref<8xf32>
    }
  }
  block.for %x = 0 to 8 "x" {
    block.block "C"(%vx = spatial(8, %x)) {
      %b = block.load %B[%vx] : memref<8xf32>
      %p = block.load %P[%vx] : memref<8xf32>
      %c = arith.addf %b, %p : f32
      block.store %c, %C[%vx] : memref<8xf32>
    }
  }
  func.return
}

// -----

// C comes before the loop holding its producer.
func.func @block_before_producer(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %x = 0 to 8 "x" {
    // expected-error @+1 {{'block.block' op reverse-compute-at: block "C" runs before its producers under loop "i"}}
    block.block "C"(%vx = spatial(8, %x)) {
      %b = block.load %B[%vx] : memref<8xf32>
      block.store %b, %C[%vx] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// C reads only function arguments: nothing in the scope produces its inputs.
func.func @no_producer(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %x = 0 to 8 "x" {
    // expected-error @+1 {{'block.block' op reverse-compute-at: block "C" reads no buffer written in its scope}}
    block.block "C"(%vx = spatial(8, %x)) {
      %a = block.load %A[%vx] : memref<8xf32>
      block.store %a, %C[%vx] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A coverage gap: each iteration of i produces 4 elements of A1, but B reads a window of
// 3, so only 2 of B's values per iteration have their whole window there; vi = 2, 3, 6,
// 7, ... would never be computed.
func.func @coverage_gap(%A: memref<16xf32>, %C: memref<14xf32>) {
  %A1 = block.alloc : memref<16xf32>
  block.for %i = 0 to 4 "i" {
    block.for %c = 0 to 4 "c" {
      block.block "copy"(%vc = spatial(16, %i * 4 + %c)) {
        %a = block.load %A[%vc] : memref<16xf32>
        block.store %a, %A1[%vc] : memref<16xf32>
      }
    }
  }
  block.for %x = 0 to 14 "x" {
    // expected-error @+1 {{'block.block' op reverse-compute-at: under loop "i", block "C" would not compute its whole domain: %vi (values from 2 to 13 are never reached)}}
    block.block "C"(%vi = spatial(14, %x)) {
      %a0 = block.load %A1[%vi] : memref<16xf32>
      %a1 = block.load %A1[%vi + 1] : memref<16xf32>
      %a2 = block.load %A1[%vi + 2] : memref<16xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %C[%vi] : memref<14xf32>
    }
  }
  func.return
}

// -----

// R, under loop i before B, reads what C writes: after the move, R would see the values
// C wrote in earlier iterations instead of the old ones.
func.func @reader_before(%A: memref<8xf32>, %C: memref<8xf32>, %D: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.block' op reverse-compute-at: block "R" reads C, which block "C" writes, after loop "i" starts and before "C"; moving "C" under the loop would reorder the two}}
    block.block "R"(%vi = spatial(8, %i)) {
      %c = block.load %C[%vi] : memref<8xf32>
      block.store %c, %D[%vi] : memref<8xf32>
    }
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %x = 0 to 8 "x" {
    // expected-note @+1 {{block "C" writes C}}
    block.block "C"(%vx = spatial(8, %x)) {
      %b = block.load %B[%vx] : memref<8xf32>
      block.store %b, %C[%vx] : memref<8xf32>
    }
  }
  func.return
}

// -----

// C reads X and Y, which loop i produces in differently shaped parts (row i of X, all
// of Y): no single range of C's variables matches both.
func.func @different_shapes(%A: memref<8x4xf32>, %C: memref<8x4xf32>) {
  %X = block.alloc : memref<8x4xf32>
  %Y = block.alloc : memref<8x4xf32>
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "X"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        block.store %a, %X[%vi, %vj] : memref<8x4xf32>
      }
    }
    block.for %y0 = 0 to 8 "y0" {
      block.for %y1 = 0 to 4 "y1" {
        block.block "Y"(%vi = spatial(8, %y0), %vj = spatial(4, %y1)) {
          %a = block.load %A[%vi, %vj] : memref<8x4xf32>
          block.store %a, %Y[%vi, %vj] : memref<8x4xf32>
        }
      }
    }
  }
  block.for %x0 = 0 to 8 "x0" {
    block.for %x1 = 0 to 4 "x1" {
      // expected-error @+1 {{'block.block' op reverse-compute-at: block "C" reads buffers that the loop "i" produces in differently shaped regions; its iteration range is ambiguous}}
      block.block "C"(%vi = spatial(8, %x0), %vj = spatial(4, %x1)) {
        %x = block.load %X[%vi, %vj] : memref<8x4xf32>
        %y = block.load %Y[%vi, %vj] : memref<8x4xf32>
        %c = arith.addf %x, %y : f32
        block.store %c, %C[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  func.return
}

// -----

// C's read index vi + vj is not one variable times a stride plus a constant.
func.func @not_strided(%A: memref<11xf32>, %C: memref<8x4xf32>) {
  %B = block.alloc : memref<11xf32>
  block.for %i = 0 to 11 "i" {
    block.block "B"(%vi = spatial(11, %i)) {
      %a = block.load %A[%vi] : memref<11xf32>
      block.store %a, %B[%vi] : memref<11xf32>
    }
  }
  block.for %x0 = 0 to 8 "x0" {
    block.for %x1 = 0 to 4 "x1" {
      // expected-error @+1 {{'block.block' op reverse-compute-at: block "C" indexes dimension 0 of B with an expression that is not one iteration variable times a stride plus a constant; its iteration range cannot be inferred}}
      block.block "C"(%vi = spatial(8, %x0), %vj = spatial(4, %x1)) {
        %b = block.load %B[%vi + %vj] : memref<11xf32>
        block.store %b, %C[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  func.return
}

// -----

// Handles: no block named C; the error lists the blocks.
// expected-error @+1 {{'func.func' op reverse-compute-at: no block named "C"; blocks: B, D}}
func.func @no_such_block(%A: memref<8xf32>, %D: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %x = 0 to 8 "x" {
    block.block "D"(%vx = spatial(8, %x)) {
      %b = block.load %B[%vx] : memref<8xf32>
      block.store %b, %D[%vx] : memref<8xf32>
    }
  }
  func.return
}

// -----

// No loop named i; the error lists the loops.
// expected-error @+1 {{'func.func' op reverse-compute-at: no loop named "i"; loops: p, x}}
func.func @no_such_loop(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %p = 0 to 8 "p" {
    block.block "B"(%vi = spatial(8, %p)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %x = 0 to 8 "x" {
    block.block "C"(%vx = spatial(8, %x)) {
      %b = block.load %B[%vx] : memref<8xf32>
      block.store %b, %C[%vx] : memref<8xf32>
    }
  }
  func.return
}

// -----

// C updates its output in place (C = C * 0.5 + T): TVM's complete block reads no buffer
// it writes. Under the reduction loop it would run once per step, halving C each time.
func.func @update_in_place(%A: memref<8x4xf32>, %C: memref<8xf32>) {
  %T = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.for %k = 0 to 4 "k" {
      block.block "T"(%vi = spatial(8, %i), %vk = reduce(4, %k)) {
        block.init {
          %z = arith.constant 0.000000e+00 : f32
          block.store %z, %T[%vi] : memref<8xf32>
        }
        %t = block.load %T[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x4xf32>
        %s = arith.addf %t, %a : f32
        block.store %s, %T[%vi] : memref<8xf32>
      }
    }
  }
  block.for %j = 0 to 8 "j" {
    // expected-error @+1 {{'block.block' op reverse-compute-at: block "C" updates C in place (it reads the buffer it writes, and no init resets it); moved, it may run more than once for an instance, and each run would apply the update again}}
    block.block "C"(%vj = spatial(8, %j)) {
      %c = block.load %C[%vj] : memref<8xf32>
      %h = arith.constant 5.000000e-01 : f32
      %m = arith.mulf %c, %h : f32
      %t = block.load %T[%vj] : memref<8xf32>
      %s = arith.addf %m, %t : f32
      block.store %s, %C[%vj] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Under i, inside the producer's reduction loop k, T holds partial sums only.
func.func @partial_sums(%A: memref<8x4xf32>, %C: memref<8xf32>) {
  %T = block.alloc : memref<8xf32>
  // expected-error @+1 {{'block.for' op reverse-compute-at: loop "k" feeds reduce variable %vk of block "T", which produces T: under loop "i", block "C" would read partial results of the reduction; move it under a loop outside the reduction}}
  block.for %k = 0 to 4 "k" {
    block.for %i = 0 to 8 "i" {
      block.block "T"(%vi = spatial(8, %i), %vk = reduce(4, %k)) {
        block.init {
          %z = arith.constant 0.000000e+00 : f32
          block.store %z, %T[%vi] : memref<8xf32>
        }
        %t = block.load %T[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x4xf32>
        %s = arith.addf %t, %a : f32
        block.store %s, %T[%vi] : memref<8xf32>
      }
    }
  }
  block.for %j = 0 to 8 "j" {
    block.block "C"(%vj = spatial(8, %j)) {
      %t = block.load %T[%vj] : memref<8xf32>
      block.store %t, %C[%vj] : memref<8xf32>
    }
  }
  func.return
}

// -----

// C runs every other instance: new loops could not run the same ones.
func.func @strided_instances(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 4 "j" {
    // expected-error @+1 {{'block.block' op reverse-compute-at: the loops of block "C" run 4 of the 7 instances in the box around them; new loops could not run the same ones}}
    block.block "C"(%vj = spatial(8, %j * 2)) {
      %b = block.load %B[%vj] : memref<8xf32>
      block.store %b, %C[%vj] : memref<8xf32>
    }
  }
  func.return
}

// -----

// A nested block's predicate cuts what an iteration of i writes to T[i] (its region,
// T[i:i + 4], is what the loops of Q reach): C would read T[vc + 2] before it is written.
func.func @region_cut_by_predicate(%A: memref<18xf32>, %D: memref<16xf32>) {
  %T = block.alloc : memref<18xf32>
  block.for %i = 0 to 18 "i" {
    block.block "P"(%vp = spatial(18, %i)) {
      block.for %k = 0 to 4 "k" {
        block.block "Q"(%vq = spatial(4, %k)) where(%k < 1) {
          %a = block.load %A[%vp + %vq] : memref<18xf32>
          block.store %a, %T[%vp + %vq] : memref<18xf32>
        }
      }
    }
  }
  block.for %x = 0 to 16 "x" {
    // expected-error @+1 {{'block.block' op reverse-compute-at: block "C" reads 3 elements of T along dimension 0 at a time, but one iteration of loop "i" produces only 1; it would read elements not produced yet}}
    block.block "C"(%vc = spatial(16, %x)) {
      %t0 = block.load %T[%vc] : memref<18xf32>
      %t2 = block.load %T[%vc + 2] : memref<18xf32>
      %s = arith.addf %t0, %t2 : f32
      block.store %s, %D[%vc] : memref<16xf32>
    }
  }
  func.return
}

// -----

// Iteration i writes T[i:i + 4] = A[i]: later iterations overwrite what earlier ones wrote,
// so an instance of C run at iteration i would keep values its last run reads too early.
func.func @overwritten_later(%A: memref<18xf32>, %D: memref<16xf32>) {
  %T = block.alloc : memref<21xf32>
  // expected-error @+1 {{'block.for' op reverse-compute-at: cannot compute block "C" under loop "i": what its producers write in one iteration is not their region (iterations of the loops around write overlapping parts of T, or parts not shown apart), and running the loops shows that instance (0,) of block "C" runs last in iteration 0 of the loops around, but reads T written in iteration 2}}
  block.for %i = 0 to 18 "i" {
    block.block "P"(%vp = spatial(18, %i)) {
      block.for %k = 0 to 4 "k" {
        block.block "Q"(%vq = spatial(4, %k)) {
          %a = block.load %A[%vp] : memref<18xf32>
          block.store %a, %T[%vp + %vq] : memref<21xf32>
        }
      }
    }
  }
  block.for %x = 0 to 16 "x" {
    block.block "C"(%vc = spatial(16, %x)) {
      %t0 = block.load %T[%vc] : memref<21xf32>
      %t2 = block.load %T[%vc + 2] : memref<21xf32>
      %s = arith.addf %t0, %t2 : f32
      block.store %s, %D[%vc] : memref<16xf32>
    }
  }
  func.return
}

// -----

// Iteration i of the parallel loop writes columns i and i + 4 of T; C's instances whose
// reads lie in columns i .. i + 4 run there, some in two iterations: they would race.
func.func @parallel_producer(%S: memref<8x8xf32>, %C: memref<8x8xf32>) {
  %T = block.alloc : memref<8x8xf32>
  // expected-error @+1 {{'block.for' op reverse-compute-at: after the change, parallel loop "i" would race: block "P" writes an element of T in iteration 1 of loop "i" that block "C" reads in iteration 0; its iterations must stay independent}}
  block.for %i = 0 to 4 "i" parallel {
    block.for %f = 0 to 16 "f" {
      block.block "P"(%v0 = spatial(8, %f mod 8), %v1 = spatial(8, %f floordiv 8 * 4 + %i)) {
        %0 = block.load %S[%v0, %v1] : memref<8x8xf32>
        block.store %0, %T[%v0, %v1] : memref<8x8xf32>
      }
    }
  }
  block.for %x = 0 to 8 "x" {
    block.for %y = 0 to 8 "y" {
      block.block "C"(%w0 = spatial(8, %x), %w1 = spatial(8, %y)) {
        %1 = block.load %T[%w0, %w1] : memref<8x8xf32>
        block.store %1, %C[%w0, %w1] : memref<8x8xf32>
      }
    }
  }
  func.return
}
