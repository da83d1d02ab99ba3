// RUN: xtir-opt %s --split-input-file -p lower-blocks,lower-to-gpu --verify-diagnostics
// Races between threads through global memory in IR already bound (by hand, or changed after bind
// checked it): two threads, blocks or virtual threads touch one element, one writing it, at two
// iterations of the serial loops inside them (lowering/thread_races.py).

// Virtual threads write P[b, t, k + v] and read it back at another k: virtual thread 1 writes at
// k = 0 the element that virtual thread 0 writes and reads at k = 1 (run in turn after
// inject-virtual-threads, the last value of P and what Q reads would change).
func.func @vthread_shifted(%A: memref<4x4x4xf32>, %P: memref<4x4x5xf32>, %Q: memref<4x4x4x2xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.for %k = 0 to 4 "k" {
          block.block "P"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(4, %k)) {
            %a = block.load %A[%vb, %vt, %vk] : memref<4x4x4xf32>
            // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into P writes an element of P that the load of P reads in another thread, loop "v" (vthread.x) at 0 and at 1 (the other thread axes alike); the threads of a launch run at once, in no order (a race); a loop bound to a thread must keep independent iterations: keep the loop that passes data through the buffer serial, or let each thread touch its own elements}}
            block.store %a, %P[%vb, %vt, %vk + %vu] : memref<4x4x5xf32>
          }
          block.block "Q"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(4, %k)) {
            // expected-note @+1 {{the load of P reads it here}}
            %p = block.load %P[%vb, %vt, %vk + %vu] : memref<4x4x5xf32>
            block.store %p, %Q[%vb, %vt, %vk, %vu] : memref<4x4x4x2xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

// Each thread writes B[t + k] for every k: threads t and t + 1 write one element at k and k - 1.
func.func @threads_write_window(%A: memref<8xf32>, %B: memref<11xf32>) {
  block.for %t = 0 to 8 "t" bind("threadIdx.x") {
    block.for %k = 0 to 4 "k" {
      block.block "B"(%vt = spatial(8, %t), %vk = spatial(4, %k)) {
        %a = block.load %A[%vt] : memref<8xf32>
        // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into B writes one element of B in two threads, loop "t" (threadIdx.x) at 0 and at 1; the threads of a launch}}
        block.store %a, %B[%vt + %vk] : memref<11xf32>
      }
    }
  }
  func.return
}

// -----

// A shift in place across blocks and threads: thread (b, t) reads the element thread (b, t + 1)
// (or the next block's thread 0) writes.
func.func @shift_in_place(%A: memref<33xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %t = 0 to 8 "t" bind("threadIdx.x") {
      block.block "S"(%v = spatial(32, %b * 8 + %t)) {
        // expected-note @+1 {{the load of A reads it here}}
        %next = block.load %A[%v + 1] : memref<33xf32>
        // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into A writes an element of A that the load of A reads in another thread, loop "t" (threadIdx.x) at 1 and at 0 (the other thread axes alike); the threads of a launch}}
        block.store %next, %A[%v] : memref<33xf32>
      }
    }
  }
  func.return
}

// -----

// A gather from a buffer the kernel writes: which element a thread reads is data.
func.func @gather_from_written(%I: memref<8xindex>, %B: memref<8xf32>) {
  block.for %t = 0 to 8 "t" bind("threadIdx.x") {
    block.block "G"(%v = spatial(8, %t)) {
      %i = block.load %I[%v] : memref<8xindex>
      // expected-note @+1 {{the load of B reads it here}}
      %x = memref.load %B[%i] : memref<8xf32>
      // expected-error @+1 {{'memref.store' op lower-to-gpu: which elements the load of B touches cannot be told (an index that is not affine in loop variables of constant range), so different threads (threadIdx.x) may touch one element through the store into B and the load of B; the threads of a launch}}
      block.store %x, %B[%v] : memref<8xf32>
    }
  }
  func.return
}

// -----

// P stores A[t, k] without the virtual thread (run once per thread), Q loads A[t, k + v]: in turn,
// virtual thread 1 reads at k what P stored at k + 1; inject-virtual-threads runs P and both of Q's
// virtual threads at each k, so virtual thread 1 would read A[t, k + 1] before P stores it.
func.func @idle_store_read_ahead(%X: memref<4x5xf32>, %A: memref<4x5xf32>, %Q: memref<4x4x2xf32>) {
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.for %k = 0 to 4 "k" {
          block.block "P"(%vt = spatial(4, %t), %vk = spatial(4, %k)) {
            %x = block.load %X[%vt, %vk] : memref<4x5xf32>
            %a = block.load %A[%vt, %vk] : memref<4x5xf32>
            %s = arith.addf %x, %x : f32
            // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into A writes an element of A that the load of A reads in another thread, loop "v" (vthread.x) at}}
            block.store %s, %A[%vt, %vk] : memref<4x5xf32>
          }
          block.block "Q"(%vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(4, %k)) {
            // expected-note @+1 {{the load of A reads it here}}
            %p = block.load %A[%vt, %vk + %vu] : memref<4x5xf32>
            block.store %p, %Q[%vt, %vk, %vu] : memref<4x4x2xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

// P stores A[t, k] without the virtual thread, Q stores A[t, 2k + v]: in turn, virtual thread 1's
// P stores A[t, 0] after virtual thread 0's Q and its value stays; inject-virtual-threads runs P
// once at each k, before both virtual threads' Q, and Q's value stays.
func.func @idle_store_overwritten(%X: memref<4x8xf32>, %A: memref<4x8xf32>) {
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.for %k = 0 to 4 "k" {
          block.block "P"(%vt = spatial(4, %t), %vk = spatial(4, %k)) {
            %x = block.load %X[%vt, %vk] : memref<4x8xf32>
            // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into A writes an element of A that the store into A writes in another thread, loop "v" (vthread.x) at}}
            block.store %x, %A[%vt, %vk] : memref<4x8xf32>
          }
          block.block "Q"(%vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(4, %k)) {
            %x = block.load %X[%vt, %vk] : memref<4x8xf32>
            %s = arith.addf %x, %x : f32
            // expected-note @+1 {{the store into A writes it here}}
            block.store %s, %A[%vt, %vk * 2 + %vu] : memref<4x8xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

// Each thread writes 16 rows from row ty * 8: threads ty and ty + 1 share 8 rows. Too many points
// to enumerate, and no order of the thread digits shows the threads apart (ty's rest spans 16 > 8).
func.func @overlapping_tiles_of_a_large_output(%C: memref<8192x4096xf32>) {
  block.for %bx = 0 to 64 "bx" bind("blockIdx.y") {
    block.for %by = 0 to 64 "by" bind("blockIdx.x") {
      block.for %ty = 0 to 8 "ty" bind("threadIdx.y") {
        block.for %tx = 0 to 8 "tx" bind("threadIdx.x") {
          block.for %a = 0 to 16 "a" {
            block.for %b = 0 to 8 "b" {
              block.block "C"(%vi = spatial(8192, %bx * 128 + %ty * 8 + %a), %vj = spatial(4096, %by * 64 + %tx * 8 + %b)) {
                %zero = arith.constant 0.0 : f32
                // expected-error @+1 {{'memref.store' op lower-to-gpu: it cannot be shown that different threads (blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y) touch different elements of C}}
                block.store %zero, %C[%vi, %vj] : memref<8192x4096xf32>
              }
            }
          }
        }
      }
    }
  }
  func.return
}
