// RUN: xtir-opt %s --split-input-file -p convert-to-llvm | filecheck %s
// Scratch buffers of one function share 256 KiB of stack, the smallest first (here small
// and mid, 160064 bytes); the others (big, 200000 bytes) come from aligned_alloc in the
// entry block and are freed before every return. A NULL from aligned_alloc is reported on the
// run-time error channel (site, bytes, address) and the function returns before its body.

// CHECK-LABEL: llvm.func @xtir.budget(%A: !llvm.ptr {llvm.noalias}) {
// CHECK-DAG:     %[[SMALL:.*]] = llvm.mlir.constant(16) : i64
// CHECK-DAG:     %small = llvm.alloca %[[SMALL]] x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK-DAG:     %[[MID:.*]] = llvm.mlir.constant(40000) : i64
// CHECK-DAG:     %mid = llvm.alloca %[[MID]] x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK-DAG:     %[[BYTES:.*]] = llvm.mlir.constant(200000) : i64
// CHECK-DAG:     %big = llvm.call @aligned_alloc(%{{.*}}, %[[BYTES]]) : (i64, i64) -> !llvm.ptr
// CHECK-NOT:     llvm.alloca
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %[[ADDRESS:.*]] = llvm.ptrtoint %big : !llvm.ptr to i64
// CHECK-NEXT:    %[[NULL:.*]] = llvm.icmp "eq" %[[ADDRESS]], %[[ZERO]] : i64
// CHECK-NEXT:    llvm.cond_br %[[NULL]], ^[[FAIL:.*]], ^[[BODY:.*]]
// CHECK-NEXT:  ^[[FAIL]]:
// CHECK-NEXT:    %[[SITE:.*]] = llvm.mlir.constant({{[0-9]+}}) : i64
// CHECK-NEXT:    llvm.call @xtir_runtime_error(%[[SITE]], %[[BYTES]], %[[ADDRESS]]) : (i64, i64, i64) -> ()
// CHECK-NEXT:    llvm.call @free(%big) : (!llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NOT:     llvm.alloca
// CHECK:         llvm.call @free(%big) : (!llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK:       llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK:       llvm.func @free(!llvm.ptr)
// CHECK:       llvm.func @xtir_runtime_error(i64, i64, i64)
func.func @budget(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %A[%c0] : memref<4xf32>
  %big = memref.alloca() : memref<50000xf32>
  %mid = memref.alloca() : memref<40000xf32>
  %small = memref.alloca() : memref<16xf32>
  memref.store %x, %big[%c0] : memref<50000xf32>
  memref.store %x, %mid[%c0] : memref<40000xf32>
  memref.store %x, %small[%c0] : memref<16xf32>
  func.return
}

// -----

// A scratch buffer with a layout of its own gets every element its layout reaches:
// 2 + 7 * 3 + 1 = 24 here, not 8.

// CHECK-LABEL: llvm.func @xtir.strided
// CHECK:         %[[N:.*]] = llvm.mlir.constant(24) : i64
// CHECK-NEXT:    %T = llvm.alloca %[[N]] x f32
func.func @strided(%A: memref<8xf32>) {
  %c7 = arith.constant 7 : index
  %x = memref.load %A[%c7] : memref<8xf32>
  %T = memref.alloca() : memref<8xf32, strided<[3], offset: 2>>
  memref.store %x, %T[%c7] : memref<8xf32, strided<[3], offset: 2>>
  func.return
}

// -----

// Every function the module defines is `xtir.NAME` in LLVM, calls included, so a user
// function named like the runtime (free, memcpy) cannot take its place.

// CHECK-LABEL: llvm.func @xtir.memcpy(%A: !llvm.ptr {llvm.noalias})
// CHECK-LABEL: llvm.func @xtir.free(%{{.*}}: !llvm.ptr {llvm.noalias})
// CHECK:         %[[BUF:.*]] = llvm.call @aligned_alloc
// CHECK:         llvm.call @xtir.memcpy(%{{.*}}) : (!llvm.ptr) -> ()
// CHECK:         llvm.call @free(%[[BUF]]) : (!llvm.ptr) -> ()
// CHECK:       llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK:       llvm.func @free(!llvm.ptr)
func.func @memcpy(%A: memref<4xf32>) {
  func.return
}
func.func @free(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %A[%c0] : memref<4xf32>
  %big = memref.alloca() : memref<70000xf32>
  memref.store %x, %big[%c0] : memref<70000xf32>
  func.call @memcpy(%A) : (memref<4xf32>) -> ()
  func.return
}
