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

// -----

// The refusal names the block of the module as scheduled so far: the matmul before it was
// tiled on a copy of the schedule, which replaced the one the blocks were first found in.
func.func @matmul_then_total(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>, %S: memref<1xf32>) {
  block.for %i = 0 to 16 "i" {
    block.for %j = 0 to 16 "j" {
      block.for %k = 0 to 16 "k" {
        block.block "C"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<16x16xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<16x16xf32>
          %a = block.load %A[%vi, %vk] : memref<16x16xf32>
          %b = block.load %B[%vk, %vj] : memref<16x16xf32>
          %p = arith.mulf %a, %b : f32
          %t = arith.addf %c, %p : f32
          block.store %t, %C[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
  }
  block.for %k = 0 to 16 "k" {
    // expected-error @+1 {{'block.block' op default-gpu-schedule: block "sum" of @matmul_then_total reduces to one element}}
    block.block "sum"(%vk = reduce(16, %k)) {
      block.init {
        %zero = arith.constant 0.000000e+00 : f32
        block.store %zero, %S[0] : memref<1xf32>
      }
      %s = block.load %S[0] : memref<1xf32>
      %a = block.load %A[0, %vk] : memref<16x16xf32>
      %t = arith.addf %s, %a : f32
      block.store %t, %S[0] : memref<1xf32>
    }
  }
  func.return
}

// -----

// Likewise a block left in a nest split by hand after a tiled matmul.
func.func @matmul_then_half_split(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>, %D: memref<16x16xf32>) {
  block.for %i = 0 to 16 "i" {
    block.for %j = 0 to 16 "j" {
      block.for %k = 0 to 16 "k" {
        block.block "C"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<16x16xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<16x16xf32>
          %a = block.load %A[%vi, %vk] : memref<16x16xf32>
          %b = block.load %B[%vk, %vj] : memref<16x16xf32>
          %p = arith.mulf %a, %b : f32
          %t = arith.addf %c, %p : f32
          block.store %t, %C[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
  }
  block.for %i = 0 to 16 "i" {
    block.for %j0 = 0 to 2 "j_0" {
      block.for %j1 = 0 to 8 "j_1" {
        // expected-error @+1 {{'block.block' op default-gpu-schedule: block "D" of @matmul_then_half_split is not in a fresh loop nest}}
        block.block "D"(%vi = spatial(16, %i), %vj = spatial(16, %j0 * 8 + %j1)) {
          %a = block.load %A[%vi, %vj] : memref<16x16xf32>
          block.store %a, %D[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
  }
  func.return
}
