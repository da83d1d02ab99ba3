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
import inspect
import os
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import MISSING, fields, is_dataclass
from io import BytesIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError, VerifyException
from xdsl.xdsl_opt_main import xDSLOptMain

from xtir import intrinsics
from xtir.context import register_dialects
from xtir.diagnostics import decode_source, parse_module
from xtir.errors import Diagnostic, XtirError, XtirPassError
from xtir.passes_registry import XTIR_PASSES
from xtir.pipeline import PassRegistry, did_you_mean, parse_pipeline, run_passes, spec_text
from xtir.source_limits import recursion_room
from xtir.support.locations import format_parse_error
from xtir.translate import TARGETS as TRANSLATE_TARGETS
from xtir.translate import translate
from xtir.verify_diagnostics import check_diagnostics, diagnostics_from_text, parse_expectations


class XtirOptMain(xDSLOptMain):
    version_format = "xtir-opt built from xdsl version {xdsl_version}"
    had_error = False

    def register_all_dialects(self) -> None:
        register_dialects(self.ctx)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        intrinsics.add_files_option(arg_parser)
        arg_parser.add_argument(
            "--verify-numerics",
            action="store_true",
            help="after every pass, run the program before and after it on the same random inputs "
            "(reference evaluator, or the JIT for large programs) and stop at the first pass that changes the results",
        )
        arg_parser.add_argument("--pass-pipeline", metavar="PIPELINE",
                                help="mlir-opt's form of -p: 'builtin.module(split{loop=i factors=-1,16},...)'")
        arg_parser.add_argument("--print-ir-before-all", action="store_true",
                                help="print the IR before every pass, with the pass and its options, on stderr")
        arg_parser.add_argument("--print-ir-after-all", action="store_true",
                                help="print the IR after every pass, with the pass and its options, on stderr")
        arg_parser.add_argument("--help-pass", metavar="NAME", help="print a pass's documentation and options, and exit")
        # --help ends with xtir's passes, each with its summary, instead of a list of every
        # name xDSL registers; built on demand, since it imports every pass
        default_help = arg_parser.format_help
        arg_parser.format_help = lambda: f"{default_help()}\n{pass_listing()}\n"  # type: ignore[method-assign]
        for action in arg_parser._actions:
            if action.dest == "passes":
                action.help = "the pipeline: PASS{option=value ...},PASS,... (xtir's passes are listed below)"
            if action.dest == "verify_diagnostics":
                action.help = ("check the diagnostics against the input's `// expected-error @+1 {{...}}` "
                               "comments (MLIR's -verify-diagnostics); exit 1 on a missing or unexpected one")

    def register_all_targets(self) -> None:
        """The targets that apply to xtir programs: the IR itself (mlir) and what `xtir-translate`
        prints (llvm, cuda); xDSL's other printers (wgsl, riscv-asm, ...) do not take block IR."""
        super().register_all_targets()
        self.available_targets = {"mlir": self.available_targets["mlir"],
                                  **{name: _translator(name) for name in TRANSLATE_TARGETS}}

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
        text = self.args.passes
        if self.args.pass_pipeline is not None:
            if text:
                raise XtirPassError("give the passes with -p or with --pass-pipeline, not both")
            text = module_pipeline(self.args.pass_pipeline)
        self.pipeline = PassPipeline(tuple(parse_pipeline(text, self.available_passes)))

    def apply_passes(self, prog: ModuleOp) -> None:
        passes = self.pipeline.passes
        checker = None
        if self.args.verify_numerics and passes:
            from xtir.verify_numerics import NumericsChecker

            checker = NumericsChecker(prog)
        options = dict(ctx=self.ctx, verify_each=not self.args.disable_verify, source=self._source,
                       line_offset=self._offset, numerics=checker)
        if not (self.args.time_passes or self.args.print_ir_before_all or self.args.print_ir_after_all):
            run_passes(prog, passes, **options, print_between=sys.stdout if self.args.print_between_passes else None)
            return
        for k, p in enumerate(passes, start=1):
            self.print_ir(prog, "before", p, self.args.print_ir_before_all)
            start = time.perf_counter()
            run_passes(prog, [p], **options, first=k, where=f"pass {{k}} of {len(passes)} in the pipeline")
            if self.args.time_passes:
                print(f"// time: {(time.perf_counter() - start) * 1e3:9.2f} ms  {spec_text(p)}", file=sys.stderr)
            self.print_ir(prog, "after", p, self.args.print_ir_after_all)

    @staticmethod
    def print_ir(prog: ModuleOp, when: str, p: ModulePass, enabled: bool) -> None:
        if enabled:
            print(f"// -----// IR Dump {when.capitalize()} {spec_text(p)} //----- //", file=sys.stderr)
            print(prog, file=sys.stderr)

    def run(self) -> None:
        if self.args.input_file == "-":  # stdin, as mlir-opt spells it
            self.args.input_file = None
        if self.args.help_pass is not None:
            print(pass_help(self.args.help_pass, self.available_passes))
            return
        intrinsics.register_files(self.args.intrinsics)
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


