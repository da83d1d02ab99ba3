// RUN: not xtir-opt %s 2>&1 | filecheck %s

// A type constraint that fails while the op is parsed still points at its line.
// CHECK: {{.*}}parse_invalid.mlir:[[# @LINE + 2]]:3: error: memref<4x8xf32> should be of base attribute tensor
func.func @f(%a: memref<4x8xf32>) {
  %r = tensor.relu %a : memref<4x8xf32> -> memref<4x8xf32>
  func.return
}
