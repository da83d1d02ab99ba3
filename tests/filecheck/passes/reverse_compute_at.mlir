// RUN: xtir-opt %s -p 'split{func=seed loop=i factors=-1,16},split{func=seed loop=j factors=-1,16},split{func=seed loop=k factors=-1,16},reorder{func=seed loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{func=seed loop=i_1},cache-write{func=seed block=matmul_o index=0 scope="global.accumulator"},reverse-compute-at{func=seed block="C_global.accumulator" loop=j_0}' | filecheck %s --check-prefix=SEED
// RUN: xtir-opt %s -p 'reverse-compute-at{func=outer block=C loop="B/i"},reverse-compute-at{func=unit block=C loop="B/i" preserve_unit_loops=true},reverse-compute-at{func=inner block=C loop="B/j"}' | filecheck %s
// RUN: xtir-opt %s -p 'split{func=ragged loop="B/i" factors=-1,4},reverse-compute-at{func=ragged block=C loop=i_0}' | filecheck %s --check-prefix=RAGGED
// RUN: xtir-opt %s -p 'split{func=local loop=i factors=-1,128},bind{func=local loop=i_0 thread="blockIdx.x"},bind{func=local loop=i_1 thread="threadIdx.x"},cache-write{func=local block=C index=0 scope="local"},reverse-compute-at{func=local block=C_local loop=i_1}' | filecheck %s --check-prefix=GPU
// RUN: xtir-opt %s -p 'split{func=shared loop=i factors=-1,128},bind{func=shared loop=i_0 thread="blockIdx.x"},bind{func=shared loop=i_1 thread="threadIdx.x"},cache-write{func=shared block=C index=0 scope="shared"},reverse-compute-at{func=shared block=C_shared loop=i_1}' | filecheck %s --check-prefix=SCOPE
// RUN: xtir-opt %s -p 'reverse-compute-at{func=two_producers block=D loop="X/i"}' | filecheck %s --check-prefix=POSITION
// RUN: xtir-opt %s -p 'split{func=where loop="T/i" factors=4,4},reverse-compute-at{func=where block=C loop=i_0},split{func=part loop="T/i" factors=4,4},reverse-compute-at{func=part block=C loop=i_0}' | filecheck %s --check-prefix=WHERE
// reverse-compute-at{block=C loop=L preserve_unit_loops=false} (TVM's
// sch.reverse_compute_at): the consumer C moves under L, after every statement holding
// one of its producers (TVM's default index=-1: the last such point, before the first
// statement reading C's output, or at the end of L's body), in a new nest ax0, ax1, ...
// that consumes, per iteration of L, the region those producers write there. Unit loops
// are dropped unless preserve_unit_loops is set. The consumer must be a complete block
// (no reduction): it runs again for every iteration of L. The SCOPE and POSITION cases
// (the last RUN lines) pin TVM's thread-loop and insertion-point rules.

