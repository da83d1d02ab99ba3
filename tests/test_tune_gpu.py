"""xtir.tune's GPU space: sampled schedules lower to the gpu dialect within its limits, compile
with nvcc without a warning, and compute what numpy does through target "cuda-cpu". Tuning for
target "cuda" times kernels, not copies: checked on a stand-in CuPy (its device memory is host
memory, its launches run the cuda-cpu emulation and advance a clock its events read), and on a
GPU where there is one."""

from __future__ import annotations

import math
import shutil
import subprocess
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtir
from xtir.build import cuda_program
from xtir.errors import XtirError
from xtir.lowering import cuda_function
from xtir.tune import gpu_space, search, spaces_gpu, tuner
from xtir.tune.cli import main as tune_main

ROOT = Path(__file__).resolve().parents[1]
SEEDS = range(5)


def gemm(n: int = 32) -> xtir.ModuleOp:
    return xtir.parse((ROOT / "examples" / "gpu_matmul.mlir").read_text().replace("1024", str(n)))


def sampled(seed: int, n: int = 32) -> xtir.Schedule:
    sch = xtir.Schedule(gemm(n), seed=seed)
    gpu_space(sch)
    return sch


def test_the_gpu_space_samples_varied_schedules_within_the_limits() -> None:
    traces = {sampled(seed, 64).trace for seed in SEEDS}
    assert len(traces) == len(SEEDS)
    assert any("scope=shared" in t for t in traces) and any("vectorize" in t for t in traces)
    for seed in SEEDS:
        for launch in cuda_program(sampled(seed, 64).mod).launches:
            assert launch.threads <= 1024 and launch.shared_bytes <= 48 * 1024


@pytest.mark.parametrize("seed", SEEDS)
def test_sampled_gpu_schedules_match_numpy_in_the_emulation(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((2, 32, 32), dtype=np.float32)
    c = np.full((32, 32), np.nan, np.float32)
    xtir.build(sampled(seed).mod, target="cuda-cpu")(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the emitted CUDA C is not compiled")
def test_sampled_gpu_schedules_compile_with_nvcc_without_warnings(tmp_path: Path) -> None:
    failures = []
    for seed in SEEDS:
        path = tmp_path / f"seed{seed}.cu"
        path.write_text(cuda_program(sampled(seed, 64).mod).source)
        done = subprocess.run(["nvcc", "-arch=sm_90", "-Werror", "all-warnings", "-c", str(path), "-o", str(path) + ".o"],
                              capture_output=True, text=True, check=False)
        if done.returncode or done.stderr.strip():
            failures.append(f"seed {seed}:\n{done.stdout}{done.stderr}")
    assert not failures, "\n".join(failures)


def test_tuning_for_cuda_without_a_gpu_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from xtir.lowering.cuda_function import import_cupy

    try:
        import_cupy()
    except XtirError:
        pass
    else:
        pytest.skip("a GPU is usable here")
    with pytest.raises(XtirError, match="GPU|CuPy"):
        xtir.tune(gemm(), target="cuda", trials=2, progress=False)
    source = tmp_path / "gemm.mlir"
    source.write_text(str(gemm()))
    assert tune_main([str(source), "--target", "cuda", "--trials", "2"]) == 1
    assert "cuda-cpu" in capsys.readouterr().err


def test_tuning_for_cuda_cpu_uses_the_gpu_space_and_finds_a_correct_schedule() -> None:
    result = search(gemm(16), target="cuda-cpu", trials=2, seed=0, cost_model="none")
    assert result.best is not None and 'thread="threadIdx.x"' in result.best.trace
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 16, 16), dtype=np.float32)
    c = np.full((16, 16), np.nan, np.float32)
    xtir.build(result.best.mod, target="cuda-cpu")(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_an_unknown_target_is_refused() -> None:
    with pytest.raises(XtirError, match="target 'rocm' has no search space"):
        search(gemm(), target="rocm", trials=1)



def test_an_operand_tile_too_large_for_shared_memory_stays_in_global_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spaces_gpu, "REDUCE_TILE_MAX", 128)
    # a 128 x 128 thread block tile (16 threads x 8 each way), k1 = 64: A's tile and B's take 32 KiB each
    decisions = [[16, 8], [1, 16], [16, 8], [1, 16], [2, 64], 0, 0, 1]  # both operands to shared, no unrolling
    sch = xtir.Schedule(gemm(128), decisions=decisions)
    gpu_space(sch)
    assert [d.value for d in sch.decisions] == decisions
    assert "A_shared" in sch.trace and "B_shared" not in sch.trace
    (launch,) = cuda_program(sch.mod).launches
    assert launch.threads == 256 and launch.shared_bytes == 32 * 1024


KERNEL_MS = 2.0
"""How long a launch takes on the stand-in GPU's clock."""


class _StandInCupy:
    """What the measurer uses of CuPy: `asarray` (an upload), arrays' `get` (a download), and
    events that read a clock only launches advance. It logs each."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.clock_ms = 0.0
        self.cuda = types.SimpleNamespace(Event=lambda: _Event(self),
                                          get_elapsed_time=lambda start, stop: stop.time_ms - start.time_ms,
                                          driver=types.SimpleNamespace(CUDADriverError=_CudaError),
                                          runtime=types.SimpleNamespace(CUDARuntimeError=_CudaError))
        self.wrong = False
        """Whether the candidates built from now on compute wrong."""
        self.fault = False
        """Whether the kernels fault: the host's next wait raises CuPy's error."""

    def asarray(self, array: np.ndarray) -> _OnDevice:
        self.log.append("upload")
        return _OnDevice(np.array(array), self)


class _CudaError(Exception):
    """CuPy's CUDADriverError and CUDARuntimeError."""


