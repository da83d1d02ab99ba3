// RUN: xtir-opt %s --split-input-file -p lower-blocks,lower-to-gpu --verify-diagnostics
// A loop bound to a thread axis inside a loop bound to it (IR bound by hand): on the GPU it runs
// once, as the outer loop's threads, where the nest run serially runs it for every outer iteration
// (lowering/rebound_threads.py; before: built, wrong numbers).

// B[t] = S[15 - t] before the fetch t2 stores S: serially thread 1 reads what thread 0's fetch stored,
// on the GPU the value from before.
func.func @read_before_fetch_min(%A: memref<16xf32>, %I: memref<16xf32>, %B: memref<16xf32>) {
  %S = block.alloc : memref<16xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %i = 0 to 16 "i" bind("threadIdx.x") {
      block.block "I"(%v = spatial(16, %i)) {
        %a = block.load %I[%v] : memref<16xf32>
        block.store %a, %S[%v] : memref<16xf32, "shared">
      }
    }
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      block.block "B"(%v = spatial(16, %t)) {
        // expected-note @+1 {{the load is here}}
        %s = block.load %S[15 - %v] : memref<16xf32, "shared">
        block.store %s, %B[%v] : memref<16xf32>
      }
      // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "t2" is bound to threadIdx.x inside loop "t", bound to threadIdx.x too; on the GPU it runs once, its iterations the threads of "t", where the loop nest runs it for every iteration of "t", so it must give the same result however many times and in whichever outer iteration it runs (a cooperative fetch), but the body of the outer loop reads buffer S before it, which it stores into: serially a later outer iteration reads what an earlier one's inner loop stored, on the GPU none ran yet}}
      block.for %t2 = 0 to 16 "t2" bind("threadIdx.x") {
        block.block "S"(%v = spatial(16, %t2)) {
          %a = block.load %A[%v] : memref<16xf32>
          block.store %a, %S[%v] : memref<16xf32, "shared">
        }
      }
    }
  }
  func.return
}

// -----

// The same inside a serial loop o around the read and the fetch.
func.func @read_before_fetch(%A: memref<4x16xf32>, %I: memref<16xf32>, %B: memref<4x16xf32>) {
  %S = block.alloc : memref<16xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %i = 0 to 16 "i" bind("threadIdx.x") {
      block.block "I"(%v = spatial(16, %i)) {
        %a = block.load %I[%v] : memref<16xf32>
        block.store %a, %S[%v] : memref<16xf32, "shared">
      }
    }
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      block.for %o = 0 to 4 "o" {
        block.block "B"(%vo = spatial(4, %o), %v = spatial(16, %t)) {
          // expected-note @+1 {{the load is here}}
          %s = block.load %S[15 - %v] : memref<16xf32, "shared">
          block.store %s, %B[%vo, %v] : memref<4x16xf32>
        }
        // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "t2" is bound to threadIdx.x inside loop "t", bound to threadIdx.x too; on the GPU it runs once, its iterations the threads of "t", where the loop nest runs it for every iteration of "t", so it must give the same result however many times and in whichever outer iteration it runs (a cooperative fetch), but the body of the outer loop reads buffer S before it, which it stores into: serially a later outer iteration reads what an earlier one's inner loop stored, on the GPU none ran yet}}
        block.for %t2 = 0 to 16 "t2" bind("threadIdx.x") {
          block.block "S"(%vo = spatial(4, %o), %v = spatial(16, %t2)) {
            %a = block.load %A[%vo, %v] : memref<4x16xf32>
            block.store %a, %S[%v] : memref<16xf32, "shared">
          }
        }
      }
    }
  }
  func.return
}

// -----

