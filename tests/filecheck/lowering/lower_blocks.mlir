// RUN: xtir-opt %s -p "lower-blocks{compact=false}" | filecheck %s
// RUN: xtir-opt %s -p "lower-accel,lower-blocks{compact=false}" | filecheck %s
// (compact=false: the buffers keep their declared sizes here; compact_buffers.mlir pins compaction.)
// lower-blocks: block-dialect IR after a schedule becomes scf.for / scf.if + memref.alloca /
// load / store + arith. Loops keep their names (and kinds, thread tags, annotations) as
// xtir.* attributes, blocks are inlined with their iteration variables replaced by their
// bindings, predicates and inits become scf.if, allocations move to the function start
// and index constants sit once in the function prologue. Running lower-accel first
// gives the same IR.

// The unscheduled matmul: the init runs under scf.if (vk == 0), marked xtir.init.
// CHECK-LABEL: func.func @matmul(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      scf.for %j = %c0 to %c8 step %c1 {
// CHECK-NEXT:        scf.for %k = %c0 to %c8 step %c1 {
// CHECK-NEXT:          %0 = arith.cmpi eq, %k, %c0 : index
// CHECK-NEXT:          scf.if %0 {
// CHECK-NEXT:            %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:            memref.store %zero, %C[%i, %j] : memref<8x8xf32>
// CHECK-NEXT:          }{xtir.init}
// CHECK-NEXT:          %c = memref.load %C[%i, %j] : memref<8x8xf32>
// CHECK-NEXT:          %a = memref.load %A[%i, %k] : memref<8x8xf32>
// CHECK-NEXT:          %b = memref.load %B[%j, %k] : memref<8x8xf32>
// CHECK-NEXT:          %ab = arith.mulf %a, %b : f32
// CHECK-NEXT:          %sum = arith.addf %c, %ab : f32
// CHECK-NEXT:          memref.store %sum, %C[%i, %j] : memref<8x8xf32>
// CHECK-NEXT:        } {xtir.loop_name = "k"}
// CHECK-NEXT:      } {xtir.loop_name = "j"}
// CHECK-NEXT:    } {xtir.loop_name = "i"}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @matmul(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 8 "j" {
      block.for %k = 0 to 8 "k" {
        block.block "matmul"(%vi = spatial(8, %i), %vj = spatial(8, %j), %vk = reduce(8, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<8x8xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<8x8xf32>
          %a = block.load %A[%vi, %vk] : memref<8x8xf32>
          %b = block.load %B[%vj, %vk] : memref<8x8xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<8x8xf32>
        }
      }
    }
  }
  func.return
}


// A non-dividing split (10 by 4): the block's where becomes scf.if (i0 * 4 + i1 < 10) around
// the body; the binding, computed once, indexes both accesses.
// CHECK-LABEL: func.func @split_predicate(%A: memref<10xf32>, %B: memref<10xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %c10 = arith.constant 10 : index
// CHECK-NEXT:    scf.for %i0 = %c0 to %c3 step %c1 {
// CHECK-NEXT:      %0 = arith.muli %i0, %c4 : index
// CHECK-NEXT:      scf.for %i1 = %c0 to %c4 step %c1 {
// CHECK-NEXT:        %1 = arith.addi %0, %i1 : index
// CHECK-NEXT:        %2 = arith.cmpi slt, %1, %c10 : index
// CHECK-NEXT:        scf.if %2 {
// CHECK-NEXT:          %a = memref.load %A[%1] : memref<10xf32>
// CHECK-NEXT:          memref.store %a, %B[%1] : memref<10xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      } {xtir.loop_name = "i_1"}
// CHECK-NEXT:    } {xtir.loop_name = "i_0"}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @split_predicate(%A: memref<10xf32>, %B: memref<10xf32>) {
  block.for %i0 = 0 to 3 "i_0" {
    block.for %i1 = 0 to 4 "i_1" {
      block.block "B"(%vi = spatial(10, %i0 * 4 + %i1)) where(%i0 * 4 + %i1 < 10) {
        %a = block.load %A[%vi] : memref<10xf32>
        block.store %a, %B[%vi] : memref<10xf32>
      }
    }
  }
  func.return
}


