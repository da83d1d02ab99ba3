"""Search spaces: functions `(sch: Schedule) -> None` written with the sampling primitives.

`default_space` inlines the elementwise producers, gives every reduction block a multi-level
tiling and every elementwise block left a vectorized, parallel loop nest. Each block in a
fresh loop nest (one loop per iteration variable, as te and the examples write them) is
scheduled; others are left as they are.

Multi-level tiling for the CPU (TVM MetaSchedule's SSRSRS): every spatial loop is split into
four (S0..S3) and every reduce loop into two (R0, R1), ordered S0 S1 R0 S2 R1 S3 with the
innermost spatial loop's S3 last; the S0 loops are fused and run in parallel; the result tile
under the last S1 loop accumulates in a `local` cache (cache-write, reverse-compute-at), into
whose write-back an elementwise epilogue is inlined; the init is decomposed out before R0; the
innermost S3 is vectorized and the other S3 loops unrolled. The reduce loops of a kernel window
(ry, rx of a convolution) are not split: they run whole, unrolled, between the R1 and the S3
loops.

The vectorized loop is the innermost spatial one, unless its extent is no multiple of the
vector width (the 56 pixels of a ResNet row): then it is sampled among it and the spatial
loops that are (the 64 filters), and the local accumulator is permuted to put the chosen
dimension last.

The S3 loops are the register tile, sampled first (a split in two, then the outer part in
three): the vector S3 in whole vector registers, the others within what it leaves of
REGISTER_TILE_MAX accumulators and, where the extents allow, at least ACCUMULATORS_MIN of
them, so that LLVM keeps the tile in registers and the FMA units busy. R1, inside the S2
loops, is at least REDUCE_TILE_MIN, and the S2 loops at most INNER_TILE_MAX: the register
tile is loaded and stored around each R1 loop.

An operand read along the vectorized dimension may be packed: copied (cache-read) into a
`global` buffer, a contiguous panel rather than rows a matrix apart. When that dimension is
not its last (B in C = A·Bᵀ, whose vector loads would be gathers), it is always packed, the
copy's layout permuted to put that dimension last (transform-layout); an operand already
contiguous along it (B in C = A·B) is packed or not, a sampled decision. The S1 loops of the
packed operand's dimensions go first, so that a pack computed at them serves all the S1
loops inside; the pack is computed at one of them, at the fused S0 loop, or (not transposed)
once before the nest (a sampled choice among these, rather than `sample_compute_location`
among all loops: a pack inside R0 or deeper is redone for every tile). With a pack, the S0
loops of the dimensions it does not index are 1: the fused S0 loop runs the packed operand's
panels in parallel, each packed once (as the hand schedule of benchmarks/matmul.py does).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.ir import SSAValue

from xtir.dialects.block import REDUCE, SERIAL, Access, AccessOp, BlockOp, ForOp
from xtir.dialects.expr import Expr
from xtir.errors import XtirPassError
from xtir.passes.analysis.regions import read_regions
from xtir.schedule import BlockRV, LoopRV, Schedule
from xtir.tune.sampling import divisors, perfect_tilings

VECTOR_TILE_MAX = 64
"""The most float32 elements of the vectorized S3 loop (four AVX-512 registers)."""
LANES = 16
"""float32 lanes of one vector register (AVX-512)."""
REGISTER_TILE_MAX = 24
"""The most vector accumulators of the register tile (of 32 AVX-512 registers; the rest hold
the operands)."""
ACCUMULATORS_MIN = 12
"""The fewest vector accumulators of the register tile, where the extents allow: fewer than FMA
latency (4) times FMA units (2) leave the units waiting, and each accumulator shares its
operand loads with fewer others."""
REDUCE_TILE_MIN = 64
"""The fewest iterations of an R1 loop, where the extent allows: the register tile is loaded
and stored around each R1 loop."""
WINDOW_MAX = 7
"""The most iterations of a kernel-window reduce loop unrolled whole (7x7 convolutions)."""
PARALLEL_JOBS = 64
"""Enough iterations of an elementwise parallel loop to share among the cores (fusing more loops
than that costs the dependence checks of every later primitive)."""
INNER_TILE_MAX = 8
"""The most iterations of an S2 loop: register tiles per local tile along one dimension. The
local tile is reloaded from memory each R1 loop, so S2 loops beyond R0 pay off only when few."""
Rule = Callable[[Schedule, BlockRV], None]


def default_space(sch: Schedule) -> None:
    schedule_blocks(sch, multi_level_tiling, elementwise)


def schedule_blocks(sch: Schedule, reduction: Rule, other: Rule) -> None:
    """Inline the elementwise producers, then give each block in a fresh loop nest `reduction`
    or `other` (the frame of every space; spaces_gpu.py's too)."""
    names = sch.block_names()
    for name in names:
        auto_inline(sch, BlockRV(name))
    fresh = [BlockRV(n) for n in sch.block_names() if _fresh_nest(sch, BlockRV(n))]
    reductions = [b for b in fresh if REDUCE in _block(sch, b).kinds]
    # the elementwise blocks last: each later primitive re-checks their parallel loops
    for block in reductions:
        reduction(sch, block)
    for block in fresh:
        if block not in reductions and block.name in sch.block_names():  # not inlined into a write-back
            other(sch, block)


def auto_inline(sch: Schedule, block: BlockRV) -> None:
    """Inline an elementwise block into its consumers, where that is legal (a refused inline leaves it)."""
    if REDUCE in _block(sch, block).kinds or not sch.get_consumers(block):
        return
    try:
        sch.compute_inline(block)
    except XtirPassError:
        pass  # not inlinable (it writes an output, or reads what it writes): it stays a block


def elementwise(sch: Schedule, block: BlockRV) -> None:
    """Split the innermost loop into a vectorized tile and the rest; the outer loops (or that
    rest, when there are none), fused as far as PARALLEL_JOBS needs, may run in parallel."""
    *outer, inner = sch.get_loops(block)
    rest, tile = _inner_split(sch, inner, _vector_tiles(_extent(sch, inner)))
    if _extent(sch, tile) >= 2:
        sch.vectorize(tile)
    if sch.sample_categorical([True, False]):
        jobs = [*outer, rest]
        while len(jobs) > 1 and math.prod(_extent(sch, lp) for lp in jobs[:-1]) >= PARALLEL_JOBS:
            jobs.pop()
        sch.parallel(sch.fuse(*jobs) if len(jobs) > 1 else jobs[0])


def multi_level_tiling(sch: Schedule, block: BlockRV) -> None:
    loops = sch.get_loops(block)
    op = _block(sch, block)
    spatial = [k for k, c in enumerate(op.kinds) if c != REDUCE]
    window = _window_loops(sch, op, loops)
    reduce = [k for k, c in enumerate(op.kinds) if c == REDUCE and k not in window]
    vec = _vector_dim(sch, loops, spatial)
    packed = [read for read in _reads_along(op, vec) if _pack_sampled(sch, read)]
    along = [k for k in spatial if any(op.iter_vars[k] in read.variables for read in packed)]
    permutation = _accumulator_permutation(op, vec)
    s = _spatial_tiles(sch, loops, spatial, vec, along if packed else None)
    r = {k: _inner_split(sch, loops[k], _reduce_tiles(_extent(sch, loops[k]))) for k in reduce}
    # the S1 loops of the packed operands' dimensions first: their packs are computed there,
    # once for all the S1 loops inside
    s1 = [*along, *[k for k in spatial if k not in along]]
    register = [s[k][3] for k in spatial if k != vec]
    sch.reorder(*[s[k][0] for k in spatial], *[s[k][1] for k in s1], *[r[k][0] for k in reduce],
                *[s[k][2] for k in spatial], *[r[k][1] for k in reduce], *[loops[k] for k in window],
                *register, s[vec][3])
    outer = sch.fuse(*[s[k][0] for k in spatial]) if len(spatial) > 1 else s[vec][0]
    _accumulate_locally(sch, block, s[s1[-1]][1])
    if permutation is not None:
        sch.transform_layout(block, ("write", 0), permutation)
    for read in packed:
        _pack(sch, block, read, [outer, *[s[k][1] for k in along if op.iter_vars[k] in read.variables]])
    sch.decompose_reduction(block, r[reduce[0]][0] if reduce else loops[window[0]])
    if _extent(sch, s[vec][3]) >= 2:
        sch.vectorize(s[vec][3])
    for loop in [*[loops[k] for k in window], *register]:
        if _extent(sch, loop) > 1:
            sch.unroll(loop)
    sch.parallel(outer)


def _spatial_tiles(sch: Schedule, loops: list[LoopRV], spatial: list[int], vec: int,
                   along: list[int] | None) -> dict[int, list[LoopRV]]:
    """Split each spatial loop into S0..S3 (see the module's doc), S3 (the register tile) first:
    the vectorized loop's (`vec`), then a sampled one of the others (the rows of the tile), then
    the rest; with a pack indexed by the dimensions `along`, see `_unit_outer`."""
    tiles = {vec: _inner_split(sch, loops[vec], _vector_tiles(_extent(sch, loops[vec])))}
    vectors = -(-_extent(sch, tiles[vec][1]) // LANES)
    budget, wanted = REGISTER_TILE_MAX // vectors, -(-ACCUMULATORS_MIN // vectors)
    rest = [k for k in spatial if k != vec]
    others = [k for k in reversed(rest) if _extent(sch, loops[k]) > 1]
    if others:
        rows = sch.sample_categorical(others)
        others = [rows, *[k for k in others if k != rows]]
    for k in [*others, *[k for k in rest if k not in others]]:
        fitting = [d for d in divisors(_extent(sch, loops[k])) if d <= max(1, budget)]
        tiles[k] = _inner_split(sch, loops[k], [d for d in fitting if d >= wanted] or fitting)
        budget //= _extent(sch, tiles[k][1])
        wanted = -(-wanted // _extent(sch, tiles[k][1]))
    unit_outer = _unit_outer(sch, tiles, spatial, along)
    return {k: [*sch.split(rest, _outer_tiles(sch, rest, k in unit_outer, bool(unit_outer))), register]
            for k, (rest, register) in tiles.items()}


def _unit_outer(sch: Schedule, tiles: dict[int, list[LoopRV]], spatial: list[int], along: list[int] | None) -> list[int]:
    """The spatial dimensions whose S0 is 1: with a pack, those it does not index. A pack computed
    under an S0 loop of such a dimension is redone for each of its iterations (an S0 of 4 rows of
    A·Bᵀ packs B four times: 0.78 of the hand schedule's speed); the packed dimensions' S0 then
    run in parallel. None when the register tile leaves the packed dimensions a single
    iteration (a convolution's 64 filters in one 64-lane tile): the parallel loop must then
    come from the others, and the small pack is redone."""
    if along is None or all(_extent(sch, tiles[k][0]) < 2 for k in along):
        return []
    return [k for k in spatial if k not in along]


def _outer_tiles(sch: Schedule, loop: LoopRV, unit_outer: bool, parallel_only: bool) -> list[int]:
    """The factors S0, S1, S2 of what the register tile leaves of a spatial loop; S0 is 1 when
    `unit_outer`, and at least 2 where it can be when the other S0 loops are 1 (`parallel_only`):
    an S0 of 1 there leaves the parallel loop a single iteration, one core idle."""
    if unit_outer:
        return [1, *sch.sample_perfect_tile(loop, 2, INNER_TILE_MAX)]
    if parallel_only:
        shared = [t for t in perfect_tilings(_extent(sch, loop), 3, INNER_TILE_MAX) if t[0] >= 2]
        if shared:
            return sch.sample_categorical(shared)
    return sch.sample_perfect_tile(loop, 3, INNER_TILE_MAX)


def _vector_tiles(extent: int) -> list[int]:
    """Factors of `extent` for the vectorized loop: whole vectors, else at least half of one."""
    fitting = [d for d in divisors(extent) if d <= VECTOR_TILE_MAX]
    return ([d for d in fitting if d % LANES == 0] or [d for d in fitting if d >= LANES // 2] or fitting)


def _inner_split(sch: Schedule, loop: LoopRV, candidates: list[int]) -> list[LoopRV]:
    """Split `loop` in two, the inner factor sampled from `candidates` (divisors of its extent)."""
    return sch.split(loop, [None, sch.sample_categorical(candidates)])


def _vector_dim(sch: Schedule, loops: list[LoopRV], spatial: list[int]) -> int:
    """The innermost spatial loop, unless its extent is no whole number of vectors and others'
    are: then it or one of those, sampled. A vector of 56 (the width of a ResNet image) is
    three registers and a half that LLVM computes in four instructions (16, 8, 4 and 2 lanes):
    a 64-filter convolution tuned to 190 GFLOP/s along its width, 250 along its filters; a
    pooling, with no weight to reuse, may prefer the width all the same. Along another loop
    than the innermost, the operands and the accumulator are permuted to make it contiguous."""
    last = spatial[-1]
    whole = [k for k in spatial if _extent(sch, loops[k]) % LANES == 0]
    if _extent(sch, loops[last]) % LANES == 0 or not whole:
        return last
    return sch.sample_categorical([*whole, last])


def _window_loops(sch: Schedule, op: BlockOp, loops: list[LoopRV]) -> list[int]:
    """The reduce loops of a kernel window (ry, rx in x[yy + ry, xx + rx]): of at most
    WINDOW_MAX iterations, indexing a read in one dimension with a spatial variable. They are
    neither split nor tiled but unrolled whole inside the R1 loops (a 3x3 convolution: 25
    GFLOP/s with them as loops, 140 unrolled)."""
    spatial = {v for v, c in zip(op.iter_vars, op.kinds) if c != REDUCE}
    shifted = {v for a in _accesses(op, write=False) for e in a.indices if spatial & set(e.variables())
               for v in e.variables()}
    return [k for k, (v, c) in enumerate(zip(op.iter_vars, op.kinds))
            if c == REDUCE and v in shifted and _extent(sch, loops[k]) <= WINDOW_MAX]


def _reduce_tiles(extent: int) -> list[int]:
    return [d for d in divisors(extent) if d >= REDUCE_TILE_MIN] or divisors(extent)


@dataclass(frozen=True)
class _Read:
    """A buffer a block reads along its vectorized dimension: the block's `index`-th read,
    `dims` the dimensions the vectorized iteration variable indexes, `variables` all the
    iteration variables indexing it."""

    index: int
    rank: int
    dims: tuple[int, ...]
    variables: frozenset[SSAValue]

    @property
    def transposed(self) -> bool:
        return self.dims != (self.rank - 1,)


def _accesses(op: BlockOp, write: bool) -> list[Access]:
    return [a for o in op.body.walk() if isinstance(o, AccessOp) for a in o.accesses() if a.is_write == write]


def _dims_along(indices: list[tuple[Expr, ...]], var: SSAValue) -> list[int]:
    """The dimensions that `var` indexes in any of `indices`."""
    return sorted({d for idx in indices for d, e in enumerate(idx) if e.coefficient(var)})


def _vectors_last(rank: int, dims: Sequence[int]) -> list[int]:
    """The permutation that moves `dims` (those of the vectorized variable) last."""
    return [*[d for d in range(rank) if d not in dims], *dims]


def _reads_along(op: BlockOp, vec: int) -> list[_Read]:
    accesses = _accesses(op, write=False)
    found = []
    for index, region in enumerate(read_regions(op)):
        indices = [a.indices for a in accesses if a.buffer is region.buffer]
        dims = _dims_along(indices, op.iter_vars[vec])
        if dims:
            found.append(_Read(index, len(region.ranges), tuple(dims),
                               frozenset(v for idx in indices for e in idx for v in e.variables())))
    return found


def _pack_sampled(sch: Schedule, read: _Read) -> bool:
    """Always for a transposed read (its vector loads would be gathers); else a sampled decision."""
    return read.transposed or sch.sample_categorical([True, False])


def _pack(sch: Schedule, block: BlockRV, read: _Read, locations: list[LoopRV]) -> None:
    """Copy the operand into a `global` buffer (its vectorized dimensions last), computed at one
    of `locations` or, when not transposed, before the block's nest: a transposed copy of the
    whole operand is serial and writes a row apart each element (A·Bᵀ ran at 0.38 of the hand
    schedule's speed with it)."""
    copy = sch.cache_read(block, read.index, "global")
    if read.transposed:
        sch.transform_layout(copy, ("write", 0), _vectors_last(read.rank, read.dims))
    location = sch.sample_categorical(locations if read.transposed else [None, *locations])
    if location is not None:
        sch.compute_at(copy, location)


def _accumulate_locally(sch: Schedule, block: BlockRV, loop: LoopRV) -> None:
    """Keep the tile under `loop` in a local buffer written back there; inline an elementwise
    epilogue (bias, relu) into the write-back."""
    consumers = sch.get_consumers(block)
    copy = sch.cache_write(block, 0, "local")
    sch.reverse_compute_at(copy, loop)
    for consumer in consumers:
        if REDUCE not in _block(sch, consumer).kinds:
            try:
                sch.reverse_compute_inline(consumer)
            except XtirPassError:
                pass  # not a pure elementwise read of the result: it stays a block of its own


def _accumulator_permutation(op: BlockOp, vec: int) -> list[int] | None:
    """The local accumulator's permutation when the vectorized dimension is not the result's
    last (the filters of an NCHW convolution): its loads and stores around each R1 loop are
    then vectors rather than gathers; the write-back, once per tile, transposes."""
    indices = [a.indices for a in _accesses(op, write=True)]
    dims = _dims_along(indices, op.iter_vars[vec])
    rank = len(indices[0])
    return _vectors_last(rank, dims) if dims and dims != [rank - 1] else None


def _fresh_nest(sch: Schedule, block: BlockRV) -> bool:
    """Loop k binds iteration variable k, and no loop is scheduled yet."""
    op = _block(sch, block)
    loops = [_loop(sch, lp) for lp in sch.get_loops(block)]
    bindings = [b.as_var() for b in op.bindings()]
    return (len(loops) == len(bindings) and all(b is lp.var and lp.kind == SERIAL for b, lp in zip(bindings, loops))
            and not op.predicate())


def _extent(sch: Schedule, loop: LoopRV) -> int:
    return _loop(sch, loop).extent


def _block(sch: Schedule, block: BlockRV) -> BlockOp:
    op = sch.get(block)
    assert isinstance(op, BlockOp)
    return op


def _loop(sch: Schedule, loop: LoopRV) -> ForOp:
    op = sch.get(loop)
    assert isinstance(op, ForOp)
    return op
