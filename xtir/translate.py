"""`xtir-translate FILE [-p PIPELINE] --target llvm|cuda [--entry F]`: print the code a program compiles to.

`--target llvm` prints the LLVM IR that `xtir.build` hands to LLVM (before LLVM's own
optimization), after the optional schedule pipeline. `--target cuda` prints the CUDA C of
the function's kernels, then the host side (grid, block and arguments of each launch) as
comments; the input is block IR with thread-bound loops or a gpu-dialect module.
"""

from __future__ import annotations

import argparse
import sys

import xtir
from xtir.build import cuda_program, entry_function
from xtir.diagnostics import read_source
from xtir.errors import XtirError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xtir-translate", description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("-p", "--pipeline", default="", help="xtir-opt pass pipeline to apply first")
    parser.add_argument("--target", choices=["llvm", "cuda"], required=True)
    parser.add_argument("--entry", help="function to translate (default: the only one, or main)")
    args = parser.parse_args(argv)
    try:
        module = xtir.parse(read_source(args.file), args.file)
        if args.pipeline:
            module = xtir.transform(module, args.pipeline)
        if args.target == "cuda":
            print(cuda_program(module, args.entry).source, end="")
            return 0
        name = entry_function(module, args.entry).sym_name.data
        print(xtir.build(module, target=args.target, entry=name).llvm_ir)
        return 0
    except XtirError as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:
        print(f"xtir-translate: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