// fuse: the bindings are floordiv / mod of the fused loop (arith.floordivsi / arith.remsi).
// CHECK-LABEL: func.func @fuse(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    %c64 = arith.constant 64 : index
// CHECK-NEXT:    scf.for %i_j_fused = %c0 to %c64 step %c1 {
// CHECK-NEXT:      %0 = arith.floordivsi %i_j_fused, %c8 : index
// CHECK-NEXT:      %1 = arith.remsi %i_j_fused, %c8 : index
// CHECK-NEXT:      scf.for %k = %c0 to %c8 step %c1 {
// CHECK-NEXT:        %2 = arith.cmpi eq, %k, %c0 : index
// CHECK-NEXT:        scf.if %2 {
// CHECK-NEXT:          %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:          memref.store %zero, %C[%0, %1] : memref<8x8xf32>
// CHECK-NEXT:        }{xtir.init}
// CHECK-NEXT:        %c = memref.load %C[%0, %1] : memref<8x8xf32>
// CHECK-NEXT:        %a = memref.load %A[%0, %k] : memref<8x8xf32>
// CHECK-NEXT:        %b = memref.load %B[%1, %k] : memref<8x8xf32>
// CHECK-NEXT:        %ab = arith.mulf %a, %b : f32
// CHECK-NEXT:        %sum = arith.addf %c, %ab : f32
// CHECK-NEXT:        memref.store %sum, %C[%0, %1] : memref<8x8xf32>
// CHECK-NEXT:      } {xtir.loop_name = "k"}
// CHECK-NEXT:    } {xtir.loop_name = "i_j_fused"}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @fuse(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
  block.for %i_j_fused = 0 to 64 "i_j_fused" {
    block.for %k = 0 to 8 "k" {
      block.block "matmul"(%vi = spatial(8, %i_j_fused floordiv 8), %vj = spatial(8, %i_j_fused mod 8), %vk = reduce(8, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi, %vj] : memref<8x8xf32>
        }
        %c = block.load %C[%vi, %vj] : memref<8x8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x8xf32>
        %b = block.load %B[%vj, %vk] : memref<8x8xf32>
        %ab = arith.mulf %a, %b : f32
        %sum = arith.addf %c, %ab : f32
        block.store %sum, %C[%vi, %vj] : memref<8x8xf32>
      }
    }
  }
  func.return
}


// Loop kinds and annotations are discardable attributes of the scf.for (serial loops have no
// xtir.loop_kind).
// CHECK-LABEL: func.func @kinds(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      scf.for %j = %c0 to %c8 step %c1 {
// CHECK-NEXT:        scf.for %k = %c0 to %c8 step %c1 {
// CHECK-NEXT:          %0 = arith.cmpi eq, %k, %c0 : index
// CHECK-NEXT:          scf.if %0 {
// CHECK-NEXT:            %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:            memref.store %zero, %C[%i, %j] : memref<8x8xf32>
// CHECK-NEXT:          }{xtir.init}
// CHECK-NEXT:          %c = memref.load %C[%i, %j] : memref<8x8xf32>
// CHECK-NEXT:          %a = memref.load %A[%i, %k] : memref<8x8xf32>
// CHECK-NEXT:          %b = memref.load %B[%j, %k] : memref<8x8xf32>
// CHECK-NEXT:          %ab = arith.mulf %a, %b : f32
// CHECK-NEXT:          %sum = arith.addf %c, %ab : f32
// CHECK-NEXT:          memref.store %sum, %C[%i, %j] : memref<8x8xf32>
// CHECK-NEXT:        } {xtir.loop_name = "k", xtir.loop_kind = "unrolled", xtir.annotations = {pragma_unroll_explicit = 4 : i64}}
// CHECK-NEXT:      } {xtir.loop_name = "j", xtir.loop_kind = "vectorized"}
// CHECK-NEXT:    } {xtir.loop_name = "i", xtir.loop_kind = "parallel"}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @kinds(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
  block.for %i = 0 to 8 "i" parallel {
    block.for %j = 0 to 8 "j" vectorized {
      block.for %k = 0 to 8 "k" unrolled annotations {pragma_unroll_explicit = 4 : i64} {
        block.block "matmul"(%vi = spatial(8, %i), %vj = spatial(8, %j), %vk = reduce(8, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<8x8xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<8x8xf32>
          %a = block.load %A[%vi, %vk] : memref<8x8xf32>
          %b = block.load %B[%vj, %vk] : memref<8x8xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<8x8xf32>
        }
      }
    }
  }
  func.return
}


