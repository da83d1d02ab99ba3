"""reverse-compute-at{block=B loop=L preserve_unit_loops=false}: compute consumer B inside loop L
(TVM's reverse_compute_at).

B moves to the end of L's body (TVM's default: the last possible place), in a new
nest `ax0, ax1, ...` that consumes, per iteration of L, the region B's producers
write there (e.g. the 16x16 accumulator tile written back after the reduction loop).
Unit-extent loops are dropped unless preserve_unit_loops is set.

Legality (checked before anything changes): B and L in the same block scope, L not
around B; B is a complete block (spatial variables only, no init, reading no buffer it
writes: TVM's rule), since it runs again for every iteration of L; every producer of
what B reads is under L and before B, and none reduces over L or a loop around it (B
would read partial sums there); no block from L's start to B's old place reads or writes
B's output; and over all iterations of the loops around, the new nest still reaches B's
whole domain (otherwise some of B's output would never be computed, e.g. when B reads a
window wider than what one iteration produces). At its new place B runs the instances it
ran (its loops' reach, cut by its predicate), which must form a box.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from xtir.dialects.block import REDUCE, BlockOp, ForOp, buffer_name, loops_in_scope
from xtir.passes.analysis.compute_location import (
    VarRange,
    blocks_touching,
    buffers_touched,
    check_no_update_in_place,
    check_target,
    clip,
    covers_domain,
    instance_box,
    invert_region,
    program_order,
    required_region,
)
from xtir.passes.analysis.footprint import produced_each_iteration
from xtir.passes.analysis.inline import check_complete
from xtir.passes.analysis.last_run import stale_read
from xtir.passes.analysis.regions import read_regions, write_regions
from xtir.passes.compute_at import ComputeAtPass
from xtir.passes.transforms.move import move_under
from xtir.passes.utils import function_of
from xtir.support.errors import ScheduleError


def _producers_under(scope: Operation, block: BlockOp,
                     loop: ForOp) -> dict[SSAValue, list[BlockOp]]:
    """The blocks writing each buffer `block` reads, checked to be under `loop` and before `block`."""
    producers = {buffer: writers for buffer in buffers_touched(block, writes=False)
                 if (writers := blocks_touching(scope, buffer, writes=True, exclude=block))}
    if not producers:
        raise ScheduleError(block, f'block "{block.label}" reads no buffer written in its scope')
    order = program_order(function_of(block))
    for buffer, writers in producers.items():
        outside = [w for w in writers if not loop.is_ancestor(w)]
        if outside:
            raise ScheduleError(loop, f'producer block(s) {", ".join(w.label for w in outside)} of '
                                f'{buffer_name(buffer)} are not under loop "{loop.label}"; all producers of block '
                                f'"{block.label}" must be (TVM: Not all required blocks are under the loop scope)',
                                [(w, f'block "{w.label}" writes {buffer_name(buffer)} outside loop "{loop.label}"')
                                 for w in outside])
        if order[id(block)] < order[id(loop)]:
            raise ScheduleError(block, f'block "{block.label}" runs before its producers under loop "{loop.label}"')
    return producers


def _check_no_reordering(scope: Operation, block: BlockOp, loop: ForOp) -> None:
    """`block` runs after the loop now; under it, it would run before every block from the loop's
    start to its old place that touches its output. (Its inputs are written only by its producers,
    all under the loop, which it follows in every iteration.)"""
    order = program_order(function_of(block))

    def moved_past(other: BlockOp) -> bool:
        return order[id(loop)] < order[id(other)] < order[id(block)]

    for buffer in buffers_touched(block, writes=True):
        for writes in (False, True):
            for other in blocks_touching(scope, buffer, writes=writes, exclude=block):
                if moved_past(other):
                    raise ScheduleError(other, f'block "{other.label}" {"writes" if writes else "reads"} '
                                        f'{buffer_name(buffer)}, which block "{block.label}" writes, after loop '
                                        f'"{loop.label}" starts and before "{block.label}"; moving "{block.label}" '
                                        "under the loop would reorder the two",
                                        [(block, f'block "{block.label}" writes {buffer_name(buffer)}')])


def _consumed_ranges(block: BlockOp, loop: ForOp,
                     producers: dict[SSAValue, list[BlockOp]]) -> tuple[list[VarRange], str | None]:
    """The ranges of `block`'s variables that read what the producers write in one iteration of `loop`;
    every produced buffer must give the same ones. Also why what the producers write in one iteration
    is not shown exactly (then their derived region stands in, and the caller runs the loops)."""
    own_regions = read_regions(block)
    result: list[VarRange] | None = None
    unshown = None
    for buffer, writers in producers.items():
        needed, why = produced_each_iteration(loop, writers, buffer)
        if needed is None:
            needed, unshown = required_region(loop, writers, buffer, write_regions, relax_threads=False), why
        own = next(r for r in own_regions if r.buffer is buffer)
        for dim, (mine, made) in enumerate(zip(own.ranges, needed)):
            if made.extent < mine.extent:
                raise ScheduleError(block, f'block "{block.label}" reads {mine.extent} elements of '
                           f"{buffer_name(buffer)} along dimension {dim} at a time, but one iteration of loop "
                           f'"{loop.label}" produces only {made.extent}; it would read elements not produced yet')
        ranges = invert_region(block, own, needed, provides=False)
        if result is not None and ranges != result:
            raise ScheduleError(block, f'block "{block.label}" reads buffers that the loop "{loop.label}" '
                       "produces in differently shaped regions; its iteration range is ambiguous")
        result = ranges
    assert result is not None
    return result, unshown


def _check_producers_final(block: BlockOp, loop: ForOp,
                           producers: dict[SSAValue, list[BlockOp]]) -> None:
    """What one iteration of `loop` produces must be final: a producer reducing over `loop` (or a
    loop around it) has written only partial sums when `block` would read them."""
    chain = [*loops_in_scope(loop), loop]
    for buffer, writers in producers.items():
        for writer in writers:
            for it in writer.iters():
                for lp in chain:
                    if it.kind == REDUCE and it.binding.uses(lp.var):
                        raise ScheduleError(lp, f'loop "{lp.label}" feeds reduce variable %{it.var.name_hint} of '
                                   f'block "{writer.label}", which produces {buffer_name(buffer)}: under loop '
                                   f'"{loop.label}", block "{block.label}" would read partial results of the '
                                   "reduction; move it under a loop outside the reduction")


def reverse_compute_at(block: BlockOp, loop: ForOp, preserve_unit_loops: bool = False) -> BlockOp:
    """Move consumer `block` under `loop`; return the block at its new place."""
    scope = check_target(block, loop)
    check_complete(block, f'block "{block.label}"')
    check_no_update_in_place(block)
    producers = _producers_under(scope, block, loop)
    _check_producers_final(block, loop, producers)
    _check_no_reordering(scope, block, loop)
    box = instance_box(block)
    consumed, unshown = _consumed_ranges(block, loop, producers)
    ranges, overflow = clip(block, consumed, box)
    if (gap := covers_domain(block, ranges, box)) is not None:
        raise ScheduleError(block, f'under loop "{loop.label}", block "{block.label}" would not compute its whole '
                   f"domain: {gap}")
    if unshown is not None and (why := stale_read(loop, block, producers, [r.start for r in ranges],
                                                  [r.extent for r in ranges], box)) is not None:
        raise ScheduleError(loop, f'cannot compute block "{block.label}" under loop "{loop.label}": what its '
                   f"producers write in one iteration is not their region ({unshown}), and running the loops "
                   f"shows that {why}")
    anchor = loop.body.block.last_op
    assert anchor is not None
    return move_under(block, loop, anchor, False, ranges, overflow, preserve_unit_loops)


@dataclass(frozen=True)
class ReverseComputeAtPass(ComputeAtPass):
    """The same options as compute-at."""

    name = "reverse-compute-at"
    move = staticmethod(reverse_compute_at)
