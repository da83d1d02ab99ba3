"""The race detector of target "cuda-cpu" (racecheck=True, lowering/cuda_emulation.h): the seed
002 kernels pass it, and each of them without any one of its barriers fails it, every time,
with an XtirError naming the kernel, the __shared__ buffer, the element, the threads and lines."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import gpu, memref

import xtir
from xtir.build import cuda_program, lower_to_gpu
from xtir.errors import XtirError

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("seed_gpu", ROOT / "examples" / "seed_gpu.py")
seed_gpu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seed_gpu)

SIZES = {"vector_add": 256, "window_sum": 256, "gemm_local": 128, "gemm_shared": 128, "gemm_hand": 128}
BARRIERS = {"window_sum": 1, "gemm_shared": 2, "gemm_hand": 2}
RACE = re.compile(r"cuda-cpu racecheck: kernel 'main_kernel', __shared__ '[AB]_shared' element \d+, block \(\d+, \d+, \d+\): "
                  r"thread \(\d+, 0, 0\) (reads|writes) it \(line \d+\) after thread \(\d+, 0, 0\) (wrote|read) it "
                  r"\(line \d+\) with no __syncthreads\(\) in between")


def _seed(name: str) -> xtir.ModuleOp:
    return seed_gpu.scheduled(*seed_gpu.SCHEDULES[name], SIZES[name])


def _data(name: str) -> tuple[list[np.ndarray], np.ndarray]:
    return seed_gpu.inputs(name, SIZES[name], np.random.default_rng(0))


def _without_barrier(name: str, which: int) -> xtir.ModuleOp:
    lowered = lower_to_gpu(_seed(name))
    barriers = [op for op in lowered.walk() if isinstance(op, gpu.BarrierOp)]
    assert len(barriers) == BARRIERS[name]
    barriers[which].detach()
    barriers[which].erase()
    return lowered


@pytest.mark.parametrize("name", SIZES)
def test_seed_kernels_pass_the_race_detector(name: str) -> None:
    arrays, expected = _data(name)
    xtir.build(_seed(name), target="cuda-cpu", racecheck=True)(*arrays)
    np.testing.assert_allclose(arrays[-1], expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("name", "which"), [(n, k) for n, count in BARRIERS.items() for k in range(count)])
def test_a_missing_barrier_is_a_reported_race(name: str, which: int) -> None:
    f = xtir.build(_without_barrier(name, which), target="cuda-cpu", racecheck=True)
    messages = []
    for _ in range(2):  # deterministic: the same report every time
        with pytest.raises(XtirError) as caught:
            f(*_data(name)[0])
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert RACE.match(messages[0]), messages[0]
    quoted = re.findall(r"kernel\.cu:(\d+): (.*)", messages[0])
    lines = f.cuda_source.splitlines()
    assert quoted and all(lines[int(n) - 1].strip() == text for n, text in quoted)
    assert all("XTIR_SHARED" in text for _, text in quoted)


def test_a_read_of_shared_memory_no_thread_wrote_is_reported() -> None:
    lowered = lower_to_gpu(_seed("window_sum"))
    for op in [op for op in lowered.walk() if isinstance(op, memref.StoreOp) and "shared" in str(op.memref.type)]:
        op.detach()
        op.erase()
    with pytest.raises(XtirError, match=r"__shared__ 'A_shared' element \d+, block \(0, 0, 0\): thread \(\d+, 0, 0\) "
                                        r"reads it \(line \d+\) before any thread of the block has written it"):
        xtir.build(lowered, target="cuda-cpu", racecheck=True)(*_data("window_sum")[0])


def test_racecheck_source_keeps_the_lines_of_the_plain_one() -> None:
    """The default source has no checked accesses (nvcc compiles it; cuda-cpu runs it as fast as
    before); the checked one differs only in the __shared__ and global accesses, line for line."""
    module = _seed("gemm_hand")
    plain, checked = cuda_program(module).source, cuda_program(module, racecheck=True).source
    assert "XTIR_" not in plain and "XTIR_SHARED" in checked and "XTIR_GLOBAL" in checked
    plain_lines, checked_lines = plain.splitlines(), checked.splitlines()
    assert len(plain_lines) == len(checked_lines)
    differ = [(p, c) for p, c in zip(plain_lines, checked_lines) if p != c]
    assert differ and all(re.search(r"\bC\b|_shared", p) and "XTIR_" in c for p, c in differ)
    assert not re.search(r"XTIR_GLOBAL\([AB]\b", checked)  # inputs only read cannot race


def test_racecheck_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XTIR_CUDA_RACECHECK", "1")
    assert xtir.build(_seed("window_sum"), target="cuda-cpu").program.racecheck
    assert not xtir.build(_seed("window_sum"), target="cuda-cpu", racecheck=False).program.racecheck
    monkeypatch.setenv("XTIR_CUDA_RACECHECK", "0")
    assert not xtir.build(_seed("window_sum"), target="cuda-cpu").program.racecheck


@pytest.mark.parametrize("target", ["llvm", "cuda"])
def test_racecheck_is_for_the_emulation_only(target: str) -> None:
    with pytest.raises(XtirError, match=f"racecheck=True is for target 'cuda-cpu'.*target '{target}' has no race detector"):
        xtir.build(_seed("vector_add"), target=target, racecheck=True)


def test_xtir_run_racecheck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from xtir.run import main

    good, racy = tmp_path / "window_sum.mlir", tmp_path / "window_sum_racy.mlir"
    good.write_text(str(_seed("window_sum")))
    racy.write_text(str(_without_barrier("window_sum", 0)))
    assert main([str(good), "--target", "cuda-cpu", "--racecheck", "--check"]) == 0
    assert main([str(racy), "--target", "cuda-cpu", "--racecheck"]) == 1
    assert "cuda-cpu racecheck: kernel 'main_kernel', __shared__ 'A_shared'" in capsys.readouterr().err
    assert main([str(good), "--target", "llvm", "--racecheck"]) == 1
    assert "racecheck=True is for target 'cuda-cpu'" in capsys.readouterr().err