// Seed 001's write-back (6.2.2.4): after split/reorder/blockize and
// cache_write(block_mm, 0, "global.accumulator"), reverse_compute_at(C_acc, j) puts the
// copy of each 16x16 accumulator tile to C after the reduction loop k_0 (relaxed, since
// it is below j_0), as reference/tvm/ir/tmm_04b_cache_write_reverse_compute_at:
//   for ax0, ax1 in T.grid(16, 16):
//       v0 = T.axis.spatial(1024, i_0 * 16 + ax0)
//       v1 = T.axis.spatial(1024, j_0 * 16 + ax1)
// SEED-LABEL: func.func @seed
// SEED-NEXT:    %C_global_accumulator = block.alloc : memref<1024x1024xf32, "global.accumulator">
// SEED-NEXT:    block.for %i0 = 0 to 64 "i_0" {
// SEED-NEXT:      block.for %j0 = 0 to 64 "j_0" {
// SEED-NEXT:        block.for %k0 = 0 to 64 "k_0" {
// SEED-NEXT:          block.block "matmul_o"(%vi_o = spatial(64, %i0), %vj_o = spatial(64, %j0), %vk_o = reduce(64, %k0)) {
// SEED-NEXT:            block.init {
// SEED-NEXT:              block.for %i1 = 0 to 16 "i_1" {
// SEED-NEXT:                block.for %j1 = 0 to 16 "j_1" {
// SEED-NEXT:                  block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
// SEED-NEXT:                    %zero = arith.constant 0.000000e+00 : f32
// SEED-NEXT:                    block.store %zero, %C_global_accumulator[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32, "global.accumulator">
// SEED-NEXT:                  }
// SEED-NEXT:                }
// SEED-NEXT:              }
// SEED-NEXT:            }
// SEED-NEXT:            block.for %i1_1 = 0 to 16 "i_1" {
// SEED-NEXT:              block.for %j1_1 = 0 to 16 "j_1" {
// SEED-NEXT:                block.for %k1 = 0 to 16 "k_1" {
// SEED-NEXT:                  block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
// SEED-NEXT:                    %c = block.load %C_global_accumulator[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32, "global.accumulator">
// SEED-NEXT:                    %a = block.load %A[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// SEED-NEXT:                    %b = block.load %B[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
// SEED-NEXT:                    %ab = arith.mulf %a, %b : f32
// SEED-NEXT:                    %sum = arith.addf %c, %ab : f32
// SEED-NEXT:                    block.store %sum, %C_global_accumulator[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32, "global.accumulator">
// SEED-NEXT:                  }
// SEED-NEXT:                }
// SEED-NEXT:              }
// SEED-NEXT:            }
// SEED-NEXT:          }
// SEED-NEXT:        }
// SEED-NEXT:        block.for %ax0 = 0 to 16 "ax0" {
// SEED-NEXT:          block.for %ax1 = 0 to 16 "ax1" {
// SEED-NEXT:            block.block "C_global.accumulator"(%v0 = spatial(1024, %i0 * 16 + %ax0), %v1 = spatial(1024, %j0 * 16 + %ax1)) {
// SEED-NEXT:              %0 = block.load %C_global_accumulator[%v0, %v1] : memref<1024x1024xf32, "global.accumulator">
// SEED-NEXT:              block.store %0, %C[%v0, %v1] : memref<1024x1024xf32>
// SEED-NEXT:            }
// SEED-NEXT:          }
// SEED-NEXT:        }
// SEED-NEXT:      }
// SEED-NEXT:    }
// SEED-NEXT:    func.return
func.func @seed(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.for %j = 0 to 1024 "j" {
      block.for %k = 0 to 1024 "k" {
        block.block "matmul"(%vi = spatial(1024, %i), %vj = spatial(1024, %j), %vk = reduce(1024, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<1024x1024xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<1024x1024xf32>
          %a = block.load %A[%vi, %vk] : memref<1024x1024xf32>
          %b = block.load %B[%vj, %vk] : memref<1024x1024xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<1024x1024xf32>
        }
      }
    }
  }
  func.return
}

