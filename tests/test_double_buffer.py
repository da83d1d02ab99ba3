"""double-buffer and lower-to-gpu's double buffering, run through the cuda-cpu emulation against
numpy: the row sum of tests/filecheck/passes/double_buffer.mlir, seed 002's shared GEMM and the
hand GEMM schedule (128x128 tiles, 8x8 per thread) double-buffered; one barrier per iteration of
the pipelined loop, and removing either barrier gives wrong numbers; the Schedule method."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import gpu, memref, scf

import xtir
from tests.test_cuda import seed_gpu
from xtir.build import lower_to_gpu
from xtir.schedule import Schedule

LIT = Path(__file__).resolve().parent / "filecheck"
DOUBLE = ",double-buffer{block=A_shared},double-buffer{block=B_shared}"
GEMMS = {
    "shared": seed_gpu.GEMM_SHARED + DOUBLE,
    "shared, A only": seed_gpu.GEMM_SHARED + ",double-buffer{block=A_shared}",
    "hand": seed_gpu.GEMM_HAND,
    "hand, k in 16s": seed_gpu.hand_gemm(16),
}


def _row_sum() -> xtir.ModuleOp:
    """The scheduled row sum of the lit tests (its input, after the RUN and CHECK lines)."""
    text = (LIT / "passes" / "double_buffer.mlir").read_text()
    return xtir.parse(text[text.index("\nbuiltin.module") + 1 :])


def _gemm(pipeline: str, n: int = 128) -> xtir.ModuleOp:
    return seed_gpu.scheduled("gpu_matmul.mlir", pipeline, n)


def _run_gemm(module: xtir.ModuleOp, n: int = 128) -> float:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)
    c = np.full((n, n), np.nan, np.float32)
    xtir.build(module, target="cuda-cpu")(a, b, c)
    return float(np.max(np.abs(c - a @ b)))


def _run_row_sum(module: xtir.ModuleOp) -> float:
    a = np.random.default_rng(0).standard_normal((64, 64), dtype=np.float32)
    s = np.full(64, np.nan, np.float32)
    xtir.build(module, target="cuda-cpu")(a, s)
    return float(np.max(np.abs(s - a.sum(axis=1))))


def test_row_sum() -> None:
    module = xtir.transform(_row_sum(), "double-buffer{block=A_shared}")
    assert _run_row_sum(module) < 1e-4


@pytest.mark.parametrize("name", GEMMS)
def test_gemm(name: str) -> None:
    assert _run_gemm(_gemm(GEMMS[name])) < 1e-3


def _barriers(module: xtir.ModuleOp) -> list[gpu.BarrierOp]:
    return [op for op in module.walk() if isinstance(op, gpu.BarrierOp)]


def test_one_barrier_per_iteration() -> None:
    """Without double buffering k_0 holds two barriers (before the fetch, before the reads); with
    it one, at its top, plus one before the epilogue's reads of the last tile. The next tile goes
    through registers: 8 floats per thread and buffer."""
    plain, double = lower_to_gpu(_gemm(seed_gpu.GEMM_SHARED)), lower_to_gpu(_gemm(GEMMS["shared"]))
    k_0 = [op for op in double.walk() if isinstance(op, scf.ForOp) and op.attributes["xtir.loop_name"].data == "k_0"]
    assert len(k_0) == 1 and isinstance(k_0[0].body.block.first_op, gpu.BarrierOp)
    assert len(_barriers(plain)) == 2 and len(_barriers(double)) == 2
    inside = [b for b in _barriers(double) if k_0[0].is_ancestor(b)]
    assert len(inside) == 1
    buffers = {op.memref.name_hint: op.memref.type.get_shape() for op in double.walk() if isinstance(op, memref.AllocaOp)}
    assert buffers == {"A_shared": (2, 64, 8), "B_shared": (2, 8, 64), "C_local": (8, 8),
                       "A_shared_next": (8,), "B_shared_next": (8,)}  # 512 floats a tile, 64 threads


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("name", ["shared", "hand"])
def test_a_missing_barrier_gives_wrong_numbers(name: str, which: int) -> None:
    """The barrier at the top of k_0 (the stores of tile k+1 overwrite the half iteration k-1
    read; the reads need the tile stored in iteration k-1) and the one before the epilogue (its
    reads need the last stores): without either the emulation's thread order goes wrong."""
    lowered = lower_to_gpu(_gemm(GEMMS[name]))
    assert _run_gemm(lowered) < 1e-3
    barrier = _barriers(lowered)[which]
    barrier.detach()
    barrier.erase()
    assert _run_gemm(lowered) > 1e-1


def test_schedule_method() -> None:
    sch = Schedule(_row_sum())
    sch.double_buffer(sch.get_block("A_shared"))
    assert sch.mod.is_structurally_equivalent(xtir.transform(_row_sum(), "double-buffer{block=A_shared}"))
    assert _run_row_sum(sch.mod) < 1e-4
