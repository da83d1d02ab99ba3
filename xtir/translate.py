"""`xtir-translate FILE [-p PIPELINE] --target llvm|cuda [--entry F] [--bank-report] [--intrinsics FILE]`:
print the code a program compiles to.

`--target llvm` prints the LLVM IR that `xtir.build` hands to LLVM (before LLVM's own
optimization), after the optional schedule pipeline. `--target cuda` prints the CUDA C of
the function's kernels, then the host side (grid, block and arguments of each launch) as
comments; the input is block IR with thread-bound loops or a gpu-dialect module. With
`--bank-report` it adds, as comments, the wavefronts a warp needs for each shared-memory
access (lowering/bank_conflicts.py).
"""

from __future__ import annotations

import argparse
import sys

from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir import intrinsics
from xtir.diagnostics import read_source
from xtir.errors import XtirError

TARGETS = ("llvm", "cuda")


def translate(module: ModuleOp, target: str, entry: str | None = None, bank_report: bool = False) -> str:
    """The code `module` compiles to: LLVM IR as `xtir.build` hands it to LLVM, or CUDA C (with
    the shared-memory bank report after it, when asked)."""
    from xtir.build import cuda_program, entry_function, lower_to_gpu

    if bank_report and target != "cuda":
        raise XtirError("--bank-report counts shared-memory accesses of CUDA kernels: it goes with --target cuda")
    if target == "cuda":
        from xtir.lowering.bank_conflicts import bank_report as report

        lowered = lower_to_gpu(module)  # the report reads the kernels the source is emitted from
        source = cuda_program(lowered, entry).source
        return source + "\n" + report(lowered) if bank_report else source
    name = entry_function(module, entry).sym_name.data
    return xtir.build(module, target=target, entry=name).llvm_ir + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xtir-translate", description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("-p", "--pipeline", default="", help="xtir-opt pass pipeline to apply first")
    parser.add_argument("--target", choices=TARGETS, required=True,
                        help="llvm (the LLVM IR xtir.build compiles) or cuda (the kernels' CUDA C and their launches)")
    parser.add_argument("--entry", help="function to translate (default: the only one, or main)")
    parser.add_argument("--bank-report", action="store_true",
                        help="with --target cuda: the wavefronts a warp needs for each shared-memory access")
    intrinsics.add_files_option(parser)
    args = parser.parse_args(argv)
    try:
        intrinsics.register_files(args.intrinsics)
        module = xtir.parse(read_source(args.file), args.file)
        if args.pipeline:
            module = xtir.transform(module, args.pipeline)
        print(translate(module, args.target, args.entry, args.bank_report), end="")
        return 0
    except XtirError as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:
        print(f"xtir-translate: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
