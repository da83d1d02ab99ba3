"""`xtir-translate FILE [-p PIPELINE] --target llvm|cuda [--entry F]`: print the code a program compiles to.

`--target llvm` prints the LLVM IR that `xtir.build` hands to LLVM (before LLVM's own
optimization), after the optional schedule pipeline. `--target cuda` prints the CUDA C of
the function's kernels, then the host side (grid, block and arguments of each launch) as
comments; the input is block IR with thread-bound loops or a gpu-dialect module.
"""

from __future__ import annotations

import argparse
import sys

from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir.diagnostics import read_source
from xtir.errors import XtirError

TARGETS = ("llvm", "cuda")


def translate(module: ModuleOp, target: str, entry: str | None = None) -> str:
    """The code `module` compiles to: LLVM IR as `xtir.build` hands it to LLVM, or CUDA C."""
    from xtir.build import cuda_program, entry_function

    if target == "cuda":
        return cuda_program(module, entry).source
    name = entry_function(module, entry).sym_name.data
    return xtir.build(module, target=target, entry=name).llvm_ir + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xtir-translate", description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("-p", "--pipeline", default="", help="xtir-opt pass pipeline to apply first")
    parser.add_argument("--target", choices=TARGETS, required=True)
    parser.add_argument("--entry", help="function to translate (default: the only one, or main)")
    args = parser.parse_args(argv)
    try:
        module = xtir.parse(read_source(args.file), args.file)
        if args.pipeline:
            module = xtir.transform(module, args.pipeline)
        print(translate(module, args.target, args.entry), end="")
        return 0
    except XtirError as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:
        print(f"xtir-translate: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
