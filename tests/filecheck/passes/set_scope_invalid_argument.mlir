// RUN: xtir-opt %s -p 'set-scope{block=C index=0 scope="local"}' --verify-diagnostics
// A function argument is not allocated by the function: its storage belongs to the caller
// (TVM's NonAllocatedBufferError, test_set_scope_fail_on_non_allocated_buffer).

builtin.module {
  func.func @main(%A: memref<16x16xf32>, %C: memref<16x16xf32>) {
    block.for %i = 0 to 16 "i" {
      block.for %j = 0 to 16 "j" {
        // expected-error @+1 {{'block.block' op set-scope: C, written by block "C", is not allocated in the function (an argument: its storage belongs to the caller); set the scope of an intermediate buffer or of a cache of it (cache-read, cache-write)}}
        block.block "C"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
          %a = block.load %A[%vi, %vj] : memref<16x16xf32>
          block.store %a, %C[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
    func.return
  }
}
