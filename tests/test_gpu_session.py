"""What a session with a GPU runs (benchmarks/gpu_session.sh), checked without one: its GPU step
selects every test that skips for want of a GPU, and benchmarks/gpu_matmul.py's parent process
gives every schedule a row: one that fails, kills its process, hangs it or leaves its CUDA
context unusable gets a row saying so, and the schedules after it are still measured (in a new
child). The child here is a stand-in script that plays those failures."""

from __future__ import annotations

import importlib
import re
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


ROOT = Path(__file__).resolve().parent.parent


def _session_variable(name: str) -> str:
    return re.search(rf"^{name}=(.*)$", (ROOT / "benchmarks" / "gpu_session.sh").read_text(), re.M).group(1)


def test_the_gpu_step_selects_every_test_that_needs_a_gpu() -> None:
    """A test skipped for want of a GPU (a skipif mark whose reason says GPU) must be in the GPU
    step's -k expression (`a or b or ...`: names containing one of them), or the one session
    with a GPU never runs it."""
    selected = _session_variable("GPU_TESTS").strip('"').split(" or ")
    files = _session_variable("GPU_FILES").strip("()").split()
    modules = {path for pattern in files for path in ROOT.glob(pattern)}
    needs_gpu = []
    for path in sorted(modules):
        module = importlib.import_module(f"tests.{path.stem}")
        for name, test in vars(module).items():
            marks = getattr(test, "pytestmark", []) if name.startswith("test_") else []
            if any(m.name == "skipif" and "GPU" in m.kwargs.get("reason", "") and "GPU is usable" not in
                   m.kwargs.get("reason", "") for m in marks):
                needs_gpu.append(name)
    assert len(needs_gpu) >= 8
    assert [name for name in needs_gpu if not any(word in name for word in selected)] == []


@pytest.mark.parametrize("name", [name for name in gpu_matmul.SCHEDULES if name.startswith("seed")]
                         + ["hand: 128x128 tile, 8x8/thread, double-buffered, A k-major, float4"])
def test_the_benchmark_schedules_lower_at_its_largest_size(name: str) -> None:
    """At n = 4096 the race check between threads has too many points to enumerate: the strides
    must show the threads' tiles apart (each schedule here was refused before)."""
    import seed_gpu

    from xtir.build import lower_to_gpu

    lowered = lower_to_gpu(seed_gpu.scheduled("gpu_matmul.mlir", gpu_matmul.SCHEDULES[name], 4096))
    assert any(op.name == "gpu.launch_func" for op in lowered.walk())
