// RUN: xtir-opt %s -p 'split{loop=i factors=-1,2,4},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},cache-read{block=B index=0 scope="local"},compute-at{block=A_local loop=i_1}' | filecheck %s

// compute-at of a local fetch when the data (3 elements) is no more than a thread's tile (2 threads of 4;
// the producer side of reverse_compute_at_small.mlir): the fetch keeps i_1 and a predicate, each thread
// loading its own part, as TVM does when the region does not provably hold the whole domain. (Every
// thread used to load all 3 elements.)

// CHECK:      block.for %i1 = 0 to 2 "i_1" bind("threadIdx.x") {
// CHECK-NEXT:   block.for %ax0 = 0 to 4 "ax0" {
// CHECK-NEXT:     block.block "A_local"(%v0 = spatial(3, %i0 * 8 + %i1 * 4 + %ax0)) where(%i0 * 8 + %i1 * 4 + %ax0 < 3) {

builtin.module {
  func.func @main(%A: memref<3xf32>, %B: memref<3xf32>) {
    block.for %i = 0 to 3 "i" {
      block.block "B"(%vi = spatial(3, %i)) {
        %x = block.load %A[%vi] : memref<3xf32>
        %y = arith.addf %x, %x : f32
        block.store %y, %B[%vi] : memref<3xf32>
      }
    }
    func.return
  }
}