// The elementwise chain B = A * 2, C = B + 1: C at B's outer loop i consumes row i,
// the unit loop dropped (vi bound to i).
// CHECK-LABEL: func.func @outer
// CHECK-NEXT:    %B = block.alloc : memref<8x4xf32>
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
// CHECK-NEXT:          %a = block.load %A[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:          %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:          %b = arith.mulf %a, %two : f32
// CHECK-NEXT:          block.store %b, %B[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      block.for %ax0 = 0 to 4 "ax0" {
// CHECK-NEXT:        block.block "C"(%vi_1 = spatial(8, %i), %vj_1 = spatial(4, %ax0)) {
// CHECK-NEXT:          %b_1 = block.load %B[%vi_1, %vj_1] : memref<8x4xf32>
// CHECK-NEXT:          %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:          %c = arith.addf %b_1, %one : f32
// CHECK-NEXT:          block.store %c, %C[%vi_1, %vj_1] : memref<8x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @outer(%A: memref<8x4xf32>, %C: memref<8x4xf32>) {
  %B = block.alloc : memref<8x4xf32>
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        %two = arith.constant 2.000000e+00 : f32
        %b = arith.mulf %a, %two : f32
        block.store %b, %B[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "C"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %b = block.load %B[%vi, %vj] : memref<8x4xf32>
        %one = arith.constant 1.000000e+00 : f32
        %c = arith.addf %b, %one : f32
        block.store %c, %C[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  func.return
}

// The same with preserve_unit_loops=true: ax0 of extent 1 stays (vi = i + ax0).
// CHECK-LABEL: func.func @unit
// CHECK-NEXT:    %B = block.alloc : memref<8x4xf32>
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
// CHECK-NEXT:          %a = block.load %A[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:          %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:          %b = arith.mulf %a, %two : f32
// CHECK-NEXT:          block.store %b, %B[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      block.for %ax0 = 0 to 1 "ax0" {
// CHECK-NEXT:        block.for %ax1 = 0 to 4 "ax1" {
// CHECK-NEXT:          block.block "C"(%vi_1 = spatial(8, %i + %ax0), %vj_1 = spatial(4, %ax1)) {
// CHECK-NEXT:            %b_1 = block.load %B[%vi_1, %vj_1] : memref<8x4xf32>
// CHECK-NEXT:            %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:            %c = arith.addf %b_1, %one : f32
// CHECK-NEXT:            block.store %c, %C[%vi_1, %vj_1] : memref<8x4xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @unit(%A: memref<8x4xf32>, %C: memref<8x4xf32>) {
  %B = block.alloc : memref<8x4xf32>
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        %two = arith.constant 2.000000e+00 : f32
        %b = arith.mulf %a, %two : f32
        block.store %b, %B[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "C"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %b = block.load %B[%vi, %vj] : memref<8x4xf32>
        %one = arith.constant 1.000000e+00 : f32
        %c = arith.addf %b, %one : f32
        block.store %c, %C[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  func.return
}

// At B's inner loop j: one element, no loops left.
// CHECK-LABEL: func.func @inner
// CHECK-NEXT:    %B = block.alloc : memref<8x4xf32>
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
// CHECK-NEXT:          %a = block.load %A[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:          %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:          %b = arith.mulf %a, %two : f32
// CHECK-NEXT:          block.store %b, %B[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        block.block "C"(%vi_1 = spatial(8, %i), %vj_1 = spatial(4, %j)) {
// CHECK-NEXT:          %b_1 = block.load %B[%vi_1, %vj_1] : memref<8x4xf32>
// CHECK-NEXT:          %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:          %c = arith.addf %b_1, %one : f32
// CHECK-NEXT:          block.store %c, %C[%vi_1, %vj_1] : memref<8x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @inner(%A: memref<8x4xf32>, %C: memref<8x4xf32>) {
  %B = block.alloc : memref<8x4xf32>
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        %two = arith.constant 2.000000e+00 : f32
        %b = arith.mulf %a, %two : f32
        block.store %b, %B[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "C"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %b = block.load %B[%vi, %vj] : memref<8x4xf32>
        %one = arith.constant 1.000000e+00 : f32
        %c = arith.addf %b, %one : f32
        block.store %c, %C[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  func.return
}

// B's i split by 4 over 10 rows: the last i_0 iteration produces rows 8 and 9 only
// (B's `where`), and C's new nest gets the same guard.
// RAGGED-LABEL: func.func @ragged
// RAGGED-NEXT:    %B = block.alloc : memref<10x4xf32>
// RAGGED-NEXT:    block.for %i0 = 0 to 3 "i_0" {
// RAGGED-NEXT:      block.for %i1 = 0 to 4 "i_1" {
// RAGGED-NEXT:        block.for %j = 0 to 4 "j" {
// RAGGED-NEXT:          block.block "B"(%vi = spatial(10, %i0 * 4 + %i1), %vj = spatial(4, %j)) where(%i0 * 4 + %i1 < 10) {
// RAGGED-NEXT:            %a = block.load %A[%vi, %vj] : memref<10x4xf32>
// RAGGED-NEXT:            %two = arith.constant 2.000000e+00 : f32
// RAGGED-NEXT:            %b = arith.mulf %a, %two : f32
// RAGGED-NEXT:            block.store %b, %B[%vi, %vj] : memref<10x4xf32>
// RAGGED-NEXT:          }
// RAGGED-NEXT:        }
// RAGGED-NEXT:      }
// RAGGED-NEXT:      block.for %ax0 = 0 to 4 "ax0" {
// RAGGED-NEXT:        block.for %ax1 = 0 to 4 "ax1" {
// RAGGED-NEXT:          block.block "C"(%vi_1 = spatial(10, %i0 * 4 + %ax0), %vj_1 = spatial(4, %ax1)) where(%i0 * 4 + %ax0 < 10) {
// RAGGED-NEXT:            %b_1 = block.load %B[%vi_1, %vj_1] : memref<10x4xf32>
// RAGGED-NEXT:            %one = arith.constant 1.000000e+00 : f32
// RAGGED-NEXT:            %c = arith.addf %b_1, %one : f32
// RAGGED-NEXT:            block.store %c, %C[%vi_1, %vj_1] : memref<10x4xf32>
// RAGGED-NEXT:          }
// RAGGED-NEXT:        }
// RAGGED-NEXT:      }
// RAGGED-NEXT:    }
// RAGGED-NEXT:    func.return
func.func @ragged(%A: memref<10x4xf32>, %C: memref<10x4xf32>) {
  %B = block.alloc : memref<10x4xf32>
  block.for %i = 0 to 10 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "B"(%vi = spatial(10, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<10x4xf32>
        %two = arith.constant 2.000000e+00 : f32
        %b = arith.mulf %a, %two : f32
        block.store %b, %B[%vi, %vj] : memref<10x4xf32>
      }
    }
  }
  block.for %i = 0 to 10 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "C"(%vi = spatial(10, %i), %vj = spatial(4, %j)) {
        %b = block.load %B[%vi, %vj] : memref<10x4xf32>
        %one = arith.constant 1.000000e+00 : f32
        %c = arith.addf %b, %one : f32
        block.store %c, %C[%vi, %vj] : memref<10x4xf32>
      }
    }
  }
  func.return
}

