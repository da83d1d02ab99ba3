"""The exceptions users of xtir can cause; each carries a ready-to-print diagnostic.

`str(error)` is the text to print (`file:line:col: error: ...` with the source line
and a caret). The same diagnostic is also kept as data: `error.location` (a
`SourceLocation`, or None when the error is about no particular place),
`error.message` (the message alone, e.g. `'block.for' op split: ...`) and
`error.notes`; `error.diagnostics` lists the error and its notes as `Diagnostic`s
(what `xtir-opt --verify-diagnostics` matches against `expected-error` lines).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp


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


class XtirError(Exception):
    """Base of every error a user of xtir can cause (bad IR, illegal schedule, bad arguments)."""

    def __init__(
        self,
        text: object = "",
        *,
        location: SourceLocation | None = None,
        message: str | None = None,
        notes: Iterable[Diagnostic] = (),
    ):
        super().__init__(text)
        self.location: SourceLocation | None = location if location is not None else getattr(text, "location", None)
        if message is None:
            message = getattr(text, "message", None)
        self.message: str = message if message is not None else str(text)
        self.notes: list[Diagnostic] = list(notes)

    @property
    def diagnostic(self) -> str:
        return str(self)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """The error and its notes, as data."""
        return [Diagnostic("error", self.message, self.location), *self.notes]


class XtirParseError(XtirError):
    """The text is not valid xtir IR."""


class XtirVerifyError(XtirError):
    """The IR parses but breaks a structural rule of its dialect."""


class XtirPassError(XtirError):
    """A pass (schedule primitive) refused its input; the IR is unchanged."""


class XtirEvaluationError(XtirError):
    """The reference evaluator could not run the program (bad arguments, out-of-bounds access)."""


class XtirImportError(XtirError):
    """A model could not be imported (xtir.frontend): an operator or construct without a mapping."""


class XtirNumericsError(XtirError):
    """`verify_numerics`: a pass changed what the program computes (or the check could not run)."""


class XtirWarning(UserWarning):
    """Something xtir could not do as asked that still gives correct code (a loop marked
    `vectorized` that LLVM did not vectorize)."""


def expect_module(value: object, api: str, error: type[XtirError] = XtirError) -> ModuleOp:
    """`value` if it is a module; else an `error` naming the type `api` expects (the usual
    mistake: IR text that was not parsed first)."""
    if isinstance(value, ModuleOp):
        return value
    hint = "; parse IR text with xtir.parse first" if isinstance(value, str | bytes) else ""
    raise error(f"{api} expects a module (builtin.module, e.g. from xtir.parse), got {type(value).__name__}{hint}")
