// RUN: xtir-opt %s -p 'reorder{loops=j,i,j}' --verify-diagnostics
// A loop named twice (TVM: "Loop ... appears in the input array for multiple times").

func.func @main(%A: memref<8x8xf32>) {
  block.for %i = 0 to 8 "i" {
    // expected-error @+1 {{'block.for' op reorder: loop "j" appears more than once}}
    block.for %j = 0 to 8 "j" {
      block.block "P"(%vi = spatial(8, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x8xf32>
        block.store %a, %A[%vi, %vj] : memref<8x8xf32>
      }
    }
  }
  func.return
}