// Seed 001 after blockize (n=32): the outer block's init holds a loop nest with a nested block;
// the outer iteration variables become expressions of the outer loops inside the inner blocks.
// CHECK-LABEL: func.func @blockize(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %C: memref<32x32xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %c16 = arith.constant 16 : index
// CHECK-NEXT:    scf.for %i0 = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %0 = arith.muli %i0, %c16 : index
// CHECK-NEXT:      scf.for %j0 = %c0 to %c2 step %c1 {
// CHECK-NEXT:        %1 = arith.muli %j0, %c16 : index
// CHECK-NEXT:        scf.for %k0 = %c0 to %c2 step %c1 {
// CHECK-NEXT:          %2 = arith.cmpi eq, %k0, %c0 : index
// CHECK-NEXT:          scf.if %2 {
// CHECK-NEXT:            %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:            scf.for %i1 = %c0 to %c16 step %c1 {
// CHECK-NEXT:              %3 = arith.addi %0, %i1 : index
// CHECK-NEXT:              scf.for %j1 = %c0 to %c16 step %c1 {
// CHECK-NEXT:                %4 = arith.addi %1, %j1 : index
// CHECK-NEXT:                memref.store %zero, %C[%3, %4] : memref<32x32xf32>
// CHECK-NEXT:              } {xtir.loop_name = "j_1"}
// CHECK-NEXT:            } {xtir.loop_name = "i_1"}
// CHECK-NEXT:          }{xtir.init}
// CHECK-NEXT:          %5 = arith.muli %k0, %c16 : index
// CHECK-NEXT:          scf.for %i1_1 = %c0 to %c16 step %c1 {
// CHECK-NEXT:            %6 = arith.addi %0, %i1_1 : index
// CHECK-NEXT:            scf.for %j1_1 = %c0 to %c16 step %c1 {
// CHECK-NEXT:              %7 = arith.addi %1, %j1_1 : index
// CHECK-NEXT:              scf.for %k1 = %c0 to %c16 step %c1 {
// CHECK-NEXT:                %c = memref.load %C[%6, %7] : memref<32x32xf32>
// CHECK-NEXT:                %8 = arith.addi %5, %k1 : index
// CHECK-NEXT:                %a = memref.load %A[%6, %8] : memref<32x32xf32>
// CHECK-NEXT:                %b = memref.load %B[%7, %8] : memref<32x32xf32>
// CHECK-NEXT:                %ab = arith.mulf %a, %b : f32
// CHECK-NEXT:                %sum = arith.addf %c, %ab : f32
// CHECK-NEXT:                memref.store %sum, %C[%6, %7] : memref<32x32xf32>
// CHECK-NEXT:              } {xtir.loop_name = "k_1"}
// CHECK-NEXT:            } {xtir.loop_name = "j_1"}
// CHECK-NEXT:          } {xtir.loop_name = "i_1"}
// CHECK-NEXT:        } {xtir.loop_name = "k_0"}
// CHECK-NEXT:      } {xtir.loop_name = "j_0"}
// CHECK-NEXT:    } {xtir.loop_name = "i_0"}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @blockize(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %C: memref<32x32xf32>) {
  block.for %i0 = 0 to 2 "i_0" {
    block.for %j0 = 0 to 2 "j_0" {
      block.for %k0 = 0 to 2 "k_0" {
        block.block "matmul_o"(%vi_o = spatial(2, %i0), %vj_o = spatial(2, %j0), %vk_o = reduce(2, %k0)) {
          block.init {
            block.for %i1 = 0 to 16 "i_1" {
              block.for %j1 = 0 to 16 "j_1" {
                block.block "matmul_init"(%vi_i_init = spatial(16, %i1), %vj_i_init = spatial(16, %j1)) {
                  %zero = arith.constant 0.000000e+00 : f32
                  block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<32x32xf32>
                }
              }
            }
          }
          block.for %i1_1 = 0 to 16 "i_1" {
            block.for %j1_1 = 0 to 16 "j_1" {
              block.for %k1 = 0 to 16 "k_1" {
                block.block "matmul"(%vi_i = spatial(16, %i1_1), %vj_i = spatial(16, %j1_1), %vk_i = reduce(16, %k1)) {
                  %c = block.load %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<32x32xf32>
                  %a = block.load %A[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<32x32xf32>
                  %b = block.load %B[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<32x32xf32>
                  %ab = arith.mulf %a, %b : f32
                  %sum = arith.addf %c, %ab : f32
                  block.store %sum, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<32x32xf32>
                }
              }
            }
          }
        }
      }
    }
  }
  func.return
}


// Seed 001 after the whole walkthrough and tensorize onto the accel intrinsics (n=32): the
// allocated caches become memref.alloca with their scopes; tmm16 loads each C element once and
// accumulates over k in an iter_arg; the copies and the fill are i, j nests.
// CHECK-LABEL: func.func @seed_accel(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %C: memref<32x32xf32>) {
// CHECK-NEXT:    %A_global_A_reg = memref.alloca() : memref<32x32xf32, "global.A_reg">
// CHECK-NEXT:    %B_global_B_reg = memref.alloca() : memref<32x32xf32, "global.B_reg">
// CHECK-NEXT:    %C_global_accumulator = memref.alloca() : memref<32x32xf32, "global.accumulator">
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %c16 = arith.constant 16 : index
// CHECK-NEXT:    %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    scf.for %i0 = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %0 = arith.muli %i0, %c16 : index
// CHECK-NEXT:      scf.for %j0 = %c0 to %c2 step %c1 {
// CHECK-NEXT:        %1 = arith.muli %j0, %c16 : index
// CHECK-NEXT:        scf.for %i = %c0 to %c16 step %c1 {
// CHECK-NEXT:          %2 = arith.addi %0, %i : index
// CHECK-NEXT:          scf.for %j = %c0 to %c16 step %c1 {
// CHECK-NEXT:            %3 = arith.addi %1, %j : index
// CHECK-NEXT:            memref.store %cst, %C_global_accumulator[%2, %3] : memref<32x32xf32, "global.accumulator">
// CHECK-NEXT:          } {xtir.loop_name = "fill_zero.j"}
// CHECK-NEXT:        } {xtir.loop_name = "fill_zero.i"}
// CHECK-NEXT:        scf.for %k0 = %c0 to %c2 step %c1 {
// CHECK-NEXT:          %4 = arith.muli %k0, %c16 : index
// CHECK-NEXT:          scf.for %i_1 = %c0 to %c16 step %c1 {
// CHECK-NEXT:            %5 = arith.addi %0, %i_1 : index
// CHECK-NEXT:            scf.for %j_1 = %c0 to %c16 step %c1 {
// CHECK-NEXT:              %6 = arith.addi %4, %j_1 : index
// CHECK-NEXT:              %7 = memref.load %A[%5, %6] : memref<32x32xf32>
// CHECK-NEXT:              memref.store %7, %A_global_A_reg[%5, %6] : memref<32x32xf32, "global.A_reg">
// CHECK-NEXT:            } {xtir.loop_name = "dma_copy.j"}
// CHECK-NEXT:          } {xtir.loop_name = "dma_copy.i"}
// CHECK-NEXT:          scf.for %i_2 = %c0 to %c16 step %c1 {
// CHECK-NEXT:            %8 = arith.addi %1, %i_2 : index
// CHECK-NEXT:            scf.for %j_2 = %c0 to %c16 step %c1 {
// CHECK-NEXT:              %9 = arith.addi %4, %j_2 : index
// CHECK-NEXT:              %10 = memref.load %B[%8, %9] : memref<32x32xf32>
// CHECK-NEXT:              memref.store %10, %B_global_B_reg[%8, %9] : memref<32x32xf32, "global.B_reg">
// CHECK-NEXT:            } {xtir.loop_name = "dma_copy.j"}
// CHECK-NEXT:          } {xtir.loop_name = "dma_copy.i"}
// CHECK-NEXT:          scf.for %i_3 = %c0 to %c16 step %c1 {
// CHECK-NEXT:            %11 = arith.addi %0, %i_3 : index
// CHECK-NEXT:            scf.for %j_3 = %c0 to %c16 step %c1 {
// CHECK-NEXT:              %12 = arith.addi %1, %j_3 : index
// CHECK-NEXT:              %c = memref.load %C_global_accumulator[%11, %12] : memref<32x32xf32, "global.accumulator">
// CHECK-NEXT:              %13 = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %c) -> (f32) {
// CHECK-NEXT:                %14 = arith.addi %4, %k : index
// CHECK-NEXT:                %15 = memref.load %A_global_A_reg[%11, %14] : memref<32x32xf32, "global.A_reg">
// CHECK-NEXT:                %16 = memref.load %B_global_B_reg[%12, %14] : memref<32x32xf32, "global.B_reg">
// CHECK-NEXT:                %17 = arith.mulf %15, %16 : f32
// CHECK-NEXT:                %18 = arith.addf %acc, %17 : f32
// CHECK-NEXT:                scf.yield %18 : f32
// CHECK-NEXT:              } {xtir.loop_name = "tmm16.k"}
// CHECK-NEXT:              memref.store %13, %C_global_accumulator[%11, %12] : memref<32x32xf32, "global.accumulator">
// CHECK-NEXT:            } {xtir.loop_name = "tmm16.j"}
// CHECK-NEXT:          } {xtir.loop_name = "tmm16.i"}
// CHECK-NEXT:        } {xtir.loop_name = "k_0"}
// CHECK-NEXT:        scf.for %i_4 = %c0 to %c16 step %c1 {
// CHECK-NEXT:          %19 = arith.addi %0, %i_4 : index
// CHECK-NEXT:          scf.for %j_4 = %c0 to %c16 step %c1 {
// CHECK-NEXT:            %20 = arith.addi %1, %j_4 : index
// CHECK-NEXT:            %21 = memref.load %C_global_accumulator[%19, %20] : memref<32x32xf32, "global.accumulator">
// CHECK-NEXT:            memref.store %21, %C[%19, %20] : memref<32x32xf32>
// CHECK-NEXT:          } {xtir.loop_name = "dma_copy.j"}
// CHECK-NEXT:        } {xtir.loop_name = "dma_copy.i"}
// CHECK-NEXT:      } {xtir.loop_name = "j_0"}
// CHECK-NEXT:    } {xtir.loop_name = "i_0"}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @seed_accel(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %C: memref<32x32xf32>) {
  %A_global_A_reg = block.alloc : memref<32x32xf32, "global.A_reg">
  %B_global_B_reg = block.alloc : memref<32x32xf32, "global.B_reg">
  %C_global_accumulator = block.alloc : memref<32x32xf32, "global.accumulator">
  block.for %i0 = 0 to 2 "i_0" {
    block.for %j0 = 0 to 2 "j_0" {
      block.block "matmul_o_init"(%vi_o = spatial(2, %i0), %vj_o = spatial(2, %j0)) {
        accel.fill_zero %C_global_accumulator[%vi_o * 16 : 16, %vj_o * 16 : 16] : memref<32x32xf32, "global.accumulator">
      }
      block.for %k0 = 0 to 2 "k_0" {
        block.block "A_global.A_reg_o"(%v0_o = spatial(2, %i0), %v1_o = spatial(2, %k0)) {
          accel.dma_copy %A_global_A_reg[%v0_o * 16 : 16, %v1_o * 16 : 16], %A[%v0_o * 16 : 16, %v1_o * 16 : 16] : memref<32x32xf32, "global.A_reg">, memref<32x32xf32>
        }
        block.block "B_global.B_reg_o"(%v0_o_1 = spatial(2, %j0), %v1_o_1 = spatial(2, %k0)) {
          accel.dma_copy %B_global_B_reg[%v0_o_1 * 16 : 16, %v1_o_1 * 16 : 16], %B[%v0_o_1 * 16 : 16, %v1_o_1 * 16 : 16] : memref<32x32xf32, "global.B_reg">, memref<32x32xf32>
        }
        block.block "matmul_o_update"(%vi_o_1 = spatial(2, %i0), %vj_o_1 = spatial(2, %j0), %vk_o = reduce(2, %k0)) {
          accel.tmm16 %C_global_accumulator[%vi_o_1 * 16 : 16, %vj_o_1 * 16 : 16], %A_global_A_reg[%vi_o_1 * 16 : 16, %vk_o * 16 : 16], %B_global_B_reg[%vj_o_1 * 16 : 16, %vk_o * 16 : 16] : memref<32x32xf32, "global.accumulator">, memref<32x32xf32, "global.A_reg">, memref<32x32xf32, "global.B_reg">
        }
      }
      block.block "C_global.accumulator_o"(%v0_o_2 = spatial(2, %i0), %v1_o_2 = spatial(2, %j0)) {
        accel.dma_copy %C[%v0_o_2 * 16 : 16, %v1_o_2 * 16 : 16], %C_global_accumulator[%v0_o_2 * 16 : 16, %v1_o_2 * 16 : 16] : memref<32x32xf32>, memref<32x32xf32, "global.accumulator">
      }
    }
  }
  func.return
}


