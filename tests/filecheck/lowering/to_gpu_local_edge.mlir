// RUN: xtir-opt %s -p 'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,1},split{loop=j factors=-1,8,1},split{loop=k factors=-1,4},unroll{loop=k_1},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},reverse-compute-at{block=C_local loop=j_1},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1 thread="threadIdx.x"},bind{loop=j_1 thread="threadIdx.y"},decompose-reduction{block=C loop=k_0},lower-blocks,lower-to-gpu' | filecheck %s

// Seed 002's local blocking with a thread tile of 1 at 60x60x60: blocks of 8x8 threads, each
// accumulating one element of C in C_local. 60 is not a multiple of the block tile 8, so the init,
// the update and the write-back are guarded by the edge (`i_0 * 8 + i_1 + i_2 < 60`, i_2 a loop of
// one iteration; the write-back's `i_0 * 8 + i_1 < 60`): one edge, so C_local is one thread's 1x1
// array allocated in the kernel (compact-buffers left it at the thread block, 8x8 and shared by its
// threads, which lower-to-gpu refused).

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT: func.func @main(%A: memref<60x60xf32>, %B: memref<60x60xf32>, %C: memref<60x60xf32>) {
// CHECK-NEXT: %0 = arith.constant 8 : index
// CHECK-NEXT: %1 = arith.constant 1 : index
// CHECK-NEXT: "gpu.launch_func"(%0, %0, %1, %0, %0, %1, %A, %B, %C) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<60x60xf32>, memref<60x60xf32>, memref<60x60xf32>) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.module"() <{sym_name = "main_kernels"}> ({
// CHECK-NEXT: "gpu.func"() <{function_type = (memref<60x60xf32>, memref<60x60xf32>, memref<60x60xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%A: memref<60x60xf32>, %B: memref<60x60xf32>, %C: memref<60x60xf32>):
// CHECK-NEXT: %C_local = memref.alloca() : memref<1x1xf32, "local">
// CHECK-NEXT: %i = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_0"]} : () -> index
// CHECK-NEXT: %j = "gpu.block_id"() <{dimension = #gpu<dim y>}> {xtir.loop_names = ["j_0"]} : () -> index
// CHECK-NEXT: %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_1"]} : () -> index
// CHECK-NEXT: %j_1 = "gpu.thread_id"() <{dimension = #gpu<dim y>}> {xtir.loop_names = ["j_1"]} : () -> index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c60 = arith.constant 60 : index
// CHECK-NEXT: %c15 = arith.constant 15 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %0 = arith.muli %i, %c8 : index
// CHECK-NEXT: %1 = arith.muli %j, %c8 : index
// CHECK-NEXT: %2 = arith.addi %0, %i_1 : index
// CHECK-NEXT: %3 = arith.cmpi slt, %2, %c60 : index
// CHECK-NEXT: %4 = arith.addi %1, %j_1 : index
// CHECK-NEXT: scf.for %i_2_init = %c0 to %c1 step %c1 {
// CHECK-NEXT: %5 = arith.addi %2, %i_2_init : index
// CHECK-NEXT: %6 = arith.cmpi slt, %5, %c60 : index
// CHECK-NEXT: scf.for %j_2_init = %c0 to %c1 step %c1 {
// CHECK-NEXT: %7 = arith.addi %4, %j_2_init : index
// CHECK-NEXT: %8 = arith.cmpi slt, %7, %c60 : index
// CHECK-NEXT: %9 = arith.andi %6, %8 : i1
// CHECK-NEXT: scf.if %9 {
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %zero, %C_local[%i_2_init, %j_2_init] : memref<1x1xf32, "local">
// CHECK-NEXT: }
// CHECK-NEXT: } {xtir.loop_name = "j_2_init"}
// CHECK-NEXT: } {xtir.loop_name = "i_2_init"}
// CHECK-NEXT: scf.for %k0 = %c0 to %c15 step %c1 {
// CHECK-NEXT: scf.for %k1 = %c0 to %c4 step %c1 {
// CHECK-NEXT: scf.for %i2 = %c0 to %c1 step %c1 {
// CHECK-NEXT: %10 = arith.addi %2, %i2 : index
// CHECK-NEXT: %11 = arith.cmpi slt, %10, %c60 : index
// CHECK-NEXT: scf.for %j2 = %c0 to %c1 step %c1 {
// CHECK-NEXT: %12 = arith.addi %4, %j2 : index
// CHECK-NEXT: %13 = arith.cmpi slt, %12, %c60 : index
// CHECK-NEXT: %14 = arith.andi %11, %13 : i1
// CHECK-NEXT: scf.if %14 {
// CHECK-NEXT: %c = memref.load %C_local[%i2, %j2] : memref<1x1xf32, "local">
// CHECK-NEXT: %15 = arith.muli %k0, %c4 : index
// CHECK-NEXT: %16 = arith.addi %15, %k1 : index
// CHECK-NEXT: %a = memref.load %A[%10, %16] : memref<60x60xf32>
// CHECK-NEXT: %b = memref.load %B[%16, %12] : memref<60x60xf32>
// CHECK-NEXT: %ab = arith.mulf %a, %b : f32
// CHECK-NEXT: %sum = arith.addf %c, %ab : f32
// CHECK-NEXT: memref.store %sum, %C_local[%i2, %j2] : memref<1x1xf32, "local">
// CHECK-NEXT: }
// CHECK-NEXT: } {xtir.loop_name = "j_2"}
// CHECK-NEXT: } {xtir.loop_name = "i_2"}
// CHECK-NEXT: } {xtir.loop_name = "k_1", xtir.loop_kind = "unrolled"}
// CHECK-NEXT: } {xtir.loop_name = "k_0"}
// CHECK-NEXT: %17 = arith.cmpi slt, %4, %c60 : index
// CHECK-NEXT: %18 = arith.andi %3, %17 : i1
// CHECK-NEXT: scf.if %18 {
// CHECK-NEXT: %19 = memref.load %C_local[%c0, %c0] : memref<1x1xf32, "local">
// CHECK-NEXT: memref.store %19, %C[%2, %4] : memref<60x60xf32>
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 8, 8, 1>, gpu.known_grid_size = array<i32: 8, 8, 1>, xtir.shared_bytes = 0 : i64} : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: }
// CHECK-EMPTY:

builtin.module {
  func.func @main(%A: memref<60x60xf32>, %B: memref<60x60xf32>, %C: memref<60x60xf32>) {
    block.for %i = 0 to 60 "i" {
      block.for %j = 0 to 60 "j" {
        block.for %k = 0 to 60 "k" {
          block.block "C"(%vi = spatial(60, %i), %vj = spatial(60, %j), %vk = reduce(60, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<60x60xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<60x60xf32>
            %a = block.load %A[%vi, %vk] : memref<60x60xf32>
            %b = block.load %B[%vk, %vj] : memref<60x60xf32>
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<60x60xf32>
          }
        }
      }
    }
    func.return
  }
}
