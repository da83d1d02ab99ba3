// RUN: xtir-opt %s -p convert-to-llvm --verify-diagnostics
// check-llvm-lowered, the last stage of convert-to-llvm: an op no stage lowers is refused
// (here a vector op the stages do not know), rather than left for the LLVM translation.

func.func @f(%v: vector<4xf32>) -> f32 {
  // expected-error @+1 {{check-llvm-lowered: 'vector.reduction' has no lowering to the llvm dialect}}
  %r = vector.reduction <add>, %v : vector<4xf32> into f32
  func.return %r : f32
}
