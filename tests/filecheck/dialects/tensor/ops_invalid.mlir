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
  // expected-error @+1 {{'tensor.matmul' op tensor.matmul takes 2-d tensors, got 2x4x8 and 8x16}}
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

// -----

// divide takes floats only (integer division would need a rounding rule).
func.func @divide_integers(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tensor.divide' op tensor.divide takes floating-point tensors, got i32}}
  %y = tensor.divide %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  func.return %y : tensor<4xi32>
}

// -----

// subtract broadcasts like add.
func.func @subtract_not_broadcastable(%a: tensor<4x8xf32>, %b: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.subtract' op tensor.subtract: shapes 4x8 and 2x8 do not broadcast}}
  %y = tensor.subtract %a, %b : tensor<4x8xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// bias_add: axis is a dimension of the input.
func.func @bias_add_axis(%x: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'tensor.bias_add' op tensor.bias_add: axis 2 is not a dimension of 4x16 (0..1)}}
  %y = tensor.bias_add %x, %b axis 2 : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// bias_add: the bias has the size of that dimension.
func.func @bias_add_size(%x: tensor<4x16xf32>, %b: tensor<4xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'tensor.bias_add' op tensor.bias_add: bias 4 does not match dimension 1 (of size 16) of input 4x16}}
  %y = tensor.bias_add %x, %b : tensor<4x16xf32>, tensor<4xf32> -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// -----

// reshape keeps the number of elements.
func.func @reshape_size(%x: tensor<4x4xf32>) -> tensor<2x7xf32> {
  // expected-error @+1 {{'tensor.reshape' op tensor.reshape: cannot reshape 4x4 (16 elements) to [2, 7] (14 elements)}}
  %y = tensor.reshape %x shape [2, 7] : tensor<4x4xf32> -> tensor<2x7xf32>
  func.return %y : tensor<2x7xf32>
}

// -----

// reshape: the target shape is static (no -1 to infer).
func.func @reshape_negative(%x: tensor<4x4xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'tensor.reshape' op tensor.reshape: cannot reshape 4x4 (16 elements) to [-1]}}
  %y = tensor.reshape %x shape [-1] : tensor<4x4xf32> -> tensor<16xf32>
  func.return %y : tensor<16xf32>
}

// -----

// reshape: the result type is the target shape.
func.func @reshape_result(%x: tensor<4x4xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{'tensor.reshape' op tensor.reshape: result shape 8x2 differs from the target shape 2x8}}
  %y = tensor.reshape %x shape [2, 8] : tensor<4x4xf32> -> tensor<8x2xf32>
  func.return %y : tensor<8x2xf32>
}

// -----

// flatten: start_dim is a dimension of the input.
func.func @flatten_start(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  // expected-error @+1 {{'tensor.flatten' op tensor.flatten: start_dim 3 is not a dimension of 2x3x4 (0..2)}}
  %y = tensor.flatten %x start_dim 3 : tensor<2x3x4xf32> -> tensor<24xf32>
  func.return %y : tensor<24xf32>
}

// -----

// flatten merges start_dim.. into one dimension.
func.func @flatten_result(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'tensor.flatten' op tensor.flatten: result shape 6x4 differs from the flattened shape 2x12}}
  %y = tensor.flatten %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  func.return %y : tensor<6x4xf32>
}

// -----

// transpose: the permutation names every dimension once.
func.func @transpose_not_permutation(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'tensor.transpose' op tensor.transpose: [0, 0] is not a permutation of the 2 dimensions of 4x8}}
  %y = tensor.transpose %x permutation [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}

// -----

// transpose: the result has the permuted shape.
func.func @transpose_result(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tensor.transpose' op tensor.transpose: result shape 4x8 differs from the permuted shape 8x4}}
  %y = tensor.transpose %x permutation [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// conv2d takes NCHW input and OIHW weight.
func.func @conv_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32> {
  // expected-error @+1 {{'tensor.conv2d' op tensor.conv2d takes a 4-d NCHW input and a 4-d OIHW weight, got 3x8x8 and 4x3x3x3}}
  %y = tensor.conv2d %x, %w : tensor<3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<4x6x6xf32>
  func.return %y : tensor<4x6x6xf32>
}

// -----

// conv2d: input channels and weight channels agree.
func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'tensor.conv2d' op tensor.conv2d: input 1x3x8x8 has 3 channels, weight 4x2x3x3 expects 2}}
  %y = tensor.conv2d %x, %w : tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// conv2d: strides are positive.
