"""Where diagnostics point, and how they are written: `file:line:col: error: message`, then the
source line and a caret under the column (MLIR's form), then `note:` lines in the same form.

xDSL keeps an op's position as its `FileLineColLoc` (xtir's parser stamps every op with one);
xDSL keeps no source text. A caller that has it passes it in to show the line (xtir-opt);
a module parsed by `xtir.parse` remembers its text here (`remember_source`), and so does
each copy made with `clone_module` (what `Schedule`, `xtir.transform` and `xtir.build`
work on), so that the pipeline driver shows the line for errors raised from Python too.
"""

from __future__ import annotations

from dataclasses import dataclass
from weakref import WeakKeyDictionary

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span


@dataclass(frozen=True)
class SourceLocation:
    """A position in an input file (lines and columns count from 1)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic: severity ("error", "warning", "note" or "remark"), message, location."""

    severity: str
    message: str
    location: SourceLocation | None = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.severity}: {self.message}"


class LocatedText(str):
    """Diagnostic text that remembers its location and message (what `format_op_error` and
    `format_parse_error` return): an XtirError made from it carries them as data."""

    location: SourceLocation | None
    message: str

    def __new__(cls, text: str, message: str | None = None, location: SourceLocation | None = None) -> LocatedText:
        self = super().__new__(cls, text)
        self.message = text if message is None else message
        self.location = location
        return self

    def __reduce__(self):
        return (LocatedText, (str(self), self.message, self.location))


_SOURCES: WeakKeyDictionary[ModuleOp, tuple[str, int]] = WeakKeyDictionary()
"""A parsed module's source text and line offset, while the module lives."""


def remember_source(module: ModuleOp, text: str, line_offset: int = 0) -> None:
    _SOURCES[module] = (text, line_offset)


def source_of(module: ModuleOp) -> tuple[str | None, int]:
    """The text `module` was parsed from (from line `line_offset + 1`) and that offset; (None, 0)
    for a module built in Python."""
    return _SOURCES.get(module, (None, 0))


def clone_module(module: ModuleOp) -> ModuleOp:
    """A copy of `module` whose diagnostics show the same source text."""
    return carry_source(module, module.clone())


def carry_source(original: ModuleOp, copy: ModuleOp) -> ModuleOp:
    """`copy`, whose diagnostics now show the source text of `original` (if it has one)."""
    if original in _SOURCES:
        _SOURCES[copy] = _SOURCES[original]
    return copy


def excerpt(location: SourceLocation, source: str | None, line_offset: int = 0) -> str:
    """The source line of `location` and a caret under its column (each after a newline), when
    `source` (the text from line `line_offset + 1` on) holds that line; else nothing."""
    if source is None:
        return ""
    lines = source.splitlines()
    k = location.line - line_offset
    if not 0 < k <= len(lines):
        return ""
    return f"\n{lines[k - 1]}\n{' ' * (location.col - 1)}^"


def format_parse_error(error: ParseError, line_offset: int = 0) -> LocatedText:
    """`file:line:col: error: message` plus the source line and a caret (carrying its location)."""
    span = error.span
    loc = span.get_location()
    location = SourceLocation(loc.file, loc.line + line_offset, loc.col)
    # print_with_context starts with its own "file:line:col" line; ours replaces it
    context = span.print_with_context().rstrip("\n").split("\n", 1)[-1]
    return LocatedText(f"{location}: error: {error.msg}\n{context}", error.msg, location)


def format_error_at(text: str, name: str, offset: int, message: str, length: int = 1) -> LocatedText:
    """`name:line:col: error: message` for the `length` characters at `offset` of `text`, with the
    source line and carets (for errors in text that is not IR, such as a directive comment)."""
    span = Span(offset, min(offset + max(length, 1), len(text)), Input(text, name))
    return format_parse_error(ParseError(span, message))


def span_at(text: str, name: str, offset: int) -> Span:
    """The character at `offset` of the input (for a ParseError made outside the parser)."""
    return Span(offset, min(offset + 1, len(text)), Input(text, name))


def op_location(op: Operation) -> SourceLocation | None:
    """Where `op` came from in the input, if known."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
    return None


def format_op_error(op: Operation, message: str, source: str | None = None, line_offset: int = 0) -> LocatedText:
    """`file:line:col: error: 'op.name' op message` plus the source line and a caret.

    The result is a string that also carries the location and the message as data
    (`LocatedText`): an XtirError made from it knows where it points."""
    return _format_at(op, "error", f"'{op.name}' op {message}", source, line_offset)


def format_note(op: Operation, message: str, source: str | None = None, line_offset: int = 0) -> LocatedText:
    """`file:line:col: note: message` at `op`, plus the source line and a caret."""
    return _format_at(op, "note", message, source, line_offset)


def _format_at(op: Operation, severity: str, message: str, source: str | None, line_offset: int) -> LocatedText:
    location = op_location(op)
    if location is not None:
        return LocatedText(f"{location}: {severity}: {message}{excerpt(location, source, line_offset)}", message, location)
    # an op a pass made has no location: show it by its first printed line
    first_line = str(op).splitlines()[0] if op.parent is not None or not op.regions else op.name
    return LocatedText(f"{severity}: {message}\n  at: {first_line.strip()}", message, None)
