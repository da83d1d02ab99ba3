// RUN: xtir-opt %s -p 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},cache-read{block=B index=0 scope="shared"},compute-at{block=A_shared loop=i_1},split{loop=ax0 factors=-1,128},bind{loop=ax0_1 thread="threadIdx.x"},lower-blocks,lower-to-gpu' | filecheck %s

// Seed 002 (6.1.4), window sum with a shared cache and cooperative fetching. As in TVM 0.27
// (../shared/reference/tvm/ir/gpu_window.cu.txt): A_shared holds the 130 floats one thread
// block uses (not 1026), indices rebased to the block's window; the fetch runs under the split's
// predicate (ax0_0 * 128 + threadIdx.x < 130), and one barrier separates it from the reads.

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT: func.func @main(%A: memref<1026xf32>, %B: memref<1024xf32>) {
// CHECK-NEXT: %0 = arith.constant 8 : index
// CHECK-NEXT: %1 = arith.constant 1 : index
// CHECK-NEXT: %2 = arith.constant 128 : index
// CHECK-NEXT: "gpu.launch_func"(%0, %1, %1, %2, %1, %1, %A, %B) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<1026xf32>, memref<1024xf32>) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.module"() <{sym_name = "main_kernels"}> ({
// CHECK-NEXT: "gpu.func"() <{function_type = (memref<1026xf32>, memref<1024xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<1026xf32>, %B: memref<1024xf32>):
// CHECK-NEXT: %A_shared = memref.alloca() : memref<130xf32, "shared">
// CHECK-NEXT: %i = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_0"]} : () -> index
// CHECK-NEXT: %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_1", "ax0_1"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c128 = arith.constant 128 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %c130 = arith.constant 130 : index
// CHECK-NEXT: %0 = arith.muli %i, %c128 : index
// CHECK-NEXT: scf.for %ax00 = %c0 to %c2 step %c1 {
// CHECK-NEXT: %1 = arith.muli %ax00, %c128 : index
// CHECK-NEXT: %2 = arith.addi %1, %i_1 : index
// CHECK-NEXT: %3 = arith.cmpi slt, %2, %c130 : index
// CHECK-NEXT: scf.if %3 {
// CHECK-NEXT: %4 = arith.addi %0, %1 : index
// CHECK-NEXT: %5 = arith.addi %4, %i_1 : index
// CHECK-NEXT: %6 = memref.load %A[%5] : memref<1026xf32>
// CHECK-NEXT: memref.store %6, %A_shared[%2] : memref<130xf32, "shared">
// CHECK-NEXT: }
// CHECK-NEXT: } {xtir.loop_name = "ax0_0"}
// CHECK-NEXT: %7 = arith.addi %0, %i_1 : index
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %a0 = memref.load %A_shared[%i_1] : memref<130xf32, "shared">
// CHECK-NEXT: %8 = arith.addi %i_1, %c1 : index
// CHECK-NEXT: %a1 = memref.load %A_shared[%8] : memref<130xf32, "shared">
// CHECK-NEXT: %9 = arith.addi %i_1, %c2 : index
// CHECK-NEXT: %a2 = memref.load %A_shared[%9] : memref<130xf32, "shared">
// CHECK-NEXT: %s01 = arith.addf %a0, %a1 : f32
// CHECK-NEXT: %sum = arith.addf %s01, %a2 : f32
// CHECK-NEXT: memref.store %sum, %B[%7] : memref<1024xf32>
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 8, 1, 1>, xtir.shared_bytes = 520 : i64} : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: }

builtin.module {
  func.func @main(%A: memref<1026xf32>, %B: memref<1024xf32>) {
    block.for %i = 0 to 1024 "i" {
      block.block "B"(%vi = spatial(1024, %i)) {
        %a0 = block.load %A[%vi] : memref<1026xf32>
        %a1 = block.load %A[%vi + 1] : memref<1026xf32>
        %a2 = block.load %A[%vi + 2] : memref<1026xf32>
        %s01 = arith.addf %a0, %a1 : f32
        %sum = arith.addf %s01, %a2 : f32
        block.store %sum, %B[%vi] : memref<1024xf32>
      }
    }
    func.return
  }
}
