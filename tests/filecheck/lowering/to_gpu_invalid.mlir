// RUN: xtir-opt %s --split-input-file -p lower-blocks,lower-to-gpu --verify-diagnostics
// What lower-to-gpu refuses: launches a GPU cannot run, one thread axis with two extents,
// too much shared memory, races through shared or global memory, cross-thread reductions
// and loop nests left on the host.

func.func @too_many_threads(%A: memref<2048xf32>) {
  // expected-error @+1 {{'scf.for' op lower-to-gpu: the kernel has 2048 threads per block (threadIdx.x = 32, threadIdx.y = 64); a block has at most 1024}}
  block.for %t = 0 to 32 "tx" bind("threadIdx.x") {
    block.for %u = 0 to 64 "ty" bind("threadIdx.y") {
      block.block "A"(%v = spatial(2048, %t * 64 + %u)) {
        %one = arith.constant 1.0 : f32
        block.store %one, %A[%v] : memref<2048xf32>
      }
    }
  }
  func.return
}

// -----

func.func @block_z(%A: memref<128xf32>) {
  // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "tz" makes threadIdx.z 128 threads wide; a block has at most 64 along z}}
  block.for %t = 0 to 128 "tz" bind("threadIdx.z") {
    block.block "A"(%v = spatial(128, %t)) {
      %one = arith.constant 1.0 : f32
      block.store %one, %A[%v] : memref<128xf32>
    }
  }
  func.return
}

// -----

func.func @grid_y(%A: memref<70000xf32>) {
  // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "by" makes blockIdx.y 70000 blocks; the grid has at most 65535 along y}}
  block.for %b = 0 to 70000 "by" bind("blockIdx.y") {
    block.block "A"(%v = spatial(70000, %b)) {
      %one = arith.constant 1.0 : f32
      block.store %one, %A[%v] : memref<70000xf32>
    }
  }
  func.return
}

// -----

func.func @two_extents(%A: memref<8x128xf32>, %B: memref<8x64xf32>) {
  block.for %b = 0 to 8 "b" bind("blockIdx.x") {
    block.for %t = 0 to 128 "t" bind("threadIdx.x") {
      block.block "A"(%vb = spatial(8, %b), %v = spatial(128, %t)) {
        %one = arith.constant 1.0 : f32
        block.store %one, %A[%vb, %v] : memref<8x128xf32>
      }
    }
    // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "u" is bound to threadIdx.x with extent 64, but loop "t" of the same kernel is bound to it with extent 128; one thread axis has one extent}}
    block.for %u = 0 to 64 "u" bind("threadIdx.x") {
      block.block "B"(%vb = spatial(8, %b), %v = spatial(64, %u)) {
        %one = arith.constant 1.0 : f32
        block.store %one, %B[%vb, %v] : memref<8x64xf32>
      }
    }
  }
  func.return
}

// -----

func.func @shared_too_big(%A: memref<16x16384xf32>, %B: memref<16x16384xf32>) {
  %S = block.alloc : memref<16x16384xf32, "shared">
  // expected-error @+1 {{'scf.for' op lower-to-gpu: the kernel uses 65536 bytes of shared memory per block (largest: S, 65536 bytes); a block has at most 49152 (48 KiB)}}
  block.for %b = 0 to 16 "b" bind("blockIdx.x") {
    block.for %o = 0 to 64 "o" {
      block.for %t = 0 to 256 "t" bind("threadIdx.x") {
        block.block "S"(%vb = spatial(16, %b), %v = spatial(16384, %o * 256 + %t)) {
          %a = block.load %A[%vb, %v] : memref<16x16384xf32>
          block.store %a, %S[%vb, %v] : memref<16x16384xf32, "shared">
        }
      }
    }
    block.for %t = 0 to 256 "t2" bind("threadIdx.x") {
      block.for %o = 0 to 64 "o2" {
        block.block "B"(%vb = spatial(16, %b), %v = spatial(16384, %o * 256 + (255 - %t))) {
          %s = block.load %S[%vb, %v] : memref<16x16384xf32, "shared">
          block.store %s, %B[%vb, %v] : memref<16x16384xf32>
        }
      }
    }
  }
  func.return
}

// -----