def _wait(cupy: _StandInCupy) -> None:
    if cupy.fault:
        raise _CudaError("cudaErrorIllegalAddress: an illegal memory access was encountered")


class _OnDevice:
    def __init__(self, memory: np.ndarray, cupy: _StandInCupy) -> None:
        self.memory, self._cupy = memory, cupy

    def get(self) -> np.ndarray:
        self._cupy.log.append("download")
        _wait(self._cupy)
        return self.memory.copy()


class _Event:
    def __init__(self, cupy: _StandInCupy) -> None:
        self._cupy, self.time_ms = cupy, math.nan

    def record(self) -> None:
        self._cupy.log.append("record")
        self.time_ms = self._cupy.clock_ms

    def synchronize(self) -> None:
        self._cupy.log.append("synchronize")
        _wait(self._cupy)


class _StandInGpuFunction:
    """Target "cuda" on the stand-in: takes its device arrays only, runs the emulation on them;
    `wrong` adds 1 to what it writes."""

    def __init__(self, emulated: Any, cupy: _StandInCupy, wrong: bool) -> None:
        self._emulated, self._cupy, self._wrong = emulated, cupy, wrong

    def __call__(self, *arrays: Any) -> None:
        assert all(isinstance(a, _OnDevice) for a in arrays), "a call on host arrays: copies timed with the kernels"
        self._emulated(*(a.memory for a in arrays))
        if self._wrong:
            arrays[-1].memory += 1
        self._cupy.log.append("launch")
        self._cupy.clock_ms += KERNEL_MS


@pytest.fixture
def stand_in_gpu(monkeypatch: pytest.MonkeyPatch) -> _StandInCupy:
    """Target "cuda" on the stand-in CuPy."""
    cupy = _StandInCupy()
    real_build = tuner.build

    def build(mod: xtir.ModuleOp, target: str, name: str) -> Any:
        if target != "cuda":
            return real_build(mod, target, name)
        return _StandInGpuFunction(real_build(mod, "cuda-cpu", name), cupy, cupy.wrong)

    monkeypatch.setattr(cuda_function, "import_cupy", lambda: cupy)
    monkeypatch.setattr(tuner, "build", build)
    return cupy


def test_a_gpu_candidate_is_uploaded_once_checked_once_and_its_launches_timed_by_events(
        stand_in_gpu: _StandInCupy) -> None:
    measurer = tuner._Measurer(gemm(16), "main", "cuda")
    assert stand_in_gpu.log == []  # the reference runs on the host
    latency = measurer.measure(sampled(0, 16).mod)
    log = stand_in_gpu.log
    # A, B, C up once; a warm-up call; its results back, once, for the check
    assert log[:7] == ["upload"] * 3 + ["launch"] + ["download"] * 3
    assert "upload" not in log[7:] and "download" not in log[7:]
    number = tuner._batch(KERNEL_MS / 1e3)
    timed = [1] + [number] * measurer._repeats
    assert log[7:] == [step for n in timed for step in ["record", *["launch"] * n, "record", "synchronize"]]
    assert latency == pytest.approx(KERNEL_MS / 1e3)


def test_a_gpu_candidate_that_computes_wrong_is_refused(stand_in_gpu: _StandInCupy) -> None:
    measurer = tuner._Measurer(gemm(16), "main", "cuda")
    stand_in_gpu.wrong = True
    with pytest.raises(XtirError, match="candidate computes parameter 2 wrong"):
        measurer.measure(sampled(0, 16).mod)


def test_a_gpu_candidate_whose_kernels_fault_fails_with_an_xtir_error(stand_in_gpu: _StandInCupy) -> None:
    measurer = tuner._Measurer(gemm(16), "main", "cuda")
    stand_in_gpu.fault = True
    with pytest.raises(XtirError, match="candidate failed on the GPU: cudaErrorIllegalAddress"):
        measurer.measure(sampled(0, 16).mod)


def test_tuning_for_cuda_ranks_the_kernel_times(stand_in_gpu: _StandInCupy) -> None:
    result = search(gemm(16), target="cuda", trials=3, seed=0, cost_model="none")
    assert result.best is not None and result.failures == 0
    assert result.best_latency == pytest.approx(KERNEL_MS / 1e3)  # rechecked by events too
    assert list(result.baselines) == ["default-gpu-schedule"]  # checked once too, as a candidate
    assert stand_in_gpu.log.count("download") == 3 * (result.measured + 1)  # one check each, none when rechecked


def _why_no_gpu() -> str | None:
    try:
        cuda_function.import_cupy()
    except XtirError as e:
        return str(e)
    return None


NO_GPU = _why_no_gpu()


@pytest.mark.skipif(NO_GPU is not None, reason=f"no GPU through CuPy: {NO_GPU}")
def test_tuning_a_gemm_on_the_gpu() -> None:
    cupy = cuda_function.import_cupy()
    result = search(gemm(64), target="cuda", trials=4, seed=0, cost_model="none")
    assert result.best is not None and result.failures == 0 and 0 < result.best_latency < 1e-3
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 64, 64), dtype=np.float32)
    c = cupy.full((64, 64), cupy.nan, dtype=cupy.float32)
    xtir.build(result.best.mod, target="cuda")(cupy.asarray(a), cupy.asarray(b), c)
    np.testing.assert_allclose(c.get(), a @ b, rtol=1e-4, atol=1e-4)
