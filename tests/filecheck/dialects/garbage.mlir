// RUN: not xtir-opt %s 2>&1 | filecheck %s
// RUN: printf '\377\376 not text' | not xtir-opt 2>&1 | filecheck %s --check-prefix=BINARY
// Input that is not IR gives a diagnostic and exit code 1, never a traceback.

// CHECK-NOT: Traceback
// CHECK: garbage.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error:
// CHECK-NOT: Traceback
// CHECK-NOT: internal error
this is not IR at all { %%% ]] }} @@ "unterminated

// BINARY-NOT: Traceback
// BINARY: stdin:1:1: error: invalid UTF-8 (byte 0xff): source files are UTF-8 text
// BINARY-NOT: Traceback