// The window sum after compute-at, before the fetch is bound: every thread copies all 130 elements.
func.func @redundant_fetch(%A: memref<1026xf32>, %B: memref<1024xf32>) {
  %A_shared = block.alloc : memref<1026xf32, "shared">
  block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
    block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
      block.for %ax0 = 0 to 130 "ax0" {
        block.block "A_shared"(%v0 = spatial(1026, %i0 * 128 + %ax0)) {
          %0 = block.load %A[%v0] : memref<1026xf32>
          // expected-error @+1 {{'memref.store' op lower-to-gpu: loop "ax0" is not bound to a thread (or not to every threadIdx axis), and the threads of the block that run it write the same elements of shared buffer A_shared (a race); bind it to a threadIdx axis (cooperative fetching)}}
          block.store %0, %A_shared[%v0] : memref<1026xf32, "shared">
        }
      }
      block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
        %a0 = block.load %A_shared[%vi] : memref<1026xf32, "shared">
        %a1 = block.load %A_shared[%vi + 1] : memref<1026xf32, "shared">
        %a2 = block.load %A_shared[%vi + 2] : memref<1026xf32, "shared">
        %s01 = arith.addf %a0, %a1 : f32
        %sum = arith.addf %s01, %a2 : f32
        block.store %sum, %B[%vi] : memref<1024xf32>
      }
    }
  }
  func.return
}

// -----

// Threads t write S and threads t2 then read S[t2 + 1], which a neighbour wrote, all under `y < 1`
// (a condition on threadIdx.y): no point between them where every thread of the block could wait.
// (Both in one body of a loop bound to the thread, the pair is refused before:
// to_gpu_shared_flow_invalid.mlir; and a loop bound again to threadIdx.x under a condition on the
// outer one's index: to_gpu_rebound_invalid.mlir.)
func.func @no_barrier_point(%A: memref<64xf32>, %B: memref<2x64xf32>) {
  %S = block.alloc : memref<2x65xf32, "shared">
  block.for %y = 0 to 2 "y" bind("threadIdx.y") {
    %c1 = arith.constant 1 : index
    %in = arith.cmpi slt, %y, %c1 : index
    scf.if %in {
      block.for %t = 0 to 64 "t" bind("threadIdx.x") {
        block.block "X"(%w = spatial(2, %y), %v = spatial(64, %t)) {
          %a = block.load %A[%v] : memref<64xf32>
          block.store %a, %S[%w, %v] : memref<2x65xf32, "shared">
        }
      }
      block.for %t2 = 0 to 64 "t2" bind("threadIdx.x") {
        block.block "Y"(%w = spatial(2, %y), %v = spatial(64, %t2)) {
          // expected-error @+1 {{'memref.load' op lower-to-gpu: threads exchange data through shared buffer S (one writes what another reads) with no barrier point between: the code between runs under a condition on the thread index, where __syncthreads() cannot be placed}}
          %n = block.load %S[%w, %v + 1] : memref<2x65xf32, "shared">
          block.store %n, %B[%w, %v] : memref<2x64xf32>
        }
      }
    }
  }
  func.return
}

// -----

