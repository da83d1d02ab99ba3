// RUN: xtir-opt %s -p lower-to-llvm | filecheck %s
// RUN: xtir-opt %s -p lower-blocks,convert-to-llvm | filecheck %s
// RUN: xtir-opt %s -p inline-blocks,compact-buffers,check-parallel-loops,check-bounds,blocks-to-scf,cse,licm,cse,check-llvm-target,mangle-symbols,outline-parallel-loops,expand-unrolled-loops,convert-scf-to-cf-annotated,convert-memref-to-llvm,convert-types-to-llvm,reconcile-unrealized-casts,convert-arith-to-llvm,convert-math-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,check-llvm-lowered | filecheck %s
// The named pipelines (lowering/pipelines.py): lower-to-llvm, what xtir.build runs, is
// lower-blocks (block dialect → scf loops over memrefs) then convert-to-llvm (→ the llvm
// dialect), and each of those is its stages in order; all three spellings give this IR.

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
