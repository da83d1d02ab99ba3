"""Parsing with source locations, and verification that reports `file:line:col: error:`.

xDSL's parser does not record where an op came from, and its verifier raises without
saying which op failed. `LocatingParser` stamps each op with a `FileLineColLoc`, and
`verify` checks ops one by one (nested ops first, as MLIR's region verifiers do) so the
failing op, its source line and a caret can be shown.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from xtir.errors import LocatedText, SourceLocation, XtirParseError, XtirVerifyError


class LocatingParser(Parser):
    """A Parser that records each op's source position as its location."""

    def __init__(self, ctx: Context, text: str, name: str = "<string>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._file = name
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        location = start.get_location()
        try:
            op = super().parse_operation()
        except (VerifyException, DiagnosticException) as e:  # constraints checked while building the op
            raise ParseError(start, str(e).strip()) from None
        if not isinstance(op.location, FileLineColLoc):
            op.location = FileLineColLoc(
                StringAttr(self._file), IntAttr(location.line + self._line_offset), IntAttr(location.col)
            )
        return op


def format_parse_error(error: ParseError, line_offset: int = 0) -> LocatedText:
    """`file:line:col: error: message` plus the source line and a caret (carrying its location)."""
    span = error.span
    loc = span.get_location()
    location = SourceLocation(loc.file, loc.line + line_offset, loc.col)
    # print_with_context starts with its own "file:line:col" line; ours replaces it
    context = span.print_with_context().rstrip("\n").split("\n", 1)[-1]
    return LocatedText(f"{location}: error: {error.msg}\n{context}", error.msg, location)


def parse_module(ctx: Context, text: str, name: str = "<string>", line_offset: int = 0) -> ModuleOp:
    """Parse and verify; raise XtirParseError / XtirVerifyError with a located diagnostic."""
    try:
        module = LocatingParser(ctx, text, name, line_offset).parse_module()
    except ParseError as e:
        raise XtirParseError(format_parse_error(e, line_offset)) from None
    verify(module, text, line_offset)
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


def _post_order(op: Operation):
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                yield from _post_order(child)
    yield op


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
    header = f"'{op.name}' op {message}"
    location = op_location(op)
    if location is not None:
        line, col = location.line, location.col
        text = f"{location}: error: {header}"
        if source is not None:
            lines = source.splitlines()
            if 0 < line - line_offset <= len(lines):
                text += f"\n{lines[line - line_offset - 1]}\n{' ' * (col - 1)}^"
        return LocatedText(text, header, location)
    first_line = str(op).splitlines()[0] if op.parent is not None or not op.regions else op.name
    return LocatedText(f"error: {header}\n  at: {first_line.strip()}", header, None)
