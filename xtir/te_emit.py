"""`te.create_func`: tensor-expression stages as a block-dialect function.

Each stage becomes one loop nest (spatial axes, then reduce axes) around one block whose
iteration variables are bound to those loops; a reduction stores its identity in
`block.init` and accumulates into its buffer (`C = C + A * B`, the form of
examples/matmul.mlir). Values are emitted once per block (common subexpressions share
one op). A condition on the indices is emitted as `e < c` on index arithmetic, the form
lower-blocks reads guard facts from, so that the loads of an if_then_else branch evaluated
under `scf.if` (a padding stage's) are shown in bounds when the program is built.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from xdsl.dialects import arith, func, scf
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    AnyFloat,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from xtir.dialects import block as blk
from xtir.dialects.block import stable_hint
from xtir.dialects.expr import Expr
from xtir.te import (
    BOOL,
    FLOATS,
    INDEX,
    Axis,
    Binary,
    Call,
    Cast,
    Compare,
    Const,
    Load,
    Logical,
    Reduce,
    Select,
    TeError,
    TeExpr,
    Tensor,
    check_in_bounds,
    index_bounds,
    walk,
)

ELEMENT_TYPES: dict[str, Attribute] = {
    "float16": Float16Type(),
    "float32": Float32Type(),
    "float64": Float64Type(),
    "int8": IntegerType(8),
    "int16": IntegerType(16),
    "int32": IntegerType(32),
    "int64": IntegerType(64),
    INDEX: IndexType(),
    BOOL: i1,
}

_FLOAT_BINARY = {"+": arith.AddfOp, "-": arith.SubfOp, "*": arith.MulfOp, "/": arith.DivfOp,
                 "max": arith.MaximumfOp, "min": arith.MinimumfOp}
_INT_BINARY = {"+": arith.AddiOp, "-": arith.SubiOp, "*": arith.MuliOp, "//": arith.FloorDivSIOp,
               "max": arith.MaxSIOp, "min": arith.MinSIOp}
_FLOAT_PREDICATES = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}
_INT_PREDICATES = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
_MATH = {"exp": mathd.ExpOp, "log": mathd.LogOp, "sqrt": mathd.SqrtOp, "tanh": mathd.TanhOp, "erf": mathd.ErfOp,
         "abs": mathd.AbsFOp}
_COMBINE = {"sum": "+", "max": "max", "min": "min"}


def memref_type(t: Tensor) -> MemRefType:
    return MemRefType(ELEMENT_TYPES[t.dtype], t.shape)


def _hint(name: str) -> str:
    """An SSA name hint from a tensor or axis name."""
    hint = re.sub(r"\W", "_", name, flags=re.ASCII)
    return stable_hint(hint if re.match(r"[A-Za-z_]", hint) else f"_{hint}")


def _load_hint(buffer: SSAValue) -> str | None:
    """A loaded value is named after its buffer in lower case (`%a` from `%A`, as in the
    examples), unless that is the buffer's own name."""
    hint = (buffer.name_hint or "").lower()
    return hint if hint and hint != buffer.name_hint else None


def _error(stage: str, message: str) -> TeError:
    return TeError(f'te.compute "{stage}": {message}')


def emit_func(args: Sequence[Tensor], name: str) -> func.FuncOp:
    if not isinstance(args, list | tuple) or not all(isinstance(a, Tensor) for a in args):
        raise TeError(f"te.create_func: expected a list of tensors (placeholders, then outputs), got {args!r}")
    if len({id(a) for a in args}) != len(args):
        raise TeError("te.create_func: a tensor is listed twice among the arguments")
    stages = _stages([a for a in args if a.op is not None])
    if not stages:
        raise TeError("te.create_func: no computed tensor among the arguments; list the outputs after the inputs")
    _check_placeholders(stages, args)
    body = Block(arg_types=[memref_type(a) for a in args])
    buffers = {id(a): v for a, v in zip(args, body.args)}
    for a, v in zip(args, body.args):
        v.name_hint = _hint(a.name)
    for t in stages:
        if id(t) not in buffers:
            alloc = blk.AllocOp(memref_type(t), _hint(t.name))
            body.add_op(alloc)
            buffers[id(t)] = alloc.buffer
    labels = _labels(stages)
    for t in stages:
        body.add_op(_stage_nest(t, labels[id(t)], buffers))
    body.add_op(func.ReturnOp())
    f = func.FuncOp(name, FunctionType.from_lists(body.arg_types, []), Region(body))
    try:
        f.verify()
    except VerifyException as e:
        raise TeError(f"te.create_func @{name}: the function does not verify: {e}") from None
    return f


