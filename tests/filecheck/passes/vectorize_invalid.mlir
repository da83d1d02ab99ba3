// RUN: xtir-opt %s --split-input-file -p 'vectorize{loop=k}' --verify-diagnostics
// vectorize refuses a loop that feeds a reduce iteration variable: its iterations all
// accumulate into the same element (TVM's rule for parallel/vectorize/bind).

// The reduction loop of a matmul.
func.func @reduction_loop(%A: memref<4x16xf32>, %B: memref<4x16xf32>, %C: memref<4x4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      // expected-error @+1 {{'block.for' op vectorize: loop "k" feeds reduce iteration variable %vk of block "matmul"; its iterations are not independent}}
      block.for %k = 0 to 16 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(16, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<4x4xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x16xf32>
          %b = block.load %B[%vj, %vk] : memref<4x16xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  func.return
}

// -----

// The outer loop of a split reduction loop feeds %vk through k * 4 + kk.
func.func @split_reduction(%A: memref<8x16xf32>, %S: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.for' op vectorize: loop "k" feeds reduce iteration variable %vk of block "sum"; its iterations are not independent}}
    block.for %k = 0 to 4 "k" {
      block.for %kk = 0 to 4 "kk" {
        block.block "sum"(%vi = spatial(8, %i), %vk = reduce(16, %k * 4 + %kk)) {
          %s = block.load %S[%vi] : memref<8xf32>
          %a = block.load %A[%vi, %vk] : memref<8x16xf32>
          %t = arith.addf %s, %a : f32
          block.store %t, %S[%vi] : memref<8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// Each iteration reads the element the next one writes: as for parallel
// (parallel_invalid.mlir), vectorized iterations must not share an element one writes.
func.func @backward_shift(%U: memref<17xf32>) {
  // expected-error @+1 {{'block.for' op vectorize: block "B" writes an element of U in iteration 15 of loop "k" that block "B" reads in iteration 14; its iterations are not independent}}
  block.for %k = 0 to 16 "k" {
    block.block "B"(%vi = spatial(16, %k)) {
      %u = block.load %U[15 - %vi] : memref<17xf32>
      %one = arith.constant 1.000000e+00 : f32
      %s = arith.addf %u, %one : f32
      block.store %s, %U[16 - %vi] : memref<17xf32>
    }
  }
  func.return
}

// -----

// An unknown loop name lists the loops there are.
// expected-error @+1 {{'func.func' op vectorize: no loop named "k"; loops: i}}
func.func @unknown_loop(%A: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "P"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}
