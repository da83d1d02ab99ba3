"""The hand GEMM's fast paths, run through the cuda-cpu emulation against numpy.

version-edge-blocks (lowering/edge_blocks.py): interior thread blocks run the code of a size the
tile divides (no edge guard, float4 fetches), edge blocks the guarded copy. The arrays are views
into larger ones, so that a block taking the unguarded copy at the edge writes into memory the
test sees (the padding rows of C stay NaN) instead of past the array.

The fetch of a k-major shared tile of A (lowering/cuda_align.py, cuda_emit): one float4 load
of a row of A, four scalar stores down a column of the tile."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith, gpu, scf

import xtir
from tests.test_cuda import seed_gpu
from xtir.build import cuda_program, lower_to_gpu

PAD = 128
"""Rows of padding after A, B and C: more than a block tile, so an unguarded edge stays inside."""


def _module(m: int, n: int, k: int) -> xtir.ModuleOp:
    return seed_gpu.scheduled_gemm(seed_gpu.GEMM_HAND, m, n, k)


def _run_padded(module: xtir.ModuleOp, m: int, n: int, k: int) -> tuple[float, bool]:
    """The largest error of C, and whether the padding after C stayed untouched."""
    (a, b, _), expected = seed_gpu.gemm_inputs(m, n, k, np.random.default_rng(0))
    big_a, big_b = np.ones((m + PAD, k), np.float32), np.ones((k + PAD, n), np.float32)
    big_c = np.full((m + PAD, n), np.nan, np.float32)
    big_a[:m], big_b[:k] = a, b
    xtir.build(module, target="cuda-cpu")(big_a[:m], big_b[:k], big_c[:m])
    return float(np.max(np.abs(big_c[:m] - expected))), bool(np.isnan(big_c[m:]).all())


def _versions(lowered: xtir.ModuleOp) -> list[scf.IfOp]:
    """The ifs at the top of the kernels: the versions of their bodies."""
    return [op for kernel in lowered.walk() if isinstance(kernel, gpu.FuncOp)
            for op in kernel.body.block.ops if isinstance(op, scf.IfOp)]


@pytest.mark.parametrize("size", [(128, 128, 64), (200, 136, 64), (72, 1000, 24), (255, 136, 64), (129, 255, 16)])
def test_numbers(size: tuple[int, int, int]) -> None:
    """255 rows: the second block's tile ends one row past the edge, the least a wrong test of
    "wholly inside" lets through; 72 rows and 129 columns: no block is wholly inside on that axis."""
    error, untouched = _run_padded(_module(*size), *size)
    assert error < 1e-3 and untouched


def test_edge_blocks_need_the_guarded_copy() -> None:
    """With the versions' condition forced true, the edge blocks run unguarded and go wrong."""
    lowered = lower_to_gpu(_module(255, 136, 64))
    (versions,) = _versions(lowered)
    true = arith.ConstantOp.from_int_and_width(1, 1)
    versions.parent_block().insert_op_before(true, versions)
    versions.operands = [true.result]
    error, untouched = _run_padded(lowered, 255, 136, 64)
    assert error > 1e-1 or not untouched


def test_interior_blocks_run_the_whole_tile_code() -> None:
    """At n = 1000 the blocks with i_0, j_0 < 7 run the code of n = 1024: no guard, and as many
    float4 loads (both fetches of the prologue, both prefetches, the staged store of B)."""
    source = cuda_program(_module(1000, 1000, 1000)).source
    fast = source[source.index("if (v < 873 & v_1 < 873) {"):source.index("} else {")]
    whole = cuda_program(_module(1024, 1024, 1024)).source
    assert "< 1000" not in fast and "if (" not in fast.split("\n", 1)[1]
    assert fast.count("*(const float4*)") == whole.count("*(const float4*)") == 5


@pytest.mark.parametrize("size", [(64, 64, 16), (128, 64, 32)])
def test_transposed_fetch_numbers(size: tuple[int, int, int]) -> None:
    """Seed 002's shared GEMM with A's tile k-major: its fetch of A is scattered from a float4."""
    pipeline = seed_gpu.GEMM_SHARED + ",transform-layout{buffer=A_shared permutation=1,0}"
    module = seed_gpu.scheduled_gemm(pipeline, *size)
    assert "A4.w;" in cuda_program(module).source
    error, untouched = _run_padded(module, *size)
    assert error < 1e-3 and untouched