// The fetch's stored value uses the outer index t (C[t]).
func.func @fetch_value_outer_t(%A: memref<16xf32>, %C: memref<16xf32>, %B: memref<16xf32>) {
  %S = block.alloc : memref<16xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "t2" is bound to threadIdx.x inside loop "t", bound to threadIdx.x too; on the GPU it runs once, its iterations the threads of "t", where the loop nest runs it for every iteration of "t", so it must give the same result however many times and in whichever outer iteration it runs (a cooperative fetch), but its body depends on the index of the outer loop (in an index, a stored value or a guard): each outer iteration would run a different loop}}
      block.for %t2 = 0 to 16 "t2" bind("threadIdx.x") {
        block.block "S"(%v = spatial(16, %t2), %w = spatial(16, %t)) {
          %a = block.load %A[%v] : memref<16xf32>
          // expected-note @+1 {{the index of "t" is used here}}
          %c = block.load %C[%w] : memref<16xf32>
          %s = arith.addf %a, %c : f32
          block.store %s, %S[%v] : memref<16xf32, "shared">
        }
      }
      block.block "B"(%v = spatial(16, %t)) {
        %s = block.load %S[15 - %v] : memref<16xf32, "shared">
        block.store %s, %B[%v] : memref<16xf32>
      }
    }
  }
  func.return
}

// -----

// The fetch is guarded by where(t2 - t < 1): each outer iteration fetches a different part.
func.func @fetch_guard_outer_t(%A: memref<16xf32>, %I: memref<16xf32>, %B: memref<16xf32>) {
  %S = block.alloc : memref<16xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %i = 0 to 16 "i" bind("threadIdx.x") {
      block.block "I"(%v = spatial(16, %i)) {
        %a = block.load %I[%v] : memref<16xf32>
        block.store %a, %S[%v] : memref<16xf32, "shared">
      }
    }
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "t2" is bound to threadIdx.x inside loop "t", bound to threadIdx.x too; on the GPU it runs once, its iterations the threads of "t", where the loop nest runs it for every iteration of "t", so it must give the same result however many times and in whichever outer iteration it runs (a cooperative fetch), but its body depends on the index of the outer loop (in an index, a stored value or a guard): each outer iteration would run a different loop}}
      block.for %t2 = 0 to 16 "t2" bind("threadIdx.x") {
        block.block "S"(%v = spatial(16, %t2), %w = spatial(16, %t)) where(%t2 - %t < 1) {
          %a = block.load %A[%v] : memref<16xf32>
          // expected-note @+1 {{the index of "t" is used here}}
          block.store %a, %S[%v] : memref<16xf32, "shared">
        }
      }
      block.block "B"(%v = spatial(16, %t)) {
        %s = block.load %S[15 - %v] : memref<16xf32, "shared">
        block.store %s, %B[%v] : memref<16xf32>
      }
    }
  }
  func.return
}

// -----

// X[t3] += A[t3] under t: serially X += 16 A, on the GPU X += A.
func.func @rebind_accumulate_shared(%A: memref<16xf32>, %I: memref<16xf32>, %H: memref<16xf32>) {
  %X = block.alloc : memref<16xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %i = 0 to 16 "i" bind("threadIdx.x") {
      block.block "I"(%v = spatial(16, %i)) {
        %a = block.load %I[%v] : memref<16xf32>
        block.store %a, %X[%v] : memref<16xf32, "shared">
      }
    }
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "t3" is bound to threadIdx.x inside loop "t", bound to threadIdx.x too; on the GPU it runs once, its iterations the threads of "t", where the loop nest runs it for every iteration of "t", so it must give the same result however many times and in whichever outer iteration it runs (a cooperative fetch), but it stores into buffer X and reads it too: run for every iteration of the outer loop it computes other values than run once}}
      block.for %t3 = 0 to 16 "t3" bind("threadIdx.x") {
        block.block "U"(%v = spatial(16, %t3)) {
          // expected-note @+1 {{the load is here}}
          %x = block.load %X[%v] : memref<16xf32, "shared">
          %a = block.load %A[%v] : memref<16xf32>
          %s = arith.addf %x, %a : f32
          block.store %s, %X[%v] : memref<16xf32, "shared">
        }
      }
    }
    block.for %o = 0 to 16 "o" bind("threadIdx.x") {
      block.block "O"(%v = spatial(16, %o)) {
        %x = block.load %X[%v] : memref<16xf32, "shared">
        block.store %x, %H[%v] : memref<16xf32>
      }
    }
  }
  func.return
}

// -----

