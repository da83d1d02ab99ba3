// RUN: xtir-translate %s --target cuda | filecheck %s

// Hand-written gpu-dialect input: two copies by vectorized loops of 4 under an edge guard (the form
// lower-to-gpu leaves at a partial tile). `x + lane < 1004`, x a multiple of 4, holds on all 4 lanes or
// none: one float4 copy under the guard. `x + lane < 1002` holds on the first 2 lanes of the last
// group of 4: the loop stays, element by element.

// CHECK:      const int v = i_0 * 128 + i_1 * 4;
// CHECK-NEXT: if (v < 1004) {
// CHECK-NEXT:   *(float4*)(B + v) = *(const float4*)(A + v);  // i_2: 4 floats
// CHECK-NEXT: }
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int i_2 = 0; i_2 < 4; ++i_2) {
// CHECK-NEXT:   const int v_1 = v + i_2;
// CHECK-NEXT:   if (v_1 < 1002) {
// CHECK-NEXT:     C[v_1] = A[v_1];
// CHECK-NEXT:   }
// CHECK-NEXT: }

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "main_kernels"}> ({
    "gpu.func"() <{function_type = (memref<1004xf32>, memref<1004xf32>, memref<1004xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<1004xf32>, %B: memref<1004xf32>, %C: memref<1004xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c128 = arith.constant 128 : index
      %c1002 = arith.constant 1002 : index
      %c1004 = arith.constant 1004 : index
      %i_0 = "gpu.block_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_0"]} : () -> index
      %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i_1"]} : () -> index
      %0 = arith.muli %i_0, %c128 : index
      %1 = arith.muli %i_1, %c4 : index
      %2 = arith.addi %0, %1 : index
      scf.for %v = %c0 to %c4 step %c1 {
        %3 = arith.addi %2, %v : index
        %4 = arith.cmpi slt, %3, %c1004 : index
        scf.if %4 {
          %a = memref.load %A[%3] : memref<1004xf32>
          memref.store %a, %B[%3] : memref<1004xf32>
        }
      } {xtir.loop_name = "i_2", xtir.loop_kind = "vectorized"}
      scf.for %w = %c0 to %c4 step %c1 {
        %5 = arith.addi %2, %w : index
        %6 = arith.cmpi slt, %5, %c1002 : index
        scf.if %6 {
          %b = memref.load %A[%5] : memref<1004xf32>
          memref.store %b, %C[%5] : memref<1004xf32>
        }
      } {xtir.loop_name = "i_2", xtir.loop_kind = "vectorized"}
      "gpu.return"() : () -> ()
    }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.known_grid_size = array<i32: 8, 1, 1>} : () -> ()
  }) : () -> ()
  func.func @main(%A: memref<1004xf32>, %B: memref<1004xf32>, %C: memref<1004xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    "gpu.launch_func"(%c8, %c1, %c1, %c32, %c1, %c1, %A, %B, %C) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<1004xf32>, memref<1004xf32>, memref<1004xf32>) -> ()
    func.return
  }
}