// As above, but thread t2 reads S[t2 + r] over a serial loop "r": at r = 0 what it wrote itself,
// at r = 1 what its neighbour wrote. The loop's iterations are compared free: still refused.
func.func @no_barrier_point_serial_reader(%A: memref<64xf32>, %B: memref<2x64x2xf32>) {
  %S = block.alloc : memref<2x65xf32, "shared">
  block.for %y = 0 to 2 "y" bind("threadIdx.y") {
    %c1 = arith.constant 1 : index
    %in = arith.cmpi slt, %y, %c1 : index
    scf.if %in {
      block.for %t = 0 to 128 "t" bind("threadIdx.x") {
        block.block "X"(%w = spatial(2, %y), %v = spatial(128, %t)) where(%t < 65) {
          %a = block.load %A[%v floordiv 2] : memref<64xf32>
          block.store %a, %S[%w, %v] : memref<2x65xf32, "shared">
        }
      }
      block.for %t2 = 0 to 128 "t2" bind("threadIdx.x") {
        block.for %r = 0 to 2 "r" {
          block.block "Y"(%w = spatial(2, %y), %v = spatial(64, %t2), %u = spatial(2, %r)) where(%t2 < 64) {
            // expected-error @+1 {{'memref.load' op lower-to-gpu: threads exchange data through shared buffer S (one writes what another reads) with no barrier point between: the code between runs under a condition on the thread index, where __syncthreads() cannot be placed}}
            %n = block.load %S[%w, %v + %u] : memref<2x65xf32, "shared">
            block.store %n, %B[%w, %v, %u] : memref<2x64x2xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

func.func @thread_reduction(%A: memref<64x64xf32>, %B: memref<64xf32>) {
  block.for %i = 0 to 64 "i" bind("blockIdx.x") {
    block.for %k = 0 to 64 "k" bind("threadIdx.x") {
      block.block "B"(%vi = spatial(64, %i), %vk = reduce(64, %k)) {
        block.init {
          %zero = arith.constant 0.0 : f32
          block.store %zero, %B[%vi] : memref<64xf32>
        }
        %b = block.load %B[%vi] : memref<64xf32>
        %a = block.load %A[%vi, %vk] : memref<64x64xf32>
        %s = arith.addf %b, %a : f32
        // expected-error @+1 {{'memref.store' op lower-to-gpu: the update of B reduces over loop "k" bound to threadIdx.x: every thread reads and writes the same element; cross-thread reduction is not supported yet (keep the reduction loop serial)}}
        block.store %s, %B[%vi] : memref<64xf32>
      }
    }
  }
  func.return
}

// -----

// The window sum after cache-read, before compute-at: the copy into A_shared is a loop nest
// at the top of the function, which would run on the host.
func.func @host_nest(%A: memref<1026xf32>, %B: memref<1024xf32>) {
  %A_shared = block.alloc : memref<1026xf32, "shared">
  // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "ax0" at the top of kernel function @host_nest is not bound to a GPU thread axis, so it would run on the host; bind it to blockIdx/threadIdx, or move it into a kernel (compute-at)}}
  block.for %ax0 = 0 to 1026 "ax0" {
    block.block "A_shared"(%v0 = spatial(1026, %ax0)) {
      %0 = block.load %A[%v0] : memref<1026xf32>
      block.store %0, %A_shared[%v0] : memref<1026xf32, "shared">
    }
  }
  block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
    block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
      block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
        %a0 = block.load %A_shared[%vi] : memref<1026xf32, "shared">
        block.store %a0, %B[%vi] : memref<1024xf32>
      }
    }
  }
  func.return
}

// -----

func.func @one_element(%A: memref<128xf32>, %B: memref<1xf32>) {
  block.for %t = 0 to 128 "t" bind("threadIdx.x") {
    block.block "B"(%v = spatial(128, %t)) {
      %a = block.load %A[%v] : memref<128xf32>
      // expected-error @+1 {{'memref.store' op lower-to-gpu: several threads (threadIdx.x) write the same element of B (a race)}}
      block.store %a, %B[0] : memref<1xf32>
    }
  }
  func.return
}

// -----

// T is written by the threads of "t" and read, shifted, by those of "u": as a per-thread
// (local) array each thread would read its own copy, which nobody wrote there.
func.func @local_between_threads(%A: memref<128xf32>, %B: memref<128xf32>) {
  // expected-error @+1 {{'memref.alloca' op lower-to-gpu: local buffer T is used by every thread of loop "t" (threadIdx.x) but allocated outside it: threads would share it; local buffers are per thread}}
  %T = block.alloc : memref<128xf32, "local">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 128 "t" bind("threadIdx.x") {
      block.block "T"(%v = spatial(128, %t)) {
        %a = block.load %A[%v] : memref<128xf32>
        block.store %a, %T[%v] : memref<128xf32, "local">
      }
    }
    block.for %u = 0 to 128 "u" bind("threadIdx.x") {
      block.block "B"(%v = spatial(128, %u)) {
        %a = block.load %T[(%v + 1) mod 128] : memref<128xf32, "local">
        block.store %a, %B[%v] : memref<128xf32>
      }
    }
  }
  func.return
}

// -----

func.func @virtual_threads_only(%A: memref<128xf32>) {
  // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "v" bound to vthread.x is the outermost loop of a kernel; bind a loop around it to blockIdx or threadIdx}}
  block.for %t = 0 to 128 "v" bind("vthread.x") {
    block.block "A"(%v = spatial(128, %t)) {
      %one = arith.constant 1.0 : f32
      block.store %one, %A[%v] : memref<128xf32>
    }
  }
  func.return
}

// -----

// A virtual thread is a thread for the checks: a local buffer allocated outside its loop that
// passes data from one iteration to the next would be shared by the virtual threads (one private
// to each iteration moves into the loop)
func.func @local_outside_vthread(%A: memref<4x8xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      // expected-error @+1 {{'memref.alloca' op lower-to-gpu: local buffer L is used by every thread of loop "v" (vthread.x) but allocated outside it: threads would share it; local buffers are per thread}}
      %L = block.alloc : memref<1xf32, "local">
      block.for %u = 0 to 2 "v" bind("vthread.x") {
        block.block "L"(%vu = spatial(2, %u)) {
          %y = block.load %L[0] : memref<1xf32, "local">
          %one = arith.constant 1.0 : f32
          %x = arith.addf %y, %one : f32
          block.store %x, %L[0] : memref<1xf32, "local">
        }
        block.block "A"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %x = block.load %L[0] : memref<1xf32, "local">
          block.store %x, %A[%vb, %vt * 2 + %vu] : memref<4x8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// A shared store that does not use the virtual thread's variable runs once per real thread; one
// whose value depends on it runs once per virtual thread, at the same element, and block A reads
// that element in the same vthread loop: after inject-virtual-threads both virtual threads would
// read what the last one stored (virtual thread 0 would read 1.0, not 0.0). Without the read, the
// last value stays as when the loop runs serially: tests/filecheck/lowering/to_gpu_vthread_last_wins.mlir
func.func @vthread_shared_race(%A: memref<4x8xf32>) {
  %S = block.alloc : memref<4xf32, "shared">
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.block "S"(%vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %x = arith.index_cast %vu : index to i64
          %y = arith.sitofp %x : i64 to f32
          // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into S writes the same elements in every virtual thread of loop "v" (vthread.x) (its element does not use the virtual thread, what it stores or when does): they run one after another, which keeps the last value only when nothing else in the loop reads or writes S, no other store in the loop writes a buffer its value is loaded from and no condition or loop bound around the store uses the virtual thread; make the element depend on the virtual thread}}
          block.store %y, %S[%vt] : memref<4xf32, "shared">
        }
        block.block "A"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %x = block.load %S[%vt] : memref<4xf32, "shared">
          block.store %x, %A[%vb, %vt * 2 + %vu] : memref<4x8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// The store's element does not use the virtual thread, its condition does (virtual thread 0
// stores): which virtual thread stores last could change where the vthread loop is pushed through
// loops around the store, so only a store whose value alone uses it is taken as "last one wins"
func.func @vthread_guarded_same_element(%A: memref<4x4xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.block "A"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) where(%u < 1) {
          %one = arith.constant 1.0 : f32
          // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into A writes the same elements in every virtual thread of loop "v" (vthread.x) (its element does not use the virtual thread, what it stores or when does): they run one after another, which keeps the last value only when nothing else in the loop reads or writes A, no other store in the loop writes a buffer its value is loaded from and no condition or loop bound around the store uses the virtual thread; make the element depend on the virtual thread}}
          block.store %one, %A[%vb, %vt] : memref<4x4xf32>
        }
      }
    }
  }
  func.return
}

// -----

func.func @parallel_in_kernel(%A: memref<8x128xf32>) {
  block.for %b = 0 to 8 "b" bind("blockIdx.x") {
    // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "p" is parallel inside a GPU kernel; bind it to a thread axis}}
    block.for %t = 0 to 128 "p" parallel {
      block.block "A"(%vb = spatial(8, %b), %v = spatial(128, %t)) {
        %one = arith.constant 1.0 : f32
        block.store %one, %A[%vb, %v] : memref<8x128xf32>
      }
    }
  }
  func.return
}

// -----

// T carries data from one kernel to the next.
func.func @between_kernels(%A: memref<128xf32>, %B: memref<128xf32>) {
  // expected-error @+1 {{'memref.alloca' op lower-to-gpu: buffer T is used by a kernel and outside it; a kernel's shared and local buffers live only while it runs (buffers in global memory between kernels are not supported yet)}}
  %T = block.alloc : memref<128xf32>
  block.for %t = 0 to 128 "t" bind("threadIdx.x") {
    block.block "T"(%v = spatial(128, %t)) {
      %a = block.load %A[%v] : memref<128xf32>
      block.store %a, %T[%v] : memref<128xf32>
    }
  }
  block.for %u = 0 to 128 "u" bind("threadIdx.x") {
    block.block "B"(%v = spatial(128, %u)) {
      %a = block.load %T[127 - %v] : memref<128xf32>
      block.store %a, %B[%v] : memref<128xf32>
    }
  }
  func.return
}

// -----

// A global intermediate (matmul C under ReLU D) computed under the thread loops: compaction sizes it
// for one thread, but global memory holds one C for the grid. Not a reduction over a bound loop (the
// reduction is over the serial k): set-scope makes it local.
func.func @global_intermediate(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %D: memref<16x16xf32>) {
  %C = block.alloc : memref<16x16xf32>
  block.for %i0 = 0 to 2 "i_0" bind("blockIdx.x") {
    block.for %i1 = 0 to 8 "i_1" bind("threadIdx.x") {
      block.for %j = 0 to 16 "j" bind("threadIdx.y") {
        block.for %k = 0 to 16 "k" {
          block.block "C"(%vi = spatial(16, %i0 * 8 + %i1), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<16x16xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<16x16xf32>
            %a = block.load %A[%vi, %vk] : memref<16x16xf32>
            %b = block.load %B[%vk, %vj] : memref<16x16xf32>
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            // expected-error @+1 {{'memref.store' op lower-to-gpu: C is a global intermediate written by every thread (blockIdx.x, threadIdx.x, threadIdx.y): global memory holds one C for the whole grid, so the threads write the same elements (a race); make it per thread with set-scope scope="local" (or per thread block with scope="shared")}}
            block.store %sum, %C[%vi, %vj] : memref<16x16xf32>
          }
        }
        block.block "D"(%vi = spatial(16, %i0 * 8 + %i1), %vj = spatial(16, %j)) {
          %c = block.load %C[%vi, %vj] : memref<16x16xf32>
          %zero = arith.constant 0.000000e+00 : f32
          %r = arith.maximumf %c, %zero : f32
          block.store %r, %D[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
  }
  func.return
}

// -----

// A reduction over a thread-bound loop into an intermediate: the reduction is over k (inside C's
// allocation), not over i (the block loop C is compacted for).
func.func @thread_reduction_into_intermediate(%A: memref<16x16xf32>, %D: memref<16xf32>) {
  %C = block.alloc : memref<16xf32>
  block.for %i = 0 to 16 "i" bind("blockIdx.x") {
    block.for %k = 0 to 16 "k" bind("threadIdx.x") {
      block.block "C"(%vi = spatial(16, %i), %vk = reduce(16, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<16xf32>
        }
        %c = block.load %C[%vi] : memref<16xf32>
        %a = block.load %A[%vi, %vk] : memref<16x16xf32>
        %sum = arith.addf %c, %a : f32
        // expected-error @+1 {{'memref.store' op lower-to-gpu: the update of C reduces over loop "k" bound to threadIdx.x: every thread reads and writes the same element; cross-thread reduction is not supported yet (keep the reduction loop serial)}}
        block.store %sum, %C[%vi] : memref<16xf32>
      }
    }
    block.block "D"(%vi = spatial(16, %i)) {
      %c = block.load %C[%vi] : memref<16xf32>
      block.store %c, %D[%vi] : memref<16xf32>
    }
  }
  func.return
}

// -----

// A vectorized loop is wrapped whole in the virtual threads' loop; in one iteration of r, S is
// written by the threads t and read by the threads t2 at other threads' elements: a barrier inside
// would order the real threads only, not the virtual threads. (An unrolled loop is pushed through
// instead: tests/test_virtual_threads.py, SHARED_FLOW_IN_UNROLLED.)
func.func @vthread_wrapped_shared_flow(%A: memref<4x8xf32>, %O: memref<4x2x8xf32>) {
  %S = block.alloc : memref<8xf32, "shared">
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      // expected-error @+1 {{'scf.for' op lower-to-gpu: shared buffer S is stored and loaded inside one statement that each virtual thread of loop "v" (vthread.x) runs whole in turn: a barrier between the store and the load would order the real threads only, not the virtual threads; keep a loop there serial or unrolled (not vectorized), or move the vthread loop inside it}}
      block.for %r = 0 to 2 "r" vectorized {
        block.for %t = 0 to 4 "t" bind("threadIdx.x") {
          block.block "S"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u), %vr = spatial(2, %r)) {
            %a = block.load %A[%vb, %vt * 2 + %vu] : memref<4x8xf32>
            block.store %a, %S[%vt * 2 + %vu] : memref<8xf32, "shared">
          }
        }
        block.for %t2 = 0 to 4 "t2" bind("threadIdx.x") {
          block.block "O"(%vb = spatial(4, %b), %vt = spatial(4, %t2), %vu = spatial(2, %u), %vr = spatial(2, %r)) {
            %x = block.load %S[6 - %vt * 2 + %vu] : memref<8xf32, "shared">
            block.store %x, %O[%vb, %vr, %vt * 2 + %vu] : memref<4x2x8xf32>
          }
        }
      }
    }
  }
  func.return
}

// -----

// Hand-written scf (no block.for starts elsewhere than 0): a vthread loop from 1
func.func @vthread_from_one(%A: memref<4x9xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %x = arith.constant 2.000000e+00 : f32
  scf.for %b = %c0 to %c4 step %c1 {
    scf.for %t = %c0 to %c4 step %c1 {
      // expected-error @+1 {{'scf.for' op lower-to-gpu: loop "v" bound to vthread.x must run from 0 in steps of 1 to a constant}}
      scf.for %u = %c1 to %c3 step %c1 {
        %c2 = arith.constant 2 : index
        %t2 = arith.muli %t, %c2 : index
        %i = arith.addi %t2, %u : index
        memref.store %x, %A[%b, %i] : memref<4x9xf32>
      } {xtir.loop_name = "v", xtir.loop_kind = "thread_binding", xtir.thread = "vthread.x"}
    } {xtir.loop_name = "t", xtir.loop_kind = "thread_binding", xtir.thread = "threadIdx.x"}
  } {xtir.loop_name = "b", xtir.loop_kind = "thread_binding", xtir.thread = "blockIdx.x"}
  func.return
}

// -----

// G's update does not use the virtual thread: it runs once per virtual thread, as the loop run
// serially does (G += 2); block H then reads G in every virtual thread. Run serially, virtual
// thread 0 reads G + 1 and 1 reads G + 2; distributed (G's update for every virtual thread, then
// H), both would read G + 2.
func.func @vthread_read_modify_write_read_later(%G: memref<4x4xf32>, %H: memref<4x8xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      // expected-error @+1 {{'scf.for' op lower-to-gpu: G is stored and later loaded in loop "v" (vthread.x) at elements other virtual threads may touch: inject-virtual-threads runs each statement for every virtual thread before the next statement, which would reorder the two across virtual threads; index both by the virtual thread alike, or make the earlier one a store that writes the same value at the same element in every virtual thread (a cooperative fetch), as every store into the buffer in the loop}}
      block.for %u = 0 to 2 "v" bind("vthread.x") {
        block.block "G"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %g = block.load %G[%vb, %vt] : memref<4x4xf32>
          %one = arith.constant 1.0 : f32
          %s = arith.addf %g, %one : f32
          block.store %s, %G[%vb, %vt] : memref<4x4xf32>
        }
        block.block "H"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %g = block.load %G[%vb, %vt] : memref<4x4xf32>
          block.store %g, %H[%vb, %vt * 2 + %vu] : memref<4x8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// P's value alone uses the virtual thread, but block G later in the loop stores into G, which
// P's value is loaded from: run serially, virtual thread 1 loads the G that virtual thread 0
// stored; distributed (P for every virtual thread, then G), both load the G from before. Not a
// "last one wins" store (before: accepted, P = 101.. where the loop run serially gives A + 1).
func.func @vthread_last_wins_loads_a_later_store(%A: memref<4x4xf32>, %G: memref<4x4xf32>, %P: memref<4x4xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.block "P"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %g = block.load %G[%vb, %vt] : memref<4x4xf32>
          %x = arith.index_cast %vu : index to i64
          %y = arith.sitofp %x : i64 to f32
          %z = arith.addf %g, %y : f32
          // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into P writes the same elements in every virtual thread of loop "v" (vthread.x) (its element does not use the virtual thread, what it stores or when does): they run one after another, which keeps the last value only when nothing else in the loop reads or writes P, no other store in the loop writes a buffer its value is loaded from and no condition or loop bound around the store uses the virtual thread; make the element depend on the virtual thread}}
          block.store %z, %P[%vb, %vt] : memref<4x4xf32>
        }
        block.block "G"(%vb = spatial(4, %b), %vt = spatial(4, %t)) {
          %a = block.load %A[%vb, %vt] : memref<4x4xf32>
          block.store %a, %G[%vb, %vt] : memref<4x4xf32>
        }
      }
    }
  }
  func.return
}

