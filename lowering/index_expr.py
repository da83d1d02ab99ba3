"""Index expressions (`Expr`) as arith ops on `index` values, for the lowering passes.

    %i0 * 16 + %i1        ->  %0 = arith.muli %i0, %c16 : index
                              %1 = arith.addi %0, %i1 : index
    %f floordiv 4         ->  arith.floordivsi %f, %c4 : index
    %f mod 4              ->  arith.remsi %f, %c4 : index   (%f >= 0 provably, from loop bounds)
    (%f - 1) mod 4        ->  %r = arith.remsi %0, %c4 : index
                              %n = arith.cmpi slt, %r, %c0 : index
                              %s = arith.addi %r, %c4 : index
                              arith.select %n, %s, %r : index

`mod` is a floor mod, as in the verifier and the evaluator; remsi takes the sign of its
operand, so where that may be negative the remainder is moved into [0, divisor).

Constants go to the function's prologue (the leading allocas and constants of its
entry block), each value once, so they dominate every use and stay out of loops;
computed values go right before the op that needs them. Within one `IndexEmitter`
each distinct subexpression is emitted once; across ops the passes run xDSL's CSE.

Ops are inserted through an xDSL `Builder`: a pattern's `PatternRewriter` (one, so that
its walker sees the new ops), else a plain `Builder` at the emitter's point.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, func, gpu, memref
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from xtir.dialects.block import AllocOp, loop_bounds
from xtir.dialects.expr import INT64_MAX, Atom, Div, Expr, Mod, Var, fits_int64
from xtir.dialects.walk import parent_of_type
from xtir.errors import LoweringError
from xtir.lowering.loops import constant_loop

INDEX = IndexType()


def entry_block(op: Operation) -> Block | None:
    """The entry block of the func.func around `op` (None outside functions)."""
    function = parent_of_type(op, func.FuncOp)
    return function.body.blocks.first if function is not None else None


def _is_alloc(op: Operation) -> bool:
    return isinstance(op, AllocOp | memref.AllocaOp)


def _prologue(block: Block) -> list[Operation]:
    """The leading allocations and constants of an entry block."""
    ops: list[Operation] = []
    for op in block.ops:
        if not (_is_alloc(op) or isinstance(op, arith.ConstantOp)):
            break
        ops.append(op)
    return ops


def alloca_point(block: Block) -> InsertPoint:
    """Where a function-level allocation goes: after the leading allocations."""
    last = None
    for op in block.ops:
        if not _is_alloc(op):
            break
        last = op
    return InsertPoint.after(last) if last is not None else InsertPoint.at_start(block)


def constant(builder: Builder | None, anchor: Operation, value: int | float, type: Attribute = INDEX) -> SSAValue:
    """An `arith.constant` usable at `anchor`: found or created in the function prologue, through
    `builder` (a pattern's rewriter; None: a plain Builder)."""
    if isinstance(value, int) and not fits_int64(value):
        # IntegerAttr would wrap 2^63 .. 2^64 - 1 to a negative number and refuse larger ones
        # with a VerifyException; such a constant comes from the user's index expressions.
        message = f"index constant {value} does not fit in 64 bits (at most {INT64_MAX}); index arithmetic is signed 64-bit"
        raise LoweringError(anchor, message)
    attr = FloatAttr(float(value), type) if isinstance(value, float) else IntegerAttr(value, type)  # type: ignore[arg-type]
    builder = builder if builder is not None else Builder(InsertPoint.before(anchor))
    block = entry_block(anchor)
    if block is None:
        return builder.insert(arith.ConstantOp(attr), InsertPoint.before(anchor)).result
    prologue = _prologue(block)
    for op in prologue:
        if isinstance(op, arith.ConstantOp) and op.value == attr and op.result.type == type:
            return op.result
    op = arith.ConstantOp(attr)
    if isinstance(value, int) and type == INDEX:
        op.result.name_hint = f"c{value}" if value >= 0 else f"c_neg{-value}"
    elif isinstance(value, float):
        op.result.name_hint = "cst"
    return builder.insert(op, InsertPoint.after(prologue[-1]) if prologue else InsertPoint.at_start(block)).result


def sort_prologue(f: func.FuncOp) -> None:
    """Order the function's leading allocas and constants: allocas, index constants by value, others."""
    block = f.body.blocks.first
    if block is None:
        return
    prologue = []
    for op in block.ops:
        if not (_is_alloc(op) or isinstance(op, arith.ConstantOp)):
            break
        prologue.append(op)

    def key(op: Operation) -> tuple[int, int]:
        if _is_alloc(op):
            return (0, 0)
        if isinstance(op.value, IntegerAttr) and isinstance(op.result.type, IndexType):  # type: ignore[attr-defined]
            return (1, op.value.value.data)  # type: ignore[attr-defined]
        return (2, 0)

    ordered = sorted(prologue, key=key)  # stable: allocas keep their order
    if ordered == prologue:
        return
    anchor = prologue[-1].next_op
    for op in ordered:
        op.detach()
        if anchor is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, anchor)


