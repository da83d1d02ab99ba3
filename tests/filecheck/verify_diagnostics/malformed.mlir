// RUN: not xtir-opt %s --verify-diagnostics 2>&1 | filecheck %s
// A directive that cannot be read fails the run, at the directive. (A mention of
// expected-error in prose, not followed by `@` or `{{`, is not a directive.)

// CHECK: malformed.mlir:[[# @LINE + 1]]:4: error: malformed expected-error directive: expected `[@+N|@-N|@above|@below|@unknown] {{[{][{]}}text}}`
// expected-error @+1 {{no closing braces
// CHECK: malformed.mlir:[[# @LINE + 1]]:4: error: malformed expected-note directive
// expected-note @sideways {{where?}}
// CHECK: malformed.mlir:[[# @LINE + 1]]:4: error: malformed expected-error directive: text after the closing '}}'
// expected-error @+1 {{text}} and more
// CHECK: malformed.mlir:[[# @LINE + 1]]:4: error: bad regular expression in expected-error-re: unterminated character set
// expected-error-re @+1 {{a {{[}} b}}
// CHECK: malformed.mlir:[[# @LINE + 1]]:4: error: expected-{{warning}} @-100 points before the first line of the file
// expected-warning @-100 {{far above}}
// CHECK-NOT: error:
func.func @fine() {
  func.return
}
