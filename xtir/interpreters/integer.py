"""Integer arith ops for the evaluator, with the compiled code's semantics.

The JIT computes in two's complement at each type's width (index is 64 bits), so the
evaluator does too: values are Python ints kept in the signed range of their type, and
every result wraps. Upstream's implementations do the same on Python ints, but the
evaluator's loads give numpy scalars, on which their arithmetic overflows (NumPy 2
raises) before it wraps; several ops the JIT compiles they lack.

What LLVM leaves undefined (division by zero, the signed division that overflows, a
shift by the width or more, an `overflow<nsw>` / `overflow<nuw>` op that overflows)
has no number to agree on: the evaluator stops there with an XtirEvaluationError
naming the op and the operands.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute, Operation

from xtir.dialects.block import enclosing_block
from xtir.errors import XtirEvaluationError
from xtir.interpreters.block import numpy_dtype

INDEX_BITS = 64
"""The width of `index` in compiled code (lowered to i64)."""


def width(type_: Attribute) -> int:
    if isinstance(type_, IntegerType):
        return type_.width.data
    if isinstance(type_, IndexType):
        return INDEX_BITS
    raise XtirEvaluationError(f"the evaluator has no integer semantics for type {type_}")


def signed(value: object, bits: int) -> int:
    """`value` (a Python or numpy integer or bool) as a signed `bits`-bit integer, wrapped."""
    modulus = 1 << bits
    v = int(value) % modulus  # type: ignore[call-overload]
    return v - modulus if v >= modulus >> 1 else v


def unsigned(value: object, bits: int) -> int:
    return int(value) % (1 << bits)  # type: ignore[call-overload]


def integer_constant(op: arith.ConstantOp) -> int:
    """An integer constant as the evaluator holds it (i32 `4294967295` is -1)."""
    assert isinstance(op.value, IntegerAttr)
    return signed(op.value.value.data, width(op.result.type))


def undefined_message(block: str | None, op_name: str, what: str, *operands: int) -> str:
    """How the evaluator, and compiled code (lowering/arith_guards.py), report an undefined op."""
    where = f'block "{block}": ' if block is not None else ""
    values = ", ".join(map(str, operands))
    return f"{where}'{op_name}' on {values}: {what}, which is undefined in compiled code"


def _undefined(op: Operation, what: str, *operands: int) -> XtirEvaluationError:
    owner = enclosing_block(op)
    return XtirEvaluationError(undefined_message(owner.label if owner is not None else None, op.name, what, *operands))


def division_problem(lhs: int, rhs: int, bits: int, is_signed: bool) -> str | None:
    """Why `lhs / rhs` (operands as the op reads them) is undefined, if it is: the divisor must not
    be 0, nor -1 under the smallest signed value (the quotient overflows; x86 traps on both)."""
    if rhs == 0:
        return "division by zero"
    if is_signed and rhs == -1 and lhs == -(1 << (bits - 1)):
        return "a signed division that overflows"
    return None


def shift_problem(amount: int, bits: int) -> str | None:
    """Why a shift by `amount` (unsigned) is undefined, if it is (LLVM gives poison)."""
    return f"a shift by {amount} (not less than the width, {bits})" if amount >= bits else None


def _operands(op: Operation, args: PythonValues) -> tuple[int, int, int]:
    """(bits, lhs, rhs) of a binary integer op, its operands signed at the result's width."""
    bits = width(op.results[0].type)
    return bits, signed(args[0], bits), signed(args[1], bits)


