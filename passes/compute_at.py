"""compute-at{block=B loop=L preserve_unit_loops=false}: compute producer B inside loop L (TVM's compute_at).

B moves to the start of L's body, just before the first statement holding one of its
consumers, in a new nest `ax0, ax1, ...` that computes, per iteration of L, only the
region of its output those consumers read there (e.g. a 16x16 tile of a cache, or the
130-element window a thread block of the window sum reads). Unit-extent loops are
dropped unless preserve_unit_loops is set. A range that can run past B's domain gets
a `where` predicate.

Legality (checked before anything changes): B and L in the same block scope, L not
around B; B is not an output block (it writes no function argument) and is the only
writer of its buffer; B reads no buffer it writes unless its init resets it (TVM's
complete-or-reduction rule: B may be recomputed, and an in-place update would be applied
twice); B's init, if any, runs at the first step of each instance, and only there (the new
loops run each reduce variable upwards from its lowest value); every consumer of B in the
scope is under L and after B; the producers of B's inputs all run before the insertion point.
At its new place B runs the instances it ran (its loops' reach, cut by its predicate), which
must form a box.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import BlockArgument, Operation, SSAValue

from xtir.dialects.block import BlockOp, ForOp, buffer_name, loops_in_scope
from xtir.passes.analysis.compute_location import (
    blocks_touching,
    buffers_touched,
    check_no_update_in_place,
    check_target,
    child_index,
    clip,
    instance_box,
    invert_region,
    program_order,
    required_region,
    single_written_buffer,
)
from xtir.passes.analysis.init_first import init_not_first
from xtir.passes.analysis.navigation import get_block, get_loop
from xtir.passes.analysis.regions import read_regions, write_regions
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.move import move_under
from xtir.passes.utils import function_of
from xtir.support.errors import ScheduleError


def _check_not_output(block: BlockOp, buffer: SSAValue) -> None:
    if isinstance(buffer, BlockArgument) and buffer.owner.parent_op() is function_of(block):
        raise ScheduleError(block, f'block "{block.label}" is an output block: it writes '
                   f"{buffer_name(buffer)}, an argument of the function")


def _consumers_under(scope: Operation, block: BlockOp, loop: ForOp,
                     buffer: SSAValue) -> list[BlockOp]:
    consumers = blocks_touching(scope, buffer, writes=False, exclude=block)
    if not consumers:
        raise ScheduleError(block, f'block "{block.label}" has no consumer of {buffer_name(buffer)} in its scope')
    outside = [c for c in consumers if not loop.is_ancestor(c)]
    if outside:
        raise ScheduleError(loop, f'consumer block(s) {", ".join(c.label for c in outside)} of {buffer_name(buffer)} '
                            f'are not under loop "{loop.label}"; all consumers of block "{block.label}" must be '
                            "(TVM: Not all required blocks are under the loop scope)",
                            [(c, f'block "{c.label}" reads {buffer_name(buffer)} outside loop "{loop.label}"')
                             for c in outside])
    order = program_order(function_of(block))
    if order[id(loop)] < order[id(block)]:
        raise ScheduleError(block, f'block "{block.label}" runs after its consumers under loop "{loop.label}"')
    return consumers


def _check_inputs_unchanged(scope: Operation, block: BlockOp, loop: ForOp) -> None:
    """`block` runs before the loop now; under it, it would see every write to its inputs made
    from its old place to the end of the loop (later iterations see those of earlier ones)."""
    order = program_order(function_of(block))
    for buffer in buffers_touched(block, writes=False):
        for writer in blocks_touching(scope, buffer, writes=True, exclude=block):
            if order[id(writer)] > order[id(block)] and (order[id(writer)] < order[id(loop)]
                                                         or loop.is_ancestor(writer)):
                raise ScheduleError(writer, f'block "{writer.label}" writes {buffer_name(buffer)}, which block '
                                    f'"{block.label}" reads, after "{block.label}" and before the end of loop '
                                    f'"{loop.label}"; computed under the loop, "{block.label}" would read those writes',
                                    [(block, f'block "{block.label}" reads {buffer_name(buffer)}')])


def _check_init_first(block: BlockOp) -> None:
    if block.init is not None and (why := init_not_first(block, loops_in_scope(block))) is not None:
        raise ScheduleError(block, f'the init of block "{block.label}" runs when every reduce variable is 0, which '
                   f"is not the first step of each instance ({why}); from new loops, which start each instance with "
                   "its init, the block would keep steps the init now wipes")


def compute_at(block: BlockOp, loop: ForOp, preserve_unit_loops: bool = False) -> BlockOp:
    """Move producer `block` under `loop`; return the block at its new place."""
    scope = check_target(block, loop)
    check_no_update_in_place(block)
    _check_init_first(block)
    buffer = single_written_buffer(block)
    _check_not_output(block, buffer)
    others = blocks_touching(scope, buffer, writes=True, exclude=block)
    if others:
        raise ScheduleError(block, f"{buffer_name(buffer)} is also written by block(s) "
                            f'{", ".join(b.label for b in others)}; block "{block.label}" must be its only producer',
                            [(b, f'block "{b.label}" writes {buffer_name(buffer)}') for b in others])
    consumers = _consumers_under(scope, block, loop, buffer)
    _check_inputs_unchanged(scope, block, loop)
    position = min(i for c in consumers if (i := child_index(loop, c)) is not None)
    needed = required_region(loop, consumers, buffer, read_regions, relax_threads=True)
    own = next(r for r in write_regions(block) if r.buffer is buffer)
    ranges, overflow = clip(block, invert_region(block, own, needed, provides=True),
                            instance_box(block))
    anchor = list(loop.body.block.ops)[position]
    return move_under(block, loop, anchor, True, ranges, overflow, preserve_unit_loops)


@dataclass(frozen=True)
class ComputeAtPass(StatementPrimitive):
    name = "compute-at"
    move = staticmethod(compute_at)

    block: str
    loop: str
    preserve_unit_loops: bool = False

    def run(self, f: func.FuncOp) -> None:
        self.move(get_block(f, self.block), get_loop(f, self.loop),
                  self.preserve_unit_loops)