def _translator(target: str) -> Callable[[ModuleOp, IO[str]], None]:
    def emit(module: ModuleOp, output: IO[str]) -> None:
        output.write(translate(module, target))

    return emit


def module_pipeline(text: str) -> str:
    """The passes of `builtin.module(...)`, mlir-opt's pipeline form; xtir's passes all run on the module."""
    text = text.strip()
    if not (text.startswith("builtin.module(") and text.endswith(")")):
        raise XtirPassError(f"--pass-pipeline: expected 'builtin.module(PASS,...)', got '{text}'; "
                            "xtir's passes all run on the module (or use -p 'PASS,...')")
    inner = text[len("builtin.module("):-1]
    if "(" in inner:
        raise XtirPassError("--pass-pipeline: nested op anchors such as func.func(...) are not supported; "
                            "xtir's schedule passes take the function as an option: split{func=NAME ...}")
    return inner


def own_doc(cls: type[ModulePass]) -> str | None:
    """The class's own docstring (not ModulePass's, nor the signature dataclasses put there)."""
    doc = cls.__dict__.get("__doc__")
    return inspect.cleandoc(doc) if doc and not doc.startswith(f"{cls.__name__}(") else None


def pass_doc(cls: type[ModulePass]) -> str:
    """A pass's documentation: its module's docstring, else its class's."""
    return inspect.getdoc(sys.modules[cls.__module__]) or own_doc(cls) or f"(no documentation; {cls.__module__})"


def pass_listing() -> str:
    """xtir's passes, one line each: the name and the first sentence of its documentation."""
    width = max(map(len, XTIR_PASSES))
    lines = ["xtir's passes (xtir-opt --help-pass NAME for one pass's options and documentation; "
             "xDSL's own passes such as cse, dce and canonicalize work too):"]
    classes = {name: factory() for name, factory in sorted(XTIR_PASSES.items())}
    shared = Counter(cls.__module__ for cls in classes.values())
    for name, cls in classes.items():
        # a module holding several passes describes them together; each class says what it does
        own = own_doc(cls) if shared[cls.__module__] > 1 else None
        summary = (own or pass_doc(cls)).split("\n\n")[0].replace("\n", " ")
        lines.append(f"  {name:<{width}}  {summary}")
    return "\n".join(lines)


def pass_help(name: str, available: PassRegistry) -> str:
    """A pass's documentation and its options."""
    if name not in available:
        raise XtirPassError(f"unknown pass '{name}'{did_you_mean(name, available)}")
    cls = available[name]()
    doc = pass_doc(cls)
    lines = [doc, "", "options:"]
    for f in fields(cls) if is_dataclass(cls) else ():
        default = "" if f.default is MISSING else f" (default: {f.default!r})"
        lines.append(f"  {f.name}: {f.type}{default}")
    return "\n".join(lines)


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
