"""Interpreter implementations of the graph-level tensor ops, on numpy arrays.

These are the numpy semantics of the ops (the reference for every lowering of them).
Results keep the operands' dtype: numpy would promote a float32 array divided by a
Python int, or softmax's sums, to float64.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType, i1
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute

from xtir.dialects import tensor
from xtir.errors import XtirEvaluationError
from xtir.interpreters.block import numpy_dtype
from xtir.interpreters.integer import division_problem, undefined_message


def dense_to_numpy(value: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The array a dense tensor constant holds (read-only: constants are values)."""
    t = value.type
    assert isinstance(t, TensorType)
    shape = tuple(t.get_shape())
    if t.element_type == i1:  # xDSL stores true as the signed i1 -1 (0xFF), numpy as 1
        return (np.frombuffer(value.data.data, dtype=np.int8) != 0).reshape(shape)
    dtype = numpy_dtype(t.element_type).newbyteorder("<")
    return np.frombuffer(value.data.data, dtype=dtype).reshape(shape)


def dense_from_numpy(array: np.ndarray, element_type: Attribute) -> DenseIntOrFPElementsAttr:
    """A dense tensor attribute holding `array` as `element_type` (raw little-endian bytes)."""
    if element_type == i1:
        array = -np.asarray(array, dtype=bool).astype(np.int8)  # as xDSL stores true: -1
        dtype = np.dtype(np.int8)
    else:
        dtype = numpy_dtype(element_type).newbyteorder("<")
    data = np.ascontiguousarray(array, dtype=dtype).tobytes()
    return DenseIntOrFPElementsAttr(TensorType(element_type, array.shape), BytesAttr(data))


def _ints(array) -> tuple[int, ...]:
    return tuple(array.iter_values())


def _like(op, array: np.ndarray) -> np.ndarray:
    """`array` in the op's result element type."""
    return np.asarray(array).astype(numpy_dtype(op.result.type.element_type), copy=False)


def _wide(x) -> np.ndarray:
    """`x` in at least float32: a float16 activation is computed in float32 and rounded once, as torch does."""
    x = np.asarray(x)
    return x.astype(np.promote_types(x.dtype, np.float32), copy=False)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x: np.ndarray, approximate: str) -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def sliding_windows(x: np.ndarray, kernel, strides, padding, dilation, fill) -> np.ndarray:
    """[N, C, OH, OW, KH, KW]: every (dilated) window of the NCHW input padded with `fill`."""
    top, left, bottom, right = padding
    padded = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=fill)
    dh, dw = dilation
    span = (dh * (kernel[0] - 1) + 1, dw * (kernel[1] - 1) + 1)
    windows = np.lib.stride_tricks.sliding_window_view(padded, span, axis=(2, 3))
    return windows[:, :, :: strides[0], :: strides[1], ::dh, ::dw]


def _lowest(dtype: np.dtype):
    return -np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


_COMPARISONS = {
    tensor.GreaterOp: np.greater,
    tensor.GreaterEqualOp: np.greater_equal,
    tensor.LessOp: np.less,
    tensor.LessEqualOp: np.less_equal,
    tensor.EqualOp: np.equal,
    tensor.NotEqualOp: np.not_equal,
}


def _comparison(op_type: type[tensor.CompareOp], fn: np.ufunc):
    @impl(op_type)
    def run(self, interpreter: Interpreter, op: tensor.CompareOp, args: PythonValues) -> PythonValues:
        return (fn(args[0], args[1]),)

    return run