// A vector add split and bound to blockIdx.x / threadIdx.x, its result cached in
// "local" memory (cache-write), written back per thread: reverse-compute-at at i_1 makes
// each thread copy the one element it computed.
// GPU-LABEL: func.func @local
// GPU-NEXT:    %C_local = block.alloc : memref<256xf32, "local">
// GPU-NEXT:    block.for %i0 = 0 to 2 "i_0" bind("blockIdx.x") {
// GPU-NEXT:      block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// GPU-NEXT:        block.block "C"(%vi = spatial(256, %i0 * 128 + %i1)) {
// GPU-NEXT:          %a = block.load %A[%vi] : memref<256xf32>
// GPU-NEXT:          %b = block.load %B[%vi] : memref<256xf32>
// GPU-NEXT:          %sum = arith.addf %a, %b : f32
// GPU-NEXT:          block.store %sum, %C_local[%vi] : memref<256xf32, "local">
// GPU-NEXT:        }
// GPU-NEXT:        block.block "C_local"(%v0 = spatial(256, %i0 * 128 + %i1)) {
// GPU-NEXT:          %0 = block.load %C_local[%v0] : memref<256xf32, "local">
// GPU-NEXT:          block.store %0, %C[%v0] : memref<256xf32>
// GPU-NEXT:        }
// GPU-NEXT:      }
// GPU-NEXT:    }
// GPU-NEXT:    func.return
func.func @local(%A: memref<256xf32>, %B: memref<256xf32>, %C: memref<256xf32>) {
  block.for %i = 0 to 256 "i" {
    block.block "C"(%vi = spatial(256, %i)) {
      %a = block.load %A[%vi] : memref<256xf32>
      %b = block.load %B[%vi] : memref<256xf32>
      %sum = arith.addf %a, %b : f32
      block.store %sum, %C[%vi] : memref<256xf32>
    }
  }
  func.return
}

