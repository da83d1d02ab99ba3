// RUN: xtir-opt %s -p 'parallel{loop=f1},vectorize{loop=f2}' | filecheck %s
// A cooperative fetch (spaces_gpu.py): the tile's loops fused into f, f split into f0, f1, f2,
// under a fused block loop b. Its indices mix b and the pieces of f under floordiv and mod:
// `(f0 * 32 + f1 * 4 + f2) floordiv 8` is `f0 * 4 + f1 floordiv 2`, and its mod
// `(f1 mod 2) * 4 + f2`, once f1 is written as two digits (passes/analysis/digits.py); then the
// strides show that different iterations of f1 (or of f2) copy different elements. Enumerating
// every point instead took seconds per check at these sizes, and refused past 2^20 points.

// CHECK-LABEL: func.func @fetch
// CHECK:         block.for %f1 = 0 to 8 "f1" parallel {
// CHECK-NEXT:      block.for %f2 = 0 to 4 "f2" vectorized {
func.func @fetch(%A: memref<4096x2048xf32>, %S: memref<4096x2048xf32>) {
  block.for %b = 0 to 8192 "b" {
    block.for %k = 0 to 256 "k" {
      block.for %f0 = 0 to 8 "f0" {
        block.for %f1 = 0 to 8 "f1" {
          block.for %f2 = 0 to 4 "f2" {
            block.block "fetch"(%vi = spatial(4096, (%b floordiv 64) * 32 + (%f0 * 32 + %f1 * 4 + %f2) floordiv 8),
                                %vj = spatial(2048, %k * 8 + (%f0 * 32 + %f1 * 4 + %f2) mod 8)) {
              %a = block.load %A[%vi, %vj] : memref<4096x2048xf32>
              block.store %a, %S[%vi, %vj] : memref<4096x2048xf32>
            }
          }
        }
      }
    }
  }
  func.return
}
