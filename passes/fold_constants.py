"""fold-constants: a graph op whose operands are all dense constants becomes a constant.

    %w = arith.constant dense<...> : tensor<8x4xf32>         %wt = arith.constant dense<...> : tensor<4x8xf32>
    %wt = tensor.transpose %w permutation [1, 0] ...    ->

TVM's FoldConstant at graph level: shape ops on weights (a transposed or reshaped
weight, as torch models write `x @ self.w.T`) are computed once at compile time instead
of at every run. The value is the op's numpy semantics (xtir/interpreters/tensor.py), in
the op's element type. Constants the folded op alone used are erased with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from xtir.dialects.tensor import GRAPH_OPS
from xtir.interpreters.tensor import TensorGraphFunctions, dense_from_numpy, dense_to_numpy


def _dense_constant(op: Operation | None) -> DenseIntOrFPElementsAttr | None:
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr):
        return op.value
    return None


@dataclass
class FoldConstantGraphOp(RewritePattern):
    interpreter: Interpreter

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tuple(GRAPH_OPS)):
            return
        values = [_dense_constant(v.owner) for v in op.operands]  # pyright: ignore[reportArgumentType]
        if any(v is None for v in values):
            return
        with np.errstate(all="ignore"):  # IEEE results (1/0 is inf), as at run time
            (result,) = self.interpreter.run_op(op, tuple(dense_to_numpy(v) for v in values))  # pyright: ignore[reportArgumentType]
        result_type = op.results[0].type
        assert isinstance(result_type, TensorType)
        folded = arith.ConstantOp(dense_from_numpy(result, result_type.element_type))
        folded.result.name_hint = op.results[0].name_hint
        producers = {v.owner for v in op.operands}
        rewriter.replace(op, folded)
        for producer in producers:
            if isinstance(producer, Operation) and not producer.results[0].uses:
                rewriter.erase(producer)


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    name = "fold-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        interpreter = Interpreter(op)
        interpreter.register_implementations(TensorGraphFunctions())
        PatternRewriteWalker(FoldConstantGraphOp(interpreter)).rewrite_module(op)
