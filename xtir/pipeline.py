"""The pipeline driver: the one place where passes are built and applied.

`xtir-opt`, `xtir.transform`, `xtir.Schedule` and `xtir.build` all go through `run_passes`:
apply each pass, verify the IR after it, turn a refusal into a diagnostic that names the
pass (`ScheduleError.in_pass`), and optionally compare numerics or print the IR between
passes. Passes are built from a pipeline text (`parse_pipeline`, the `-p` syntax) or from
a name and option values (`build_pass`); `spec_text` writes a pass back as pipeline text
that reads back to the same pass (how `Schedule.trace` stays replayable).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import fields, is_dataclass
from typing import IO, Any, Protocol

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.arg_spec import ArgSpec, PipelineLexer, SpecTokenKind
from xdsl.utils.arg_spec import parse_pipeline as parse_specs
from xdsl.utils.exceptions import ArgSpecParseError

from xtir.context import make_context
from xtir.diagnostics import verify
from xtir.passes_registry import XTIR_PASSES
from xtir.support.errors import ScheduleError, XtirPassError, XtirVerifyError
from xtir.support.errors import did_you_mean as closest_name
from xtir.support.locations import Diagnostic, source_of


class NumericsCheck(Protocol):
    """What `run_passes` needs of xtir.verify_numerics.NumericsChecker (a layer above the driver)."""

    def check(self, module: ModuleOp, pass_name: str, where: str = "") -> None: ...


PassRegistry = Mapping[str, Callable[[], type[ModulePass]]]


def parse_pipeline(text: str, available: PassRegistry = XTIR_PASSES) -> list[ModulePass]:
    """The passes of a `-p` pipeline; an unknown pass or a bad option is an XtirPassError
    naming the pass's position in the pipeline."""
    try:
        specs = list(parse_specs(text))
    except (ArgSpecParseError, ValueError) as e:
        raise XtirPassError(f"bad pipeline '{text}': {str(e).rstrip()}{_quoting_hint(text, str(e))}") from None
    if repeated := _repeated_option(text):
        raise XtirPassError(f"bad pipeline '{text}': {repeated}")
    return [_from_spec(spec, available, f"pass {k} of {len(specs)} in the pipeline")
            for k, spec in enumerate(specs, start=1)]


def build_pass(name: str, options: Mapping[str, object], available: PassRegistry = XTIR_PASSES) -> ModulePass:
    """The registered pass `name` with these option values (None: left at its default), checked
    as xtir-opt checks options written in a pipeline."""
    parameters = {}
    for key, value in options.items():
        if value is None:
            continue
        values = tuple(value) if isinstance(value, tuple | list) else (value,)
        for v in values:
            if not isinstance(v, int | str):  # what pass options can hold (bool is an int)
                raise XtirPassError(f"{name}: {key} takes integers, booleans or strings, got {v!r}")
        parameters[key] = values
    return _from_spec(ArgSpec(name, parameters), available, None)


def _from_spec(spec: ArgSpec, available: PassRegistry, position: str | None) -> ModulePass:
    where = f" ({position})" if position else ""
    if spec.name not in available:
        raise XtirPassError(f"unknown pass '{spec.name}'{where}{did_you_mean(spec.name, available)}")
    cls = available[spec.name]()
    options = sorted((f.name for f in fields(cls)), key=lambda key: key in _LAST) if is_dataclass(cls) else []
    for key in spec.parameters:
        if options and key not in options:
            raise XtirPassError(f"unknown option '{key}' for pass '{spec.name}'{where}{did_you_mean(key, options)}"
                                f"{' Its' if did_you_mean(key, options) else '; its'} options: {', '.join(options)}")
    try:
        return cls.from_spec(spec)
    except ValueError as e:
        reason = _option_type_error(spec, str(e))
        if reason is None:
            reason = f"bad options for {spec_text_of(spec)}: {e}" if position is None else str(e)
        message = f"{reason}{where}"
        if any(v == "None" for values in spec.parameters.values() for v in values):
            message += "; pipelines have no None: a split factor to infer is written -1 (TVM's None)"
        raise XtirPassError(message) from None


# How xDSL prints an option's type in "Incompatible types: ... expected T", in words.
_TYPE_WORDS = {"<class 'str'>": "a string", "<class 'int'>": "an integer", "<class 'bool'>": "true or false",
               "str | None": "a string", "int | None": "an integer", "int | str": "an integer or a string",
               "tuple[int, ...]": "integers (F0,F1,...)", "tuple[str, ...]": "names (N0,N1,...)"}


