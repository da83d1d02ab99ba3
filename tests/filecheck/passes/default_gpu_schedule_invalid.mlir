// RUN: xtir-opt %s --split-input-file -p default-gpu-schedule --verify-diagnostics
// A kernel needs every loop nest bound: a block default-gpu-schedule cannot schedule (its loops
// split by hand but left serial) is an error, not a function left to fail in lower-to-gpu.
func.func @half_split(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %j0 = 0 to 2 "j_0" {
      block.for %j1 = 0 to 4 "j_1" {
        // expected-error @+1 {{'block.block' op default-gpu-schedule: block "B" of @half_split is not in a fresh loop nest (one serial loop per iteration variable) and a kernel needs every loop nest bound; schedule @half_split by hand (bind its loops)}}
        block.block "B"(%vi = spatial(8, %i), %vj = spatial(8, %j0 * 4 + %j1)) {
          %a = block.load %A[%vi, %vj] : memref<8x8xf32>
          block.store %a, %B[%vi, %vj] : memref<8x8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// A reduction to one element has no spatial loop to bind (no reduction across threads yet).
func.func @total(%A: memref<8xf32>, %S: memref<1xf32>) {
  block.for %k = 0 to 8 "k" {
    // expected-error @+1 {{'block.block' op default-gpu-schedule: block "sum" of @total reduces to one element: it has no spatial loop to bind to threads (a reduction across threads is not supported yet)}}
    block.block "sum"(%vk = reduce(8, %k)) {
      block.init {
        %zero = arith.constant 0.000000e+00 : f32
        block.store %zero, %S[0] : memref<1xf32>
      }
      %s = block.load %S[0] : memref<1xf32>
      %a = block.load %A[%vk] : memref<8xf32>
      %t = arith.addf %s, %a : f32
      block.store %t, %S[0] : memref<1xf32>
    }
  }
  func.return
}
