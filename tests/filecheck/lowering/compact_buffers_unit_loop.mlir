// RUN: xtir-opt %s --split-input-file -p inline-blocks,compact-buffers | filecheck %s
// compact-buffers and a loop of one iteration (a thread tile of 1: split by factors -1,4,1) in the
// edge predicate of a split that does not divide (10 by 4): the write runs under
// `i_0 * 4 + i_1 + i_2 < 10`, the read under `i_0 * 4 + i_1 < 10`. i_2 is 0 wherever the write
// runs, so the two are one edge and the write covers the read in each iteration of i_1: one element.

// CHECK-LABEL: func.func @unit_loop
// CHECK:         block.for %i1 = 0 to 4 "i_1" {
// CHECK-NEXT:      %Acc = block.alloc : memref<1xf32, "local">
// CHECK:               block.store %a, %Acc[%i2] {xtir.block = "W"} : memref<1xf32, "local">
// CHECK:           %x = block.load %Acc[0] {xtir.block = "C"} : memref<1xf32, "local">
func.func @unit_loop(%A: memref<10xf32>, %C: memref<10xf32>) {
  %Acc = block.alloc : memref<10xf32, "local">
  block.for %i0 = 0 to 3 "i_0" {
    block.for %i1 = 0 to 4 "i_1" {
      block.for %i2 = 0 to 1 "i_2" {
        block.block "W"(%vi = spatial(10, %i0 * 4 + %i1 + %i2)) where(%i0 * 4 + %i1 + %i2 < 10) {
          %a = block.load %A[%vi] : memref<10xf32>
          block.store %a, %Acc[%vi] : memref<10xf32, "local">
        }
      }
      block.block "C"(%vi = spatial(10, %i0 * 4 + %i1)) where(%i0 * 4 + %i1 < 10) {
        %x = block.load %Acc[%vi] : memref<10xf32, "local">
        block.store %x, %C[%vi] : memref<10xf32>
      }
    }
  }
  func.return
}

// -----

// A lower edge on the write (`< 9`) leaves element 9 unwritten where the read (`< 10`) reads it:
// no iteration of i_1 or i_0 is private, and the buffer stays whole at the function.

// CHECK-LABEL: func.func @lower_edge
// CHECK-NEXT:    %Acc = block.alloc : memref<10xf32, "local">
// CHECK:         block.for %i0 = 0 to 3 "i_0" {
func.func @lower_edge(%A: memref<10xf32>, %C: memref<10xf32>) {
  %Acc = block.alloc : memref<10xf32, "local">
  block.for %i0 = 0 to 3 "i_0" {
    block.for %i1 = 0 to 4 "i_1" {
      block.for %i2 = 0 to 1 "i_2" {
        block.block "W"(%vi = spatial(10, %i0 * 4 + %i1 + %i2)) where(%i0 * 4 + %i1 + %i2 < 9) {
          %a = block.load %A[%vi] : memref<10xf32>
          block.store %a, %Acc[%vi] : memref<10xf32, "local">
        }
      }
      block.block "C"(%vi = spatial(10, %i0 * 4 + %i1)) where(%i0 * 4 + %i1 < 10) {
        %x = block.load %Acc[%vi] : memref<10xf32, "local">
        block.store %x, %C[%vi] : memref<10xf32>
      }
    }
  }
  func.return
}

// -----

// Nothing to shrink (one thread sums both rows, all of Acc), and Acc still moves into the
// thread-bound loop: each GPU thread gets its own `local` array (lower-to-gpu refuses one the
// thread block would share).

// CHECK-LABEL: func.func @whole_buffer_one_thread
// CHECK-NEXT:    block.for %tx = 0 to 1 "tx" bind("threadIdx.x") {
// CHECK-NEXT:      %Acc = block.alloc : memref<2xf32, "local">
func.func @whole_buffer_one_thread(%A: memref<2xf32>, %C: memref<2xf32>) {
  %Acc = block.alloc : memref<2xf32, "local">
  block.for %tx = 0 to 1 "tx" bind("threadIdx.x") {
    block.for %i = 0 to 2 "i" {
      block.block "W"(%vi = spatial(2, %i)) {
        %a = block.load %A[%vi] : memref<2xf32>
        block.store %a, %Acc[%vi] : memref<2xf32, "local">
      }
    }
    block.for %j = 0 to 2 "j" {
      block.block "C"(%vj = spatial(2, %j)) {
        %x = block.load %Acc[%vj] : memref<2xf32, "local">
        block.store %x, %C[%vj] : memref<2xf32>
      }
    }
  }
  func.return
}
