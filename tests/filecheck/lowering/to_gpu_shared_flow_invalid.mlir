// RUN: xtir-opt %s --split-input-file -p lower-blocks,lower-to-gpu --verify-diagnostics
// Data passed between threads through a shared buffer inside one body of a loop bound to them
// (IR bound by hand, or changed after bind checked it): a barrier can only sit between two
// loops bound to a thread, so there the threads race (and virtual threads run one statement
// after another), where the loop run serially passes the data in order (lowering/thread_races.py,
// check_shared_flows; before: built, wrong numbers).

// Thread t reads X[t], then stores 7 at X[t + 1], which thread t + 1 reads: serially it reads 7.
func.func @flow_in_one_body(%A: memref<8xf32>, %H: memref<8xf32>) {
  %X = block.alloc : memref<9xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %f = 0 to 8 "f" bind("threadIdx.x") {
      block.block "F"(%vf = spatial(8, %f)) {
        %a = block.load %A[%vf] : memref<8xf32>
        block.store %a, %X[%vf] : memref<9xf32, "shared">
      }
    }
    block.for %t = 0 to 8 "t" bind("threadIdx.x") {
      block.block "R"(%vt = spatial(8, %t)) {
        // expected-note @+1 {{the load of X reads it here}}
        %x = block.load %X[%vt] : memref<9xf32, "shared">
        block.store %x, %H[%vt] : memref<8xf32>
      }
      block.block "W"(%vt = spatial(8, %t)) {
        %c = arith.constant 7.0 : f32
        // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into X writes an element of shared buffer X that the load of X reads in another thread, in one body of loop "t" (threadIdx.x) at 0 and at 1; a barrier can order two loops bound to a thread, not the accesses in one body of such a loop: there the threads run at once (a race) and virtual threads one statement after another, not in turn as the loop does; a loop bound to a thread must keep independent iterations: pass the data from one loop bound to the thread to another (a fetch loop, then the loop reading it), or let each thread touch its own elements}}
        block.store %c, %X[%vt + 1] : memref<9xf32, "shared">
      }
    }
  }
  func.return
}

// -----

// The same along threadIdx.y, in an inner loop of a 2-D block.
func.func @flow_in_one_body_y(%A: memref<4x8xf32>, %H: memref<4x8xf32>) {
  %X = block.alloc : memref<4x9xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %x = 0 to 4 "x" bind("threadIdx.x") {
      block.for %f = 0 to 8 "f" bind("threadIdx.y") {
        block.block "F"(%vx = spatial(4, %x), %vf = spatial(8, %f)) {
          %a = block.load %A[%vx, %vf] : memref<4x8xf32>
          block.store %a, %X[%vx, %vf] : memref<4x9xf32, "shared">
        }
      }
      block.for %t = 0 to 8 "t" bind("threadIdx.y") {
        block.block "R"(%vx = spatial(4, %x), %vt = spatial(8, %t)) {
          // expected-note @+1 {{the load of X reads it here}}
          %v = block.load %X[%vx, %vt] : memref<4x9xf32, "shared">
          block.store %v, %H[%vx, %vt] : memref<4x8xf32>
        }
        block.block "W"(%vx = spatial(4, %x), %vt = spatial(8, %t)) {
          %c = arith.constant 7.0 : f32
          // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into X writes an element of shared buffer X that the load of X reads in another thread, in one body of loop "t" (threadIdx.y) at 0 and at 1; a barrier}}
          block.store %c, %X[%vx, %vt + 1] : memref<4x9xf32, "shared">
        }
      }
    }
  }
  func.return
}

// -----

// Anti-dependence: thread t stores 7 at X[t], then reads X[t + 1], which thread t + 1 has not
// stored yet serially; a barrier between the two would make it read 7.
func.func @anti_flow_in_one_body(%A: memref<9xf32>, %H: memref<8xf32>) {
  %X = block.alloc : memref<9xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %f = 0 to 9 "f" bind("threadIdx.x") {
      block.block "F"(%vf = spatial(9, %f)) {
        %a = block.load %A[%vf] : memref<9xf32>
        block.store %a, %X[%vf] : memref<9xf32, "shared">
      }
    }
    block.for %t = 0 to 9 "t" bind("threadIdx.x") {
      block.block "W"(%vt = spatial(9, %t)) {
        %c = arith.constant 7.0 : f32
        // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into X writes an element of shared buffer X that the load of X reads in another thread, in one body of loop "t" (threadIdx.x) at 1 and at 0; a barrier}}
        block.store %c, %X[%vt] : memref<9xf32, "shared">
      }
      block.block "R"(%vt = spatial(8, %t)) where(%t < 8) {
        // expected-note @+1 {{the load of X reads it here}}
        %x = block.load %X[%vt + 1] : memref<9xf32, "shared">
        block.store %x, %H[%vt] : memref<8xf32>
      }
    }
  }
  func.return
}

