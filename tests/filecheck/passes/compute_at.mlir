// RUN: xtir-opt %s -p 'compute-at{func=outer block=B loop="C/i"},compute-at{func=unit block=B loop="C/i" preserve_unit_loops=true},compute-at{func=inner block=B loop="C/j"},compute-at{func=two_consumers block=B loop=i},compute-at{func=reduction block=B loop=i}' | filecheck %s
// RUN: xtir-opt %s -p 'split{func=tile loop="C/i" factors=-1,16},split{func=tile loop="C/j" factors=-1,16},reorder{func=tile loops=i_0,j_0,i_1,j_1},blockize{func=tile loop=i_1},compute-at{func=tile block=B loop=j_0},split{func=rows loop="C/i" factors=-1,16},split{func=rows loop="C/j" factors=-1,16},reorder{func=rows loops=i_0,j_0,i_1,j_1},blockize{func=rows loop=i_1},compute-at{func=rows block=B loop=i_0}' | filecheck %s --check-prefix=TILE
// RUN: xtir-opt %s -p 'split{func=window loop=i factors=-1,4},compute-at{func=window block=copy loop=i_0},split{func=window_inner loop=i factors=-1,4},compute-at{func=window_inner block=copy loop=i_1},split{func=window_ragged loop=i factors=-1,5},compute-at{func=window_ragged block=copy loop=i_0},split{func=ragged loop="C/i" factors=-1,4},compute-at{func=ragged block=B loop=i_0}' | filecheck %s --check-prefix=WINDOW
// RUN: xtir-opt %s -p 'split{func=shared loop=i factors=-1,128},bind{func=shared loop=i_0 thread="blockIdx.x"},bind{func=shared loop=i_1 thread="threadIdx.x"},cache-read{func=shared block=B index=0 scope="shared"},compute-at{func=shared block=A_shared loop=i_1},split{func=at_block loop=i factors=-1,128},bind{func=at_block loop=i_0 thread="blockIdx.x"},bind{func=at_block loop=i_1 thread="threadIdx.x"},cache-read{func=at_block block=B index=0 scope="shared"},compute-at{func=at_block block=A_shared loop=i_0},split{func=local loop=i factors=-1,128},bind{func=local loop=i_0 thread="blockIdx.x"},bind{func=local loop=i_1 thread="threadIdx.x"},cache-read{func=local block=B index=0 scope="local"},compute-at{func=local block=A_local loop=i_1},split{func=coop loop=i factors=-1,128},bind{func=coop loop=i_0 thread="blockIdx.x"},bind{func=coop loop=i_1 thread="threadIdx.x"},cache-read{func=coop block=B index=0 scope="shared"},compute-at{func=coop block=A_shared loop=i_1},split{func=coop loop=ax0 factors=-1,128},bind{func=coop loop=ax0_1 thread="threadIdx.x"}' | filecheck %s --check-prefix=GPU
// RUN: xtir-opt %s -p 'split{func=global loop=i factors=-1,128},bind{func=global loop=i_0 thread="blockIdx.x"},bind{func=global loop=i_1 thread="threadIdx.x"},cache-read{func=global block=B index=0 scope="global"},compute-at{func=global block=A_global loop=i_1},split{func=warp_y loop=i factors=-1,128},bind{func=warp_y loop=i_0 thread="blockIdx.x"},bind{func=warp_y loop=i_1 thread="threadIdx.y"},cache-read{func=warp_y block=B index=0 scope="warp"},compute-at{func=warp_y block=A_warp loop=i_1}' | filecheck %s --check-prefix=SCOPE
// RUN: xtir-opt %s -p 'split{func=guarded loop="C/j" factors=-1,4},compute-at{func=guarded block=T loop=j_0}' | filecheck %s --check-prefix=WHERE
// compute-at{block=B loop=L preserve_unit_loops=false} (TVM's sch.compute_at): the
// producer B moves to the start of L's body, before the first statement holding one of
// its consumers, in a new nest ax0, ax1, ... that computes, per iteration of L, only the
// region of its output those consumers read there. Unit loops are dropped unless
// preserve_unit_loops is set; a range that can run past B's domain gets a `where`.
// Most cases use the elementwise chain B = A * 2, C = B + 1 (TVM's two_elementwise);
// the consumer's block variables are renamed by the printer only (%vi_1).
// The SCOPE cases (last RUN line) pin TVM's rule for which thread loops are relaxed
// with the storage scope of the moved block's buffer.

