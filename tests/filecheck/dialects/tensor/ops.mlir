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

// The remaining graph ops of an MLP and a small CNN; attributes at their defaults are elided.
// CHECK-LABEL: func.func @cnn
// CHECK-NEXT:  %c = tensor.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT:  %c2 = tensor.conv2d %x, %w strides [2, 1] dilation [2, 2] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x2x4xf32>
// CHECK-NEXT:  %cb = tensor.bias_add %c, %b : tensor<2x4x8x8xf32>, tensor<4xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT:  %cb3 = tensor.bias_add %c, %b8 axis 3 : tensor<2x4x8x8xf32>, tensor<8xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT:  %r = tensor.relu %cb : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT:  %p = tensor.max_pool2d %r kernel [2, 2] strides [2, 2] : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
// CHECK-NEXT:  %pp = tensor.max_pool2d %r kernel [3, 3] strides [1, 1] padding [1, 1, 1, 1] : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT:  %f = tensor.flatten %p : tensor<2x4x4x4xf32> -> tensor<2x64xf32>
// CHECK-NEXT:  %f0 = tensor.flatten %p start_dim 0 : tensor<2x4x4x4xf32> -> tensor<128xf32>
// CHECK-NEXT:  %y = tensor.dense %f, %fc : tensor<2x64xf32>, tensor<10x64xf32> -> tensor<2x10xf32>
// CHECK-NEXT:  %s = tensor.softmax %y axis 1 : tensor<2x10xf32> -> tensor<2x10xf32>
// CHECK-NEXT:  %t = tensor.transpose %s permutation [1, 0] : tensor<2x10xf32> -> tensor<10x2xf32>
// CHECK-NEXT:  %u = tensor.reshape %t shape [2, 10] : tensor<10x2xf32> -> tensor<2x10xf32>
// CHECK-NEXT:  %d = tensor.divide %u, %s : tensor<2x10xf32>, tensor<2x10xf32> -> tensor<2x10xf32>
// CHECK-NEXT:  %e = tensor.subtract %d, %s : tensor<2x10xf32>, tensor<2x10xf32> -> tensor<2x10xf32>
// CHECK-NEXT:  func.return %e : tensor<2x10xf32>
func.func @cnn(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %b8: tensor<8xf32>, %fc: tensor<10x64xf32>) -> tensor<2x10xf32> {
  %c = tensor.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
  %c2 = tensor.conv2d %x, %w strides [2, 1] padding [0, 0, 0, 0] dilation [2, 2] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x2x4xf32>
  %cb = tensor.bias_add %c, %b axis 1 : tensor<2x4x8x8xf32>, tensor<4xf32> -> tensor<2x4x8x8xf32>
  %cb3 = tensor.bias_add %c, %b8 axis 3 : tensor<2x4x8x8xf32>, tensor<8xf32> -> tensor<2x4x8x8xf32>
  %r = tensor.relu %cb : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  %p = tensor.max_pool2d %r kernel [2, 2] strides [2, 2] : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
  %pp = tensor.max_pool2d %r kernel [3, 3] strides [1, 1] padding [1, 1, 1, 1] : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  %f = tensor.flatten %p : tensor<2x4x4x4xf32> -> tensor<2x64xf32>
  %f0 = tensor.flatten %p start_dim 0 : tensor<2x4x4x4xf32> -> tensor<128xf32>
  %y = tensor.dense %f, %fc : tensor<2x64xf32>, tensor<10x64xf32> -> tensor<2x10xf32>
  %s = tensor.softmax %y axis 1 : tensor<2x10xf32> -> tensor<2x10xf32>
  %t = tensor.transpose %s permutation [1, 0] : tensor<2x10xf32> -> tensor<10x2xf32>
  %u = tensor.reshape %t shape [2, 10] : tensor<10x2xf32> -> tensor<2x10xf32>
  %d = tensor.divide %u, %s : tensor<2x10xf32>, tensor<2x10xf32> -> tensor<2x10xf32>
  %e = tensor.subtract %d, %s : tensor<2x10xf32>, tensor<2x10xf32> -> tensor<2x10xf32>
  func.return %e : tensor<2x10xf32>
}

