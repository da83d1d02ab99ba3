"""Scalar ops of a block body on numpy arrays: one value per instance of the block.

`vector_function(op)` is `op` as a function of its operand values, each a numpy array
(one element per instance) or a numpy scalar (the same for every instance), computing
bit for bit what the scalar interpreter computes for each element: float arithmetic in
the op's type, integers in two's complement at their width (xtir/interpreters/integer.py;
`i1` is a bool array, read as -1 / 0 where signed). Ops that can stop the evaluator
(integer division, shifts, `overflow<nsw>` flags: undefined in compiled code) and ops
not listed have no vector form: their blocks run in the scalar interpreter.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Attribute, Operation

from xtir.interpreters.block import numpy_dtype
from xtir.interpreters.integer import integer_constant, width
from xtir.interpreters.mathops import math_function

VectorFn = Callable[..., object]


def _is_bool(type_: Attribute) -> bool:
    return numpy_dtype(type_) == np.bool_


def _signed(x: object, type_: Attribute) -> np.ndarray:
    """The signed value of an integer operand (i1: -1 for true)."""
    if _is_bool(type_):
        return -np.asarray(x, dtype=np.int8)
    return np.asarray(x)


def _unsigned(x: object, type_: Attribute) -> np.ndarray:
    if _is_bool(type_):
        return np.asarray(x, dtype=np.uint8)
    dtype = numpy_dtype(type_)
    return np.asarray(x).view(f"u{dtype.itemsize}")


def _wrapped(x: np.ndarray, type_: Attribute) -> object:
    """An integer result as a value of `type_` (numpy integer casts wrap)."""
    if _is_bool(type_):
        return ((np.asarray(x) & 1) != 0)[()]
    return np.asarray(x).astype(numpy_dtype(type_))[()]


def _integer_binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], unsigned: bool = False):
    def make(op: Operation) -> VectorFn | None:
        flags = getattr(op, "overflow_flags", None)
        if flags is not None and flags.data:
            return None  # a broken promise stops the scalar evaluator; keep that check there
        t = op.results[0].type
        read = _unsigned if unsigned else _signed
        return lambda a, b: _wrapped(fn(read(a, t), read(b, t)), t)

    return make


_CMPI = {
    0: (operator.eq, False), 1: (operator.ne, False), 2: (operator.lt, False), 3: (operator.le, False),
    4: (operator.gt, False), 5: (operator.ge, False), 6: (operator.lt, True), 7: (operator.le, True),
    8: (operator.gt, True), 9: (operator.ge, True),
}


def _cmpi(op: arith.CmpiOp) -> VectorFn:
    compare, unsigned = _CMPI[op.predicate.value.data]
    read = _unsigned if unsigned else _signed
    t = op.lhs.type
    return lambda a, b: np.asarray(compare(read(a, t), read(b, t)))[()]


def _unordered(a: object, b: object) -> np.ndarray:
    return np.isnan(a) | np.isnan(b)


_CMPF: dict[int, Callable[[object, object], object]] = {
    0: lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
    1: operator.eq, 2: operator.gt, 3: operator.ge, 4: operator.lt, 5: operator.le,
    6: lambda a, b: (a != b) & ~_unordered(a, b),
    7: lambda a, b: ~_unordered(a, b),
    8: lambda a, b: (a == b) | _unordered(a, b),
    9: lambda a, b: (a > b) | _unordered(a, b),
    10: lambda a, b: (a >= b) | _unordered(a, b),
    11: lambda a, b: (a < b) | _unordered(a, b),
    12: lambda a, b: (a <= b) | _unordered(a, b),
    13: operator.ne,
    14: _unordered,
    15: lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
}


def _cmpf(op: arith.CmpfOp) -> VectorFn:
    compare = _CMPF[op.predicate.value.data]
    return lambda a, b: np.asarray(compare(a, b))[()]


def _maximumf(a: object, b: object) -> object:
    """NaN if either is; +0 over -0 (upstream's arith.maximumf)."""
    zeros = (a == 0) & (b == 0)
    return np.where(zeros, a + b, np.maximum(a, b))[()]  # -0 + -0 is the only -0 sum


def _minimumf(a: object, b: object) -> object:
    zeros = (a == 0) & (b == 0)
    return np.where(zeros, -((-a) + (-b)), np.minimum(a, b))[()]


def _select(cond: object, a: object, b: object) -> object:
    if np.ndim(cond) == 0:
        return a if cond else b
    return np.where(cond, a, b)


def _constant(op: arith.ConstantOp) -> VectorFn | None:
    t = op.result.type
    if isinstance(op.value, FloatAttr):
        value = numpy_dtype(t).type(op.value.value.data)
    elif isinstance(op.value, IntegerAttr):
        value = _wrapped(np.asarray(integer_constant(op)), t)
    else:
        return None
    return lambda: value


def _int_cast(op: Operation) -> VectorFn:
    """index_cast / extsi / trunci (sign-extend or wrap), extui (zero-extend)."""
    source, target = op.operands[0].type, op.results[0].type
    read = _unsigned if isinstance(op, arith.ExtUIOp) else _signed
    if _is_bool(target):
        return lambda x: _wrapped(read(x, source), target)
    dtype = numpy_dtype(target)
    return lambda x: read(x, source).astype(dtype)[()]


def _int_to_float(op: Operation) -> VectorFn:
    source, dtype = op.operands[0].type, numpy_dtype(op.results[0].type)
    read = _unsigned if isinstance(op, arith.UIToFPOp) else _signed
    return lambda x: read(x, source).astype(dtype)[()]  # one rounding (a hardware conversion)


def _float_to_int(op: Operation) -> VectorFn:
    """LLVM's saturating conversion: NaN is 0, values past the range clamp to its ends."""
    target = op.results[0].type
    bits, is_signed = width(target), isinstance(op, arith.FPToSIOp)
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if is_signed else (0, (1 << bits) - 1)
    wide = np.int64 if is_signed else np.uint64

    def run(x: object) -> object:
        x = np.asarray(x, dtype=np.float64)  # exact for every float type
        # `x >= float(high)` is `x >= high`: a double below 2^63 (2^64) is at most 2^63 - 1 (2^64 - 1)
        inside = (x > low) & (x < float(high))
        truncated = np.where(inside, x, 0).astype(wide).astype(np.int64)
        value = np.where(x >= float(high), np.int64(high) if bits < 64 or is_signed else np.int64(-1), truncated)
        value = np.where(x <= low, np.int64(low), value)
        return _wrapped(value, target)

    return run


def _bitcast(op: arith.BitcastOp) -> VectorFn | None:
    source, target = numpy_dtype(op.input.type), numpy_dtype(op.result.type)
    if source.itemsize != target.itemsize or source == np.bool_ or target == np.bool_:
        return None
    return lambda x: np.asarray(x).view(target)[()]


def _float_cast(op: Operation) -> VectorFn:
    dtype = numpy_dtype(op.results[0].type)
    return lambda x: np.asarray(x).astype(dtype)[()]


def _same(fn: VectorFn) -> Callable[[Operation], VectorFn]:
    """An op whose function does not depend on its types."""
    return lambda op: fn


_MAKERS: dict[type[Operation], Callable[[Operation], VectorFn | None]] = {
    arith.ConstantOp: _constant,
    arith.AddiOp: _integer_binary(np.add),
    arith.SubiOp: _integer_binary(np.subtract),
    arith.MuliOp: _integer_binary(np.multiply),
    arith.AndIOp: _integer_binary(np.bitwise_and),
    arith.OrIOp: _integer_binary(np.bitwise_or),
    arith.XOrIOp: _integer_binary(np.bitwise_xor),
    arith.MaxSIOp: _integer_binary(np.maximum),
    arith.MinSIOp: _integer_binary(np.minimum),
    arith.MaxUIOp: _integer_binary(np.maximum, unsigned=True),
    arith.MinUIOp: _integer_binary(np.minimum, unsigned=True),
    arith.CmpiOp: _cmpi,
    arith.CmpfOp: _cmpf,
    arith.SelectOp: _same(_select),
    arith.NegfOp: _same(np.negative),
    arith.AddfOp: _same(np.add),
    arith.SubfOp: _same(np.subtract),
    arith.MulfOp: _same(np.multiply),
    arith.DivfOp: _same(np.divide),
    arith.MaxnumfOp: _same(np.fmax),
    arith.MinnumfOp: _same(np.fmin),
    arith.MaximumfOp: _same(_maximumf),
    arith.MinimumfOp: _same(_minimumf),
    arith.IndexCastOp: _int_cast,
    arith.ExtSIOp: _int_cast,
    arith.ExtUIOp: _int_cast,
    arith.TruncIOp: _int_cast,
    arith.SIToFPOp: _int_to_float,
    arith.UIToFPOp: _int_to_float,
    arith.FPToSIOp: _float_to_int,
    arith.FPToUIOp: _float_to_int,
    arith.ExtFOp: _float_cast,
    arith.TruncFOp: _float_cast,
    arith.BitcastOp: _bitcast,
}


def vector_function(op: Operation) -> VectorFn | None:
    """`op` on numpy operands (None: it has no vector form)."""
    if op.name.startswith("math."):
        return math_function(op)
    make = _MAKERS.get(type(op))
    return make(op) if make is not None else None