func.func @conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'tensor.conv2d' op tensor.conv2d: strides must be 2 positive integers, got [0, 1]}}
  %y = tensor.conv2d %x, %w strides [0, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// conv2d: dilation has one positive value per spatial dimension.
func.func @conv_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'tensor.conv2d' op tensor.conv2d: dilation must be 2 positive integers, got [1]}}
  %y = tensor.conv2d %x, %w dilation [1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// conv2d: padding is [top, left, bottom, right].
func.func @conv_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'tensor.conv2d' op tensor.conv2d: padding must be 4 non-negative integers [top, left, bottom, right], got [1, 1]}}
  %y = tensor.conv2d %x, %w padding [1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// conv2d: the dilated kernel fits the padded input.
func.func @conv_window(%x: tensor<1x3x2x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32> {
  // expected-error @+1 {{'tensor.conv2d' op tensor.conv2d: the 5x3 window does not fit the padded 2x8 input of 1x3x2x8}}
  %y = tensor.conv2d %x, %w dilation [2, 1] : tensor<1x3x2x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x1x6xf32>
  func.return %y : tensor<1x4x1x6xf32>
}

// -----

// conv2d: the result has the convolved shape.
func.func @conv_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'tensor.conv2d' op tensor.conv2d: result shape 1x4x8x8 differs from the convolved shape 1x4x6x6}}
  %y = tensor.conv2d %x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// conv2d: one element type.
func.func @conv_elements(%x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'tensor.conv2d' op tensor.conv2d mixes element types f16, f32}}
  %y = tensor.conv2d %x, %w : tensor<1x3x8x8xf16>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// max_pool2d takes an NCHW input.
func.func @pool_rank(%x: tensor<4x8x8xf32>) -> tensor<4x4x4xf32> {
  // expected-error @+1 {{'tensor.max_pool2d' op tensor.max_pool2d takes a 4-d NCHW input, got 4x8x8}}
  %y = tensor.max_pool2d %x kernel [2, 2] strides [2, 2] : tensor<4x8x8xf32> -> tensor<4x4x4xf32>
  func.return %y : tensor<4x4x4xf32>
}

// -----

// max_pool2d: kernel extents are positive.
func.func @pool_kernel(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'tensor.max_pool2d' op tensor.max_pool2d: kernel must be 2 positive integers, got [2, 0]}}
  %y = tensor.max_pool2d %x kernel [2, 0] strides [2, 2] : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

// max_pool2d: every window must hold an input element, so padding is smaller than the kernel.
func.func @pool_padding(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x5x4xf32> {
  // expected-error @+1 {{'tensor.max_pool2d' op tensor.max_pool2d: padding [2, 0, 0, 0] must be smaller than the 2x2 kernel on every side}}
  %y = tensor.max_pool2d %x kernel [2, 2] strides [2, 2] padding [2, 0, 0, 0] : tensor<1x4x8x8xf32> -> tensor<1x4x5x4xf32>
  func.return %y : tensor<1x4x5x4xf32>
}

// -----

// max_pool2d: the kernel fits the padded input.
func.func @pool_window(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+1 {{'tensor.max_pool2d' op tensor.max_pool2d: the 3x3 window does not fit the padded 2x2 input of 1x4x2x2}}
  %y = tensor.max_pool2d %x kernel [3, 3] strides [1, 1] : tensor<1x4x2x2xf32> -> tensor<1x4x1x1xf32>
  func.return %y : tensor<1x4x1x1xf32>
}

// -----

// max_pool2d: the result has the pooled shape.
func.func @pool_result(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'tensor.max_pool2d' op tensor.max_pool2d: result shape 1x4x8x8 differs from the pooled shape 1x4x4x4}}
  %y = tensor.max_pool2d %x kernel [2, 2] strides [2, 2] : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// softmax: the axis is a dimension of the input (non-negative).
