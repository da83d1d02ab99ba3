"""Deeply nested xtir IR on stdout, for nesting_limits.mlir.

`nest.py regions N`: N nested block.blocks in a function (N + 1 levels of `{`).
`nest.py parens N`: a load whose index has N nested parentheses (N + 1 levels with the `[`).
`nest.py types N`: a function argument of N nested tuple types around f32 (N + 1 levels), in a
block whose predicate compares with `<` (which is no type bracket).
`nest.py aliases N`: the same type built by N type aliases, each a tuple of the one before.
"""

import sys

kind, n = sys.argv[1], int(sys.argv[2])
if kind == "regions":
    # Block names are unique in a function.
    print("func.func @f() {\n" + "".join(f'block.block "b{k}"() {{\n' for k in range(n)) + "}\n" * n + "func.return\n}")
elif kind == "types":
    t = "tuple<" * n + "f32" + ">" * n
    print(f'func.func @f(%A: memref<4xf32>) {{\nblock.for %i = 0 to 4 "i" {{\nblock.block "b"() where(%i < 2) {{\n'
          f'%x = "test.op"() : () -> {t}\n}}\n}}\nfunc.return\n}}')
elif kind == "aliases":
    aliases = "".join(f"!t{k + 1} = tuple<!t{k}>\n" for k in range(n))
    print(f"!t0 = f32\n{aliases}func.func @f(%A: !t{n}) {{\nfunc.return\n}}")
else:
    index = "(" * n + "0" + ")" * n
    print(f'func.func @f(%A: memref<4xf32>) {{\nblock.block "B"() {{\n%a = block.load %A[{index}] : memref<4xf32>\n}}\n'
          "func.return\n}")