// At C's outer loop i: B computes row i, its column loop becomes ax0 and vi is bound to i
// (the unit loop over the row is dropped). TVM:
//   for i in range(8):
//       for ax0 in range(4):
//           vi = T.axis.spatial(8, i); vj = T.axis.spatial(4, ax0)
// CHECK-LABEL: func.func @outer
// CHECK-NEXT:    %B = block.alloc : memref<8x4xf32>
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.for %ax0 = 0 to 4 "ax0" {
// CHECK-NEXT:        block.block "B"(%vi = spatial(8, %i), %vj = spatial(4, %ax0)) {
// CHECK-NEXT:          %a = block.load %A[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:          %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:          %b = arith.mulf %a, %two : f32
// CHECK-NEXT:          block.store %b, %B[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.block "C"(%vi_1 = spatial(8, %i), %vj_1 = spatial(4, %j)) {
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

// The same with preserve_unit_loops=true: the unit loop stays as ax0 (TVM: vi = i + ax0).
// CHECK-LABEL: func.func @unit
// CHECK-NEXT:    %B = block.alloc : memref<8x4xf32>
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.for %ax0 = 0 to 1 "ax0" {
// CHECK-NEXT:        block.for %ax1 = 0 to 4 "ax1" {
// CHECK-NEXT:          block.block "B"(%vi = spatial(8, %i + %ax0), %vj = spatial(4, %ax1)) {
// CHECK-NEXT:            %a = block.load %A[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:            %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:            %b = arith.mulf %a, %two : f32
// CHECK-NEXT:            block.store %b, %B[%vi, %vj] : memref<8x4xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      block.for %j = 0 to 4 "j" {
// CHECK-NEXT:        block.block "C"(%vi_1 = spatial(8, %i), %vj_1 = spatial(4, %j)) {
// CHECK-NEXT:          %b_1 = block.load %B[%vi_1, %vj_1] : memref<8x4xf32>
// CHECK-NEXT:          %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:          %c = arith.addf %b_1, %one : f32
// CHECK-NEXT:          block.store %c, %C[%vi_1, %vj_1] : memref<8x4xf32>
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

// At the inner loop j: one element per iteration, no loops left; bindings are i, j.
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

// Two consumers under i read B[vi] and B[vi + 2]: B computes the union B[i : i + 3],
// placed after X (which does not read B), just before the first consumer C.
// CHECK-LABEL: func.func @two_consumers
// CHECK-NEXT:    %B = block.alloc : memref<10xf32>
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.block "X"(%vi = spatial(8, %i)) {
// CHECK-NEXT:        %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        block.store %zero, %D[%vi] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      block.for %ax0 = 0 to 3 "ax0" {
// CHECK-NEXT:        block.block "B"(%vj = spatial(10, %i + %ax0)) {
// CHECK-NEXT:          %a = block.load %A[%vj] : memref<10xf32>
// CHECK-NEXT:          %b = arith.mulf %a, %a : f32
// CHECK-NEXT:          block.store %b, %B[%vj] : memref<10xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      block.block "C"(%vi_1 = spatial(8, %i)) {
// CHECK-NEXT:        %b_1 = block.load %B[%vi_1] : memref<10xf32>
// CHECK-NEXT:        block.store %b_1, %C[%vi_1] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      block.block "D"(%vi_2 = spatial(8, %i)) {
// CHECK-NEXT:        %b_2 = block.load %B[%vi_2 + 2] : memref<10xf32>
// CHECK-NEXT:        %d = block.load %D[%vi_2] : memref<8xf32>
// CHECK-NEXT:        %s = arith.addf %b_2, %d : f32
// CHECK-NEXT:        block.store %s, %D[%vi_2] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @two_consumers(%A: memref<10xf32>, %C: memref<8xf32>, %D: memref<8xf32>) {
  %B = block.alloc : memref<10xf32>
  block.for %j = 0 to 10 "j" {
    block.block "B"(%vj = spatial(10, %j)) {
      %a = block.load %A[%vj] : memref<10xf32>
      %b = arith.mulf %a, %a : f32
      block.store %b, %B[%vj] : memref<10xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "X"(%vi = spatial(8, %i)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %D[%vi] : memref<8xf32>
    }
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<10xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
    block.block "D"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi + 2] : memref<10xf32>
      %d = block.load %D[%vi] : memref<8xf32>
      %s = arith.addf %b, %d : f32
      block.store %s, %D[%vi] : memref<8xf32>
    }
  }
  func.return
}

// A reduction producer (as TVM allows: a complete or reduction block): B[x] = sum_k A[x, k]
// at C's loop i computes row i's whole sum, init included, per iteration.
// CHECK-LABEL: func.func @reduction
// CHECK-NEXT:    %B = block.alloc : memref<8xf32>
// CHECK-NEXT:    block.for %i = 0 to 8 "i" {
// CHECK-NEXT:      block.for %ax0 = 0 to 4 "ax0" {
// CHECK-NEXT:        block.block "B"(%vx = spatial(8, %i), %vk = reduce(4, %ax0)) {
// CHECK-NEXT:          block.init {
// CHECK-NEXT:            %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:            block.store %zero, %B[%vx] : memref<8xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:          %s = block.load %B[%vx] : memref<8xf32>
// CHECK-NEXT:          %a = block.load %A[%vx, %vk] : memref<8x4xf32>
// CHECK-NEXT:          %t = arith.addf %s, %a : f32
// CHECK-NEXT:          block.store %t, %B[%vx] : memref<8xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      block.block "C"(%vi = spatial(8, %i)) {
// CHECK-NEXT:        %b = block.load %B[%vi] : memref<8xf32>
// CHECK-NEXT:        %c = arith.addf %b, %b : f32
// CHECK-NEXT:        block.store %c, %C[%vi] : memref<8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @reduction(%A: memref<8x4xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %x = 0 to 8 "x" {
    block.for %k = 0 to 4 "k" {
      block.block "B"(%vx = spatial(8, %x), %vk = reduce(4, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %B[%vx] : memref<8xf32>
        }
        %s = block.load %B[%vx] : memref<8xf32>
        %a = block.load %A[%vx, %vk] : memref<8x4xf32>
        %t = arith.addf %s, %a : f32
        block.store %t, %B[%vx] : memref<8xf32>
      }
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      %c = arith.addf %b, %b : f32
      block.store %c, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}

// A blockized consumer (split by 16, reorder, blockize i_1 into "C_o", as seed 001's
// matmul_o): at j_0 the outer block reads a 16x16 tile of B, and B computes exactly it
// (as tmm_03b_cache_read_compute_at: v0 = i_0 * 16 + ax0).
// TILE-LABEL: func.func @tile
// TILE-NEXT:    %B = block.alloc : memref<32x32xf32>
// TILE-NEXT:    block.for %i0 = 0 to 2 "i_0" {
// TILE-NEXT:      block.for %j0 = 0 to 2 "j_0" {
// TILE-NEXT:        block.for %ax0 = 0 to 16 "ax0" {
// TILE-NEXT:          block.for %ax1 = 0 to 16 "ax1" {
// TILE-NEXT:            block.block "B"(%vi = spatial(32, %i0 * 16 + %ax0), %vj = spatial(32, %j0 * 16 + %ax1)) {
// TILE-NEXT:              %a = block.load %A[%vi, %vj] : memref<32x32xf32>
// TILE-NEXT:              %two = arith.constant 2.000000e+00 : f32
// TILE-NEXT:              %b = arith.mulf %a, %two : f32
// TILE-NEXT:              block.store %b, %B[%vi, %vj] : memref<32x32xf32>
// TILE-NEXT:            }
// TILE-NEXT:          }
// TILE-NEXT:        }
// TILE-NEXT:        block.block "C_o"(%vi_o = spatial(2, %i0), %vj_o = spatial(2, %j0)) {
// TILE-NEXT:          block.for %i1 = 0 to 16 "i_1" {
// TILE-NEXT:            block.for %j1 = 0 to 16 "j_1" {
// TILE-NEXT:              block.block "C"(%vi_i = spatial(16, %i1), %vj_i = spatial(16, %j1)) {
// TILE-NEXT:                %b_1 = block.load %B[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<32x32xf32>
// TILE-NEXT:                %one = arith.constant 1.000000e+00 : f32
// TILE-NEXT:                %c = arith.addf %b_1, %one : f32
// TILE-NEXT:                block.store %c, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<32x32xf32>
// TILE-NEXT:              }
// TILE-NEXT:            }
// TILE-NEXT:          }
// TILE-NEXT:        }
// TILE-NEXT:      }
// TILE-NEXT:    }
// TILE-NEXT:    func.return
func.func @tile(%A: memref<32x32xf32>, %C: memref<32x32xf32>) {
  %B = block.alloc : memref<32x32xf32>
  block.for %i = 0 to 32 "i" {
    block.for %j = 0 to 32 "j" {
      block.block "B"(%vi = spatial(32, %i), %vj = spatial(32, %j)) {
        %a = block.load %A[%vi, %vj] : memref<32x32xf32>
        %two = arith.constant 2.000000e+00 : f32
        %b = arith.mulf %a, %two : f32
        block.store %b, %B[%vi, %vj] : memref<32x32xf32>
      }
    }
  }
  block.for %i = 0 to 32 "i" {
    block.for %j = 0 to 32 "j" {
      block.block "C"(%vi = spatial(32, %i), %vj = spatial(32, %j)) {
        %b = block.load %B[%vi, %vj] : memref<32x32xf32>
        %one = arith.constant 1.000000e+00 : f32
        %c = arith.addf %b, %one : f32
        block.store %c, %C[%vi, %vj] : memref<32x32xf32>
      }
    }
  }
  func.return
}

// At i_0, above j_0: j_0 is relaxed, so B computes a 16x32 band of rows per i_0.
// TILE-LABEL: func.func @rows
// TILE-NEXT:    %B = block.alloc : memref<32x32xf32>
// TILE-NEXT:    block.for %i0 = 0 to 2 "i_0" {
// TILE-NEXT:      block.for %ax0 = 0 to 16 "ax0" {
// TILE-NEXT:        block.for %ax1 = 0 to 32 "ax1" {
// TILE-NEXT:          block.block "B"(%vi = spatial(32, %i0 * 16 + %ax0), %vj = spatial(32, %ax1)) {
// TILE-NEXT:            %a = block.load %A[%vi, %vj] : memref<32x32xf32>
// TILE-NEXT:            %two = arith.constant 2.000000e+00 : f32
// TILE-NEXT:            %b = arith.mulf %a, %two : f32
// TILE-NEXT:            block.store %b, %B[%vi, %vj] : memref<32x32xf32>
// TILE-NEXT:          }
// TILE-NEXT:        }
// TILE-NEXT:      }
// TILE-NEXT:      block.for %j0 = 0 to 2 "j_0" {
// TILE-NEXT:        block.block "C_o"(%vi_o = spatial(2, %i0), %vj_o = spatial(2, %j0)) {
// TILE-NEXT:          block.for %i1 = 0 to 16 "i_1" {
// TILE-NEXT:            block.for %j1 = 0 to 16 "j_1" {
// TILE-NEXT:              block.block "C"(%vi_i = spatial(16, %i1), %vj_i = spatial(16, %j1)) {
// TILE-NEXT:                %b_1 = block.load %B[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<32x32xf32>
// TILE-NEXT:                %one = arith.constant 1.000000e+00 : f32
// TILE-NEXT:                %c = arith.addf %b_1, %one : f32
// TILE-NEXT:                block.store %c, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<32x32xf32>
// TILE-NEXT:              }
// TILE-NEXT:            }
// TILE-NEXT:          }
// TILE-NEXT:        }
// TILE-NEXT:      }
// TILE-NEXT:    }
// TILE-NEXT:    func.return
func.func @rows(%A: memref<32x32xf32>, %C: memref<32x32xf32>) {
  %B = block.alloc : memref<32x32xf32>
  block.for %i = 0 to 32 "i" {
    block.for %j = 0 to 32 "j" {
      block.block "B"(%vi = spatial(32, %i), %vj = spatial(32, %j)) {
        %a = block.load %A[%vi, %vj] : memref<32x32xf32>
        %two = arith.constant 2.000000e+00 : f32
        %b = arith.mulf %a, %two : f32
        block.store %b, %B[%vi, %vj] : memref<32x32xf32>
      }
    }
  }
  block.for %i = 0 to 32 "i" {
    block.for %j = 0 to 32 "j" {
      block.block "C"(%vi = spatial(32, %i), %vj = spatial(32, %j)) {
        %b = block.load %B[%vi, %vj] : memref<32x32xf32>
        %one = arith.constant 1.000000e+00 : f32
        %c = arith.addf %b, %one : f32
        block.store %c, %C[%vi, %vj] : memref<32x32xf32>
      }
    }
  }
  func.return
}

// A consumer reading a window: B[vi] = A1[vi] + A1[vi + 1] + A1[vi + 2], with A1 made by
// "copy". With i split by 4, one i_0 iteration reads A1[i_0 * 4 : i_0 * 4 + 6]:
// 6 elements, overlapping the next iteration's by 2 (recomputed, as in TVM).
// WINDOW-LABEL: func.func @window
// WINDOW-NEXT:    %A1 = block.alloc : memref<18xf32>
// WINDOW-NEXT:    block.for %i0 = 0 to 4 "i_0" {
// WINDOW-NEXT:      block.for %ax0 = 0 to 6 "ax0" {
// WINDOW-NEXT:        block.block "copy"(%vc = spatial(18, %i0 * 4 + %ax0)) {
// WINDOW-NEXT:          %a = block.load %A[%vc] : memref<18xf32>
// WINDOW-NEXT:          block.store %a, %A1[%vc] : memref<18xf32>
// WINDOW-NEXT:        }
// WINDOW-NEXT:      }
// WINDOW-NEXT:      block.for %i1 = 0 to 4 "i_1" {
// WINDOW-NEXT:        block.block "B"(%vi = spatial(16, %i0 * 4 + %i1)) {
// WINDOW-NEXT:          %a0 = block.load %A1[%vi] : memref<18xf32>
// WINDOW-NEXT:          %a1 = block.load %A1[%vi + 1] : memref<18xf32>
// WINDOW-NEXT:          %a2 = block.load %A1[%vi + 2] : memref<18xf32>
// WINDOW-NEXT:          %s01 = arith.addf %a0, %a1 : f32
// WINDOW-NEXT:          %sum = arith.addf %s01, %a2 : f32
// WINDOW-NEXT:          block.store %sum, %B[%vi] : memref<16xf32>
// WINDOW-NEXT:        }
// WINDOW-NEXT:      }
// WINDOW-NEXT:    }
// WINDOW-NEXT:    func.return
func.func @window(%A: memref<18xf32>, %B: memref<16xf32>) {
  %A1 = block.alloc : memref<18xf32>
  block.for %c = 0 to 18 "c" {
    block.block "copy"(%vc = spatial(18, %c)) {
      %a = block.load %A[%vc] : memref<18xf32>
      block.store %a, %A1[%vc] : memref<18xf32>
    }
  }
  block.for %i = 0 to 16 "i" {
    block.block "B"(%vi = spatial(16, %i)) {
      %a0 = block.load %A1[%vi] : memref<18xf32>
      %a1 = block.load %A1[%vi + 1] : memref<18xf32>
      %a2 = block.load %A1[%vi + 2] : memref<18xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<16xf32>
    }
  }
  func.return
}

// At i_1: the 3 elements one B reads.
// WINDOW-LABEL: func.func @window_inner
// WINDOW-NEXT:    %A1 = block.alloc : memref<18xf32>
// WINDOW-NEXT:    block.for %i0 = 0 to 4 "i_0" {
// WINDOW-NEXT:      block.for %i1 = 0 to 4 "i_1" {
// WINDOW-NEXT:        block.for %ax0 = 0 to 3 "ax0" {
// WINDOW-NEXT:          block.block "copy"(%vc = spatial(18, %i0 * 4 + %i1 + %ax0)) {
// WINDOW-NEXT:            %a = block.load %A[%vc] : memref<18xf32>
// WINDOW-NEXT:            block.store %a, %A1[%vc] : memref<18xf32>
// WINDOW-NEXT:          }
// WINDOW-NEXT:        }
// WINDOW-NEXT:        block.block "B"(%vi = spatial(16, %i0 * 4 + %i1)) {
// WINDOW-NEXT:          %a0 = block.load %A1[%vi] : memref<18xf32>
// WINDOW-NEXT:          %a1 = block.load %A1[%vi + 1] : memref<18xf32>
// WINDOW-NEXT:          %a2 = block.load %A1[%vi + 2] : memref<18xf32>
// WINDOW-NEXT:          %s01 = arith.addf %a0, %a1 : f32
// WINDOW-NEXT:          %sum = arith.addf %s01, %a2 : f32
// WINDOW-NEXT:          block.store %sum, %B[%vi] : memref<16xf32>
// WINDOW-NEXT:        }
// WINDOW-NEXT:      }
// WINDOW-NEXT:    }
// WINDOW-NEXT:    func.return
func.func @window_inner(%A: memref<18xf32>, %B: memref<16xf32>) {
  %A1 = block.alloc : memref<18xf32>
  block.for %c = 0 to 18 "c" {
    block.block "copy"(%vc = spatial(18, %c)) {
      %a = block.load %A[%vc] : memref<18xf32>
      block.store %a, %A1[%vc] : memref<18xf32>
    }
  }
  block.for %i = 0 to 16 "i" {
    block.block "B"(%vi = spatial(16, %i)) {
      %a0 = block.load %A1[%vi] : memref<18xf32>
      %a1 = block.load %A1[%vi + 1] : memref<18xf32>
      %a2 = block.load %A1[%vi + 2] : memref<18xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<16xf32>
    }
  }
  func.return
}

// Split by 5, which does not divide 16: the last i_0 iteration's window
// A1[15 : 22] runs past A1's 18 elements, so the moved block gets `where(... < 18)`.
// WINDOW-LABEL: func.func @window_ragged
// WINDOW-NEXT:    %A1 = block.alloc : memref<18xf32>
// WINDOW-NEXT:    block.for %i0 = 0 to 4 "i_0" {
// WINDOW-NEXT:      block.for %ax0 = 0 to 7 "ax0" {
// WINDOW-NEXT:        block.block "copy"(%vc = spatial(18, %i0 * 5 + %ax0)) where(%i0 * 5 + %ax0 < 18) {
// WINDOW-NEXT:          %a = block.load %A[%vc] : memref<18xf32>
// WINDOW-NEXT:          block.store %a, %A1[%vc] : memref<18xf32>
// WINDOW-NEXT:        }
// WINDOW-NEXT:      }
// WINDOW-NEXT:      block.for %i1 = 0 to 5 "i_1" {
// WINDOW-NEXT:        block.block "B"(%vi = spatial(16, %i0 * 5 + %i1)) where(%i0 * 5 + %i1 < 16) {
// WINDOW-NEXT:          %a0 = block.load %A1[%vi] : memref<18xf32>
// WINDOW-NEXT:          %a1 = block.load %A1[%vi + 1] : memref<18xf32>
// WINDOW-NEXT:          %a2 = block.load %A1[%vi + 2] : memref<18xf32>
// WINDOW-NEXT:          %s01 = arith.addf %a0, %a1 : f32
// WINDOW-NEXT:          %sum = arith.addf %s01, %a2 : f32
// WINDOW-NEXT:          block.store %sum, %B[%vi] : memref<16xf32>
// WINDOW-NEXT:        }
// WINDOW-NEXT:      }
// WINDOW-NEXT:    }
// WINDOW-NEXT:    func.return
func.func @window_ragged(%A: memref<18xf32>, %B: memref<16xf32>) {
  %A1 = block.alloc : memref<18xf32>
  block.for %c = 0 to 18 "c" {
    block.block "copy"(%vc = spatial(18, %c)) {
      %a = block.load %A[%vc] : memref<18xf32>
      block.store %a, %A1[%vc] : memref<18xf32>
    }
  }
  block.for %i = 0 to 16 "i" {
    block.block "B"(%vi = spatial(16, %i)) {
      %a0 = block.load %A1[%vi] : memref<18xf32>
      %a1 = block.load %A1[%vi + 1] : memref<18xf32>
      %a2 = block.load %A1[%vi + 2] : memref<18xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<16xf32>
    }
  }
  func.return
}

// The elementwise chain with 10 rows, C's i split by 4: the last i_0 iteration would
// compute rows 8 to 11 of B, so B gets `where(%i0 * 4 + %ax0 < 10)`, like C.
// WINDOW-LABEL: func.func @ragged
// WINDOW-NEXT:    %B = block.alloc : memref<10x4xf32>
// WINDOW-NEXT:    block.for %i0 = 0 to 3 "i_0" {
// WINDOW-NEXT:      block.for %ax0 = 0 to 4 "ax0" {
// WINDOW-NEXT:        block.for %ax1 = 0 to 4 "ax1" {
// WINDOW-NEXT:          block.block "B"(%vi = spatial(10, %i0 * 4 + %ax0), %vj = spatial(4, %ax1)) where(%i0 * 4 + %ax0 < 10) {
// WINDOW-NEXT:            %a = block.load %A[%vi, %vj] : memref<10x4xf32>
// WINDOW-NEXT:            %two = arith.constant 2.000000e+00 : f32
// WINDOW-NEXT:            %b = arith.mulf %a, %two : f32
// WINDOW-NEXT:            block.store %b, %B[%vi, %vj] : memref<10x4xf32>
// WINDOW-NEXT:          }
// WINDOW-NEXT:        }
// WINDOW-NEXT:      }
// WINDOW-NEXT:      block.for %i1 = 0 to 4 "i_1" {
// WINDOW-NEXT:        block.for %j = 0 to 4 "j" {
// WINDOW-NEXT:          block.block "C"(%vi_1 = spatial(10, %i0 * 4 + %i1), %vj_1 = spatial(4, %j)) where(%i0 * 4 + %i1 < 10) {
// WINDOW-NEXT:            %b_1 = block.load %B[%vi_1, %vj_1] : memref<10x4xf32>
// WINDOW-NEXT:            %one = arith.constant 1.000000e+00 : f32
// WINDOW-NEXT:            %c = arith.addf %b_1, %one : f32
// WINDOW-NEXT:            block.store %c, %C[%vi_1, %vj_1] : memref<10x4xf32>
// WINDOW-NEXT:          }
// WINDOW-NEXT:        }
// WINDOW-NEXT:      }
// WINDOW-NEXT:    }
// WINDOW-NEXT:    func.return
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

// Seed 002's window sum on the GPU (examples/window_sum.mlir): split i by 128, bind
// blockIdx.x / threadIdx.x, cache A in "shared", compute-at the thread loop i_1. All 128
// threads of a block share A_shared, so i_1 is relaxed and the copy covers the whole
// block's window, 128 + 2 elements (reference/tvm/ir/gpu_window_03_compute_at):
//   for ax0 in range(130):
//       v0 = T.axis.spatial(1026, i_0 * 128 + ax0)
// GPU-LABEL: func.func @shared
// GPU-NEXT:    %A_shared = block.alloc : memref<1026xf32, "shared">
// GPU-NEXT:    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// GPU-NEXT:      block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// GPU-NEXT:        block.for %ax0 = 0 to 130 "ax0" {
// GPU-NEXT:          block.block "A_shared"(%v0 = spatial(1026, %i0 * 128 + %ax0)) {
// GPU-NEXT:            %0 = block.load %A[%v0] : memref<1026xf32>
// GPU-NEXT:            block.store %0, %A_shared[%v0] : memref<1026xf32, "shared">
// GPU-NEXT:          }
// GPU-NEXT:        }
// GPU-NEXT:        block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// GPU-NEXT:          %a0 = block.load %A_shared[%vi] : memref<1026xf32, "shared">
// GPU-NEXT:          %a1 = block.load %A_shared[%vi + 1] : memref<1026xf32, "shared">
// GPU-NEXT:          %a2 = block.load %A_shared[%vi + 2] : memref<1026xf32, "shared">
// GPU-NEXT:          %s01 = arith.addf %a0, %a1 : f32
// GPU-NEXT:          %sum = arith.addf %s01, %a2 : f32
// GPU-NEXT:          block.store %sum, %B[%vi] : memref<1024xf32>
// GPU-NEXT:        }
// GPU-NEXT:      }
// GPU-NEXT:    }
// GPU-NEXT:    func.return
func.func @shared(%A: memref<1026xf32>, %B: memref<1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.block "B"(%vi = spatial(1024, %i)) {
      %a0 = block.load %A[%vi] : memref<1026xf32>
      %a1 = block.load %A[%vi + 1] : memref<1026xf32>
      %a2 = block.load %A[%vi + 2] : memref<1026xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<1024xf32>
    }
  }
  func.return
}

