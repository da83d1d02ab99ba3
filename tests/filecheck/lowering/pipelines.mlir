// RUN: xtir-opt %s -p lower-to-llvm | filecheck %s
// RUN: xtir-opt %s -p lower-blocks,guard-arith,convert-to-llvm | filecheck %s
// RUN: xtir-opt %s -p inline-blocks,compact-buffers,check-parallel-loops,check-bounds,blocks-to-scf,cse,licm,cse,guard-arith,check-llvm-target,mangle-symbols,outline-parallel-loops,expand-unrolled-loops,convert-scf-to-cf-annotated,convert-memref-to-llvm,convert-types-to-llvm,reconcile-unrealized-casts,convert-arith-to-llvm,convert-math-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,check-llvm-lowered | filecheck %s
// The named pipelines (lowering/pipelines.py): lower-to-llvm, what xtir.build runs, is
// lower-blocks (block dialect → scf loops over memrefs), guard-arith (an integer division
// that would trap reports on the run-time error channel instead), then convert-to-llvm
// (→ the llvm dialect), and each of those is its stages in order; all three spellings give
// this IR.

// CHECK-LABEL: llvm.func @xtir.scale(%A: !llvm.ptr {llvm.noalias}, %B: !llvm.ptr {llvm.noalias}) {
// CHECK-NEXT:    %c0 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %c1 = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %c16 = llvm.mlir.constant(16) : i64
// CHECK-NEXT:    %two = llvm.mlir.constant(2.000000e+00 : f32) : f32
// CHECK-NEXT:    %c2 = llvm.mlir.constant(2) : i64
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](%c0 : i64)
// CHECK-NEXT:  ^[[HEAD]](%i: i64):
// CHECK-NEXT:    %[[COND:.*]] = llvm.icmp "slt" %i, %c16 : i64
// CHECK-NEXT:    llvm.cond_br %[[COND]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %A_ptr = llvm.getelementptr inbounds %A[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %a = llvm.load %A_ptr : !llvm.ptr -> f32
// CHECK-NEXT:    %b = llvm.fmul %a, %two {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:    %[[ROW:.*]] = llvm.mul %i, %c2 overflow<nsw> : i64
// CHECK-NEXT:    %B_ptr = llvm.getelementptr inbounds %B[%[[ROW]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %b, %B_ptr : f32, !llvm.ptr
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %i, %c1 : i64
// CHECK-NEXT:    llvm.br ^[[HEAD]](%[[NEXT]] : i64)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    llvm.return
func.func @scale(%A: memref<16xf32>, %B: memref<16x2xf32>) {
  block.for %i = 0 to 16 "i" {
    block.block "B"(%vi = spatial(16, %i)) {
      %a = block.load %A[%vi] : memref<16xf32>
      %two = arith.constant 2.0 : f32
      %b = arith.mulf %a, %two : f32
      block.store %b, %B[%vi, 0] : memref<16x2xf32>
    }
  }
  func.return
}

// CHECK-LABEL: llvm.func @xtir.divide(%X: !llvm.ptr {llvm.noalias}, %Y: !llvm.ptr {llvm.noalias}) {
// CHECK:         %[[N:.*]] = llvm.load %X_ptr : !llvm.ptr -> i32
// CHECK:         %[[D:.*]] = llvm.load %Y_ptr : !llvm.ptr -> i32
// CHECK:         %[[BAD:.*]] = llvm.or %{{.*}}, %{{.*}} : i1
// CHECK:         %[[SAFE:.*]] = llvm.select %[[BAD]], %{{.*}}, %[[D]] : i1, i32
// CHECK-NEXT:    llvm.cond_br %[[BAD]], ^[[REPORT:bb[0-9]+]], ^[[DIVIDE:bb[0-9]+]]
// CHECK-NEXT:  ^[[REPORT]]:
// CHECK:         llvm.call @xtir_runtime_error(%{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64) -> ()
// CHECK-NEXT:    llvm.br ^[[DIVIDE]]
// CHECK-NEXT:  ^[[DIVIDE]]:
// CHECK-NEXT:    %q = llvm.sdiv %[[N]], %[[SAFE]] : i32
// CHECK:       llvm.func @xtir_runtime_error(i64, i64, i64)
func.func @divide(%X: memref<4xi32>, %Y: memref<4xi32>) {
  block.for %i = 0 to 4 "i" {
    block.block "D"(%vi = spatial(4, %i)) {
      %n = block.load %X[%vi] : memref<4xi32>
      %d = block.load %Y[%vi] : memref<4xi32>
      %q = arith.divsi %n, %d : i32
      block.store %q, %Y[%vi] : memref<4xi32>
    }
  }
  func.return
}