def index_bounds(value: SSAValue) -> tuple[int, int] | None:
    """Inclusive range of an index value the emitter starts from: a block.for or block
    iteration variable (its domain), or the variable of an scf.for with constant bounds
    (loops lowered before the ops that use them, or made by lower-accel); None otherwise."""
    if (known := loop_bounds(value)) is not None:
        return known
    loop = constant_loop(value)
    if loop is None or loop[2] == 0:
        return None
    lb, step, trips = loop
    return lb, lb + (trips - 1) * step


class IndexEmitter:
    """Emits index expressions as arith ops at `point` (default: before `anchor`), through
    `builder` (a pattern's rewriter; default: a Builder at `point`).

    `anchor` is an op in the function (for the prologue constants); `point` may be the
    end of a block being filled, since ops are appended in order.
    """

    def __init__(self, anchor: Operation, builder: Builder | None = None, point: InsertPoint | None = None):
        self.anchor = anchor
        self.point = point if point is not None else InsertPoint.before(anchor)
        self.builder = builder if builder is not None else Builder(self.point)
        self.memo: dict[Expr, SSAValue] = {}
        self.sums: dict[tuple[SSAValue, SSAValue], SSAValue] = {}

    def const(self, value: int) -> SSAValue:
        return constant(self.builder, self.anchor, value)

    def emit(self, op: Operation) -> SSAValue:
        """Insert any op at the emitter's point; its first result (the op itself has none)."""
        self.builder.insert(op, self.point)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def binary(self, cls: type[arith.SignlessIntegerBinaryOperation], lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self.emit(cls(lhs, rhs))

    def add(self, lhs: SSAValue | None, rhs: SSAValue) -> SSAValue:
        """lhs + rhs, or rhs when lhs is None (an offset of zero)."""
        if lhs is None:
            return rhs
        key = (lhs, rhs)
        if (known := self.sums.get(key)) is None:
            known = self.sums[key] = self.binary(arith.AddiOp, lhs, rhs)
        return known

    def cmp(self, lhs: SSAValue, predicate: str, rhs: int) -> SSAValue:
        return self.emit(arith.CmpiOp(lhs, self.const(rhs), predicate))

    def all_of(self, conditions: Sequence[SSAValue]) -> SSAValue:
        result = conditions[0]
        for c in conditions[1:]:
            result = self.emit(arith.AndIOp(result, c))
        return result

    def expr(self, e: Expr) -> SSAValue:
        if (known := self.memo.get(e)) is not None:
            return known
        if e.is_const:
            value = self.const(e.const)
        elif (var := e.as_var()) is not None:
            value = var
        else:
            value = self._sum(e)
        self.memo[e] = value
        return value

    def offset(self, e: Expr) -> SSAValue | None:
        """The value of an offset, None when it is the constant 0 (for `add`)."""
        return None if e.is_const and e.const == 0 else self.expr(e)

    def _sum(self, e: Expr) -> SSAValue:
        acc: SSAValue | None = None
        for atom, coef in e.terms:
            value = self._atom(atom)
            if acc is None:
                acc = value if coef == 1 else self.binary(arith.MuliOp, value, self.const(coef))
            elif coef == 1:
                acc = self.binary(arith.AddiOp, acc, value)
            elif coef == -1:
                acc = self.binary(arith.SubiOp, acc, value)
            elif coef < 0:
                acc = self.binary(arith.SubiOp, acc, self.binary(arith.MuliOp, value, self.const(-coef)))
            else:
                acc = self.binary(arith.AddiOp, acc, self.binary(arith.MuliOp, value, self.const(coef)))
        assert acc is not None
        if e.const > 0:
            acc = self.binary(arith.AddiOp, acc, self.const(e.const))
        elif e.const < 0:
            acc = self.binary(arith.SubiOp, acc, self.const(-e.const))
        return acc

    def _atom(self, atom: Atom) -> SSAValue:
        if isinstance(atom, Var):
            return atom.value
        inner = self.expr(atom.expr)
        if isinstance(atom, Div):
            return self.binary(arith.FloorDivSIOp, inner, self.const(atom.divisor))
        assert isinstance(atom, Mod)
        rem = self.binary(arith.RemSIOp, inner, self.const(atom.divisor))
        if _provably_non_negative(atom.expr):
            return rem
        return self._floor_mod(rem, atom.divisor)

    def _floor_mod(self, rem: SSAValue, divisor: int) -> SSAValue:
        """`mod` is a floor mod (in [0, divisor)); remsi takes the sign of its operand, so a
        negative remainder is moved up by the divisor: `r < 0 ? r + divisor : r`. (Selecting
        avoids the overflow of `(r + divisor) rem divisor` for divisors near 2^63.)"""
        negative = self.cmp(rem, "slt", 0)
        shifted = self.binary(arith.AddiOp, rem, self.const(divisor))
        return self.emit(arith.SelectOp(negative, shifted, rem))


def _provably_non_negative(e: Expr) -> bool:
    rng = e.bounds(index_bounds)
    return rng is not None and rng[0] >= 0


# The inverse: arith ops back to Exprs -----------------------------------------------------

_DECODE_BINARY = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
}


