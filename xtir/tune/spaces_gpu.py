"""The GPU search space (targets "cuda" and "cuda-cpu"): seed 002's shared-memory blocking, sampled.

`gpu_space` inlines the elementwise producers, gives every reduction block `gpu_tiling` and
binds every elementwise block left to blockIdx.x / threadIdx.x. Only blocks in a fresh loop
nest are scheduled (as `default_space`); a GPU kernel needs every loop nest bound, so a
function with a block left unscheduled fails to build and counts as a failed candidate.

`gpu_tiling`: every spatial loop is split into (block, thread, local): the block loops are
fused onto blockIdx.x, the thread loops onto threadIdx.x; every reduce loop into (k0, k1),
ordered block, thread, k0, k1, local. Each thread accumulates its local tile in a `local`
buffer written back under the thread loop (an elementwise epilogue inlined into the
write-back); the init is decomposed out before k0. Each operand is, by a categorical
decision, fetched per k0 step into a `shared` tile by all the threads of the block together
(the fetch loops fused, split over threadIdx.x, 4 elements a thread vectorized where the tile
divides evenly), and the k1 and local loops are unrolled or not (another decision).

The limits of lower-to-gpu hold by construction: at most MAX_THREADS threads a block (the
thread factors of d spatial loops are each at most the d-th root), and an operand whose tile
would take the shared memory over SHARED_BYTES, or is one element, stays in global memory (for a matmul, with k1 at
most REDUCE_TILE_MAX, two tiles take at most 2 * 32 * 8 * 16 * 4 bytes = 32 KiB).
"""

from __future__ import annotations

from collections.abc import Callable

from xtir.dialects.block import REDUCE, buffer_name
from xtir.passes.analysis.navigation import loops_around
from xtir.passes.analysis.regions import read_regions
from xtir.schedule import BlockRV, LoopRV, Schedule
from xtir.tune.features import block_accesses, footprint_bytes
from xtir.tune.spaces import _accumulate_locally, _block, _extent, _loop, schedule_blocks

MAX_THREADS = 1024
LOCAL_TILE_MAX = 8
"""The most elements of one spatial loop a thread computes (its register tile)."""
REDUCE_TILE_MAX = 16
SHARED_BYTES = 48 * 1024
"""The shared memory a thread block may use (lower-to-gpu refuses more)."""
VECTOR = 4
"""Elements a thread fetches at once into shared memory (a float4 where aligned)."""


def gpu_space(sch: Schedule) -> None:
    schedule_blocks(sch, gpu_tiling, bind_elementwise)


def bind_elementwise(sch: Schedule, block: BlockRV) -> None:
    bind_fused(sch, sch.get_loops(block))


def bind_fused(sch: Schedule, loops: list[LoopRV], threads: int | None = None) -> None:
    """Fuse `loops`, split by `threads` (the last block guarded; sampled when None) and bind
    the two to blockIdx.x / threadIdx.x."""
    fused = sch.fuse(*loops) if len(loops) > 1 else loops[0]
    factors = [None, threads] if threads else sch.sample_perfect_tile(fused, 2, MAX_THREADS)
    grid, thread = sch.split(fused, factors)
    sch.bind(grid, "blockIdx.x")
    sch.bind(thread, "threadIdx.x")


