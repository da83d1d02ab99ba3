// RUN: xtir-opt %s --split-input-file -p 'unroll{loop=k}' --verify-diagnostics
// unroll accepts any loop; it refuses only a name that does not pick one loop.

// expected-error @+1 {{'func.func' op unroll: no loop named "k"; loops: i}}
func.func @unknown_loop(%A: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "P"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}

// -----

// expected-error @+1 {{'func.func' op unroll: loop name "k" is ambiguous: 2 loops have it; name one by a block it encloses: P/k, Q/k}}
func.func @ambiguous_loop(%A: memref<8xf32>, %B: memref<8xf32>) {
  block.for %k = 0 to 8 "k" {
    block.block "P"(%vi = spatial(8, %k)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %k2 = 0 to 8 "k" {
    block.block "Q"(%vi = spatial(8, %k2)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}
