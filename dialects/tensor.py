"""Graph-level tensor ops with value semantics (seed 003: linear, relu, ewise_fma, ...).

    %y = tensor.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %c = tensor.conv2d %x, %k padding [1, 1, 1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>

Every op takes and returns statically shaped tensors of one element type (a comparison
returns i1, which `where` takes as its condition); a verifier error names the shapes
involved. Python constructors infer the result type (and raise `VerifyException` where
the operands do not fit). The numpy semantics of each op is its
implementation in xtir/interpreters/tensor.py.

xDSL has its own `tensor` dialect (empty, extract, insert_slice, ...); `TensorUnion`
merges both so that `xtir-opt` parses either (ours replaces upstream's `tensor.reshape`,
whose shape is an operand). It is never registered as a plugin: two `tensor` dialects in
the xDSL universe break every `xdsl-opt` start.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import ClassVar

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    DenseArrayBase,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    f64,
    i1,
    i64,
)
from xdsl.dialects.tensor import Tensor as UpstreamTensor
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

Shape = tuple[int, ...]


def is_graph_function(f: func.FuncOp) -> bool:
    """Whether `f` is a graph function: one over tensors (its ops this dialect's), not buffers."""
    return any(isinstance(t, TensorType) for t in (*f.function_type.inputs.data, *f.function_type.outputs.data))


def shape_of(t: Attribute) -> Shape:
    assert isinstance(t, TensorType)
    shape = tuple(t.get_shape())
    if any(d < 0 for d in shape):
        raise VerifyException(f"{t} has a dynamic shape; graph ops take statically shaped tensors")
    return shape


def fmt(shape: Sequence[int]) -> str:
    """4x8, as shapes are written in tensor types (a 0-d shape prints as `scalar`)."""
    return "x".join(map(str, shape)) if shape else "scalar"


def _element(t: Attribute) -> Attribute:
    assert isinstance(t, TensorType)
    return t.element_type


def _tensor(value: SSAValue, shape: Sequence[int]) -> TensorType:
    """A tensor type of `shape` with `value`'s element type."""
    return TensorType(_element(value.type), shape)


def _same_elements(op: IRDLOperation) -> None:
    elements = {_element(v.type) for v in (*op.operands, *op.results)}
    if len(elements) != 1:
        raise VerifyException(f"{op.name} mixes element types {', '.join(sorted(map(str, elements)))}")


def _floats_only(op: IRDLOperation) -> None:
    element = _element(op.results[0].type)
    if not isinstance(element, AnyFloat):
        raise VerifyException(f"{op.name} takes floating-point tensors, got {element}")


def _numbers_only(op: IRDLOperation) -> None:
    if _element(op.operands[0].type) == i1:
        raise VerifyException(f"{op.name} takes numbers, not i1 (booleans)")


def _integers_only(op: IRDLOperation) -> None:
    element = _element(op.results[0].type)
    if isinstance(element, AnyFloat) or element == i1:
        raise VerifyException(f"{op.name} takes integer tensors, got {element}")


def _check_result(op: IRDLOperation, expected: Shape, what: str = "") -> None:
    got = shape_of(op.results[0].type)
    if got != expected:
        raise VerifyException(f"{op.name}: result shape {fmt(got)} differs from the {what}shape {fmt(expected)}")


def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _values(array: DenseArrayBase) -> tuple[int, ...]:
    return tuple(array.iter_values())  # pyright: ignore[reportReturnType]


def _i64_array_prop(default: Sequence[int] | None = None):
    return prop_def(DenseArrayBase.constr(i64), default_value=None if default is None else i64_array(default))


def _check_axis(op: IRDLOperation, name: str, axis: int, shape: Shape) -> None:
    if not 0 <= axis < len(shape):
        raise VerifyException(f"{op.name}: {name} {axis} is not a dimension of {fmt(shape)} (0..{len(shape) - 1})")


def broadcast_shape(op_name: str, *shapes: Shape) -> Shape:
    """numpy broadcasting of static shapes, with an error naming the op."""
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    result: list[int] = []
    for dims in zip(*padded):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise VerifyException(f"{op_name}: shapes {' and '.join(fmt(s) for s in shapes)} do not broadcast")
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


class ElementwiseOp(IRDLOperation):
    """Elementwise op with numpy broadcasting; the result has the broadcast shape."""

    def verify_(self) -> None:
        _same_elements(self)
        _check_result(self, broadcast_shape(self.name, *(shape_of(v.type) for v in self.operands)), "broadcast ")

    @classmethod
    def result_type(cls, *operands: SSAValue) -> TensorType:
        name = cls.name  # pyright: ignore[reportAttributeAccessIssue]
        return _tensor(operands[0], broadcast_shape(name, *(shape_of(v.type) for v in operands)))


class BinaryOp(ElementwiseOp):
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[self.result_type(lhs, rhs)])

    def verify_(self) -> None:
        super().verify_()
        if _element(self.lhs.type) == i1:
            raise VerifyException(f"{self.name} takes numbers, not i1 (booleans)")


