"""The exceptions users of xtir can cause; each carries a ready-to-print diagnostic.

`str(error)` is the text to print (`file:line:col: error: ...` with the source line
and a caret). The same diagnostic is also kept as data: `error.location` (a
`SourceLocation`, or None when the error is about no particular place),
`error.message` (the message alone, e.g. `'block.for' op split: ...`) and
`error.notes`; `error.diagnostics` lists the error and its notes as `Diagnostic`s
(what `xtir-opt --verify-diagnostics` matches against `expected-error` lines).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from xtir.support.locations import (
    Diagnostic,
    LocatedText,
    SourceLocation,
    excerpt,
    format_note,
    format_op_error,
)


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


RENDER_LEVELS = ("detail", "fast", "none")
"""TVM's error_render_level values: how much of a ScheduleError its text shows."""


class ScheduleError(XtirPassError):
    """A schedule primitive refused: `op` is what it refused (None: no op, a bad argument), `notes`
    the other ops involved, each with what to say about it (`[(consumer, 'block "C" reads B')]`).

    Passes raise it without their name; the pipeline driver calls `in_pass` to name the pass
    and, where it has the source text, to show each location's line with a caret. A named
    pipeline names the error by its stage first (lowering/pipelines.py), which the driver keeps.
    The Python Schedule heads it as TVM does, with the primitive's name (`in_primitive`):
    `An error occurred in the schedule primitive 'compute-at'.`

    `render` is TVM's error_render_level, what `str(error)` shows: "detail" the headline, the
    diagnostic with its source line and caret, and the notes; "fast" the diagnostic's one line;
    "none" only "(not rendered)". The data (`location`, `message`, `notes`) are there at every level."""

    def __init__(self, op: Operation | None, message: str, notes: Sequence[tuple[Operation, str]] = (), *,
                 pass_name: str | None = None, source: str | None = None, line_offset: int = 0,
                 primitive: str | None = None, location: SourceLocation | None = None, render: str = "detail"):
        self.op, self.reason, self.related = op, message, list(notes)
        self.pass_name, self.primitive, self._source = pass_name, primitive, (source, line_offset)
        self._location, self.render = location, render
        named = f"{pass_name}: {message}" if pass_name else message
        error = (format_op_error(op, named, source, line_offset) if op is not None
                 else _op_less(named, location, source, line_offset))
        rendered = [format_note(at, text, source, line_offset) for at, text in self.related]
        head = [f"An error occurred in the schedule primitive '{primitive}'."] if primitive else []
        text = {"detail": lambda: "\n".join([*head, error, *rendered]),
                "fast": lambda: str(Diagnostic("error", error.message, error.location)),
                "none": lambda: "(not rendered)"}[render]()
        super().__init__(text, location=error.location, message=error.message,
                         notes=[Diagnostic("note", note.message, note.location) for note in rendered])

    def in_pass(self, pass_name: str, source: str | None = None, line_offset: int = 0) -> ScheduleError:
        """The same error, naming the pass that raised it (unless a stage inside it is named
        already) and showing source lines."""
        return type(self)(self.op, self.reason, self.related, pass_name=self.pass_name or pass_name, source=source,
                          line_offset=line_offset, primitive=self.primitive, location=self._location,
                          render=self.render)

    def in_primitive(self, primitive: str, render: str = "detail", source: str | None = None, line_offset: int = 0,
                     fallback: SourceLocation | None = None) -> ScheduleError:
        """The same error, headed by the schedule primitive that raised it (unless one heads it
        already) and rendered at level `render`. `source` shows the lines where the error has no
        source text yet; `fallback` locates an error about no op (a bad argument) that has no
        location: where the op the primitive was given is."""
        if self.primitive is not None:
            return self
        own_source, own_offset = self._source
        if own_source is not None:
            source, line_offset = own_source, own_offset
        location = self._location if self._location is not None or self.op is not None else fallback
        return type(self)(self.op, self.reason, self.related, pass_name=self.pass_name, source=source,
                          line_offset=line_offset, primitive=primitive, location=location, render=render)

    def __reduce__(self):  # the ops stay behind: what crosses a process boundary is the text
        return (XtirPassError, (LocatedText(str(self), self.message, self.location),))


def _op_less(message: str, location: SourceLocation | None, source: str | None, line_offset: int) -> LocatedText:
    """The error line of a refusal about no op (a bad argument), at `location` (with its source
    line and a caret) if it has one."""
    if location is None:
        return LocatedText(f"error: {message}", message, None)
    return LocatedText(f"{location}: error: {message}{excerpt(location, source, line_offset)}", message, location)


class LoweringError(ScheduleError):
    """A lowering pass refused its input (`op`, why, `notes`): the same diagnostic as a schedule
    primitive's, named and located by the pipeline driver."""


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


def closest(name: str, known: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The known name closest to a misspelled `name`; None when none is `cutoff` similar (difflib's ratio)."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`; did you mean 'X'?` naming the known name closest to `name`, or "" when none is close."""
    return f"; did you mean '{near}'?" if (near := closest(name, known)) is not None else ""