func.func @softmax_axis(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  // expected-error @+1 {{'tensor.softmax' op tensor.softmax: axis -1 is not a dimension of 2x10 (0..1)}}
  %y = tensor.softmax %x axis -1 : tensor<2x10xf32> -> tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

// softmax takes floats.
func.func @softmax_integers(%x: tensor<2x10xi32>) -> tensor<2x10xi32> {
  // expected-error @+1 {{'tensor.softmax' op tensor.softmax takes floating-point tensors, got i32}}
  %y = tensor.softmax %x axis 1 : tensor<2x10xi32> -> tensor<2x10xi32>
  func.return %y : tensor<2x10xi32>
}

// -----

// The activations take floats.
func.func @sigmoid_integers(%x: tensor<2x10xi32>) -> tensor<2x10xi32> {
  // expected-error @+1 {{'tensor.sigmoid' op tensor.sigmoid takes floating-point tensors, got i32}}
  %y = tensor.sigmoid %x : tensor<2x10xi32> -> tensor<2x10xi32>
  func.return %y : tensor<2x10xi32>
}

// -----

// An activation's result has the input's shape.
func.func @tanh_result(%x: tensor<2x10xf32>) -> tensor<10x2xf32> {
  // expected-error @+1 {{'tensor.tanh' op tensor.tanh: result shape 10x2 differs from the input shape 2x10}}
  %y = tensor.tanh %x : tensor<2x10xf32> -> tensor<10x2xf32>
  func.return %y : tensor<10x2xf32>
}

// -----

// gelu: torch's two forms only.
func.func @gelu_approximation(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  // expected-error @+1 {{'tensor.gelu' op tensor.gelu: approximate must be one of none, tanh, got 'sigmoid'}}
  %y = tensor.gelu %x approximate "sigmoid" : tensor<2x10xf32> -> tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

// strided_slice: one begin, end and stride per dimension.
func.func @slice_rank(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tensor.strided_slice' op tensor.strided_slice: begin, end and strides need one value per dimension of 4x8, got [1], [3] and [1]}}
  %y = tensor.strided_slice %x begin [1] end [3] strides [1] : tensor<4x8xf32> -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// strided_slice: no empty slice, no slice leaving the input, no step below 1.
func.func @slice_bounds(%x: tensor<4x8xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'tensor.strided_slice' op tensor.strided_slice: dimension 1 of 4x8 sliced 6:9:1; a slice needs 0 <= begin < end <= 8 and a positive stride}}
  %y = tensor.strided_slice %x begin [1, 6] end [3, 9] strides [1, 1] : tensor<4x8xf32> -> tensor<2x1xf32>
  func.return %y : tensor<2x1xf32>
}

// -----

func.func @slice_step(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tensor.strided_slice' op tensor.strided_slice: dimension 1 of 4x8 sliced 0:8:0; a slice needs 0 <= begin < end <= 8 and a positive stride}}
  %y = tensor.strided_slice %x begin [1, 0] end [3, 8] strides [1, 0] : tensor<4x8xf32> -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// strided_slice: the result has the sliced shape (ceil((end - begin) / stride)).
func.func @slice_result(%x: tensor<4x8xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'tensor.strided_slice' op tensor.strided_slice: result shape 2x2 differs from the sliced shape 2x3}}
  %y = tensor.strided_slice %x begin [1, 0] end [3, 8] strides [1, 3] : tensor<4x8xf32> -> tensor<2x2xf32>
  func.return %y : tensor<2x2xf32>
}

// -----

