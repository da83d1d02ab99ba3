// RUN: xtir-opt %s -p 'cache-read{block=B index=0 scope="bogus"}' --verify-diagnostics
// A misspelled scope is refused with the scopes there are, not made into a cache buffer of
// memory space "bogus" (which every later pass would carry).

builtin.module {
  func.func @main(%A: memref<16xf32>, %B: memref<16xf32>) {
    block.for %i = 0 to 16 "i" {
      // expected-error @+1 {{'block.block' op cache-read: the storage scope "bogus" is invalid; a storage scope is global, shared, local, warp, or one of them with a tag ("global.A_reg"); TVM's shared.dyn and wmma.* are not supported}}
      block.block "B"(%vi = spatial(16, %i)) {
        %a = block.load %A[%vi] : memref<16xf32>
        block.store %a, %B[%vi] : memref<16xf32>
      }
    }
    func.return
  }
}
