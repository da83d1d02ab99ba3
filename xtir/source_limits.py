"""Limits xtir puts on input text before xDSL's parser sees it, and the lexer fix they rely on.

xDSL's parser, printer, verifier and xtir's passes recurse once or more per nesting level
(a `block.for` costs about 8 Python frames to parse, a parenthesis about 3), so input
nested deep enough ends in a RecursionError. `too_deep` finds, in one linear scan, the
first bracket that opens a level past the limits below. Within them, parsing needs fewer
than 2000 frames (it runs under `recursion_room`) and every later stage (printing, passes,
lowering, the evaluator) about 800 at most, inside Python's default limit of 1000.

Types and attributes nest without brackets the scan counts (`tuple<tuple<...>>`, or type
aliases each wrapping the last), so `too_deep_attribute` checks the parsed module: at most
`MAX_ATTRIBUTE_NESTING` levels, where printing, hashing and lowering them stays well inside
the recursion limit at any region depth the scan lets through.

`LinearLexer` is xDSL's MLIR lexer with a string-literal pattern that cannot backtrack:
xDSL 0.74's pattern nests quantifiers (`(?:[^"...]+|...)*`), so an unterminated literal
followed by n characters on its line takes O(2^n) steps (40 characters: hours).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.ir import Attribute, Data, Operation, ParametrizedAttribute
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken

MAX_REGION_NESTING = 128
"""Most `{` levels (regions, attribute dictionaries) open at once."""
MAX_BRACKET_NESTING = 256
"""Most `(` and `[` levels open at once (index expressions, operand lists)."""
MAX_ATTRIBUTE_NESTING = 64
"""Most levels of types and attributes inside one another: `tuple<tuple<f32>>` has two
(the list of a type's parameters is not a level of its own; a function's argument types
are one level inside its signature, a function type)."""
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


def too_deep_attribute(root: Operation) -> Operation | None:
    """The first op under `root` (in walk order) whose types or attributes nest past
    MAX_ATTRIBUTE_NESTING, or None. The walk over the attributes is iterative: it must not
    itself run out of stack on the input it refuses."""
    for op in root.walk():
        if _depth_exceeds(_attributes_of(op), MAX_ATTRIBUTE_NESTING):
            return op
    return None


def _attributes_of(op: Operation) -> list[Attribute]:
    """What an op holds: result types, block argument types, attributes and properties."""
    types = [r.type for r in op.results]
    types += [arg.type for region in op.regions for block in region.blocks for arg in block.args]
    return [*types, *op.attributes.values(), *op.properties.values()]


def _depth_exceeds(roots: list[Attribute], limit: int) -> bool:
    """Whether some attribute sits more than `limit` levels inside one of the roots.

    Attributes are shared (type aliases name one object used many times), so an attribute is
    walked again only when reached at a deeper level than before; the walk stays linear in
    the number of distinct attributes times the limit, not exponential in the aliases."""
    deepest: dict[int, int] = {}
    stack = [(attr, 0) for attr in roots]
    while stack:
        attr, level = stack.pop()
        if level > limit:
            return True
        if deepest.get(id(attr), -1) >= level:
            continue
        deepest[id(attr)] = level
        stack.extend((child, level + 1) for child in _children(attr))
    return False


def _children(attr: Attribute) -> list[Attribute]:
    """The attributes and types directly inside `attr`. A type's parameter lists (`tuple<a, b>`
    keeps [a, b] in an ArrayAttr) are looked through, and plain values (the IntAttr of a
    width, a StringAttr) left out, since neither is written as a level of its own."""
    if isinstance(attr, ParametrizedAttribute):
        children: list[Attribute] = []
        for param in attr.parameters:
            contents = _contents(param) if isinstance(param, Data) else None
            children.extend(contents if contents is not None else [param] if isinstance(param, Attribute) else [])
    else:
        children = (_contents(attr) or []) if isinstance(attr, Data) else []
    return [c for c in children if not isinstance(c, Data) or _contents(c) is not None]


def _contents(attr: Data) -> list[Attribute] | None:  # type: ignore[type-arg]
    """The elements of a container attribute (ArrayAttr, DictionaryAttr); None for others."""
    data = attr.data
    if isinstance(data, dict):
        data = tuple(data.values())
    if isinstance(data, tuple | list):
        return [x for x in data if isinstance(x, Attribute)]
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
