"""xtir: a schedulable tensor compiler (TensorIR-style) built on xDSL."""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from xtir.build import build
from xtir.context import make_context
from xtir.diagnostics import parse_module
from xtir.errors import (
    XtirError,
    XtirEvaluationError,
    XtirImportError,
    XtirNumericsError,
    XtirParseError,
    XtirPassError,
    XtirVerifyError,
    XtirWarning,
)
from xtir.evaluate import evaluate
from xtir.schedule import BlockRV, LoopRV, Schedule

__all__ = [
    "BlockRV",
    "LoopRV",
    "Schedule",
    "XtirError",
    "XtirEvaluationError",
    "XtirImportError",
    "XtirNumericsError",
    "XtirParseError",
    "XtirPassError",
    "XtirVerifyError",
    "XtirWarning",
    "build",
    "evaluate",
    "parse",
    "parse_file",
    "transform",
]


def parse(text: str, name: str = "<string>") -> ModuleOp:
    """Parse xtir IR text into a verified module (XtirParseError / XtirVerifyError otherwise)."""
    if not isinstance(text, str):
        hint = " (decode bytes first)" if isinstance(text, bytes) else ""
        raise XtirParseError(f"xtir.parse expects IR text (str), got {type(text).__name__}{hint}")
    return parse_module(make_context(), text, name)


def parse_file(path: str | Path) -> ModuleOp:
    from xtir.diagnostics import read_source

    return parse(read_source(path), str(path))


def transform(module: ModuleOp, pipeline: str) -> ModuleOp:
    """Apply an xtir-opt pass pipeline (`-p` syntax) to a copy of `module`; verify the result.

    The input is left untouched; an illegal schedule raises XtirPassError.
    """
    from xdsl.passes import PassPipeline
    from xdsl.utils.exceptions import ArgSpecParseError

    from xtir.diagnostics import verify
    from xtir.errors import expect_module
    from xtir.passes_registry import XTIR_PASSES

    expect_module(module, "xtir.transform", XtirPassError)
    if not isinstance(pipeline, str):
        raise XtirPassError(
            f"xtir.transform expects the pipeline as a string such as 'split{{loop=i factors=-1,16}}', "
            f"got {type(pipeline).__name__}"
        )
    result = module.clone()
    try:
        passes = PassPipeline.parse_spec(XTIR_PASSES, pipeline)
    except (ArgSpecParseError, ValueError) as e:
        raise XtirPassError(f"bad pipeline '{pipeline}': {e}") from None
    ctx = make_context()
    for p in passes.passes:
        p.apply(ctx, result)
        verify(result)
    return result
