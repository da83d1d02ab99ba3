"""`xtir-opt --verify-diagnostics` (MLIR's meaning) and the located diagnostics it rests on.

The lit tests in tests/filecheck/verify_diagnostics/ cover the directives against real
errors; here: notes (which only a broken pass produces), the reading of directives,
and the locations that errors carry as data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

import xtir
from xtir import opt
from xtir.dialects.block import ForOp
from xtir.errors import Diagnostic, SourceLocation, XtirParseError, XtirPassError, XtirVerifyError
from xtir.passes_registry import XTIR_PASSES
from xtir.verify_diagnostics import check_diagnostics, parse_expectations, regex_of


@dataclass(frozen=True)
class BreakPass(ModulePass):
    """A test-only pass that leaves IR that does not verify (an unknown loop kind)."""

    name = "test-break"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loop = next(o for o in op.walk() if isinstance(o, ForOp))
        loop.properties["kind"] = StringAttr("pipelined")


PROGRAM = """\
func.func @main(%A: memref<8xf32>) {
  {directive}
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %A[%vi] : memref<8xf32>
    }
  }
  func.return
}
"""


def run_opt(capsys, tmp_path: Path, directive: str, *args: str) -> tuple[int, str]:
    path = tmp_path / "t.mlir"
    path.write_text(PROGRAM.replace("{directive}", directive))
    status = opt.main([str(path), "--verify-diagnostics", *args])
    return status, capsys.readouterr().err.replace(str(path), "t.mlir")


@pytest.fixture
def broken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(XTIR_PASSES, "test-break", lambda: BreakPass)


def test_error_and_note_on_one_line(capsys, tmp_path, broken) -> None:
    directive = ("// expected-error @+1 {{'block.for' op loop \"i\" has unknown kind \"pipelined\"}} "
                 "expected-note @+1 {{the IR no longer verifies after pass 'test-break'}}")
    assert run_opt(capsys, tmp_path, directive, "-p", "test-break") == (0, "")


def test_unexpected_note(capsys, tmp_path, broken) -> None:
    status, err = run_opt(capsys, tmp_path, "// expected-error @+1 {{has unknown kind}}", "-p", "test-break")
    assert status == 1
    assert err == "t.mlir:3:3: error: unexpected note: the IR no longer verifies after pass 'test-break'\n"


def test_without_the_flag_errors_print_as_before(capsys, tmp_path, broken) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(PROGRAM.replace("{directive}", ""))
    assert opt.main([str(path), "-p", "test-break"]) == 1
    err = capsys.readouterr().err.replace(str(path), "t.mlir")
    assert err.startswith("t.mlir:3:3: error: 'block.for' op loop \"i\" has unknown kind \"pipelined\"")
    assert err.endswith("note: the IR no longer verifies after pass 'test-break'\n")


def test_exit_status(capsys, tmp_path) -> None:
    assert run_opt(capsys, tmp_path, "// no directive") == (0, "")
    status, err = run_opt(capsys, tmp_path, "// expected-error @+1 {{nothing comes}}")
    assert status == 1 and err == 't.mlir:2:6: error: expected error "nothing comes" was not produced on line 3\n'


# Reading directives -------------------------------------------------------------------------------


def test_designators() -> None:
    text = "\n".join([
        "a",                                          # 1
        "// expected-error @below {{one}}",          # 2 -> 4
        "// expected-note@below{{two}}",             # 3 -> 4 (no spaces needed)
        "b",                                          # 4
        "// expected-warning @above {{three}}",      # 5 -> 4
        "c // expected-remark {{four}}",             # 6 -> 6
        "// expected-error @-5 {{five}} expected-error @+3 {{six}}",  # 7 -> 2, 10
        "// expected-error @unknown {{ seven }}",    # 8 -> None, text trimmed
        "// a mention of expected-error in prose",   # 9: not a directive
    ])
    expected, errors = parse_expectations(text, "f.mlir", line_offset=100)
    assert errors == []
    got = [(e.severity, e.text, e.line, e.where.line, e.where.col) for e in expected]
    assert got == [
        ("error", "one", 104, 102, 4),
        ("note", "two", 104, 103, 4),
        ("warning", "three", 104, 105, 4),
        ("remark", "four", 106, 106, 6),
        ("error", "five", 102, 107, 4),
        ("error", "six", 110, 107, 32),
        ("error", "seven", None, 108, 4),
    ]


def test_regex_form() -> None:
    pattern = regex_of("op (@{{[a-z]+}}) has {{[0-9]+}} loops.")
    assert pattern.search("'x' op (@main) has 12 loops.")
    assert not pattern.search("'x' op (@main) has 12 loopsX")  # the '.' outside {{ }} is literal
    assert not pattern.search("'x' op @main has 12 loops.")  # so are the parentheses
    (e,), _ = parse_expectations("// expected-error-re {{a {{b+}} c}}", "f.mlir")
    assert e.matches("x a bbb c y") and not e.matches("a {{b+}} c")


def test_matching() -> None:
    expected, _ = parse_expectations("x // expected-error {{boom}} expected-error {{boom}}", "f.mlir")
    loc = SourceLocation("f.mlir", 1, 1)
    one = [Diagnostic("error", "it went boom", loc)]
    assert check_diagnostics(one, expected, "f.mlir") == [
        'f.mlir:1:30: error: expected error "boom" was not produced'
    ]
    for e in expected:
        e.matched = False
    assert check_diagnostics(one * 2, expected, "f.mlir") == []
    elsewhere = [Diagnostic("error", "boom", SourceLocation("other.mlir", 1, 1))]
    for e in expected:
        e.matched = False
    assert check_diagnostics(elsewhere, expected[:1], "f.mlir") == [
        'f.mlir:1:6: error: expected error "boom" was not produced',
        "other.mlir:1:1: error: unexpected error: boom",
    ]


# Errors carry their location as data ---------------------------------------------------------------


def test_parse_error_location() -> None:
    with pytest.raises(XtirParseError) as info:
        xtir.parse("func.func @f() {\n  block.for %i = 1 to 8 \"i\" {\n  }\n  func.return\n}", "in.mlir")
    assert info.value.location == SourceLocation("in.mlir", 2, 18)
    assert info.value.message.startswith("block.for loops start at 0")


def test_verify_error_location() -> None:
    with pytest.raises(XtirVerifyError) as info:
        xtir.parse("func.func @f() {\n  block.for %i = 0 to 0 \"i\" {\n  }\n  func.return\n}", "in.mlir")
    assert info.value.location == SourceLocation("in.mlir", 2, 3)
    assert info.value.message == "'block.for' op loop \"i\" has extent 0; extents must be positive"
    assert info.value.diagnostics == [Diagnostic("error", info.value.message, info.value.location)]


def test_pass_error_location() -> None:
    module = xtir.parse(PROGRAM.replace("{directive}", ""), "in.mlir")
    with pytest.raises(XtirPassError) as info:
        xtir.transform(module, "split{loop=i factors=3,2}")
    assert info.value.location == SourceLocation("in.mlir", 3, 3)
    assert info.value.message.startswith("'block.for' op split: the product of factors (6)")
    with pytest.raises(XtirPassError) as info:
        xtir.transform(module, "split{loop=nope factors=2,4}")
    assert info.value.location == SourceLocation("in.mlir", 1, 1)  # a bad handle: at the function
