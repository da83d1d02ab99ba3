// RUN: xtir-opt %s --split-input-file -p compact-buffers | filecheck %s
// compact-buffers on inlined loop nests (every index an expression of loop variables):
// each scratch buffer moves into the deepest loop whose iterations do not share data
// through it, at the size one iteration touches, with its accesses rebased.

// A tile copied and used in the same iteration of j_0: 16x16 inside j_0.
// CHECK-LABEL: func.func @tile
// CHECK:         block.for %j0 = 0 to 4 "j_0" {
// CHECK-NEXT:      %T = block.alloc : memref<16x16xf32, "local">
// CHECK:             block.store %x, %T[%a, %b] : memref<16x16xf32, "local">
// CHECK:             %y = block.load %T[%a_1, %b_1] : memref<16x16xf32, "local">
func.func @tile(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  %T = block.alloc : memref<64x64xf32, "local">
  block.for %i0 = 0 to 4 "i_0" {
    block.for %j0 = 0 to 4 "j_0" {
      block.for %a = 0 to 16 "ax0" {
        block.for %b = 0 to 16 "ax1" {
          %x = block.load %A[%i0 * 16 + %a, %j0 * 16 + %b] : memref<64x64xf32>
          block.store %x, %T[%i0 * 16 + %a, %j0 * 16 + %b] : memref<64x64xf32, "local">
        }
      }
      block.for %a = 0 to 16 "i_1" {
        block.for %b = 0 to 16 "j_1" {
          %y = block.load %T[%i0 * 16 + %a, %j0 * 16 + %b] : memref<64x64xf32, "local">
          block.store %y, %B[%j0 * 16 + %b, %i0 * 16 + %a] : memref<64x64xf32>
        }
      }
    }
  }
  func.return
}

// -----

// Read before it is written in each iteration of i_0 (the data flows to the next
// iteration): the buffer stays outside the loop, shrunk to the 16 elements used.
// CHECK-LABEL: func.func @carried
// CHECK-NEXT:    %T = block.alloc : memref<16xf32>
// CHECK-NEXT:    block.for %i0 = 0 to 4 "i_0" {
func.func @carried(%A: memref<64xf32>, %B: memref<64xf32>) {
  %T = block.alloc : memref<64xf32>
  block.for %i0 = 0 to 4 "i_0" {
    block.for %b = 0 to 16 "r" {
      %y = block.load %T[%b] : memref<64xf32>
      block.store %y, %B[%i0 * 16 + %b] : memref<64xf32>
    }
    block.for %b = 0 to 16 "w" {
      %x = block.load %A[%i0 * 16 + %b] : memref<64xf32>
      block.store %x, %T[%b] : memref<64xf32>
    }
  }
  func.return
}

// -----

// A write under an scf.if does not count as covering the reads of the
// same iteration, unless it is the init guard of a reduction running inside the loop:
// the accumulator (with the guard marked xtir.init) becomes 16 elements per j_0.
// CHECK-LABEL: func.func @guarded
// CHECK:         block.for %j0 = 0 to 2 "j_0" {
// CHECK-NEXT:      %Acc = block.alloc : memref<16xf32>
// CHECK-NEXT:      block.for %k0 = 0 to 4 "k_0" {
func.func @guarded(%A: memref<32x4xf32>, %C: memref<32xf32>) {
  %Acc = block.alloc : memref<32xf32>
  block.for %j0 = 0 to 2 "j_0" {
    block.for %k0 = 0 to 4 "k_0" {
      block.for %j1 = 0 to 16 "j_1" {
        %c0 = arith.constant 0 : index
        %first = arith.cmpi eq, %k0, %c0 : index
        scf.if %first {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %Acc[%j0 * 16 + %j1] : memref<32xf32>
        } {xtir.init}
        %s = block.load %Acc[%j0 * 16 + %j1] : memref<32xf32>
        %a = block.load %A[%j0 * 16 + %j1, %k0] : memref<32x4xf32>
        %n = arith.addf %s, %a : f32
        block.store %n, %Acc[%j0 * 16 + %j1] : memref<32xf32>
      }
    }
    block.for %j1 = 0 to 16 "w" {
      %r = block.load %Acc[%j0 * 16 + %j1] : memref<32xf32>
      block.store %r, %C[%j0 * 16 + %j1] : memref<32xf32>
    }
  }
  func.return
}

// -----

