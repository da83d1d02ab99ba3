// RUN: xtir-opt %s -p 'storage-align{block=C index=0 axis=0 factor=32 offset=1}' --verify-diagnostics
// A buffer that is a function argument is not allocated by the function: its layout belongs to the
// caller (TVM's NonAllocatedBufferError, test_storage_align_invalid_buffer).

builtin.module {
  func.func @main(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        // expected-error @+1 {{'block.block' op storage-align: C, written by block "C", is not allocated in the function (an argument: its layout belongs to the caller); align a cache of it (cache-read, cache-write)}}
        block.block "C"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
          %a = block.load %A[%vi, %vj] : memref<16x16xf32>
          block.store %a, %C[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
    func.return
  }
}
