"""`xtir-opt`: xdsl-opt with xtir's dialects and passes, and diagnostics instead of tracebacks.

Every xdsl-opt flag works. Errors a user can cause (bad IR, an illegal schedule, a
bad pass option) print `file:line:col: error: ...` on stderr and exit 1; with
`--verify-diagnostics` they print on stdout and the run exits 0 (xDSL's meaning of
the flag). Set XTIR_TRACEBACK=1 to see the Python traceback of an internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError, VerifyException
from xdsl.xdsl_opt_main import xDSLOptMain

from xtir import intrinsics
from xtir.context import register_dialects
from xtir.diagnostics import format_parse_error, parse_module, verify
from xtir.errors import XtirError
from xtir.passes_registry import XTIR_PASSES


class XtirOptMain(xDSLOptMain):
    version_format = "xtir-opt built from xdsl version {xdsl_version}"
    had_error = False

    def register_all_dialects(self) -> None:
        register_dialects(self.ctx)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--intrinsics",
            action="append",
            default=[],
            metavar="FILE",
            help="register the tensor intrinsics (@NAME_desc / @NAME_impl function pairs) of an IR file "
            "for tensorize; may be repeated",
        )

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in XTIR_PASSES.items():
            self.register_pass(name, factory)

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        if file_extension != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        text = chunk.read().decode()
        self._source, self._offset = text, start_offset
        return parse_module(self.ctx, text, self.get_input_name(), start_offset)

    def apply_passes(self, prog: ModuleOp) -> None:
        def check(previous: ModulePass | None, module: ModuleOp, following: ModulePass | None) -> None:
            if previous is None:
                return
            try:
                verify(module, self._source, self._offset)
            except XtirError as e:
                raise XtirError(f"{e}\nnote: the IR no longer verifies after pass '{previous.name}'") from None
            if following is not None and self.args.print_between_passes:
                print(f"IR after {previous.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")

        PassPipeline(self.pipeline.passes, None if self.args.disable_verify else check).apply(self.ctx, prog)

    def run(self) -> None:
        for path in self.args.intrinsics:
            intrinsics.register_file(path, override=True)
        chunks, file_extension = self.prepare_input()
        output = self.prepare_output()
        try:
            for i, (chunk, offset) in enumerate(chunks):
                if i > 0:
                    output.write("// -----\n")
                try:
                    module = self.parse_chunk(chunk, file_extension, offset)
                    if module is not None:
                        self.apply_passes(module)
                        output.write(self.output_resulting_program(module))
                    output.flush()
                except ParseError as e:
                    self.report(format_parse_error(e, offset))
                except (XtirError, DiagnosticException, VerifyException) as e:
                    self.report(str(e))
                finally:
                    chunk.close()
        finally:
            if output is not sys.stdout:
                output.close()

    def report(self, diagnostic: str) -> None:
        if self.args.verify_diagnostics or self.args.parsing_diagnostics:
            print(diagnostic)
        else:
            print(diagnostic, file=sys.stderr)
            self.had_error = True


def main(args: Sequence[str] | None = None) -> int:
    try:
        tool = XtirOptMain(description="xtir modular optimizer driver", args=args)
        tool.run()
        return 1 if tool.had_error else 0
    except (ArgSpecParseError, ValueError) as e:  # bad -p pipelines and pass options
        print(f"xtir-opt: error: {e}", file=sys.stderr)
        return 1
    except (OSError, XtirError) as e:  # e.g. an unreadable or invalid --intrinsics file
        print(f"xtir-opt: error: {e}", file=sys.stderr)
        return 1
    except Exception as e:
        if os.environ.get("XTIR_TRACEBACK"):
            traceback.print_exc()
        print(f"xtir-opt: internal error: {type(e).__name__}: {e} (set XTIR_TRACEBACK=1 for details)", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
