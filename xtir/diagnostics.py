"""Parsing with source locations, and verification that reports `file:line:col: error:`.

xDSL's parser does not record where an op came from, and its verifier raises without
saying which op failed. `LocatingParser` stamps each op with a `FileLineColLoc`, and
`verify` checks ops one by one (nested ops first, as MLIR's region verifiers do) so the
failing op, its source line and a caret can be shown, then checks that every value is
defined before it is used (xDSL checks no dominance).

Text nested past xtir's limits is refused before parsing, types and attributes nested past
them right after, and string literals are lexed in linear time (xtir/source_limits.py).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, FloatAttr, IntAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.parser import Parser, ParserState
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRTokenKind, StringLiteral

from xtir.dialects.block import duplicate_block_name, stabilize_name_hints
from xtir.dominance import first_use_before_definition
from xtir.source_limits import MAX_ATTRIBUTE_NESTING, LinearLexer, recursion_room, too_deep, too_deep_attribute
from xtir.support.errors import XtirParseError, XtirVerifyError, closest
from xtir.support.locations import (
    Diagnostic,
    SourceLocation,
    format_op_error,
    format_parse_error,
    op_location,
    remember_source,
    span_at,
)


class LocatingParser(Parser):
    """A Parser that records each op's source position as its location."""

    def __init__(self, ctx: Context, text: str, name: str = "<string>", line_offset: int = 0):
        # Parser.__init__ lexes the first token with xDSL's own lexer (exponential on an
        # unterminated string): give it no text, then start over with the linear lexer.
        super().__init__(ctx, "", name)
        self._parser_state = ParserState(LinearLexer(Input(text, name)))
        self._file = name
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        location = start.get_location()
        try:
            op = super().parse_operation()
        except (VerifyException, DiagnosticException) as e:  # constraints checked while building the op
            raise ParseError(start, str(e).strip()) from None
        except (ValueError, OverflowError, NotImplementedError) as e:  # xDSL's attribute constructors on bad values
            raise ParseError(start, _construction_error(e)) from None
        if not isinstance(op.location, FileLineColLoc):
            op.location = FileLineColLoc(
                StringAttr(self._file), IntAttr(location.line + self._line_offset), IntAttr(location.col)
            )
        return op

    def _get_op_by_name(self, name: str) -> type[Operation]:
        """As xDSL's, but an op name of no op suggests the closest of its dialect's ops
        (`tensor.reluu`: did you mean 'tensor.relu'?), as unknown passes and blocks are answered."""
        if (op := self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)) is not None:
            return op
        self.raise_error(f"Operation {name} is not registered{_closest_op(self.ctx, name)}")

    def parse_optional_str_literal(self) -> str | None:
        """Also a literal whose escapes spell UTF-8 (`"\\C3\\BC"`, how xDSL prints `"ü"`): xDSL's
        lexer makes it a bytes literal, so names xDSL prints would not read back; MLIR reads a
        string literal as its bytes, and these are the string's."""
        if self._current_token.kind != MLIRTokenKind.BYTES_LIT:
            return super().parse_optional_str_literal()
        try:
            text = StringLiteral.from_span(self._current_token.span).bytes_contents.decode()
        except UnicodeDecodeError:
            return None
        self._consume_token()
        return text

    def parse_optional_float(self, *, allow_negative: bool = True) -> float | None:
        """A float literal; one past the double range is an error, as in MLIR (xDSL reads infinity)."""
        start = self._current_token.span.start
        value = super().parse_optional_float(allow_negative=allow_negative)
        if value is not None and math.isinf(value):
            literal = self._parser_state.lexer.input.content[start : self._current_token.span.start].rstrip()
            self.raise_error("floating point value too large", start, start + len(literal))
        return value

    def _parse_optional_bool_int_or_float(self):  # the elements of `dense<...>`
        parsed = super()._parse_optional_bool_int_or_float()
        if parsed is not None and isinstance(parsed[0], float) and math.isinf(parsed[0]):
            raise ParseError(parsed[1], "floating point value too large")
        return parsed

    def parse_optional_builtin_int_or_float_attr(self) -> IntegerAttr | FloatAttr | None:
        """xDSL's number literal, refusing (at the literal) a float constant its type cannot hold.

        xDSL packs the value with `struct` (OverflowError past f16's or f32's range; MLIR
        rounds to infinity, which is written in hexadecimal, `0x7C00 : f16`, when meant),
        reads `-0x1 : f16` as -1.0 instead of bits, and cannot print f80 or f128 constants."""
        start = self._current_token.span.start
        negative = self._current_token.kind == MLIRTokenKind.MINUS
        try:
            attr = super().parse_optional_builtin_int_or_float_attr()
        except (OverflowError, NotImplementedError):
            attr = None
            self._refuse_float(start)
        if isinstance(attr, FloatAttr):
            literal = self._float_literal(start)
            hexadecimal = literal.lstrip("-").lower().startswith("0x")
            if hexadecimal and negative:
                self.raise_error("a hexadecimal float literal gives the bits of the value; it takes no minus sign",
                                 start, start + len(literal))
            if not hexadecimal and math.isinf(attr.value.data) or not _printable(attr):
                self._refuse_float(start)
        return attr

    def _float_literal(self, start: int) -> str:
        """The literal of the `number : type` just parsed from `start`."""
        return self._parser_state.lexer.input.content[start : self.pos].partition(":")[0].strip()

    def _refuse_float(self, start: int) -> NoReturn:
        literal = self._float_literal(start)
        text = self._parser_state.lexer.input.content[start : self.pos]
        type_text = text.partition(":")[2].strip() or "f64"
        if literal.lower().startswith("0x"):
            why = f"hexadecimal float literal {literal} has more bits than {type_text}"
        elif type_text in _FLOAT_LIMITS:
            why = f"floating point value {literal} is out of range for {type_text} " \
                  f"(largest finite value {_FLOAT_LIMITS[type_text]:g})"
        else:
            why = f"{type_text} constants are not supported (xDSL cannot print them)"
        self.raise_error(why, start, start + len(literal))