// A comparison holds i1.
func.func @compare_result(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tensor.greater' op tensor.greater: the result holds i1 (booleans), not f32}}
  %y = tensor.greater %x, %x : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// A comparison's operands share an element type.
func.func @compare_types(%x: tensor<2x8xf32>, %i: tensor<2x8xi32>) -> tensor<2x8xi1> {
  // expected-error @+1 {{'tensor.less' op tensor.less compares different element types f32, i32}}
  %y = tensor.less %x, %i : tensor<2x8xf32>, tensor<2x8xi32> -> tensor<2x8xi1>
  func.return %y : tensor<2x8xi1>
}

// -----

// Booleans are equal or not; ordered (true is -1 as a signed i1), they would mean nothing clear.
func.func @compare_order_booleans(%c: tensor<2x8xi1>, %d: tensor<2x8xi1>) -> tensor<2x8xi1> {
  // expected-error @+1 {{'tensor.greater_equal' op tensor.greater_equal orders numbers; i1 (booleans) compare only by equal and not_equal}}
  %y = tensor.greater_equal %c, %d : tensor<2x8xi1>, tensor<2x8xi1> -> tensor<2x8xi1>
  func.return %y : tensor<2x8xi1>
}

// -----

// Arithmetic takes numbers (torch promotes booleans to integers first; graph ops do not promote).
func.func @add_booleans(%c: tensor<2x8xi1>, %d: tensor<2x8xi1>) -> tensor<2x8xi1> {
  // expected-error @+1 {{'tensor.add' op tensor.add takes numbers, not i1 (booleans)}}
  %y = tensor.add %c, %d : tensor<2x8xi1>, tensor<2x8xi1> -> tensor<2x8xi1>
  func.return %y : tensor<2x8xi1>
}

// -----

// where's condition holds i1.
func.func @where_condition(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tensor.where' op tensor.where: the condition holds f32, not i1}}
  %y = tensor.where %x, %x, %x : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// where's branches and result share an element type.
func.func @where_types(%c: tensor<2x8xi1>, %x: tensor<2x8xf32>, %h: tensor<2x8xf16>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tensor.where' op tensor.where mixes element types f16, f32}}
  %y = tensor.where %c, %x, %h : tensor<2x8xi1>, tensor<2x8xf32>, tensor<2x8xf16> -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// where: the three operands broadcast together.
func.func @where_shapes(%c: tensor<3xi1>, %x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tensor.where' op tensor.where: shapes 3 and 2x8 and 2x8 do not broadcast}}
  %y = tensor.where %c, %x, %x : tensor<3xi1>, tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// floor_divide is an integer division (torch's float floor division rounds through fmod).
func.func @floor_divide_floats(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.floor_divide' op tensor.floor_divide takes integer tensors, got f32}}
  %y = tensor.floor_divide %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// trunc_divide takes numbers, not booleans.
func.func @trunc_divide_bools(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'tensor.trunc_divide' op tensor.trunc_divide takes numbers, not i1 (booleans)}}
  %y = tensor.trunc_divide %x, %x : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  func.return %y : tensor<4xi1>
}

// -----

// negative and abs take numbers.
func.func @negative_bools(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'tensor.negative' op tensor.negative takes numbers, not i1 (booleans)}}
  %y = tensor.negative %x : tensor<4xi1> -> tensor<4xi1>
  func.return %y : tensor<4xi1>
}

// -----

// exp, log, sqrt and rsqrt take floats.
func.func @sqrt_ints(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tensor.sqrt' op tensor.sqrt takes floating-point tensors, got i32}}
  %y = tensor.sqrt %x : tensor<4xi32> -> tensor<4xi32>
  func.return %y : tensor<4xi32>
}

// -----

// clip needs a bound.
func.func @clip_unbounded(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.clip' op tensor.clip needs a min or a max}}
  %y = tensor.clip %x : tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// An integer tensor's clip bounds are integers of its type.
func.func @clip_fraction(%x: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{'tensor.clip' op tensor.clip: the bound 0.5 is not an integer of i8, the input's type}}
  %y = tensor.clip %x min 0.5 : f64 : tensor<4xi8> -> tensor<4xi8>
  func.return %y : tensor<4xi8>
}

// -----

func.func @clip_range(%x: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{'tensor.clip' op tensor.clip: the bound 128 is not an integer of i8, the input's type}}
  %y = tensor.clip %x max 128 : i64 : tensor<4xi8> -> tensor<4xi8>
  func.return %y : tensor<4xi8>
}

// -----

// astype keeps the shape.
func.func @astype_shape(%x: tensor<4xf32>) -> tensor<2x2xf16> {
  // expected-error @+1 {{'tensor.astype' op tensor.astype: result shape 2x2 differs from the input shape 4}}
  %y = tensor.astype %x : tensor<4xf32> -> tensor<2x2xf16>
  func.return %y : tensor<2x2xf16>
}

// -----

// A reduction's axes are increasing dimensions of the input, at least one.
func.func @sum_axes_order(%x: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'tensor.sum' op tensor.sum: axes [1, 0] must be increasing dimensions of 2x3, at least one}}
  %y = tensor.sum %x axes [1, 0] : tensor<2x3xf32> -> tensor<f32>
  func.return %y : tensor<f32>
}

// -----

func.func @max_axes_range(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tensor.max' op tensor.max: axes [2] must be increasing dimensions of 2x3, at least one}}
  %y = tensor.max %x axes [2] : tensor<2x3xf32> -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// keepdims keeps the reduced dimensions as 1.
func.func @sum_keepdims(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tensor.sum' op tensor.sum: result shape 2 differs from the reduced shape 2x1}}
  %y = tensor.sum %x axes [1] keepdims : tensor<2x3xf32> -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// mean takes floats (torch refuses an integer mean too).
func.func @mean_ints(%x: tensor<2x3xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{'tensor.mean' op tensor.mean takes floating-point tensors, got i32}}
  %y = tensor.mean %x axes [1] : tensor<2x3xi32> -> tensor<2xi32>
  func.return %y : tensor<2xi32>
}

// -----

func.func @flip_axes(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tensor.flip' op tensor.flip: axes [] must be increasing dimensions of 2x3, at least one}}
  %y = tensor.flip %x axes [] : tensor<2x3xf32> -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// A float tensor's clip bounds are f64.
func.func @clip_float_integer_bound(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.clip' op tensor.clip: the bound 1 of a f32 tensor is not an f64}}
  %y = tensor.clip %x min 1 : i32 : tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