// The same with a "shared" cache. TVM's reverse_compute_at never relaxes thread loops
// by storage scope (CalculateProvidedRequiredRegions: relax_storage_scope=is_compute_at),
// so each thread still copies only its own element. (Copying the whole thread block's
// 128 elements from every thread would read other threads' results before a barrier.)
// SCOPE-LABEL: func.func @shared
// SCOPE-NEXT:    %C_shared = block.alloc : memref<256xf32, "shared">
// SCOPE-NEXT:    block.for %i0 = 0 to 2 "i_0" bind("blockIdx.x") {
// SCOPE-NEXT:      block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// SCOPE-NEXT:        block.block "C"(%vi = spatial(256, %i0 * 128 + %i1)) {
// SCOPE-NEXT:          %a = block.load %A[%vi] : memref<256xf32>
// SCOPE-NEXT:          %b = block.load %B[%vi] : memref<256xf32>
// SCOPE-NEXT:          %sum = arith.addf %a, %b : f32
// SCOPE-NEXT:          block.store %sum, %C_shared[%vi] : memref<256xf32, "shared">
// SCOPE-NEXT:        }
// SCOPE-NEXT:        block.block "C_shared"(%v0 = spatial(256, %i0 * 128 + %i1)) {
// SCOPE-NEXT:          %0 = block.load %C_shared[%v0] : memref<256xf32, "shared">
// SCOPE-NEXT:          block.store %0, %C[%v0] : memref<256xf32>
// SCOPE-NEXT:        }
// SCOPE-NEXT:      }
// SCOPE-NEXT:    }
// SCOPE-NEXT:    func.return
func.func @shared(%A: memref<256xf32>, %B: memref<256xf32>, %C: memref<256xf32>) {
  block.for %i = 0 to 256 "i" {
    block.block "C"(%vi = spatial(256, %i)) {
      %a = block.load %A[%vi] : memref<256xf32>
      %b = block.load %B[%vi] : memref<256xf32>
      %sum = arith.addf %a, %b : f32
      block.store %sum, %C[%vi] : memref<256xf32>
    }
  }
  func.return
}

