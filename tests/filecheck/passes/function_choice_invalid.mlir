// RUN: not xtir-opt %s -p 'reorder{loops=j,i}' 2>&1 | filecheck %s
// RUN: not xtir-opt %s -p 'reorder{loops=j,i func=h}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// A schedule pass on a module with several functions needs func=NAME; the error is a located
// diagnostic at the module (it used to print the message alone, without `error:`).

// CHECK: {{.*}}function_choice_invalid.mlir:[[# @LINE + 2]]:1: error: 'builtin.module' op the module has 2 functions (f, g); choose one with func=NAME
// UNKNOWN: {{.*}}function_choice_invalid.mlir:[[# @LINE + 1]]:1: error: 'builtin.module' op no function named "h"; functions: f, g
builtin.module {
  func.func @f() {
    func.return
  }
  func.func @g() {
    func.return
  }
}