// The same into a global buffer.
func.func @rebind_accumulate_global(%A: memref<16xf32>, %G: memref<16xf32>) {
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "t3" is bound to threadIdx.x inside loop "t", bound to threadIdx.x too; on the GPU it runs once, its iterations the threads of "t", where the loop nest runs it for every iteration of "t", so it must give the same result however many times and in whichever outer iteration it runs (a cooperative fetch), but it stores into buffer G and reads it too: run for every iteration of the outer loop it computes other values than run once}}
      block.for %t3 = 0 to 16 "t3" bind("threadIdx.x") {
        block.block "U"(%v = spatial(16, %t3)) {
          // expected-note @+1 {{the load is here}}
          %x = block.load %G[%v] : memref<16xf32>
          %a = block.load %A[%v] : memref<16xf32>
          %s = arith.addf %x, %a : f32
          block.store %s, %G[%v] : memref<16xf32>
        }
      }
    }
  }
  func.return
}

// -----

// H[t, t2] = A[t2]: the GPU writes only the diagonal.
func.func @nested_rebind_global(%A: memref<16xf32>, %H: memref<16x16xf32>) {
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "t2" is bound to threadIdx.x inside loop "t", bound to threadIdx.x too; on the GPU it runs once, its iterations the threads of "t", where the loop nest runs it for every iteration of "t", so it must give the same result however many times and in whichever outer iteration it runs (a cooperative fetch), but its body depends on the index of the outer loop (in an index, a stored value or a guard): each outer iteration would run a different loop}}
      block.for %t2 = 0 to 16 "t2" bind("threadIdx.x") {
        block.block "S"(%v = spatial(16, %t), %w = spatial(16, %t2)) {
          %a = block.load %A[%w] : memref<16xf32>
          // expected-note @+1 {{the index of "t" is used here}}
          block.store %a, %H[%v, %w] : memref<16x16xf32>
        }
      }
    }
  }
  func.return
}

// -----

// Under `t < 8` the GPU runs t2 for threads 0 to 7 only (G[0..7]), the nest for every t2 (all of G).
func.func @guard_around_rebound(%A: memref<16xf32>, %G: memref<16xf32>) {
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      %c8 = arith.constant 8 : index
      %in = arith.cmpi slt, %t, %c8 : index
      // expected-note @+1 {{the condition on "t" is here}}
      scf.if %in {
        // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "t2" is bound to threadIdx.x inside loop "t", bound to threadIdx.x too; on the GPU it runs once, its iterations the threads of "t", where the loop nest runs it for every iteration of "t", so it must give the same result however many times and in whichever outer iteration it runs (a cooperative fetch), but it runs under a condition on the index of the outer loop: the GPU runs it for the threads that meet it, the loop nest for every iteration of the outer loop that does}}
        block.for %t2 = 0 to 16 "t2" bind("threadIdx.x") {
          block.block "S"(%v = spatial(16, %t2)) {
            %a = block.load %A[%v] : memref<16xf32>
            block.store %a, %G[%v] : memref<16xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

// The outer body stores G after the fetch reads it: serially t = 1's fetch reads what t = 0 stored.
func.func @store_after_fetch_reads(%A: memref<16xf32>, %G: memref<16xf32>, %B: memref<16xf32>) {
  %S = block.alloc : memref<16xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "t2" is bound to threadIdx.x inside loop "t", bound to threadIdx.x too; on the GPU it runs once, its iterations the threads of "t", where the loop nest runs it for every iteration of "t", so it must give the same result however many times and in whichever outer iteration it runs (a cooperative fetch), but the body of the outer loop stores into buffer G, which it touches: serially the outer loop's iterations see each other's stores there, on the GPU the inner loop runs once}}
      block.for %t2 = 0 to 16 "t2" bind("threadIdx.x") {
        block.block "S"(%v = spatial(16, %t2)) {
          %g = block.load %G[%v] : memref<16xf32>
          block.store %g, %S[%v] : memref<16xf32, "shared">
        }
      }
      block.block "B"(%v = spatial(16, %t)) {
        %s = block.load %S[15 - %v] : memref<16xf32, "shared">
        %a = block.load %A[%v] : memref<16xf32>
        block.store %s, %B[%v] : memref<16xf32>
        // expected-note @+1 {{the store is here}}
        block.store %a, %G[%v] : memref<16xf32>
      }
    }
  }
  func.return
}
