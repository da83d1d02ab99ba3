"""Shared helpers for the tests: the examples directory and small versions of examples.

The reference evaluator is an interpreter (~10 µs per op), so the 1024-sized examples
are evaluated on scaled-down copies made by substituting size tokens in their text.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# The benchmark scripts import their neighbours by name (fair_threads), as run from there;
# tests load them by path. Last on the path: no test module is shadowed.
sys.path.append(str(ROOT / "benchmarks"))

# String literals and comments are copied unchanged (block names such as "tmm-16x16",
# storage scopes, comments); sizes are only replaced in the code between them.
_VERBATIM = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*')
# A shaped type: `memref<1024x1024xf32, ...>`; its leading `NxNx` is the shape.
_SHAPE = re.compile(r"\b(?:memref|tensor|vector)<((?:\d+x)+)")


def _integer_token(keys: list[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True))
    # A whole integer literal: not part of a name (%v1024, @f64, i64, ^bb1, #map1, x_64),
    # of a float (1.64, 64.0, 1.0e+64) or of a longer number (10240, 11024).
    return re.compile(rf"(?<![\w.%@#^$!])(?<![eE][+-])(?:{alternatives})(?![\w.])")


def substitute_sizes(text: str, sizes: Mapping[str, str]) -> tuple[str, dict[str, int]]:
    """Replace integer tokens exactly (`"1024" -> "32"`) in shapes and integer literals.

    Returns the new text and how many times each key was replaced. All keys are
    replaced in one pass, so a mapping like {"1024": "64", "64": "2"} does not chain.
    """
    for key, value in sizes.items():
        if not (key.isdigit() and value.isdigit()):
            raise ValueError(f"sizes must map integer literals to integer literals, got {key!r}: {value!r}")
    if not sizes:
        return text, {}
    token = _integer_token(list(sizes))
    counts = dict.fromkeys(sizes, 0)

    def replace_token(m: re.Match[str]) -> str:
        counts[m.group(0)] += 1
        return sizes[m.group(0)]

    def replace_dims(m: re.Match[str]) -> str:
        dims = m.group(1).split("x")[:-1]
        new = []
        for d in dims:
            if d in sizes:
                counts[d] += 1
                d = sizes[d]
            new.append(d)
        return m.group(0)[: m.start(1) - m.start(0)] + "x".join(new) + "x"

    def replace_code(code: str) -> str:
        # shapes first, protected from the integer pass by splitting around them
        out, pos = [], 0
        for m in _SHAPE.finditer(code):
            out.append(token.sub(replace_token, code[pos : m.start()]))
            out.append(replace_dims(m))
            pos = m.end()
        out.append(token.sub(replace_token, code[pos:]))
        return "".join(out)

    out, pos = [], 0
    for m in _VERBATIM.finditer(text):
        out.append(replace_code(text[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(replace_code(text[pos:]))
    return "".join(out), counts


def scaled_example_text(name: str, sizes: Mapping[str, str]) -> str:
    """The text of examples/<name>.mlir with sizes substituted; every key must occur."""
    text = (EXAMPLES / f"{name}.mlir").read_text()
    new, counts = substitute_sizes(text, sizes)
    missing = [k for k, n in counts.items() if n == 0]
    if missing:
        raise ValueError(f"examples/{name}.mlir has no size token {', '.join(missing)}")
    return new


def scaled_example(name: str, sizes: Mapping[str, str]) -> ModuleOp:
    """examples/<name>.mlir with sizes substituted, parsed and verified."""
    return xtir.parse(scaled_example_text(name, sizes), f"examples/{name}.mlir (scaled {dict(sizes)})")


@pytest.fixture
def scaled() -> Callable[[str, Mapping[str, str]], ModuleOp]:
    return scaled_example


@pytest.fixture
def scaled_text() -> Callable[[str, Mapping[str, str]], str]:
    return scaled_example_text


@pytest.fixture
def substitute() -> Callable[[str, Mapping[str, str]], tuple[str, dict[str, int]]]:
    return substitute_sizes
