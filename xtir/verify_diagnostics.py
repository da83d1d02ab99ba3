"""`xtir-opt --verify-diagnostics`: check the diagnostics of a run against `expected-*` comments, as MLIR does.

    // expected-error @+1 {{'block.for' op split: the product of factors (992) is smaller}}
    block.for %i = 0 to 1000 "i" {

A directive is `expected-KIND[-re] [@WHERE] {{TEXT}}`, KIND one of error, warning,
note, remark. WHERE says which line the diagnostic is on: none (this line), `@+N` /
`@-N` (N lines below / above), `@below` / `@above` (the nearest line below / above
that holds no directive), `@unknown` (a diagnostic with no location). TEXT must occur
in the diagnostic's message; with `-re`, the parts of TEXT inside `{{ }}` are regular
expressions (Python syntax) and the rest is literal. A line may hold several
directives. Lines are lines of the input file, also with `--split-input-file`, whose
chunks are checked separately: a chunk's diagnostics against its own directives.

Every diagnostic must match a directive of its kind on its line, and every directive
a diagnostic; the failures name the `file:line:col` of the directive or diagnostic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xtir.errors import Diagnostic, SourceLocation

SEVERITIES = ("error", "warning", "note", "remark")

# Where a directive starts: `expected-error`, `expected-note-re`, ... followed by `@` or `{{`
# (a mention in prose, "a missing expected-error fails", is not a directive).
_DIRECTIVE = re.compile(r"expected-(error|warning|note|remark)(-re)?(?=\s*[@{])")
_WHERE = re.compile(r"\s*(?:@\s*([+-]\d+|above|below|unknown)\b)?\s*\{\{")


@dataclass
class Expected:
    """One `expected-*` directive."""

    severity: str
    text: str
    where: SourceLocation
    """Where the directive itself is written."""
    line: int | None = None
    """The line the diagnostic is expected on; None for @unknown."""
    pattern: re.Pattern[str] | None = None
    matched: bool = field(default=False, compare=False)

    def matches(self, message: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message

    def describe(self) -> str:
        kind = self.severity + ("-re" if self.pattern is not None else "")
        return f'expected-{kind} {{{{{self.text}}}}}'


def regex_of(text: str) -> re.Pattern[str]:
    """The `-re` form: `{{...}}` parts are regexes, the rest literal (MLIR's rule)."""
    parts = []
    rest = text
    while (start := rest.find("{{")) != -1:
        end = rest.find("}}", start + 2)
        if end == -1:
            raise ValueError("a '{{' without its closing '}}'")
        parts.append(re.escape(rest[:start]))
        parts.append(f"(?:{rest[start + 2:end]})")
        rest = rest[end + 2:]
    parts.append(re.escape(rest))
    return re.compile("".join(parts))


def parse_expectations(text: str, file: str, line_offset: int = 0) -> tuple[list[Expected], list[str]]:
    """The directives of a chunk (its lines are file lines `line_offset + 1`, ...), and an
    error for each malformed one."""
    expected: list[Expected] = []
    errors: list[str] = []
    pending_below: list[Expected] = []
    last_plain: int | None = None  # the last line with no directive
    lines = text.split("\n")
    for k, line in enumerate(lines, start=1):
        number = k + line_offset
        starts = list(_DIRECTIVE.finditer(line))
        if not starts:
            for e in pending_below:
                e.line = number
            pending_below.clear()
            last_plain = number
            continue
        for m, following in zip(starts, [*starts[1:], None]):
            where = SourceLocation(file, number, m.start() + 1)
            segment = line[m.end(): following.start() if following else len(line)]
            spec = _WHERE.match(segment)
            close = segment.rfind("}}")
            if spec is None or close < spec.end():
                errors.append(f"{where}: error: malformed {m.group(0)} directive: "
                              "expected `[@+N|@-N|@above|@below|@unknown] {{text}}`")
                continue
            if segment[close + 2:].strip():
                errors.append(f"{where}: error: malformed {m.group(0)} directive: text after the closing '}}}}'")
                continue
            body = segment[spec.end(): close].strip()
            item = Expected(m.group(1), body, where)
            if m.group(2):
                try:
                    item.pattern = regex_of(body)
                except (ValueError, re.error) as e:
                    errors.append(f"{where}: error: bad regular expression in {m.group(0)}: {e}")
                    continue
            at = spec.group(1)
            if at is None:
                item.line = number
            elif at == "unknown":
                item.line = None
            elif at == "above":
                if last_plain is None:
                    errors.append(f"{where}: error: {m.group(0)} @above: no line without a directive above it")
                    continue
                item.line = last_plain
            elif at == "below":
                pending_below.append(item)
            else:
                item.line = number + int(at)
                if item.line < 1:
                    errors.append(f"{where}: error: {m.group(0)} @{at} points before the first line of the file")
                    continue
            expected.append(item)
    for e in pending_below:
        errors.append(f"{e.where}: error: expected-{e.severity} @below: no line without a directive below it")
        expected.remove(e)
    return expected, errors


def check_diagnostics(
    diagnostics: list[Diagnostic], expected: list[Expected], file: str, chunk_line: int = 1
) -> list[str]:
    """Match diagnostics with directives; the failures, as `file:line:col: error: ...` lines.

    `chunk_line` is the chunk's first line, named when a diagnostic without a location
    is unexpected."""
    failures: list[tuple[tuple[int, int, int], str]] = []  # sorted by (other file?, line, col)
    for d in diagnostics:
        loc = d.location
        if loc is None:
            candidates = [e for e in expected if e.line is None]
        elif loc.file == file:
            candidates = [e for e in expected if e.line == loc.line]
        else:
            candidates = []
        same_text = [e for e in candidates if e.matches(d.message)]
        hits = [e for e in same_text if e.severity == d.severity]
        if hits:
            (next((e for e in hits if not e.matched), hits[0])).matched = True
            continue
        if loc is not None:
            where, what, key = str(loc), f"unexpected {d.severity}", (int(loc.file != file), loc.line, loc.col)
        else:
            where, key = f"{file}:{chunk_line}", (0, chunk_line, 0)
            what = f"unexpected {d.severity} with no location (in the input from line {chunk_line})"
        hint = ""
        if same_text:
            hint = f" (the expected-{same_text[0].severity} at {same_text[0].where} has its text: wrong kind?)"
        elif loc is None:
            hint = f" (expect it with `expected-{d.severity} @unknown {{{{...}}}}`)"
        failures.append((key, f"{where}: error: {what}: {d.message}{hint}"))
    for e in expected:
        if e.matched:
            continue
        target = ("at an unknown location" if e.line is None
                  else "" if e.line == e.where.line else f"on line {e.line}")
        failures.append(((0, e.where.line, e.where.col),
                         f"{e.where}: error: expected {e.severity} \"{e.text}\" was not produced"
                         + (f" {target}" if target else "")))
    return [text for _, text in sorted(failures, key=lambda f: f[0])]


_LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note|remark): (?P<msg>.*)$")
_UNLOCATED = re.compile(r"^(?P<sev>error|warning|note|remark): (?P<msg>.*)$")


def diagnostics_from_text(text: str) -> list[Diagnostic]:
    """Diagnostics read back from printed text (`file:line:col: error: ...` lines and
    `note: ...` lines): for errors that do not carry them as data. The source lines and
    carets between them are left out; a note with no location of its own is at the
    location of the diagnostic before it (as MLIR's notes are)."""
    found: list[Diagnostic] = []
    for line in text.splitlines():
        if m := _LOCATED.match(line):
            loc = SourceLocation(m["file"], int(m["line"]), int(m["col"]))
            found.append(Diagnostic(m["sev"], m["msg"], loc))
        elif m := _UNLOCATED.match(line):
            loc = found[-1].location if found and m["sev"] == "note" else None
            found.append(Diagnostic(m["sev"], m["msg"], loc))
    return found or [Diagnostic("error", text.strip(), None)]
