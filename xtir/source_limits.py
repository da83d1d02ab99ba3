"""Limits xtir puts on input text before xDSL's parser sees it, and the lexer fix they rely on.

xDSL's parser, printer, verifier and xtir's passes recurse once or more per nesting level
(a `block.for` costs about 8 Python frames to parse, a parenthesis about 3), so input
nested deep enough ends in a RecursionError. `too_deep` finds, in one linear scan, the
first bracket that opens a level past the limits below. Within them, parsing needs fewer
than 2000 frames (it runs under `recursion_room`) and every later stage (printing, passes,
lowering, the evaluator) about 800 at most, inside Python's default limit of 1000.

`LinearLexer` is xDSL's MLIR lexer with a string-literal pattern that cannot backtrack:
xDSL 0.74's pattern nests quantifiers (`(?:[^"...]+|...)*`), so an unterminated literal
followed by n characters on its line takes O(2^n) steps (40 characters: hours).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken

MAX_REGION_NESTING = 128
"""Most `{` levels (regions, attribute dictionaries) open at once."""
MAX_BRACKET_NESTING = 256
"""Most `(` and `[` levels open at once (index expressions, operand lists)."""
RECURSION_ROOM = 8000
"""The recursion limit `recursion_room` sets: four times what input within both limits needs."""

# A string literal (closed or not: an unclosed one ends at its line, where the lexer will
# stop too), a comment, or a bracket. Possessive quantifiers keep the scan linear.
_SCAN = re.compile(r'"(?:[^"\\\n\v\f]++|\\[^\n\v\f])*+"?|//[^\n]*+|[{}()\[\]]')
# Which depth a bracket changes, and by how much.
_BRACKETS = {"{": ("{", 1), "}": ("{", -1), "(": ("(", 1), ")": ("(", -1), "[": ("(", 1), "]": ("(", -1)}
_LIMITS = {"{": (MAX_REGION_NESTING, "regions ('{')"), "(": (MAX_BRACKET_NESTING, "parentheses or brackets")}


def too_deep(text: str) -> tuple[int, str] | None:
    """The offset of the first bracket that nests past the limits, with the message; or None.

    Brackets in string literals and comments do not count; a closing bracket that matches
    nothing is left for the parser to report."""
    depth = {"{": 0, "(": 0}
    for m in _SCAN.finditer(text):
        if (bracket := _BRACKETS.get(m.group(0))) is None:
            continue  # a string literal or a comment
        kind, step = bracket
        depth[kind] = max(depth[kind] + step, 0)
        limit, what = _LIMITS[kind]
        if depth[kind] > limit:
            return m.start(), f"nesting deeper than {limit} levels of {what} is not supported"
    return None


@contextmanager
def recursion_room() -> Iterator[None]:
    """A recursion limit with room for input within the limits (the old limit is restored)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, RECURSION_ROOM))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


# xDSL's pattern with possessive quantifiers: the alternatives start with different characters,
# so the greedy match is the only one and giving back characters can never succeed.
_STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')
_STRING_BODY = re.compile(r'(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+')


class LinearLexer(MLIRLexer):
    """MLIRLexer lexing string literals in linear time, saying why an unclosed one is unclosed."""

    _unescaped_characters_regex = _STRING_LITERAL

    def _lex_string_literal(self, start_pos: Position) -> MLIRToken:
        text = self.input.content
        if _STRING_LITERAL.match(text, start_pos) is None:
            raise ParseError(Span(start_pos, start_pos + 1, self.input), _unclosed_string(text, start_pos))
        return super()._lex_string_literal(start_pos)


def _unclosed_string(text: str, quote: int) -> str:
    """Why the string literal opened at `quote` does not close."""
    end = _STRING_BODY.match(text, quote + 1)
    stop = text[end.end()] if end is not None and end.end() < len(text) else None
    if stop is None:
        return "end of file reached before closing string literal"
    if stop == "\\":
        return 'invalid escape sequence in string literal (escapes are \\", \\n, \\t, \\\\ and two hex digits)'
    return "end of line reached before closing string literal (string literals do not span lines)"