// -----

// Virtual thread v of thread t reads X[2t + 1 - v], then stores 7 at X[2t + v]: serially virtual
// thread 1 reads the 7 virtual thread 0 stored; inject-virtual-threads runs both reads first.
func.func @vthreads_flow_in_one_body(%A: memref<8xf32>, %H: memref<8xf32>) {
  %X = block.alloc : memref<8xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      block.for %u = 0 to 2 "v" bind("vthread.x") {
        block.block "F"(%vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %a = block.load %A[%vt * 2 + %vu] : memref<8xf32>
          block.store %a, %X[%vt * 2 + %vu] : memref<8xf32, "shared">
        }
      }
      block.for %u2 = 0 to 2 "v2" bind("vthread.x") {
        block.block "R"(%vt = spatial(4, %t), %vu = spatial(2, %u2)) {
          // expected-note @+1 {{the load of X reads it here}}
          %x = block.load %X[%vt * 2 + 1 - %vu] : memref<8xf32, "shared">
          block.store %x, %H[%vt * 2 + %vu] : memref<8xf32>
        }
        block.block "W"(%vt = spatial(4, %t), %vu = spatial(2, %u2)) {
          %c = arith.constant 7.0 : f32
          // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into X writes an element of shared buffer X that the load of X reads in another thread, in one body of loop "v2" (vthread.x) at 0 and at 1; a barrier}}
          block.store %c, %X[%vt * 2 + %vu] : memref<8xf32, "shared">
        }
      }
    }
  }
  func.return
}

// -----

// Thread t stores X[t + k] at each k of a serial loop inside it: threads t and t + 1 store one
// element at k = 1 and k = 0 (serially the later thread's value stays; on the GPU, k = 1's).
func.func @store_at_two_iterations(%A: memref<8x4xf32>, %H: memref<11xf32>) {
  %X = block.alloc : memref<11xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 8 "t" bind("threadIdx.x") {
      block.for %k = 0 to 4 "k" {
        block.block "W"(%vt = spatial(8, %t), %vk = spatial(4, %k)) {
          %a = block.load %A[%vt, %vk] : memref<8x4xf32>
          // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into X writes one element of shared buffer X in two threads, in one body of loop "t" (threadIdx.x) at 0 and at 1; a barrier}}
          block.store %a, %X[%vt + %vk] : memref<11xf32, "shared">
        }
      }
    }
    block.for %t = 0 to 8 "t" bind("threadIdx.x") {
      block.block "R"(%vt = spatial(8, %t)) {
        %x = block.load %X[%vt] : memref<11xf32, "shared">
        block.store %x, %H[%vt] : memref<11xf32>
      }
    }
  }
  func.return
}

// -----

// A store X[t, k] that does not use the virtual thread (run once per thread) at each k, and a
// load of X[t, k + v]: serially virtual thread 1 reads at k what the store stored at k + 1 (in
// virtual thread 0); the vthread loop pushed into k reads it before.
func.func @idle_store_read_ahead(%A: memref<4x5xf32>, %Q: memref<4x4x2xf32>) {
  %X = block.alloc : memref<4x5xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.for %k = 0 to 5 "k" {
          block.block "P"(%vt = spatial(4, %t), %vk = spatial(5, %k)) {
            %a = block.load %A[%vt, %vk] : memref<4x5xf32>
            // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into X writes an element of shared buffer X that the load of X reads in another thread, in one body of loop "v" (vthread.x) at 1 and at 0; a barrier}}
            block.store %a, %X[%vt, %vk] : memref<4x5xf32, "shared">
          }
          block.block "Q"(%vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(4, %k)) where(%k < 4) {
            // expected-note @+1 {{the load of X reads it here}}
            %x = block.load %X[%vt, %vk + %vu] : memref<4x5xf32, "shared">
            block.store %x, %Q[%vt, %vk, %vu] : memref<4x4x2xf32>
          }
        }
      }
    }
  }
  func.return
}
