// RUN: xtir-opt %s -p 'fuse{loops=i,i}' --verify-diagnostics
// A loop given twice: TVM's fuse has no check of its own for it and finds the loop not the
// parent of itself (OuterNotInnerParent).

func.func @main(%A: memref<8x8xf32>) {
  // expected-error @+1 {{'block.for' op fuse: loop "i" appears more than once (TVM: The outer loop is not the parent of the inner loop)}}
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 8 "j" {
      block.block "P"(%vi = spatial(8, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x8xf32>
        block.store %a, %A[%vi, %vj] : memref<8x8xf32>
      }
    }
  }
  func.return
}
