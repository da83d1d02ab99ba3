"""storage-align (TVM's storage_align) against numpy on the CPU and through the cuda-cpu emulation,
the Schedule method, the float4 copies it keeps or drops, nvcc on the padded hand GEMM, and the
static shared-memory bank count (lowering/bank_conflicts.py) on hand-checked addresses."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import memref

import xtir
from tests.test_cuda import _ptxas, seed_gpu
from xtir.build import cuda_program, lower_to_gpu
from xtir.lowering.bank_conflicts import shared_accesses, warp_totals, wavefronts
from xtir.schedule import Schedule
from xtir.script import script

LIT = Path(__file__).resolve().parent / "filecheck"
PAD_A = "storage-align{block=A_shared index=0 axis=0 factor=32 offset=4}"


def _lit_input(path: str) -> xtir.ModuleOp:
    text = (LIT / path).read_text()
    return xtir.parse(text[text.index("\nbuiltin.module") + 1 :])


def _transpose(alignments: str) -> xtir.ModuleOp:
    """C = Aᵀ through the scratch buffer B of passes/storage_align.mlir, aligned as asked."""
    module = _lit_input("passes/storage_align.mlir")
    return xtir.transform(module, alignments) if alignments else module


@pytest.mark.parametrize("alignments", [
    "",
    "storage-align{block=B index=0 axis=0 factor=32 offset=1}",
    "storage-align{block=B index=0 axis=-1 factor=4 offset=3}",
    "storage-align{block=B index=0 axis=1 factor=4 offset=3},storage-align{block=B index=0 axis=0 factor=32 offset=1}",
    "storage-align{block=B index=0 axis=0 factor=32 offset=1},transform-layout{buffer=B permutation=1,0}",
])
def test_padded_buffer_on_the_cpu(alignments: str) -> None:
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    c = np.full_like(a, np.nan)
    xtir.build(_transpose(alignments))(a, c)
    np.testing.assert_array_equal(c, a.T)


def test_alignment_applies_to_the_compacted_buffer() -> None:
    """A cache of A computed at k_0 is compacted to one row of 4 (1x4); the row stride is padded
    from the compacted 4 to 19 (3 mod 16), not from the declared 20 to 35, as TVM pads after
    compacting; the product is numpy's."""
    pipeline = ('split{loop=i factors=-1,8},split{loop=k factors=-1,4},cache-read{block=C index=0 scope="global"},'
                "compute-at{block=A_global loop=k_0},storage-align{block=A_global index=0 axis=0 factor=16 offset=3}")
    module = seed_gpu.scheduled_gemm(pipeline, 32, 24, 20)
    lowered = xtir.transform(module, "lower-blocks")
    (alloca,) = [op for op in lowered.walk() if isinstance(op, memref.AllocaOp)]
    assert str(alloca.memref.type) == 'memref<1x4xf32, strided<[19, 1]>, "global">'
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((32, 20), dtype=np.float32), rng.standard_normal((20, 24), dtype=np.float32)
    c = np.full((32, 24), np.nan, np.float32)
    xtir.build(module)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_schedule_method_mirrors_tvm() -> None:
    """`storage_align(block, buffer_index, axis, factor, offset)`, the buffer by index or name; the
    refusals raise XtirPassError naming the pass."""
    sch = Schedule(_transpose(""))
    sch.storage_align(sch.get_block("B"), 0, axis=-2, factor=32, offset=1)
    assert sch.mod.is_structurally_equivalent(_transpose("storage-align{block=B index=0 axis=0 factor=32 offset=1}"))
    by_name = Schedule(_transpose(""))
    by_name.storage_align(by_name.get_block("B"), "B", 0, 32, 1)
    assert by_name.mod.is_structurally_equivalent(sch.mod)
    with pytest.raises(xtir.XtirPassError, match=r"storage-align: .*factor must be positive, got 0"):
        sch.storage_align(sch.get_block("B"), 0, axis=0, factor=0, offset=0)
    with pytest.raises(xtir.XtirPassError, match=r"C, written by block \"C\", is not allocated in the function"):
        sch.storage_align(sch.get_block("C"), 0, axis=0, factor=32, offset=1)


def test_prints_as_tvm_annotates_the_block() -> None:
    """TVM's test_storage_align: the writing block gets `buffer_dim_align` [[index, axis, factor,
    offset]]; here it is printed from the allocation's record."""
    sch = Schedule(_transpose(""))
    sch.storage_align(sch.get_block("B"), 0, axis=0, factor=128, offset=127)
    text = script(sch.mod)
    assert text.count('T.block_attr({"buffer_dim_align": [[0, 0, 128, 127]]})') == 1
    assert text.index("buffer_dim_align") > text.index('T.block("B")')


