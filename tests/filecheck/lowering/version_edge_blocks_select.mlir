// RUN: xtir-opt %s -p version-edge-blocks | filecheck %s

// An scf.if with results is a select, not a guard: the kernel is left as it is (before, folding
// its condition erased a value still in use, a Python crash).

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "main_kernels"}> ({
    "gpu.func"() <{function_type = (memref<1024xf32>) -> (), kernel}> ({
    ^bb0(%B: memref<1024xf32>):
      %c128 = arith.constant 128 : index
      %c1000 = arith.constant 1000 : index
      %i_0 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %i_1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.muli %i_0, %c128 : index
      %2 = arith.addi %0, %i_1 : index
      %4 = arith.cmpi slt, %2, %c1000 : index
      %r = scf.if %4 -> (f32) {
        %one = arith.constant 1.0 : f32
        scf.yield %one : f32
      } else {
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      memref.store %r, %B[%i_1] : memref<1024xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k", gpu.known_block_size = array<i32: 128, 1, 1>, gpu.known_grid_size = array<i32: 8, 1, 1>} : () -> ()
  }) : () -> ()
}

// CHECK-NOT:  xtir.edge_versions
// CHECK:      %r = scf.if %{{.*}} -> (f32) {
// CHECK-NOT:  xtir.edge_versions