def _option_type_error(spec: ArgSpec, message: str) -> str | None:
    """xDSL's "Incompatible types: given (3,), expected <class 'str'>" as "split: option 'loop'
    takes a string, got 3", naming the option whose value it printed."""
    match = re.fullmatch(r"Incompatible types: given (.*), expected (.*)", message)
    if not match:
        return None
    keys = [key for key, values in spec.parameters.items() if str(tuple(values)) == match[1]]
    if not keys:
        return None
    # xDSL names no option: where several got the printed value, any of them may be the one
    options = f"option '{keys[0]}'" if len(keys) == 1 else "one of options " + ", ".join(f"'{k}'" for k in keys)
    got = ",".join(map(str, spec.parameters[keys[0]]))
    return f"{spec.name}: {options} takes {_TYPE_WORDS.get(match[2], match[2])}, got {got}"


def _repeated_option(text: str) -> str | None:
    """An option written twice in one pass's braces (xDSL would keep the last silently), said as
    an error, or None. `text` parses."""
    lexer = PipelineLexer(text)
    keys: set[str] = set()
    previous = pass_name = None
    while (token := lexer.lex()).kind is not SpecTokenKind.EOF:
        if token.kind is SpecTokenKind.L_BRACE:
            keys, pass_name = set(), previous
        elif token.kind is SpecTokenKind.EQUALS and previous is not None and previous.kind is SpecTokenKind.IDENT:
            if previous.span.text in keys:
                return f"option '{previous.span.text}' is given twice to pass '{pass_name.span.text}'"
            keys.add(previous.span.text)
        previous = token
    return None


def _quoting_hint(text: str, message: str) -> str:
    """A pipeline the lexer stopped at a '.' of an option value: such values are quoted."""
    at = re.search(r"pass-pipeline:1:(\d+)", message)
    if at and 0 < int(at[1]) <= len(text) and text[int(at[1]) - 1] == ".":
        return '\nnote: an option value holding a dot is quoted: thread="threadIdx.x", scope="global.A_reg"'
    return ""


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """The closest pass or option name: those are written with '-', where Python has '_'."""
    return closest_name(name.replace("_", "-"), known)


# A string that the pipeline lexer reads back as the same string when written bare.
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\f": "\\f", "\v": "\\v"}
_LAST = ("func",)
"""Options written after the pass's own ones: which function, the least telling part of a trace step."""


def _spec_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    if _BARE.fullmatch(text) and text not in ("true", "false"):
        return text
    return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'


def spec_text_of(spec: ArgSpec) -> str:
    """`name{key=value key=v1,v2}` that the pipeline parser reads back as `spec` (xDSL's
    `str(spec)` quotes every string and escapes none)."""
    keys = sorted(spec.parameters, key=lambda key: key in _LAST)
    parts = [f"{key}={','.join(_spec_value(v) for v in spec.parameters[key])}" for key in keys]
    return f"{spec.name}{{{' '.join(parts)}}}" if parts else spec.name


def spec_text(p: ModulePass) -> str:
    """The pipeline text of a pass (its non-default options), replayable with xtir-opt -p."""
    return spec_text_of(p.spec())


def run_passes(
    module: ModuleOp,
    passes: Sequence[ModulePass],
    *,
    ctx: Context | None = None,
    verify_each: bool = True,
    source: str | None = None,
    line_offset: int = 0,
    numerics: NumericsCheck | None = None,
    where: str = "pass {k} of {n} in the pipeline",
    first: int = 1,
    print_between: IO[str] | None = None,
) -> list[Any]:
    """Apply `passes` to `module` in place, in order; return what each produced (the result
    of a schedule primitive's `run`, None for other passes).

    After each pass the module is verified (unless `verify_each` is off) and, with
    `numerics`, compared with the program before it; `where` ({k}: the pass's position,
    counted from `first`, {n}: the number of passes) says where in the pipeline it failed.
    With `print_between`, the IR between passes is printed there, as xdsl-opt does.
    `source` (the input text, from line `line_offset + 1`; default: the text the module was
    parsed from, `source_of`) lets diagnostics show the line."""
    from xtir.passes.schedule_pass import SchedulePass

    ctx = ctx or make_context()
    if source is None:
        source, line_offset = source_of(module)
    results = []
    for k, p in enumerate(passes):
        position = where.format(k=first + k, n=first + len(passes) - 1)
        try:
            results.append(p.schedule(module) if isinstance(p, SchedulePass) else p.apply(ctx, module))
        except ScheduleError as e:
            raise e.in_pass(p.name, source, line_offset) from None
        if verify_each:
            _verify_after(module, p, source, line_offset)
        if numerics is not None:
            numerics.check(module, spec_text(p), position)
        if print_between is not None and k + 1 < len(passes):
            print(f"IR after {p.name}:", file=print_between)
            Printer(stream=print_between).print_op(module)
            print("\n\n\n", file=print_between)
    return results


def _verify_after(module: ModuleOp, p: ModulePass, source: str | None, line_offset: int) -> None:
    try:
        verify(module, source, line_offset)
    except XtirVerifyError as e:
        note = f"the IR no longer verifies after pass '{spec_text(p)}'"
        raise XtirPassError(f"{e}\nnote: {note}", location=e.location, message=e.message,
                            notes=[*e.notes, Diagnostic("note", note, e.location)]) from None
