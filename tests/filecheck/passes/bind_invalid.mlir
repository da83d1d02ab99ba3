// RUN: xtir-opt %s --split-input-file -p 'bind{loop=i thread="threadIdx.x"}' --verify-diagnostics
// What bind refuses (an unknown thread tag: bind_invalid_tag.mlir).

// The same tag twice along one nest: j, around i, is already bound to threadIdx.x,
// and the body under i uses j (on the GPU only the diagonal i == j would run).
func.func @same_tag_in_nest(%A: memref<8x8xf32>) {
  // expected-note @+1 {{loop "j" is bound to threadIdx.x}}
  block.for %j = 0 to 8 "j" bind("threadIdx.x") {
    // expected-error @+1 {{'block.for' op bind: loop "j" around "i" is bound to threadIdx.x too, and the body of "i" uses its index; nested loops may share a thread axis only when the inner body does not depend on the outer one}}
    block.for %i = 0 to 8 "i" {
      // expected-note @+1 {{it uses the index of loop "j"}}
      block.block "P"(%vi = spatial(8, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x8xf32>
        block.store %a, %A[%vi, %vj] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// Cooperative fetching with a reduction under the inner loop: each outer thread
// would add its share again.
func.func @same_tag_over_reduction(%A: memref<8x8xf32>, %S: memref<8xf32>) {
  // expected-note @+1 {{loop "t" is bound to threadIdx.x}}
  block.for %t = 0 to 8 "t" bind("threadIdx.x") {
    block.for %r = 0 to 8 "r" {
      // expected-error @+1 {{'block.for' op bind: loop "t" around "i" is bound to threadIdx.x too, and a reduction under "i" would run once per outer thread instead of once}}
      block.for %i = 0 to 8 "i" {
        block.block "sum"(%vi = spatial(8, %i), %vr = reduce(8, %r)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %S[%vi] : memref<8xf32>
          }
          %s = block.load %S[%vi] : memref<8xf32>
          %a = block.load %A[%vi, %vr] : memref<8x8xf32>
          %n = arith.addf %s, %a : f32
          block.store %n, %S[%vi] : memref<8xf32>
        }
      }
    }
  }
  func.return
}

// -----

// The same tag with two extents in one kernel (the blockIdx.x loop b): one thread axis
// has one extent.
func.func @same_tag_other_extent(%A: memref<4x64xf32>, %B: memref<4x64xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    // expected-note @+1 {{loop "j" is bound to threadIdx.x with extent 32}}
    block.for %j = 0 to 32 "j" bind("threadIdx.x") {
      block.block "P"(%vb = spatial(4, %b), %vj = spatial(32, %j)) {
        %z = arith.constant 0.000000e+00 : f32
        block.store %z, %A[%vb, %vj] : memref<4x64xf32>
      }
    }
    // expected-error @+1 {{'block.for' op bind: loop "i" has extent 64 but loop "j" of the same kernel is bound to threadIdx.x with extent 32; one thread axis has one extent}}
    block.for %i = 0 to 64 "i" {
      block.block "Q"(%vb = spatial(4, %b), %vi = spatial(64, %i)) {
        %a = block.load %A[%vb, %vi] : memref<4x64xf32>
        block.store %a, %B[%vb, %vi] : memref<4x64xf32>
      }
    }
  }
  func.return
}

// -----

// The same, the other way around: binding the outer loop i makes one kernel of two
// loops bound to threadIdx.y with different extents.
func.func @kernel_joins_extents(%A: memref<4x64xf32>, %B: memref<4x64xf32>) {
  // expected-error @+1 {{'block.for' op bind: binding loop "i" makes one kernel of loops "j" (extent 32) and "k" (extent 64), both bound to threadIdx.y; one thread axis has one extent}}
  block.for %i = 0 to 4 "i" {
    // expected-note @+1 {{loop "j" is bound to threadIdx.y with extent 32}}
    block.for %j = 0 to 32 "j" bind("threadIdx.y") {
      block.block "P"(%vi = spatial(4, %i), %vj = spatial(32, %j)) {
        %z = arith.constant 0.000000e+00 : f32
        block.store %z, %A[%vi, %vj] : memref<4x64xf32>
      }
    }
    // expected-note @+1 {{loop "k" is bound to threadIdx.y with extent 64}}
    block.for %k = 0 to 64 "k" bind("threadIdx.y") {
      block.block "Q"(%vi = spatial(4, %i), %vk = spatial(64, %k)) {
        %a = block.load %A[%vi, %vk] : memref<4x64xf32>
        block.store %a, %B[%vi, %vk] : memref<4x64xf32>
      }
    }
  }
  func.return
}

// -----

// A loop that feeds a reduce iteration variable.
func.func @reduction_loop(%A: memref<8x16xf32>, %S: memref<8xf32>) {
  block.for %r = 0 to 8 "r" {
    // expected-error @+1 {{'block.for' op bind: loop "i" feeds reduce iteration variable %vk of block "sum"; its iterations are not independent}}
    block.for %i = 0 to 16 "i" {
      block.block "sum"(%vr = spatial(8, %r), %vk = reduce(16, %i)) {
        %s = block.load %S[%vr] : memref<8xf32>
        %a = block.load %A[%vr, %vk] : memref<8x16xf32>
        %t = arith.addf %s, %a : f32
        block.store %t, %S[%vr] : memref<8xf32>
      }
    }
  }
  func.return
}

// -----

// Threads must not share an element one of them writes (as parallel, parallel_invalid.mlir).
func.func @backward_shift(%U: memref<17xf32>) {
  // expected-error @+1 {{'block.for' op bind: block "B" writes an element of U in iteration 15 of loop "i" that block "B" reads in iteration 14; its iterations are not independent}}
  block.for %i = 0 to 16 "i" {
    block.block "B"(%vi = spatial(16, %i)) {
      %u = block.load %U[15 - %vi] : memref<17xf32>
      %one = arith.constant 1.000000e+00 : f32
      %s = arith.addf %u, %one : f32
      block.store %s, %U[16 - %vi] : memref<17xf32>
    }
  }
  func.return
}

// -----

// expected-error @+1 {{'func.func' op bind: no loop named "i"; loops: x}}
func.func @unknown_loop(%A: memref<8xf32>) {
  block.for %x = 0 to 8 "x" {
    block.block "P"(%vx = spatial(8, %x)) {
      %a = block.load %A[%vx] : memref<8xf32>
      block.store %a, %A[%vx] : memref<8xf32>
    }
  }
  func.return
}
