"""Math functions the CPU target computes so that LLVM vectorizes the loops calling them.

LLVM cannot vectorize a loop that calls a scalar libm function (`erff`, `expf`): it keeps
the loop scalar, or widens the call into one scalar call per lane. Two remedies, chosen per
function by accuracy, measured over 3·10^7 float32 points (every 211th bit pattern, so the
whole range with denormals, plus 10^7 uniform in [-12, 12], ±inf, nan, ±0 and the saturation
points) against torch 2.13 on AVX-512 (SLEEF, within 1 ulp of correctly rounded there), glibc 2.36:

- exp and erf (f32 and f16): `exp_via_f64`, `erf_via_f64`, arithmetic in double precision
  that LLVM vectorizes like any other, rounded once to f32 or f16 (f16 through f32 rounded to
  odd, which makes the second rounding the correct one; `_Builder.rounded_to_odd`).
  exp: n = round(x / ln 2), r = x - n ln 2 (Cody-Waite), e^r by its Taylor polynomial of
  degree 11 (|r| <= ln 2 / 2: relative error ~1e-14), times 2^n made from n's bits. erf: a
  polynomial in x² times x below 1, a polynomial in x from 1 to 4, both fitted to ~1e-13.
  Multiply-adds are `llvm.fmuladd`: fused where the CPU has FMA, two instructions where not.
  Both are the correctly rounded value but for inputs within ~1e-13 relative of a rounding
  boundary, where they may be 1 ulp off it: over 6·10^7 points (both signs, an extra 10^6 in
  exp's range) erf was at 2 points and exp at none, but exp is elsewhere (exp(65.51379)).
  Within 1 ulp of torch; every f16 value the correctly rounded one, as `xtir.evaluate` gives.
  glibc's libmvec was over the 2 ulps the tests promise: `_ZGVeN16v_expf` 3 ulps from torch
  (and from correctly rounded) at 22 points, `_ZGVeN16v_erff` 4 ulps at 54695 points.
- tanh (f32): glibc's libmvec (`_ZGVeN16v_tanhf`, AVX-512, and `_ZGVdN8v_tanhf`, AVX2, from
  glibc 2.35; named only where the process defines them), named to LLVM's vectorizer by the
  `vector-function-abi-variant` attribute of the `tanhf` declaration (`add_vector_variants`);
  the loop's remainder calls `tanhf`. Measured: both within 1 ulp of torch and of correctly
  rounded; the scalar `tanhf` within 2 ulps of both. The two differ on a third or more of
  the inputs in [-10, 10] (by 1 ulp, 2 or 3 at a few points), so a tanh's bits depend on
  whether its element falls in the vector body or the remainder (on its position and the
  loop's size), each within the 2 ulps.
  A polynomial of our own would have to match that near 0 and at the saturation; LLVM's own
  `-vector-library=LIBMVEC` maps neither tanhf nor any 16-lane variant.

Special values are torch's: exp(nan) = nan, exp(+inf) = inf, exp(-inf) = 0, exp(±0) = 1,
erf(±inf) = ±1, erf(±0) = ±0, nan passed through; libmvec's tanh gives torch's bits for nan,
±inf and ±0. f64 keeps libm (`llvm.exp.f64`, `erf`, `tanh`): no vector variant is named.
"""

from __future__ import annotations

import math
from collections.abc import Collection

import llvmlite.ir as ir
from xdsl.dialects import llvm
from xdsl.dialects.builtin import Float16Type, Float32Type, FloatAttr, IntegerAttr, f32, f64, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue

_MAGIC = 1.5 * 2.0**52
"""Added to a double of magnitude < 2^51, it rounds it to an integer (ties to even), which
then stands in the low bits of the sum's encoding."""
# fdlibm's ln 2 = _LN2_HI + _LN2_LO: the high part has 32 bits, so n * _LN2_HI is exact
_LN2_HI = float.fromhex("0x1.62e42feep-1")
_LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")
_EXP_CLAMP = (-104.0, 89.0)
"""e^-104 rounds to 0 in f32 (and f16), e^89 to inf: clamping there keeps n small without
changing a result."""
_EXP_TAYLOR_DEGREE = 11

