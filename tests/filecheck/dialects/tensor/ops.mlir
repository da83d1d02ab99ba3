// RUN: xtir-opt %s | xtir-opt | filecheck %s
// RUN: xtir-opt %s --print-op-generic | xtir-opt | filecheck %s

// Graph ops of seed 003 next to upstream xDSL tensor ops: `tensor` is the union of both.

// CHECK-LABEL: func.func @mlp
// CHECK-NEXT:  %h = tensor.dense %x, %w0 : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT:  %hb = tensor.add %h, %b0 : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:  %r = tensor.relu %hb : tensor<4x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:  %y = tensor.matmul %r, %w1 : tensor<4x16xf32>, tensor<16x2xf32> -> tensor<4x2xf32>
// CHECK-NEXT:  func.return %y : tensor<4x2xf32>
func.func @mlp(%x: tensor<4x8xf32>, %w0: tensor<16x8xf32>, %b0: tensor<16xf32>, %w1: tensor<16x2xf32>) -> tensor<4x2xf32> {
  %h = tensor.dense %x, %w0 : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %hb = tensor.add %h, %b0 : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %r = tensor.relu %hb : tensor<4x16xf32> -> tensor<4x16xf32>
  %y = tensor.matmul %r, %w1 : tensor<4x16xf32>, tensor<16x2xf32> -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}

// Broadcasting follows numpy: size-1 and missing leading dimensions stretch.
// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT:  %m = tensor.multiply %a, %col : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:  %o = tensor.multiply %col, %row : tensor<4x1xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:  %s = tensor.add %o, %one : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:  %f = tensor.ewise_fma %a, %row, %col : tensor<4x8xf32>, tensor<8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:  %i = tensor.add %ia, %ib {fused = true} : tensor<2x3xi32>, tensor<2x3xi32> -> tensor<2x3xi32>
func.func @broadcast(%a: tensor<4x8xf32>, %col: tensor<4x1xf32>, %row: tensor<8xf32>, %one: tensor<1x1xf32>, %ia: tensor<2x3xi32>, %ib: tensor<2x3xi32>) {
  %m = tensor.multiply %a, %col : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %o = tensor.multiply %col, %row : tensor<4x1xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %s = tensor.add %o, %one : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf32>
  %f = tensor.ewise_fma %a, %row, %col : tensor<4x8xf32>, tensor<8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %i = tensor.add %ia, %ib {fused = true} : tensor<2x3xi32>, tensor<2x3xi32> -> tensor<2x3xi32>
  func.return
}

// An upstream op (tensor.empty) in the same function as ours.
// CHECK-LABEL: func.func @with_upstream
// CHECK-NEXT:  %e = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:  %r = tensor.relu %e : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:  func.return %r : tensor<4x8xf32>
func.func @with_upstream() -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = tensor.relu %e : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
