// RUN: xtir-opt %s -p 'storage-align{block=B index=1 axis=0 factor=32 offset=1}' --verify-diagnostics
// A buffer index past the block's written buffers (TVM's test_storage_align_invalid_buffer_index).

builtin.module {
  func.func @main(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
    %B = block.alloc : memref<16x16xf32>
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        // expected-error @+1 {{'block.block' op storage-align: block "B" has 1 written buffers (B); index 1 is out of range}}
        block.block "B"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
          %a = block.load %A[%vi, %vj] : memref<16x16xf32>
          block.store %a, %B[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
    block.for %i2 = 0 to 16 "i2" {
      block.for %j2 = 0 to 16 "j2" {
        block.block "C"(%vi = spatial(16, %i2), %vj = spatial(16, %j2)) {
          %b = block.load %B[%vj, %vi] : memref<16x16xf32>
          block.store %b, %C[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
    func.return
  }
}
