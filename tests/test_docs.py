"""The documentation under docs/ stays true: the pass pages match the passes' docstrings, and
every xtir-opt / xtir-run / python command of the tutorial runs."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
import gen_pass_docs  # noqa: E402


def test_pass_pages_are_generated_from_the_current_docstrings() -> None:
    stale = [
        str(path.relative_to(ROOT))
        for path, text in gen_pass_docs.expected_pages().items()
        if not path.exists() or path.read_text() != text
    ]
    assert not stale, f"regenerate with `python docs/gen_pass_docs.py`: {stale}"


def tutorial_commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "docs" / "tutorial.md").read_text(), re.S)
    commands = [line for block in blocks for line in block.splitlines() if line.strip()]
    return [c for c in commands if re.match(r"(! )?(xtir-opt|xtir-run|xtir-translate|python|sh) ", c)]


def test_the_tutorial_has_commands() -> None:
    assert len(tutorial_commands()) >= 8


@pytest.mark.parametrize("command", tutorial_commands())
def test_tutorial_command_runs(command: str) -> None:
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(command, shell=True, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr


def pass_page_commands() -> list[str]:
    pages = sorted((ROOT / "docs" / "passes").glob("*.md"))
    blocks = [block for page in pages for block in re.findall(r"```sh\n(.*?)```", page.read_text(), re.S)]
    return [line for block in blocks for line in block.splitlines() if line.startswith("xtir-opt ")]


@pytest.mark.parametrize("command", pass_page_commands())
def test_pass_page_command_runs(command: str) -> None:
    """The command each pass page shows runs as printed (a lit test split into cases needs
    --split-input-file); in this process, as the pages are many."""
    from xtir.opt import main as xtir_opt

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert xtir_opt([*shlex.split(command)[1:], "-o", os.devnull]) == 0
    finally:
        os.chdir(cwd)


def test_demo_runs_small() -> None:
    result = subprocess.run(
        [sys.executable, "examples/demo.py", "--n", "64", "--quiet"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "GFLOP/s" in result.stdout and "× numpy" in result.stdout


def test_from_tvm_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/from_tvm.md's example, a TVM schedule script with its import changed, runs as printed."""
    (block,) = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "from_tvm.md").read_text(), re.S)
    exec(compile(block, "docs/from_tvm.md", "exec"), {})
    assert 'with T.block("C_update"):' in capsys.readouterr().out