@irdl_op_definition
class AddOp(BinaryOp):
    name = "tensor.add"


@irdl_op_definition
class SubtractOp(BinaryOp):
    name = "tensor.subtract"


@irdl_op_definition
class MultiplyOp(BinaryOp):
    name = "tensor.multiply"


@irdl_op_definition
class DivideOp(BinaryOp):
    """Float division only: integer division would need a rounding rule (and a rule for 0)."""

    name = "tensor.divide"

    def verify_(self) -> None:
        super().verify_()
        _floats_only(self)


@irdl_op_definition
class FloorDivideOp(BinaryOp):
    """Integer division rounded toward -inf (torch.floor_divide, `//`). A float floor division
    is not defined here: torch's rounds through fmod, which no lowering reproduces yet."""

    name = "tensor.floor_divide"

    def verify_(self) -> None:
        super().verify_()
        _integers_only(self)


@irdl_op_definition
class TruncDivideOp(BinaryOp):
    """Integer division rounded toward zero (torch.div(rounding_mode="trunc"), C's `/`)."""

    name = "tensor.trunc_divide"

    def verify_(self) -> None:
        super().verify_()
        _integers_only(self)


@irdl_op_definition
class ReluOp(ElementwiseOp):
    name = "tensor.relu"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])


class CompareOp(IRDLOperation):
    """An elementwise comparison with numpy broadcasting: operands of one element type, an i1 result."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        shape = broadcast_shape(self.name, shape_of(lhs.type), shape_of(rhs.type))
        super().__init__(operands=[lhs, rhs], result_types=[TensorType(i1, shape)])

    def verify_(self) -> None:
        operands = {_element(v.type) for v in self.operands}
        if len(operands) != 1:
            raise VerifyException(f"{self.name} compares different element types {', '.join(sorted(map(str, operands)))}")
        if _element(self.result.type) != i1:
            raise VerifyException(f"{self.name}: the result holds i1 (booleans), not {_element(self.result.type)}")
        if operands == {i1} and not isinstance(self, EqualOp | NotEqualOp):
            raise VerifyException(f"{self.name} orders numbers; i1 (booleans) compare only by equal and not_equal")
        _check_result(self, broadcast_shape(self.name, *(shape_of(v.type) for v in self.operands)), "broadcast ")


@irdl_op_definition
class GreaterOp(CompareOp):
    name = "tensor.greater"


@irdl_op_definition
class GreaterEqualOp(CompareOp):
    name = "tensor.greater_equal"


@irdl_op_definition
class LessOp(CompareOp):
    name = "tensor.less"


@irdl_op_definition
class LessEqualOp(CompareOp):
    name = "tensor.less_equal"


@irdl_op_definition
class EqualOp(CompareOp):
    name = "tensor.equal"


@irdl_op_definition
class NotEqualOp(CompareOp):
    name = "tensor.not_equal"


@irdl_op_definition
class WhereOp(IRDLOperation):
    """lhs where condition holds, else rhs (torch.where), the three broadcast together."""

    name = "tensor.where"
    condition = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$condition `,` $lhs `,` $rhs attr-dict `:` type($condition) `,` type($lhs) `,` type($rhs) `->` type($result)"
    )

    def __init__(self, condition: SSAValue, lhs: SSAValue, rhs: SSAValue):
        shape = broadcast_shape(self.name, *(shape_of(v.type) for v in (condition, lhs, rhs)))
        super().__init__(operands=[condition, lhs, rhs], result_types=[_tensor(lhs, shape)])

    def verify_(self) -> None:
        if _element(self.condition.type) != i1:
            raise VerifyException(f"{self.name}: the condition holds {_element(self.condition.type)}, not i1")
        elements = {_element(v.type) for v in (self.lhs, self.rhs, self.result)}
        if len(elements) != 1:
            raise VerifyException(f"{self.name} mixes element types {', '.join(sorted(map(str, elements)))}")
        shapes = (shape_of(v.type) for v in self.operands)
        _check_result(self, broadcast_shape(self.name, *shapes), "broadcast ")


class NumberUnaryOp(IRDLOperation):
    """An elementwise function of number tensors (not i1); the result has the input's type."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, properties: dict[str, Attribute] | None = None):
        super().__init__(operands=[input], result_types=[input.type], properties=properties or {})

    def verify_(self) -> None:
        _same_elements(self)
        _numbers_only(self)
        _check_result(self, shape_of(self.input.type), "input ")


