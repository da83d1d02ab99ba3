"""xtir: a schedulable tensor compiler (TensorIR-style) built on xDSL."""

from __future__ import annotations

import sys
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp

from xtir.support.errors import (
    ScheduleError,
    XtirError,
    XtirEvaluationError,
    XtirImportError,
    XtirNumericsError,
    XtirParseError,
    XtirPassError,
    XtirVerifyError,
    XtirWarning,
    expect_module,
)
from xtir.support.threads import install_implicit_builder_hook

install_implicit_builder_hook()  # before any parse or build, from any thread

if TYPE_CHECKING:
    from xtir.build import build
    from xtir.evaluate import evaluate
    from xtir.schedule import BlockRV, LoopRV, SBlockRV, Schedule
    from xtir.script import script
    from xtir.tune.tuner import tune

# The front door re-exports lazily: importing any xtir module (xtir.dialects.block, say) runs
# this file first, which must not load the schedule, build and evaluator code with it.
_LAZY = {
    "BlockRV": "xtir.schedule",
    "LoopRV": "xtir.schedule",
    "SBlockRV": "xtir.schedule",
    "Schedule": "xtir.schedule",
    "build": "xtir.build",
    "evaluate": "xtir.evaluate",
    "script": "xtir.script",
    "tune": "xtir.tune.tuner",
}


class _FrontDoor(ModuleType):
    """Keeps `xtir.build`, `xtir.evaluate`, `xtir.script` and `xtir.tune` the functions: importing the submodule of the same
    name (xtir/build.py, later and from anywhere) would rebind the package's attribute to it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if not (name in _LAZY and isinstance(value, ModuleType)):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _FrontDoor


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'xtir' has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "BlockRV",
    "LoopRV",
    "SBlockRV",
    "Schedule",
    "ScheduleError",
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
    "script",
    "transform",
    "tune",
]


def parse(text: str, name: str = "<string>") -> ModuleOp:
    """Parse xtir IR text into a verified module (XtirParseError / XtirVerifyError otherwise)."""
    if not isinstance(text, str):
        hint = " (decode bytes first)" if isinstance(text, bytes) else ""
        raise XtirParseError(f"xtir.parse expects IR text (str), got {type(text).__name__}{hint}")
    from xtir.context import make_context
    from xtir.diagnostics import parse_module

    return parse_module(make_context(), text, name)


def parse_file(path: str | Path) -> ModuleOp:
    from xtir.diagnostics import read_source

    return parse(read_source(path), str(path))


def transform(module: ModuleOp, pipeline: str) -> ModuleOp:
    """Apply an xtir-opt pass pipeline (`-p` syntax) to a copy of `module`; verify the result.

    The input is left untouched; an illegal schedule raises XtirPassError.
    """
    from xtir.pipeline import parse_pipeline, run_passes
    from xtir.support.locations import clone_module

    expect_module(module, "xtir.transform", XtirPassError)
    if not isinstance(pipeline, str):
        raise XtirPassError(
            f"xtir.transform expects the pipeline as a string such as 'split{{loop=i factors=-1,16}}', "
            f"got {type(pipeline).__name__}"
        )
    result = clone_module(module)
    run_passes(result, parse_pipeline(pipeline))
    return result
