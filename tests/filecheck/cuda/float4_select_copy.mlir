// RUN: xtir-translate %s --target cuda | filecheck %s

// Hand-written gpu-dialect input: two vectorized copies of a select `x + lane < n ? A[x + lane] : 0`
// (TVM's if_then_else, the form of pad-einsum's padded fetch inlined into a cache read). With n = 1004
// and x a multiple of 4, the test holds on all 4 lanes or none: one float4 load, or four zeros, and
// one float4 store. With n = 1002 it holds on the first 2 lanes of the last group of 4: the loop stays,
// each lane loading only where its own test holds.

// CHECK:      const int v = i_0 * 128 + i_1 * 4;
// CHECK-NEXT: float4 A4;
// CHECK-NEXT: if (v < 1004) {
// CHECK-NEXT:   A4 = *(const float4*)(A + v);  // i_2: 4 floats
// CHECK-NEXT: } else {
// CHECK-NEXT:   A4 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
// CHECK-NEXT: }
// CHECK-NEXT: *(float4*)(B + v) = A4;  // i_2: 4 floats
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int i_2 = 0; i_2 < 4; ++i_2) {
// CHECK-NEXT:   const int v_1 = v + i_2;
// CHECK-NEXT:   float v_2;
// CHECK-NEXT:   if (v_1 < 1002) {
// CHECK-NEXT:     v_2 = A[v_1];
// CHECK-NEXT:   } else {
// CHECK-NEXT:     v_2 = 0.0f;
// CHECK-NEXT:   }
// CHECK-NEXT:   C[v_1] = v_2;
// CHECK-NEXT: }

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "main_kernels"}> ({
    "gpu.func"() <{function_type = (memref<1004xf32>, memref<1024xf32>, memref<1024xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<1004xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>):
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
        %5 = scf.if %4 -> (f32) {
          %a = memref.load %A[%3] : memref<1004xf32>
          scf.yield %a : f32
        } else {
          %z = arith.constant 0.0 : f32
          scf.yield %z : f32
        }
        memref.store %5, %B[%3] : memref<1024xf32>
      } {xtir.loop_name = "i_2", xtir.loop_kind = "vectorized"}
      scf.for %w = %c0 to %c4 step %c1 {
        %6 = arith.addi %2, %w : index
        %7 = arith.cmpi slt, %6, %c1002 : index
        %8 = scf.if %7 -> (f32) {
          %b = memref.load %A[%6] : memref<1004xf32>
          scf.yield %b : f32
        } else {
          %z = arith.constant 0.0 : f32
          scf.yield %z : f32
        }
        memref.store %8, %C[%6] : memref<1024xf32>
      } {xtir.loop_name = "i_2", xtir.loop_kind = "vectorized"}
      "gpu.return"() : () -> ()
    }) {sym_name = "main_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.known_grid_size = array<i32: 8, 1, 1>} : () -> ()
  }) : () -> ()
  func.func @main(%A: memref<1004xf32>, %B: memref<1024xf32>, %C: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    "gpu.launch_func"(%c8, %c1, %c1, %c32, %c1, %c1, %A, %B, %C) <{kernel = @main_kernels::@main_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (index, index, index, index, index, index, memref<1004xf32>, memref<1024xf32>, memref<1024xf32>) -> ()
    func.return
  }
}
