// RUN: xtir-opt %s -p legalize-tensor --split-input-file --verify-diagnostics
// legalize-tensor refuses what it cannot make a block function of, at the op.

func.func @unknown_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{legalize-tensor: no block-level definition for 'tensor.empty'}}
  %y = tensor.empty() : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tensor.relu %x : tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func @calls_a_graph_function(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{legalize-tensor: @helper is not a fused operator (xtir.primitive); graph functions call fused operators only}}
  %y = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{legalize-tensor: element type bf16 has no block-level equivalent}}
func.func @bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %y = tensor.relu %x : tensor<4xbf16> -> tensor<4xbf16>
  func.return %y : tensor<4xbf16>
}

// -----

func.func @scalar(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{legalize-tensor: 'arith.constant' is not a graph op over tensors}}
  %c = arith.constant 1.0 : f32
  func.return %x : tensor<4xf32>
}