class ActivationOp(NumberUnaryOp):
    """An elementwise function of float tensors (the activations, exp, log, ...)."""

    def verify_(self) -> None:
        super().verify_()
        _floats_only(self)


@irdl_op_definition
class NegativeOp(NumberUnaryOp):
    """-x (an integer's smallest value stays itself, as torch's wraps)."""

    name = "tensor.negative"


@irdl_op_definition
class AbsOp(NumberUnaryOp):
    """|x| (an integer's smallest value stays itself, as torch's wraps)."""

    name = "tensor.abs"


@irdl_op_definition
class ExpOp(ActivationOp):
    name = "tensor.exp"


@irdl_op_definition
class LogOp(ActivationOp):
    name = "tensor.log"


@irdl_op_definition
class SqrtOp(ActivationOp):
    name = "tensor.sqrt"


@irdl_op_definition
class RsqrtOp(ActivationOp):
    """1 / sqrt(x), two roundings, as torch's CPU kernel."""

    name = "tensor.rsqrt"


@irdl_op_definition
class ClipOp(NumberUnaryOp):
    """x limited to [min, max] (torch.clamp, hardtanh, relu6; TVM's clip); a bound left out is
    none. As torch's: x < min ? min : x, then x > max ? max : x (-0.0 against 0.0 stays -0.0, a
    NaN stays NaN, with min > max every element is max). A float tensor's bounds are f64; an
    integer tensor's are integers of its type, kept exactly (an int64 bound above 2**53 is not
    rounded through a float)."""

    name = "tensor.clip"
    min = opt_prop_def(FloatAttr[Float64Type] | IntegerAttr)
    max = opt_prop_def(FloatAttr[Float64Type] | IntegerAttr)
    assembly_format = "$input (`min` $min^)? (`max` $max^)? attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, min: float | None = None, max: float | None = None):
        element = _element(input.type)
        bounds = {k: _clip_bound(v, element) for k, v in (("min", min), ("max", max)) if v is not None}
        super().__init__(input, bounds)  # pyright: ignore[reportArgumentType]

    def bounds(self) -> tuple[float | None, float | None]:
        return tuple(None if b is None else b.value.data for b in (self.min, self.max))  # pyright: ignore[reportReturnType]

    def verify_(self) -> None:
        super().verify_()
        bounds = [b for b in (self.min, self.max) if b is not None]
        if not bounds:
            raise VerifyException(f"{self.name} needs a min or a max")
        element = _element(self.input.type)
        for b in bounds:
            if b.value.data != b.value.data:
                raise VerifyException(f"{self.name}: a bound is NaN")
            if isinstance(element, IntegerType) and b.type != element:
                raise VerifyException(
                    f"{self.name}: the bound {b.value.data} is not an integer of {element}, the input's type")
            if not isinstance(element, IntegerType) and not isinstance(b, FloatAttr):
                raise VerifyException(f"{self.name}: the bound {b.value.data} of a {element} tensor is not an f64")


