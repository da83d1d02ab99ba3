// RUN: xtir-opt %s --intrinsics=%s | filecheck %s
// User tensor intrinsics for tensorize.mlir and tensorize_invalid_operands.mlir, loaded
// with `xtir-opt --intrinsics=%S/Inputs/user_intrinsics.mlir`. (lit collects every
// .mlir file under tests/filecheck, so this one is a test too: it registers itself
// and prints back unchanged.)
//
// Each intrinsic is a pair @NAME_desc / @NAME_impl with the same arguments. The
// implementations are written in the block dialect: tensorize copies them into the
// matched block, adding each buffer's tile offset to their loads and stores, and
// gives their blocks fresh names.
//   vadd4x4: C = A + B on 4x4 tiles of any scope ("*"), as a vectorized row loop.
//   copy8:   an 8-wide copy from a global buffer into a "shared" one.

// CHECK-LABEL: func.func @vadd4x4_desc(%A: memref<4x4xf32, "*">, %B: memref<4x4xf32, "*">, %C: memref<4x4xf32, "*">)
// CHECK-LABEL: func.func @vadd4x4_impl(%A: memref<4x4xf32, "*">, %B: memref<4x4xf32, "*">, %C: memref<4x4xf32, "*">)
// CHECK:         block.for %c = 0 to 4 "c" vectorized {
// CHECK-LABEL: func.func @copy8_desc(%dst: memref<8xf32, "shared">, %src: memref<8xf32>)
// CHECK-LABEL: func.func @copy8_impl(%dst: memref<8xf32, "shared">, %src: memref<8xf32>)
// CHECK:         block.for %i = 0 to 8 "i" vectorized {
builtin.module {
  func.func @vadd4x4_desc(%A: memref<4x4xf32, "*">, %B: memref<4x4xf32, "*">, %C: memref<4x4xf32, "*">) {
    block.for %i = 0 to 4 "i" {
      block.for %j = 0 to 4 "j" {
        block.block "vadd4x4"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
          %a = block.load %A[%vi, %vj] : memref<4x4xf32, "*">
          %b = block.load %B[%vi, %vj] : memref<4x4xf32, "*">
          %s = arith.addf %a, %b : f32
          block.store %s, %C[%vi, %vj] : memref<4x4xf32, "*">
        }
      }
    }
    func.return
  }
  func.func @vadd4x4_impl(%A: memref<4x4xf32, "*">, %B: memref<4x4xf32, "*">, %C: memref<4x4xf32, "*">) {
    block.for %r = 0 to 4 "r" {
      block.for %c = 0 to 4 "c" vectorized {
        block.block "vadd4x4_row"(%vr = spatial(4, %r), %vc = spatial(4, %c)) {
          %a = block.load %A[%vr, %vc] : memref<4x4xf32, "*">
          %b = block.load %B[%vr, %vc] : memref<4x4xf32, "*">
          %s = arith.addf %a, %b : f32
          block.store %s, %C[%vr, %vc] : memref<4x4xf32, "*">
        }
      }
    }
    func.return
  }
  func.func @copy8_desc(%dst: memref<8xf32, "shared">, %src: memref<8xf32>) {
    block.for %i = 0 to 8 "i" {
      block.block "copy8"(%vi = spatial(8, %i)) {
        %x = block.load %src[%vi] : memref<8xf32>
        block.store %x, %dst[%vi] : memref<8xf32, "shared">
      }
    }
    func.return
  }
  func.func @copy8_impl(%dst: memref<8xf32, "shared">, %src: memref<8xf32>) {
    block.for %i = 0 to 8 "i" vectorized {
      block.block "copy8_lanes"(%vi = spatial(8, %i)) {
        %x = block.load %src[%vi] : memref<8xf32>
        block.store %x, %dst[%vi] : memref<8xf32, "shared">
      }
    }
    func.return
  }
}
