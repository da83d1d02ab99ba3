// RUN: xtir-opt %s --split-input-file -p 'cache-read{block=sum index=1 scope="shared"}' --verify-diagnostics

// The block with init does not list C among its reads (as TVM), so index 1 is past A.
builtin.module {
  func.func @main(%A: memref<8x4xf32>, %C: memref<8xf32>) {
    block.for %i = 0 to 8 "i" {
      block.for %k = 0 to 4 "k" {
        // expected-error @+1 {{'block.block' op cache-read: block "sum" has 1 read buffers (A); index 1 is out of range}}
        block.block "sum"(%vi = spatial(8, %i), %vk = reduce(4, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi] : memref<8xf32>
          }
          %c = block.load %C[%vi] : memref<8xf32>
          %a = block.load %A[%vi, %vk] : memref<8x4xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %C[%vi] : memref<8xf32>
        }
      }
    }
    func.return
  }
}

// -----

// A buffer that the same nest writes cannot be copied before the nest.
builtin.module {
  func.func @main(%A: memref<8xf32>, %B: memref<8xf32>) {
    block.for %i = 0 to 8 "i" {
      block.block "copy"(%vi = spatial(8, %i)) {
        %a = block.load %A[%vi] : memref<8xf32>
        // expected-note @+1 {{block "copy" writes B}}
        block.store %a, %B[%vi] : memref<8xf32>
      }
      // expected-error @+1 {{'block.block' op cache-read: B is written by block "copy" between the cache copy and the last consumer; a copy made before would be stale}}
      block.block "sum"(%vi = spatial(8, %i)) {
        %a = block.load %A[%vi] : memref<8xf32>
        %b = block.load %B[%vi] : memref<8xf32>
        %s = arith.addf %a, %b : f32
        block.store %s, %A[%vi] : memref<8xf32>
      }
    }
    func.return
  }
}
