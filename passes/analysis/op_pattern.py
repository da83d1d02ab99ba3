"""TVM's operator pattern kinds (`OpPatternKind`) for the graph-level tensor ops.

The kind says how an op's output indices relate to its input indices, which decides
what fuse-ops may group: an elementwise or broadcast op can be computed inside its
consumer's or producer's loops, a matmul or convolution can take an elementwise epilogue
(`out_elemwise_fusable`), an opaque op fuses with nothing.

The kinds follow what relax's `AnalyzeOpPatternKind` derives from each op's TOPI
definition: a broadcasting op is `elemwise` when one operand already has the result
shape (`A[i, j] = B[i, j] + C[j]`), `broadcast` when every operand is stretched; reshape,
transpose and flip move elements (`injective`); sum, mean and max reduce (`comm_reduce`); contractions, convolution, pooling and
softmax reduce into an output that an elementwise op can follow.
"""

from __future__ import annotations

from enum import IntEnum

from xdsl.ir import Operation

from xtir.dialects import tensor


class OpPatternKind(IntEnum):
    """Ordered as in TVM: a kind fuses under the rules for every kind above it."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    OPAQUE = 8

    @property
    def label(self) -> str:
        """The name in IR (`xtir.op_pattern = "out_elemwise_fusable"`)."""
        return self.name.lower()


_BROADCASTING = (
    tensor.AddOp,
    tensor.SubtractOp,
    tensor.MultiplyOp,
    tensor.DivideOp,
    tensor.FloorDivideOp,
    tensor.TruncDivideOp,
    tensor.EwiseFmaOp,
    tensor.BiasAddOp,
    tensor.GreaterOp,
    tensor.GreaterEqualOp,
    tensor.LessOp,
    tensor.LessEqualOp,
    tensor.EqualOp,
    tensor.NotEqualOp,
    tensor.WhereOp,
)
_ELEMWISE = (
    tensor.ReluOp,
    tensor.SigmoidOp,
    tensor.TanhOp,
    tensor.SiluOp,
    tensor.GeluOp,
    tensor.LeakyReluOp,
    tensor.NegativeOp,
    tensor.AbsOp,
    tensor.ExpOp,
    tensor.LogOp,
    tensor.SqrtOp,
    tensor.RsqrtOp,
    tensor.ClipOp,
    tensor.AstypeOp,
)
_INJECTIVE = (tensor.ReshapeOp, tensor.FlattenOp, tensor.TransposeOp, tensor.StridedSliceOp, tensor.FlipOp)
_COMM_REDUCE = (tensor.SumOp, tensor.MeanOp, tensor.MaxOp)
_OUT_ELEMWISE_FUSABLE = (tensor.MatmulOp, tensor.DenseOp, tensor.Conv2dOp, tensor.MaxPool2dOp, tensor.SoftmaxOp)


def op_pattern(op: Operation) -> OpPatternKind:
    """The pattern kind of one op; anything that is not a graph op is opaque."""
    if isinstance(op, _ELEMWISE):
        return OpPatternKind.ELEMWISE
    if isinstance(op, _BROADCASTING):
        result = tensor.shape_of(op.results[0].type)  # a comparison's result holds i1: compare shapes
        if any(tensor.shape_of(operand.type) == result for operand in op.operands):
            return OpPatternKind.ELEMWISE
        return OpPatternKind.BROADCAST
    if isinstance(op, _INJECTIVE):
        return OpPatternKind.INJECTIVE
    if isinstance(op, _COMM_REDUCE):
        return OpPatternKind.COMM_REDUCE
    if isinstance(op, _OUT_ELEMWISE_FUSABLE):
        return OpPatternKind.OUT_ELEMWISE_FUSABLE
    return OpPatternKind.OPAQUE
