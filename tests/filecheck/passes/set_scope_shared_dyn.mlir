// RUN: xtir-opt %s -p 'set-scope{block=B index=0 scope="shared.dyn"}' --verify-diagnostics
// TVM's dynamic shared memory, "shared.dyn", is refused by set-scope (and the cache primitives,
// test_schedule_api.py): lower-to-gpu sizes shared buffers when it compiles, and used to refuse
// the kernel only then.

builtin.module {
  func.func @main(%A: memref<16xf32>, %C: memref<16xf32>) {
    %B = block.alloc : memref<16xf32>
    block.for %i = 0 to 16 "i" {
      // expected-error @+1 {{'block.block' op set-scope: the storage scope "shared.dyn" (TVM's dynamic shared memory) is not supported: lower-to-gpu sizes shared buffers when it compiles; use "shared"}}
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