// Seed 002's window sum (n=256) with the cooperative fetch into shared memory: thread-bound
// loops carry xtir.loop_kind = "thread_binding" and their xtir.thread; the fetch's predicate
// guards it.
// CHECK-LABEL: func.func @window_sum(%A: memref<258xf32>, %B: memref<256xf32>) {
// CHECK-NEXT:    %A_shared = memref.alloca() : memref<258xf32, "shared">
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %c128 = arith.constant 128 : index
// CHECK-NEXT:    %c130 = arith.constant 130 : index
// CHECK-NEXT:    scf.for %i0 = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %0 = arith.muli %i0, %c128 : index
// CHECK-NEXT:      scf.for %i1 = %c0 to %c128 step %c1 {
// CHECK-NEXT:        scf.for %ax00 = %c0 to %c2 step %c1 {
// CHECK-NEXT:          %1 = arith.muli %ax00, %c128 : index
// CHECK-NEXT:          scf.for %ax01 = %c0 to %c128 step %c1 {
// CHECK-NEXT:            %2 = arith.addi %1, %ax01 : index
// CHECK-NEXT:            %3 = arith.cmpi slt, %2, %c130 : index
// CHECK-NEXT:            scf.if %3 {
// CHECK-NEXT:              %4 = arith.addi %0, %1 : index
// CHECK-NEXT:              %5 = arith.addi %4, %ax01 : index
// CHECK-NEXT:              %6 = memref.load %A[%5] : memref<258xf32>
// CHECK-NEXT:              memref.store %6, %A_shared[%5] : memref<258xf32, "shared">
// CHECK-NEXT:            }
// CHECK-NEXT:          } {xtir.loop_name = "ax0_1", xtir.loop_kind = "thread_binding", xtir.thread = "threadIdx.x"}
// CHECK-NEXT:        } {xtir.loop_name = "ax0_0"}
// CHECK-NEXT:        %7 = arith.addi %0, %i1 : index
// CHECK-NEXT:        %a0 = memref.load %A_shared[%7] : memref<258xf32, "shared">
// CHECK-NEXT:        %8 = arith.addi %7, %c1 : index
// CHECK-NEXT:        %a1 = memref.load %A_shared[%8] : memref<258xf32, "shared">
// CHECK-NEXT:        %9 = arith.addi %7, %c2 : index
// CHECK-NEXT:        %a2 = memref.load %A_shared[%9] : memref<258xf32, "shared">
// CHECK-NEXT:        %s01 = arith.addf %a0, %a1 : f32
// CHECK-NEXT:        %sum = arith.addf %s01, %a2 : f32
// CHECK-NEXT:        memref.store %sum, %B[%7] : memref<256xf32>
// CHECK-NEXT:      } {xtir.loop_name = "i_1", xtir.loop_kind = "thread_binding", xtir.thread = "threadIdx.x"}
// CHECK-NEXT:    } {xtir.loop_name = "i_0", xtir.loop_kind = "thread_binding", xtir.thread = "blockIdx.x"}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @window_sum(%A: memref<258xf32>, %B: memref<256xf32>) {
  %A_shared = block.alloc : memref<258xf32, "shared">
  block.for %i0 = 0 to 2 "i_0" bind("blockIdx.x") {
    block.for %i1 = 0 to 128 "i_1" bind("threadIdx.x") {
      block.for %ax00 = 0 to 2 "ax0_0" {
        block.for %ax01 = 0 to 128 "ax0_1" bind("threadIdx.x") {
          block.block "A_shared"(%v0 = spatial(258, %i0 * 128 + %ax00 * 128 + %ax01)) where(%ax00 * 128 + %ax01 < 130) {
            %0 = block.load %A[%v0] : memref<258xf32>
            block.store %0, %A_shared[%v0] : memref<258xf32, "shared">
          }
        }
      }
      block.block "B"(%vi = spatial(256, %i0 * 128 + %i1)) {
        %a0 = block.load %A_shared[%vi] : memref<258xf32, "shared">
        %a1 = block.load %A_shared[%vi + 1] : memref<258xf32, "shared">
        %a2 = block.load %A_shared[%vi + 2] : memref<258xf32, "shared">
        %s01 = arith.addf %a0, %a1 : f32
        %sum = arith.addf %s01, %a2 : f32
        block.store %sum, %B[%vi] : memref<256xf32>
      }
    }
  }
  func.return
}