// accel ops: the accumulator tile of the seed after tensorize, 16x16 per (i_0, j_0).
// CHECK-LABEL: func.func @tiles
// CHECK:         block.for %j0 = 0 to 2 "j_0" {
// CHECK-NEXT:      %Acc = block.alloc : memref<16x16xf32, "global.accumulator">
// CHECK-NEXT:      accel.fill_zero %Acc[0 : 16, 0 : 16]
// CHECK:             accel.tmm16 %Acc[0 : 16, 0 : 16], %A[%i0 * 16 : 16, %k0 * 16 : 16], %B[%j0 * 16 : 16, %k0 * 16 : 16]
// CHECK:           accel.dma_copy %C[%i0 * 16 : 16, %j0 * 16 : 16], %Acc[0 : 16, 0 : 16]
func.func @tiles(%A: memref<32x32xf32, "global.A_reg">, %B: memref<32x32xf32, "global.B_reg">, %C: memref<32x32xf32>) {
  %Acc = block.alloc : memref<32x32xf32, "global.accumulator">
  block.for %i0 = 0 to 2 "i_0" {
    block.for %j0 = 0 to 2 "j_0" {
      accel.fill_zero %Acc[%i0 * 16 : 16, %j0 * 16 : 16] : memref<32x32xf32, "global.accumulator">
      block.for %k0 = 0 to 2 "k_0" {
        accel.tmm16 %Acc[%i0 * 16 : 16, %j0 * 16 : 16], %A[%i0 * 16 : 16, %k0 * 16 : 16], %B[%j0 * 16 : 16, %k0 * 16 : 16] : memref<32x32xf32, "global.accumulator">, memref<32x32xf32, "global.A_reg">, memref<32x32xf32, "global.B_reg">
      }
      accel.dma_copy %C[%i0 * 16 : 16, %j0 * 16 : 16], %Acc[%i0 * 16 : 16, %j0 * 16 : 16] : memref<32x32xf32>, memref<32x32xf32, "global.accumulator">
    }
  }
  func.return
}


// -----

// The tile of a non-dividing split (6 of 16): the write and the read stop at the same edge
// (`i_0 * 6 + ax < 16`), so the write covers the read wherever it runs; 6 elements per i_0.
// CHECK-LABEL: func.func @predicated_tile
// CHECK:         block.for %i0 = 0 to 3 "i_0" parallel {
// CHECK-NEXT:      %T = block.alloc : memref<6xf32, "local">
// CHECK:               block.store %x, %T[%a] : memref<6xf32, "local">
// CHECK:               %y = block.load %T[%b] : memref<6xf32, "local">
func.func @predicated_tile(%A: memref<16xf32>, %B: memref<16xf32>) {
  %T = block.alloc : memref<16xf32, "local">
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  block.for %i0 = 0 to 3 "i_0" parallel {
    block.for %a = 0 to 6 "ax0" {
      %0 = arith.muli %i0, %c6 : index
      %1 = arith.addi %0, %a : index
      %in = arith.cmpi slt, %1, %c16 : index
      scf.if %in {
        %x = block.load %A[%i0 * 6 + %a] : memref<16xf32>
        block.store %x, %T[%i0 * 6 + %a] : memref<16xf32, "local">
      }
    }
    block.for %b = 0 to 6 "i_1" {
      %2 = arith.muli %i0, %c6 : index
      %3 = arith.addi %2, %b : index
      %in2 = arith.cmpi slt, %3, %c16 : index
      scf.if %in2 {
        %y = block.load %T[%i0 * 6 + %b] : memref<16xf32, "local">
        block.store %y, %B[%i0 * 6 + %b] : memref<16xf32>
      }
    }
  }
  func.return
}

// -----

