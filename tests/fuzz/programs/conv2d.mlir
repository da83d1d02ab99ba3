// A small NCHW conv2d with a bias + ReLU epilogue, for the schedule fuzzer (tests/fuzz).
// Conv[n, f, y, x] = sum over c, r, s of I[n, c, y + r, x + s] * W[f, c, r, s]
// (stride 1, no padding) into the scratch buffer %conv (block "conv", init 0), then
// O[n, f, y, x] = max(conv + bias[f], 0) (block "relu").
// N=2, C=3, H=W=6, F=4, R=S=3: output 2x4x4x4.
// xtir-run: numpy (see tests/fuzz/schedules.py: conv2d_reference)
builtin.module {
  func.func @main(%I: memref<2x3x6x6xf32>, %W: memref<4x3x3x3xf32>, %Bias: memref<4xf32>, %O: memref<2x4x4x4xf32>) {
    %conv = block.alloc : memref<2x4x4x4xf32>
    block.for %n = 0 to 2 "n" {
      block.for %f = 0 to 4 "f" {
        block.for %y = 0 to 4 "y" {
          block.for %x = 0 to 4 "x" {
            block.for %c = 0 to 3 "c" {
              block.for %r = 0 to 3 "r" {
                block.for %s = 0 to 3 "s" {
                  block.block "conv"(%vn = spatial(2, %n), %vf = spatial(4, %f), %vy = spatial(4, %y), %vx = spatial(4, %x), %vc = reduce(3, %c), %vr = reduce(3, %r), %vs = reduce(3, %s)) {
                    block.init {
                      %zero = arith.constant 0.000000e+00 : f32
                      block.store %zero, %conv[%vn, %vf, %vy, %vx] : memref<2x4x4x4xf32>
                    }
                    %acc = block.load %conv[%vn, %vf, %vy, %vx] : memref<2x4x4x4xf32>
                    %in = block.load %I[%vn, %vc, %vy + %vr, %vx + %vs] : memref<2x3x6x6xf32>
                    %w = block.load %W[%vf, %vc, %vr, %vs] : memref<4x3x3x3xf32>
                    %p = arith.mulf %in, %w : f32
                    %sum = arith.addf %acc, %p : f32
                    block.store %sum, %conv[%vn, %vf, %vy, %vx] : memref<2x4x4x4xf32>
                  }
                }
              }
            }
          }
        }
      }
    }
    block.for %n = 0 to 2 "n" {
      block.for %f = 0 to 4 "f" {
        block.for %y = 0 to 4 "y" {
          block.for %x = 0 to 4 "x" {
            block.block "relu"(%vn = spatial(2, %n), %vf = spatial(4, %f), %vy = spatial(4, %y), %vx = spatial(4, %x)) {
              %t = block.load %conv[%vn, %vf, %vy, %vx] : memref<2x4x4x4xf32>
              %b = block.load %Bias[%vf] : memref<4xf32>
              %s = arith.addf %t, %b : f32
              %zero = arith.constant 0.000000e+00 : f32
              %r = arith.maximumf %s, %zero : f32
              block.store %r, %O[%vn, %vf, %vy, %vx] : memref<2x4x4x4xf32>
            }
          }
        }
      }
    }
    func.return
  }
}
