// RUN: xtir-opt %s -p guard-arith --verify-diagnostics
// guard-arith reports on the run-time error channel by calling @xtir_runtime_error (guard_arith.mlir):
// a function of the module with that name, which the reports would call, is refused
// (it took the calls: llvmlite's TypeError escaped the build, or the user's function ran).

// expected-error @+1 {{guard-arith: function name "xtir_runtime_error" is reserved}}
func.func @xtir_runtime_error(%s: index, %x: index, %y: index) {
  func.return
}

func.func @divide(%a: i32, %b: i32) -> i32 {
  %q = arith.divsi %a, %b : i32
  func.return %q : i32
}
