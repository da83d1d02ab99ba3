"""pad-einsum (TVM's pad_einsum) computes what the block computed: on the CPU (evaluator and build),
with its pads inlined into cache reads and its crop into a cache write's write-back, and in the hand
GPU GEMM (hand_gemm(pad=True)) through cuda-cpu at sizes its 128x128x8 tiles do not divide."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import xtir
from tests.fuzz.gpu_fuzz import Program
from xtir.build import cuda_program

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import seed_gpu  # noqa: E402

TILED = ('pad-einsum{block=C padding=16,16,8},split{loop=i factors=-1,16},split{loop=j factors=-1,16},'
         'reorder{loops=i_0,j_0,i_1,j_1},cache-read{block=C index=0 scope="local"},'
         'compute-at{block=A_pad_local loop=k},compute-inline{block=A_pad},cache-write{block=C index=0 scope="local"},'
         'reverse-compute-inline{block=C_pad}')


def _matmul(m: int, n: int, k: int) -> xtir.ModuleOp:
    return xtir.parse(Program("matmul", (m, n, k)).text())


def _check(module: xtir.ModuleOp, m: int, n: int, k: int, target: str | None = None) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
    runs = [lambda *x: xtir.evaluate(module, *x)] if target is None else []
    runs.append(xtir.build(module) if target is None else xtir.build(module, target=target))
    for run in runs:
        c = np.full((m, n), np.nan, np.float32)
        run(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(20, 18, 12), (16, 32, 8), (3, 5, 7)])
def test_pad_einsum_keeps_results(shape):
    padded = xtir.transform(_matmul(*shape), "pad-einsum{block=C padding=16,16,8}")
    _check(padded, *shape)


def test_pad_einsum_when_padding_divides_changes_nothing():
    original = _matmul(16, 32, 8)
    assert str(xtir.transform(original, "pad-einsum{block=C padding=16,16,8}")) == str(original)


@pytest.mark.parametrize("shape", [(20, 18, 12), (33, 17, 9)])
def test_pads_inlined_into_cache_read_and_crop_into_write_back(shape):
    scheduled = xtir.transform(_matmul(*shape), TILED)
    names = [op.label for op in scheduled.walk() if isinstance(op, xtir.dialects.block.BlockOp)]
    assert "A_pad" not in names and "C_pad" not in names
    _check(scheduled, *shape)


def test_schedule_api_mirrors_tvm():
    sch = xtir.Schedule(_matmul(20, 18, 12))
    sch.pad_einsum(sch.get_block("C"), [16, 16, 8])
    assert sch.trace == "pad-einsum{block=C padding=16,16,8}"
    assert {"A_pad", "B_pad", "C", "C_pad"} <= set(sch.block_names())
    with pytest.raises(xtir.XtirPassError, match="should be a list of 3 positive integers"):
        sch.pad_einsum(sch.get_block("C"), [16, 0, 8])


@pytest.mark.parametrize("split", [False, True])
def test_pads_blockized(split):
    """Regression (CPU fuzz seed 70012, matmul_bias12): blockize of a pad block, whose
    if_then_else compares its iteration variables, crashed ("arith.cmpi does not use index
    expressions"); its variables, used as values, are now computed from the new blocks'."""
    sch = xtir.Schedule(_matmul(20, 18, 12))
    sch.pad_einsum(sch.get_block("C"), [16, 16, 8])
    for name in ("A_pad", "B_pad"):
        outer, inner = sch.get_loops(sch.get_block(name))
        sch.blockize(sch.split(outer, [None, 4])[1] if split else inner)
    _check(sch.mod, 20, 18, 12)


def test_compute_inline_computes_an_iteration_variable_used_as_a_value():
    """Regression: an inlined body using its iteration variable in arithmetic (an index cast, an
    if_then_else's comparison) kept the removed block's variable: IR that no longer verified."""
    text = """
builtin.module {
  func.func @main(%A: memref<8xi64>, %C: memref<4xi64>) {
    %B = block.alloc : memref<8xi64>
    block.for %i = 0 to 8 "i" {
      block.block "B"(%vi = spatial(8, %i)) {
        %a = block.load %A[%vi] : memref<8xi64>
        %x = arith.index_cast %vi : index to i64
        %s = arith.addi %a, %x : i64
        block.store %s, %B[%vi] : memref<8xi64>
      }
    }
    block.for %j = 0 to 4 "j" {
      block.block "C"(%vj = spatial(4, %j)) {
        %b = block.load %B[%vj * 2 + 1] : memref<8xi64>
        block.store %b, %C[%vj] : memref<4xi64>
      }
    }
    func.return
  }
}
"""
    inlined = xtir.transform(xtir.parse(text), "compute-inline{block=B}")
    a, c = np.arange(8, dtype=np.int64) * 10, np.zeros(4, np.int64)
    xtir.evaluate(inlined, a, c)
    np.testing.assert_array_equal(c, a[1::2] + np.arange(1, 8, 2))


@pytest.mark.parametrize("shape", [(72, 136, 20), (200, 136, 60), (130, 136, 12), (133, 131, 21)])
def test_hand_gemm_padded_on_cuda_cpu(shape):
    """Float4 fetches (k and n multiples of 4), and per-lane ones at (133, 131, 21); with racecheck."""
    m, n, k = shape
    module = seed_gpu.scheduled_gemm(seed_gpu.hand_gemm(pad=True), m, n, k)
    args, expected = seed_gpu.gemm_inputs(m, n, k, np.random.default_rng(0))
    xtir.build(module, target="cuda-cpu", racecheck=True)(*args)
    np.testing.assert_allclose(args[2], expected, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(("shape", "vector"), [((72, 136, 20), True), ((130, 136, 12), True), ((133, 131, 21), False)])
def test_hand_gemm_padded_fetch_is_float4_where_its_guard_is_uniform(shape, vector):
    """The padded fetch `if_then_else(in range, A[..], 0)` reads A and B as float4 where the rows
    are 16-byte aligned and the range test holds on all 4 lanes or none (k and n multiples of 4),
    and element by element otherwise."""
    source = cuda_program(seed_gpu.scheduled_gemm(seed_gpu.hand_gemm(pad=True), *shape)).source
    scalar_loads = re.findall(r"\b[AB]\[", source)
    assert ("make_float4" in source, bool(scalar_loads)) == (vector, not vector)
