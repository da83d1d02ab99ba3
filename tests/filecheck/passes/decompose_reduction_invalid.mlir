// RUN: xtir-opt %s --split-input-file -p 'decompose-reduction{block=matmul loop=k}' --verify-diagnostics
// What decompose-reduction refuses.

// A block without init has nothing to decompose.
func.func @no_init(%A: memref<4x16xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 16 "k" {
      // expected-error @+1 {{'block.block' op decompose-reduction: block "matmul" has no init to decompose}}
      block.block "matmul"(%vi = spatial(4, %i), %vk = reduce(16, %k)) {
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x16xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}

// -----

// The loop must enclose the block: here k is in a sibling nest.
func.func @loop_not_enclosing(%A: memref<4x16xf32>, %C: memref<4xf32>, %D: memref<16xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %r = 0 to 16 "r" {
      // expected-note @+1 {{block "matmul" is here}}
      block.block "matmul"(%vi = spatial(4, %i), %vr = reduce(16, %r)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<4xf32>
        }
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vr] : memref<4x16xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  // expected-error @+1 {{'block.for' op decompose-reduction: loop "k" does not enclose block "matmul" within the block's scope}}
  block.for %k = 0 to 16 "k" {
    block.block "copy"(%vk = spatial(16, %k)) {
      %d = block.load %D[%vk] : memref<16xf32>
      block.store %d, %D[%vk] : memref<16xf32>
    }
  }
  func.return
}

// -----

// A loop above k feeds the reduce variable (%vk = ko * 4 + k): the init, placed before k,
// would run again on every ko iteration.
func.func @below_reduction_loop(%A: memref<4x16xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.for' op decompose-reduction: loop "ko" is above "k" but feeds reduce variable %vk of block "matmul"; decompose the reduction at a loop above all reduction loops}}
    block.for %ko = 0 to 4 "ko" {
      block.for %k = 0 to 4 "k" {
        // expected-note @+1 {{block "matmul" binds %vk to ko * 4 + k}}
        block.block "matmul"(%vi = spatial(4, %i), %vk = reduce(16, %ko * 4 + %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi] : memref<4xf32>
          }
          %c = block.load %C[%vi] : memref<4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x16xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %C[%vi] : memref<4xf32>
        }
      }
    }
  }
  func.return
}

// -----

