"""benchmarks/gpu_matmul.py's parent process, without a GPU: a schedule that fails, kills its
process, hangs it or leaves its CUDA context unusable gets a row saying so, and the schedules
after it are still measured (in a new child). The child here is a stand-in script that plays
those failures."""

from __future__ import annotations

import sys
from pathlib import Path

import gpu_matmul
import pytest

STAND_IN = """import os, sys, time
print("| cuBLAS (stand-in) | 1.0 |", flush=True)
for name in sys.argv[1:]:
    if name == "crashes":
        os._exit(9)
    if name == "hangs":
        time.sleep(60)
    if name == "loses the context":
        print("| loses the context | failed: CUDARuntimeError: cudaErrorIllegalAddress |", flush=True)
        sys.exit(75)
    print(f"| {name} | 1.0 |", flush=True)
"""


def test_every_schedule_gets_a_row_whatever_the_others_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "child.py"
    script.write_text(STAND_IN)
    monkeypatch.setattr(gpu_matmul, "SECONDS_PER_SCHEDULE", 2)
    schedules = ["a", "crashes", "b", "loses the context", "c", "hangs", "d"]
    assert gpu_matmul.run_isolated(schedules, lambda names: [sys.executable, str(script), *names])
    rows = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("| cuBLAS")]
    assert rows == ["| a | 1.0 |",
                    "| crashes | failed: its process died (exit 9); see stderr |  |  |  |  |",
                    "| b | 1.0 |",
                    "| loses the context | failed: CUDARuntimeError: cudaErrorIllegalAddress |",
                    "| c | 1.0 |",
                    "| hangs | failed: hung: killed; see stderr |  |  |  |  |",
                    "| d | 1.0 |"]


def test_no_gpu_stops_after_the_first_child(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "child.py"
    script.write_text(f"print({gpu_matmul.NOT_RUN!r} + ': no GPU')")
    assert not gpu_matmul.run_isolated(["a", "b"], lambda names: [sys.executable, str(script), *names])
    assert capsys.readouterr().out == f"{gpu_matmul.NOT_RUN}: no GPU\n"
