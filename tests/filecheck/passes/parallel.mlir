// RUN: xtir-opt %s -p 'parallel{func=spatial loop=j},parallel{func=split_inner loop=i_1}' | filecheck %s
// parallel (TVM's sch.parallel) marks a loop "parallel"; nothing else changes. A loop that feeds
// only spatial iteration variables is accepted, even above a reduction loop.

// CHECK-LABEL: func.func @spatial
// CHECK-NEXT:    block.for %i = 0 to 4 "i" {
// CHECK-NEXT:      block.for %j = 0 to 4 "j" parallel {
// CHECK-NEXT:        block.for %k = 0 to 16 "k" {
// CHECK-NEXT:          block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(16, %k)) {
// CHECK-NEXT:            block.init {
func.func @spatial(%A: memref<4x16xf32>, %B: memref<4x16xf32>, %C: memref<4x4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 16 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(16, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %C[%vi, %vj] : memref<4x4xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<4x4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x16xf32>
          %b = block.load %B[%vj, %vk] : memref<4x16xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %c, %ab : f32
          block.store %sum, %C[%vi, %vj] : memref<4x4xf32>
        }
      }
    }
  }
  func.return
}

// The inner loop of a non-dividing split (1000 by 16): the predicate stays.
// CHECK-LABEL: func.func @split_inner
// CHECK-NEXT:    block.for %i0 = 0 to 63 "i_0" {
// CHECK-NEXT:      block.for %i1 = 0 to 16 "i_1" parallel {
// CHECK-NEXT:        block.block "B"(%vi = spatial(1000, %i0 * 16 + %i1)) where(%i0 * 16 + %i1 < 1000) {
func.func @split_inner(%A: memref<1000xf32>, %B: memref<1000xf32>) {
  block.for %i0 = 0 to 63 "i_0" {
    block.for %i1 = 0 to 16 "i_1" {
      block.block "B"(%vi = spatial(1000, %i0 * 16 + %i1)) where(%i0 * 16 + %i1 < 1000) {
        %a = block.load %A[%vi] : memref<1000xf32>
        block.store %a, %B[%vi] : memref<1000xf32>
      }
    }
  }
  func.return
}
