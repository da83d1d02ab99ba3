// RUN: xtir-opt %s -p 'cache-write{block=B index=0 scope="wmma.accumulator"}' --verify-diagnostics
// TVM's tensor-core fragment scopes (wmma.matrix_a, wmma.matrix_b, wmma.accumulator) are not
// xtir's: refused, as a misspelled scope is.

builtin.module {
  func.func @main(%A: memref<16xf32>, %B: memref<16xf32>) {
    block.for %i = 0 to 16 "i" {
      // expected-error @+1 {{'block.block' op cache-write: the storage scope "wmma.accumulator" is invalid; a storage scope is global, shared, local, warp, or one of them with a tag ("global.A_reg"); TVM's shared.dyn and wmma.* are not supported}}
      block.block "B"(%vi = spatial(16, %i)) {
        %a = block.load %A[%vi] : memref<16xf32>
        block.store %a, %B[%vi] : memref<16xf32>
      }
    }
    func.return
  }
}