_FLOAT_LIMITS = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38,
                 "f64": 1.7976931348623157e308}
"""The largest finite value of the float types of a buffer's elements."""


def _printable(attr: FloatAttr) -> bool:
    try:
        attr.type.pack((attr.value.data,))
    except NotImplementedError:  # f80, f128
        return False
    return True


def _construction_error(error: Exception) -> str:
    """The message for an op xDSL could not build from the values written."""
    text = " ".join(map(str, error.args)).strip()
    if isinstance(error, NotImplementedError):
        return "xDSL cannot represent a type or value of this op (NotImplementedError)"
    if isinstance(error, OverflowError):
        return f"a value is out of range for its type ({text})"
    return text or type(error).__name__


OP_NAME_CUTOFF = 0.7
"""How similar (difflib's ratio) a dialect or op name must be to be suggested. Op names are short
and share few letters, so the pass names' 0.6 paired `arith.relu` with `arith.remui` and
`tir.block` with `fir.local`; a typo (`tensor.reluu`, `arith.addd`, `tensr`) stays above it."""


def _closest_op(ctx: Context, name: str) -> str:
    """`; did you mean 'D.OP'?` for an unknown op name: the op of its dialect (or, for an unknown
    dialect, of the closest dialect name) whose name after the dot is closest; else ""."""
    dialect_name, _, mnemonic = name.partition(".")
    if (dialect := ctx.get_optional_dialect(dialect_name)) is None:
        near_dialect = closest(dialect_name, ctx.registered_dialect_names, OP_NAME_CUTOFF)
        dialect = ctx.get_optional_dialect(near_dialect) if near_dialect is not None else None
    if dialect is None:
        return ""
    ops = {op.name.partition(".")[2]: op.name for op in dialect.operations}
    near = closest(mnemonic, ops, OP_NAME_CUTOFF)
    return f"; did you mean '{ops[near]}'?" if near is not None else ""


