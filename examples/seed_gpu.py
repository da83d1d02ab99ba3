"""Seed 002 on the GPU: its four schedules and a hand GEMM schedule, compiled to CUDA C and run.

Run: python examples/seed_gpu.py [--target cuda|cuda-cpu] [--n N] [--show]

For each schedule (vector add, window sum, GEMM with local blocking, GEMM with shared-memory
blocking, and the hand GEMM schedule of benchmarks/gpu_matmul.py: 128x128 tiles, 8x8 per
thread, double-buffered shared tiles, A's tile k-major) the program of examples/ is scheduled, lowered to the
gpu dialect, printed as CUDA C (--show), run on the target and checked against numpy. `cuda-cpu` (the default) runs the
same CUDA C on the CPU, one thread per CUDA thread, so keep --n small there (the GEMMs run
at N, default 128; the last m, n and k tiles may be partial: --n 1000 or --n 60 runs, the
fetch of a partial k tile stopping at k; vector add and window sum at 1024 as in the seed).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np

import xtir

EXAMPLES = Path(__file__).resolve().parent

VECTOR_ADD = 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"}'

WINDOW_SUM = (
    VECTOR_ADD + ',cache-read{block=B index=0 scope="shared"},compute-at{block=A_shared loop=i_1},'
    'split{loop=ax0 factors=-1,128},bind{loop=ax0_1 thread="threadIdx.x"}'
)


def blocking(tile_block: int, tile_thread: int, tile_k: int) -> str:
    """Seed 002's `blocking`: C_local per thread, k split, (i_1, j_1) on (threadIdx.x, threadIdx.y)."""
    return (
        f'cache-write{{block=C index=0 scope="local"}},split{{loop=i factors=-1,{tile_block},{tile_thread}}},'
        f"split{{loop=j factors=-1,{tile_block},{tile_thread}}},split{{loop=k factors=-1,{tile_k}}},unroll{{loop=k_1}},"
        "reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},reverse-compute-at{block=C_local loop=j_1},"
        'bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1 thread="threadIdx.x"},'
        'bind{loop=j_1 thread="threadIdx.y"},decompose-reduction{block=C loop=k_0}'
    )


def _fetch(index: int, buffer: str, threads: int) -> str:
    """Seed 002's `cache_read_and_coop_fetch`: a shared tile at k_0, fetched by all threads, 4 floats each."""
    loop = f"{buffer}/ax0_ax1_fused"
    return (
        f'cache-read{{block=C index={index} scope="shared"}},compute-at{{block={buffer} loop=k_0}},'
        f'fuse{{loops="{buffer}/ax0","{buffer}/ax1"}},split{{loop="{loop}" factors=-1,{threads},4}},'
        f'bind{{loop="{loop}_1" thread="threadIdx.x"}},vectorize{{loop="{loop}_2"}}'
    )


def _thread_grid(tile_block: int, tile_thread: int, tile_k: int, phase: tuple[int, int] | None,
                 split_columns: bool = False) -> str:
    """C split into blocks of tile_block x tile_block threads, each with a tile_thread-square tile;
    the thread loops fused into one (bound by the caller), the tile's loops innermost (i_2, j_2).
    With `phase` = (p, q), consecutive threads form p x q grids of tiles (q fastest) instead of
    rows of tile_block tiles; the fused loop is then i_1_j_1_i_2_j_2_fused, the tile's i_3, j_3.
    With `split_columns`, a thread's columns are two groups of tile_thread / 2, half a block apart:
    j split (2, tile_block, tile_thread / 2), the 2 (j_1) outermost under the block loops (bound to
    vthread.x by the caller); the fused loop is i_1_j_2_fused, the tile's i_2, j_3."""
    if split_columns:
        return (f"split{{loop=i factors=-1,{tile_block},{tile_thread}}},"
                f"split{{loop=j factors=-1,2,{tile_block},{tile_thread // 2}}},split{{loop=k factors=-1,{tile_k}}},"
                "reorder{loops=i_0,j_0,j_1,i_1,j_2,k_0,k_1,i_2,j_3},fuse{loops=i_1,j_2}")
    if phase is None:
        return (f"split{{loop=i factors=-1,{tile_block},{tile_thread}}},"
                f"split{{loop=j factors=-1,{tile_block},{tile_thread}}},split{{loop=k factors=-1,{tile_k}}},"
                "reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},fuse{loops=i_1,j_1}")
    p, q = phase
    return (f"split{{loop=i factors=-1,{tile_block // p},{p},{tile_thread}}},"
            f"split{{loop=j factors=-1,{tile_block // q},{q},{tile_thread}}},split{{loop=k factors=-1,{tile_k}}},"
            "reorder{loops=i_0,j_0,i_1,j_1,i_2,j_2,k_0,k_1,i_3,j_3},fuse{loops=i_1,j_1,i_2,j_2}")


