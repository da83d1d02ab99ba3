// The MLP of seed 003 (MLC's fashion-MNIST classifier, the model its `from_fx` imports):
// a graph function over tensors, x (1x784) -> linear0 (128) -> relu -> linear1 (10),
// the weights as parameters (w·ᵀ as in nn.Linear). `xtir-run examples/mlp.mlir --check`
// fuses nothing, legalizes, applies default-schedule, builds and compares with the numpy
// line; `-p fuse-ops` runs dense + bias + relu as one block function.
// xtir-run: numpy out = np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
builtin.module {
  func.func @main(%x: tensor<1x784xf32>, %w0: tensor<128x784xf32>, %b0: tensor<128xf32>, %w1: tensor<10x128xf32>, %b1: tensor<10xf32>) -> tensor<1x10xf32> {
    %lv0 = tensor.dense %x, %w0 : tensor<1x784xf32>, tensor<128x784xf32> -> tensor<1x128xf32>
    %lv1 = tensor.add %lv0, %b0 : tensor<1x128xf32>, tensor<128xf32> -> tensor<1x128xf32>
    %lv2 = tensor.relu %lv1 : tensor<1x128xf32> -> tensor<1x128xf32>
    %lv3 = tensor.dense %lv2, %w1 : tensor<1x128xf32>, tensor<10x128xf32> -> tensor<1x10xf32>
    %out = tensor.add %lv3, %b1 : tensor<1x10xf32>, tensor<10xf32> -> tensor<1x10xf32>
    func.return %out : tensor<1x10xf32>
  }
}
