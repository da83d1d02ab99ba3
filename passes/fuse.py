"""fuse{loops=L0,L1,...}: fuse perfectly nested consecutive loops into one (TVM's fuse).

The new loop is named `L0_L1_fused` (shortened when long: `fused_name`) and has the
product of the extents; each old
variable becomes `fused floordiv (inner extents) mod extent`. As TVM's, fuse refuses a
loop with a thread binding or an annotation (which the fused loop would not have).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.dialects import func
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import ForOp
from xtir.dialects.expr import INT64_MAX, Expr
from xtir.passes.analysis.navigation import get_loop, statement_text
from xtir.passes.analysis.regions import loop_bounds
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.split import check_unbound
from xtir.passes.transforms.rewrite import move_ops, substitute_var
from xtir.passes.utils import fresh_name, function_of, single_child
from xtir.support.errors import ScheduleError


def check_consecutive(loops: list[ForOp]) -> None:
    if len(loops) < 2:
        raise ScheduleError(loops[0], "fuse needs at least two loops")
    for outer, inner in zip(loops, loops[1:]):
        if inner is outer:
            raise ScheduleError(outer, f'loop "{outer.label}" appears more than once (TVM: The outer loop is not the '
                                      "parent of the inner loop)")
        if inner.parent_op() is not outer:
            raise ScheduleError(
                outer,
                f'loop "{inner.label}" is not directly inside loop "{outer.label}"; '
                "fused loops must be perfectly nested and given outermost first (TVM: The outer loop is not the "
                "parent of the inner loop)",
                [(inner, f'loop "{inner.label}" is here')],
            )
        if single_child(outer) is not inner:
            other = next(op for op in outer.body.block.ops if op is not inner)
            raise ScheduleError(
                outer,
                f'loop "{inner.label}" is not the only statement in the body of loop "{outer.label}"; '
                "fused loops must be perfectly nested and given outermost first (TVM: The inner loop is not the "
                "only child of outer loop)",
                [(other, f'loop "{outer.label}" also holds {statement_text(other)}')],
            )


def check_fused_extent(loops: list[ForOp]) -> None:
    """The fused loop's extent, the product of the extents, must fit in a signed 64-bit index."""
    extent = prod(lp.extent for lp in loops)
    if extent > INT64_MAX:
        raise ScheduleError(
            loops[0],
            f"the fused loop would have extent {extent} (the product of the extents "
            f"{' x '.join(str(lp.extent) for lp in loops)} of loops {', '.join(lp.label for lp in loops)}), "
            f"which does not fit in 64 bits (at most {INT64_MAX})",
        )


FUSED_NAME_LIMIT = 48
"""The longest fused-loop name spelled out as TVM spells it (`i_0_j_0_fused`)."""


def fused_name(loops: list[ForOp]) -> str:
    """`L0_L1_fused` as TVM names it; past FUSED_NAME_LIMIT characters, the first loop's root
    name (up to its first `_`) and `_fused`. TVM's names double with every fuse of split loops
    (`i_0_j_0_fused_0_i_0_j_0_fused_1_fused`): 16 rounds of split and fuse made 59 MB of IR."""
    name = "_".join(lp.label for lp in loops) + "_fused"
    if len(name) <= FUSED_NAME_LIMIT:
        return name
    return loops[0].label.split("_", 1)[0] + "_fused"


def fuse_loops(loops: list[ForOp]) -> ForOp:
    root = function_of(loops[0])
    fused = ForOp(fresh_name(root, fused_name(loops)), prod(lp.extent for lp in loops))
    fused.location = loops[0].location
    move_ops(list(loops[-1].body.block.ops), InsertPoint.at_end(fused.body.block))
    Rewriter.insert_op(fused, InsertPoint.before(loops[0]))
    stride = 1
    for lp in reversed(loops):
        value = Expr.var(fused.var).floordiv(stride, loop_bounds)
        if stride * lp.extent < fused.extent:
            value = value.mod(lp.extent, loop_bounds)
        substitute_var(lp.var, value)
        stride *= lp.extent
    Rewriter.erase_op(loops[0])
    return fused


@dataclass(frozen=True)
class FusePass(StatementPrimitive):
    name = "fuse"

    loops: tuple[str, ...]

    def run(self, f: func.FuncOp) -> ForOp:
        """Apply the fuse; return the fused loop (the Schedule API's result)."""
        loops = [get_loop(f, name) for name in self.loops]
        check_consecutive(loops)
        for lp in loops:
            check_unbound(lp)
        check_fused_extent(loops)
        return fuse_loops(loops)
