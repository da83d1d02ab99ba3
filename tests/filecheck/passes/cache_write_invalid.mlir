// RUN: xtir-opt %s --split-input-file -p 'cache-write{block=first index=0 scope="local"}' --verify-diagnostics

// A consumer inside the same nest would read B before the write-back.
builtin.module {
  func.func @main(%A: memref<8xf32>, %B: memref<8xf32>, %C: memref<8xf32>) {
    block.for %i = 0 to 8 "i" {
      // expected-error @+1 {{'block.block' op cache-write: block "second" also accesses B in the loop nest of block "first"}}
      block.block "first"(%vi = spatial(8, %i)) {
        %a = block.load %A[%vi] : memref<8xf32>
        block.store %a, %B[%vi] : memref<8xf32>
      }
      block.block "second"(%vi = spatial(8, %i)) {
        %b = block.load %B[%vi] : memref<8xf32>
        block.store %b, %C[%vi] : memref<8xf32>
      }
    }
    func.return
  }
}

