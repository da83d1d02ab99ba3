// RUN: xtir-opt %s -p 'unroll{func=main loop=k},unroll{func=main loop=j},unroll{func=by_block loop="Q/k"}' | filecheck %s
// unroll (TVM's sch.unroll) marks a loop "unrolled". Unlike parallel and vectorize it
// is legal on a reduction loop: the iterations still run in order.

// CHECK-LABEL: func.func @main
// CHECK-NEXT:   block.for %i = 0 to 4 "i" {
// CHECK-NEXT:     block.for %j = 0 to 4 "j" unrolled {
// CHECK-NEXT:       block.for %k = 0 to 16 "k" unrolled {
// CHECK-NEXT:         block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(4, %j), %vk = reduce(16, %k)) {
// CHECK-NEXT:           block.init {
func.func @main(%A: memref<4x16xf32>, %B: memref<4x16xf32>, %C: memref<4x4xf32>) {
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

// Two loops named "k": `BLOCK/LOOP` names the one around block "Q".
// CHECK-LABEL: func.func @by_block
// CHECK-NEXT:    block.for %k = 0 to 8 "k" {
// CHECK:         block.for %k2 = 0 to 8 "k" unrolled {
// CHECK-NEXT:      block.block "Q"
func.func @by_block(%A: memref<8xf32>, %B: memref<8xf32>) {
  block.for %k = 0 to 8 "k" {
    block.block "P"(%vi = spatial(8, %k)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %k2 = 0 to 8 "k" {
    block.block "Q"(%vi = spatial(8, %k2)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}
