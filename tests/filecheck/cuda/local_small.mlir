// RUN: xtir-translate %s -p 'split{loop=i factors=-1,2,4},cache-write{block=B index=0 scope="local"},reverse-compute-at{block=B_local loop=i_1},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"}' --target cuda | filecheck %s

// A local accumulator when the data (3 rows) is smaller than the block tile (2 threads x 4 rows;
// passes/reverse_compute_at_small.mlir): B_local is the thread's part, at most 3 floats, and the
// write-back is predicated by the edge like the update.

// CHECK:      __align__(16) float B_local[3];
// CHECK:      const int v = i_0 * 8 + i_1 * 4;
// CHECK:      for (int ax0 = 0; ax0 < 4; ++ax0) {
// CHECK-NEXT:   const int v_2 = v + ax0;
// CHECK-NEXT:   if (v_2 < 3) {
// CHECK-NEXT:     B[v_2] = B_local[v_2];
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      main_kernel<<<dim3(1, 1, 1), dim3(2, 1, 1)>>>(A, B);

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
