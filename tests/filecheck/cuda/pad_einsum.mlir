// RUN: xtir-opt %s -p 'pad-einsum{block=B padding=128},split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},cache-read{block=B index=0 scope="local"},compute-at{block=A_pad_local loop=i_1},compute-inline{block=A_pad},reverse-compute-inline{block=B_pad}' -t cuda | filecheck %s
// A padded elementwise kernel: the if_then_else of A_pad, inlined into the local fetch, is an
// if/else assigning its result (A loaded only where i < 1000); the crop, inlined into B's
// computation, is its guard. version-edge-blocks folds both in the blocks wholly inside A and B
// (before, folding the if_then_else's condition erased the if with its value still in use).

builtin.module {
  func.func @main(%A: memref<1000xf32>, %B: memref<1000xf32>) {
    block.for %i = 0 to 1000 "i" {
      block.block "B"(%vi = spatial(1000, %i)) {
        %a = block.load %A[%vi] : memref<1000xf32>
        %two = arith.constant 2.000000e+00 : f32
        %b = arith.mulf %a, %two : f32
        block.store %b, %B[%vi] : memref<1000xf32>
      }
    }
    func.return
  }
}

// CHECK:      if (v < 873) {
// CHECK-NEXT:   A_pad_local[0] = A[v0];
// CHECK-NEXT:   B[v0] = A_pad_local[0] * 2.0f;
// CHECK-NEXT: } else {
// CHECK-NEXT:   const bool [[IN:v_[0-9]+]] = v0 < 1000;
// CHECK-NEXT:   float [[V:v_[0-9]+]];
// CHECK-NEXT:   if ([[IN]]) {
// CHECK-NEXT:     [[V]] = A[v0];
// CHECK-NEXT:   } else {
// CHECK-NEXT:     [[V]] = 0.0f;
// CHECK-NEXT:   }
// CHECK-NEXT:   A_pad_local[0] = [[V]];
// CHECK-NEXT:   if ([[IN]]) {
// CHECK-NEXT:     B[v0] = A_pad_local[0] * 2.0f;