// -----

// As above, P's value loaded from X[.., 1 - v], which block X later stores at X[.., v]: virtual
// thread 1 loads what virtual thread 0 stored when the loop runs serially, not distributed
// (before: accepted)
func.func @vthread_last_wins_loads_another_vthreads_store(%A: memref<4x4xf32>, %X: memref<4x4x2xf32>, %P: memref<4x4xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.block "P"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %g = block.load %X[%vb, %vt, 1 - %vu] : memref<4x4x2xf32>
          // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into P writes the same elements in every virtual thread of loop "v" (vthread.x) (its element does not use the virtual thread, what it stores or when does): they run one after another, which keeps the last value only when nothing else in the loop reads or writes P, no other store in the loop writes a buffer its value is loaded from and no condition or loop bound around the store uses the virtual thread; make the element depend on the virtual thread}}
          block.store %g, %P[%vb, %vt] : memref<4x4xf32>
        }
        block.block "X"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %a = block.load %A[%vb, %vt] : memref<4x4xf32>
          block.store %a, %X[%vb, %vt, %vu] : memref<4x4x2xf32>
        }
      }
    }
  }
  func.return
}

// -----

// Every virtual thread loads G[b, t] in block P, then block G (not using the virtual thread, run
// once) stores it: run serially, virtual thread 1 loads the A that virtual thread 0's G stored;
// distributed (P for every virtual thread, then G once), it loads the G from before. Loop
// fission reorders the two across virtual threads (before: accepted, wrong numbers). Global
// buffers only: to a shared one virtual threads are threads, the barriers ordering statements.
func.func @vthread_load_then_later_store_of_another_vthread(%A: memref<4x4xf32>, %G: memref<4x4xf32>, %P: memref<4x4x2xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    // expected-error @+1 {{'scf.for' op lower-to-gpu: G is loaded and later stored in loop "v" (vthread.x) at elements other virtual threads may touch: inject-virtual-threads runs each statement for every virtual thread before the next statement, which would reorder the two across virtual threads; index both by the virtual thread alike, or make the earlier one a store that writes the same value at the same element in every virtual thread (a cooperative fetch), as every store into the buffer in the loop}}
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.block "P"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %g = block.load %G[%vb, %vt] : memref<4x4xf32>
          %x = arith.index_cast %vu : index to i64
          %y = arith.sitofp %x : i64 to f32
          %z = arith.addf %g, %y : f32
          block.store %z, %P[%vb, %vt, %vu] : memref<4x4x2xf32>
        }
        block.block "G"(%vb = spatial(4, %b), %vt = spatial(4, %t)) {
          %a = block.load %A[%vb, %vt] : memref<4x4xf32>
          block.store %a, %G[%vb, %vt] : memref<4x4xf32>
        }
      }
    }
  }
  func.return
}