# erf(a) for 0 <= a <= 4 (erf(4) rounds to 1 in f32), two least-squares polynomials fitted in
# numpy to Python's math.erf (Chebyshev fit, 4·10^4 points, converted to powers):
_ERF_SPLIT = 1.0
_ERF_SMALL = (  # erf(a) / a as a polynomial in a², a < 1: relative error 4e-15
    1.1283791670955092,
    -0.3761263890317184,
    0.11283791670531279,
    -0.026866170576674533,
    0.00522397707371395,
    -0.0008548301547574068,
    0.00012054603812173151,
    -1.4912212132713592e-05,
    1.6301453366868853e-06,
    -1.5148916122645478e-07,
    9.356163909704538e-09,
)
_ERF_LARGE = (  # erf(a) as a polynomial in t = (a - 2.5) / 1.5, 1 <= a <= 4: absolute error 3e-13
    0.9995930479825589,
    0.003267426346735103,
    -0.012252848796742079,
    0.028181552118990087,
    -0.04365077378245462,
    0.04645361601987038,
    -0.03187655301395389,
    0.009267546520277933,
    0.00668070272746876,
    -0.009621547338314971,
    0.004544011369065316,
    0.0004432160969383718,
    -0.0018265510128601895,
    0.0009160225553499063,
    5.221119630696477e-05,
    -0.0002863399681798312,
    0.00011903830284898746,
    2.432573825585754e-05,
    -3.6691556155832445e-05,
    4.892371869413695e-06,
    5.079829187532734e-06,
    -1.1146455695527313e-06,
    -2.844790202940325e-07,
)
_ERF_CLAMP = 4.0


class _Builder:
    """llvm ops appended to a list, each returning its result."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, value: float | int, t: Attribute = f64) -> SSAValue:
        attr = IntegerAttr(value, t) if t == i64 else FloatAttr(value, t)  # type: ignore[arg-type]
        return self.add(llvm.ConstantOp(attr, t))

    def intrinsic(self, name: str, *args: SSAValue) -> SSAValue:
        return self.add(llvm.CallIntrinsicOp(f"{name}.f64", args, [f64]))

    def muladd(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        """a·b + c, fused where the CPU has FMA (`llvm.fma` would call libm's software fma
        per lane where it has not); every use tolerates the extra rounding of a·b."""
        return self.intrinsic("llvm.fmuladd", a, b, c)

    def polynomial(self, coefficients: tuple[float, ...], x: SSAValue) -> SSAValue:
        """Σ coefficients[k] x^k, by Horner's rule."""
        p = self.const(coefficients[-1])
        for c in reversed(coefficients[:-1]):
            p = self.muladd(p, x, self.const(c))
        return p

    def narrowed(self, x: SSAValue, y: SSAValue) -> SSAValue:
        """The double `y` rounded once to `x`'s type, or `x` itself where it is nan."""
        if isinstance(x.type, Float32Type):
            y = self.add(llvm.FPTruncOp(y, f32))
        else:
            y = self.add(llvm.FPTruncOp(self.rounded_to_odd(y), x.type))
        is_nan = self.add(llvm.FCmpOp(x, x, IntegerAttr(llvm.FCmpPredicateFlag.UNO.to_int(), i64)))
        return self.add(llvm.SelectOp(is_nan, x, y))

    def rounded_to_odd(self, y: SSAValue) -> SSAValue:
        """The double `y` rounded to f32 toward zero, the last bit set where that was inexact:
        rounding that to f16 rounds `y` once (24 bits >= 2·11 + 2), where rounding to nearest
        twice is 1 ulp off for 4 of the 65536 f16 exps and erfs. (x86 converts f32 to f16 in
        vector instructions, f64 to f16 by a library call per element.)"""
        nearest = self.add(llvm.FPTruncOp(y, f32))
        back = self.add(llvm.FPExtOp(nearest, f64))
        bits = self.add(llvm.BitcastOp(nearest, i32))
        away = self.flag(llvm.FCmpPredicateFlag.OGT, self.intrinsic("llvm.fabs", back), self.intrinsic("llvm.fabs", y))
        inexact = self.flag(llvm.FCmpPredicateFlag.ONE, back, y)
        toward_zero = self.add(llvm.SubOp(bits, away))  # the f32 next to `nearest`, toward y
        return self.add(llvm.BitcastOp(self.add(llvm.OrOp(toward_zero, inexact)), f32))

    def flag(self, predicate: llvm.FCmpPredicateFlag, a: SSAValue, b: SSAValue) -> SSAValue:
        """1 where `a predicate b`, else 0 (an i32)."""
        return self.add(llvm.ZExtOp(self.add(llvm.FCmpOp(a, b, IntegerAttr(predicate.to_int(), i64))), i32))


def exp_via_f64(x: SSAValue) -> list[Operation]:
    """The ops computing e^x for an f16 or f32 `x` (see the module docstring); the last one's
    result is the value, of x's type."""
    b = _Builder()
    d = b.add(llvm.FPExtOp(x, f64))
    low, high = _EXP_CLAMP
    d = b.intrinsic("llvm.minnum", b.intrinsic("llvm.maxnum", d, b.const(low)), b.const(high))
    magic = b.const(_MAGIC)
    shifted = b.muladd(d, b.const(1 / math.log(2)), magic)
    n = b.add(llvm.FSubOp(shifted, magic))
    r = b.add(llvm.FSubOp(d, b.add(llvm.FMulOp(n, b.const(_LN2_HI)))))  # n·_LN2_HI is exact
    r = b.muladd(n, b.const(-_LN2_LO), r)
    p = b.polynomial(tuple(1 / math.factorial(k) for k in range(_EXP_TAYLOR_DEGREE + 1)), r)
    # 2^n: n + 1023 in the exponent field (the low bits of `shifted` hold n, two's complement)
    biased = b.add(llvm.AddOp(b.add(llvm.BitcastOp(shifted, i64)), b.const(1023, i64)))
    scale = b.add(llvm.BitcastOp(b.add(llvm.ShlOp(biased, b.const(52, i64))), f64))
    b.narrowed(x, b.add(llvm.FMulOp(p, scale)))
    return b.ops


