// RUN: xtir-opt %s -p lower-accel | filecheck %s
// lower-accel: each accel intrinsic becomes a scalar loop nest (scf.for + memref.load /
// store + arith) named after it; the rest of the IR, blocks included, is left as it is.
// Region offsets are computed once before the nest; a zero offset adds nothing.

// 16x16 tiles at offset 0 (as after compact-buffers) inside blocks and at loop level: the
// loop variables index the tiles directly. tmm16 loads each C element once and carries it
// through the k loop as an iter_arg, stores it once.
// CHECK-LABEL: func.func @tiles(%A: memref<32x32xf32>, %B: memref<48x32xf32>, %C: memref<32x48xf32>) {
// CHECK-NEXT:    %A_reg = block.alloc : memref<16x16xf32, "global.A_reg">
// CHECK-NEXT:    %B_reg = block.alloc : memref<16x16xf32, "global.B_reg">
// CHECK-NEXT:    %Acc = block.alloc : memref<16x16xf32, "global.accumulator">
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c16 = arith.constant 16 : index
// CHECK-NEXT:    %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    block.for %i0 = 0 to 2 "i_0" {
// CHECK-NEXT:      block.for %j0 = 0 to 3 "j_0" {
// CHECK-NEXT:        block.block "init"(%vi = spatial(2, %i0), %vj = spatial(3, %j0)) {
// CHECK-NEXT:          scf.for %i = %c0 to %c16 step %c1 {
// CHECK-NEXT:            scf.for %j = %c0 to %c16 step %c1 {
// CHECK-NEXT:              memref.store %cst, %Acc[%i, %j] : memref<16x16xf32, "global.accumulator">
// CHECK-NEXT:            } {xtir.loop_name = "fill_zero.j"}
// CHECK-NEXT:          } {xtir.loop_name = "fill_zero.i"}
// CHECK-NEXT:        }
// CHECK-NEXT:        block.for %k0 = 0 to 2 "k_0" {
// CHECK-NEXT:          block.block "update"(%vi_1 = spatial(2, %i0), %vj_1 = spatial(3, %j0), %vk = reduce(2, %k0)) {
// CHECK-NEXT:            %0 = arith.muli %vi_1, %c16 : index
// CHECK-NEXT:            %1 = arith.muli %vk, %c16 : index
// CHECK-NEXT:            scf.for %i_1 = %c0 to %c16 step %c1 {
// CHECK-NEXT:              %2 = arith.addi %0, %i_1 : index
// CHECK-NEXT:              scf.for %j_1 = %c0 to %c16 step %c1 {
// CHECK-NEXT:                %3 = arith.addi %1, %j_1 : index
// CHECK-NEXT:                %4 = memref.load %A[%2, %3] : memref<32x32xf32>
// CHECK-NEXT:                memref.store %4, %A_reg[%i_1, %j_1] : memref<16x16xf32, "global.A_reg">
// CHECK-NEXT:              } {xtir.loop_name = "dma_copy.j"}
// CHECK-NEXT:            } {xtir.loop_name = "dma_copy.i"}
// CHECK-NEXT:            %5 = arith.muli %vj_1, %c16 : index
// CHECK-NEXT:            %6 = arith.muli %vk, %c16 : index
// CHECK-NEXT:            scf.for %i_2 = %c0 to %c16 step %c1 {
// CHECK-NEXT:              %7 = arith.addi %5, %i_2 : index
// CHECK-NEXT:              scf.for %j_2 = %c0 to %c16 step %c1 {
// CHECK-NEXT:                %8 = arith.addi %6, %j_2 : index
// CHECK-NEXT:                %9 = memref.load %B[%7, %8] : memref<48x32xf32>
// CHECK-NEXT:                memref.store %9, %B_reg[%i_2, %j_2] : memref<16x16xf32, "global.B_reg">
// CHECK-NEXT:              } {xtir.loop_name = "dma_copy.j"}
// CHECK-NEXT:            } {xtir.loop_name = "dma_copy.i"}
// CHECK-NEXT:            scf.for %i_3 = %c0 to %c16 step %c1 {
// CHECK-NEXT:              scf.for %j_3 = %c0 to %c16 step %c1 {
// CHECK-NEXT:                %c = memref.load %Acc[%i_3, %j_3] : memref<16x16xf32, "global.accumulator">
// CHECK-NEXT:                %10 = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %c) -> (f32) {
// CHECK-NEXT:                  %11 = memref.load %A_reg[%i_3, %k] : memref<16x16xf32, "global.A_reg">
// CHECK-NEXT:                  %12 = memref.load %B_reg[%j_3, %k] : memref<16x16xf32, "global.B_reg">
// CHECK-NEXT:                  %13 = arith.mulf %11, %12 : f32
// CHECK-NEXT:                  %14 = arith.addf %acc, %13 : f32
// CHECK-NEXT:                  scf.yield %14 : f32
// CHECK-NEXT:                } {xtir.loop_name = "tmm16.k"}
// CHECK-NEXT:                memref.store %10, %Acc[%i_3, %j_3] : memref<16x16xf32, "global.accumulator">
// CHECK-NEXT:              } {xtir.loop_name = "tmm16.j"}
// CHECK-NEXT:            } {xtir.loop_name = "tmm16.i"}
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        %15 = arith.muli %i0, %c16 : index
// CHECK-NEXT:        %16 = arith.muli %j0, %c16 : index
// CHECK-NEXT:        scf.for %i_4 = %c0 to %c16 step %c1 {
// CHECK-NEXT:          %17 = arith.addi %15, %i_4 : index
// CHECK-NEXT:          scf.for %j_4 = %c0 to %c16 step %c1 {
// CHECK-NEXT:            %18 = arith.addi %16, %j_4 : index
// CHECK-NEXT:            %19 = memref.load %Acc[%i_4, %j_4] : memref<16x16xf32, "global.accumulator">
// CHECK-NEXT:            memref.store %19, %C[%17, %18] : memref<32x48xf32>
// CHECK-NEXT:          } {xtir.loop_name = "dma_copy.j"}
// CHECK-NEXT:        } {xtir.loop_name = "dma_copy.i"}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @tiles(%A: memref<32x32xf32>, %B: memref<48x32xf32>, %C: memref<32x48xf32>) {
  %A_reg = block.alloc : memref<16x16xf32, "global.A_reg">
  %B_reg = block.alloc : memref<16x16xf32, "global.B_reg">
  %Acc = block.alloc : memref<16x16xf32, "global.accumulator">
  block.for %i0 = 0 to 2 "i_0" {
    block.for %j0 = 0 to 3 "j_0" {
      block.block "init"(%vi = spatial(2, %i0), %vj = spatial(3, %j0)) {
        accel.fill_zero %Acc[0 : 16, 0 : 16] : memref<16x16xf32, "global.accumulator">
      }
      block.for %k0 = 0 to 2 "k_0" {
        block.block "update"(%vi = spatial(2, %i0), %vj = spatial(3, %j0), %vk = reduce(2, %k0)) {
          accel.dma_copy %A_reg[0 : 16, 0 : 16], %A[%vi * 16 : 16, %vk * 16 : 16] : memref<16x16xf32, "global.A_reg">, memref<32x32xf32>
          accel.dma_copy %B_reg[0 : 16, 0 : 16], %B[%vj * 16 : 16, %vk * 16 : 16] : memref<16x16xf32, "global.B_reg">, memref<48x32xf32>
          accel.tmm16 %Acc[0 : 16, 0 : 16], %A_reg[0 : 16, 0 : 16], %B_reg[0 : 16, 0 : 16] : memref<16x16xf32, "global.accumulator">, memref<16x16xf32, "global.A_reg">, memref<16x16xf32, "global.B_reg">
        }
      }
      accel.dma_copy %C[%i0 * 16 : 16, %j0 * 16 : 16], %Acc[0 : 16, 0 : 16] : memref<32x48xf32>, memref<16x16xf32, "global.accumulator">
    }
  }
  func.return
}


