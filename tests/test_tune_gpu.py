"""xtir.tune's GPU space: sampled schedules lower to the gpu dialect within its limits, compile
with nvcc without a warning, and compute what numpy does through target "cuda-cpu"."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import xtir
from xtir.build import cuda_program
from xtir.errors import XtirError
from xtir.tune import gpu_space, search, spaces_gpu
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
