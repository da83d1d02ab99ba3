// RUN: xtir-opt %s -p convert-to-llvm | filecheck %s
// A call of the tmm16 micro-kernel (what lower-blocks{microkernels=true} leaves for
// accel.tmm16): convert-to-llvm passes element pointers to the three tiles and their row
// strides (each constant once in the function), and defines @xtir_tmm16 once: 16 vector loads of B's rows, a transpose in
// registers (64 shuffles), 256 broadcasts of A's elements, 256 vector FMAs, 16 stores.

// CHECK:      llvm.func @xtir.main(%A: !llvm.ptr {llvm.noalias}, %B: !llvm.ptr {llvm.noalias}, %C: !llvm.ptr {llvm.noalias}) {
// CHECK-NEXT:   %c32 = llvm.mlir.constant(32) : i64
// CHECK-NEXT:   %c16 = llvm.mlir.constant(16) : i64
// CHECK-NEXT:   %C_ptr = llvm.getelementptr inbounds %C[0] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:   %A_ptr = llvm.getelementptr inbounds %A[512] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:   %B_ptr = llvm.getelementptr inbounds %B[16] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:   llvm.call @xtir_tmm16(%C_ptr, %A_ptr, %B_ptr, %c16, %c32, %c32) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
// CHECK-NEXT:   llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func internal @xtir_tmm16(%C_1: !llvm.ptr, %A_1: !llvm.ptr, %B_1: !llvm.ptr, %ldc: i64, %lda: i64, %ldb: i64) {
// CHECK-COUNT-16: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-COUNT-64: llvm.shufflevector
// CHECK-COUNT-16: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-COUNT-256: llvm.intr.fma
// CHECK-COUNT-16: llvm.store %{{.*}} {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// CHECK:        llvm.return
// CHECK-NOT:  xtir_tmm16_0
func.func @main(%A: memref<32x32xf32, "global.A_reg">, %B: memref<32x32xf32, "global.B_reg">, %C: memref<16x16xf32, "global.accumulator">) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  func.call @xtir_tmm16_0(%C, %c0, %c0, %A, %c16, %c0, %B, %c0, %c16) {xtir.microkernel = "tmm16"} : (memref<16x16xf32, "global.accumulator">, index, index, memref<32x32xf32, "global.A_reg">, index, index, memref<32x32xf32, "global.B_reg">, index, index) -> ()
  func.return
}
func.func private @xtir_tmm16_0(memref<16x16xf32, "global.accumulator">, index, index, memref<32x32xf32, "global.A_reg">, index, index, memref<32x32xf32, "global.B_reg">, index, index) attributes {xtir.microkernel = "tmm16"}
