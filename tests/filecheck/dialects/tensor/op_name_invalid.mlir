// RUN: xtir-opt %s --split-input-file --verify-diagnostics
// A misspelled op name gets the closest op of its dialect (of the closest dialect, for a
// misspelled dialect), as an unknown pass or block name does.

func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{Operation tensor.reluu is not registered; did you mean 'tensor.relu'?}}
  %r = tensor.reluu %a : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

func.func @f(%a: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{Operation tensor.maxpool2d is not registered; did you mean 'tensor.max_pool2d'?}}
  %r = tensor.maxpool2d %a {kernel = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  func.return %r : tensor<1x3x4x4xf32>
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<6x8xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{Operation tensr.dense is not registered; did you mean 'tensor.dense'?}}
  %r = tensr.dense %a, %b : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}


// -----

// A name close to none gets no suggestion: difflib's 0.6 paired arith.relu with arith.remui and
// tir.block (a TVM name) with fir.local, neither of which is what was meant.
func.func @f(%a: f32) -> f32 {
  // expected-error-re @+1 {{Operation arith.relu is not registered{{$}}}}
  %r = arith.relu %a : f32
  func.return %r : f32
}

// -----

func.func @f() {
  // expected-error-re @+1 {{Operation tir.block is not registered{{$}}}}
  "tir.block"() : () -> ()
  func.return
}

// -----

func.func @f(%a: f32, %b: f32) -> f32 {
  // expected-error @+1 {{Operation arith.addd is not registered; did you mean 'arith.addi'?}}
  %r = arith.addd %a, %b : f32
  func.return %r : f32
}