def blocking_with_shared(tile_block: int, tile_thread: int, tile_k: int, decompose: bool = False,
                         phase: tuple[int, int] | None = None, split_columns: bool = False,
                         operands: tuple[str, str, str] = ("A", "B", "C")) -> str:
    """Seed 002's `blocking_with_shared`: the thread loops fused onto threadIdx.x, A and B tiles in
    shared memory (`phase`, `split_columns`: see _thread_grid). `operands` names the buffers of A, B
    and C (after pad-einsum: A_pad, B_pad, C_pad), which name the caches."""
    a, b, out = operands
    threads = tile_block * tile_block
    fused = "i_1_j_2_fused" if split_columns else "i_1_j_1_fused" if phase is None else "i_1_j_1_i_2_j_2_fused"
    pipeline = (
        'cache-write{block=C index=0 scope="local"},' + _thread_grid(tile_block, tile_thread, tile_k, phase, split_columns)
        + f",reverse-compute-at{{block={out}_local loop={fused}}},"
        'bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},'
        + ('bind{loop=j_1 thread="vthread.x"},' if split_columns else "")
        + f'bind{{loop={fused} thread="threadIdx.x"}},'
        + _fetch(0, f"{a}_shared", threads) + "," + _fetch(1, f"{b}_shared", threads)
    )
    return pipeline + (",decompose-reduction{block=C loop=k_0}" if decompose else "")


GEMM_LOCAL = blocking(8, 8, 4)
GEMM_SHARED = blocking_with_shared(8, 8, 8)
GEMM_SHARED_PADDED = GEMM_SHARED + ",storage-align{block=A_shared index=0 axis=0 factor=8 offset=1}"
"""GEMM_SHARED with A's 64x8 tile in rows of 9: a warp's threads read rows 8 apart (one bank with
rows of 8: 4 wavefronts, per lowering/bank_conflicts.py), with rows of 9 eight banks apart (1);
the fetch's float4 stores become scalar (rows of 9 are not 16-byte aligned)."""


def hand_gemm(tile_k: int = 8, double_buffer: bool = True, transpose_a: bool = True, pad_a: bool = False,
              phase_grid: bool = False, split_columns: bool = False, pad: bool = False) -> str:
    """The best hand schedule: a 128x128 tile of C per thread block, 8x8 per thread in registers
    (16 x 16 = 256 threads), k in steps of `tile_k`, the A and B tiles double-buffered in shared
    memory (the next tile fetched with float4 while this one is computed on), A's tile stored
    transposed (k-major: at each k a thread reads its 8 rows of A as two float4, as it reads its
    8 columns of B), the init split off and the inner loops unrolled.

    `pad_a` (with transpose_a) pads the k-major A tile's rows from 128 to 132 floats
    (storage-align factor 32 offset 4): the fetch's transposed scalar stores, two threads per
    column 4 rows apart, then fall in different banks (2 wavefronts a warp become 1, per
    lowering/bank_conflicts.py) and the rows stay 16-byte aligned for float4 reads.

    `phase_grid` numbers the threads so that each quarter warp (8 threads, one phase of a float4
    shared load) holds a 2 x 4 grid of thread tiles instead of 8 tiles side by side in a row: its
    fragment reads of B then fall at 4 column offsets 8 floats apart (128 bytes, every bank once;
    a row of 8 tiles spans 256 bytes, two threads per bank: 8 wavefronts a warp become 4), and A's
    at 2 row offsets (still 4). A warp still covers 2 rows x 16 columns of tiles, so C's
    write-back and the fetches are unchanged.

    `split_columns` is the classic fix instead: each thread's 8 columns are two groups of 4, 64
    apart (j split (2, 16, 4)), the 2 bound to vthread.x as TVM does (with it serial, C_local's
    write-back under the thread loop would cover a region that is not a box, which
    reverse-compute-at refuses). A quarter warp's float4 reads of B then cover 8 consecutive
    groups of 4 columns (128 bytes); lower-to-gpu runs the virtual threads serially in each
    thread, C_local one 8x4 array per virtual thread.

    `pad` first pads the GEMM to multiples of the tiles (pad-einsum: m and n to 128, k to
    `tile_k`), so no tile is partial and the compute is unguarded; the padded copies of A and B
    are inlined into the shared fetches (zeros outside A and B) and C's crop into the write-back
    (its guard). Only for sizes where every one of A, B and C needs padding (A where m or k is no
    multiple of its tile, B where k or n is, C where m or n is): otherwise pad-einsum makes no copy
    of that buffer, and the inline naming it stops with a located error. At n = 1000
    (benchmarks/gemm_ptx.py --n 1000 1020 --pad, sm_90) ptxas gives it 168 registers against 210 for
    the versioned kernel (1020: 180 against 201), and both versions' main loops read their fragments
    as 4 ld.shared.v4 a k step (the versioned kernel's guarded copy: 128 scalar ld.shared). Its
    fetches, `if_then_else(in range, A[..], 0)`, are float4 selects (0.25 ld.global.v4 a k step, as
    unpadded) where the range test holds on all 4 lanes or none, the rows 16-byte aligned (k and n
    multiples of 4; lowering/cuda_align.py); at other sizes they load element by element."""
    if split_columns and phase_grid:
        raise ValueError("split_columns and phase_grid are two layouts of the thread tiles: choose one")
    a_shared, b_shared = ("A_pad_shared", "B_pad_shared") if pad else ("A_shared", "B_shared")
    layout = f",transform-layout{{buffer={a_shared} permutation=1,0}}" if transpose_a else ""
    if pad_a and not transpose_a:
        raise ValueError("pad_a pads the rows of the k-major A tile: it goes with transpose_a")
    if pad_a:
        layout += f",storage-align{{block={a_shared} index=0 axis=0 factor=32 offset=4}}"
    double = f",double-buffer{{block={a_shared}}},double-buffer{{block={b_shared}}}" if double_buffer else ""
    rows, cols = ("i_3", "j_3") if phase_grid else ("i_2", "j_3") if split_columns else ("i_2", "j_2")
    operands = ("A_pad", "B_pad", "C_pad") if pad else ("A", "B", "C")
    pipeline = (blocking_with_shared(16, 8, tile_k, decompose=True, phase=(2, 4) if phase_grid else None,
                                     split_columns=split_columns, operands=operands)
                + layout + double + f",unroll{{loop=k_1}},unroll{{loop={rows}}},unroll{{loop={cols}}}")
    if not pad:
        return pipeline
    return (f"pad-einsum{{block=C padding=128,128,{tile_k}}},{pipeline},"
            "compute-inline{block=A_pad},compute-inline{block=B_pad},reverse-compute-inline{block=C_pad}")