def _clip_bound(value: float, element: Attribute) -> Attribute:
    """An integer bound of an integer tensor as an integer of its type (exact for any int64); a
    bound that is not one stays f64 for the verifier to name."""
    if isinstance(element, IntegerType) and isinstance(value, int):
        return IntegerAttr(value, element)
    return FloatAttr(value, f64)


@irdl_op_definition
class AstypeOp(IRDLOperation):
    """Each element converted to the result's element type (TVM's astype, torch's .to(dtype)):
    floats round to nearest even (a float16 from float64 or an integer through float32, as
    torch); a float made an integer truncates toward zero (outside the integer's range it is
    undefined, as in torch); a boolean is 0 or 1, and a number made a boolean is `x != 0`."""

    name = "tensor.astype"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, element_type: Attribute):
        super().__init__(operands=[input], result_types=[TensorType(element_type, shape_of(input.type))])

    def verify_(self) -> None:
        _check_result(self, shape_of(self.input.type), "input ")


@irdl_op_definition
class SigmoidOp(ActivationOp):
    """1 / (1 + exp(-x))."""

    name = "tensor.sigmoid"


@irdl_op_definition
class TanhOp(ActivationOp):
    name = "tensor.tanh"


@irdl_op_definition
class SiluOp(ActivationOp):
    """x * sigmoid(x) (torch's SiLU, swish)."""

    name = "tensor.silu"


GELU_APPROXIMATIONS = ("none", "tanh")


@irdl_op_definition
class GeluOp(ActivationOp):
    """x * Φ(x): `approximate "none"` (the default) is 0.5 x (1 + erf(x / √2)), `"tanh"` is
    0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))), as torch's GELU(approximate=...)."""

    name = "tensor.gelu"
    approximate = prop_def(StringAttr, default_value=StringAttr("none"))
    assembly_format = "$input (`approximate` $approximate^)? attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, approximate: str = "none"):
        super().__init__(input, {"approximate": StringAttr(approximate)})

    def verify_(self) -> None:
        super().verify_()
        if self.approximate.data not in GELU_APPROXIMATIONS:
            raise VerifyException(
                f"{self.name}: approximate must be one of {', '.join(GELU_APPROXIMATIONS)}, got '{self.approximate.data}'"
            )


@irdl_op_definition
class LeakyReluOp(ActivationOp):
    """x where x > 0, else negative_slope * x (default 0.01, as torch's LeakyReLU)."""

    name = "tensor.leaky_relu"
    negative_slope = prop_def(FloatAttr[Float64Type], default_value=FloatAttr(0.01, f64))
    assembly_format = "$input (`negative_slope` $negative_slope^)? attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, negative_slope: float = 0.01):
        super().__init__(input, {"negative_slope": FloatAttr(negative_slope, f64)})


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

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue):
        super().__init__(operands=[a, b, c], result_types=[self.result_type(a, b, c)])


@irdl_op_definition
class BiasAddOp(IRDLOperation):
    """input[..., C, ...] + bias[C], the bias running along dimension `axis` (default 1, as in TVM)."""

    name = "tensor.bias_add"
    input = operand_def(TensorType)
    bias = operand_def(TensorType)
    axis = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $bias (`axis` $axis^)? attr-dict `:` type($input) `,` type($bias) `->` type($result)"
    )

    def __init__(self, input: SSAValue, bias: SSAValue, axis: int = 1):
        super().__init__(
            operands=[input, bias], result_types=[input.type], properties={"axis": IntegerAttr(axis, i64)}
        )

    def verify_(self) -> None:
        _same_elements(self)
        x, b, axis = shape_of(self.input.type), shape_of(self.bias.type), self.axis.value.data
        _check_axis(self, "axis", axis, x)
        if b != (x[axis],):
            raise VerifyException(
                f"{self.name}: bias {fmt(b)} does not match dimension {axis} (of size {x[axis]}) of input {fmt(x)}"
            )
        _check_result(self, x, "input ")


