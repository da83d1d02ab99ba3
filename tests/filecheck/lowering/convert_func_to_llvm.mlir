// RUN: xtir-opt %s -p convert-cf-to-llvm,convert-func-to-llvm | filecheck %s
// convert-cf-to-llvm and convert-func-to-llvm (the last stages of convert-to-llvm, on
// converted types): branches keep a loop's annotation on the back edge; functions become
// llvm.func with noalias pointer arguments (internal linkage when private), and a call
// marked xtir.omp_parallel stores its arguments in slots and calls GOMP_parallel on the
// wrapper that convert-func-to-llvm puts next to the outlined function.

// CHECK-LABEL: llvm.func @xtir.main(%A: !llvm.ptr {llvm.noalias}, %n: i64) {
// CHECK-NEXT:    %[[COUNT:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %omp_data = llvm.alloca %[[COUNT]] x !llvm.ptr {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[HEAD:.*]](%n : i64)
// CHECK-NEXT:  ^[[HEAD]](%i: i64):
// CHECK-NEXT:    llvm.br ^[[HEAD]](%i : i64) {xtir.loop_annotation = {name = "i", vectorize = true}}
// CHECK-NEXT:  ^{{.*}}:
// CHECK-NEXT:    %[[SLOT:.*]] = llvm.getelementptr inbounds %omp_data[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    llvm.store %A, %[[SLOT]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[FN:.*]] = llvm.mlir.addressof @xtir.main_i_parallel_omp : !llvm.ptr
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @GOMP_parallel(%[[FN]], %omp_data, %[[ZERO]], %[[ZERO]]) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-LABEL: llvm.func internal @xtir.main_i_parallel(%{{.*}}: !llvm.ptr {llvm.noalias}) {
// CHECK-LABEL: llvm.func internal @xtir.main_i_parallel_omp(%{{.*}}: !llvm.ptr) {
// CHECK:         llvm.call @xtir.main_i_parallel(%{{.*}}) : (!llvm.ptr) -> ()
// CHECK:       llvm.func @GOMP_parallel(!llvm.ptr, !llvm.ptr, i32, i32)
func.func @xtir.main(%A: !llvm.ptr, %n: i64) {
  cf.br ^head(%n : i64)
^head(%i: i64):
  cf.br ^head(%i : i64) {xtir.loop_annotation = {name = "i", vectorize = true}}
^exit:
  func.call @xtir.main_i_parallel(%A) {xtir.omp_parallel, xtir.loop_name = "i"} : (!llvm.ptr) -> ()
  func.return
}
func.func private @xtir.main_i_parallel(%A: !llvm.ptr) attributes {xtir.omp_outlined} {
  func.return
}
