// RUN: xtir-opt %s -p 'pad-einsum{block=C padding=16,16,8}' | filecheck %s
// RUN: xtir-opt %s -p 'pad-einsum{block=C padding=4,6,4}' | filecheck %s --check-prefix=NOOP
// TVM's pad_einsum: C = A · B at 20x18x12 padded to 32x32x16. A_pad and B_pad are A and B with
// zeros outside (if_then_else: the load runs only in range), C computes C_pad over the padded
// domain and its loops, and the block C_pad copies C's elements back. Padding that divides every
// extent (4, 6, 4) changes nothing, as in TVM.

builtin.module {
  func.func @main(%A: memref<20x12xf32>, %B: memref<12x18xf32>, %C: memref<20x18xf32>) {
    block.for %i = 0 to 20 "i" {
      block.for %j = 0 to 18 "j" {
        block.for %k = 0 to 12 "k" {
          block.block "C"(%vi = spatial(20, %i), %vj = spatial(18, %j), %vk = reduce(12, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<20x18xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<20x18xf32>
            %a = block.load %A[%vi, %vk] : memref<20x12xf32>
            %b = block.load %B[%vk, %vj] : memref<12x18xf32>
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<20x18xf32>
          }
        }
      }
    }
    func.return
  }
}

// CHECK:      %A_pad = block.alloc : memref<32x16xf32>
// CHECK-NEXT: %B_pad = block.alloc : memref<16x32xf32>
// CHECK-NEXT: %C_pad = block.alloc : memref<32x32xf32>
// CHECK-NEXT: block.for %i0 = 0 to 32 "i0" {
// CHECK-NEXT:   block.for %i1 = 0 to 16 "i1" {
// CHECK-NEXT:     block.block "A_pad"(%v0 = spatial(32, %i0), %v1 = spatial(16, %i1)) {
// CHECK-NEXT:       %{{.*}} = arith.constant 20 : index
// CHECK-NEXT:       %[[R:.*]] = arith.cmpi slt, %v0, %{{.*}} : index
// CHECK-NEXT:       %{{.*}} = arith.constant 12 : index
// CHECK-NEXT:       %[[K:.*]] = arith.cmpi slt, %v1, %{{.*}} : index
// CHECK-NEXT:       %[[IN:.*]] = arith.andi %[[R]], %[[K]] : i1
// CHECK-NEXT:       %[[V:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK-NEXT:         %[[A:.*]] = block.load %A[%v0, %v1] : memref<20x12xf32>
// CHECK-NEXT:         scf.yield %[[A]] : f32
// CHECK-NEXT:       } else {
// CHECK-NEXT:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:         scf.yield %[[Z]] : f32
// CHECK-NEXT:       }
// CHECK-NEXT:       block.store %[[V]], %A_pad[%v0, %v1] : memref<32x16xf32>
// CHECK:      block.block "B_pad"(%v0_1 = spatial(16, %i0_1), %v1_1 = spatial(32, %i1_1)) {
// CHECK:          %{{.*}} = block.load %B[%v0_1, %v1_1] : memref<12x18xf32>
// CHECK:      block.for %i = 0 to 32 "i" {
// CHECK-NEXT:   block.for %j = 0 to 32 "j" {
// CHECK-NEXT:     block.for %k = 0 to 16 "k" {
// CHECK-NEXT:       block.block "C"(%vi = spatial(32, %i), %vj = spatial(32, %j), %vk = reduce(16, %k)) {
// CHECK:              block.store %zero, %C_pad[%vi, %vj] : memref<32x32xf32>
// CHECK:            %c = block.load %C_pad[%vi, %vj] : memref<32x32xf32>
// CHECK-NEXT:       %a = block.load %A_pad[%vi, %vk] : memref<32x16xf32>
// CHECK-NEXT:       %b = block.load %B_pad[%vk, %vj] : memref<16x32xf32>
// CHECK:            block.store %sum, %C_pad[%vi, %vj] : memref<32x32xf32>
// CHECK:      block.for %i0_2 = 0 to 20 "i0" {
// CHECK-NEXT:   block.for %i1_2 = 0 to 18 "i1" {
// CHECK-NEXT:     block.block "C_pad"(%v0_2 = spatial(20, %i0_2), %v1_2 = spatial(18, %i1_2)) {
// CHECK-NEXT:       %[[P:.*]] = block.load %C_pad[%v0_2, %v1_2] : memref<32x32xf32>
// CHECK-NEXT:       block.store %[[P]], %C[%v0_2, %v1_2] : memref<20x18xf32>

// NOOP-NOT:   _pad
// NOOP:       block.block "C"(%vi = spatial(20, %i), %vj = spatial(18, %j), %vk = reduce(12, %k))
// NOOP-NOT:   _pad
