// RUN: xtir-opt %s -p 'pad-einsum{block=C padding=8,8,8}' | filecheck %s
// An f16 matmul summed in f32 (as an f16 model's dense): its factors are loads widened by
// arith.extf. A widened zero is zero, so the padded k steps add 0 and pad-einsum pads k (was:
// refused, "the factor arith.extf(A[vi, vk]) is not one").

// CHECK:      block.block "A_pad"
// CHECK:      block.block "B_pad"
// CHECK:      block.block "C"(%vi = spatial(8, %i), %vj = spatial(8, %j), %vk = reduce(16, %k))
// CHECK:        %wa = arith.extf %a : f16 to f32
// CHECK-NEXT:   %wb = arith.extf %b : f16 to f32
// CHECK:      block.block "C_pad"
builtin.module {
  func.func @main(%A: memref<6x13xf16>, %B: memref<13x5xf16>, %C: memref<6x5xf32>) {
    block.for %i = 0 to 6 "i" {
      block.for %j = 0 to 5 "j" {
        block.for %k = 0 to 13 "k" {
          block.block "C"(%vi = spatial(6, %i), %vj = spatial(5, %j), %vk = reduce(13, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<6x5xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<6x5xf32>
            %a = block.load %A[%vi, %vk] : memref<6x13xf16>
            %b = block.load %B[%vk, %vj] : memref<13x5xf16>
            %wa = arith.extf %a : f16 to f32
            %wb = arith.extf %b : f16 to f32
            %ab = arith.mulf %wa, %wb : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<6x5xf32>
          }
        }
      }
    }
    func.return
  }
}
