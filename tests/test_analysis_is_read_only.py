"""passes/analysis/ only reads the IR: it imports no transform utility and calls no IR surgery
(docs/architecture.md, "Analyses and transform utilities")."""

import ast
from pathlib import Path

import pytest

ANALYSIS = Path(__file__).resolve().parent.parent / "passes" / "analysis"
SURGERY = {"detach", "erase", "erase_op", "insert_op", "insert_op_before", "insert_op_after", "add_op", "add_ops",
           "replace_op", "replace_all_uses_with", "detach_region"}


@pytest.mark.parametrize("path", sorted(ANALYSIS.glob("*.py")), ids=lambda p: p.name)
def test_analysis_module_does_not_change_the_ir(path: Path) -> None:
    tree = ast.parse(path.read_text())
    imports = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    assert not [m for m in imports if m.startswith("xtir.passes.transforms") or m == "xdsl.rewriter"], path.name
    calls = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
    assert not calls & SURGERY, f"{path.name} calls {sorted(calls & SURGERY)}"
