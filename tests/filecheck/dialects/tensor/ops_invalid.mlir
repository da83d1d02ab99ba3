// RUN: xtir-opt %s --split-input-file --verify-diagnostics
// One case per verifier rule of the graph-level tensor ops; each expected-error pins the
// line of the diagnostic and its message (--verify-diagnostics: any other error fails).

// matmul: lhs[M,K] · rhs[K,N]; the reduction extents must agree.
func.func @matmul_reduction_mismatch(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.matmul' op tensor.matmul: reduction extents differ: lhs 4x8 has 8, rhs 16x8 has 16}}
  %y = tensor.matmul %x, %w : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// matmul: the result is M x N.
func.func @matmul_result_shape(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<16x4xf32> {
  // expected-error @+1 {{'tensor.matmul' op tensor.matmul: result must be 4x16, got 16x4}}
  %y = tensor.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<16x4xf32>
  func.return %y : tensor<16x4xf32>
}

// -----

// matmul takes 2-d tensors.
func.func @matmul_rank(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'tensor.matmul' op tensor.matmul takes 2-d tensors}}
  %y = tensor.matmul %x, %w : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// matmul operands and result share one element type.
func.func @matmul_element_types(%x: tensor<4x8xf16>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'tensor.matmul' op tensor.matmul mixes element types f16, f32}}
  %y = tensor.matmul %x, %w : tensor<4x8xf16>, tensor<8x16xf32> -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// dense is x[M,K] · W[N,K]ᵀ: a matmul-shaped weight does not fit.
func.func @dense_weight_layout(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'tensor.dense' op tensor.dense: reduction extents differ: lhs 4x8 has 8, rhs 8x16 has 16}}
  %y = tensor.dense %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// add: operand shapes must broadcast.
func.func @add_not_broadcastable(%a: tensor<4x8xf32>, %b: tensor<4x3xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.add' op tensor.add: shapes 4x8 and 4x3 do not broadcast}}
  %y = tensor.add %a, %b : tensor<4x8xf32>, tensor<4x3xf32> -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// add: the result has the broadcast shape.
func.func @add_result_shape(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tensor.add' op tensor.add: result shape 8 differs from the broadcast shape 4x8}}
  %y = tensor.add %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}

// -----

// multiply: one element type.
func.func @multiply_element_types(%a: tensor<4x8xf32>, %b: tensor<4x8xf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.multiply' op tensor.multiply mixes element types f16, f32}}
  %y = tensor.multiply %a, %b : tensor<4x8xf32>, tensor<4x8xf16> -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// relu keeps its operand's shape.
func.func @relu_shape(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'tensor.relu' op tensor.relu: result shape 8x4 differs from the broadcast shape 4x8}}
  %y = tensor.relu %a : tensor<4x8xf32> -> tensor<8x4xf32>
  func.return %y : tensor<8x4xf32>
}

// -----

// ewise_fma: all three operands broadcast together.
func.func @ewise_fma_not_broadcastable(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<3x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.ewise_fma' op tensor.ewise_fma: shapes 4x8 and 8 and 3x8 do not broadcast}}
  %y = tensor.ewise_fma %a, %b, %c : tensor<4x8xf32>, tensor<8xf32>, tensor<3x8xf32> -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// Graph ops take statically shaped tensors.
func.func @dynamic_shape(%a: tensor<?x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.add' op tensor<?x8xf32> has a dynamic shape; graph ops take statically shaped tensors}}
  %y = tensor.add %a, %b : tensor<?x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
