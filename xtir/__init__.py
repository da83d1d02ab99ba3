"""xtir: a schedulable tensor compiler (TensorIR-style) built on xDSL."""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from xtir.context import make_context
from xtir.diagnostics import parse_module
from xtir.errors import XtirError, XtirEvaluationError, XtirParseError, XtirPassError, XtirVerifyError
from xtir.evaluate import evaluate

__all__ = [
    "XtirError",
    "XtirEvaluationError",
    "XtirParseError",
    "XtirPassError",
    "XtirVerifyError",
    "evaluate",
    "parse",
    "parse_file",
]


def parse(text: str, name: str = "<string>") -> ModuleOp:
    """Parse xtir IR text into a verified module (XtirParseError / XtirVerifyError otherwise)."""
    return parse_module(make_context(), text, name)


def parse_file(path: str | Path) -> ModuleOp:
    path = Path(path)
    return parse(path.read_text(), str(path))
