// A local buffer whose layout the CUDA emitter cannot index from the start of a C array is refused, not emitted out of bounds.
// RUN: not xtir-translate %s -p 'bind{loop=i thread="threadIdx.x"}' --target cuda 2>&1 | filecheck %s
// CHECK: the CUDA emitter needs buffers of static strides at offset 0, got memref<4xf32, strided<[1], offset: 2>, "local">
func.func @main(%A: memref<4xf32>, %B: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    %S = block.alloc : memref<4xf32, strided<[1], offset: 2>, "local">
    block.for %j = 0 to 4 "j" {
      block.block "s"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vj] : memref<4xf32>
        block.store %a, %S[%vj] : memref<4xf32, strided<[1], offset: 2>, "local">
      }
    }
    block.block "u"(%vi = spatial(4, %i)) {
      %s = block.load %S[%vi] : memref<4xf32, strided<[1], offset: 2>, "local">
      block.store %s, %B[%vi] : memref<4xf32>
    }
  }
  func.return
}
