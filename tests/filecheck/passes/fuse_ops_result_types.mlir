// RUN: xtir-opt %s -p fuse-ops | filecheck %s
// RUN: xtir-opt %s -p fuse-ops,legalize-tensor | filecheck %s --check-prefix=BLOCKS
// Two groups alike up to an intermediate type (x.int().half() and x.short().half()) are two
// functions: xDSL's structural equivalence does not compare result types, and the second
// group called the first's function (and its block function), its values made int32.

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %a = func.call @fused_astype_astype(%x)
// CHECK-NEXT:    %b = func.call @fused_astype_astype1(%x)
// CHECK:       func.func private @fused_astype_astype(
// CHECK-NEXT:    tensor.astype %x : tensor<4xf32> -> tensor<4xi32>
// CHECK:       func.func private @fused_astype_astype1(
// CHECK-NEXT:    tensor.astype %x : tensor<4xf32> -> tensor<4xi16>

// BLOCKS-LABEL: func.func @fused_astype_astype(
// BLOCKS:         arith.fptosi %{{.*}} : f32 to i32
// BLOCKS-LABEL: func.func @fused_astype_astype1(
// BLOCKS:         arith.fptosi %{{.*}} : f32 to i16
// BLOCKS-LABEL: func.func @main(
// BLOCKS-NEXT:    func.call @fused_astype_astype(%x, %out0)
// BLOCKS-NEXT:    func.call @fused_astype_astype1(%x, %out1)
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf16>) {
  %i = tensor.astype %x : tensor<4xf32> -> tensor<4xi32>
  %a = tensor.astype %i : tensor<4xi32> -> tensor<4xf16>
  %s = tensor.astype %x : tensor<4xf32> -> tensor<4xi16>
  %b = tensor.astype %s : tensor<4xi16> -> tensor<4xf16>
  func.return %a, %b : tensor<4xf16>, tensor<4xf16>
}