// -----

// Virtual thread v loads X[b, t, 1 - v], which block X later stores at X[b, t, v]: run serially,
// virtual thread 1 loads what virtual thread 0 stored; distributed, the X from before. Two virtual
// threads touch one element of X, one writing it: a race between threads (lowering/thread_races.py)
func.func @vthread_load_then_later_store_of_another_vthreads_element(%A: memref<4x4xf32>, %X: memref<4x4x2xf32>, %P: memref<4x4x2xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.block "P"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          // expected-note @+1 {{the load of X reads it here}}
          %g = block.load %X[%vb, %vt, 1 - %vu] : memref<4x4x2xf32>
          block.store %g, %P[%vb, %vt, %vu] : memref<4x4x2xf32>
        }
        block.block "X"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %a = block.load %A[%vb, %vt] : memref<4x4xf32>
          // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into X writes an element of X that the load of X reads in another thread, loop "v" (vthread.x) at 0 and at 1 (the other thread axes alike); the threads of a launch run at once}}
          block.store %a, %X[%vb, %vt, %vu] : memref<4x4x2xf32>
        }
      }
    }
  }
  func.return
}

// -----

// Block C stores 5 at G[2t] in every virtual thread (run once), block U adds 1 to it: run
// serially, virtual thread 1's C undoes virtual thread 0's increment (G = 6); distributed, C
// once then U twice (G = 7). C is exempt only where every store into G writes alike (before:
// accepted, wrong numbers).
func.func @vthread_idempotent_store_then_increment(%G: memref<8xf32>) {
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      // expected-error @+1 {{'scf.for' op lower-to-gpu: G is stored and later loaded in loop "v" (vthread.x) at elements other virtual threads may touch: inject-virtual-threads runs each statement for every virtual thread before the next statement, which would reorder the two across virtual threads; index both by the virtual thread alike, or make the earlier one a store that writes the same value at the same element in every virtual thread (a cooperative fetch), as every store into the buffer in the loop}}
      block.for %u = 0 to 2 "v" bind("vthread.x") {
        block.block "C"(%vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %c = arith.constant 5.0 : f32
          block.store %c, %G[%vt * 2] : memref<8xf32>
        }
        block.block "U"(%vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %g = block.load %G[%vt * 2] : memref<8xf32>
          %one = arith.constant 1.0 : f32
          %y = arith.addf %g, %one : f32
          block.store %y, %G[%vt * 2] : memref<8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// Block H copies shared S[t] into G (run once), block W then stores 7 at S[t]: run serially,
// virtual thread 1's H copies the 7; distributed, H runs before W only (before: accepted, wrong
// numbers). The race check between threads refuses it (one body of loop "v"); the vthread stage's
// own rule, that keeps in order a shared buffer's load that a store run once reads, too
// (tests/test_virtual_threads.py, shared_read_once_then_stored).
func.func @vthread_shared_load_run_once_then_stored(%A: memref<4xf32>, %G: memref<4xf32>) {
  %S = block.alloc : memref<4xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      block.block "F"(%vt = spatial(4, %t)) {
        %a = block.load %A[%vt] : memref<4xf32>
        block.store %a, %S[%vt] : memref<4xf32, "shared">
      }
    }
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      block.for %u = 0 to 2 "v" bind("vthread.x") {
        block.block "H"(%vt = spatial(4, %t), %vu = spatial(2, %u)) {
          // expected-note @+1 {{the load of S reads it here}}
          %x = block.load %S[%vt] : memref<4xf32, "shared">
          block.store %x, %G[%vt] : memref<4xf32>
        }
        block.block "W"(%vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %c = arith.constant 7.0 : f32
          // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into S writes an element of shared buffer S that the load of S reads in another thread, in one body of loop "v" (vthread.x) at 0 and at 1; a barrier can order two loops bound to a thread}}
          block.store %c, %S[%vt] : memref<4xf32, "shared">
        }
      }
    }
  }
  func.return
}

