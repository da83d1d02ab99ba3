// RUN: xtir-opt %s -p version-edge-blocks | filecheck %s

// A guard on the ids alone (a 2-D elementwise kernel, 63x63 blocks of 16x16 over 1000x1000):
// the condition is computed in each copy, so the interior copy stores with no guard (before,
// the and of the two comparisons stayed before the versions and both copies kept the guard).

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "main_kernels"}> ({
    "gpu.func"() <{function_type = (memref<1000x1000xf32>) -> (), kernel}> ({
    ^bb0(%B: memref<1000x1000xf32>):
      %c16 = arith.constant 16 : index
      %c1000 = arith.constant 1000 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %0 = arith.muli %bx, %c16 : index
      %1 = arith.addi %0, %tx : index
      %2 = arith.muli %by, %c16 : index
      %3 = arith.addi %2, %ty : index
      %4 = arith.cmpi slt, %1, %c1000 : index
      %5 = arith.cmpi slt, %3, %c1000 : index
      %6 = arith.andi %4, %5 : i1
      scf.if %6 {
        %one = arith.constant 1.0 : f32
        memref.store %one, %B[%1, %3] : memref<1000x1000xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k", gpu.known_block_size = array<i32: 16, 16, 1>, gpu.known_grid_size = array<i32: 63, 63, 1>} : () -> ()
  }) : () -> ()
}

// CHECK:      %[[FAST:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: scf.if %[[FAST]] {
// CHECK-NEXT:   %{{.*}} = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   memref.store
// CHECK-NEXT: } else {
// CHECK:        scf.if %{{.*}} {
// CHECK:          memref.store