// The same at the blockIdx.x loop i_0: the same 130 elements, before the thread loop.
// GPU-LABEL: func.func @at_block
// GPU-NEXT:    %A_shared = block.alloc : memref<1026xf32, "shared">
// GPU-NEXT:    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// GPU-NEXT:      block.for %ax0 = 0 to 130 "ax0" {
// GPU-NEXT:        block.block "A_shared"(%v0 = spatial(1026, %i0 * 128 + %ax0)) {
// GPU-NEXT:          %0 = block.load %A[%v0] : memref<1026xf32>
// GPU-NEXT:          block.store %0, %A_shared[%v0] : memref<1026xf32, "shared">
// GPU-NEXT:        }
// GPU-NEXT:      }
// GPU-NEXT:      block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// GPU-NEXT:        block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// GPU-NEXT:          %a0 = block.load %A_shared[%vi] : memref<1026xf32, "shared">
// GPU-NEXT:          %a1 = block.load %A_shared[%vi + 1] : memref<1026xf32, "shared">
// GPU-NEXT:          %a2 = block.load %A_shared[%vi + 2] : memref<1026xf32, "shared">
// GPU-NEXT:          %s01 = arith.addf %a0, %a1 : f32
// GPU-NEXT:          %sum = arith.addf %s01, %a2 : f32
// GPU-NEXT:          block.store %sum, %B[%vi] : memref<1024xf32>
// GPU-NEXT:        }
// GPU-NEXT:      }
// GPU-NEXT:    }
// GPU-NEXT:    func.return
func.func @at_block(%A: memref<1026xf32>, %B: memref<1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.block "B"(%vi = spatial(1024, %i)) {
      %a0 = block.load %A[%vi] : memref<1026xf32>
      %a1 = block.load %A[%vi + 1] : memref<1026xf32>
      %a2 = block.load %A[%vi + 2] : memref<1026xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<1024xf32>
    }
  }
  func.return
}

