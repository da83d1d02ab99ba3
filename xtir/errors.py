"""The exceptions of xtir under their public path (`xtir.errors.XtirPassError`); they live in
xtir/support/errors.py, the bottom layer."""

from xtir.support.errors import (
    LoweringError,
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
from xtir.support.locations import Diagnostic, LocatedText, SourceLocation

__all__ = [
    "Diagnostic",
    "LocatedText",
    "LoweringError",
    "ScheduleError",
    "SourceLocation",
    "XtirError",
    "XtirEvaluationError",
    "XtirImportError",
    "XtirNumericsError",
    "XtirParseError",
    "XtirPassError",
    "XtirVerifyError",
    "XtirWarning",
    "expect_module",
]
