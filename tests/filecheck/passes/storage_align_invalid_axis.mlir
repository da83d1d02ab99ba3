// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=2 factor=32 offset=1}' --verify-diagnostics
// RUN: xtir-opt %s -p 'storage-align{block=B index=0 axis=-3 factor=32 offset=1}' --verify-diagnostics
// An axis outside [-ndim, ndim) (TVM's test_storage_align_invalid_axis; a negative axis counts from the end).

builtin.module {
  func.func @main(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
    %B = block.alloc : memref<16x16xf32>
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        // expected-error @+1 {{'block.block' op storage-align: B has 2 dimension(s), so axis must be in [-2, 2); got}}
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