// A "local" cache is private to a thread: i_1 is not relaxed, each thread copies its own
// 3 elements.
// GPU-LABEL: func.func @local
// GPU-NEXT:    %A_local = block.alloc : memref<1026xf32, "local">
// GPU-NEXT:    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// GPU-NEXT:      block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// GPU-NEXT:        block.for %ax0 = 0 to 3 "ax0" {
// GPU-NEXT:          block.block "A_local"(%v0 = spatial(1026, %i0 * 128 + %i1 + %ax0)) {
// GPU-NEXT:            %0 = block.load %A[%v0] : memref<1026xf32>
// GPU-NEXT:            block.store %0, %A_local[%v0] : memref<1026xf32, "local">
// GPU-NEXT:          }
// GPU-NEXT:        }
// GPU-NEXT:        block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// GPU-NEXT:          %a0 = block.load %A_local[%vi] : memref<1026xf32, "local">
// GPU-NEXT:          %a1 = block.load %A_local[%vi + 1] : memref<1026xf32, "local">
// GPU-NEXT:          %a2 = block.load %A_local[%vi + 2] : memref<1026xf32, "local">
// GPU-NEXT:          %s01 = arith.addf %a0, %a1 : f32
// GPU-NEXT:          %sum = arith.addf %s01, %a2 : f32
// GPU-NEXT:          block.store %sum, %B[%vi] : memref<1024xf32>
// GPU-NEXT:        }
// GPU-NEXT:      }
// GPU-NEXT:    }
// GPU-NEXT:    func.return
func.func @local(%A: memref<1026xf32>, %B: memref<1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.block "B"(%vi = spatial(1024, %i)) {
      %a0 = block.load %A[%vi] : memref<1026xf32>
      %a1 = block.load %A[%vi + 1] : memref<1026xf32>
      %a2 = block.load %A[%vi + 2] : memref<1026xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<1024xf32>
    }
  }
  func.return
}

