"""lower-to-gpu and a `local` accumulator (cache-write to "local", reverse-compute-at under the thread
loop) at sizes the block tile does not divide: C_local is one thread's tile (1x1 for a thread tile of
1, the edge guard `i_0 * 8 + i_1 + i_2 < 60` holding the loop of one iteration i_2), allocated in the
kernel, and the accesses are guarded at the edge. Run through the cuda-cpu emulation with the race
detector against numpy; these schedules were refused before (C_local left at the thread block)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import memref
from xdsl.dialects.builtin import StringAttr

import xtir
from tests.fuzz.gpu_fuzz import Program
from tests.test_cuda import nvcc_complaints, seed_gpu
from xtir.build import cuda_program, lower_to_gpu

# name: (pipeline, (m, n, k), C_local's shape)
GEMMS = {
    "local 8x8 threads, tile 1, 60x60x60": (seed_gpu.blocking(8, 1, 4), (60, 60, 60), (1, 1)),
    "local 2x2 threads, tile 1, 41x16x24": (seed_gpu.blocking(2, 1, 1), (41, 16, 24), (1, 1)),
    "local 4x4 threads, tile 1, 9x63x10": (seed_gpu.blocking(4, 1, 4), (9, 63, 10), (1, 1)),
    "shared 4x4 threads, tile 1, 40x61x16": (seed_gpu.blocking_with_shared(4, 1, 4), (40, 61, 16), (1, 1)),
    "shared 4x4 threads, tile 2, 33x47x20": (seed_gpu.blocking_with_shared(4, 2, 4), (33, 47, 20), (2, 2)),
    "seed 002 local blocking, 200x130x36": (seed_gpu.GEMM_LOCAL, (200, 130, 36), (8, 8)),
}


def _local_shapes(module: xtir.ModuleOp) -> dict[str, tuple[int, ...]]:
    return {op.memref.name_hint: op.memref.type.get_shape() for op in lower_to_gpu(module).walk()
            if isinstance(op, memref.AllocaOp) and op.memref.type.memory_space == StringAttr("local")}


@pytest.mark.parametrize("name", GEMMS)
def test_local_accumulator_at_the_edge(name: str) -> None:
    pipeline, (m, n, k), tile = GEMMS[name]
    module = seed_gpu.scheduled_gemm(pipeline, m, n, k)
    assert _local_shapes(module) == {"C_local": tile}
    arrays, expected = seed_gpu.gemm_inputs(m, n, k, np.random.default_rng(0))
    xtir.build(module, target="cuda-cpu", racecheck=True)(*arrays)
    assert float(np.max(np.abs(arrays[-1] - expected))) < 1e-3


ROWSUM_ONE_THREAD = (
    "split{loop=i factors=1,2},split{loop=i_0 factors=1,1},split{loop=j factors=12,1},"
    "reorder{loops=i_0_0,i_0_1,j_0,j_1,i_1},cache-write{block=B index=0 scope=local},"
    "reverse-compute-at{block=B_local loop=i_0_1},bind{loop=i_0_0 thread=\"blockIdx.x\"},"
    "bind{loop=i_0_1 thread=\"threadIdx.x\"},decompose-reduction{block=B loop=j_0}"
)


def test_whole_local_buffer_of_one_thread() -> None:
    """A row sum whose one thread sums both rows (the fuzzer's gpu_space seed 735): B_local is
    the whole 2 rows, nothing to shrink, and still the thread's own (it was left outside the thread
    loop and refused)."""
    program = Program("rowsum", (2, 12))
    module = xtir.transform(xtir.parse(program.text()), ROWSUM_ONE_THREAD)
    assert _local_shapes(module) == {"B_local": (2,)}
    arrays, expected = program.arrays(np.random.default_rng(0))
    xtir.build(module, target="cuda-cpu", racecheck=True)(*arrays)
    np.testing.assert_allclose(arrays[-1], expected, rtol=1e-5, atol=1e-5)


PRIVATE_PER_VTHREAD = """
func.func @main(%A: memref<4x8xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {
      %L = block.alloc : memref<1xf32, "local">
      block.for %u = 0 to 2 "v" bind("vthread.x") {
        block.block "L"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %x = block.load %A[%vb, %vt * 2 + %vu] : memref<4x8xf32>
          block.store %x, %L[0] : memref<1xf32, "local">
        }
        block.block "A"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %x = block.load %L[0] : memref<1xf32, "local">
          %y = arith.addf %x, %x : f32
          block.store %y, %A[%vb, %vt * 2 + %vu] : memref<4x8xf32>
        }
      }
    }
  }
  func.return
}
"""


def test_local_buffer_private_to_each_virtual_thread() -> None:
    """A local buffer each virtual thread writes before it reads, with nothing to shrink, moves into
    the vthread loop (each virtual thread its own copy) instead of being refused as shared."""
    a = np.random.default_rng(0).standard_normal((4, 8), dtype=np.float32)
    out = a.copy()
    xtir.build(xtir.parse(PRIVATE_PER_VTHREAD), target="cuda-cpu", racecheck=True)(out)
    np.testing.assert_array_equal(out, 2 * a)


ROWS_PER_THREAD = ('split{loop=i factors=-1,2,4},cache-write{block=B index=0 scope="local"},'
                   'reverse-compute-at{block=B_local loop=i_1},bind{loop=i_0 thread="blockIdx.x"},'
                   'bind{loop=i_1 thread="threadIdx.x"}')
GEMM_FUSED_THREADS = (
    "cache-write{block=C index=0 scope=local},split{loop=i factors=-1,2,8},split{loop=j factors=-1,2,8},"
    "split{loop=k factors=-1,4},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},bind{loop=i_0 thread=\"blockIdx.x\"},"
    "bind{loop=j_0 thread=\"blockIdx.y\"},fuse{loops=i_1,j_1},reverse-compute-at{block=C_local loop=i_1_j_1_fused},"
    "bind{loop=i_1_j_1_fused thread=\"threadIdx.x\"},decompose-reduction{block=C loop=k_0},unroll{loop=i_2}"
)
GEMM_2D_THREADS = (
    "cache-write{block=C index=0 scope=local},split{loop=i factors=-1,2,8},split{loop=j factors=-1,2,8},"
    "split{loop=k factors=-1,4},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},bind{loop=i_0 thread=\"blockIdx.x\"},"
    "bind{loop=j_0 thread=\"blockIdx.y\"},reverse-compute-at{block=C_local loop=j_1},bind{loop=i_1 thread=\"threadIdx.x\"},"
    "bind{loop=j_1 thread=\"threadIdx.y\"},decompose-reduction{block=C loop=k_0}"
)
# name: (program, pipeline, local buffers' shapes); the data along a dimension is no more than a thread's
# tile (the fuzzer's seeds 25, 536, 813, 984: bind refused them, the write-back having the whole range),
# but for the 7 rows (more than a thread's 4, less than the block's 8: built before too)
SMALLER_THAN_TILE = {
    "rowsum 3 rows, 2 threads of 4": (Program("rowsum", (3, 40)), ROWS_PER_THREAD, {"B_local": (3,)}),
    "rowsum 1 row, 2 threads of 4": (Program("rowsum", (1, 17)), ROWS_PER_THREAD, {"B_local": (1,)}),
    "rowsum 7 rows, 2 threads of 4": (Program("rowsum", (7, 9)), ROWS_PER_THREAD, {"B_local": (4,)}),
    "matmul_bt 4x56x38, fused threads": (Program("matmul_bt", (4, 56, 38)), GEMM_FUSED_THREADS, {"C_local": (4, 8)}),
    "matmul 5x7x9, fused threads": (Program("matmul", (5, 7, 9)), GEMM_FUSED_THREADS, {"C_local": (5, 7)}),
    "matmul 8x40x40, 2-d threads": (Program("matmul", (8, 40, 40)), GEMM_2D_THREADS, {"C_local": (8, 8)}),
    "matmul_bt 28x3x13, 2-d threads": (Program("matmul_bt", (28, 3, 13)), GEMM_2D_THREADS, {"C_local": (8, 3)}),
}


def _smaller_than_tile(name: str) -> tuple[xtir.ModuleOp, Program, dict[str, tuple[int, ...]]]:
    program, pipeline, shapes = SMALLER_THAN_TILE[name]
    return xtir.transform(xtir.parse(program.text()), pipeline), program, shapes


@pytest.mark.parametrize("name", SMALLER_THAN_TILE)
def test_local_accumulator_smaller_than_a_thread_tile(name: str) -> None:
    """The write-back under the thread loop covers the thread's part, predicated at the edge; the local
    buffer is the thread's tile cut to the data."""
    module, program, shapes = _smaller_than_tile(name)
    assert _local_shapes(module) == shapes
    arrays, expected = program.arrays(np.random.default_rng(1))
    xtir.build(module, target="cuda-cpu", racecheck=True)(*arrays)
    np.testing.assert_allclose(arrays[-1], expected, rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the emitted CUDA C is not compiled")
def test_local_accumulators_smaller_than_a_tile_compile_without_warnings(tmp_path: Path) -> None:
    failures = [f"{name}:\n{said}" for k, name in enumerate(SMALLER_THAN_TILE)
                if (said := nvcc_complaints(cuda_program(_smaller_than_tile(name)[0]).source, tmp_path / f"{k}.cu"))]
    assert not failures, "\n".join(failures)


def test_local_fetch_smaller_than_a_thread_tile() -> None:
    """compute-at's side (passes/compute_at_small.mlir): each thread fetches its part of the 3
    elements into its local buffer, predicated at the edge."""
    text = (Path(__file__).resolve().parent / "filecheck/passes/compute_at_small.mlir").read_text()
    module = xtir.transform(xtir.parse(text[text.index("\nbuiltin.module") + 1:]), (
        'split{loop=i factors=-1,2,4},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},'
        'cache-read{block=B index=0 scope="local"},compute-at{block=A_local loop=i_1}'))
    assert _local_shapes(module) == {"A_local": (3,)}
    a = np.random.default_rng(3).standard_normal(3, dtype=np.float32)
    b = np.full(3, np.nan, np.float32)
    xtir.build(module, target="cuda-cpu", racecheck=True)(a, b)
    np.testing.assert_array_equal(b, a + a)


def test_local_buffer_of_each_thread_block() -> None:
    """A kernel of thread blocks of one thread each using a local buffer whole (cuda/local_per_block.mlir):
    the buffer moves into the blockIdx loop and each block sums its own row."""
    text = (Path(__file__).resolve().parent / "filecheck/cuda/local_per_block.mlir").read_text()
    module = xtir.parse(text[text.index("\nbuiltin.module") + 1:])
    a = np.random.default_rng(4).standard_normal((4, 2), dtype=np.float32)
    b = np.full(4, np.nan, np.float32)
    xtir.build(module, target="cuda-cpu", racecheck=True)(a, b)
    np.testing.assert_array_equal(b, a[:, 0] + a[:, 1])
