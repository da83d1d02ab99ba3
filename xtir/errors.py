"""The exceptions users of xtir can cause; each carries a ready-to-print diagnostic."""


class XtirError(Exception):
    """Base of every error a user of xtir can cause (bad IR, illegal schedule, bad arguments)."""

    @property
    def diagnostic(self) -> str:
        return str(self)


class XtirParseError(XtirError):
    """The text is not valid xtir IR."""


class XtirVerifyError(XtirError):
    """The IR parses but breaks a structural rule of its dialect."""


class XtirPassError(XtirError):
    """A pass (schedule primitive) refused its input; the IR is unchanged."""


class XtirEvaluationError(XtirError):
    """The reference evaluator could not run the program (bad arguments, out-of-bounds access)."""
