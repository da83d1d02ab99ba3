// RUN: not xtir-opt %s --split-input-file 2>&1 | filecheck %s
// String literals that do not close: reported at the opening quote, in time linear in the
// line. (xDSL 0.74's lexer backtracks exponentially on them: an unterminated literal followed
// by 40 characters took hours; tests/fuzz/test_malformed_input.py times that case.)

func.func @main(%O: memref<2x4xf32>) {
  // CHECK: string_literals_invalid.mlir:[[# @LINE + 1]]:15: error: end of line reached before closing string literal (string literals do not span lines)
  block.store "%r, %O[%vn] : memref<2x4xf32>
  func.return
}

// -----

func.func @main(%A: memref<4xf32>) {
  // CHECK: string_literals_invalid.mlir:[[# @LINE + 1]]:25: error: invalid escape sequence in string literal (escapes are \", \n, \t, \\ and two hex digits)
  block.for %i = 0 to 4 "i\q" {
  }
  func.return
}
