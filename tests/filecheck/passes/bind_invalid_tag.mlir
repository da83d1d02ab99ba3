// RUN: xtir-opt %s -p 'bind{loop=i thread="blockIdx.w"}' --verify-diagnostics
// An unknown thread tag lists the tags there are.

func.func @main(%A: memref<8xf32>) {
  // expected-error @+1 {{'block.for' op bind: unknown thread tag "blockIdx.w"; expected one of blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, vthread.x, vthread.y, vthread.z}}
  block.for %i = 0 to 8 "i" {
    block.block "P"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}