// Cooperative fetching: split the copy loop by 128 and bind it to threadIdx.x; the
// 130 elements need 2 rounds, the second guarded (reference/tvm/ir/gpu_window_04_coop_fetch).
// GPU-LABEL: func.func @coop
// GPU-NEXT:    %A_shared = block.alloc : memref<1026xf32, "shared">
// GPU-NEXT:    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// GPU-NEXT:      block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// GPU-NEXT:        block.for %ax00 = 0 to 2 "ax0_0" {
// GPU-NEXT:          block.for %ax01 = 0 to 128 "ax0_1" bind("threadIdx.x") {
// GPU-NEXT:            block.block "A_shared"(%v0 = spatial(1026, %i0 * 128 + %ax00 * 128 + %ax01)) where(%ax00 * 128 + %ax01 < 130) {
// GPU-NEXT:              %0 = block.load %A[%v0] : memref<1026xf32>
// GPU-NEXT:              block.store %0, %A_shared[%v0] : memref<1026xf32, "shared">
// GPU-NEXT:            }
// GPU-NEXT:          }
// GPU-NEXT:        }
// GPU-NEXT:        block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// GPU-NEXT:          %a0 = block.load %A_shared[%vi] : memref<1026xf32, "shared">
// GPU-NEXT:          %a1 = block.load %A_shared[%vi + 1] : memref<1026xf32, "shared">
// GPU-NEXT:          %a2 = block.load %A_shared[%vi + 2] : memref<1026xf32, "shared">
// GPU-NEXT:          %s01 = arith.addf %a0, %a1 : f32
// GPU-NEXT:          %sum = arith.addf %s01, %a2 : f32
// GPU-NEXT:          block.store %sum, %B[%vi] : memref<1024xf32>
// GPU-NEXT:        }
// GPU-NEXT:      }
// GPU-NEXT:    }
// GPU-NEXT:    func.return
func.func @coop(%A: memref<1026xf32>, %B: memref<1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.block "B"(%vi = spatial(1024, %i)) {
      %a0 = block.load %A[%vi] : memref<1026xf32>
      %a1 = block.load %A[%vi + 1] : memref<1026xf32>
      %a2 = block.load %A[%vi + 2] : memref<1026xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<1024xf32>
    }
  }
  func.return
}

