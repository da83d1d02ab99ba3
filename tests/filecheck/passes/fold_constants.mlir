// RUN: xtir-opt %s -p fold-constants | filecheck %s
// fold-constants (TVM's FoldConstant): a graph op of dense constants is computed at
// compile time; the constants only it used go with it.

// A weight reshaped and transposed (torch's `x @ self.w.T`) becomes one constant; the
// original weight stays because the dense still reads it.
// CHECK-LABEL: func.func @weight_shapes
// CHECK-NEXT:    %w = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]]> : tensor<2x4xf32>
// CHECK-NEXT:    %wt = arith.constant dense<{{\[}}[1.000000e+00, 5.000000e+00], [2.000000e+00, 6.000000e+00], [3.000000e+00, 7.000000e+00], [4.000000e+00, 8.000000e+00]]> : tensor<4x2xf32>
// CHECK-NEXT:    %y = tensor.matmul %x, %wt : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %z = tensor.dense %x, %w
// CHECK-NEXT:    %s = tensor.add %y, %z
// CHECK-NEXT:    func.return %s
func.func @weight_shapes(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %w8 = tensor.reshape %w shape [8] : tensor<2x4xf32> -> tensor<8xf32>
  %w2 = tensor.reshape %w8 shape [2, 4] : tensor<8xf32> -> tensor<2x4xf32>
  %wt = tensor.transpose %w2 permutation [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  %y = tensor.matmul %x, %wt : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  %z = tensor.dense %x, %w : tensor<3x4xf32>, tensor<2x4xf32> -> tensor<3x2xf32>
  %s = tensor.add %y, %z : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<3x2xf32>
  func.return %s : tensor<3x2xf32>
}

// Arithmetic folds too, in the op's element type (1/0 is inf as at run time, integers wrap).
// CHECK-LABEL: func.func @arithmetic
// CHECK-NEXT:    %q = arith.constant dense<[5.000000e-01, 0x7f800000]> : tensor<2xf32>
// CHECK-NEXT:    %s = arith.constant dense<-2147483648> : tensor<2xi32>
// CHECK-NEXT:    func.return %q, %s
func.func @arithmetic() -> (tensor<2xf32>, tensor<2xi32>) {
  %a = arith.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %b = arith.constant dense<[2.0, 0.0]> : tensor<2xf32>
  %q = tensor.divide %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %i = arith.constant dense<2147483647> : tensor<2xi32>
  %one = arith.constant dense<1> : tensor<2xi32>
  %s = tensor.add %i, %one : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  func.return %q, %s : tensor<2xf32>, tensor<2xi32>
}

// Not folded: an op with a non-constant operand.
// CHECK-LABEL: func.func @not_constant
// CHECK-NEXT:    %b = arith.constant
// CHECK-NEXT:    %y = tensor.add %x, %b
func.func @not_constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  %b = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = tensor.add %x, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