def erf_via_f64(x: SSAValue) -> list[Operation]:
    """The ops computing erf(x) for an f16 or f32 `x` (see the module docstring); the last
    one's result is the value, of x's type."""
    b = _Builder()
    d = b.add(llvm.FPExtOp(x, f64))
    a = b.intrinsic("llvm.minnum", b.intrinsic("llvm.fabs", d), b.const(_ERF_CLAMP))
    small = b.add(llvm.FMulOp(a, b.polynomial(_ERF_SMALL, b.add(llvm.FMulOp(a, a)))))
    large = b.polynomial(_ERF_LARGE, b.muladd(a, b.const(1 / 1.5), b.const(-2.5 / 1.5)))
    below = b.add(llvm.FCmpOp(a, b.const(_ERF_SPLIT), IntegerAttr(llvm.FCmpPredicateFlag.OLT.to_int(), i64)))
    magnitude = b.add(llvm.SelectOp(below, small, large))
    b.narrowed(x, b.intrinsic("llvm.copysign", magnitude, d))  # erf(-0.0) = -0.0
    return b.ops


EXPANSIONS = {"math.exp": exp_via_f64, "math.erf": erf_via_f64}
"""math ops computed inline on f16 and f32 (f64 ones call libm)."""


def expands(op: Operation) -> bool:
    """Whether `op` is computed by one of EXPANSIONS."""
    return op.name in EXPANSIONS and isinstance(op.results[0].type, Float16Type | Float32Type)


VECTOR_VARIANTS: dict[str, tuple[tuple[str, str, int], ...]] = {
    "tanhf": (("avx512f", "e", 16), ("avx2", "d", 8)),
}
"""libm function -> its libmvec variants: (CPU feature, x86 vector ABI ISA letter, lanes)."""


def _variant_name(scalar: str, isa: str, lanes: int) -> str:
    return f"_ZGV{isa}N{lanes}v_{scalar}"


def vector_variant_names() -> list[tuple[str, str]]:
    """(the CPU feature it needs, its name) for every libmvec function of VECTOR_VARIANTS."""
    return [
        (feature, _variant_name(scalar, isa, lanes))
        for scalar, variants in VECTOR_VARIANTS.items()
        for feature, isa, lanes in variants
    ]


class _VariantAttributes(ir.values.FunctionAttributes):
    """A declaration's attributes with the vector variants LLVM's loop vectorizer may call
    instead (llvmlite writes only the attributes it knows)."""

    def __init__(self, variants: str) -> None:
        super().__init__()
        self.variants = variants

    def _to_list(self, ret_type: ir.Type) -> list[str]:
        # memory(none): the vectorizer widens only calls that touch no memory (tanhf sets no errno)
        return [*super()._to_list(ret_type), "willreturn", "memory(none)", f'"vector-function-abi-variant"="{self.variants}"']


def add_vector_variants(module: ir.Module, available: Collection[str]) -> None:
    """Declare the libmvec variants in `available` (the process defines them, the CPU runs
    them) of the libm functions `module` declares, and name them on those declarations."""
    added: list[ir.Function] = []
    for name, variants in VECTOR_VARIANTS.items():
        scalar = module.globals.get(name)
        if not isinstance(scalar, ir.Function) or not scalar.is_declaration:
            continue
        mappings = []
        for _, isa, lanes in variants:
            vector_name = _variant_name(name, isa, lanes)
            if vector_name not in available:
                continue
            ftype = scalar.function_type
            vector_type = ir.FunctionType(ir.VectorType(ftype.return_type, lanes), [ir.VectorType(a, lanes) for a in ftype.args])
            added.append(ir.Function(module, vector_type, vector_name))
            mappings.append(f"{vector_name}({vector_name})")
        if mappings:
            scalar.attributes = _VariantAttributes(",".join(mappings))
            scalar.attributes.add("nounwind")
    if added:
        # kept until the vectorizer runs: nothing calls them before, and O3 drops unused declarations
        pointers = ir.ArrayType(ir.PointerType(), len(added))
        used = ir.GlobalVariable(module, pointers, "llvm.compiler.used")
        used.linkage, used.section = "appending", "llvm.metadata"
        used.initializer = ir.Constant(pointers, added)
