"""The `math` ops the compiler lowers (LLVM intrinsics and libm calls), for the evaluator.

One numpy function per op, `fn(dtype, *operands)`, used by the scalar interpreter
(`MathFunctions`) and by the vectorized loop nests alike, so that both compute the same
bits. The operands are numpy scalars or arrays of the op's float type `dtype`.

- Exact ops (sqrt, fabs, floor, ceil, trunc, round, roundeven, copysign, fma) are
  computed exactly or correctly rounded in the op's own type.
- Transcendental ops are computed in double precision and rounded once to the type
  (for f32 that is the correctly rounded result but in rare near-ties; libm's expf,
  what compiled code calls, is within half an ulp too: compare with a tolerance of an
  ulp). numpy's double routines give the same bits for an element wherever it stands
  in a contiguous array, so every call goes through one contiguous float64 array.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from xdsl.dialects import math as math_dialect
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from xtir.interpreters.block import numpy_dtype

MathFn = Callable[..., object]


def _contiguous_f64(operands: tuple[object, ...]) -> tuple[list[np.ndarray], tuple[int, ...]]:
    arrays = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in operands))
    return [np.ascontiguousarray(a).reshape(-1) for a in arrays], arrays[0].shape


def _shaped(result: np.ndarray, dtype: np.dtype, shape: tuple[int, ...]) -> object:
    result = result.astype(dtype).reshape(shape)
    return result if shape else result[()]


def _via_f64(ufunc: Callable[..., np.ndarray]) -> MathFn:
    def run(dtype: np.dtype, *operands: object) -> object:
        flat, shape = _contiguous_f64(operands)
        return _shaped(ufunc(*flat), dtype, shape)

    return run


def _native(ufunc: Callable[..., object]) -> MathFn:
    """An op numpy computes exactly (or correctly rounded) in the type itself."""
    return lambda dtype, *operands: np.asarray(ufunc(*operands), dtype=dtype)[()]


def _round(dtype: np.dtype, x: object) -> object:
    """Halfway cases away from zero (llvm.round); |x - trunc(x)| is exact."""
    x = np.asarray(x, dtype=dtype)
    t = np.trunc(x)
    away = np.abs(x - t) >= dtype.type(0.5)
    return np.where(away, t + np.copysign(dtype.type(1), x), t).astype(dtype)[()]


def _fma_narrow(dtype: np.dtype, a: object, b: object, c: object) -> object:
    """fma for f16 / f32 through double: the product is exact, the sum is rounded to odd
    (its last bit set when inexact), which then rounds to the narrow type exactly as one
    rounding of the exact result would."""
    p = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    c64 = np.asarray(c, np.float64)
    s = p + c64
    bb = s - p
    error = (p - (s - bb)) + (c64 - bb)  # TwoSum: s + error == p + c exactly
    even = (np.asarray(s).view(np.int64) & 1) == 0
    nudge = np.isfinite(s) & (error != 0) & even
    s = np.where(nudge, np.nextafter(s, np.where(error > 0, np.inf, -np.inf)), s)
    return np.asarray(s).astype(dtype)[()]


def _fma_exact(a: float, b: float, c: float) -> float:
    """One correctly rounded double fma, in exact rational arithmetic."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c  # an infinite or NaN product is what the fused one is
    if not math.isfinite(c):
        return c
    if a * b == 0 and c == 0:
        return a * b + c  # the sign of an exact zero, as IEEE adds zeros
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def _fma(dtype: np.dtype, a: object, b: object, c: object) -> object:
    if dtype.itemsize < 8:
        return _fma_narrow(dtype, a, b, c)
    flat, shape = _contiguous_f64((a, b, c))
    return _shaped(np.frompyfunc(_fma_exact, 3, 1)(*flat).astype(np.float64), dtype, shape)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.frompyfunc(math.erf, 1, 1)(x).astype(np.float64)


MATH_OPS: dict[str, MathFn] = {
    "math.sqrt": _native(np.sqrt),
    "math.absf": _native(np.abs),
    "math.floor": _native(np.floor),
    "math.ceil": _native(np.ceil),
    "math.trunc": _native(np.trunc),
    "math.roundeven": _native(np.rint),
    "math.round": _round,
    "math.copysign": _native(np.copysign),
    "math.fma": _fma,
    "math.exp": _via_f64(np.exp),
    "math.exp2": _via_f64(np.exp2),
    "math.expm1": _via_f64(np.expm1),
    "math.log": _via_f64(np.log),
    "math.log2": _via_f64(np.log2),
    "math.log10": _via_f64(np.log10),
    "math.log1p": _via_f64(np.log1p),
    "math.sin": _via_f64(np.sin),
    "math.cos": _via_f64(np.cos),
    "math.tan": _via_f64(np.tan),
    "math.atan": _via_f64(np.arctan),
    "math.atan2": _via_f64(np.arctan2),
    "math.sinh": _via_f64(np.sinh),
    "math.cosh": _via_f64(np.cosh),
    "math.tanh": _via_f64(np.tanh),
    "math.erf": _via_f64(_erf),
    "math.powf": _via_f64(np.power),
}
"""What the CPU backend lowers (lowering/to_llvm.py: its intrinsics and libm calls)."""


def math_function(op: Operation) -> Callable[..., object] | None:
    """`op` as a function of its operand values (None for an op that is not in MATH_OPS)."""
    fn = MATH_OPS.get(op.name)
    if fn is None:
        return None
    dtype = numpy_dtype(op.results[0].type)
    return lambda *operands: fn(dtype, *operands)


def _scalar_impl(name: str):
    def run(self: InterpreterFunctions, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        dtype = numpy_dtype(op.results[0].type)
        return (MATH_OPS[name](dtype, *(dtype.type(a) for a in args)),)

    return run


_OP_CLASSES = {op.name: op for op in math_dialect.Math.operations}

MathFunctions = register_impls(
    type(
        "MathFunctions",
        (InterpreterFunctions,),
        {f"run_{name.removeprefix('math.')}": impl(_OP_CLASSES[name])(_scalar_impl(name)) for name in MATH_OPS},
    )
)
"""Interpreter implementations of MATH_OPS, on the scalars the interpreter holds."""
