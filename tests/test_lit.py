"""Runs every lit/FileCheck test under tests/filecheck, one pytest test per file."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIT_FILES = sorted((ROOT / "tests" / "filecheck").rglob("*.mlir"))


@pytest.mark.parametrize("path", LIT_FILES, ids=[str(p.relative_to(ROOT / "tests" / "filecheck")) for p in LIT_FILES])
def test_lit(path: Path) -> None:
    lit = Path(sys.executable).parent / "lit"
    result = subprocess.run([str(lit), "-v", str(path)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
