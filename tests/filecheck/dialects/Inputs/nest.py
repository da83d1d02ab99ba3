"""Deeply nested xtir IR on stdout, for nesting_limits.mlir.

`nest.py regions N`: N nested block.blocks in a function (N + 1 levels of `{`).
`nest.py parens N`: a load whose index has N nested parentheses (N + 1 levels with the `[`).
"""

import sys

kind, n = sys.argv[1], int(sys.argv[2])
if kind == "regions":
    print("func.func @f() {\n" + 'block.block "b"() {\n' * n + "}\n" * n + "func.return\n}")
else:
    index = "(" * n + "0" + ")" * n
    print(f'func.func @f(%A: memref<4xf32>) {{\nblock.block "B"() {{\n%a = block.load %A[{index}] : memref<4xf32>\n}}\n'
          "func.return\n}")