def test_guarded_float4_copy() -> None:
    """tests/filecheck/cuda/float4_guarded_copy.mlir: the copy guarded by `< 1004` is one float4
    under the guard, the one guarded by `< 1002` stays element by element and leaves C's last two
    elements alone."""
    text = (Path(__file__).resolve().parent / "filecheck/cuda/float4_guarded_copy.mlir").read_text()
    module = xtir.parse(text[text.index("\nbuiltin.module") + 1:])
    a = np.arange(1004, dtype=np.float32)
    b, c = np.full(1004, np.nan, np.float32), np.full(1004, np.nan, np.float32)
    xtir.build(module, target="cuda-cpu")(a, b, c)
    assert np.array_equal(b, a) and np.array_equal(c[:1002], a[:1002]) and np.isnan(c[1002:]).all()


def _gemm_ptx():
    spec = importlib.util.spec_from_file_location("gemm_ptx", Path(__file__).resolve().parent.parent / "benchmarks/gemm_ptx.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: no PTX to count")
def test_interior_main_loop_is_the_whole_tile_loop() -> None:
    """In nvcc's PTX (benchmarks/gemm_ptx.py) the main loop of n = 1000's interior blocks has the
    instructions of n = 1024's: float4 loads from global and shared memory, one branch an
    iteration; the edge blocks' loop keeps a branch per multiply-add."""
    gemm_ptx = _gemm_ptx()
    loops = {n: gemm_ptx.main_loops(gemm_ptx.compile_ptx(gemm_ptx.hand_gemm_source(n), "sm_90")[0]) for n in (1000, 1024)}
    (whole,), (interior, edge) = loops[1024], loops[1000]
    assert interior == whole
    assert (whole["fma"], whole["ld.shared.v4"], whole["ld.shared"], whole["ld.global"], whole["bra"]) == (512, 32, 0, 0, 1)
    assert edge["bra"] >= 512


def test_no_versions_without_edges() -> None:
    """A size the tiles divide has no edge guard, so no second copy."""
    assert not _versions(lower_to_gpu(_module(128, 128, 64)))


@pytest.mark.parametrize("size", [(128, 128, 64), (200, 136, 64), (72, 1000, 24)])
def test_phase_grid_numbers(size: tuple[int, int, int]) -> None:
    """hand_gemm(phase_grid=True): threads renumbered into 2 x 4 tile grids, edges included."""
    error, untouched = _run_padded(seed_gpu.scheduled_gemm(seed_gpu.hand_gemm(phase_grid=True), *size), *size)
    assert error < 1e-3 and untouched


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: no PTX to count")
def test_phase_grid_main_loop(tmp_path: Path) -> None:
    """The renumbered threads compile -Werror clean, within 128 registers, no spill; the main loop
    keeps the whole-tile loop's global float4 loads and one branch. nvcc's load vectorizer leaves
    the first fragment pair of one k step in three pieces each (f32, f32, v2: 2 of 32 float4
    loads an iteration), as it does for any thread index written as a sum of two terms."""
    gemm_ptx = _gemm_ptx()
    source = gemm_ptx.hand_gemm_source(1024, phase_grid=True)
    path = tmp_path / "grid.cu"
    path.write_text(source)
    done = subprocess.run(["nvcc", "-arch=sm_90", "-Werror", "all-warnings", "-c", str(path), "-o", f"{path}.o"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    ptx, usage = gemm_ptx.compile_ptx(source, "sm_90")
    assert usage.endswith("0 B spill stores, 0 B spill loads") and int(usage.split()[0]) <= 128
    (loop,) = gemm_ptx.main_loops(ptx)
    assert (loop["fma"], loop["ld.global.v4"], loop["ld.global"], loop["bra"]) == (512, 2, 0, 1)
    assert (loop["ld.shared.v4"], loop["ld.shared"]) in {(32, 0), (30, 6)}  # ld.shared: the f32 and v2 pieces
