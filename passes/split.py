"""split{loop=L factors=F0,F1,...}: split a loop into nested loops L_0, L_1, ... (TVM's split).

One factor may be -1 (TVM's None): it is inferred as ceil(extent / product of the
others). When the product of the factors exceeds the extent, the blocks under the
loop get the predicate `L_0 * F1 + L_1 < extent` (TVM's T.where), so no iteration
runs twice or out of range. As TVM's, split refuses a loop with a thread binding or an
annotation (which the new loops would not have): split first, then bind or annotate.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.dialects import func
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import ForOp
from xtir.dialects.expr import INT64_MAX, Expr
from xtir.passes.analysis.navigation import child_blocks, get_loop, loops_around
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.rewrite import move_ops, rebuild_block, substitute_var
from xtir.passes.utils import fresh_name, function_of
from xtir.support.errors import ScheduleError


def infer_factors(loop: ForOp, factors: tuple[int, ...]) -> list[int]:
    if len(factors) < 2:
        raise ScheduleError(loop, f'loop "{loop.label}" needs at least two factors, got {len(factors)}')
    # A bool is an int in Python (and `factors=true,-1` parses as one): it would become an
    # extent that prints as `True`.
    if any(isinstance(f, bool) for f in factors):
        raise ScheduleError(loop, f'factors of loop "{loop.label}" must be integers, got {_spelled(factors)}')
    if factors.count(-1) > 1:
        raise ScheduleError(loop, "at most one factor may be -1 (inferred) (TVM: Only one factor can be specified as -1 "
                                  "or none)")
    if any(f <= 0 and f != -1 for f in factors):
        raise ScheduleError(loop, f"factors must be positive or -1, got {', '.join(map(str, factors))}")
    known = prod(f for f in factors if f != -1)
    result = [(loop.extent + known - 1) // known if f == -1 else f for f in factors]
    if prod(result) < loop.extent:
        raise ScheduleError(
            loop,
            f"the product of factors ({prod(result)}) is smaller than the extent of loop "
            f'"{loop.label}" ({loop.extent}) (TVM: The product of factors is not larger than or equal to the extent '
            "of loop)",
        )
    check_index_range(loop, result)
    return result


def check_unbound(loop: ForOp) -> None:
    """TVM's split and fuse refuse a loop with a thread binding or an annotation: the new loops
    would not have them, and a binding the user asked for would silently be gone."""
    held = [f'thread binding "{loop.thread}"'] if loop.thread is not None else []
    held += [f'annotation "{key}"' for key in loop.annotations]
    if held:
        raise ScheduleError(
            loop,
            f'loop "{loop.label}" has {" and ".join(held)}; split and fuse take loops without them: split and fuse '
            "first, then bind or annotate (TVM: The primitive can't be applied because the loop has annotation or "
            "thread binding)",
        )


def check_index_range(loop: ForOp, factors: list[int]) -> None:
    """Each new extent, and the index `L_0 * F1 + L_1` the loops compute together (up to the
    product of the factors), must fit in the signed 64-bit index type."""
    if (big := max(factors)) > INT64_MAX:
        raise ScheduleError(loop, f'factor {big} of loop "{loop.label}" does not fit in 64 bits (at most {INT64_MAX})')
    if prod(factors) > INT64_MAX:
        raise ScheduleError(
            loop,
            f'the product of factors ({prod(factors)}) does not fit in 64 bits (at most {INT64_MAX}): '
            f'the index of loop "{loop.label}" would overflow',
        )


def _spelled(factors: tuple[int, ...]) -> str:
    """The factors as a pipeline spells them (`true`, not `True`)."""
    return ", ".join(str(f).lower() if isinstance(f, bool) else str(f) for f in factors)


def _same_nest(loop: ForOp) -> list[ForOp]:
    return [op for op in loop.walk() if isinstance(op, ForOp)] + loops_around(loop)


def split_loop(loop: ForOp, factors: list[int]) -> list[ForOp]:
    """Replace `loop` by a nest of len(factors) loops; return them outermost first."""
    root = function_of(loop)
    # As TVM, names repeat across nests (two cache copies both get `ax0_0`; handles tell
    # them apart by block); only a loop of the same nest must not be shadowed.
    taken = {op.label for op in _same_nest(loop) if op is not loop}
    names = []
    for k in range(len(factors)):
        name = fresh_name(root, f"{loop.label}_{k}", taken)
        taken.add(name)
        names.append(name)
    loops = [ForOp(name, f) for name, f in zip(names, factors)]
    for lp in loops:
        lp.location = loop.location  # diagnostics on the new loops point at the split loop
    for outer, inner in zip(loops, loops[1:]):
        outer.body.block.add_op(inner)
    move_ops(list(loop.body.block.ops), InsertPoint.at_end(loops[-1].body.block))
    Rewriter.insert_op(loops[0], InsertPoint.before(loop))

    fused = Expr()
    for lp, f in zip(loops, factors):
        fused = fused * f + Expr.var(lp.var)
    substitute_var(loop.var, fused)
    if prod(factors) > loop.extent:
        for block in child_blocks(loops[-1]):
            rebuild_block(block, block.bindings(), [*block.predicate(), (fused, loop.extent)])
    Rewriter.erase_op(loop)
    return loops


@dataclass(frozen=True)
class SplitPass(StatementPrimitive):
    name = "split"

    loop: str
    factors: tuple[int, ...]

    def run(self, f: func.FuncOp) -> list[ForOp]:
        """Apply the split; return the new loops, outermost first (the Schedule API's result)."""
        target = get_loop(f, self.loop)
        check_unbound(target)
        return split_loop(target, infer_factors(target, self.factors))