class ContractionOp(IRDLOperation):
    """A 2-d matrix product; TRANSPOSE_RHS selects x·Wᵀ (dense/linear) over x·W."""

    TRANSPOSE_RHS: ClassVar[bool] = False
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[_tensor(lhs, self._result_shape(lhs.type, rhs.type))])

    @classmethod
    def _result_shape(cls, lhs: Attribute, rhs: Attribute) -> Shape:
        name = cls.name  # pyright: ignore[reportAttributeAccessIssue]
        a, b = shape_of(lhs), shape_of(rhs)
        if len(a) != 2 or len(b) != 2:
            raise VerifyException(f"{name} takes 2-d tensors, got {fmt(a)} and {fmt(b)}")
        n, k_rhs = (b[0], b[1]) if cls.TRANSPOSE_RHS else (b[1], b[0])
        if a[1] != k_rhs:
            raise VerifyException(f"{name}: reduction extents differ: lhs {fmt(a)} has {a[1]}, rhs {fmt(b)} has {k_rhs}")
        return (a[0], n)

    def verify_(self) -> None:
        _same_elements(self)
        expected = self._result_shape(self.lhs.type, self.rhs.type)
        got = shape_of(self.result.type)
        if got != expected:
            raise VerifyException(f"{self.name}: result must be {fmt(expected)}, got {fmt(got)}")


@irdl_op_definition
class MatmulOp(ContractionOp):
    """lhs[M,K] · rhs[K,N]."""

    name = "tensor.matmul"


@irdl_op_definition
class DenseOp(ContractionOp):
    """x[M,K] · W[N,K]ᵀ, the linear layer of seed 003."""

    name = "tensor.dense"
    TRANSPOSE_RHS: ClassVar[bool] = True