// The write stops one element earlier than the read (`< 15` against `< 16`): element 15 is
// read in an iteration that does not write it, so the buffer stays outside the loop.
// CHECK-LABEL: func.func @predicated_write_stops_early
// CHECK-NEXT:    %T = block.alloc : memref<16xf32, "local">
// CHECK:         block.for %i0 = 0 to 3 "i_0" parallel {
func.func @predicated_write_stops_early(%A: memref<16xf32>, %B: memref<16xf32>) {
  %T = block.alloc : memref<16xf32, "local">
  %c6 = arith.constant 6 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  block.for %i0 = 0 to 3 "i_0" parallel {
    block.for %a = 0 to 6 "ax0" {
      %0 = arith.muli %i0, %c6 : index
      %1 = arith.addi %0, %a : index
      %in = arith.cmpi slt, %1, %c15 : index
      scf.if %in {
        %x = block.load %A[%i0 * 6 + %a] : memref<16xf32>
        block.store %x, %T[%i0 * 6 + %a] : memref<16xf32, "local">
      }
    }
    block.for %b = 0 to 6 "i_1" {
      %2 = arith.muli %i0, %c6 : index
      %3 = arith.addi %2, %b : index
      %in2 = arith.cmpi slt, %3, %c16 : index
      scf.if %in2 {
        %y = block.load %T[%i0 * 6 + %b] : memref<16xf32, "local">
        block.store %y, %B[%i0 * 6 + %b] : memref<16xf32>
      }
    }
  }
  func.return
}

// -----

// The read's start differs from the write's by a unit loop's variable (k_0 runs once): the
// write still covers it. The buffer keeps its size but moves into the parallel loop, whose
// iterations each get their own (into the outermost: each iteration of k_0 is private too).
// CHECK-LABEL: func.func @unit_loop_offset
// CHECK:         block.for %j0 = 0 to 4 "j_0" parallel {
// CHECK-NEXT:      %T = block.alloc : memref<16xf32>
// CHECK-NEXT:      block.for %k0 = 0 to 1 "k_0" {
// CHECK:               block.store %x, %T[%a] : memref<16xf32>
// CHECK:               %y = block.load %T[%k0 * 16 + %b] : memref<16xf32>
func.func @unit_loop_offset(%A: memref<4x16xf32>, %B: memref<4x16xf32>) {
  %T = block.alloc : memref<16xf32>
  block.for %j0 = 0 to 4 "j_0" parallel {
    block.for %k0 = 0 to 1 "k_0" {
      block.for %a = 0 to 16 "ax0" {
        %x = block.load %A[%j0, %a] : memref<4x16xf32>
        block.store %x, %T[%a] : memref<16xf32>
      }
      block.for %b = 0 to 16 "k_1" {
        %y = block.load %T[%k0 * 16 + %b] : memref<16xf32>
        block.store %y, %B[%j0, %b] : memref<4x16xf32>
      }
    }
  }
  func.return
}
// -----

// The same without a parallel loop: nothing to shrink, and nothing to gain by moving it.
// CHECK-LABEL: func.func @unit_loop_offset_serial
// CHECK-NEXT:    %T = block.alloc : memref<16xf32>
// CHECK-NEXT:    block.for %j0 = 0 to 4 "j_0" {
func.func @unit_loop_offset_serial(%A: memref<4x16xf32>, %B: memref<4x16xf32>) {
  %T = block.alloc : memref<16xf32>
  block.for %j0 = 0 to 4 "j_0" {
    block.for %k0 = 0 to 1 "k_0" {
      block.for %a = 0 to 16 "ax0" {
        %x = block.load %A[%j0, %a] : memref<4x16xf32>
        block.store %x, %T[%a] : memref<16xf32>
      }
      block.for %b = 0 to 16 "k_1" {
        %y = block.load %T[%k0 * 16 + %b] : memref<16xf32>
        block.store %y, %B[%j0, %b] : memref<4x16xf32>
      }
    }
  }
  func.return
}

// -----

// A strided write (columns j, j + 8, j + 16 in iteration j of ax1_1, found by the schedule
// fuzzer) does not fill its box [j, j + 17): the read of column j + 1 sees what another
// iteration wrote, so the buffer stays outside the loop, at its full size.
// CHECK-LABEL: func.func @strided_write
// CHECK-NEXT:    %T = block.alloc : memref<24xf32>
// CHECK-NEXT:    block.for %j = 0 to 8 "ax1_1" {
func.func @strided_write(%A: memref<24xf32>, %B: memref<24xf32>) {
  %T = block.alloc : memref<24xf32>
  block.for %j = 0 to 8 "ax1_1" {
    block.for %f = 0 to 3 "ax1_0" {
      %x = block.load %A[%f * 8 + %j] : memref<24xf32>
      block.store %x, %T[%f * 8 + %j] : memref<24xf32>
    }
    block.for %c = 0 to 17 "ax1" {
      %y = block.load %T[%j + %c] : memref<24xf32>
      block.store %y, %B[%j + %c] : memref<24xf32>
    }
  }
  func.return
}
