// RUN: xtir-opt %s --verify-diagnostics

// A type constraint that fails while the op is parsed still points at its line.
// expected-error @+2 {{memref<4x8xf32> should be of base attribute tensor}}
func.func @f(%a: memref<4x8xf32>) {
  %r = tensor.relu %a : memref<4x8xf32> -> memref<4x8xf32>
  func.return
}