// Two producers X and Y under i, then Z, which touches neither X nor Y nor D's output.
// TVM inserts at the last possible point by default (index=-1: before the first
// consumer of D under the loop, here none, so at the end of the body): D goes after Z.
// (Block variables renamed by the printer are matched loosely.)
// POSITION-LABEL: func.func @two_producers
// POSITION-NEXT:    %X = block.alloc : memref<8x4xf32>
// POSITION-NEXT:    %Y = block.alloc : memref<8x4xf32>
// POSITION-NEXT:    block.for %i = 0 to 8 "i" {
// POSITION-NEXT:      block.for %j = 0 to 4 "j" {
// POSITION-NEXT:        block.block "X"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
// POSITION-NEXT:          %a = block.load %A[%vi, %vj] : memref<8x4xf32>
// POSITION-NEXT:          %x = arith.addf %a, %a : f32
// POSITION-NEXT:          block.store %x, %X[%vi, %vj] : memref<8x4xf32>
// POSITION-NEXT:        }
// POSITION-NEXT:      }
// POSITION-NEXT:      block.for %j_1 = 0 to 4 "j" {
// POSITION-NEXT:        block.block "Y"(%vi_1 = spatial(8, %i), %vj_1 = spatial(4, %j_1)) {
// POSITION-NEXT:          %a_1 = block.load %A[%vi_1, %vj_1] : memref<8x4xf32>
// POSITION-NEXT:          %y = arith.mulf %a_1, %a_1 : f32
// POSITION-NEXT:          block.store %y, %Y[%vi_1, %vj_1] : memref<8x4xf32>
// POSITION-NEXT:        }
// POSITION-NEXT:      }
// POSITION-NEXT:      block.block "Z"([[ZI:%vi_[0-9]+]] = spatial(8, %i)) {
// POSITION-NEXT:        %zero = arith.constant 0.000000e+00 : f32
// POSITION-NEXT:        block.store %zero, %E[[[ZI]]] : memref<8xf32>
// POSITION-NEXT:      }
// POSITION-NEXT:      block.for %ax0 = 0 to 4 "ax0" {
// POSITION-NEXT:        block.block "D"([[DI:%vi_[0-9]+]] = spatial(8, %i), [[DJ:%vj_[0-9]+]] = spatial(4, %ax0)) {
// POSITION-NEXT:          [[X:%x_1]] = block.load %X[[[DI]], [[DJ]]] : memref<8x4xf32>
// POSITION-NEXT:          [[Y:%y_1]] = block.load %Y[[[DI]], [[DJ]]] : memref<8x4xf32>
// POSITION-NEXT:          %d = arith.addf [[X]], [[Y]] : f32
// POSITION-NEXT:          block.store %d, %D[[[DI]], [[DJ]]] : memref<8x4xf32>
// POSITION-NEXT:        }
// POSITION-NEXT:      }
// POSITION-NEXT:    }
// POSITION-NEXT:    func.return
func.func @two_producers(%A: memref<8x4xf32>, %D: memref<8x4xf32>, %E: memref<8xf32>) {
  %X = block.alloc : memref<8x4xf32>
  %Y = block.alloc : memref<8x4xf32>
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "X"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        %x = arith.addf %a, %a : f32
        block.store %x, %X[%vi, %vj] : memref<8x4xf32>
      }
    }
    block.for %j = 0 to 4 "j" {
      block.block "Y"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x4xf32>
        %y = arith.mulf %a, %a : f32
        block.store %y, %Y[%vi, %vj] : memref<8x4xf32>
      }
    }
    block.block "Z"(%vi = spatial(8, %i)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %E[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 4 "j" {
      block.block "D"(%vi = spatial(8, %i), %vj = spatial(4, %j)) {
        %x = block.load %X[%vi, %vj] : memref<8x4xf32>
        %y = block.load %Y[%vi, %vj] : memref<8x4xf32>
        %d = arith.addf %x, %y : f32
        block.store %d, %D[%vi, %vj] : memref<8x4xf32>
      }
    }
  }
  func.return
}

// At its new place the consumer runs the instances it ran: those its predicate let
// through (where), or the part of its domain its loops reach (part). The producer
// writes all 16 elements of T; C only 10 of C, so the new nest keeps `< 10`.
// WHERE-LABEL: func.func @where
// WHERE:         block.for %ax0 = 0 to 4 "ax0" {
// WHERE-NEXT:      block.block "C"(%w = spatial(16, %i0 * 4 + %ax0)) where(%i0 * 4 + %ax0 < 10) {
func.func @where(%A: memref<16xf32>, %C: memref<16xf32>) {
  %T = block.alloc : memref<16xf32>
  block.for %i = 0 to 16 "i" {
    block.block "T"(%v = spatial(16, %i)) {
      %a = block.load %A[%v] : memref<16xf32>
      block.store %a, %T[%v] : memref<16xf32>
    }
  }
  block.for %j = 0 to 16 "j" {
    block.block "C"(%w = spatial(16, %j)) where(%j < 10) {
      %t = block.load %T[%w] : memref<16xf32>
      block.store %t, %C[%w] : memref<16xf32>
    }
  }
  func.return
}

// WHERE-LABEL: func.func @part
// WHERE:         block.for %ax0 = 0 to 4 "ax0" {
// WHERE-NEXT:      block.block "C"(%w = spatial(16, %i0 * 4 + %ax0)) where(%i0 * 4 + %ax0 < 10) {
func.func @part(%A: memref<16xf32>, %C: memref<16xf32>) {
  %T = block.alloc : memref<16xf32>
  block.for %i = 0 to 16 "i" {
    block.block "T"(%v = spatial(16, %i)) {
      %a = block.load %A[%v] : memref<16xf32>
      block.store %a, %T[%v] : memref<16xf32>
    }
  }
  block.for %j = 0 to 10 "j" {
    block.block "C"(%w = spatial(16, %j)) {
      %t = block.load %T[%w] : memref<16xf32>
      block.store %t, %C[%w] : memref<16xf32>
    }
  }
  func.return
}
