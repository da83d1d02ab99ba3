// RUN: xtir-opt %s -p 'set-scope{block=B index=0 scope="test_scope"}' --verify-diagnostics
// A scope that is not global, shared, local or warp (tagged or not) is refused (TVM's
// InvalidStorageScopeError, test_set_scope_check_invalid_storage_scope: "test_scope").

builtin.module {
  func.func @main(%A: memref<16xf32>, %C: memref<16xf32>) {
    %B = block.alloc : memref<16xf32>
    block.for %i = 0 to 16 "i" {
      // expected-error @+1 {{'block.block' op set-scope: the storage scope "test_scope" is invalid; a storage scope is global, shared, local, warp, or one of them with a tag ("global.A_reg"); TVM's shared.dyn and wmma.* are not supported}}
      block.block "B"(%vi = spatial(16, %i)) {
        %a = block.load %A[%vi] : memref<16xf32>
        block.store %a, %B[%vi] : memref<16xf32>
      }
    }
    block.for %i2 = 0 to 16 "i2" {
      block.block "C"(%vi = spatial(16, %i2)) {
        %b = block.load %B[%vi] : memref<16xf32>
        block.store %b, %C[%vi] : memref<16xf32>
      }
    }
    func.return
  }
}