GEMM_HAND = hand_gemm()

SCHEDULES = {
    "vector_add": ("vector_add.mlir", VECTOR_ADD),
    "window_sum": ("window_sum.mlir", WINDOW_SUM),
    "gemm_local": ("gpu_matmul.mlir", GEMM_LOCAL),
    "gemm_shared": ("gpu_matmul.mlir", GEMM_SHARED),
    "gemm_hand": ("gpu_matmul.mlir", GEMM_HAND),
}


def scheduled(example: str, pipeline: str, n: int = 1024) -> xtir.ModuleOp:
    """examples/`example` at size n (1024 in the seed; the window sum's input is n + 2), scheduled."""
    text = (EXAMPLES / example).read_text().replace("1026", str(n + 2)).replace("1024", str(n))
    return xtir.transform(xtir.parse(text), pipeline)


def scheduled_gemm(pipeline: str, m: int, n: int, k: int) -> xtir.ModuleOp:
    """examples/gpu_matmul.mlir as C (m x n) = A (m x k) · B (k x n), scheduled."""
    shapes = {"A": (m, k), "B": (k, n), "C": (m, n)}
    extents = {"i": m, "j": n, "k": k}
    text = (EXAMPLES / "gpu_matmul.mlir").read_text()
    text = re.sub(r"%([ABC])(: |\[[^\]]*\] : )memref<1024x1024xf32>",
                  lambda g: f"%{g[1]}{g[2]}memref<{shapes[g[1]][0]}x{shapes[g[1]][1]}xf32>", text)
    text = re.sub(r"%([ijk]) = 0 to 1024", lambda g: f"%{g[1]} = 0 to {extents[g[1]]}", text)
    text = re.sub(r"\(1024, %([ijk])\)", lambda g: f"({extents[g[1]]}, %{g[1]})", text)
    return xtir.transform(xtir.parse(text), pipeline)


def gemm_inputs(m: int, n: int, k: int, rng: np.random.Generator) -> tuple[list[np.ndarray], np.ndarray]:
    """A, B and C (filled with NaN) for C = A · B, and numpy's result."""
    a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
    return [a, b, np.full((m, n), np.nan, np.float32)], a @ b


def inputs(name: str, n: int, rng: np.random.Generator) -> tuple[list[np.ndarray], np.ndarray]:
    """The arguments (the output filled with NaN) and numpy's result."""
    if name.startswith("gemm"):
        return gemm_inputs(n, n, n, rng)
    if name == "window_sum":
        a = rng.standard_normal(n + 2, dtype=np.float32)
        return [a, np.full(n, np.nan, np.float32)], a[:-2] + a[1:-1] + a[2:]
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    return [a, b, np.full(n, np.nan, np.float32)], a + b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", default="cuda-cpu", choices=["cuda", "cuda-cpu"])
    parser.add_argument("--n", type=int, default=128, help="GEMM size (default 128)")
    parser.add_argument("--show", action="store_true", help="print each kernel's CUDA C")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for name, (example, pipeline) in SCHEDULES.items():
        n = args.n if name.startswith("gemm") else 1024
        f = xtir.build(scheduled(example, pipeline, n), target=args.target)
        if args.show:
            print(f.cuda_source)
        arrays, expected = inputs(name, n, rng)
        f(*arrays)
        err = float(np.max(np.abs(arrays[-1] - expected)))
        print(f"{name:12} n={n:5}  {f.launch_description.splitlines()[0]}  max_abs_err={err:.2g}")
        assert err < 1e-3 * max(1.0, float(np.max(np.abs(expected)))), name


if __name__ == "__main__":
    main()
