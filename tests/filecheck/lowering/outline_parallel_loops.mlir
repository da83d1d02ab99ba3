// RUN: xtir-opt %s -p outline-parallel-loops | filecheck %s
// outline-parallel-loops (a stage of convert-to-llvm, lowering/openmp.py): a parallel
// scf.for becomes a private function of the values it captures, which runs this thread's
// contiguous share of the iterations, and a call marked xtir.omp_parallel (which
// convert-func-to-llvm turns into GOMP_parallel). Constants are cloned, not captured.

// CHECK-LABEL: func.func @scale(%A: memref<64xf32>, %s: f32) {
// CHECK:         func.call @scale_i_parallel(%A, %s) {xtir.omp_parallel, xtir.loop_name = "i"} : (memref<64xf32>, f32) -> ()
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @scale_i_parallel(%A: memref<64xf32>, %s: f32) attributes {xtir.omp_outlined} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c64 = arith.constant 64 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK:         %tid = arith.index_cast %{{.*}} : i32 to index
// CHECK:         %nthreads = arith.index_cast %{{.*}} : i32 to index
// CHECK:         scf.for %i = %lo to %hi step %c1 {
// CHECK-NEXT:      %a = memref.load %A[%i] : memref<64xf32>
// CHECK:         } {xtir.loop_name = "i"}
// CHECK:       func.func private @omp_get_thread_num() -> i32
// CHECK-NEXT:  func.func private @omp_get_num_threads() -> i32
func.func @scale(%A: memref<64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %a = memref.load %A[%i] : memref<64xf32>
    %b = arith.mulf %a, %s : f32
    memref.store %b, %A[%i] : memref<64xf32>
  } {xtir.loop_name = "i", xtir.loop_kind = "parallel"}
  func.return
}
