"""fuse-ewise-fma: tensor.add of a tensor.multiply becomes tensor.ewise_fma (seed 003).

    %m = tensor.multiply %a, %b ...          %y = tensor.ewise_fma %a, %b, %c ...
    %y = tensor.add %m, %c ...        ->

The seed's `EwiseFMARewriter`, as an xDSL rewrite pattern. `add` commutes, so a multiply
on either side fuses (the left one first). A multiply that other ops still use stays
for them (each add of it becomes its own ewise_fma); one whose only user was the add is
erased. Nothing else is removed: unrelated dead ops are `dce`'s business.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from xtir.dialects import tensor


class AddOfMultiplyToFma(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.AddOp, rewriter: PatternRewriter) -> None:
        products = [(v.owner, addend) for v, addend in ((op.lhs, op.rhs), (op.rhs, op.lhs))]
        fusable = [(m, addend) for m, addend in products if isinstance(m, tensor.MultiplyOp)]
        if not fusable:
            return
        multiply, addend = fusable[0]
        fma = tensor.EwiseFmaOp(multiply.lhs, multiply.rhs, addend)
        fma.result.name_hint = op.result.name_hint
        rewriter.replace(op, fma)
        if not multiply.result.uses:
            rewriter.erase(multiply)


@dataclass(frozen=True)
class FuseEwiseFmaPass(ModulePass):
    name = "fuse-ewise-fma"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(AddOfMultiplyToFma()).rewrite_module(op)
