"""Graph-level tensor ops with value semantics (seed 003: linear, relu, ewise_fma, ...).

    %y = tensor.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>

xDSL has its own `tensor` dialect (empty, extract, insert_slice, ...); `TensorUnion`
merges both so that `xtir-opt` parses either. It is never registered as a plugin:
two `tensor` dialects in the xDSL universe break every `xdsl-opt` start.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import TensorType
from xdsl.dialects.tensor import Tensor as UpstreamTensor
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


def _shape(t: Attribute) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    shape = tuple(t.get_shape())
    if any(d < 0 for d in shape):
        raise VerifyException(f"{t} has a dynamic shape; graph ops take statically shaped tensors")
    return shape


def _element(t: Attribute) -> Attribute:
    assert isinstance(t, TensorType)
    return t.element_type


def _same_elements(op: IRDLOperation) -> None:
    elements = {_element(v.type) for v in (*op.operands, *op.results)}
    if len(elements) != 1:
        raise VerifyException(f"{op.name} mixes element types {', '.join(sorted(map(str, elements)))}")


def broadcast_shape(op_name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """numpy broadcasting of static shapes, with an error naming the op."""
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    result: list[int] = []
    for dims in zip(*padded):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise VerifyException(
                f"{op_name}: shapes {' and '.join('x'.join(map(str, s)) for s in shapes)} do not broadcast"
            )
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


class ElementwiseOp(IRDLOperation):
    """Elementwise op with numpy broadcasting; the result has the broadcast shape."""

    def verify_(self) -> None:
        _same_elements(self)
        expected = broadcast_shape(self.name, *(_shape(v.type) for v in self.operands))
        got = _shape(self.results[0].type)
        if got != expected:
            raise VerifyException(
                f"{self.name}: result shape {'x'.join(map(str, got))} differs from the broadcast "
                f"shape {'x'.join(map(str, expected))}"
            )


class BinaryOp(ElementwiseOp):
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"


@irdl_op_definition
class AddOp(BinaryOp):
    name = "tensor.add"


@irdl_op_definition
class MultiplyOp(BinaryOp):
    name = "tensor.multiply"


@irdl_op_definition
class ReluOp(ElementwiseOp):
    name = "tensor.relu"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"


@irdl_op_definition
class EwiseFmaOp(ElementwiseOp):
    """a * b + c, elementwise (the fused multiply-add of seed 003's graph rewrite)."""

    name = "tensor.ewise_fma"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    c = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c) `->` type($result)"
    )


class ContractionOp(IRDLOperation):
    """A 2-d matrix product; TRANSPOSE_RHS selects x·Wᵀ (dense/linear) over x·W."""

    TRANSPOSE_RHS: ClassVar[bool] = False
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"

    def verify_(self) -> None:
        _same_elements(self)
        a, b, c = _shape(self.lhs.type), _shape(self.rhs.type), _shape(self.result.type)
        if len(a) != 2 or len(b) != 2 or len(c) != 2:
            raise VerifyException(f"{self.name} takes 2-d tensors")
        n, k_rhs = (b[0], b[1]) if self.TRANSPOSE_RHS else (b[1], b[0])
        if a[1] != k_rhs:
            raise VerifyException(
                f"{self.name}: reduction extents differ: lhs {a[0]}x{a[1]} has {a[1]}, rhs {b[0]}x{b[1]} has {k_rhs}"
            )
        if c != (a[0], n):
            raise VerifyException(f"{self.name}: result must be {a[0]}x{n}, got {c[0]}x{c[1]}")


@irdl_op_definition
class MatmulOp(ContractionOp):
    """lhs[M,K] · rhs[K,N]."""

    name = "tensor.matmul"


@irdl_op_definition
class DenseOp(ContractionOp):
    """x[M,K] · W[N,K]ᵀ, the linear layer of seed 003."""

    name = "tensor.dense"
    TRANSPOSE_RHS: ClassVar[bool] = True


GRAPH_OPS = [MatmulOp, DenseOp, AddOp, MultiplyOp, ReluOp, EwiseFmaOp]

TensorUnion = Dialect(
    "tensor",
    [*UpstreamTensor.operations, *GRAPH_OPS],
    [*UpstreamTensor.attributes],
)