// TVM relaxes thread loops only for a buffer of a scope below global
// (LoopDomainOfSRefTreePath: `extra_relax_scope.rank != kGlobal`). A "global" cache
// at the thread loop is therefore not relaxed at all: each thread copies its own 3
// elements, as for "local" (not all 1026 elements per thread).
// SCOPE-LABEL: func.func @global
// SCOPE-NEXT:    %A_global = block.alloc : memref<1026xf32, "global">
// SCOPE-NEXT:    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// SCOPE-NEXT:      block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
// SCOPE-NEXT:        block.for %ax0 = 0 to 3 "ax0" {
// SCOPE-NEXT:          block.block "A_global"(%v0 = spatial(1026, %i0 * 128 + %i1 + %ax0)) {
// SCOPE-NEXT:            %0 = block.load %A[%v0] : memref<1026xf32>
// SCOPE-NEXT:            block.store %0, %A_global[%v0] : memref<1026xf32, "global">
// SCOPE-NEXT:          }
// SCOPE-NEXT:        }
// SCOPE-NEXT:        block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// SCOPE-NEXT:          %a0 = block.load %A_global[%vi] : memref<1026xf32, "global">
// SCOPE-NEXT:          %a1 = block.load %A_global[%vi + 1] : memref<1026xf32, "global">
// SCOPE-NEXT:          %a2 = block.load %A_global[%vi + 2] : memref<1026xf32, "global">
// SCOPE-NEXT:          %s01 = arith.addf %a0, %a1 : f32
// SCOPE-NEXT:          %sum = arith.addf %s01, %a2 : f32
// SCOPE-NEXT:          block.store %sum, %B[%vi] : memref<1024xf32>
// SCOPE-NEXT:        }
// SCOPE-NEXT:      }
// SCOPE-NEXT:    }
// SCOPE-NEXT:    func.return
func.func @global(%A: memref<1026xf32>, %B: memref<1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.block "B"(%vi = spatial(1024, %i)) {
      %a0 = block.load %A[%vi] : memref<1026xf32>
      %a1 = block.load %A[%vi + 1] : memref<1026xf32>
      %a2 = block.load %A[%vi + 2] : memref<1026xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<1024xf32>
    }
  }
  func.return
}

