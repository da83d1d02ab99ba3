// Hand-written gpu-dialect input (the form lower-to-gpu produces) for seed 002's window sum after
// split + bind, cache-read A into shared memory, compute-at i_1 and the cooperative fetch
// (ax0 split by 128, ax0_1 bound to threadIdx.x): A_shared holds the 130 floats one block uses.
// RUN: xtir-translate %s --target cuda | filecheck %s

// CHECK:      extern "C" __global__ void __launch_bounds__(128) main_kernel(const float* __restrict__ A, float* __restrict__ B) {
// CHECK-NEXT:   __shared__ __align__(16) float A_shared[130];
// CHECK-NEXT:   const int i_0 = (int)blockIdx.x;
// CHECK-NEXT:   const int ax0_1 = (int)threadIdx.x;
// CHECK-NEXT:   const int v = i_0 * 128;
// CHECK-NEXT:   for (int ax0_0 = 0; ax0_0 < 2; ++ax0_0) {
// CHECK-NEXT:     const int v_1 = ax0_0 * 128 + ax0_1;
// CHECK-NEXT:     if (v_1 < 130) {
// CHECK-NEXT:       A_shared[v_1] = A[v + v_1];
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   const int i_1 = (int)threadIdx.x;
// CHECK-NEXT:   B[v + i_1] = A_shared[i_1] + A_shared[i_1 + 1] + A_shared[i_1 + 2];
// CHECK-NEXT: }
// CHECK:      //   main_kernel<<<dim3(8, 1, 1), dim3(128, 1, 1)>>>(A, B);  // 128 threads/block, 520 bytes __shared__
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "main_kernels"}> ({
    "gpu.func"() <{function_type = (memref<1026xf32>, memref<1024xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<1026xf32>, %B: memref<1024xf32>):
      %A_shared = memref.alloca() : memref<130xf32, "shared">
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c128 = arith.constant 128 : index
      %c130 = arith.constant 130 : index
      %i_0 = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_name = "i_0"} : () -> index
      %ax0_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_name = "ax0_1"} : () -> index
      %0 = arith.muli %i_0, %c128 : index
      scf.for %ax0_0 = %c0 to %c2 step %c1 {
        %1 = arith.muli %ax0_0, %c128 : index
        %2 = arith.addi %1, %ax0_1 : index
        %3 = arith.cmpi slt, %2, %c130 : index
        scf.if %3 {
          %4 = arith.addi %0, %2 : index
          %5 = memref.load %A[%4] : memref<1026xf32>
          memref.store %5, %A_shared[%2] : memref<130xf32, "shared">
        }
      } {xtir.loop_name = "ax0_0"}
      "gpu.barrier"() : () -> ()
      %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_name = "i_1"} : () -> index
      %7 = arith.addi %0, %i_1 : index
      %a0 = memref.load %A_shared[%i_1] : memref<130xf32, "shared">
      %8 = arith.addi %i_1, %c1 : index
      %a1 = memref.load %A_shared[%8] : memref<130xf32, "shared">
      %9 = arith.addi %i_1, %c2 : index
      %a2 = memref.load %A_shared[%9] : memref<130xf32, "shared">
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      memref.store %sum, %B[%7] : memref<1024xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 128, 1, 1>} : () -> ()
  }) : () -> ()
  func.func @main(%A: memref<1026xf32>, %B: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    "gpu.launch_func"(%c8, %c1, %c1, %c128, %c1, %c1, %A, %B) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<1026xf32>, memref<1024xf32>) -> ()
    func.return
  }
}
