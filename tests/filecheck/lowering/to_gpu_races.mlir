// RUN: xtir-opt %s --split-input-file -p lower-blocks,lower-to-gpu | filecheck %s
// What lower-to-gpu's race check between threads (lowering/thread_races.py) lets through in IR
// bound by hand: each thread touching its own elements, reads shared by all threads, and writes
// kept apart from other threads' reads by a `where` predicate.

// An update in place of the element a thread owns, and an input every thread reads whole.
// CHECK-LABEL: func.func @own_elements
// CHECK: "gpu.launch_func"
func.func @own_elements(%A: memref<4xf32>, %C: memref<32xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %t = 0 to 8 "t" bind("threadIdx.x") {
      block.for %k = 0 to 4 "k" {
        block.block "C"(%v = spatial(32, %b * 8 + %t), %vk = reduce(4, %k)) {
          %a = block.load %A[%vk] : memref<4xf32>
          %c = block.load %C[%v] : memref<32xf32>
          %s = arith.addf %a, %c : f32
          block.store %s, %C[%v] : memref<32xf32>
        }
      }
    }
  }
  func.return
}

// -----

// Threads 0..3 write B[t]; every thread reads B[t + 4], which no thread writes: the predicate
// keeps thread 4 from writing B[4], which thread 0 reads.
// CHECK-LABEL: func.func @apart_by_predicate
// CHECK: "gpu.launch_func"
func.func @apart_by_predicate(%A: memref<8xf32>, %B: memref<12xf32>, %C: memref<8xf32>) {
  block.for %t = 0 to 8 "t" bind("threadIdx.x") {
    block.block "W"(%v = spatial(8, %t)) where(%t < 4) {
      %a = block.load %A[%v] : memref<8xf32>
      block.store %a, %B[%v] : memref<12xf32>
    }
    block.block "R"(%v = spatial(8, %t)) {
      %b = block.load %B[%v + 4] : memref<12xf32>
      block.store %b, %C[%v] : memref<8xf32>
    }
  }
  func.return
}

// -----

// P stores A[t, k] and Q loads it, neither with the virtual thread: each runs once per thread, at
// each k P before Q as in turn, so the virtual threads are not compared.
// CHECK-LABEL: func.func @idle_store_and_load
// CHECK: "gpu.launch_func"
func.func @idle_store_and_load(%X: memref<4x4xf32>, %A: memref<4x4xf32>, %Q: memref<4x4x2xf32>) {
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.for %k = 0 to 4 "k" {
          block.block "P"(%vt = spatial(4, %t), %vk = spatial(4, %k)) {
            %x = block.load %X[%vt, %vk] : memref<4x4xf32>
            block.store %x, %A[%vt, %vk] : memref<4x4xf32>
          }
          block.block "Q"(%vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(4, %k)) {
            %p = block.load %A[%vt, %vk] : memref<4x4xf32>
            block.store %p, %Q[%vt, %vk, %vu] : memref<4x4x2xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

// Each thread writes its own 8x8 tile of a 4096x4096 C: too many points to enumerate (16M), and
// no single stride tells the threads apart (ty's rest holds bx's term). Shown in rounds: bx and by
// first, then ty and tx with bx and by equal.
// CHECK-LABEL: func.func @own_tiles_of_a_large_output
// CHECK: "gpu.launch_func"
func.func @own_tiles_of_a_large_output(%C: memref<4096x4096xf32>) {
  block.for %bx = 0 to 64 "bx" bind("blockIdx.y") {
    block.for %by = 0 to 64 "by" bind("blockIdx.x") {
      block.for %ty = 0 to 8 "ty" bind("threadIdx.y") {
        block.for %tx = 0 to 8 "tx" bind("threadIdx.x") {
          block.for %a = 0 to 8 "a" {
            block.for %b = 0 to 8 "b" {
              block.block "C"(%vi = spatial(4096, %bx * 64 + %ty * 8 + %a), %vj = spatial(4096, %by * 64 + %tx * 8 + %b)) {
                %zero = arith.constant 0.0 : f32
                block.store %zero, %C[%vi, %vj] : memref<4096x4096xf32>
              }
            }
          }
        }
      }
    }
  }
  func.return
}
