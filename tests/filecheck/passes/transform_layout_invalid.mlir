// RUN: xtir-opt %s --split-input-file -p 'transform-layout{buffer=T permutation=1,0}' --verify-diagnostics
// transform-layout permutes a buffer the function allocates; an argument's layout is the
// caller's, a buffer an accel op reads in row-major tiles must be permuted before tensorize,
// and the permutation must be one of the buffer's dimensions.

// expected-error @+1 {{'func.func' op transform-layout: cannot transform the layout of T: an argument of the function; its layout belongs to the caller; allocated buffers: none}}
func.func @argument(%T: memref<4x8xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "P"(%vi = spatial(4, %i)) {
      %a = block.load %T[%vi, 0] : memref<4x8xf32>
      block.store %a, %T[%vi, 1] : memref<4x8xf32>
    }
  }
  func.return
}

// -----

// expected-error @+1 {{'func.func' op transform-layout: cannot transform the layout of T: no buffers allocated with that name; allocated buffers: U}}
func.func @unknown(%A: memref<4xf32>) {
  %U = block.alloc : memref<4xf32>
  block.for %i = 0 to 4 "i" {
    block.block "P"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %U[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

func.func @not_a_permutation(%A: memref<4xf32>) {
  // expected-error @+1 {{'block.alloc' op transform-layout: permutation 1,0 is not a permutation of the 1 dimensions of T}}
  %T = block.alloc : memref<4xf32>
  block.for %i = 0 to 4 "i" {
    block.block "P"(%vi = spatial(4, %i)) {
      %a = block.load %A[%vi] : memref<4xf32>
      block.store %a, %T[%vi] : memref<4xf32>
    }
  }
  func.return
}

// -----

func.func @tiles(%A: memref<16x16xf32, "global.A_reg">, %B: memref<16x16xf32, "global.B_reg">) {
  %T = block.alloc : memref<16x16xf32, "global.accumulator">
  block.block "tile"() {
    // expected-error @+1 {{'accel.tmm16' op transform-layout: T is accessed by accel.tmm16, whose tiles are row-major; transform the layout before tensorize}}
    accel.tmm16 %T[0 : 16, 0 : 16], %A[0 : 16, 0 : 16], %B[0 : 16, 0 : 16] : memref<16x16xf32, "global.accumulator">, memref<16x16xf32, "global.A_reg">, memref<16x16xf32, "global.B_reg">
  }
  func.return
}
