// RUN: xtir-opt %s --split-input-file -p 'reorder{loops=j,i}' --verify-diagnostics
// What reorder refuses (a duplicated loop: reorder_invalid_duplicate.mlir). The loops
// must lie on one chain of perfectly nested loops (TVM: "The loops are not in a chain").

// Loops of two sibling nests (TVM: "not under the same scope").
func.func @sibling_nests(%A: memref<8xf32>, %B: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "P"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  // expected-error @+1 {{'block.for' op reorder: the loops j, i are not in a chain: they are not nested in one another (TVM: The loops are not in a chain because they are not under the same scope)}}
  block.for %j = 0 to 8 "j" {
    block.block "Q"(%vj = spatial(8, %j)) {
      %b = block.load %B[%vj] : memref<8xf32>
      block.store %b, %A[%vj] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Sibling nests under one loop: TVM calls the loop that holds both a non-single branch.
func.func @siblings_under_a_loop(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
  // expected-error @+1 {{'block.for' op reorder: the loops j, i are not in a chain: they are not nested in one another, but side by side under loop "o" (TVM: The loops are not in a chain because there is a non-single-branch stmt in between)}}
  block.for %o = 0 to 8 "o" {
    // expected-note @+1 {{loop "i" is here}}
    block.for %i = 0 to 8 "i" {
      block.block "P"(%vo = spatial(8, %o), %vi = spatial(8, %i)) {
        %a = block.load %A[%vo, %vi] : memref<8x8xf32>
        block.store %a, %B[%vo, %vi] : memref<8x8xf32>
      }
    }
    // expected-note @+1 {{loop "j" is here}}
    block.for %j = 0 to 8 "j" {
      block.block "Q"(%vo = spatial(8, %o), %vj = spatial(8, %j)) {
        %b = block.load %B[%vo, %vj] : memref<8x8xf32>
        block.store %b, %A[%vo, %vj] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// A block between the loops: j is in the scope of block "outer", i outside it.
func.func @block_between(%A: memref<8x8xf32>) {
  // expected-error @+1 {{'block.for' op reorder: the loops are not in a chain: loop "i" holds block "outer", not a single loop, before reaching "j"}}
  block.for %i = 0 to 8 "i" {
    block.block "outer"(%vi = spatial(8, %i)) {
      // expected-note @+1 {{loop "j" is here}}
      block.for %j = 0 to 8 "j" {
        block.block "inner"(%vj = spatial(8, %j)) {
          %a = block.load %A[%vi, %vj] : memref<8x8xf32>
          block.store %a, %A[%vi, %vj] : memref<8x8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// Another statement between: loop i holds the j nest and a sibling loop k (TVM: "there
// is a non-single-branch stmt in between").
func.func @statement_between(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
  // expected-error @+1 {{'block.for' op reorder: the loops are not in a chain: loop "i" holds 2 statements, not a single loop, before reaching "j"}}
  block.for %i = 0 to 8 "i" {
    // expected-note @+1 {{loop "j" is here}}
    block.for %j = 0 to 8 "j" {
      block.block "P"(%vi = spatial(8, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x8xf32>
        block.store %a, %B[%vi, %vj] : memref<8x8xf32>
      }
    }
    block.for %k = 0 to 8 "k" {
      block.block "Q"(%vi = spatial(8, %i), %vk = spatial(8, %k)) {
        %b = block.load %B[%vi, %vk] : memref<8x8xf32>
        block.store %b, %A[%vi, %vk] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// An unknown loop name lists the loops there are.
// expected-error @+1 {{'func.func' op reorder: no loop named "j"; loops: i, k}}
func.func @unknown_loop(%A: memref<8x8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %k = 0 to 8 "k" {
      block.block "P"(%vi = spatial(8, %i), %vk = spatial(8, %k)) {
        %a = block.load %A[%vi, %vk] : memref<8x8xf32>
        block.store %a, %A[%vi, %vk] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// Two loops named "j" (as after blockize, which copies the inner loops into the init).
// expected-error @+1 {{'func.func' op reorder: loop name "j" is ambiguous: 2 loops have it; name one by a block it encloses: P/j, Q/j}}
func.func @ambiguous_loop(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 8 "j" {
      block.block "P"(%vi = spatial(8, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x8xf32>
        block.store %a, %B[%vi, %vj] : memref<8x8xf32>
      }
    }
    block.for %j2 = 0 to 8 "j" {
      block.block "Q"(%vi = spatial(8, %i), %vj = spatial(8, %j2)) {
        %b = block.load %B[%vi, %vj] : memref<8x8xf32>
        block.store %b, %A[%vi, %vj] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// j and k fused and split (i = j_k_fused_0, j = j_k_fused_1): both loops feed spatial vj and
// reduce vk. The init runs at vk == 0, the first step of each (vr, vj) only in this order.
func.func @fused_spatial_and_reduce(%A: memref<6x6xf32>, %B: memref<6x6xf32>, %C: memref<6x6xf32>) {
  block.for %r = 0 to 6 "r" {
    // expected-error @+1 {{'block.for' op reorder: loop "i" feeds both spatial variable %vj and reduce variable %vk of block "matmul", which has an init; moving it would run reduction steps of an output before the init that starts it}}
    block.for %i = 0 to 9 "i" {
      block.for %j = 0 to 4 "j" {
        block.block "matmul"(%vr = spatial(6, %r), %vj = spatial(6, (%i * 4 + %j) floordiv 6), %vk = reduce(6, (%i * 4 + %j) mod 6)) {
          // expected-note @+1 {{the init of block "matmul"}}
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vr, %vj] : memref<6x6xf32>
          }
          %c = block.load %C[%vr, %vj] : memref<6x6xf32>
          %a = block.load %A[%vr, %vk] : memref<6x6xf32>
          %b = block.load %B[%vj, %vk] : memref<6x6xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vr, %vj] : memref<6x6xf32>
        }
      }
    }
  }
  func.return
}

// -----

// A rotated reduce binding over k = i * 3 + j: the init runs at k = 3, wiping the steps
// before it. Swapped, the steps come in the order 0, 3, 1, 4, 2, 5: it would wipe others.
func.func @rotated_init(%A: memref<4x6xf32>, %C: memref<4xf32>) {
  block.for %x = 0 to 4 "x" {
    // expected-error @+1 {{'block.for' op reorder: the reorder changes the order of the reduction steps of block "S", whose init runs when every reduce variable is 0, which before the reorder is not the first step of each instance (the first has %vk = 3); the steps it wipes would change}}
    block.for %i = 0 to 2 "i" {
      block.for %j = 0 to 3 "j" {
        block.block "S"(%vx = spatial(4, %x), %vk = reduce(6, (%i * 3 + %j + 3) mod 6)) {
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

// -----

// j binds nothing of S and runs inside its reduction loop i: the init runs again in each
// iteration of j at vk = 0. Moved outside i, j would repeat whole reductions instead.
func.func @init_again(%A: memref<4x6xf32>, %C: memref<4xf32>) {
  block.for %x = 0 to 4 "x" {
    // expected-error @+1 {{'block.for' op reorder: the reorder changes the order of the reduction steps of block "S", whose init runs when every reduce variable is 0, which before the reorder is not the first step of each instance (every reduce variable is 0 again at a later step of an instance, which runs the init again); the steps it wipes would change}}
    block.for %i = 0 to 6 "i" {
      block.for %j = 0 to 2 "j" {
        block.block "S"(%vx = spatial(4, %x), %vk = reduce(6, %i)) {
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

// -----

// j runs in parallel: each of its iterations writes U[i + j] for its own i values. Moved
// outside i, iterations of j would write elements other iterations write.
func.func @parallel_moved_out(%A: memref<8x8xf32>, %U: memref<15xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.for' op reorder: after the change, parallel loop "j" would race: block "W" writes an element of U in iteration 0 of loop "j" that block "W" writes in iteration 1; its iterations must stay independent}}
    block.for %j = 0 to 8 "j" parallel {
      block.block "W"(%vi = spatial(8, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x8xf32>
        block.store %a, %U[%vi + %vj] : memref<15xf32>
      }
    }
  }
  func.return
}