def _stages(outputs: list[Tensor]) -> list[Tensor]:
    """The compute stages the outputs need, producers first (in the order they were reached)."""
    order: list[Tensor] = []
    seen: set[int] = set()

    def visit(t: Tensor) -> None:
        if t.op is None or id(t) in seen:
            return
        seen.add(id(t))
        for node in walk(t.op.body):
            if isinstance(node, Load):
                visit(node.tensor)
        order.append(t)

    for t in outputs:
        visit(t)
    return order


def _check_placeholders(stages: list[Tensor], args: Sequence[Tensor]) -> None:
    given = {id(a) for a in args}
    for t in stages:
        assert t.op is not None
        for node in walk(t.op.body):
            if isinstance(node, Load) and node.tensor.op is None and id(node.tensor) not in given:
                raise _error(t.name, f"reads the placeholder {node.tensor.name}, which is not among the arguments "
                             "of te.create_func")


def _labels(stages: list[Tensor]) -> dict[int, str]:
    """Block names: the stage names, made unique with `_1`, `_2` (TVM's create_prim_func)."""
    used: set[str] = set()
    labels = {}
    for t in stages:
        label, n = t.name, 0
        while label in used:
            n += 1
            label = f"{t.name}_{n}"
        used.add(label)
        labels[id(t)] = label
    return labels


def _stage_nest(t: Tensor, label: str, buffers: dict[int, SSAValue]) -> Operation:
    """The loops of a stage around its block."""
    assert t.op is not None
    axes = (*t.op.axes, *t.op.reduce_axes)
    loops = [blk.ForOp(a.name, a.extent) for a in axes]
    for outer, inner in zip(loops, loops[1:]):
        outer.body.block.add_op(inner)
    iters = [(_hint(f"v{a.name}"), blk.SPATIAL if a.kind == "spatial" else blk.REDUCE, a.extent, Expr.var(lp.var))
             for a, lp in zip(axes, loops)]
    block = blk.BlockOp(label, iters)
    loops[-1].body.block.add_op(block)
    env = {id(a): Expr.var(v) + a.start for a, v in zip(axes, block.iter_vars)}
    out = buffers[id(t)]
    spatial = [env[id(a)] for a in t.op.axes]
    emitter = _Emitter(label, block.body.block, env, buffers)
    body = t.op.body
    if isinstance(body, Reduce):
        init = blk.InitOp()
        block.body.block.add_op(init)
        init_emitter = _Emitter(label, init.body.block, env, buffers)
        zero = init_emitter.constant(_identity(body), body.dtype)
        if zero.owner is not None and _identity(body) == 0:
            zero.name_hint = "zero"
        init.body.block.add_op(blk.StoreOp(zero, out, spatial))
        acc = emitter.add(blk.LoadOp(out, spatial))
        acc.name_hint = _load_hint(out)
        value = emitter.combine(_COMBINE[body.combiner], acc, emitter.value(body.source), body.dtype)
    else:
        value = emitter.value(body)
    block.body.block.add_op(blk.StoreOp(value, out, spatial))
    return loops[0]


def _identity(r: Reduce) -> int | float:
    if r.combiner == "sum":
        return 0
    sign = -1 if r.combiner == "max" else 1
    if r.dtype in FLOATS:
        return sign * math.inf
    bits = int(r.dtype.removeprefix("int"))
    return -(2 ** (bits - 1)) if sign < 0 else 2 ** (bits - 1) - 1


