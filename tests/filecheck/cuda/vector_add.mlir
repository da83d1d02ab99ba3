// Hand-written gpu-dialect input (the form lower-to-gpu produces) for seed 002's vector add:
// split{loop=i factors=-1,128}, bind i_0 to blockIdx.x and i_1 to threadIdx.x.
// RUN: xtir-translate %s --target cuda | filecheck %s

// CHECK:      extern "C" __global__ void __launch_bounds__(128) main_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
// CHECK-NEXT:   const int i_0 = (int)blockIdx.x;
// CHECK-NEXT:   const int i_1 = (int)threadIdx.x;
// CHECK-NEXT:   const int v = i_0 * 128 + i_1;
// CHECK-NEXT:   C[v] = A[v] + B[v];
// CHECK-NEXT: }
// CHECK:      // Host side of @main(A, B, C):
// CHECK-NEXT: //   main_kernel<<<dim3(8, 1, 1), dim3(128, 1, 1)>>>(A, B, C);  // 128 threads/block, 0 bytes __shared__
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "main_kernels"}> ({
    "gpu.func"() <{function_type = (memref<1024xf32>, memref<1024xf32>, memref<1024xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>):
      %c128 = arith.constant 128 : index
      %i_0 = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_name = "i_0"} : () -> index
      %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_name = "i_1"} : () -> index
      %0 = arith.muli %i_0, %c128 : index
      %1 = arith.addi %0, %i_1 : index
      %a = memref.load %A[%1] : memref<1024xf32>
      %b = memref.load %B[%1] : memref<1024xf32>
      %sum = arith.addf %a, %b : f32
      memref.store %sum, %C[%1] : memref<1024xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 128, 1, 1>} : () -> ()
  }) : () -> ()
  func.func @main(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    "gpu.launch_func"(%c8, %c1, %c1, %c128, %c1, %c1, %A, %B, %C) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>) -> ()
    func.return
  }
}
