// RUN: xtir-opt %s -p legalize-tensor | filecheck %s
// Two fused operators whose block functions are alike up to an intermediate type are two
// block functions (legalize-tensor shares a function only with an identical one; xDSL's
// structural equivalence does not compare result types).

// CHECK-LABEL: func.func @f_i32(
// CHECK:         arith.fptosi %{{.*}} : f32 to i32
// CHECK-LABEL: func.func @f_i16(
// CHECK:         arith.fptosi %{{.*}} : f32 to i16
// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    func.call @f_i32(%x, %out0)
// CHECK-NEXT:    func.call @f_i16(%x, %out1)
func.func private @f_i32(%x: tensor<4xf32>) -> tensor<4xf16> attributes {xtir.primitive, xtir.op_pattern = "elemwise"} {
  %i = tensor.astype %x : tensor<4xf32> -> tensor<4xi32>
  %h = tensor.astype %i : tensor<4xi32> -> tensor<4xf16>
  func.return %h : tensor<4xf16>
}
func.func private @f_i16(%x: tensor<4xf32>) -> tensor<4xf16> attributes {xtir.primitive, xtir.op_pattern = "elemwise"} {
  %i = tensor.astype %x : tensor<4xf32> -> tensor<4xi16>
  %h = tensor.astype %i : tensor<4xi16> -> tensor<4xf16>
  func.return %h : tensor<4xf16>
}
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf16>) {
  %a = func.call @f_i32(%x) : (tensor<4xf32>) -> tensor<4xf16>
  %b = func.call @f_i16(%x) : (tensor<4xf32>) -> tensor<4xf16>
  func.return %a, %b : tensor<4xf16>, tensor<4xf16>
}
