// RUN: xtir-opt %s -p 'split{func=blockized loop=ax0_1 factors=7,2},compute-at{func=blockized block=A_shared_o loop=i},compute-at{func=cut_by_predicate block=P loop=i}' | filecheck %s
// compute-at covers what the consumers read with instances of the moved block. What one
// instance writes is derived: an over-approximation when a predicate cuts its loops.

// The window sum of 33 elements with its copy blockized by one element, then split 7 x 2
// inside the block (issue 17, round 2): the bindings of the inner block reach 14
// elements, its domain one. Each iteration of i needs three instances.
// CHECK-LABEL: func.func @blockized
// CHECK:         block.for %i = 0 to 33 "i" {
// CHECK-NEXT:      block.for %ax0 = 0 to 3 "ax0" {
// CHECK-NEXT:        block.block "A_shared_o"(%v0_o = spatial(35, %i + %ax0)) {
// CHECK-NEXT:          block.for %ax010 = 0 to 7 "ax0_1_0" {
// CHECK-NEXT:            block.for %ax011 = 0 to 2 "ax0_1_1" {
// CHECK-NEXT:              block.block "A_shared"(%v0_i = spatial(1, %ax010 * 2 + %ax011)) where(%ax010 * 2 + %ax011 < 1) {
func.func @blockized(%A: memref<35xf32>, %B: memref<33xf32>) {
  %A_shared = block.alloc : memref<35xf32, "shared">
  block.for %ax00 = 0 to 35 "ax0_0" {
    block.block "A_shared_o"(%v0_o = spatial(35, %ax00)) {
      block.for %ax01 = 0 to 1 "ax0_1" {
        block.block "A_shared"(%v0_i = spatial(1, %ax01)) {
          %0 = block.load %A[%v0_o + %v0_i] : memref<35xf32>
          block.store %0, %A_shared[%v0_o + %v0_i] : memref<35xf32, "shared">
        }
      }
    }
  }
  block.for %i = 0 to 33 "i" {
    block.block "B"(%vi = spatial(33, %i)) {
      %a0 = block.load %A_shared[%vi] : memref<35xf32, "shared">
      %a1 = block.load %A_shared[%vi + 1] : memref<35xf32, "shared">
      %a2 = block.load %A_shared[%vi + 2] : memref<35xf32, "shared">
      %s01 = arith.addf %a0, %a1 : f32
      %sum = arith.addf %s01, %a2 : f32
      block.store %sum, %B[%vi] : memref<33xf32>
    }
  }
  func.return
}

// A nested block's own predicate cuts its domain: each instance of P writes T[vp] only,
// though its region is T[vp:vp + 4]. The regions of neighbouring instances overlap, so
// every instance whose region meets T[i:i + 3] runs: vp from i - 3 to i + 2.
// CHECK-LABEL: func.func @cut_by_predicate
// CHECK:         block.for %i = 0 to 16 "i" {
// CHECK-NEXT:      block.for %ax0 = 0 to 6 "ax0" {
// CHECK-NEXT:        block.block "P"(%vp = spatial(18, %i + %ax0 - 3)) where(-%i - %ax0 + 3 < 1) {
func.func @cut_by_predicate(%A: memref<18xf32>, %B: memref<16xf32>) {
  %T = block.alloc : memref<18xf32>
  block.for %p = 0 to 18 "p" {
    block.block "P"(%vp = spatial(18, %p)) {
      block.for %k = 0 to 4 "k" {
        block.block "Q"(%vq = spatial(4, %k)) where(%k < 1) {
          %a = block.load %A[%vp + %vq] : memref<18xf32>
          block.store %a, %T[%vp + %vq] : memref<18xf32>
        }
      }
    }
  }
  block.for %i = 0 to 16 "i" {
    block.block "B"(%vi = spatial(16, %i)) {
      %t0 = block.load %T[%vi] : memref<18xf32>
      %t2 = block.load %T[%vi + 2] : memref<18xf32>
      %s = arith.addf %t0, %t2 : f32
      block.store %s, %B[%vi] : memref<16xf32>
    }
  }
  func.return
}
