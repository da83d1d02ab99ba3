"""`guard-arith`: integer ops that would trap or give poison are skipped and reported at run time.

x86 traps (SIGFPE: the process dies) on an integer division by zero and on the signed
division of the smallest value by -1; LLVM gives poison for a shift by the type's width or
more. The evaluator refuses all of these (xtir/interpreters/integer.py); compiled code must
agree. Before convert-to-llvm, on func/scf/arith, every integer

    arith.divsi / divui / remsi / remui / floordivsi / ceildivsi / ceildivui   (divisor b)
    arith.shli / shrsi / shrui                                                 (amount b)

whose right operand is not a constant that makes it defined gets

    %bad = b == 0 [or (a == MIN and b == -1), signed ops]  |  b >= width (unsigned)
    %safe = arith.select %bad, 1 | 0, b      ; the op computes with %safe: it never traps
    scf.if %bad { func.call @xtir_runtime_error(site, a, b) }

reporting on the run-time error channel (lowering/runtime_errors.py): the built function
raises the evaluator's message (`block "B": 'arith.divsi' on 7, 0: division by zero, which
is undefined in compiled code`) after the call. lower-blocks tags each such op with the
block it came from (`xtir.block`), which the message names. The CUDA emitter checks the same
ops (`needs_guard`) and reports the same sites (`site_of`) on its own channel.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.interpreters.integer import division_problem, shift_problem, signed, undefined_message, unsigned, width
from xtir.lowering import runtime_errors
from xtir.lowering.loops import constant_int
from xtir.passes.analysis.dependences import block_of

SIGNED_DIVISIONS = (arith.DivSIOp, arith.RemSIOp, arith.FloorDivSIOp, arith.CeilDivSIOp)
UNSIGNED_DIVISIONS = (arith.DivUIOp, arith.RemUIOp, arith.CeilDivUIOp)
SHIFTS = (arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp)
GUARDED = (*SIGNED_DIVISIONS, *UNSIGNED_DIVISIONS, *SHIFTS)
"""The ops this pass guards (lower-blocks names their block on them)."""


@dataclass(frozen=True)
class ArithSite(runtime_errors.Site):
    """A guarded op; its report is its operands `(a, b)`, sign-extended to 64 bits."""

    op_name: str
    block: str | None
    bits: int
    shift: bool
    is_signed: bool

    def message(self, x: int, y: int) -> str | None:
        if self.shift:
            lhs, rhs = signed(x, self.bits), signed(y, self.bits)
            problem = shift_problem(unsigned(y, self.bits), self.bits)
        else:
            read = signed if self.is_signed else unsigned
            lhs, rhs = read(x, self.bits), read(y, self.bits)
            problem = division_problem(lhs, rhs, self.bits, self.is_signed)
        return None if problem is None else undefined_message(self.block, self.op_name, problem, lhs, rhs)


def _always_defined(op: Operation, bits: int) -> bool:
    """Whether a constant right operand makes `op` defined wherever it runs."""
    rhs = constant_int(op.operands[1])
    if rhs is None:
        return False
    if isinstance(op, SHIFTS):
        return shift_problem(unsigned(rhs, bits), bits) is None
    if isinstance(op, SIGNED_DIVISIONS):
        lhs = constant_int(op.operands[0])
        worst = signed(lhs, bits) if lhs is not None else -(1 << (bits - 1))  # the value -1 overflows
        return division_problem(worst, signed(rhs, bits), bits, is_signed=True) is None
    return unsigned(rhs, bits) != 0


def _integer(t: Attribute) -> bool:
    return isinstance(t, IntegerType | IndexType)


def guard(op: Operation) -> None:
    """Make `op` compute with a safe right operand; report it when the real one is not."""
    t = op.results[0].type
    bits = width(t)
    lhs, rhs = op.operands
    at = Builder(InsertPoint.before(op))

    def const(value: int, type_: Attribute = t) -> SSAValue:
        return at.insert(arith.ConstantOp(IntegerAttr(value, type_))).result  # type: ignore[arg-type]

    def equals(value: SSAValue, constant: int) -> SSAValue:
        return at.insert(arith.CmpiOp(value, const(signed(constant, bits)), "eq")).result

    shift = isinstance(op, SHIFTS)
    if shift:
        bad = at.insert(arith.CmpiOp(rhs, const(bits), "uge")).result
    else:
        bad = equals(rhs, 0)
        if isinstance(op, SIGNED_DIVISIONS):
            overflow = at.insert(arith.AndIOp(equals(lhs, 1 << (bits - 1)), equals(rhs, -1))).result
            bad = at.insert(arith.OrIOp(bad, overflow)).result
    op.operands[1] = at.insert(arith.SelectOp(bad, const(0 if shift else 1), rhs)).result
    site = runtime_errors.register(site_of(op, bits))
    runtime_errors.declare(_module(op))
    report = Block()
    at.insertion_point = InsertPoint.at_end(report)
    at.insert(runtime_errors.report_call(const(site, IndexType()), _as_index(at, lhs), _as_index(at, rhs)))
    at.insert(scf.YieldOp())
    Rewriter.insert_op(scf.IfOp(bad, [], Region(report)), InsertPoint.before(op))


def _as_index(at: Builder, value: SSAValue) -> SSAValue:
    """`value` sign-extended to index."""
    return value if isinstance(value.type, IndexType) else at.insert(arith.IndexCastOp(value, IndexType())).result


def site_of(op: Operation, bits: int) -> ArithSite:
    """The report site of a guarded `op` computing at `bits` (the CUDA emitter's index is 32 bits)."""
    return ArithSite(op.name, block_of(op), bits, isinstance(op, SHIFTS), isinstance(op, SIGNED_DIVISIONS))


def needs_guard(op: Operation) -> bool:
    """Whether `op` is an integer division or shift that may trap or give poison where it runs."""
    if not isinstance(op, GUARDED) or not _integer(t := op.results[0].type):
        return False
    return not _always_defined(op, width(t))


def _module(op: Operation) -> ModuleOp:
    top = op.get_toplevel_object()
    assert isinstance(top, ModuleOp)
    return top


def guard_function(f: func.FuncOp) -> None:
    for op in [o for o in f.walk() if needs_guard(o)]:
        guard(op)


@dataclass(frozen=True)
class GuardArithPass(ModulePass):
    """Guard integer divisions and shifts that would trap or give poison (see the module docstring)."""

    name = "guard-arith"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in [o for o in op.ops if isinstance(o, func.FuncOp) and o.body.blocks]:
            guard_function(f)