def gpu_tiling(sch: Schedule, block: BlockRV) -> None:
    loops = sch.get_loops(block)
    kinds = _block(sch, block).kinds
    spatial = [loops[k] for k, c in enumerate(kinds) if c != REDUCE]
    reduce = [loops[k] for k, c in enumerate(kinds) if c == REDUCE]
    per_dim = int_root(MAX_THREADS, len(spatial))
    grid, threads, local = [], [], []
    for loop in spatial:
        outer, inner = sch.split(loop, sch.sample_perfect_tile(loop, 2, LOCAL_TILE_MAX))
        b, t = sch.split(outer, sch.sample_perfect_tile(outer, 2, per_dim))
        grid.append(b)
        threads.append(t)
        local.append(inner)
    k0, k1 = zip(*[sch.split(loop, sch.sample_perfect_tile(loop, 2, REDUCE_TILE_MAX)) for loop in reduce])
    thread = bind_tiles(sch, block, grid, threads, [*k0, *k1, *local])
    fetch_to_shared(sch, block, thread, k0[-1], [*k1, *local], lambda: sch.sample_categorical([True, False]))
    if sch.sample_categorical([True, False]):
        for loop in [*k1, *local]:
            if _extent(sch, loop) > 1:
                sch.unroll(loop)
    sch.decompose_reduction(block, k0[0])


def bind_tiles(sch: Schedule, block: BlockRV, grid: list[LoopRV], threads: list[LoopRV], inner: list[LoopRV]) -> LoopRV:
    """Order the loops (block tiles, thread tiles, then `inner`: k0, k1, local), fuse the block
    loops onto blockIdx.x and the thread loops onto threadIdx.x, and accumulate each thread's
    tile in a local buffer (default-gpu-schedule's tiling too); returns the thread loop."""
    sch.reorder(*grid, *threads, *inner)
    thread = sch.fuse(*threads) if len(threads) > 1 else threads[0]
    block_loop = sch.fuse(*grid) if len(grid) > 1 else grid[0]
    _accumulate_locally(sch, block, thread)
    sch.bind(block_loop, "blockIdx.x")
    sch.bind(thread, "threadIdx.x")
    return thread


def fetch_to_shared(sch: Schedule, block: BlockRV, thread: LoopRV, at: LoopRV, inner: list[LoopRV],
                    wanted: Callable[[], bool] = lambda: True) -> None:
    """Fetch each operand of `block` the caller `wanted` into shared memory per step of `at`
    (`_cooperative_fetch`), in the order the block reads them, while the tiles fit in
    SHARED_BYTES; an operand whose tile under (`thread`, `inner`) is one element stays in
    global memory (no loop to share out among the threads)."""
    shared = 0
    for buffer in [buffer_name(r.buffer) for r in read_regions(_block(sch, block))]:
        tile = _tile_bytes(sch, block, buffer, [thread, *inner])
        one_element = tile == _tile_bytes(sch, block, buffer, [])
        if wanted() and not one_element and shared + tile <= SHARED_BYTES:
            _cooperative_fetch(sch, block, buffer, at, _extent(sch, thread))
            shared += tile


def _cooperative_fetch(sch: Schedule, block: BlockRV, buffer: str, at: LoopRV, threads: int) -> None:
    """Fetch the block's `buffer` tile used under `at` into shared memory, all threads together."""
    copy = sch.cache_read(block, buffer, "shared")
    sch.compute_at(copy, at)
    fetch = sch.get_loops(copy)[len(loops_around(sch.get(at))) + 1:]
    row = _extent(sch, fetch[-1])
    fused = sch.fuse(*fetch) if len(fetch) > 1 else fetch[0]
    extent = _extent(sch, fused)
    if extent % (threads * VECTOR) == 0 and row % VECTOR == 0:
        _, t, v = sch.split(fused, [None, threads, VECTOR])
        sch.vectorize(v)
    else:
        _, t = sch.split(fused, [None, threads])
    sch.bind(t, "threadIdx.x")


def _tile_bytes(sch: Schedule, block: BlockRV, buffer: str, inner: list[LoopRV]) -> int:
    """The bytes of `buffer` the block reads while the `inner` loops run: its tile in one k0 step of a thread block."""
    accesses = [a for a in block_accesses(_block(sch, block)) if buffer_name(a.buffer) == buffer]
    return footprint_bytes(accesses, [_loop(sch, lp) for lp in inner])


def int_root(n: int, d: int) -> int:
    """The largest m with m**d <= n."""
    m = 1
    while (m + 1) ** d <= n:
        m += 1
    return m