def _gemm_error(pipeline: str, n: int) -> float:
    rng = np.random.default_rng(0)
    arrays, expected = seed_gpu.gemm_inputs(n, n, n, rng)
    xtir.build(seed_gpu.scheduled_gemm(pipeline, n, n, n), target="cuda-cpu")(*arrays)
    return float(np.max(np.abs(arrays[-1] - expected)))


@pytest.mark.parametrize(("pipeline", "n"), [
    (seed_gpu.hand_gemm(pad_a=True), 128),
    (seed_gpu.hand_gemm(pad_a=True), 136),  # partial tiles at the edges
    (seed_gpu.hand_gemm() + ",storage-align{block=B_shared index=0 axis=0 factor=32 offset=1}", 128),
    (seed_gpu.hand_gemm(double_buffer=False, pad_a=True), 128),
    (seed_gpu.hand_gemm(pad_a=True, phase_grid=True), 136),
    (seed_gpu.GEMM_SHARED_PADDED, 128),
    (seed_gpu.GEMM_SHARED_PADDED, 136),
])
def test_padded_shared_tiles_through_cuda_cpu(pipeline: str, n: int) -> None:
    assert _gemm_error(pipeline, n) < 1e-3


def test_padded_row_sum_through_cuda_cpu() -> None:
    """The row sum of cuda/storage_align.mlir: rows of 9 in two halves 71 floats apart."""
    module = xtir.transform(_lit_input("cuda/storage_align.mlir"),
                            "storage-align{block=A_shared index=0 axis=0 factor=8 offset=1},double-buffer{block=A_shared}")
    a = np.random.default_rng(0).standard_normal((64, 64), dtype=np.float32)
    s = np.full(64, np.nan, np.float32)
    xtir.build(module, target="cuda-cpu")(a, s)
    np.testing.assert_allclose(s, a.sum(axis=1), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(("offset", "float4"), [(4, True), (1, False)])
def test_float4_only_where_the_padded_rows_stay_aligned(offset: int, float4: bool) -> None:
    """B's tile is fetched with float4 stores; rows of 132 floats keep them 16-byte aligned, rows
    of 129 do not, and the fetch is scalar then."""
    pipeline = seed_gpu.hand_gemm() + f",storage-align{{block=B_shared index=0 axis=0 factor=32 offset={offset}}}"
    source = cuda_program(seed_gpu.scheduled_gemm(pipeline, 128, 128, 128)).source
    assert ("*(float4*)(B_shared + " in source) == float4
    assert f"B_shared[v_6 * {128 + offset} + v_7]" in source or float4


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the emitted CUDA C is not compiled")
def test_padded_hand_gemm_compiles_cleanly_within_the_registers(tmp_path: Path) -> None:
    """nvcc -Werror takes the padded GEMMs; the hand GEMM's fragments are still read as float4
    (rows of 132 keep A's k-major rows aligned) with 128 registers at most and no spill."""
    source = cuda_program(seed_gpu.scheduled("gpu_matmul.mlir", seed_gpu.hand_gemm(pad_a=True), 1024)).source
    for name, text in {"hand": source, "seed": cuda_program(seed_gpu.scheduled(
            "gpu_matmul.mlir", seed_gpu.GEMM_SHARED_PADDED, 1024)).source}.items():
        path = tmp_path / f"{name}.cu"
        path.write_text(text)
        done = subprocess.run(["nvcc", "-arch=sm_90", "-Werror", "all-warnings", "-c", str(path), "-o", f"{path}.o"],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    ptx, report = _ptxas(source, tmp_path / "padded_ptx.cu")
    fma, v4, scalar = (len(re.findall(rf"\b{op}\s", ptx)) for op in (r"fma\.rn\.f32", r"ld\.shared\.v4\.f32", r"ld\.shared\.f32"))
    assert fma == 2 * 8 * 64 and v4 * 16 == fma and scalar == 0
    assert "0 bytes spill stores, 0 bytes spill loads" in report
    assert int(re.search(r"Used (\d+) registers", report)[1]) <= 128


# The static bank count ---------------------------------------------------------------------


@pytest.mark.parametrize(("addresses", "nbytes", "expected"), [
    ([4 * t for t in range(32)], 4, 1),  # consecutive floats: 32 banks once
    ([8 * t for t in range(32)], 4, 2),  # every other float: 16 banks twice
    ([128 * t for t in range(32)], 4, 32),  # a column of a 32-float row: one bank
    ([132 * t for t in range(32)], 4, 1),  # the same column with rows of 33
    ([0] * 32, 4, 1),  # one word: a broadcast
    ([4 * (t // 2) for t in range(32)], 4, 1),  # pairs of threads on one word
    ([16 * t for t in range(32)], 16, 4),  # float4, consecutive: 4 phases of 8 threads
    ([32 * t for t in range(32)], 16, 8),  # float4 8 floats apart: threads t and t + 4 share banks
    ([8 * t for t in range(32)], 8, 2),  # float2, consecutive: 2 phases of 16
    ([4 * t for t in range(8)], 4, 1),  # a block of 8 threads
])
def test_wavefronts_of_hand_checked_addresses(addresses: list[int], nbytes: int, expected: int) -> None:
    assert wavefronts(addresses, nbytes) == expected


def _row_sum(pipeline: str) -> xtir.ModuleOp:
    return lower_to_gpu(xtir.transform(_lit_input("cuda/storage_align.mlir"), pipeline))


def test_bank_count_of_the_row_sum() -> None:
    """8 threads read A_shared[8 * i_1 + k]: threads 0 and 4 share a bank (2 wavefronts); rows of 9
    spread them (1). Per warp, the 64 tile loads cost 128 wavefronts, then 64; the 64 stores 64."""
    plain = _row_sum("double-buffer{block=A_shared}")
    padded = _row_sum("storage-align{block=A_shared index=0 axis=0 factor=8 offset=1},double-buffer{block=A_shared}")
    (kernel,) = [op for op in plain.walk() if op.name == "gpu.func"]
    loads = [a for a in shared_accesses(kernel) if isinstance(a.op, memref.LoadOp)]
    assert [(a.wavefronts, a.ideal, a.runs) for a in loads] == [(2, 1, 56), (2, 1, 8)]
    assert warp_totals(plain) == (128 + 64, 128)
    assert warp_totals(padded) == (64 + 64, 128)


def test_bank_count_of_the_hand_gemm() -> None:
    """The k-major A tile's fetch stores two threads per column, 4 rows (512 floats) apart: the same
    bank, 2 wavefronts; rows of 132 move the second thread 16 banks on (1). The float4 B stores
    are conflict-free (4 phases). The fragment reads, 8 unrolled scalar loads each, count as the
    two float4 loads nvcc makes of them (test_cuda.py's PTX test): A's are broadcast to 16
    threads (4 wavefronts), B's 8 floats apart per thread, so threads t and t + 4 of a phase
    share banks (8). Per k_1 a warp loads each fragment twice, A's not again for each j_2."""
    def accesses(pipeline: str) -> list[tuple[str, str, int, int | None, int]]:
        (kernel,) = [op for op in lower_to_gpu(seed_gpu.scheduled_gemm(pipeline, 256, 256, 256)).walk()
                     if op.name == "gpu.func"]
        return [(a.op.name, a.buffer, a.bytes, a.wavefronts, a.runs) for a in shared_accesses(kernel)[:4]]

    k_0 = 256 // 8 - 1
    fetch_and_body = [("memref.store", "A_shared", 4, 2, 4), ("memref.store", "B_shared", 16, 4, 1),
                      ("memref.load", "A_shared", 16, 4, k_0 * 8 * 2), ("memref.load", "B_shared", 16, 8, k_0 * 8 * 2)]
    assert accesses(seed_gpu.hand_gemm()) == fetch_and_body
    assert accesses(seed_gpu.hand_gemm(pad_a=True)) == [("memref.store", "A_shared", 4, 1, 4), *fetch_and_body[1:]]
    # 2 x 4 thread tiles per phase: B's reads at 4 offsets 8 floats apart, every bank once (4)
    grid = [*fetch_and_body[:3], ("memref.load", "B_shared", 16, 4, k_0 * 8 * 2)]
    assert accesses(seed_gpu.hand_gemm(phase_grid=True)) == grid
    assert accesses(seed_gpu.hand_gemm(pad_a=True, phase_grid=True)) == [("memref.store", "A_shared", 4, 1, 4), *grid[1:]]



def test_bank_count_of_a_guarded_float4_store() -> None:
    """At 72 x 1000 x 20 the hand GEMM's B fetch is guarded at the tile's edge: the float4 store
    (`st.shared.v4` in nvcc's PTX) sits in an scf.if inside the copy's loop, and counts as one
    16-byte access, 4 phases of 8 threads (before: 4-byte, 4 wavefronts against an ideal of 1)."""
    (kernel,) = [op for op in lower_to_gpu(seed_gpu.scheduled_gemm(seed_gpu.hand_gemm(), 72, 1000, 20)).walk()
                 if op.name == "gpu.func"]
    stores = [a for a in shared_accesses(kernel) if a.buffer == "B_shared" and isinstance(a.op, memref.StoreOp)]
    assert stores and all(a.op.parent_op().name == "scf.if" for a in stores)
    assert {(a.bytes, a.wavefronts, a.ideal) for a in stores} == {(16, 4, 4)}

def test_bank_count_of_the_seed_shared_gemm() -> None:
    """Seed 002's shared GEMM: a warp's 32 threads read A_shared[8 * (t / 8) + i_2, k], rows 8
    apart of 8 floats: 4 rows in one bank (4 wavefronts); rows of 9 put them 8 banks apart."""
    def a_loads(pipeline: str) -> list[int | None]:
        (kernel,) = [op for op in lower_to_gpu(seed_gpu.scheduled("gpu_matmul.mlir", pipeline, 256)).walk()
                     if op.name == "gpu.func"]
        return [a.wavefronts for a in shared_accesses(kernel) if a.buffer == "A_shared" and isinstance(a.op, memref.LoadOp)]

    assert a_loads(seed_gpu.GEMM_SHARED) == [4]
    assert a_loads(seed_gpu.GEMM_SHARED_PADDED) == [1]


def test_unrolled_loads_merge_only_where_aligned() -> None:
    """The row sum's loads with k_1 unrolled: A_shared[k_0 % 2 * 64 + i_1 * 8 + k_1] advances one
    float per k_1 from a multiple of 8 floats: one float4 per 4 iterations (8 threads, one phase:
    2 wavefronts as threads 0 and 4 share banks). Rows of 9 start misaligned: scalar loads,
    conflict-free."""
    def loads(pipeline: str) -> list[tuple[int, int | None, bool]]:
        (kernel,) = [op for op in _row_sum(pipeline + ",unroll{loop=k_1}").walk() if op.name == "gpu.func"]
        return [(a.bytes, a.wavefronts, a.merged) for a in shared_accesses(kernel) if isinstance(a.op, memref.LoadOp)]

    assert loads("double-buffer{block=A_shared}") == [(16, 2, True)] * 2
    assert loads("storage-align{block=A_shared index=0 axis=0 factor=8 offset=1},double-buffer{block=A_shared}") \
        == [(4, 1, False)] * 2


def test_pad_a_needs_the_k_major_tile() -> None:
    with pytest.raises(ValueError, match="goes with transpose_a"):
        seed_gpu.hand_gemm(transpose_a=False, pad_a=True)


def _seed_tensorized(n: int, alignment: str, before_tensorize: bool) -> xtir.ModuleOp:
    """Seed 001's tensorized matmul at n with `alignment` on A's register tile, before or after tensorize."""
    from tests.test_microkernels import SEED, matmul

    at = SEED.find(",tensorize") if before_tensorize else len(SEED)
    return xtir.transform(matmul(n), SEED[:at] + "," + alignment + SEED[at:])


A_REG = 'storage-align{block="A_global.A_reg" index=0 axis=%d factor=%d offset=%d}'


def test_tmm16_tiles_keep_contiguous_rows() -> None:
    """accel.tmm16 reads rows of contiguous elements: padding the last dimension of a tile it
    reads is refused at storage-align, and, aligned before tensorize, at the kernel call; padding
    the rows keeps numpy's product (seed 001 computes A·Bᵀ)."""
    with pytest.raises(xtir.XtirError, match="by accel.tmm16, whose tiles are row-major; align a dimension but the last"):
        _seed_tensorized(32, A_REG % (1, 2, 0), before_tensorize=False)
    with pytest.raises(xtir.XtirError, match="takes tiles of contiguous rows.*no unit stride in its last dimension"):
        xtir.build(_seed_tensorized(32, A_REG % (1, 2, 0), before_tensorize=True))
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((32, 32), dtype=np.float32), rng.standard_normal((32, 32), dtype=np.float32)
    c = np.zeros((32, 32), np.float32)
    xtir.build(_seed_tensorized(32, A_REG % (0, 32, 1), before_tensorize=False))(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-4)