def decode(value: SSAValue) -> Expr | None:
    """The Expr an IndexEmitter-style arith computation of `value` stands for, over the
    values it starts from (loop variables, and GPU thread and block ids); None for anything else
    it could be."""
    op = value.owner
    if not isinstance(op, Operation) or isinstance(op, gpu.ThreadIdOp | gpu.BlockIdOp):
        return Expr.var(value)
    if isinstance(op, arith.SelectOp):
        return _decode_floor_mod(op)
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return Expr.of(op.value.value.data)
    if type(op) in _DECODE_BINARY or isinstance(op, arith.MuliOp | arith.FloorDivSIOp | arith.RemSIOp):
        lhs, rhs = decode(op.operands[0]), decode(op.operands[1])
        if lhs is None or rhs is None:
            return None
        if type(op) in _DECODE_BINARY:
            return _DECODE_BINARY[type(op)](lhs, rhs)
        if isinstance(op, arith.MuliOp):
            if lhs.is_const:
                lhs, rhs = rhs, lhs
            return lhs * rhs.const if rhs.is_const else None
        if not rhs.is_const or rhs.const <= 0:
            return None
        return lhs.floordiv(rhs.const) if isinstance(op, arith.FloorDivSIOp) else lhs.mod(rhs.const)
    return None


def _decode_floor_mod(op: arith.SelectOp) -> Expr | None:
    """`select(remsi(x, d) < 0, remsi(x, d) + d, remsi(x, d))` (IndexEmitter's floor mod) as
    `x mod d`, the Expr it was emitted from; None for any other select."""
    rem, cond, shifted = op.rhs, op.cond.owner, op.lhs.owner
    if not isinstance(rem.owner, arith.RemSIOp):
        return None
    divisor = decode(rem.owner.rhs)
    if divisor is None or not divisor.is_const or divisor.const <= 0:
        return None
    tests_sign = (
        isinstance(cond, arith.CmpiOp)
        and cond.predicate.value.data == 2  # slt
        and cond.lhs is rem
        and decode(cond.rhs) == Expr.of(0)
    )
    shifts = isinstance(shifted, arith.AddiOp) and shifted.lhs is rem and decode(shifted.rhs) == divisor
    if not (tests_sign and shifts):
        return None
    inner = decode(rem.owner.lhs)
    return inner.mod(divisor.const) if inner is not None else None


def conjuncts(cond: SSAValue) -> list[SSAValue]:
    """The conditions `cond` is the `and` of (itself when it is no `and`)."""
    op = cond.owner
    if isinstance(op, arith.AndIOp):
        return [*conjuncts(op.lhs), *conjuncts(op.rhs)]
    return [cond]


def decode_bounds(cond: SSAValue, equalities: bool = False) -> list[tuple[Expr, int]] | None:
    """A condition `e0 < b0 and e1 < b1 ...` (what a block predicate lowers to) as its
    conjuncts, each with the constant moved into the bound; with `equalities`, also `e == f`
    conjuncts (the init guard's `b == 0`), each as `e - f < 1` and `f - e < 1`. None for other
    conditions."""
    bounds = [_decode_bound(c, equalities) for c in conjuncts(cond)]
    return None if any(b is None for b in bounds) else [bound for b in bounds for bound in b]  # type: ignore[union-attr]


def _decode_bound(cond: SSAValue, equalities: bool) -> list[tuple[Expr, int]] | None:
    """One conjunct of decode_bounds: one bound, or two for an equality."""
    op = cond.owner
    if not isinstance(op, arith.CmpiOp) or op.predicate.value.data not in ((0, 2) if equalities else (2,)):
        return None  # 0: eq, 2: slt
    lhs, rhs = decode(op.lhs), decode(op.rhs)
    if lhs is None or rhs is None:
        return None
    if op.predicate.value.data == 0:
        return [(d - d.const, 1 - d.const) for d in (lhs - rhs, rhs - lhs)]
    if not rhs.is_const:
        return None
    return [(lhs - lhs.const, rhs.const - lhs.const)]
