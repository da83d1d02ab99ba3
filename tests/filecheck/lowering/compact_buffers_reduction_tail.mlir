// RUN: xtir-opt %s --split-input-file -p inline-blocks,compact-buffers | filecheck %s
// compact-buffers and a reduction split by a factor that does not divide it (60 by 8): the
// init's write sits under the tail guard `k_0 * 8 + k_1 < 60` too. That conjunct holds where
// the init guard does (k_0 = k_1 = 0), so the init still writes the accumulator before each
// read in an iteration of i: one element per i.

// CHECK-LABEL: func.func @tail
// CHECK:         block.for %i = 0 to 4 "i" {
// CHECK-NEXT:      %Acc = block.alloc : memref<1xf32, "local">
// CHECK:                 block.store %zero, %Acc[0] {xtir.block = "sum"} : memref<1xf32, "local">
// CHECK:           %x = block.load %Acc[0] {xtir.block = "C"} : memref<1xf32, "local">
func.func @tail(%A: memref<4x60xf32>, %C: memref<4xf32>) {
  %Acc = block.alloc : memref<4xf32, "local">
  block.for %i = 0 to 4 "i" {
    block.for %k0 = 0 to 8 "k_0" {
      block.for %k1 = 0 to 8 "k_1" {
        block.block "sum"(%vi = spatial(4, %i), %vk = reduce(60, %k0 * 8 + %k1)) where(%k0 * 8 + %k1 < 60) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %Acc[%vi] : memref<4xf32, "local">
          }
          %c = block.load %Acc[%vi] : memref<4xf32, "local">
          %a = block.load %A[%vi, %vk] : memref<4x60xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %Acc[%vi] : memref<4xf32, "local">
        }
      }
    }
    block.block "C"(%vi = spatial(4, %i)) {
      %x = block.load %Acc[%vi] : memref<4xf32, "local">
      block.store %x, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}


// -----

// A conjunct on i (`i < 3`) is no tail of the reduction: row 3 is never initialized but is
// read, so the buffer keeps carrying data across i and stays whole.
// CHECK-LABEL: func.func @not_a_tail
// CHECK-NEXT:    %Acc = block.alloc : memref<4xf32, "local">
func.func @not_a_tail(%A: memref<4x60xf32>, %C: memref<4xf32>) {
  %Acc = block.alloc : memref<4xf32, "local">
  block.for %i = 0 to 4 "i" {
    block.for %k0 = 0 to 8 "k_0" {
      block.for %k1 = 0 to 8 "k_1" {
        block.block "sum"(%vi = spatial(4, %i), %vk = reduce(60, %k0 * 8 + %k1)) where(%k0 * 8 + %k1 < 60, %i < 3) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %Acc[%vi] : memref<4xf32, "local">
          }
          %c = block.load %Acc[%vi] : memref<4xf32, "local">
          %a = block.load %A[%vi, %vk] : memref<4x60xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %Acc[%vi] : memref<4xf32, "local">
        }
      }
    }
    block.block "C"(%vi = spatial(4, %i)) {
      %x = block.load %Acc[%vi] : memref<4xf32, "local">
      block.store %x, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}