def _wrapping(exact: Callable[[int, int], int], unsigned_operands: bool = False):
    """An op computing `exact` on the operands (signed, or unsigned) and wrapping the result."""

    def run(self: IntegerFunctions, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        bits, lhs, rhs = _operands(op, args)
        if unsigned_operands:
            lhs, rhs = unsigned(lhs, bits), unsigned(rhs, bits)
        _check_overflow_flags(op, bits, lhs, rhs, exact)
        return (signed(exact(lhs, rhs), bits),)

    return run


def _check_overflow_flags(op: Operation, bits: int, lhs: int, rhs: int, exact: Callable[[int, int], int]) -> None:
    """`overflow<nsw>` / `overflow<nuw>` promise no signed / unsigned overflow; LLVM makes a
    broken promise poison."""
    flags = getattr(op, "overflow_flags", None)
    if flags is None or not flags.data:
        return
    names = {str(f.value) for f in flags.data}
    if "nsw" in names and exact(lhs, rhs) != signed(exact(lhs, rhs), bits):
        raise _undefined(op, "a signed overflow in an op marked nsw", lhs, rhs)
    ulhs, urhs = unsigned(lhs, bits), unsigned(rhs, bits)
    if "nuw" in names and not 0 <= exact(ulhs, urhs) < 1 << bits:
        raise _undefined(op, "an unsigned overflow in an op marked nuw", ulhs, urhs)


def _truncating_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def _division(exact: Callable[[int, int], int], is_signed: bool):
    """A division or remainder, refused where `division_problem` says it is undefined."""

    def run(self: IntegerFunctions, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        bits, lhs, rhs = _operands(op, args)
        if not is_signed:
            lhs, rhs = unsigned(lhs, bits), unsigned(rhs, bits)
        if (problem := division_problem(lhs, rhs, bits, is_signed)) is not None:
            raise _undefined(op, problem, lhs, rhs)
        return (signed(exact(lhs, rhs), bits),)

    return run


def _signed_division(exact: Callable[[int, int], int]):
    return _division(exact, is_signed=True)


def _unsigned_division(exact: Callable[[int, int], int]):
    return _division(exact, is_signed=False)


def _shift(exact: Callable[[int, int, int], int]):
    """A shift by `rhs` (read as unsigned), refused by the width or more."""

    def run(self: IntegerFunctions, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        bits, lhs, rhs = _operands(op, args)
        amount = unsigned(rhs, bits)
        if (problem := shift_problem(amount, bits)) is not None:
            raise _undefined(op, problem, lhs, rhs)
        _check_overflow_flags(op, bits, lhs, amount, lambda a, s: a << s)
        return (signed(exact(lhs, amount, bits), bits),)

    return run


_PREDICATES: dict[int, tuple[Callable[[int, int], bool], bool]] = {
    0: (operator.eq, False),
    1: (operator.ne, False),
    2: (operator.lt, False),
    3: (operator.le, False),
    4: (operator.gt, False),
    5: (operator.ge, False),
    6: (operator.lt, True),
    7: (operator.le, True),
    8: (operator.gt, True),
    9: (operator.ge, True),
}
"""arith.cmpi predicates: (comparison, whether the operands are read as unsigned)."""


def _int_to_float(value: int, type_: Attribute) -> np.floating:
    """`value` rounded once to the nearest `type_` value, ties to even, as LLVM's sitofp/uitofp.
    (numpy goes through a double first: rounding twice can land one step off for i64.)"""
    dtype = numpy_dtype(type_)
    precision = np.finfo(dtype).nmant + 1
    shift = abs(value).bit_length() - precision
    if shift > 0:
        quotient, rest = divmod(abs(value), 1 << shift)
        half = 1 << (shift - 1)
        quotient += rest > half or (rest == half and quotient % 2 == 1)
        value = (quotient << shift) * (1 if value > 0 else -1)
    return dtype.type(float(value))  # exact in a double: numpy rounds no further (or overflows to inf, as LLVM)


def _float_to_int(value: object, bits: int, is_signed: bool) -> int:
    """LLVM's saturating conversion (`llvm.fpto[su]i.sat`, what the JIT calls): NaN is 0,
    values past the type's range clamp to its ends."""
    x = float(value)  # type: ignore[arg-type]
    if x != x:
        return 0
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if is_signed else (0, (1 << bits) - 1)
    if x <= low:
        return signed(low, bits)
    if x >= high:
        return signed(high, bits)
    return signed(int(x), bits)


@register_impls
class IntegerFunctions(InterpreterFunctions):
    run_addi = impl(arith.AddiOp)(_wrapping(operator.add))
    run_subi = impl(arith.SubiOp)(_wrapping(operator.sub))
    run_muli = impl(arith.MuliOp)(_wrapping(operator.mul))
    run_andi = impl(arith.AndIOp)(_wrapping(operator.and_))
    run_ori = impl(arith.OrIOp)(_wrapping(operator.or_))
    run_xori = impl(arith.XOrIOp)(_wrapping(operator.xor))
    run_maxsi = impl(arith.MaxSIOp)(_wrapping(max))
    run_minsi = impl(arith.MinSIOp)(_wrapping(min))
    run_maxui = impl(arith.MaxUIOp)(_wrapping(max, unsigned_operands=True))
    run_minui = impl(arith.MinUIOp)(_wrapping(min, unsigned_operands=True))
    run_divsi = impl(arith.DivSIOp)(_signed_division(_truncating_div))
    run_remsi = impl(arith.RemSIOp)(_signed_division(lambda a, b: a - _truncating_div(a, b) * b))
    run_floordivsi = impl(arith.FloorDivSIOp)(_signed_division(operator.floordiv))
    run_ceildivsi = impl(arith.CeilDivSIOp)(_signed_division(_ceil_div))
    run_divui = impl(arith.DivUIOp)(_unsigned_division(operator.floordiv))
    run_remui = impl(arith.RemUIOp)(_unsigned_division(operator.mod))
    run_ceildivui = impl(arith.CeilDivUIOp)(_unsigned_division(_ceil_div))
    run_shli = impl(arith.ShLIOp)(_shift(lambda a, s, bits: a << s))
    run_shrsi = impl(arith.ShRSIOp)(_shift(lambda a, s, bits: a >> s))
    run_shrui = impl(arith.ShRUIOp)(_shift(lambda a, s, bits: unsigned(a, bits) >> s))

    @impl(arith.CmpiOp)
    def run_cmpi(self, interpreter: Interpreter, op: arith.CmpiOp, args: PythonValues) -> PythonValues:
        bits = width(op.lhs.type)
        compare, is_unsigned = _PREDICATES[op.predicate.value.data]
        read = unsigned if is_unsigned else signed
        return (compare(read(args[0], bits), read(args[1], bits)),)

    @impl(arith.IndexCastOp)
    def run_index_cast(self, interpreter: Interpreter, op: arith.IndexCastOp, args: PythonValues) -> PythonValues:
        return (signed(signed(args[0], width(op.input.type)), width(op.result.type)),)

    @impl(arith.ExtSIOp)
    def run_extsi(self, interpreter: Interpreter, op: arith.ExtSIOp, args: PythonValues) -> PythonValues:
        return (signed(args[0], width(op.input.type)),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interpreter: Interpreter, op: arith.ExtUIOp, args: PythonValues) -> PythonValues:
        return (signed(unsigned(args[0], width(op.input.type)), width(op.result.type)),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interpreter: Interpreter, op: arith.TruncIOp, args: PythonValues) -> PythonValues:
        return (signed(args[0], width(op.result.type)),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interpreter: Interpreter, op: arith.SIToFPOp, args: PythonValues) -> PythonValues:
        return (_int_to_float(signed(args[0], width(op.input.type)), op.result.type),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interpreter: Interpreter, op: arith.UIToFPOp, args: PythonValues) -> PythonValues:
        return (_int_to_float(unsigned(args[0], width(op.input.type)), op.result.type),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interpreter: Interpreter, op: arith.FPToSIOp, args: PythonValues) -> PythonValues:
        return (_float_to_int(args[0], width(op.result.type), is_signed=True),)

    @impl(arith.FPToUIOp)
    def run_fptoui(self, interpreter: Interpreter, op: arith.FPToUIOp, args: PythonValues) -> PythonValues:
        return (_float_to_int(args[0], width(op.result.type), is_signed=False),)

    @impl(arith.BitcastOp)
    def run_bitcast(self, interpreter: Interpreter, op: arith.BitcastOp, args: PythonValues) -> PythonValues:
        source, target = op.input.type, op.result.type
        bits = _bit_width(source)
        if _bit_width(target) != bits:
            raise XtirEvaluationError(f"'{op.name}' from {source} to {target}: the widths differ in compiled code")
        raw = unsigned(args[0], bits) if _is_integer(source) else _float_bits(args[0], source)
        if _is_integer(target):
            return (signed(raw, bits),)
        return (np.array(raw, dtype=f"u{bits // 8}").view(numpy_dtype(target))[()],)


def _is_integer(type_: Attribute) -> bool:
    return isinstance(type_, IntegerType | IndexType)


def _bit_width(type_: Attribute) -> int:
    return width(type_) if _is_integer(type_) else numpy_dtype(type_).itemsize * 8


def _float_bits(value: object, type_: Attribute) -> int:
    dtype = numpy_dtype(type_)
    return int(np.array(value, dtype=dtype).view(f"u{dtype.itemsize}")[()])