// -----

// X[t, v] = X[t, 1 - v] + 1 inside serial k: the vthread loop pushed into k runs both virtual
// threads' k = 0 before either's k = 1, where serially virtual thread 1 reads what virtual
// thread 0 stored at k = 1. One statement, yet reordered (before: accepted, wrong numbers). On a
// global buffer the race check between threads (lowering/thread_races.py) refuses it first.
func.func @vthread_pushed_into_k_reads_another_vthreads_element(%X: memref<4x2xf32>) {
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      block.for %u = 0 to 2 "v" bind("vthread.x") {
        block.for %k = 0 to 2 "k" {
          block.block "X"(%vt = spatial(4, %t), %vu = spatial(2, %u), %vk = reduce(2, %k)) {
            // expected-note @+1 {{the load of X reads it here}}
            %x = block.load %X[%vt, 1 - %vu] : memref<4x2xf32>
            %one = arith.constant 1.0 : f32
            %y = arith.addf %x, %one : f32
            // expected-error @+1 {{'memref.store' op lower-to-gpu: the store into X writes an element of X that the load of X reads in another thread, loop "v" (vthread.x) at 0 and at 1 (the other thread axes alike); the threads of a launch run at once}}
            block.store %y, %X[%vt, %vu] : memref<4x2xf32>
          }
        }
      }
    }
  }
  func.return
}
