"""C expressions for the CUDA emitter: types, literals, operators with C precedence.

An expression is a string with the precedence of its outermost operator, so operands are
parenthesized only where C needs it (`a * 8 + b`, not `((a * 8) + b)`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from xtir.errors import XtirError

ATOM, UNARY, MUL, ADD, SHIFT, REL, EQ, BITAND, BITXOR, BITOR, LAND, LOR, COND = range(13, 0, -1)
"""C precedences, tightest first (higher binds tighter)."""

BINARY_PRECEDENCE = {
    "*": MUL, "/": MUL, "%": MUL, "+": ADD, "-": ADD, "<<": SHIFT, ">>": SHIFT,
    "<": REL, "<=": REL, ">": REL, ">=": REL, "==": EQ, "!=": EQ,
    "&": BITAND, "^": BITXOR, "|": BITOR, "&&": LAND, "||": LOR,
}

RESERVED = frozenset(
    "auto bool break case char const continue default do double else enum extern float for goto if inline int "
    "long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile "
    "while class new delete this template typename namespace operator private public protected friend virtual "
    "true false threadIdx blockIdx blockDim gridDim warpSize float4 dim3 uint3 main asm".split()
)


@dataclass(frozen=True)
class Expr:
    text: str
    precedence: int = ATOM

    def at(self, precedence: int) -> str:
        """The text as an operand of an operator of `precedence`."""
        return self.text if self.precedence >= precedence else f"({self.text})"


def binary(op: str, lhs: Expr, rhs: Expr, associative: bool = False) -> Expr:
    """`lhs op rhs`; the right operand is parenthesized at equal precedence (C is left-associative)
    unless the operation is associative (integer + and *, not float ones)."""
    p = BINARY_PRECEDENCE[op]
    return Expr(f"{lhs.at(p)} {op} {rhs.at(p if associative else p + 1)}", p)


def call(name: str, *args: Expr) -> Expr:
    return Expr(f"{name}({', '.join(a.text for a in args)})")


def cast(c_type: str, value: Expr) -> Expr:
    return Expr(f"({c_type}){value.at(UNARY)}", UNARY)


def c_type(ty: Attribute, index_type: str) -> str:
    """The C type of a scalar xDSL type."""
    if isinstance(ty, IndexType):
        return index_type
    if isinstance(ty, Float16Type):
        return "__half"
    if isinstance(ty, Float32Type):
        return "float"
    if isinstance(ty, Float64Type):
        return "double"
    if isinstance(ty, IntegerType):
        width, unsigned = ty.width.data, ty.signedness.data == Signedness.UNSIGNED
        names = {1: "bool", 8: "char", 16: "short", 32: "int", 64: "long long"}
        if width not in names:
            raise XtirError(f"the CUDA emitter has no C type for {ty}")
        if width == 1:
            return "bool"
        return ("unsigned " if unsigned else "signed " if width == 8 else "") + names[width]
    raise XtirError(f"the CUDA emitter supports f16, f32, f64, integer and index values; {ty} is not supported yet")


def unsigned_type(ty: Attribute, index_type: str) -> str:
    name = c_type(ty, index_type)
    return name if name.startswith("unsigned") or name == "bool" else "unsigned " + name.removeprefix("signed ")


def literal(attr: Attribute, ty: Attribute, index_type: str) -> Expr:
    """A C literal of an arith.constant value."""
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        if isinstance(ty, IntegerType) and ty.width.data == 1:
            return Expr("true" if value else "false")
        suffix = "LL" if c_type(ty, index_type) == "long long" and not -(2**31) < value < 2**31 else ""
        text = f"{value}{suffix}"
        return Expr(text, UNARY) if value < 0 else Expr(text)
    if isinstance(attr, FloatAttr):
        return float_literal(attr.value.data, ty)
    raise XtirError(f"the CUDA emitter cannot print the constant {attr}")


def float_literal(value: float, ty: Attribute) -> Expr:
    if isinstance(ty, Float16Type):
        return half_literal(value)
    single = isinstance(ty, Float32Type)
    if not isinstance(ty, Float32Type | Float64Type):
        raise XtirError(f"the CUDA emitter supports f16, f32 and f64 values; {ty} is not supported yet")
    if np.isnan(value) or np.isinf(value):
        # CUDA has no NAN/INFINITY macros without headers; the bit pattern is exact in both compilers
        if single:
            bits = int(np.array(value, dtype=np.float32).view(np.uint32))
            return call("__int_as_float", Expr(f"0x{bits:08x}" if bits < 2**31 else f"(int)0x{bits:08x}u"))
        bits = int(np.array(value, dtype=np.float64).view(np.uint64))
        text = f"0x{bits:016x}LL" if bits < 2**63 else f"(long long)0x{bits:016x}ull"
        return call("__longlong_as_double", Expr(text))
    text = str(np.float32(value)) if single else repr(float(value))
    if "e" not in text and "." not in text:
        text += ".0"
    text += "f" if single else ""
    return Expr(text, UNARY) if text.startswith("-") else Expr(text)


def half_literal(value: float) -> Expr:
    """An f16 constant: `__float2half(0.5f)` (exact: f32 holds every f16), NaN and infinities by their bits."""
    if np.isnan(value) or np.isinf(value):
        bits = int(np.array(value, dtype=np.float16).view(np.uint16))
        return call("__ushort_as_half", Expr(f"(unsigned short)0x{bits:04x}"))
    return call("__float2half", float_literal(value, Float32Type()))


def c_name(hint: str | None, fallback: str) -> str:
    """A C identifier from an IR name (`A_shared/ax0` → `A_shared_ax0`)."""
    name = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in (hint or ""))
    if not name or name[0].isdigit():
        name = fallback + name if name else fallback
    if name in RESERVED or name.startswith("__") or name.startswith("xtir_"):
        name += "_"
    return name
