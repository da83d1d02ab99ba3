// RUN: xtir-opt %s --split-input-file -p 'split{loop=i factors=62,16}' --verify-diagnostics
// What split refuses (for bad factor lists see split_invalid_factors.mlir); each
// expected-error pins the line and the message.

// 62 * 16 = 992 does not cover the 1000 iterations (TVM: "The product of factors is not
// larger than or equal to the extent of loop").
func.func @too_small(%A: memref<1000xf32>) {
  // expected-error @+1 {{'block.for' op split: the product of factors (992) is smaller than the extent of loop "i" (1000)}}
  block.for %i = 0 to 1000 "i" {
    block.block "B"(%vi = spatial(1000, %i)) {
      %a = block.load %A[%vi] : memref<1000xf32>
      block.store %a, %A[%vi] : memref<1000xf32>
    }
  }
  func.return
}

// -----

// An unknown loop name: the message lists the loops there are (reported at the function).
// expected-error @+1 {{'func.func' op split: no loop named "i"; loops: x, y}}
func.func @unknown_loop(%A: memref<8x8xf32>) {
  block.for %x = 0 to 8 "x" {
    block.for %y = 0 to 8 "y" {
      block.block "B"(%vx = spatial(8, %x), %vy = spatial(8, %y)) {
        %a = block.load %A[%vx, %vy] : memref<8x8xf32>
        block.store %a, %A[%vx, %vy] : memref<8x8xf32>
      }
    }
  }
  func.return
}

// -----

// Two loops named "i": the message says how to name one by a block it encloses.
// expected-error @+1 {{'func.func' op split: loop name "i" is ambiguous: 2 loops have it; name one by a block it encloses: P/i, Q/i}}
func.func @ambiguous_loop(%A: memref<992xf32>, %B: memref<992xf32>) {
  block.for %i = 0 to 992 "i" {
    block.block "P"(%vi = spatial(992, %i)) {
      %a = block.load %A[%vi] : memref<992xf32>
      block.store %a, %B[%vi] : memref<992xf32>
    }
  }
  block.for %i2 = 0 to 992 "i" {
    block.block "Q"(%vi = spatial(992, %i2)) {
      %b = block.load %B[%vi] : memref<992xf32>
      block.store %b, %A[%vi] : memref<992xf32>
    }
  }
  func.return
}
