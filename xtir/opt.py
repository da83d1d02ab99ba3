"""`xtir-opt`: xdsl-opt with xtir's dialects and passes, and diagnostics instead of tracebacks.

Every xdsl-opt flag works. Errors a user can cause (bad IR, an illegal schedule, a
bad pass option) print `file:line:col: error: ...` on stderr and exit 1. Set
XTIR_TRACEBACK=1 to see the Python traceback of an internal error.

`--verify-diagnostics` has MLIR's meaning (not xDSL's, which prints the error and exits
0): the diagnostics of the run must be exactly those the input's `// expected-error
@+1 {{...}}` comments announce (see xtir/verify_diagnostics.py); a missing or an
unexpected one is reported at its `file:line:col` and the run exits 1.
`--parsing-diagnostics` keeps xDSL's meaning: errors go to stdout and the run exits 0.

`--verify-numerics` runs the program before and after every pass on the same random
inputs (xtir/verify_numerics.py) and stops at the first pass that changes the results.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from io import BytesIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError, VerifyException
from xdsl.xdsl_opt_main import xDSLOptMain

from xtir import intrinsics
from xtir.context import register_dialects
from xtir.diagnostics import decode_source, parse_module
from xtir.errors import Diagnostic, XtirError
from xtir.passes_registry import XTIR_PASSES
from xtir.pipeline import parse_pipeline, run_passes
from xtir.source_limits import recursion_room
from xtir.support.locations import format_parse_error
from xtir.verify_diagnostics import check_diagnostics, diagnostics_from_text, parse_expectations


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
        arg_parser.add_argument(
            "--verify-numerics",
            action="store_true",
            help="after every pass, run the program before and after it on the same random inputs "
            "(reference evaluator, or the JIT for large programs) and stop at the first pass that changes the results",
        )
        for action in arg_parser._actions:
            if action.dest == "verify_diagnostics":
                action.help = ("check the diagnostics against the input's `// expected-error @+1 {{...}}` "
                               "comments (MLIR's -verify-diagnostics); exit 1 on a missing or unexpected one")

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in XTIR_PASSES.items():
            self.register_pass(name, factory)

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        if file_extension != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        text = decode_source(chunk.read(), self.get_input_name(), start_offset)
        self._source, self._offset = text, start_offset
        return parse_module(self.ctx, text, self.get_input_name(), start_offset)

    def setup_pipeline(self) -> None:
        self.pipeline = PassPipeline(tuple(parse_pipeline(self.args.passes, self.available_passes)))

    def apply_passes(self, prog: ModuleOp) -> None:
        passes = self.pipeline.passes
        checker = None
        if self.args.verify_numerics and passes:
            from xtir.verify_numerics import NumericsChecker

            checker = NumericsChecker(prog)
        run_passes(prog, passes, ctx=self.ctx, verify_each=not self.args.disable_verify, source=self._source,
                   line_offset=self._offset, numerics=checker,
                   print_between=sys.stdout if self.args.print_between_passes else None)

    def run(self) -> None:
        for path in self.args.intrinsics:
            intrinsics.register_file(path, override=True)
        chunks, file_extension = self.prepare_input()
        output = self.prepare_output()
        name = self.get_input_name()
        failures: list[str] = []
        try:
            for i, (chunk, offset) in enumerate(chunks):
                if i > 0:
                    output.write("// -----\n")
                data = chunk.read()
                chunk.close()
                self._diagnostics: list[Diagnostic] = []
                try:
                    module = self.parse_chunk(BytesIO(data), file_extension, offset)
                    if module is not None:
                        self.apply_passes(module)
                        output.write(self.output_resulting_program(module))
                    output.flush()
                except ParseError as e:  # from a frontend other than xtir's .mlir parser
                    located = XtirError(format_parse_error(e, offset))
                    self.report(str(located), diagnostics_of(located))
                except XtirError as e:
                    self.report(str(e), diagnostics_of(e))
                except (DiagnosticException, VerifyException) as e:
                    self.report(str(e), diagnostics_of(XtirError(str(e).strip())))
                if self.args.verify_diagnostics:
                    text = data.decode(errors="replace")
                    expected, malformed = parse_expectations(text, name, offset)
                    failures += malformed
                    failures += check_diagnostics(self._diagnostics, expected, name, offset + 1)
        finally:
            if output is not sys.stdout:
                output.close()
        if failures:
            sys.stdout.flush()
            for failure in failures:
                print(failure, file=sys.stderr)
            self.had_error = True

    def report(self, text: str, diagnostics: list[Diagnostic]) -> None:
        if self.args.verify_diagnostics:
            self._diagnostics += diagnostics
        elif self.args.parsing_diagnostics:
            print(text)
        else:
            print(text, file=sys.stderr)
            self.had_error = True


def diagnostics_of(error: XtirError) -> list[Diagnostic]:
    """The diagnostics an error stands for: its own data, or read back from its text when it
    was made from plain text that starts with a location."""
    if error.location is None and error.message == str(error):
        return diagnostics_from_text(str(error))
    return error.diagnostics


def main(args: Sequence[str] | None = None) -> int:
    try:
        tool = XtirOptMain(description="xtir modular optimizer driver", args=args)
        with recursion_room():  # passes and the printer recurse about as deep as the parser on nested input
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