// Weights as dense constants next to the graph ops.
// CHECK-LABEL: func.func @weights
// CHECK-NEXT:  %w = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:  %y = tensor.matmul %x, %w : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
func.func @weights(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %y = tensor.matmul %x, %w : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// Activations (float tensors); gelu's approximate and leaky_relu's negative_slope are
// elided at their defaults ("none", 0.01), as torch's.
// CHECK-LABEL: func.func @activations
// CHECK-NEXT:  %s = tensor.sigmoid %x : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %t = tensor.tanh %x : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %si = tensor.silu %h : tensor<2x8xf16> -> tensor<2x8xf16>
// CHECK-NEXT:  %g = tensor.gelu %x : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %gt = tensor.gelu %x approximate "tanh" : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %l = tensor.leaky_relu %x : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %l2 = tensor.leaky_relu %x negative_slope 2.000000e-01 : tensor<2x8xf32> -> tensor<2x8xf32>
func.func @activations(%x: tensor<2x8xf32>, %h: tensor<2x8xf16>) {
  %s = tensor.sigmoid %x : tensor<2x8xf32> -> tensor<2x8xf32>
  %t = tensor.tanh %x : tensor<2x8xf32> -> tensor<2x8xf32>
  %si = tensor.silu %h : tensor<2x8xf16> -> tensor<2x8xf16>
  %g = tensor.gelu %x approximate "none" : tensor<2x8xf32> -> tensor<2x8xf32>
  %gt = tensor.gelu %x approximate "tanh" : tensor<2x8xf32> -> tensor<2x8xf32>
  %l = tensor.leaky_relu %x : tensor<2x8xf32> -> tensor<2x8xf32>
  %l2 = tensor.leaky_relu %x negative_slope 0.2 : tensor<2x8xf32> -> tensor<2x8xf32>
  func.return
}

// Slicing: x[1:3, 0:8:3] (begin, end and a positive stride per dimension).
// CHECK-LABEL: func.func @slices
// CHECK-NEXT:  %s = tensor.strided_slice %x begin [1, 0] end [3, 8] strides [1, 3] : tensor<4x8xf32> -> tensor<2x3xf32>
func.func @slices(%x: tensor<4x8xf32>) -> tensor<2x3xf32> {
  %s = tensor.strided_slice %x begin [1, 0] end [3, 8] strides [1, 3] : tensor<4x8xf32> -> tensor<2x3xf32>
  func.return %s : tensor<2x3xf32>
}

// Comparisons broadcast as the arithmetic ops do and hold i1; where picks between two
// values of one element type (torch.where(x > 0, x, 0.1 * x)).
// CHECK-LABEL: func.func @where
// CHECK-NEXT:  %c = tensor.greater %x, %zero : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xi1>
// CHECK-NEXT:  %ge = tensor.greater_equal %x, %row : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xi1>
// CHECK-NEXT:  %lt = tensor.less %x, %x : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xi1>
// CHECK-NEXT:  %le = tensor.less_equal %i, %i : tensor<3xi32>, tensor<3xi32> -> tensor<3xi1>
// CHECK-NEXT:  %eq = tensor.equal %x, %zero : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xi1>
// CHECK-NEXT:  %ne = tensor.not_equal %c, %eq : tensor<2x8xi1>, tensor<2x8xi1> -> tensor<2x8xi1>
// CHECK-NEXT:  %w = tensor.where %c, %x, %row : tensor<2x8xi1>, tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
func.func @where(%x: tensor<2x8xf32>, %zero: tensor<f32>, %row: tensor<8xf32>, %i: tensor<3xi32>) -> tensor<2x8xf32> {
  %c = tensor.greater %x, %zero : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xi1>
  %ge = tensor.greater_equal %x, %row : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xi1>
  %lt = tensor.less %x, %x : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xi1>
  %le = tensor.less_equal %i, %i : tensor<3xi32>, tensor<3xi32> -> tensor<3xi1>
  %eq = tensor.equal %x, %zero : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xi1>
  %ne = tensor.not_equal %c, %eq : tensor<2x8xi1>, tensor<2x8xi1> -> tensor<2x8xi1>
  %w = tensor.where %c, %x, %row : tensor<2x8xi1>, tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  func.return %w : tensor<2x8xf32>
}

// Unary numbers (negative, abs on any number type; exp, log, sqrt, rsqrt on floats), clip
// with either bound or both, astype between element types of one shape.
// CHECK-LABEL: func.func @unary
// CHECK-NEXT:  %n = tensor.negative %i : tensor<3xi32> -> tensor<3xi32>
// CHECK-NEXT:  %a = tensor.abs %x : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %e = tensor.exp %x : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %l = tensor.log %e : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %s = tensor.sqrt %a : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %r = tensor.rsqrt %s : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %c = tensor.clip %x min -5.000000e-01 : f64 max 6.000000e+00 : f64 : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:  %cl = tensor.clip %i max 7 : i32 : tensor<3xi32> -> tensor<3xi32>
// CHECK-NEXT:  %h = tensor.astype %x : tensor<2x8xf32> -> tensor<2x8xf16>
// CHECK-NEXT:  %b = tensor.astype %i : tensor<3xi32> -> tensor<3xi1>
func.func @unary(%x: tensor<2x8xf32>, %i: tensor<3xi32>) {
  %n = tensor.negative %i : tensor<3xi32> -> tensor<3xi32>
  %a = tensor.abs %x : tensor<2x8xf32> -> tensor<2x8xf32>
  %e = tensor.exp %x : tensor<2x8xf32> -> tensor<2x8xf32>
  %l = tensor.log %e : tensor<2x8xf32> -> tensor<2x8xf32>
  %s = tensor.sqrt %a : tensor<2x8xf32> -> tensor<2x8xf32>
  %r = tensor.rsqrt %s : tensor<2x8xf32> -> tensor<2x8xf32>
  %c = tensor.clip %x min -0.5 : f64 max 6.0 : f64 : tensor<2x8xf32> -> tensor<2x8xf32>
  %cl = tensor.clip %i max 7 : i32 : tensor<3xi32> -> tensor<3xi32>
  %h = tensor.astype %x : tensor<2x8xf32> -> tensor<2x8xf16>
  %b = tensor.astype %i : tensor<3xi32> -> tensor<3xi1>
  func.return
}

// Integer division rounded toward -inf (floor_divide) or zero (trunc_divide), broadcasting;
// reductions over increasing axes, dropped or kept as 1 (all of them: a 0-d result); flip.
// CHECK-LABEL: func.func @integer_division_reductions_flip
// CHECK-NEXT:  %f = tensor.floor_divide %i, %j : tensor<2x3xi32>, tensor<3xi32> -> tensor<2x3xi32>
// CHECK-NEXT:  %t = tensor.trunc_divide %i, %j : tensor<2x3xi32>, tensor<3xi32> -> tensor<2x3xi32>
// CHECK-NEXT:  %s = tensor.sum %x axes [1] keepdims : tensor<2x8xf32> -> tensor<2x1xf32>
// CHECK-NEXT:  %m = tensor.mean %x axes [0, 1] : tensor<2x8xf32> -> tensor<f32>
// CHECK-NEXT:  %mx = tensor.max %i axes [0] : tensor<2x3xi32> -> tensor<3xi32>
// CHECK-NEXT:  %fl = tensor.flip %x axes [0, 1] : tensor<2x8xf32> -> tensor<2x8xf32>
func.func @integer_division_reductions_flip(%x: tensor<2x8xf32>, %i: tensor<2x3xi32>, %j: tensor<3xi32>) {
  %f = tensor.floor_divide %i, %j : tensor<2x3xi32>, tensor<3xi32> -> tensor<2x3xi32>
  %t = tensor.trunc_divide %i, %j : tensor<2x3xi32>, tensor<3xi32> -> tensor<2x3xi32>
  %s = tensor.sum %x axes [1] keepdims : tensor<2x8xf32> -> tensor<2x1xf32>
  %m = tensor.mean %x axes [0, 1] : tensor<2x8xf32> -> tensor<f32>
  %mx = tensor.max %i axes [0] : tensor<2x3xi32> -> tensor<3xi32>
  %fl = tensor.flip %x axes [0, 1] : tensor<2x8xf32> -> tensor<2x8xf32>
  func.return
}