// "warp" memory is relaxed under threadIdx.x only (TVM's CanRelaxStorageUnderThread:
// `thread_scope.rank == 1 && thread_scope.dim_index == 0`): at a threadIdx.y loop each
// thread copies its own 3 elements.
// SCOPE-LABEL: func.func @warp_y
// SCOPE-NEXT:    %A_warp = block.alloc : memref<1026xf32, "warp">
// SCOPE-NEXT:    block.for %i0 = 0 to 8 "i_0" bind("blockIdx.x") {
// SCOPE-NEXT:      block.for %i1 = 0 to 128 "i_1" bind("threadIdx.y") {
// SCOPE-NEXT:        block.for %ax0 = 0 to 3 "ax0" {
// SCOPE-NEXT:          block.block "A_warp"(%v0 = spatial(1026, %i0 * 128 + %i1 + %ax0)) {
// SCOPE-NEXT:            %0 = block.load %A[%v0] : memref<1026xf32>
// SCOPE-NEXT:            block.store %0, %A_warp[%v0] : memref<1026xf32, "warp">
// SCOPE-NEXT:          }
// SCOPE-NEXT:        }
// SCOPE-NEXT:        block.block "B"(%vi = spatial(1024, %i0 * 128 + %i1)) {
// SCOPE-NEXT:          %a0 = block.load %A_warp[%vi] : memref<1026xf32, "warp">
// SCOPE-NEXT:          %a1 = block.load %A_warp[%vi + 1] : memref<1026xf32, "warp">
// SCOPE-NEXT:          %a2 = block.load %A_warp[%vi + 2] : memref<1026xf32, "warp">
// SCOPE-NEXT:          %s01 = arith.addf %a0, %a1 : f32
// SCOPE-NEXT:          %sum = arith.addf %s01, %a2 : f32
// SCOPE-NEXT:          block.store %sum, %B[%vi] : memref<1024xf32>
// SCOPE-NEXT:        }
// SCOPE-NEXT:      }
// SCOPE-NEXT:    }
// SCOPE-NEXT:    func.return
func.func @warp_y(%A: memref<1026xf32>, %B: memref<1024xf32>) {
  block.for %i = 0 to 1024 "i" {
    block.block "B"(%vi = spatial(1024, %i)) {
      %a0 = block.load %A[%vi] : memref<1026xf32>
      %a1 = block.load %A[%vi + 1] : memref<1026xf32>
      %a2 = block.load %A[%vi + 2] : memref<1026xf32>
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<1024xf32>
    }
  }
  func.return
}

// T's predicate guards its read of A (A[v + 6] exists for v < 10 only): computed per tile
// of C, T keeps it, on the new nest's variable.
// WHERE-LABEL: func.func @guarded
// WHERE:         block.for %j0 = 0 to 3 "j_0" {
// WHERE-NEXT:      block.for %ax0 = 0 to 4 "ax0" {
// WHERE-NEXT:        block.block "T"(%v = spatial(16, %j0 * 4 + %ax0)) where(%j0 * 4 + %ax0 < 10) {
func.func @guarded(%A: memref<16xf32>, %C: memref<10xf32>) {
  %T = block.alloc : memref<16xf32>
  block.for %i = 0 to 16 "i" {
    block.block "T"(%v = spatial(16, %i)) where(%i < 10) {
      %a = block.load %A[%v + 6] : memref<16xf32>
      block.store %a, %T[%v] : memref<16xf32>
    }
  }
  block.for %j = 0 to 10 "j" {
    block.block "C"(%w = spatial(10, %j)) {
      %t = block.load %T[%w] : memref<16xf32>
      block.store %t, %C[%w] : memref<10xf32>
    }
  }
  func.return
}
