"""Does a block's init run at the first step of each instance, and only there?

A block with an init runs it at the step where every reduce variable is 0 (TVM's
`T.init()`). TVM's primitives assume that step is each instance's first, so the other
steps may come in any order. A backward binding (`5 - k` reaches 0 last), a rotated one
(`(k + 1) mod 6`), one reaching 0 twice (`k floordiv 2`), or a loop that binds nothing of
the block nested inside its reduction loops (each of its iterations runs the init again)
break that: the init then wipes the steps before it, and a primitive that hoists the init
(decompose-reduction), puts the steps in another order (reorder) or runs them from new
loops (compute-at) changes which steps it wipes, so the result.

An instance's steps are the iterations with its spatial values within one iteration of the
context loops: by default the loops above every loop that feeds a reduce variable and feed
none themselves (a recomputation under such a loop starts again with its init).

A predicate on the reducing loops that bounds them with positive strides (`k_0 * 8 + k_1 < 60`,
from splitting k by a factor that does not divide it) cuts only the last steps of an instance:
its first step runs, or none does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Operation

from xtir.dialects.block import REDUCE, SPATIAL, BlockOp, ForOp
from xtir.dialects.expr import Expr, Var
from xtir.passes.analysis.instances import injective, points
from xtir.passes.analysis.predicate import at_first


def init_note(block: BlockOp) -> tuple[Operation, str]:
    """The note of a refusal because of when `block`'s init runs: it points at the init."""
    assert block.init is not None
    return block.init, f'the init of block "{block.label}"'


def init_not_first(block: BlockOp, loops: Sequence[ForOp], context: Sequence[ForOp] | None = None,
                   every_run: bool = True) -> str | None:
    """Why, with `block` under `loops` (outermost first; an order other than the IR's when a primitive
    is about to reorder them), the init of some instance does not run at its first step or runs again
    later; None when it runs first and once. Without `every_run`, an instance's steps that never run
    the init (in one iteration of the context loops: a sum the order of whose terms is free) pass."""
    iters = block.iters()
    spatial = [it.binding for it in iters if it.kind == SPATIAL]
    reduce = [it for it in iters if it.kind == REDUCE]
    reducing = [lp for lp in loops if any(it.binding.uses(lp.var) for it in reduce)]
    if not reduce or not reducing:
        return None
    if context is None:
        context = loops[:next(k for k, lp in enumerate(loops) if any(lp is r for r in reducing))]
    if _forward(block, loops, reducing, context):
        return None
    predicate = block.predicate()
    exprs = [*spatial, *(it.binding for it in reduce), *(e for e, _ in predicate)]
    # Loops inside the first reducing one repeat steps even when they feed nothing.
    used = [lp for lp in loops if any(e.uses(lp.var) for e in exprs) or not any(lp is c for c in context)]
    values = points([(lp.var, lp.extent) for lp in used], [*(Expr.var(lp.var) for lp in used), *exprs])
    if values is None:
        return "there are too many iterations to check when it runs"
    rows = values[len(used):]
    runs = np.ones(values.shape[1], dtype=bool)
    for row, (_, bound) in zip(rows[len(spatial) + len(reduce):], predicate):
        runs &= row < bound
    outer = [k for k, lp in enumerate(used) if any(lp is c for c in context)]
    keys = np.concatenate([values[outer], rows[: len(spatial)]])[:, runs]
    steps = rows[len(spatial): len(spatial) + len(reduce)][:, runs]
    _, first_steps, instance = np.unique(keys, axis=1, return_index=True, return_inverse=True)
    instance = instance.ravel()
    at_zero = np.all(steps == 0, axis=0)
    if not every_run:
        first_steps = first_steps[np.isin(np.arange(len(first_steps)), instance[at_zero])]
    starts = steps[:, first_steps]
    late = [f"%{it.var.name_hint} = {int(row[row != 0][0])}" for it, row in zip(reduce, starts) if np.any(row != 0)]
    if late:
        return f"the first has {', '.join(late)}"
    if np.any(np.bincount(instance[at_zero]) > 1):
        return "every reduce variable is 0 again at a later step of an instance, which runs the init again"
    return None


def _forward(block: BlockOp, loops: Sequence[ForOp], reducing: list[ForOp], context: Sequence[ForOp]) -> bool:
    """Shown without running the loops: each reduce binding is a sum of loops with positive strides,
    which feed no spatial variable; the other loops outside the context feed spatial variables,
    different iterations of them different values; the predicate cuts at most a tail of the reducing
    loops (`at_first`). Then the steps of an instance are iterations of the reducing loops, the first
    (all 0) among them if any are, and only it has every reduce variable at 0."""
    iters = block.iters()
    ids = {id(lp) for lp in reducing}
    for it in iters:
        if it.kind == REDUCE:
            plain = all(isinstance(a, Var) and c > 0 and any(a.value is lp.var for lp in reducing)
                        for a, c in it.binding.terms)
            if not plain or it.binding.const != 0:
                return False
        elif any(it.binding.uses(lp.var) for lp in reducing):
            return False
    if any(at_first(conjunct, (lp.var for lp in reducing)) is None for conjunct in block.predicate()):
        return False
    inner = {lp.var: lp.extent for lp in loops if id(lp) not in ids and not any(lp is c for c in context)}
    spatial = [it.binding for it in iters if it.kind == SPATIAL]
    return all(any(b.uses(v) for b in spatial) for v in inner) and injective(inner, spatial)
