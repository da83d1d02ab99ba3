"""reorder{loops=L0,L1,...}: permute loops of one nest (TVM's reorder).

The loops must lie on one chain: from the outermost to the innermost given loop,
each loop's body is exactly the next loop (no block or sibling statement between).
The given loops take the chain positions they occupy, in the order given; loops of
the chain that are not named stay where they are.

A loop that feeds both a spatial and a reduce variable of a block with an init (left
by fusing j and k) may not move: the init runs at the first reduction step, and once
such a loop moves, steps of the same output run before it and are wiped.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from xtir.dialects.block import REDUCE, BlockOp, ForOp
from xtir.passes.analysis.navigation import blocks_under, get_loop
from xtir.passes.utils import fail, single_child, target_function


def loop_chain(pass_name: str, loops: list[ForOp]) -> list[ForOp]:
    """The chain of perfectly nested loops from the outermost to the innermost of `loops`."""
    seen: set[int] = set()
    for lp in loops:
        if id(lp) in seen:
            raise fail(pass_name, lp, f'loop "{lp.label}" appears more than once')
        seen.add(id(lp))
    outer = next((lp for lp in loops if all(lp.is_ancestor(o) for o in loops)), None)
    if outer is None:
        raise fail(
            pass_name,
            loops[0],
            f"the loops {', '.join(lp.label for lp in loops)} are not in a chain: they are not nested in one another",
        )
    chain: list[ForOp] = [outer]
    node: Operation = outer
    while not all(any(lp is c for c in chain) for lp in loops):
        child = single_child(node)
        if not isinstance(child, ForOp):
            if isinstance(child, BlockOp):
                what = f'block "{child.label}"'
            elif child is None:
                what = f"{len(node.regions[0].block.ops)} statements"
            else:
                what = f"a {child.name} op"
            missing = ", ".join(f'"{lp.label}"' for lp in loops if not any(lp is c for c in chain))
            raise fail(
                pass_name,
                node,
                f'the loops are not in a chain: loop "{chain[-1].label}" holds {what}, not a single loop, '
                f"before reaching {missing}",
            )
        chain.append(child)
        node = child
    return chain


def check_no_mixed_loop_moves(pass_name: str, chain: list[ForOp], order: list[ForOp]) -> None:
    """Refuse moving a loop that feeds spatial and reduce variables of a block with an init."""
    moved = [old for old, new in zip(chain, order) if old is not new]
    for block in blocks_under(chain[-1]):
        if block.init is None:
            continue
        for lp in moved:
            kinds = {it.kind == REDUCE: it for it in block.iters() if it.binding.uses(lp.var)}
            if len(kinds) == 2:
                raise fail(
                    pass_name,
                    lp,
                    f'loop "{lp.label}" feeds both spatial variable %{kinds[False].var.name_hint} and reduce '
                    f'variable %{kinds[True].var.name_hint} of block "{block.label}", which has an init; moving it '
                    "would run reduction steps of an output before the init that starts it",
                )


def rebuild_chain(chain: list[ForOp], order: list[ForOp]) -> list[ForOp]:
    """Rebuild the chain with loop headers in `order` (same body); return the new loops."""
    new_loops = [ForOp(lp.label, lp.extent, kind=lp.kind, thread=lp.thread, annotations=lp.annotations) for lp in order]
    for new, old in zip(new_loops, order):
        new.attributes |= old.attributes
        new.location = old.location
    for outer, inner in zip(new_loops, new_loops[1:]):
        outer.body.block.add_op(inner)
    for op in list(chain[-1].body.block.ops):
        op.detach()
        new_loops[-1].body.block.add_op(op)
    for new, old in zip(new_loops, order):
        old.var.replace_all_uses_with(new.var)
    assert chain[0].parent is not None
    chain[0].parent.insert_op_before(new_loops[0], chain[0])
    chain[0].detach()
    chain[0].erase()
    return new_loops


@dataclass(frozen=True)
class ReorderPass(ModulePass):
    name = "reorder"

    loops: tuple[str, ...]
    func: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        f = target_function(op, self.func)
        loops = [get_loop(f, name, self.name) for name in self.loops]
        chain = loop_chain(self.name, loops)
        positions = [i for i, lp in enumerate(chain) if any(lp is g for g in loops)]
        order = list(chain)
        for pos, lp in zip(positions, loops):
            order[pos] = lp
        check_no_mixed_loop_moves(self.name, chain, order)
        rebuild_chain(chain, order)