// mod is a floor mod: when its operand may be negative, the remainder of arith.remsi (which
// takes the operand's sign) moves up by the divisor; a provably non-negative one stays remsi.
// CHECK-LABEL: func.func @floor_mod(%A: memref<4xf32>, %B: memref<4xf32>) {
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %0 = arith.addi %i, %c3 : index
// CHECK-NEXT:      %1 = arith.remsi %0, %c4 : index
// CHECK-NEXT:      %a = memref.load %A[%1] : memref<4xf32>
// CHECK-NEXT:      %2 = arith.subi %i, %c1 : index
// CHECK-NEXT:      %3 = arith.remsi %2, %c4 : index
// CHECK-NEXT:      %4 = arith.cmpi slt, %3, %c0 : index
// CHECK-NEXT:      %5 = arith.addi %3, %c4 : index
// CHECK-NEXT:      %6 = arith.select %4, %5, %3 : index
// CHECK-NEXT:      %b = memref.load %A[%6] : memref<4xf32>
func.func @floor_mod(%A: memref<4xf32>, %B: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) {
      %a = block.load %A[(%vi + 3) mod 4] : memref<4xf32>
      %b = block.load %A[(%vi - 1) mod 4] : memref<4xf32>
      %s = arith.addf %a, %b : f32
      block.store %s, %B[%vi] : memref<4xf32>
    }
  }
  func.return
}

// A host function (what legalize-tensor makes of a graph function) calls the module's block
// functions: the call stays as it is.
// CHECK-LABEL: func.func @kernel(%A: memref<4xf32>) {
// CHECK-LABEL: func.func @host(%A: memref<4xf32>) {
// CHECK-NEXT:    func.call @kernel(%A) : (memref<4xf32>) -> ()
// CHECK-NEXT:    func.return
func.func @kernel(%A: memref<4xf32>) {
  func.return
}
func.func @host(%A: memref<4xf32>) {
  func.call @kernel(%A) : (memref<4xf32>) -> ()
  func.return
}
