// RUN: xtir-opt %s -p lower-blocks,lower-to-gpu | filecheck %s
// Two launches in one function, in program order: kernels f_kernel0 and f_kernel1 of
// gpu.module @f_kernels, each taking only the buffers it uses, in argument order.

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT: func.func @f(%A: memref<128xf32>, %B: memref<64xf32>, %C: memref<128xf32>) {
// CHECK-NEXT:   %0 = arith.constant 1 : index
// CHECK-NEXT:   %1 = arith.constant 128 : index
// CHECK-NEXT:   "gpu.launch_func"(%0, %0, %0, %1, %0, %0, %A, %C) <{kernel = @f_kernels::@f_kernel0,
// CHECK-NEXT:   %2 = arith.constant 64 : index
// CHECK-NEXT:   "gpu.launch_func"(%0, %0, %0, %2, %0, %0, %B) <{kernel = @f_kernels::@f_kernel1,
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.module"() <{sym_name = "f_kernels"}> ({
// CHECK-NEXT:   "gpu.func"() <{function_type = (memref<128xf32>, memref<128xf32>) -> (), kernel}> ({
// CHECK:        sym_name = "f_kernel0", gpu.known_block_size = array<i32: 128, 1, 1>
// CHECK:        "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
// CHECK:        sym_name = "f_kernel1", gpu.known_block_size = array<i32: 64, 1, 1>

func.func @f(%A: memref<128xf32>, %B: memref<64xf32>, %C: memref<128xf32>) {
  block.for %t = 0 to 128 "t" bind("threadIdx.x") {
    block.block "C"(%v = spatial(128, %t)) {
      %a = block.load %A[%v] : memref<128xf32>
      block.store %a, %C[%v] : memref<128xf32>
    }
  }
  block.for %u = 0 to 64 "u" bind("threadIdx.x") {
    block.block "B"(%v = spatial(64, %u)) {
      %one = arith.constant 1.0 : f32
      block.store %one, %B[%v] : memref<64xf32>
    }
  }
  func.return
}
