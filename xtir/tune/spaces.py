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
innermost S3 is vectorized and the other S3 loops unrolled (a categorical decision).
"""

from __future__ import annotations

from collections.abc import Callable

from xtir.dialects.block import REDUCE, SERIAL, BlockOp, ForOp
from xtir.errors import XtirPassError
from xtir.passes.analysis.navigation import all_blocks, select_function
from xtir.schedule import BlockRV, LoopRV, Schedule

VECTOR_TILE_MAX = 64
"""The most float32 elements of the vectorized S3 loop (four AVX-512 registers)."""
REGISTER_TILE_MAX = 16
"""The most iterations of an unrolled S3 loop."""
REDUCE_TILE_MAX = 64
Rule = Callable[[Schedule, BlockRV], None]


def default_space(sch: Schedule) -> None:
    schedule_blocks(sch, multi_level_tiling, elementwise)


def schedule_blocks(sch: Schedule, reduction: Rule, other: Rule) -> None:
    """Inline the elementwise producers, then give each block in a fresh loop nest `reduction`
    or `other` (the frame of every space; spaces_gpu.py's too)."""
    names = _block_names(sch)
    for name in names:
        auto_inline(sch, BlockRV(name))
    for name in names:
        if name not in _block_names(sch) or not _fresh_nest(sch, BlockRV(name)):
            continue
        if REDUCE in _block(sch, BlockRV(name)).kinds:
            reduction(sch, BlockRV(name))
        else:
            other(sch, BlockRV(name))


def auto_inline(sch: Schedule, block: BlockRV) -> None:
    """Inline an elementwise block into its consumers, where that is legal (a refused inline leaves it)."""
    if REDUCE in _block(sch, block).kinds or not sch.get_consumers(block):
        return
    try:
        sch.compute_inline(block)
    except XtirPassError:
        pass  # not inlinable (it writes an output, or reads what it writes): it stays a block


def elementwise(sch: Schedule, block: BlockRV) -> None:
    *outer, inner = sch.get_loops(block)
    if _extent(sch, inner) >= 4:
        sch.vectorize(inner)
    if outer and sch.sample_categorical([True, False]):
        sch.parallel(sch.fuse(*outer) if len(outer) > 1 else outer[0])


def multi_level_tiling(sch: Schedule, block: BlockRV) -> None:
    loops = sch.get_loops(block)
    kinds = _block(sch, block).kinds
    spatial = [k for k, c in enumerate(kinds) if c != REDUCE]
    reduce = [k for k, c in enumerate(kinds) if c == REDUCE]
    vec = spatial[-1]
    s = {k: sch.split(loops[k], sch.sample_perfect_tile(
        loops[k], 4, VECTOR_TILE_MAX if k == vec else REGISTER_TILE_MAX)) for k in spatial}
    r = {k: sch.split(loops[k], sch.sample_perfect_tile(loops[k], 2, REDUCE_TILE_MAX)) for k in reduce}
    register = [s[k][3] for k in spatial if k != vec]
    sch.reorder(*[s[k][0] for k in spatial], *[s[k][1] for k in spatial], *[r[k][0] for k in reduce],
                *[s[k][2] for k in spatial], *[r[k][1] for k in reduce], *register, s[vec][3])
    outer = sch.fuse(*[s[k][0] for k in spatial]) if len(spatial) > 1 else s[vec][0]
    _accumulate_locally(sch, block, s[spatial[-1]][1])
    sch.decompose_reduction(block, r[reduce[0]][0])
    if _extent(sch, s[vec][3]) >= 2:
        sch.vectorize(s[vec][3])
    if sch.sample_categorical([True, False]):
        for loop in register:
            if _extent(sch, loop) > 1:
                sch.unroll(loop)
    sch.parallel(outer)


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


def _block_names(sch: Schedule) -> list[str]:
    return [b.label for b in all_blocks(select_function(sch.mod, sch.func_name))]


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
