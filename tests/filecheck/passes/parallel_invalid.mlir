// RUN: xtir-opt %s --split-input-file -p 'parallel{loop=k}' --verify-diagnostics
// parallel refuses a loop that feeds a reduce iteration variable: its iterations all
// accumulate into the same element (TVM's rule for parallel/vectorize/bind). It also refuses
// a loop two of whose iterations touch one element that one of them writes, whatever the
// iteration variables' kinds say: the iterations would race.

// The reduction loop of a matmul.
func.func @reduction_loop(%A: memref<4x16xf32>, %B: memref<4x16xf32>, %C: memref<4x4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      // expected-error @+1 {{'block.for' op parallel: loop "k" feeds reduce iteration variable %vk of block "matmul"; its iterations are not independent}}
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
    // expected-error @+1 {{'block.for' op parallel: loop "k" feeds reduce iteration variable %vk of block "sum"; its iterations are not independent}}
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

// Each iteration reads the element the next one writes (U[16 - vi] = U[15 - vi] + 1): a
// spatial block whose instances depend on each other through memory.
func.func @backward_shift(%U: memref<17xf32>) {
  // expected-error @+1 {{'block.for' op parallel: block "B" writes an element of U in iteration 15 of loop "k" that block "B" reads in iteration 14; its iterations are not independent}}
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

// Two blocks, each with independent instances, that communicate across iterations: Q reads
// the element of T that P writes in the next iteration.
func.func @two_blocks(%A: memref<17xf32>, %T: memref<17xf32>, %C: memref<16xf32>) {
  // expected-error @+1 {{'block.for' op parallel: block "P" writes an element of T in iteration 1 of loop "k" that block "Q" reads in iteration 0; its iterations are not independent}}
  block.for %k = 0 to 16 "k" {
    block.block "P"(%vi = spatial(16, %k)) {
      %a = block.load %A[%vi] : memref<17xf32>
      block.store %a, %T[%vi] : memref<17xf32>
    }
    block.block "Q"(%vi = spatial(16, %k)) {
      %t = block.load %T[%vi + 1] : memref<17xf32>
      block.store %t, %C[%vi] : memref<16xf32>
    }
  }
  func.return
}

// -----

// A sum written as a spatial block: every iteration reads and writes S[0].
func.func @mislabeled_reduction(%A: memref<16xf32>, %S: memref<1xf32>) {
  // expected-error @+1 {{'block.for' op parallel: block "S" writes an element of S in iteration 0 of loop "k" that block "S" reads in iteration 15; its iterations are not independent}}
  block.for %k = 0 to 16 "k" {
    block.block "S"(%vi = spatial(16, %k)) {
      %s = block.load %S[0] : memref<1xf32>
      %a = block.load %A[%vi] : memref<16xf32>
      %t = arith.addf %s, %a : f32
      block.store %t, %S[0] : memref<1xf32>
    }
  }
  func.return
}

// -----

// A scratch buffer that carries data from one iteration to the next (the running value in
// R[0] is read before it is written) cannot be given to each iteration: it is shared.
func.func @carried_scratch(%A: memref<16xf32>, %B: memref<16xf32>) {
  %R = block.alloc : memref<1xf32>
  // expected-error @+1 {{'block.for' op parallel: block "acc" writes an element of R in iteration 0 of loop "k" that block "acc" reads in iteration 15; its iterations are not independent}}
  block.for %k = 0 to 16 "k" {
    block.block "acc"(%vi = spatial(16, %k)) {
      %r = block.load %R[0] : memref<1xf32>
      %a = block.load %A[%vi] : memref<16xf32>
      %t = arith.addf %r, %a : f32
      block.store %t, %R[0] : memref<1xf32>
      block.store %t, %B[%vi] : memref<16xf32>
    }
  }
  func.return
}

// -----

// An unknown loop name lists the loops there are.
// expected-error @+1 {{'func.func' op parallel: no loop named "k"; loops: i}}
func.func @unknown_loop(%A: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "P"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}
