"""Moving a block under a loop (compute-at, reverse-compute-at): the new nest and what it leaves."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import BlockOp, ForOp
from xtir.dialects.expr import Expr
from xtir.passes.analysis.compute_location import Overflow, VarRange
from xtir.passes.analysis.predicate import conjoin
from xtir.passes.transforms.rewrite import erase_empty_loops, rebuild_block


def move_under(block: BlockOp, loop: ForOp, anchor: Operation, before: bool, ranges: list[VarRange],
               overflow: Overflow, preserve_unit_loops: bool) -> BlockOp:
    """Place `block` in a new nest `ax0, ax1, ...` next to `anchor` (a statement of `loop`'s body),
    iterating `ranges`; remove the loops it leaves empty."""
    loops: list[ForOp] = []
    bindings: list[Expr] = []
    for r in ranges:
        if r.extent == 1 and not preserve_unit_loops:
            bindings.append(r.start)
            continue
        lp = ForOp(f"ax{len(loops)}", r.extent)
        lp.location = block.location
        loops.append(lp)
        bindings.append(r.start + Expr.var(lp.var))
    predicate = conjoin([(bindings[i] * sign, bound) for i, sign, bound in overflow])
    old_parent = block.parent_op()
    moved = rebuild_block(block, bindings, predicate)
    moved.detach()
    erase_empty_loops(old_parent)
    for outer, inner in zip(loops, loops[1:]):
        outer.body.block.add_op(inner)
    if loops:
        loops[-1].body.block.add_op(moved)
    nest: Operation = loops[0] if loops else moved
    Rewriter.insert_op(nest, InsertPoint.before(anchor) if before else InsertPoint.after(anchor))
    return moved
