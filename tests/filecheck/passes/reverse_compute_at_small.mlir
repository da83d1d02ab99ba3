// RUN: xtir-opt %s -p 'split{loop=i factors=-1,2,4},cache-write{block=B index=0 scope="local"},reverse-compute-at{block=B_local loop=i_1},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"}' | filecheck %s

// reverse-compute-at of a local accumulator when the data is smaller than a thread's tile (the
// fuzzer's rowsum(1, 40) and matmul(8, 40, 40)): the 3 rows, 2 threads of 4 rows each. One iteration
// of i_1 produces rows [i_1 * 4, + 4), more than B's domain of 3, yet they move with i_1: the
// write-back keeps i_1 and a predicate, as TVM's compute-at does when the region does not provably
// hold the whole domain. (It used to run the whole domain in every iteration of i_1: every thread
// wrote back the rows of the other, and bind refused i_1, its iterations not independent.)

// CHECK:        block.for %i1 = 0 to 2 "i_1" bind("threadIdx.x") {
// CHECK:          block.for %ax0 = 0 to 4 "ax0" {
// CHECK-NEXT:       block.block "B_local"(%v0 = spatial(3, %i0 * 8 + %i1 * 4 + %ax0)) where(%i0 * 8 + %i1 * 4 + %ax0 < 3) {
// CHECK-NEXT:         %0 = block.load %B_local[%v0] : memref<3xf32, "local">
// CHECK-NEXT:         block.store %0, %B[%v0] : memref<3xf32>

builtin.module {
  func.func @main(%A: memref<3x40xf32>, %B: memref<3xf32>) {
    block.for %i = 0 to 3 "i" {
      block.for %j = 0 to 40 "j" {
        block.block "B"(%vi = spatial(3, %i), %vj = reduce(40, %j)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %B[%vi] : memref<3xf32>
          }
          %s = block.load %B[%vi] : memref<3xf32>
          %x = block.load %A[%vi, %vj] : memref<3x40xf32>
          %t = arith.addf %s, %x : f32
          block.store %t, %B[%vi] : memref<3xf32>
        }
      }
    }
    func.return
  }
}
