// RUN: xtir-opt %s -p 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},lower-blocks,lower-to-gpu' | filecheck %s

// Seed 002 (6.1.3), vector add: blockIdx.x x threadIdx.x becomes a gpu.func launched on an 8 x 128
// grid (TVM 0.27: ../shared/reference/tvm/ir/gpu_vecadd.cu.txt). The kernel takes the host
// function's buffers in argument order; one id op per axis, named after its loops.

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT: func.func @main(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
// CHECK-NEXT: %0 = arith.constant 8 : index
// CHECK-NEXT: %1 = arith.constant 1 : index
// CHECK-NEXT: %2 = arith.constant 128 : index
// CHECK-NEXT: "gpu.launch_func"(%0, %1, %1, %2, %1, %1, %A, %B, %C) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.module"() <{sym_name = "main_kernels"}> ({
// CHECK-NEXT: "gpu.func"() <{function_type = (memref<1024xf32>, memref<1024xf32>, memref<1024xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>):
// CHECK-NEXT: %i = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_0"]} : () -> index
// CHECK-NEXT: %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_1"]} : () -> index
// CHECK-NEXT: %c128 = arith.constant 128 : index
// CHECK-NEXT: %0 = arith.muli %i, %c128 : index
// CHECK-NEXT: %1 = arith.addi %0, %i_1 : index
// CHECK-NEXT: %a = memref.load %A[%1] : memref<1024xf32>
// CHECK-NEXT: %b = memref.load %B[%1] : memref<1024xf32>
// CHECK-NEXT: %sum = arith.addf %a, %b : f32
// CHECK-NEXT: memref.store %sum, %C[%1] : memref<1024xf32>
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 8, 1, 1>, xtir.shared_bytes = 0 : i64} : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: }

builtin.module {
  func.func @main(%A: memref<1024xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
    block.for %i = 0 to 1024 "i" {
      block.block "C"(%vi = spatial(1024, %i)) {
        %a = block.load %A[%vi] : memref<1024xf32>
        %b = block.load %B[%vi] : memref<1024xf32>
        %sum = arith.addf %a, %b : f32
        block.store %sum, %C[%vi] : memref<1024xf32>
      }
    }
    func.return
  }
}
