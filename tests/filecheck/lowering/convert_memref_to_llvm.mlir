// RUN: xtir-opt %s -p convert-memref-to-llvm | filecheck %s
// RUN: xtir-opt %s -p convert-memref-to-llvm,convert-types-to-llvm,reconcile-unrealized-casts | filecheck %s --check-prefix=TYPES
// convert-memref-to-llvm (a stage of convert-to-llvm): an access becomes the linear index in
// arith (nsw, constant indices folded in) and `getelementptr inbounds` + llvm.load / store;
// a scratch buffer one llvm.alloca at the start of the function. Each constant is in the
// function once, not once per access: the stride 32 of three accesses is one %c32. The
// memrefs keep their types (unrealized_conversion_cast to the pointer and the i64 index)
// until convert-types-to-llvm, after which reconcile-unrealized-casts removes the casts.
// A scratch buffer over the stack budget comes from aligned_alloc; a NULL from it is reported
// on the run-time error channel and the function returns zero at once (a function with a
// result used to make an llvm.mlir.zero of i64, which does not verify).

// CHECK-LABEL: func.func @two_rows(%A: memref<16x32xf32>, %B: memref<16x32xf32>, %i: index, %j: index) {
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(8) : i64
// CHECK-NEXT:    %T = llvm.alloca %[[N]] x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[TM:.*]] = builtin.unrealized_conversion_cast %T : !llvm.ptr to memref<8xf32, "local">
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %c32 = arith.constant 32 : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli %i, %c32 overflow<nsw> : index
// CHECK-NEXT:    %[[LIN:.*]] = arith.addi %[[ROW]], %j overflow<nsw> : index
// CHECK-NEXT:    %[[LIN64:.*]] = builtin.unrealized_conversion_cast %[[LIN]] : index to i64
// CHECK-NEXT:    %[[AP:.*]] = builtin.unrealized_conversion_cast %A : memref<16x32xf32> to !llvm.ptr
// CHECK-NEXT:    %A_ptr = llvm.getelementptr inbounds %[[AP]][%[[LIN64]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %a = llvm.load %A_ptr : !llvm.ptr -> f32
// CHECK-NEXT:    %{{.*}} = arith.muli %j, %c32 overflow<nsw> : index
// CHECK:         %[[TP:.*]] = builtin.unrealized_conversion_cast %[[TM]] : memref<8xf32, "local"> to !llvm.ptr
// CHECK-NEXT:    %T_ptr = llvm.getelementptr inbounds %[[TP]][2] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %s, %T_ptr : f32, !llvm.ptr
// CHECK-NEXT:    %[[ROW2:.*]] = arith.muli %j, %c32 overflow<nsw> : index
// CHECK-NEXT:    %{{.*}} = arith.addi %[[ROW2]], %c2 overflow<nsw> : index
// CHECK-NOT:     arith.constant
// CHECK:         func.return

// TYPES-LABEL: func.func @two_rows(%A: !llvm.ptr, %B: !llvm.ptr, %i: i64, %j: i64) {
// TYPES:         %T = llvm.alloca
// TYPES-NEXT:    %c2 = arith.constant 2 : i64
// TYPES-NEXT:    %c32 = arith.constant 32 : i64
// TYPES-NEXT:    %[[ROW:.*]] = arith.muli %i, %c32 overflow<nsw> : i64
// TYPES-NEXT:    %[[LIN:.*]] = arith.addi %[[ROW]], %j overflow<nsw> : i64
// TYPES-NEXT:    %A_ptr = llvm.getelementptr inbounds %A[%[[LIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// TYPES:         %T_ptr = llvm.getelementptr inbounds %T[2] : (!llvm.ptr) -> !llvm.ptr, f32
// TYPES-NOT:     unrealized_conversion_cast
func.func @two_rows(%A: memref<16x32xf32>, %B: memref<16x32xf32>, %i: index, %j: index) {
  %T = memref.alloca() : memref<8xf32, "local">
  %c2 = arith.constant 2 : index
  %a = memref.load %A[%i, %j] : memref<16x32xf32>
  %b = memref.load %B[%j, %i] : memref<16x32xf32>
  %s = arith.addf %a, %b : f32
  memref.store %s, %T[%c2] : memref<8xf32, "local">
  memref.store %s, %A[%j, %c2] : memref<16x32xf32>
  func.return
}

// CHECK-LABEL: func.func @heap_result(%i: index) -> index {
// CHECK:         %T = llvm.call @aligned_alloc(%{{.*}}, %[[BYTES:.*]]) : (i64, i64) -> !llvm.ptr
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %[[ADDRESS:.*]] = llvm.ptrtoint %T : !llvm.ptr to i64
// CHECK-NEXT:    %[[FAILED:.*]] = llvm.icmp "eq" %[[ADDRESS]], %[[NULL]] : i64
// CHECK-NEXT:    llvm.cond_br %[[FAILED]], ^[[FAIL:bb[0-9]+]], ^[[BODY:bb[0-9]+]]
// CHECK-NEXT:  ^[[FAIL]]:
// CHECK-NEXT:    %[[SITE:.*]] = llvm.mlir.constant({{[0-9]+}}) : i64
// CHECK-NEXT:    llvm.call @xtir_runtime_error(%[[SITE]], %[[BYTES]], %[[ADDRESS]]) : (i64, i64, i64) -> ()
// CHECK-NEXT:    llvm.call @free(%T) : (!llvm.ptr) -> ()
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    func.return %[[ZERO]] : index
// CHECK-NEXT:  ^[[BODY]]:
// CHECK:         llvm.call @free(%T) : (!llvm.ptr) -> ()
// CHECK-NEXT:    func.return %i : index

// TYPES-LABEL: func.func @heap_result(%i: i64) -> i64 {
// TYPES:         %[[ZERO:.*]] = arith.constant 0 : i64
// TYPES-NEXT:    func.return %[[ZERO]] : i64
// TYPES-NOT:     unrealized_conversion_cast
func.func @heap_result(%i: index) -> index {
  %T = memref.alloca() : memref<70000xf32>
  %x = arith.constant 1.0 : f32
  memref.store %x, %T[%i] : memref<70000xf32>
  func.return %i : index
}
