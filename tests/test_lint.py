"""The code passes ruff (configured in pyproject.toml)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean() -> None:
    ruff = Path(sys.executable).parent / "ruff"
    result = subprocess.run([str(ruff), "check", str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:]