// Offsets that are index expressions of a fused loop (floordiv / mod, constants): each
// offset once before the nest, then one addi per loop variable.
// CHECK-LABEL: func.func @offsets(%A: memref<40x40xf32, "global.A_reg">, %B: memref<40x40xf32, "global.B_reg">, %C: memref<40x40xf32, "global.accumulator">) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    %c16 = arith.constant 16 : index
// CHECK-NEXT:    %c24 = arith.constant 24 : index
// CHECK-NEXT:    block.for %f = 0 to 4 "f" {
// CHECK-NEXT:      %0 = arith.floordivsi %f, %c2 : index
// CHECK-NEXT:      %1 = arith.muli %0, %c16 : index
// CHECK-NEXT:      %2 = arith.addi %1, %c4 : index
// CHECK-NEXT:      %3 = arith.remsi %f, %c2 : index
// CHECK-NEXT:      %4 = arith.muli %3, %c16 : index
// CHECK-NEXT:      scf.for %i = %c0 to %c16 step %c1 {
// CHECK-NEXT:        %5 = arith.addi %2, %i : index
// CHECK-NEXT:        scf.for %j = %c0 to %c16 step %c1 {
// CHECK-NEXT:          %6 = arith.addi %4, %j : index
// CHECK-NEXT:          %c = memref.load %C[%5, %6] : memref<40x40xf32, "global.accumulator">
// CHECK-NEXT:          %7 = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %c) -> (f32) {
// CHECK-NEXT:            %8 = arith.addi %c8, %k : index
// CHECK-NEXT:            %9 = arith.addi %c24, %k : index
// CHECK-NEXT:            %10 = memref.load %A[%5, %8] : memref<40x40xf32, "global.A_reg">
// CHECK-NEXT:            %11 = memref.load %B[%6, %9] : memref<40x40xf32, "global.B_reg">
// CHECK-NEXT:            %12 = arith.mulf %10, %11 : f32
// CHECK-NEXT:            %13 = arith.addf %acc, %12 : f32
// CHECK-NEXT:            scf.yield %13 : f32
// CHECK-NEXT:          } {xtir.loop_name = "tmm16.k"}
// CHECK-NEXT:          memref.store %7, %C[%5, %6] : memref<40x40xf32, "global.accumulator">
// CHECK-NEXT:        } {xtir.loop_name = "tmm16.j"}
// CHECK-NEXT:      } {xtir.loop_name = "tmm16.i"}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @offsets(%A: memref<40x40xf32, "global.A_reg">, %B: memref<40x40xf32, "global.B_reg">, %C: memref<40x40xf32, "global.accumulator">) {
  block.for %f = 0 to 4 "f" {
    accel.tmm16 %C[(%f floordiv 2) * 16 + 4 : 16, (%f mod 2) * 16 : 16], %A[(%f floordiv 2) * 16 + 4 : 16, 8 : 16], %B[(%f mod 2) * 16 : 16, 24 : 16] : memref<40x40xf32, "global.accumulator">, memref<40x40xf32, "global.A_reg">, memref<40x40xf32, "global.B_reg">
  }
  func.return
}

