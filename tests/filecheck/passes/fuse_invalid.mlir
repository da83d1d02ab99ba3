// RUN: xtir-opt %s --split-input-file -p 'fuse{loops=i,j}' --verify-diagnostics
// What fuse refuses: the loops must be perfectly nested, given outermost first.

// Loops of two sibling nests.
func.func @not_nested(%A: memref<8xf32>, %B: memref<8xf32>) {
  // expected-error @+1 {{'block.for' op fuse: loop "j" is not directly inside loop "i"; fused loops must be perfectly nested and given outermost first}}
  block.for %i = 0 to 8 "i" {
    block.block "P"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  // expected-note @+1 {{loop "j" is here}}
  block.for %j = 0 to 8 "j" {
    block.block "Q"(%vj = spatial(8, %j)) {
      %b = block.load %B[%vj] : memref<8xf32>
      block.store %b, %A[%vj] : memref<8xf32>
    }
  }
  func.return
}

// -----

// Given innermost first.
func.func @inner_first(%A: memref<8x8xf32>) {
  // expected-error @+3 {{'block.for' op fuse: loop "j" is not directly inside loop "i"; fused loops must be perfectly nested and given outermost first}}
  // expected-note @+1 {{loop "j" is here}}
  block.for %j = 0 to 8 "j" {
    block.for %i = 0 to 8 "i" {
      block.block "P"(%vi = spatial(8, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x8xf32>
        block.store %a, %A[%vi, %vj] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// Not perfectly nested: loop i also holds loop k.
func.func @not_perfect(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
  // expected-error @+1 {{'block.for' op fuse: loop "j" is not the only statement in the body of loop "i"; fused loops must be perfectly nested and given outermost first}}
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 8 "j" {
      block.block "P"(%vi = spatial(8, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x8xf32>
        block.store %a, %B[%vi, %vj] : memref<8x8xf32>
      }
    }
    // expected-note @+1 {{loop "i" also holds loop "k"}}
    block.for %k = 0 to 8 "k" {
      block.block "Q"(%vi = spatial(8, %i), %vk = spatial(8, %k)) {
        %b = block.load %B[%vi, %vk] : memref<8x8xf32>
        block.store %b, %A[%vi, %vk] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// An unknown loop name lists the loops there are.
// expected-error @+1 {{'func.func' op fuse: no loop named "j"; loops: i, k}}
func.func @unknown_loop(%A: memref<8x8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %k = 0 to 8 "k" {
      block.block "P"(%vi = spatial(8, %i), %vk = spatial(8, %k)) {
        %a = block.load %A[%vi, %vk] : memref<8x8xf32>
        block.store %a, %A[%vi, %vk] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// The fused extent, the product of the extents, must fit in i64: 2^32 x 2^32 does not.
func.func @extent_past_int64(%A: memref<4294967296x4294967296xf32>) {
  // expected-error @+1 {{'block.for' op fuse: the fused loop would have extent 18446744073709551616 (the product of the extents 4294967296 x 4294967296 of loops i, j), which does not fit in 64 bits (at most 9223372036854775807)}}
  block.for %i = 0 to 4294967296 "i" {
    block.for %j = 0 to 4294967296 "j" {
      block.block "P"(%vi = spatial(4294967296, %i), %vj = spatial(4294967296, %j)) {
        %a = block.load %A[%vi, %vj] : memref<4294967296x4294967296xf32>
        block.store %a, %A[%vi, %vj] : memref<4294967296x4294967296xf32>
      }
    }
  }
  func.return
}
