"""`convert-arith-to-llvm` and `convert-math-to-llvm`: arith and math ops → llvm ops.

They run after convert-types-to-llvm (lowering/to_llvm.py), on values whose types are
LLVM's already (i64 for index), and map each op to one llvm op or a short expansion:
integer and float binary ops, compares, selects, casts, min / max (compare + select, or `llvm.maximum` etc. for floats),
floor / ceil division (divide, then step by one where the remainder says so, the
constants 0 and 1 once per function), saturating float → int casts (`llvm.fptosi.sat`);
float adds and multiplies get the `contract` fast-math flag. math ops with an LLVM
intrinsic become `llvm.call_intrinsic`, a few others call libm; math.exp and math.erf on f16
and f32 are computed in double-precision arith that LLVM vectorizes (lowering/vector_math.py). xDSL has
neither conversion (see to_llvm.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, i64
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from xtir.errors import LoweringError
from xtir.lowering.to_llvm import bits, declare, entry_constant, llvm_icmp, module_of, walk
from xtir.lowering.vector_math import EXPANSIONS, expands

ARITH = "convert-arith-to-llvm"
MATH = "convert-math-to-llvm"


def float_suffix(t: Attribute) -> str:
    """The type suffix of an LLVM intrinsic's name (`llvm.maximum.f32`)."""
    return f"f{bits(t)}"


_INT_BINOPS: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.ShRUIOp: llvm.LShrOp,
}
_FLOAT_BINOPS: dict[type[Operation], type[llvm.AbstractFloatArithOp]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}
_MIN_MAX_INT = {arith.MaxSIOp: "sgt", arith.MinSIOp: "slt", arith.MaxUIOp: "ugt", arith.MinUIOp: "ult"}
_FLOAT_INTRINSICS = {
    arith.MaximumfOp: "llvm.maximum",
    arith.MinimumfOp: "llvm.minimum",
    arith.MaxnumfOp: "llvm.maxnum",
    arith.MinnumfOp: "llvm.minnum",
}
_MATH_INTRINSICS = {
    "math.sqrt": "llvm.sqrt",
    "math.exp": "llvm.exp",
    "math.exp2": "llvm.exp2",
    "math.log": "llvm.log",
    "math.log2": "llvm.log2",
    "math.log10": "llvm.log10",
    "math.sin": "llvm.sin",
    "math.cos": "llvm.cos",
    "math.absf": "llvm.fabs",
    "math.floor": "llvm.floor",
    "math.ceil": "llvm.ceil",
    "math.round": "llvm.round",
    "math.roundeven": "llvm.roundeven",
    "math.trunc": "llvm.trunc",
    "math.powf": "llvm.pow",
    "math.copysign": "llvm.copysign",
    "math.fma": "llvm.fma",
}
MATH_LIBM = {  # scalar calls: LLVM vectorizes a loop calling one only where vector_math names a vector variant
    "math.tanh",
    "math.erf",
    "math.tan",
    "math.atan",
    "math.atan2",
    "math.sinh",
    "math.cosh",
    "math.expm1",
    "math.log1p",
}


class ConstantLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter) -> None:
        t = op.result.type
        value = op.value
        if isinstance(value, IntegerAttr):
            value = IntegerAttr(value.value.data, t)
        elif not isinstance(value, FloatAttr):
            raise LoweringError(op, f"unsupported constant {value}")
        rewriter.replace(op, llvm.ConstantOp(value, t))