def parse_module(ctx: Context, text: str, name: str = "<string>", line_offset: int = 0) -> ModuleOp:
    """Parse and verify; raise XtirParseError / XtirVerifyError with a located diagnostic."""
    if (deep := too_deep(text)) is not None:
        offset, message = deep
        raise XtirParseError(format_parse_error(ParseError(span_at(text, name, offset), message), line_offset))
    parser = None
    try:
        parser = LocatingParser(ctx, text, name, line_offset)  # lexes the first token: may fail
        with recursion_room():
            module = parser.parse_module()
    except ParseError as e:
        raise XtirParseError(format_parse_error(e, line_offset)) from None
    except RecursionError:  # nesting that the limits do not count, e.g. types in types in types
        error = ParseError(span_at(text, name, parser.pos if parser else 0), "input nested too deeply to parse")
        raise XtirParseError(format_parse_error(error, line_offset)) from None
    if (deep_op := too_deep_attribute(module)) is not None:
        message = f"types or attributes nested deeper than {MAX_ATTRIBUTE_NESTING} levels are not supported"
        raise XtirParseError(format_op_error(deep_op, message, text, line_offset))
    stabilize_name_hints(module)
    verify(module, text, line_offset)
    remember_source(module, text, line_offset)
    return module


def verify(module: Operation, source: str | None = None, line_offset: int = 0) -> None:
    """Verify every op, nested ops first; report the first failure at its source line."""
    for op in _post_order(module):
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, DiagnosticException) as e:
            raise XtirVerifyError(format_op_error(op, str(e).strip(), source, line_offset)) from None
        except Exception as e:  # a verifier crashing on malformed generic IR is still the user's input
            message = f"malformed {op.name} ({type(e).__name__}: {e})"
            raise XtirVerifyError(format_op_error(op, message, source, line_offset)) from None
    verify_dominance(module, source, line_offset)
    verify_unique_block_names(module, source, line_offset)


def verify_unique_block_names(module: Operation, source: str | None = None, line_offset: int = 0) -> None:
    """No two blocks of a function share a name; else a located error at the second one."""
    for function in module.walk():
        if not isinstance(function, FuncOp) or (found := duplicate_block_name(function)) is None:
            continue
        first, second = found
        error = format_op_error(second, f'two blocks named "{second.label}" in function @{function.sym_name.data}; '
                                "block names must be unique in a function (schedules address blocks by name)",
                                source, line_offset)
        note = Diagnostic("note", "the first one is here", op_location(first))
        raise XtirVerifyError(f"{error}\n{note}", location=error.location, message=error.message, notes=[note])


def verify_dominance(module: Operation, source: str | None = None, line_offset: int = 0) -> None:
    """Every operand is defined before its use (xtir/dominance.py); else a located error at
    the use, with a note at the definition."""
    found = first_use_before_definition(module)
    if found is None:
        return
    user, index, value = found
    name = f"%{value.name_hint}" if value.name_hint else "the value"
    error = format_op_error(user, f"operand {index} ({name}) is used before it is defined", source, line_offset)
    definer = value.owner if isinstance(value.owner, Operation) else None
    note = Diagnostic("note", f"{name} is defined here", op_location(definer) if definer is not None else None)
    raise XtirVerifyError(f"{error}\n{note}", location=error.location, message=error.message, notes=[note])


def decode_source(data: bytes, name: str, line_offset: int = 0) -> str:
    """`data` as UTF-8 text; else an XtirParseError at the first byte that is not UTF-8."""
    try:
        return data.decode()
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1 + line_offset
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        message = f"invalid UTF-8 (byte 0x{data[e.start]:02x}): source files are UTF-8 text"
        raise XtirParseError(f"{name}:{line}:{col}: error: {message}",
                             location=SourceLocation(name, line, col), message=message) from None


def read_source(path: str | Path) -> str:
    """The UTF-8 text of the file at `path` (OSError when it cannot be read)."""
    return decode_source(Path(path).read_bytes(), str(path))


def _post_order(op: Operation):
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                yield from _post_order(child)
    yield op
