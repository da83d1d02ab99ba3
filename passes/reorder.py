"""reorder{loops=L0,L1,...}: permute loops of one nest (TVM's reorder).

The loops must lie on one chain: from the outermost to the innermost given loop,
each loop's body is exactly the next loop (no block or sibling statement between).
The given loops take the chain positions they occupy, in the order given; loops of
the chain that are not named stay where they are.

A block with an init runs it at the reduction step where its reduce variables are 0, which
must come first among the steps of each output. Two loops that feed the same reduce variable
must keep their relative order when one of them also feeds a spatial variable (as j and k
fused do): swapped, the steps of one output can come in another order, some before the
init, which then wipes them. (Conservative: some such swaps keep the init first.) Moving
such a loop past loops that do not feed that reduce variable (`fuse(j, k); reorder(j_k_fused,
i)`) keeps the order of each output's steps and is accepted. Any order of the steps gives the
same result only when the init runs at the first step of each output, and only there (TVM
assumes it): a reorder that changes the order of a block's reduction steps is refused when,
before or after it, a backward binding (`5 - k`), a rotated one or a loop binding nothing
inside the reduction loops makes the init run later or again (analysis/init_first.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from xdsl.dialects import func
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import REDUCE, BlockOp, ForOp, IterVar, loops_in_scope
from xtir.dialects.walk import ancestors
from xtir.passes.analysis.init_first import init_not_first, init_note
from xtir.passes.analysis.navigation import blocks_under, get_loop, statement_text
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.rewrite import move_ops
from xtir.passes.utils import single_child
from xtir.support.errors import ScheduleError


def loop_chain(loops: list[ForOp]) -> list[ForOp]:
    """The chain of perfectly nested loops from the outermost to the innermost of `loops`."""
    seen: set[int] = set()
    for lp in loops:
        if id(lp) in seen:
            raise ScheduleError(lp, f'loop "{lp.label}" appears more than once (TVM: Some loop appears in the input array '
                                  "for multiple times)")
        seen.add(id(lp))
    outer = next((lp for lp in loops if all(lp.is_ancestor(o) for o in loops)), None)
    if outer is None:
        raise unnested(loops)
    chain: list[ForOp] = [outer]
    node: Operation = outer
    while not all(any(lp is c for c in chain) for lp in loops):
        child = single_child(node)
        if not isinstance(child, ForOp):
            what = f"{len(node.regions[0].block.ops)} statements" if child is None else statement_text(child)
            missing = [lp for lp in loops if not any(lp is c for c in chain)]
            names = ", ".join(f'"{lp.label}"' for lp in missing)
            raise ScheduleError(
                node,
                f'the loops are not in a chain: loop "{chain[-1].label}" holds {what}, not a single loop, '
                f"before reaching {names} (TVM: The loops are not in a chain because there is a non-single-branch "
                "stmt in between)",
                [(lp, f'loop "{lp.label}" is here') for lp in missing],
            )
        chain.append(child)
        node = child
    return chain


def unnested(loops: list[ForOp]) -> ScheduleError:
    """The refusal of loops none of which holds all the others: TVM tells loops under a common
    loop (which then holds more than one statement on the way to them) from loops under none."""
    names = ", ".join(lp.label for lp in loops)
    common = next((p for p in ancestors(loops[0], BlockOp) if isinstance(p, ForOp) and all(p.is_ancestor(o) for o in loops)),
                  None)
    if common is None:
        return ScheduleError(loops[0], f"the loops {names} are not in a chain: they are not nested in one another "
                                       "(TVM: The loops are not in a chain because they are not under the same scope)")
    return ScheduleError(
        common,
        f'the loops {names} are not in a chain: they are not nested in one another, but side by side under loop '
        f'"{common.label}" (TVM: The loops are not in a chain because there is a non-single-branch stmt in between)',
        [(lp, f'loop "{lp.label}" is here') for lp in loops],
    )


def check_no_mixed_loop_moves(chain: list[ForOp], order: list[ForOp]) -> None:
    """Refuse swapping two loops that feed the same reduce variable of a block with an init
    when one of them also feeds a spatial variable (see the module docstring)."""
    position = {id(lp): k for k, lp in enumerate(order)}
    for block in blocks_under(chain[-1]):
        if block.init is None:
            continue
        iters = block.iters()
        for reduce_it in (it for it in iters if it.kind == REDUCE):
            feeding = [lp for lp in chain if reduce_it.binding.uses(lp.var)]
            for outer, inner in combinations(feeding, 2):  # outer encloses inner in the chain
                if position[id(outer)] < position[id(inner)]:
                    continue  # their relative order stays
                mixed = _spatial_fed(iters, outer) or _spatial_fed(iters, inner)
                if mixed is not None:
                    lp, spatial_it = mixed
                    raise ScheduleError(
                        lp,
                        f'loop "{lp.label}" feeds both spatial variable %{spatial_it.var.name_hint} and reduce '
                        f'variable %{reduce_it.var.name_hint} of block "{block.label}", which has an init; moving it '
                        "would run reduction steps of an output before the init that starts it",
                        [init_note(block)],
                    )


def _spatial_fed(iters: list[IterVar], lp: ForOp) -> tuple[ForOp, IterVar] | None:
    """`lp` with the first spatial variable its variable feeds, or None when it feeds none."""
    it = next((it for it in iters if it.kind != REDUCE and it.binding.uses(lp.var)), None)
    return (lp, it) if it is not None else None


def check_init_order(chain: list[ForOp], order: list[ForOp]) -> None:
    """Refuse a reorder that changes the order of the reduction steps of a block whose init does not
    run at the first step of each instance, and only there, before or after it."""
    moved = {id(old): new for old, new in zip(chain, order)}
    for block in blocks_under(chain[-1]):
        scope = loops_in_scope(block)
        reordered = [moved.get(id(lp), lp) for lp in scope]
        if block.init is None or not _steps_reordered(block, scope, reordered):
            continue
        for loops, when in ((scope, "before"), (reordered, "after")):
            if (why := init_not_first(block, loops, every_run=False)) is not None:
                raise ScheduleError(chain[0], f'the reorder changes the order of the reduction steps of block '
                                    f'"{block.label}", whose init runs when every reduce variable is 0, which {when} '
                                    f"the reorder is not the first step of each instance ({why}); the steps it wipes "
                                    "would change", [init_note(block)])


def _steps_reordered(block: BlockOp, scope: list[ForOp], reordered: list[ForOp]) -> bool:
    """Whether two loops, one feeding a reduce variable of `block`, change their relative order."""
    reduce = [it.binding for it in block.iters() if it.kind == REDUCE]
    position = {id(lp): k for k, lp in enumerate(reordered)}
    return any(any(r.uses(a.var) or r.uses(b.var) for r in reduce) and position[id(a)] > position[id(b)]
               for a, b in combinations(scope, 2))


def rebuild_chain(chain: list[ForOp], order: list[ForOp]) -> list[ForOp]:
    """Rebuild the chain with loop headers in `order` (same body); return the new loops."""
    new_loops = [ForOp(lp.label, lp.extent, kind=lp.kind, thread=lp.thread, annotations=lp.annotations) for lp in order]
    for new, old in zip(new_loops, order):
        new.attributes |= old.attributes
        new.location = old.location
    for outer, inner in zip(new_loops, new_loops[1:]):
        outer.body.block.add_op(inner)
    move_ops(list(chain[-1].body.block.ops), InsertPoint.at_end(new_loops[-1].body.block))
    for new, old in zip(new_loops, order):
        old.var.replace_all_uses_with(new.var)
    Rewriter.insert_op(new_loops[0], InsertPoint.before(chain[0]))
    Rewriter.erase_op(chain[0])
    return new_loops


@dataclass(frozen=True)
class ReorderPass(StatementPrimitive):
    name = "reorder"

    loops: tuple[str, ...]

    def run(self, f: func.FuncOp) -> None:
        loops = [get_loop(f, name) for name in self.loops]
        chain = loop_chain(loops)
        positions = [i for i, lp in enumerate(chain) if any(lp is g for g in loops)]
        order = list(chain)
        for pos, lp in zip(positions, loops):
            order[pos] = lp
        check_no_mixed_loop_moves(chain, order)
        check_init_order(chain, order)
        rebuild_chain(chain, order)