class ArithLowering(RewritePattern):
    """Every arith op other than constant, one llvm op or a short expansion each."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.name.startswith("arith.") or isinstance(op, arith.ConstantOp):
            return
        new = self.lower(op, rewriter)
        if new is None:
            raise LoweringError(op, f"'{op.name}' has no lowering to the llvm dialect")
        rewriter.replace(op, new)

    @staticmethod
    def lower(op: Operation, rewriter: PatternRewriter) -> list[Operation] | None:  # noqa: C901 (one case per op family)
        operands = op.operands
        result_type = op.results[0].type if op.results else None
        kind = type(op)
        if kind in _INT_BINOPS:
            new_op = _INT_BINOPS[kind](*operands)
            flags = getattr(op, "overflow_flags", None)
            if flags is not None and flags.data and isinstance(new_op, llvm.ArithmeticBinOpOverflow):
                new_op = _INT_BINOPS[kind](
                    *operands, overflow=llvm.OverflowAttr(tuple(llvm.OverflowFlag(f.value) for f in flags.data))
                )
            return [new_op]
        if kind in _FLOAT_BINOPS:
            # `contract` lets LLVM fuse a multiply and an add into one FMA (clang's and TVM's
            # default, -ffp-contract=fast); the op's own fast-math flags are kept as well.
            fastmath = getattr(op, "fastmath", None)
            own = {llvm.FastMathFlag(f.value) for f in fastmath.data} if fastmath is not None else set()
            flags = llvm.FastMathAttr(tuple(sorted(own | {llvm.FastMathFlag.ALLOW_CONTRACT}, key=lambda f: f.value)))
            return [_FLOAT_BINOPS[kind](operands[0], operands[1], flags)]
        if kind in _MIN_MAX_INT:
            cmp = llvm_icmp(operands[0], operands[1], _MIN_MAX_INT[kind])
            return [cmp, llvm.SelectOp(cmp, operands[0], operands[1])]
        if kind in _FLOAT_INTRINSICS:
            name = f"{_FLOAT_INTRINSICS[kind]}.{float_suffix(result_type)}"
            return [llvm.CallIntrinsicOp(name, operands, [result_type])]
        match op:
            case arith.FloorDivSIOp() | arith.CeilDivSIOp():
                # q = a / b rounded toward zero; step it by one when the remainder is
                # non-zero and the exact quotient lies on that side of q
                a, b = operands
                q, r = llvm.SDivOp(a, b), llvm.SRemOp(a, b)
                zero, one = entry_constant(rewriter, op, 0, result_type), entry_constant(rewriter, op, 1, result_type)
                nonzero = llvm_icmp(r.res, zero, "ne")
                signs = llvm.XOrOp(r.res, b)
                floor = isinstance(op, arith.FloorDivSIOp)
                side = llvm_icmp(signs.res, zero, "slt" if floor else "sge")
                adjust = llvm.AndOp(nonzero.res, side.res)
                stepped = llvm.SubOp(q.res, one) if floor else llvm.AddOp(q.res, one)
                return [q, r, nonzero, signs, side, adjust, stepped, llvm.SelectOp(adjust, stepped, q)]
            case arith.CeilDivUIOp():
                a, b = operands
                q, r = llvm.UDivOp(a, b), llvm.URemOp(a, b)
                zero, one = entry_constant(rewriter, op, 0, result_type), entry_constant(rewriter, op, 1, result_type)
                nonzero = llvm_icmp(r.res, zero, "ne")
                stepped = llvm.AddOp(q.res, one)
                return [q, r, nonzero, stepped, llvm.SelectOp(nonzero, stepped, q)]
            case arith.CmpiOp():
                return [llvm.ICmpOp(op.lhs, op.rhs, IntegerAttr(op.predicate.value.data, i64))]
            case arith.CmpfOp():
                return [llvm.FCmpOp(op.lhs, op.rhs, IntegerAttr(op.predicate.value.data, i64))]
            case arith.SelectOp():
                return [llvm.SelectOp(op.cond, op.lhs, op.rhs)]
            case arith.NegfOp():
                return [llvm.FNegOp(op.operand)]
            case arith.ExtSIOp() | arith.ExtUIOp() | arith.TruncIOp():
                if bits(operands[0].type) > bits(result_type):
                    return [llvm.TruncOp(operands[0], result_type)]
                signed = isinstance(op, arith.ExtSIOp)
                return [(llvm.SExtOp if signed else llvm.ZExtOp)(operands[0], result_type)]
            case arith.SIToFPOp():
                return [llvm.SIToFPOp(operands[0], result_type)]
            case arith.UIToFPOp():
                if bits(operands[0].type) >= 64:
                    return None
                wide = llvm.ZExtOp(operands[0], i64)
                return [wide, llvm.SIToFPOp(wide, result_type)]
            case arith.FPToSIOp() | arith.FPToUIOp():
                sign = "s" if isinstance(op, arith.FPToSIOp) else "u"
                name = f"llvm.fpto{sign}i.sat.i{bits(result_type)}.{float_suffix(operands[0].type)}"
                return [llvm.CallIntrinsicOp(name, operands, [result_type])]
            case arith.ExtFOp():
                return [llvm.FPExtOp(operands[0], result_type)]
            case arith.TruncFOp():
                return [llvm.FPTruncOp(operands[0], result_type)]
            case arith.BitcastOp():
                return [llvm.BitcastOp(operands[0], result_type)]
            case _:
                return None


class MathLowering(RewritePattern):
    """math ops with an LLVM intrinsic become `llvm.call_intrinsic`; a few others call libm;
    exp and erf on f16 and f32 are computed inline (vector_math.EXPANSIONS)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.name.startswith("math."):
            return
        t = op.results[0].type
        if expands(op):
            rewriter.replace(op, EXPANSIONS[op.name](op.operands[0]))
        elif op.name in _MATH_INTRINSICS:
            name = f"{_MATH_INTRINSICS[op.name]}.{float_suffix(t)}"
            rewriter.replace(op, llvm.CallIntrinsicOp(name, op.operands, [t]))
        elif op.name in MATH_LIBM and bits(t) in (32, 64):
            name = op.name.removeprefix("math.") + ("f" if bits(t) == 32 else "")
            declare(module_of(op), name, llvm.LLVMFunctionType([t] * len(op.operands), t))
            rewriter.replace(op, llvm.CallOp(name, *op.operands, return_type=t))
        else:
            raise LoweringError(op, f"'{op.name}' has no lowering to the llvm dialect")


@dataclass(frozen=True)
class ConvertArithToLLVMPass(ModulePass):
    name = ARITH

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walk(op, [ConstantLowering(), ArithLowering()])


@dataclass(frozen=True)
class ConvertMathToLLVMPass(ModulePass):
    name = MATH

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walk(op, [MathLowering()])