def integer_quotient(op, a: np.ndarray, b: np.ndarray, trunc: bool) -> np.ndarray:
    """a // b (or rounded toward zero), refused where compiled code would trap: a zero
    divisor, or the smallest value divided by -1 (lowering/arith_guards.py reports the same)."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    bits = a.dtype.itemsize * 8
    for x, y in zip(a.flat, b.flat):
        if (problem := division_problem(int(x), int(y), bits, is_signed=True)) is not None:
            raise XtirEvaluationError(undefined_message(None, op.name, problem, int(x), int(y)))
    q = np.floor_divide(a, b)
    if trunc:
        q = q + ((q * b != a) & ((a < 0) != (b < 0)))
    return q


def astype(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """torch's conversions: a float16 from float64 or an integer through float32, a float made
    an integer truncated toward zero, a number made a bool `x != 0`."""
    x = np.asarray(x)
    if dtype == np.bool_:
        return x != 0
    if dtype == np.float16 and x.dtype != np.float32:
        x = x.astype(np.float32)
    if np.issubdtype(dtype, np.integer) and np.issubdtype(x.dtype, np.floating):
        x = np.trunc(x)
    with np.errstate(invalid="ignore"):  # out of the integer's range: undefined, as in torch
        return x.astype(dtype)


def reduce_axes(op) -> tuple[tuple[int, ...], bool]:
    return _ints(op.axes), op.keepdims is not None


class TensorGraphFunctions(InterpreterFunctions):
    @impl(tensor.MatmulOp)
    def run_matmul(self, interpreter: Interpreter, op: tensor.MatmulOp, args: PythonValues) -> PythonValues:
        return (np.asarray(args[0]) @ np.asarray(args[1]),)

    @impl(tensor.DenseOp)
    def run_dense(self, interpreter: Interpreter, op: tensor.DenseOp, args: PythonValues) -> PythonValues:
        return (np.asarray(args[0]) @ np.asarray(args[1]).T,)

    @impl(tensor.AddOp)
    def run_add(self, interpreter: Interpreter, op: tensor.AddOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.add(args[0], args[1])),)

    @impl(tensor.SubtractOp)
    def run_subtract(self, interpreter: Interpreter, op: tensor.SubtractOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.subtract(args[0], args[1])),)

    @impl(tensor.MultiplyOp)
    def run_multiply(self, interpreter: Interpreter, op: tensor.MultiplyOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.multiply(args[0], args[1])),)

    @impl(tensor.DivideOp)
    def run_divide(self, interpreter: Interpreter, op: tensor.DivideOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.divide(args[0], args[1])),)

    @impl(tensor.ReluOp)
    def run_relu(self, interpreter: Interpreter, op: tensor.ReluOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.maximum(args[0], 0)),)

    @impl(tensor.SigmoidOp)
    def run_sigmoid(self, interpreter: Interpreter, op: tensor.SigmoidOp, args: PythonValues) -> PythonValues:
        return (_like(op, sigmoid(_wide(args[0]))),)

    @impl(tensor.TanhOp)
    def run_tanh(self, interpreter: Interpreter, op: tensor.TanhOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.tanh(_wide(args[0]))),)

    @impl(tensor.SiluOp)
    def run_silu(self, interpreter: Interpreter, op: tensor.SiluOp, args: PythonValues) -> PythonValues:
        x = _wide(args[0])
        return (_like(op, x * sigmoid(x)),)

    @impl(tensor.GeluOp)
    def run_gelu(self, interpreter: Interpreter, op: tensor.GeluOp, args: PythonValues) -> PythonValues:
        return (_like(op, gelu(_wide(args[0]), op.approximate.data)),)

    @impl(tensor.LeakyReluOp)
    def run_leaky_relu(self, interpreter: Interpreter, op: tensor.LeakyReluOp, args: PythonValues) -> PythonValues:
        x = _wide(args[0])
        return (_like(op, np.where(x > 0, x, x * op.negative_slope.value.data)),)

    @impl(tensor.WhereOp)
    def run_where(self, interpreter: Interpreter, op: tensor.WhereOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.where(args[0], args[1], args[2])),)

    @impl(tensor.EwiseFmaOp)
    def run_ewise_fma(self, interpreter: Interpreter, op: tensor.EwiseFmaOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.asarray(args[0]) * args[1] + args[2]),)

    @impl(tensor.BiasAddOp)
    def run_bias_add(self, interpreter: Interpreter, op: tensor.BiasAddOp, args: PythonValues) -> PythonValues:
        x = np.asarray(args[0])
        trailing = x.ndim - 1 - op.axis.value.data
        return (_like(op, x + np.asarray(args[1]).reshape(-1, *(1,) * trailing)),)

    @impl(tensor.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: tensor.ReshapeOp, args: PythonValues) -> PythonValues:
        return (np.asarray(args[0]).reshape(_ints(op.shape)),)

    @impl(tensor.FlattenOp)
    def run_flatten(self, interpreter: Interpreter, op: tensor.FlattenOp, args: PythonValues) -> PythonValues:
        return (np.asarray(args[0]).reshape(tuple(op.result.type.get_shape())),)

    @impl(tensor.TransposeOp)
    def run_transpose(self, interpreter: Interpreter, op: tensor.TransposeOp, args: PythonValues) -> PythonValues:
        return (np.transpose(args[0], _ints(op.permutation)),)

    @impl(tensor.Conv2dOp)
    def run_conv2d(self, interpreter: Interpreter, op: tensor.Conv2dOp, args: PythonValues) -> PythonValues:
        x, w = np.asarray(args[0]), np.asarray(args[1])
        windows = sliding_windows(x, w.shape[2:], _ints(op.strides), _ints(op.padding), _ints(op.dilation), 0)
        return (_like(op, np.einsum("nchwkl,ockl->nohw", windows, w)),)

    @impl(tensor.MaxPool2dOp)
    def run_max_pool2d(self, interpreter: Interpreter, op: tensor.MaxPool2dOp, args: PythonValues) -> PythonValues:
        x = np.asarray(args[0])
        windows = sliding_windows(x, _ints(op.kernel), _ints(op.strides), _ints(op.padding), (1, 1), _lowest(x.dtype))
        return (windows.max(axis=(4, 5)),)

    @impl(tensor.StridedSliceOp)
    def run_strided_slice(self, interpreter: Interpreter, op: tensor.StridedSliceOp, args: PythonValues) -> PythonValues:
        triples = zip(_ints(op.begin), _ints(op.end), _ints(op.strides))
        return (np.ascontiguousarray(np.asarray(args[0])[tuple(slice(*t) for t in triples)]),)

    @impl(tensor.SoftmaxOp)
    def run_softmax(self, interpreter: Interpreter, op: tensor.SoftmaxOp, args: PythonValues) -> PythonValues:
        x = _wide(args[0])
        axis = op.axis.value.data
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return (_like(op, e / e.sum(axis=axis, keepdims=True)),)

    @impl(tensor.SumOp)
    def run_sum(self, interpreter: Interpreter, op: tensor.SumOp, args: PythonValues) -> PythonValues:
        x = np.asarray(args[0])
        axes, keep = reduce_axes(op)
        wide = np.float32 if x.dtype == np.float16 else x.dtype
        return (_like(op, np.sum(x, axis=axes, keepdims=keep, dtype=wide)),)

    @impl(tensor.MeanOp)
    def run_mean(self, interpreter: Interpreter, op: tensor.MeanOp, args: PythonValues) -> PythonValues:
        x = _wide(args[0])
        axes, keep = reduce_axes(op)
        count = math.prod(x.shape[a] for a in axes)
        return (_like(op, np.sum(x, axis=axes, keepdims=keep) / x.dtype.type(count)),)

    @impl(tensor.MaxOp)
    def run_max(self, interpreter: Interpreter, op: tensor.MaxOp, args: PythonValues) -> PythonValues:
        axes, keep = reduce_axes(op)
        x = np.asarray(args[0])
        largest = np.max(x, axis=axes, keepdims=keep)
        if np.issubdtype(x.dtype, np.floating):
            # as the compiled code's maximumf (IEEE maximum): +0.0 beats -0.0, which np.max leaves to the order
            positive_zero = np.any((x == 0) & ~np.signbit(x), axis=axes, keepdims=keep)
            largest = np.where((largest == 0) & positive_zero, x.dtype.type(0), largest)
        return (_like(op, largest),)

    @impl(tensor.FlipOp)
    def run_flip(self, interpreter: Interpreter, op: tensor.FlipOp, args: PythonValues) -> PythonValues:
        return (np.ascontiguousarray(np.flip(args[0], _ints(op.axes))),)

    @impl(tensor.NegativeOp)
    def run_negative(self, interpreter: Interpreter, op: tensor.NegativeOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.negative(args[0])),)

    @impl(tensor.AbsOp)
    def run_abs(self, interpreter: Interpreter, op: tensor.AbsOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.abs(args[0])),)

    @impl(tensor.ExpOp)
    def run_exp(self, interpreter: Interpreter, op: tensor.ExpOp, args: PythonValues) -> PythonValues:
        return (_like(op, np.exp(_wide(args[0]))),)

    @impl(tensor.LogOp)
    def run_log(self, interpreter: Interpreter, op: tensor.LogOp, args: PythonValues) -> PythonValues:
        with np.errstate(divide="ignore", invalid="ignore"):  # log 0 = -inf, log of a negative NaN, as torch
            return (_like(op, np.log(_wide(args[0]))),)

    @impl(tensor.SqrtOp)
    def run_sqrt(self, interpreter: Interpreter, op: tensor.SqrtOp, args: PythonValues) -> PythonValues:
        with np.errstate(invalid="ignore"):
            return (_like(op, np.sqrt(_wide(args[0]))),)

    @impl(tensor.RsqrtOp)
    def run_rsqrt(self, interpreter: Interpreter, op: tensor.RsqrtOp, args: PythonValues) -> PythonValues:
        x = _wide(args[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            return (_like(op, x.dtype.type(1) / np.sqrt(x)),)

    @impl(tensor.ClipOp)
    def run_clip(self, interpreter: Interpreter, op: tensor.ClipOp, args: PythonValues) -> PythonValues:
        x = np.asarray(args[0])
        lo, hi = op.bounds()
        if lo is not None:  # torch's std::max and std::min: -0.0 against 0.0 stays -0.0, NaN stays NaN
            x = np.where(x < x.dtype.type(lo), x.dtype.type(lo), x)
        if hi is not None:
            x = np.where(x > x.dtype.type(hi), x.dtype.type(hi), x)
        return (_like(op, x),)

    @impl(tensor.AstypeOp)
    def run_astype(self, interpreter: Interpreter, op: tensor.AstypeOp, args: PythonValues) -> PythonValues:
        return (astype(args[0], numpy_dtype(op.result.type.element_type)),)

    @impl(tensor.FloorDivideOp)
    def run_floor_divide(self, interpreter: Interpreter, op: tensor.FloorDivideOp, args: PythonValues) -> PythonValues:
        return (_like(op, integer_quotient(op, args[0], args[1], trunc=False)),)

    @impl(tensor.TruncDivideOp)
    def run_trunc_divide(self, interpreter: Interpreter, op: tensor.TruncDivideOp, args: PythonValues) -> PythonValues:
        return (_like(op, integer_quotient(op, args[0], args[1], trunc=True)),)


# the comparisons differ only in their numpy function: made in a loop, registered with the rest
for _op_type, _fn in _COMPARISONS.items():
    setattr(TensorGraphFunctions, f"run_{_op_type.name.removeprefix('tensor.')}", _comparison(_op_type, _fn))
register_impls(TensorGraphFunctions)