class UnaryGraphOp(IRDLOperation):
    """One tensor in, one out (the shape ops, pooling, softmax)."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class ReshapeOp(UnaryGraphOp):
    """The same elements in row-major order under a new static shape."""

    name = "tensor.reshape"
    shape = _i64_array_prop()
    assembly_format = "$input `shape` $shape attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, shape: Sequence[int]):
        super().__init__(
            operands=[input], result_types=[_tensor(input, shape)], properties={"shape": i64_array(shape)}
        )

    def verify_(self) -> None:
        _same_elements(self)
        x, shape = shape_of(self.input.type), _values(self.shape)
        if any(d < 0 for d in shape) or prod(shape) != prod(x):
            raise VerifyException(
                f"{self.name}: cannot reshape {fmt(x)} ({prod(x)} elements) to {list(shape)}"
                + (f" ({prod(shape)} elements)" if all(d >= 0 for d in shape) else "")
            )
        _check_result(self, shape, "target ")


@irdl_op_definition
class FlattenOp(UnaryGraphOp):
    """Reshape that merges dimensions start_dim.. into one (torch.flatten, nn.Flatten; default 1)."""

    name = "tensor.flatten"
    start_dim = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    assembly_format = "$input (`start_dim` $start_dim^)? attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, start_dim: int = 1):
        x = shape_of(input.type)
        super().__init__(
            operands=[input],
            result_types=[_tensor(input, flattened(x, start_dim))],
            properties={"start_dim": IntegerAttr(start_dim, i64)},
        )

    def verify_(self) -> None:
        _same_elements(self)
        x, start = shape_of(self.input.type), self.start_dim.value.data
        _check_axis(self, "start_dim", start, x)
        _check_result(self, flattened(x, start), "flattened ")


def flattened(shape: Shape, start_dim: int) -> Shape:
    return (*shape[:start_dim], prod(shape[start_dim:]))


@irdl_op_definition
class TransposeOp(UnaryGraphOp):
    """result[i0, ..] = input[..] with result dimension d being input dimension permutation[d]."""

    name = "tensor.transpose"
    permutation = _i64_array_prop()
    assembly_format = "$input `permutation` $permutation attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, permutation: Sequence[int]):
        x = shape_of(input.type)
        super().__init__(
            operands=[input],
            result_types=[_tensor(input, [x[p] for p in permutation])],
            properties={"permutation": i64_array(permutation)},
        )

    def verify_(self) -> None:
        _same_elements(self)
        x, perm = shape_of(self.input.type), _values(self.permutation)
        if sorted(perm) != list(range(len(x))):
            raise VerifyException(
                f"{self.name}: {list(perm)} is not a permutation of the {len(x)} dimensions of {fmt(x)}"
            )
        _check_result(self, tuple(x[p] for p in perm), "permuted ")


def _check_window(name: str, x: Shape, kernel: Shape, strides: Shape, padding: Shape, dilation: Shape) -> Shape:
    """The OH, OW extents of an NCHW sliding window, after checking its attributes."""
    for what, values in (("strides", strides), ("dilation", dilation)):
        if len(values) != 2 or any(v < 1 for v in values):
            raise VerifyException(f"{name}: {what} must be 2 positive integers, got {list(values)}")
    if len(padding) != 4 or any(p < 0 for p in padding):
        raise VerifyException(
            f"{name}: padding must be 4 non-negative integers [top, left, bottom, right], got {list(padding)}"
        )
    windows = [dilation[d] * (kernel[d] - 1) + 1 for d in range(2)]
    padded = [x[2 + d] + padding[d] + padding[2 + d] for d in range(2)]
    if any(w > p for w, p in zip(windows, padded)):
        raise VerifyException(f"{name}: the {fmt(windows)} window does not fit the padded {fmt(padded)} input of {fmt(x)}")
    return tuple((p - w) // s + 1 for p, w, s in zip(padded, windows, strides))


def conv2d_shape(x: Shape, w: Shape, strides: Shape, padding: Shape, dilation: Shape) -> Shape:
    name = Conv2dOp.name
    if len(x) != 4 or len(w) != 4:
        raise VerifyException(f"{name} takes a 4-d NCHW input and a 4-d OIHW weight, got {fmt(x)} and {fmt(w)}")
    if x[1] != w[1]:
        raise VerifyException(f"{name}: input {fmt(x)} has {x[1]} channels, weight {fmt(w)} expects {w[1]}")
    return (x[0], w[0], *_check_window(name, x, w[2:], strides, padding, dilation))


def max_pool2d_shape(x: Shape, kernel: Shape, strides: Shape, padding: Shape) -> Shape:
    name = MaxPool2dOp.name
    if len(x) != 4:
        raise VerifyException(f"{name} takes a 4-d NCHW input, got {fmt(x)}")
    if len(kernel) != 2 or any(k < 1 for k in kernel):
        raise VerifyException(f"{name}: kernel must be 2 positive integers, got {list(kernel)}")
    spatial = _check_window(name, x, kernel, strides, padding, (1, 1))
    if any(padding[d] >= kernel[d % 2] for d in range(4)):
        raise VerifyException(
            f"{name}: padding {list(padding)} must be smaller than the {fmt(kernel)} kernel on every side"
        )
    return (*x[:2], *spatial)


@irdl_op_definition
class Conv2dOp(IRDLOperation):
    """2-d convolution: input[N,C,H,W] ⊛ weight[O,C,KH,KW] -> [N,O,OH,OW] (no groups, no bias).

    padding is [top, left, bottom, right] zeros around H and W."""

    name = "tensor.conv2d"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    strides = _i64_array_prop((1, 1))
    padding = _i64_array_prop((0, 0, 0, 0))
    dilation = _i64_array_prop((1, 1))
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $weight (`strides` $strides^)? (`padding` $padding^)? (`dilation` $dilation^)? attr-dict "
        "`:` type($input) `,` type($weight) `->` type($result)"
    )

    def __init__(
        self,
        input: SSAValue,
        weight: SSAValue,
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        dilation: Sequence[int] = (1, 1),
    ):
        shape = conv2d_shape(shape_of(input.type), shape_of(weight.type), tuple(strides), tuple(padding), tuple(dilation))
        super().__init__(
            operands=[input, weight],
            result_types=[_tensor(input, shape)],
            properties={"strides": i64_array(strides), "padding": i64_array(padding), "dilation": i64_array(dilation)},
        )

    def verify_(self) -> None:
        _same_elements(self)
        x, w = shape_of(self.input.type), shape_of(self.weight.type)
        attrs = (_values(self.strides), _values(self.padding), _values(self.dilation))
        _check_result(self, conv2d_shape(x, w, *attrs), "convolved ")


@irdl_op_definition
class MaxPool2dOp(UnaryGraphOp):
    """Max over kernel windows of input[N,C,H,W]; padding ([top, left, bottom, right]) never wins.

    Each padding must be smaller than the kernel, so that every window holds an input element."""

    name = "tensor.max_pool2d"
    kernel = _i64_array_prop()
    strides = _i64_array_prop()
    padding = _i64_array_prop((0, 0, 0, 0))
    assembly_format = (
        "$input `kernel` $kernel `strides` $strides (`padding` $padding^)? attr-dict "
        "`:` type($input) `->` type($result)"
    )

    def __init__(
        self, input: SSAValue, kernel: Sequence[int], strides: Sequence[int], padding: Sequence[int] = (0, 0, 0, 0)
    ):
        shape = max_pool2d_shape(shape_of(input.type), tuple(kernel), tuple(strides), tuple(padding))
        super().__init__(
            operands=[input],
            result_types=[_tensor(input, shape)],
            properties={"kernel": i64_array(kernel), "strides": i64_array(strides), "padding": i64_array(padding)},
        )

    def verify_(self) -> None:
        _same_elements(self)
        x = shape_of(self.input.type)
        attrs = (_values(self.kernel), _values(self.strides), _values(self.padding))
        _check_result(self, max_pool2d_shape(x, *attrs), "pooled ")


@irdl_op_definition
class SoftmaxOp(UnaryGraphOp):
    """exp(x - max) / sum(exp(x - max)) along `axis`."""

    name = "tensor.softmax"
    axis = prop_def(IntegerAttr[I64])
    assembly_format = "$input `axis` $axis attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, axis: int):
        super().__init__(operands=[input], result_types=[input.type], properties={"axis": IntegerAttr(axis, i64)})

    def verify_(self) -> None:
        _same_elements(self)
        _floats_only(self)
        x = shape_of(self.input.type)
        _check_axis(self, "axis", self.axis.value.data, x)
        _check_result(self, x, "input ")


def _check_axes(op: IRDLOperation, axes: Shape, x: Shape) -> None:
    """Axes name dimensions of `x` once each, in increasing order, at least one."""
    if not axes or list(axes) != sorted(set(axes)) or not all(0 <= a < len(x) for a in axes):
        raise VerifyException(
            f"{op.name}: axes {list(axes)} must be increasing dimensions of {fmt(x)}, at least one"
        )


def reduced_shape(x: Shape, axes: Sequence[int], keepdims: bool) -> Shape:
    """`x` without the dimensions `axes`, or with them 1 when `keepdims`."""
    return tuple(1 if k in axes else d for k, d in enumerate(x) if keepdims or k not in axes)


class ReduceOp(UnaryGraphOp):
    """A reduction over the dimensions `axes`, dropped from the result or (`keepdims`) kept as 1."""

    axes = _i64_array_prop()
    keepdims = opt_prop_def(UnitAttr)
    assembly_format = "$input `axes` $axes (`keepdims` $keepdims^)? attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, axes: Sequence[int], keepdims: bool = False):
        shape = reduced_shape(shape_of(input.type), axes, keepdims)
        properties: dict[str, Attribute] = {"axes": i64_array(axes)}
        if keepdims:
            properties["keepdims"] = UnitAttr()
        super().__init__(operands=[input], result_types=[_tensor(input, shape)], properties=properties)

    def verify_(self) -> None:
        _same_elements(self)
        _numbers_only(self)
        x, axes = shape_of(self.input.type), _values(self.axes)
        _check_axes(self, axes, x)
        _check_result(self, reduced_shape(x, axes, self.keepdims is not None), "reduced ")


@irdl_op_definition
class SumOp(ReduceOp):
    """The sum; a float16 one adds in float32 and rounds once, as torch."""

    name = "tensor.sum"


@irdl_op_definition
class MeanOp(ReduceOp):
    """The sum divided by the count of elements summed (float16: in float32, rounded once), as torch."""

    name = "tensor.mean"

    def verify_(self) -> None:
        super().verify_()
        _floats_only(self)


@irdl_op_definition
class MaxOp(ReduceOp):
    """The largest element (torch.amax); a NaN among them is the result."""

    name = "tensor.max"


@irdl_op_definition
class FlipOp(UnaryGraphOp):
    """input with the dimensions `axes` reversed (torch.flip)."""

    name = "tensor.flip"
    axes = _i64_array_prop()
    assembly_format = "$input `axes` $axes attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, axes: Sequence[int]):
        super().__init__(operands=[input], result_types=[input.type], properties={"axes": i64_array(axes)})

    def verify_(self) -> None:
        _same_elements(self)
        x = shape_of(self.input.type)
        _check_axes(self, _values(self.axes), x)
        _check_result(self, x, "input ")


def slice_extent(begin: int, end: int, stride: int) -> int:
    """How many elements begin:end:stride holds (begin < end, stride > 0)."""
    return -(-(end - begin) // stride)


def strided_slice_shape(x: Shape, begin: Shape, end: Shape, strides: Shape) -> Shape:
    """The extents of x[begin:end:strides] (one triple per dimension), after checking them."""
    name = StridedSliceOp.name
    if not len(begin) == len(end) == len(strides) == len(x):
        raise VerifyException(
            f"{name}: begin, end and strides need one value per dimension of {fmt(x)}, "
            f"got {list(begin)}, {list(end)} and {list(strides)}"
        )
    for d, (b, e, s, n) in enumerate(zip(begin, end, strides, x)):
        if s < 1 or not 0 <= b < e <= n:
            raise VerifyException(
                f"{name}: dimension {d} of {fmt(x)} sliced {b}:{e}:{s}; a slice needs 0 <= begin < end <= {n} "
                "and a positive stride"
            )
    return tuple(slice_extent(b, e, s) for b, e, s in zip(begin, end, strides))


@irdl_op_definition
class StridedSliceOp(UnaryGraphOp):
    """input[begin[0]:end[0]:strides[0], ...]: every dimension sliced, none empty (TVM's strided_slice)."""

    name = "tensor.strided_slice"
    begin = _i64_array_prop()
    end = _i64_array_prop()
    strides = _i64_array_prop()
    assembly_format = (
        "$input `begin` $begin `end` $end `strides` $strides attr-dict `:` type($input) `->` type($result)"
    )

    def __init__(self, input: SSAValue, begin: Sequence[int], end: Sequence[int], strides: Sequence[int]):
        shape = strided_slice_shape(shape_of(input.type), tuple(begin), tuple(end), tuple(strides))
        super().__init__(
            operands=[input],
            result_types=[_tensor(input, shape)],
            properties={"begin": i64_array(begin), "end": i64_array(end), "strides": i64_array(strides)},
        )

    def verify_(self) -> None:
        _same_elements(self)
        x = shape_of(self.input.type)
        attrs = (_values(self.begin), _values(self.end), _values(self.strides))
        _check_result(self, strided_slice_shape(x, *attrs), "sliced ")


GRAPH_OPS = [
    MatmulOp,
    DenseOp,
    AddOp,
    SubtractOp,
    MultiplyOp,
    DivideOp,
    FloorDivideOp,
    TruncDivideOp,
    ReluOp,
    NegativeOp,
    AbsOp,
    ExpOp,
    LogOp,
    SqrtOp,
    RsqrtOp,
    ClipOp,
    AstypeOp,
    SigmoidOp,
    TanhOp,
    SiluOp,
    GeluOp,
    LeakyReluOp,
    GreaterOp,
    GreaterEqualOp,
    LessOp,
    LessEqualOp,
    EqualOp,
    NotEqualOp,
    WhereOp,
    EwiseFmaOp,
    BiasAddOp,
    ReshapeOp,
    FlattenOp,
    TransposeOp,
    Conv2dOp,
    MaxPool2dOp,
    SoftmaxOp,
    SumOp,
    MeanOp,
    MaxOp,
    FlipOp,
    StridedSliceOp,
]

_OURS = {op.name for op in GRAPH_OPS}

TensorUnion = Dialect(
    "tensor",
    [*(op for op in UpstreamTensor.operations if op.name not in _OURS), *GRAPH_OPS],
    [*UpstreamTensor.attributes],
)
