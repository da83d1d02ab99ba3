// RUN: xtir-opt %s -p 'split{loop=i factors=-1,2}' --verify-diagnostics
// A schedule primitive on a graph function: it has no loops yet, and the error says why.

// expected-error @+1 {{'func.func' op split: no loop named "i"; loops: none; this is a graph function (tensor ops), which has no loops or blocks until legalize-tensor makes a block function of each operator}}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tensor.relu %x : tensor<4xf32> -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