// An unknown block name lists the blocks there are.
// expected-error @+1 {{'func.func' op decompose-reduction: no block named "matmul"; blocks: sum}}
func.func @unknown_block(%A: memref<4x16xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 16 "k" {
      block.block "sum"(%vi = spatial(4, %i), %vk = reduce(16, %k)) {
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x16xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}

// -----

// An unknown loop name lists the loops there are.
// expected-error @+1 {{'func.func' op decompose-reduction: no loop named "k"; loops: i, r}}
func.func @unknown_loop(%A: memref<4x16xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %r = 0 to 16 "r" {
      block.block "matmul"(%vi = spatial(4, %i), %vr = reduce(16, %r)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<4xf32>
        }
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vr] : memref<4x16xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}

// -----

// Two blocks named "matmul": a verifier error (block names are unique in a function).
func.func @ambiguous_block(%A: memref<4xf32>, %B: memref<4xf32>) {
  block.for %k = 0 to 4 "k" {
    // expected-note @+1 {{the first one is here}}
    block.block "matmul"(%vk = spatial(4, %k)) {
      %a = block.load %A[%vk] : memref<4xf32>
      block.store %a, %B[%vk] : memref<4xf32>
    }
  }
  block.for %j = 0 to 4 "j" {
    // expected-error @+1 {{'block.block' op two blocks named "matmul" in function @ambiguous_block; block names must be unique in a function (schedules address blocks by name)}}
    block.block "matmul"(%vj = spatial(4, %j)) {
      %b = block.load %B[%vj] : memref<4xf32>
      block.store %b, %A[%vj] : memref<4xf32>
    }
  }
  func.return
}

// -----

// After compute-at: loop r binds none of matmul's variables, so the whole sum is recomputed in
// each of its iterations (right while the init runs each time; once split off, it would run
// once and C[vi] be 3 times the sum).
func.func @recompute_loop(%A: memref<4x16xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "matmul" at loop "k": loop "r" binds no variable of block "matmul", so each of its 3 iterations runs the same instances again, and its init would run only once; decompose at a loop below them}}
    block.for %k = 0 to 1 "k" {
      block.for %r = 0 to 3 "r" {
        block.for %kk = 0 to 16 "kk" {
          block.block "matmul"(%vi = spatial(4, %i), %vk = reduce(16, %kk)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi] : memref<4xf32>
            }
            %c = block.load %C[%vi] : memref<4xf32>
            %a = block.load %A[%vi, %vk] : memref<4x16xf32>
            %sum = arith.addf %c, %a : f32
            block.store %sum, %C[%vi] : memref<4xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

// Overlapping windows: vk = r + kk takes each value up to 3 times as r and kk run.
func.func @overlapping_windows(%A: memref<4x16xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "matmul" at loop "k": the loops "r", "kk" run some instance of block "matmul" more than once, and its init would run only once; decompose at a loop below them}}
    block.for %k = 0 to 1 "k" {
      block.for %r = 0 to 3 "r" {
        block.for %kk = 0 to 14 "kk" {
          block.block "matmul"(%vi = spatial(4, %i), %vk = reduce(16, %r + %kk)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi] : memref<4xf32>
            }
            %c = block.load %C[%vi] : memref<4xf32>
            %a = block.load %A[%vi, %vk] : memref<4x16xf32>
            %sum = arith.addf %c, %a : f32
            block.store %sum, %C[%vi] : memref<4xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

// Found in review: (o + k) floordiv 2 and (k + 1) floordiv 2 take each pair once for even o,
// but for o = 1 the iterations k = 1 and k = 2 both run instance (1, 1). The proof runs o's
// values too, as it is mixed with k under a floordiv.
func.func @parity_of_an_outer_loop(%A: memref<2x2xf32>, %B: memref<2x2xf32>, %C: memref<2x2xf32>) {
  block.for %o = 0 to 2 "o" {
    // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "matmul" at loop "k": loop "k" runs some instance of block "matmul" more than once, and its init would run only once; decompose at a loop below them}}
    block.for %k = 0 to 3 "k" {
      block.for %r = 0 to 2 "r" {
        block.block "matmul"(%vi = spatial(2, (%o + %k) floordiv 2), %vj = spatial(2, (%k + 1) floordiv 2), %vk = reduce(2, %r)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<2x2xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<2x2xf32>
          %a = block.load %A[%vi, %vk] : memref<2x2xf32>
          %b = block.load %B[%vj, %vk] : memref<2x2xf32>
          %ab = arith.mulf %a, %b : f32
          %s = arith.addf %c, %ab : f32
          block.store %s, %C[%vi, %vj] : memref<2x2xf32>
        }
      }
    }
  }
  func.return
}

// -----

// A backward binding: the init runs when %vk is 0, at the last iteration of k; the
// first three updates add to C's old value and the init then resets it. Hoisted before
// k, it would run ahead of them.
func.func @backward(%A: memref<4x4xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "matmul" at loop "k": its init runs when every reduce variable is 0, which is not the first iteration of each instance (the first has %vk = 3); hoisted before the loop, it would run ahead of updates it follows}}
    block.for %k = 0 to 4 "k" {
      block.block "matmul"(%vi = spatial(4, %i), %vk = reduce(4, 3 - %k)) {
        // expected-note @+1 {{the init of block "matmul"}}
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<4xf32>
        }
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x4xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}

// -----

// A rotated binding reaches 0 in the middle of k.
func.func @rotated(%A: memref<4x4xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "matmul" at loop "k": its init runs when every reduce variable is 0, which is not the first iteration of each instance (the first has %vk = 1); hoisted before the loop, it would run ahead of updates it follows}}
    block.for %k = 0 to 4 "k" {
      block.block "matmul"(%vi = spatial(4, %i), %vk = reduce(4, (%k + 1) mod 4)) {
        // expected-note @+1 {{the init of block "matmul"}}
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<4xf32>
        }
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x4xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}

// -----

// One loop feeds both variables (fused, %vi = k floordiv 4): each instance starts at
// %vk = 3, found by running the loop.
func.func @fused_backward(%A: memref<4x4xf32>, %C: memref<4xf32>) {
  // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "matmul" at loop "k": its init runs when every reduce variable is 0, which is not the first iteration of each instance (the first has %vk = 3); hoisted before the loop, it would run ahead of updates it follows}}
  block.for %k = 0 to 16 "k" {
    block.block "matmul"(%vi = spatial(4, %k floordiv 4), %vk = reduce(4, 3 - %k mod 4)) {
      // expected-note @+1 {{the init of block "matmul"}}
      block.init {
        %zero = arith.constant 0.000000e+00 : f32
        block.store %zero, %C[%vi] : memref<4xf32>
      }
      %c = block.load %C[%vi] : memref<4xf32>
      %a = block.load %A[%vi, %vk] : memref<4x4xf32>
      %s = arith.addf %c, %a : f32
      block.store %s, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

// The init reads the bias through a cache copied under k (fuse-reduction-epilogue, then
// cache-read and compute-at of the bias): hoisted before k, it would read the cache
// before the copy.
func.func @init_input_under_loop(%A: memref<4x4xf32>, %Bias: memref<4xf32>, %C: memref<4xf32>) {
  %Bias_local = block.alloc : memref<4xf32, "local">
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "matmul" at loop "k": its init reads Bias_local, which block "Bias_local" writes under the loop; hoisted before the loop, the init would read it before it is written}}
    block.for %k = 0 to 4 "k" {
      block.block "Bias_local"(%v0 = spatial(4, %i)) {
        %b = block.load %Bias[%v0] : memref<4xf32>
        // expected-note @+1 {{block "Bias_local" writes Bias_local}}
        block.store %b, %Bias_local[%v0] : memref<4xf32, "local">
      }
      block.block "matmul"(%vi = spatial(4, %i), %vk = reduce(4, %k)) {
        block.init {
          %b = block.load %Bias_local[%vi] : memref<4xf32, "local">
          block.store %b, %C[%vi] : memref<4xf32>
        }
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x4xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}

// -----

// Odd rows run no step (`%i mod 2 + %k mod 2 < 1` never holds there) and keep C's old value;
// even rows start at k = 0, so the init runs first. The init block cannot tell the rows apart
// without k (TVM drops the conjunct and would zero the odd rows).
func.func @predicate_not_a_tail(%A: memref<4x4xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "matmul" at loop "k": its predicate i mod 2 + k mod 2 < 1 tests "k", which the init block leaves, but not as a tail that the first step of each instance meets (a bound with positive strides on them); the init block cannot tell which instances the reduction runs}}
    block.for %k = 0 to 4 "k" {
      // expected-note @+1 {{block "matmul" is here}}
      block.block "matmul"(%vi = spatial(4, %i), %vk = reduce(4, %k)) where(%i mod 2 + %k mod 2 < 1) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<4xf32>
        }
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x4xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}

// -----

// `%k < 0` is a tail bound, but one that no step meets: the block never runs, and decomposing
// it would leave an init that zeroes C for nothing; the refusal says so.
func.func @predicate_never_met(%A: memref<4x4xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    // expected-error @+1 {{'block.for' op decompose-reduction: cannot decompose block "matmul" at loop "k": its predicate k < 0 tests "k", which the init block leaves, which no step of the reduction meets: the block never runs}}
    block.for %k = 0 to 4 "k" {
      // expected-note @+1 {{block "matmul" is here}}
      block.block "matmul"(%vi = spatial(4, %i), %vk = reduce(4, %k)) where(%k < 0) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<4xf32>
        }
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x4xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}