class _Emitter:
    """Appends the ops of a block body (or of one branch) to `block`; each distinct value once."""

    def __init__(self, stage: str, block: Block, env: dict[int, Expr], buffers: dict[int, SSAValue],
                 memo: dict[object, SSAValue] | None = None):
        self.stage, self.block, self.env, self.buffers = stage, block, env, buffers
        self.memo: dict[object, SSAValue] = dict(memo or {})
        self.keys: dict[int, object] = {}

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def key(self, node: TeExpr) -> object:
        """A structural key: equal for equal expressions (axes and tensors by identity)."""
        if id(node) not in self.keys:
            match node:
                case Axis():
                    k: object = ("axis", id(node))
                case Const(value=v, dtype=d):
                    k = ("const", type(v), v, d)
                case Load(tensor=t):
                    k = ("load", id(t), *map(self.key, node.indices))
                case _:
                    attrs = tuple(getattr(node, f) for f in ("op", "fn", "combiner") if hasattr(node, f))
                    k = (type(node).__name__, node.dtype, attrs, *map(self.key, node.children()))
            self.keys[id(node)] = k
        return self.keys[id(node)]

    def constant(self, value: int | float, dtype: str) -> SSAValue:
        key = ("constant", value, dtype)
        if key not in self.memo:
            t = ELEMENT_TYPES[dtype]
            attr = FloatAttr(float(value), t) if dtype in FLOATS else IntegerAttr(int(value), t)  # type: ignore[arg-type]
            self.memo[key] = self.add(arith.ConstantOp(attr))
        return self.memo[key]

    # indices ----------------------------------------------------------------------------
    def index(self, node: TeExpr) -> Expr:
        """An integer expression of the axes as an affine Expr of the iteration variables."""
        match node:
            case Const(value=v):
                return Expr.of(int(v))
            case Axis():
                return self.env[id(node)]
            case Cast(value=v) if v.dtype in (INDEX, "int64", "int32"):
                return self.index(v)
            case Binary(op="+" | "-", a=a, b=b):
                x, y = self.index(a), self.index(b)
                return x + y if node.op == "+" else x - y
            case Binary(op="*", a=a, b=b):
                x, y = self.index(a), self.index(b)
                if x.is_const or y.is_const:
                    return x * y.const if y.is_const else y * x.const
            case Binary(op="//" | "%", a=a, b=b):
                x, y = self.index(a), self.index(b)
                if y.is_const and y.const > 0:  # simplified over the iteration domains (a reshape's indices)
                    return x.floordiv(y.const, blk.loop_bounds) if node.op == "//" else x.mod(y.const, blk.loop_bounds)
        raise _error(self.stage, f"the index {node} is not affine in the axes (sums, products with constants, "
                     "// and % by positive constants)")

    def index_value(self, e: Expr) -> SSAValue:
        """An affine index as index arithmetic (muli, addi; floordivsi and a floor mod)."""
        key = ("index", e)
        if key in self.memo:
            return self.memo[key]
        total: SSAValue | None = None
        for atom, coef in e.terms:
            term = self.atom_value(atom)
            if coef != 1:
                term = self.add(arith.MuliOp(term, self.constant(coef, INDEX)))
            total = term if total is None else self.add(arith.AddiOp(total, term))
        if total is None or e.const:
            c = self.constant(e.const, INDEX)
            total = c if total is None else self.add(arith.AddiOp(total, c))
        self.memo[key] = total
        return total

    def atom_value(self, atom: object) -> SSAValue:
        from xtir.dialects.expr import Div, Var

        if isinstance(atom, Var):
            return atom.value
        assert hasattr(atom, "expr") and hasattr(atom, "divisor")
        inner, d = self.index_value(atom.expr), self.constant(atom.divisor, INDEX)
        if isinstance(atom, Div):
            return self.add(arith.FloorDivSIOp(inner, d))
        rem = self.add(arith.RemSIOp(inner, d))
        negative = self.add(arith.CmpiOp(rem, self.constant(0, INDEX), "slt"))
        return self.add(arith.SelectOp(negative, self.add(arith.AddiOp(rem, d)), rem))

    def index_condition(self, node: Compare) -> SSAValue | None:
        """`a op b` on affine indices as `e < c` (or `e == c`), the guard form lower-blocks reads."""
        try:
            d = self.index(node.a) - self.index(node.b)
        except TeError:
            return None
        if node.op in ("==", "!="):
            lhs, bound, predicate = d - d.const, -d.const, "eq" if node.op == "==" else "ne"
        else:
            e = d if node.op in ("<", "<=") else -d
            lhs, bound, predicate = e - e.const, (1 if node.op in ("<=", ">=") else 0) - e.const, "slt"
        return self.add(arith.CmpiOp(self.index_value(lhs), self.constant(bound, INDEX), predicate))

    # values -----------------------------------------------------------------------------
    def value(self, node: TeExpr) -> SSAValue:
        key = self.key(node)
        if key not in self.memo:
            self.memo[key] = self.emit(node)
        return self.memo[key]

    def emit(self, node: TeExpr) -> SSAValue:  # noqa: C901 - one case per node kind
        match node:
            case Const(value=v, dtype=d):
                return self.constant(v, d)
            case Axis():
                return self.index_value(self.env[id(node)])
            case Load(tensor=t, indices=idx):
                buffer = self.buffers[id(t)]
                load = blk.LoadOp(buffer, [self.index(i) for i in idx])
                load.result.name_hint = _load_hint(buffer)
                return self.add(load)
            case Binary(dtype=d) if d == INDEX:
                try:
                    return self.index_value(self.index(node))
                except TeError:
                    return self.combine(node.op, self.value(node.a), self.value(node.b), d)
            case Binary(op=op, a=a, b=b, dtype=d):
                return self.combine(op, self.value(a), self.value(b), d)
            case Compare(op=op, a=a, b=b):
                if a.dtype == INDEX and (cond := self.index_condition(node)) is not None:
                    return cond
                x, y = self.value(a), self.value(b)
                if a.dtype in FLOATS:
                    return self.add(arith.CmpfOp(x, y, _FLOAT_PREDICATES[op]))
                return self.add(arith.CmpiOp(x, y, _INT_PREDICATES[op]))
            case Logical(op="not", args=(a,)):
                return self.add(arith.XOrIOp(self.value(a), self.add(arith.ConstantOp(IntegerAttr(1, i1)))))
            case Logical(op=op, args=args):
                result = self.value(args[0])
                for a in args[1:]:
                    result = self.add((arith.AndIOp if op == "and" else arith.OrIOp)(result, self.value(a)))
                return result
            case Select(cond=c, then=t, otherwise=o):
                return self.select(self.value(c), t, o)
            case Call(fn=fn, arg=a):
                return self.add(_MATH[fn](self.value(a)))
            case Cast(value=v, dtype=d):
                return self.cast(self.value(v), v.dtype, d)
            case Reduce():
                raise _error(self.stage, f"the reduction {node} is part of a larger expression")
        raise AssertionError(f"cannot emit {node!r}")

    def combine(self, op: str, x: SSAValue, y: SSAValue, dtype: str) -> SSAValue:
        if dtype in FLOATS:
            return self.add(_FLOAT_BINARY[op](x, y))
        if op == "%":  # floor mod: x - (x // y) * y
            q = self.add(arith.FloorDivSIOp(x, y))
            return self.add(arith.SubiOp(x, self.add(arith.MuliOp(q, y))))
        return self.add(_INT_BINARY[op](x, y))

    def select(self, cond: SSAValue, then: TeExpr, otherwise: TeExpr) -> SSAValue:
        """arith.select when both branches are safe to evaluate everywhere; otherwise scf.if,
        so a branch's loads run only where the condition holds."""
        if _safe_everywhere(then) and _safe_everywhere(otherwise):
            return self.add(arith.SelectOp(cond, self.value(then), self.value(otherwise)))
        branches = []
        for expr in (then, otherwise):
            branch = Block()
            inner = _Emitter(self.stage, branch, self.env, self.buffers, self.memo)
            branch.add_op(scf.YieldOp(inner.value(expr)))
            branches.append(Region(branch))
        return self.add(scf.IfOp(cond, [ELEMENT_TYPES[then.dtype]], *branches))

    def cast(self, x: SSAValue, source: str, target: str) -> SSAValue:
        t = ELEMENT_TYPES[target]
        if source == INDEX:
            x, source = self.add(arith.IndexCastOp(x, IntegerType(64))), "int64"
        if target == INDEX:
            return self.add(arith.IndexCastOp(self.cast(x, source, "int64"), t))
        src_float, dst_float = source in FLOATS, target in FLOATS
        if src_float and dst_float:
            wider = _bits(target) > _bits(source)
            return self.add(arith.ExtFOp(x, t) if wider else arith.TruncFOp(x, t))
        if src_float:
            return self.add(arith.FPToSIOp(x, t))
        if dst_float:
            return self.add(arith.SIToFPOp(x, t))
        if _bits(target) == _bits(source):
            return x
        return self.add(arith.ExtSIOp(x, t) if _bits(target) > _bits(source) else arith.TruncIOp(x, t))


def _bits(dtype: str) -> int:
    t = ELEMENT_TYPES[dtype]
    return t.bitwidth if isinstance(t, AnyFloat) else 64 if dtype == INDEX else int(dtype.removeprefix("int"))


def _safe_everywhere(expr: TeExpr) -> bool:
    """Whether every load of `expr` stays inside its tensor over the whole stage domain."""
    for node in walk(expr):
        if isinstance(node, Load):
            try:
                check_in_bounds(node)
            except TeError:
                return False
            if any(index_bounds(i) is None for i in node.indices):
                return False
    return True
