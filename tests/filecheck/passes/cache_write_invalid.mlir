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


// -----

// An update without init (decompose-reduction ran first): it reads what "init" left in C,
// which the cache would not hold.
func.func @update_without_init(%A: memref<8x8xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "init"(%vi = spatial(8, %i)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %C[%vi] : memref<8xf32>
    }
  }
  block.for %i2 = 0 to 8 "i" {
    block.for %k = 0 to 8 "k" {
      // expected-error @+1 {{'block.block' op cache-write: block "first" reads C without an init that writes it first, so the cache C_local would start uninitialized; cache-write a reduction before decompose-reduction}}
      block.block "first"(%vi = spatial(8, %i2), %vk = reduce(8, %k)) {
        %c = block.load %C[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x8xf32>
        %sum = arith.addf %c, %a : f32
        block.store %sum, %C[%vi] : memref<8xf32>
      }
    }
  }
  func.return
}
