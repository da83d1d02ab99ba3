"""A TVMScript-like view of block-level functions (`xtir.script(module)`), for reading only.

Prints what TVM's `mod.show()` prints for the same program, so a course user can put it
next to the seeds: `for i, j in T.grid(...)`, `with T.block("C")`, `T.axis.remap` /
`T.axis.spatial|reduce`, `T.where`, `T.reads`/`T.writes` (the derived regions of
passes/analysis/regions.py), `with T.init()`, `T.alloc_buffer(..., scope=...)` and the loop
kinds `T.parallel`, `T.vectorized`, `T.unroll`, `T.thread_binding`; an `scf.if` of one value
(pad-einsum's padded load) is `T.if_then_else(c, a, b)`. Names are those of the
IR: loops print as their names (`i_0`), iteration variables and buffers as their SSA names.
The MLIR form stays the source of truth; this text is not parsed back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, func, math, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xtir.dialects.accel import RegionOp
from xtir.dialects.block import (
    BUFFER_DIM_ALIGN,
    PARALLEL,
    REDUCE,
    SERIAL,
    THREAD_BINDING,
    UNROLLED,
    VECTORIZED,
    AllocOp,
    BlockOp,
    ForOp,
    InitOp,
    LoadOp,
    StoreOp,
    dim_aligns,
    scope_of,
)
from xtir.dialects.expr import Div, Expr, Mod, Var
from xtir.passes.analysis.regions import BufferRegion, Range, read_regions, write_regions
from xtir.support.errors import XtirError

INDENT = "    "

# Python precedence levels, loosest first: an operand binding looser than its operator gets parentheses.
_OR, _AND, _CMP, _ADD, _MUL, _UNARY, _ATOM = range(7)

_BINARY: dict[type[Operation], tuple[str, int]] = {
    arith.AddfOp: ("+", _ADD),
    arith.AddiOp: ("+", _ADD),
    arith.SubfOp: ("-", _ADD),
    arith.SubiOp: ("-", _ADD),
    arith.MulfOp: ("*", _MUL),
    arith.MuliOp: ("*", _MUL),
    arith.DivfOp: ("/", _MUL),
    arith.FloorDivSIOp: ("//", _MUL),
    arith.AndIOp: ("&", _AND),
    arith.OrIOp: ("|", _OR),
}
_LOGICAL = {"&": "and", "|": "or"}
"""TVM prints the bitwise operators on booleans as Python's `and` / `or`."""
_CALLS: dict[type[Operation], str] = {
    arith.MaximumfOp: "T.max",
    arith.MaxnumfOp: "T.max",
    arith.MaxSIOp: "T.max",
    arith.MinimumfOp: "T.min",
    arith.MinnumfOp: "T.min",
    arith.MinSIOp: "T.min",
    arith.DivSIOp: "T.truncdiv",
    arith.RemSIOp: "T.truncmod",
    arith.SelectOp: "T.Select",
    math.ExpOp: "T.exp",
    math.LogOp: "T.log",
    math.SqrtOp: "T.sqrt",
    math.TanhOp: "T.tanh",
    math.ErfOp: "T.erf",
    math.AbsFOp: "T.fabs",
}
_CASTS = (arith.SIToFPOp, arith.FPToSIOp, arith.ExtFOp, arith.TruncFOp, arith.ExtSIOp, arith.TruncIOp, arith.IndexCastOp)
_PREDICATES = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def script(ir: ModuleOp | func.FuncOp) -> str:
    """The TVMScript-like text of a module (`@I.ir_module class Module`) or of one function."""
    if isinstance(ir, func.FuncOp):
        return "\n".join(_function(ir, 0)) + "\n"
    if not isinstance(ir, ModuleOp):
        raise XtirError(f"xtir.script expects a module or a func.func, got {type(ir).__name__}")
    lines = ["# from tvm.script import ir as I", "# from tvm.script import tir as T", "", "@I.ir_module", "class Module:"]
    for k, function in enumerate(op for op in ir.ops if isinstance(op, func.FuncOp)):
        lines += [""] * (k > 0)
        lines += _function(function, 1)
    return "\n".join(lines) + "\n"


def dtype(element_type: Attribute) -> str:
    """TVM's dtype string: float32, int8, bool, int64 for index."""
    if isinstance(element_type, IndexType):
        return "int64"
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        return "bool" if width == 1 else f"int{width}"
    if isinstance(element_type, AnyFloat):
        return f"float{element_type.bitwidth}" if not str(element_type).startswith("bf") else "bfloat16"
    return str(element_type)


def _buffer_decl(buffer_type: MemRefType) -> str:
    shape = ", ".join(str(d) for d in buffer_type.get_shape())
    shape = f"({shape},)" if len(buffer_type.get_shape()) == 1 else f"({shape})"
    element = dtype(buffer_type.element_type)
    return shape + ("" if element == "float32" else f', "{element}"')


@dataclass
class _Names:
    """Python names for SSA values, unique among the names visible at a point (scopes nest)."""

    scopes: list[dict[SSAValue, str]] = field(default_factory=lambda: [{}])

    def __getitem__(self, value: SSAValue) -> str:
        for scope in reversed(self.scopes):
            if value in scope:
                return scope[value]
        return value.name_hint or "v"

    def bind(self, value: SSAValue, hint: str) -> str:
        taken = {name for scope in self.scopes for name in scope.values()}
        base = _identifier(hint)
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        self.scopes[-1][value] = name
        return name

    def push(self) -> None:
        self.scopes.append({})

    def pop(self) -> None:
        self.scopes.pop()


def _identifier(hint: str) -> str:
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "v"
    return name if not name[0].isdigit() else f"v{name}"


def _function(f: func.FuncOp, depth: int) -> list[str]:
    names = _Names()
    params = []
    for arg in f.body.block.args:
        if not isinstance(arg.type, MemRefType):
            raise XtirError(
                f"xtir.script prints block-level functions over buffers; @{f.sym_name.data} takes a "
                f"{arg.type} (print graph functions with xtir-opt)"
            )
        params.append(f"{names.bind(arg, arg.name_hint or 'buf')}: T.Buffer{_buffer_decl_args(arg.type)}")
    pad = INDENT * depth
    lines = [f"{pad}@T.prim_func", f"{pad}def {f.sym_name.data}({', '.join(params)}):"]
    lines.append(f'{pad}{INDENT}T.func_attr({{"tir.noalias": True}})')
    lines.append(f'{pad}{INDENT}# with T.block("root"):')
    body = _Printer(names).statements(f.body.block.ops, depth + 1)
    return lines + (body or [f"{pad}{INDENT}T.evaluate(0)"])


def _buffer_decl_args(buffer_type: MemRefType) -> str:
    decl = _buffer_decl(buffer_type)
    element = dtype(buffer_type.element_type)
    return f"({decl})" if element != "float32" else f'({decl}, "float32")'


@dataclass
class _Printer:
    names: _Names

    def statements(self, ops: Iterator[Operation] | Sequence[Operation], depth: int) -> list[str]:
        ops = list(ops)
        uses = _use_counts(ops)
        lines: list[str] = []
        pad = INDENT * depth
        for op in ops:
            if isinstance(op, ForOp):
                lines += self.loop(op, depth)
            elif isinstance(op, BlockOp):
                lines += self.block(op, depth)
            elif isinstance(op, InitOp):
                lines.append(f"{pad}with T.init():")
                lines += self.statements(op.body.block.ops, depth + 1) or [f"{pad}{INDENT}T.evaluate(0)"]
            elif isinstance(op, AllocOp):
                name = self.names.bind(op.buffer, op.buffer.name_hint or "buf")
                scope = scope_of(op.buffer.type)
                scope_arg = "" if scope == "global" else f', scope="{scope}"'
                lines.append(f"{pad}{name} = T.alloc_buffer({_buffer_decl(op.buffer.type)}{scope_arg})")
            elif isinstance(op, StoreOp):
                stored = self.value(op.value, "int64" if isinstance(op.value.type, IndexType) else "int32")
                lines.append(f"{pad}{self.access(op.buffer, op.indices())} = {stored}")
            elif isinstance(op, RegionOp):
                regions = ", ".join(self.tile(buffer, offsets, sizes) for buffer, offsets, sizes in op.regions_())
                lines.append(f'{pad}T.call_extern("{op.name}", {regions})')
            elif isinstance(op, func.ReturnOp):
                continue
            elif _is_expression(op):
                # Values used more than once become a let; the rest print inline at their use.
                if any(uses.get(r, 0) > 1 for r in op.results) and not isinstance(op, arith.ConstantOp):
                    result = op.results[0]
                    rendered = self.value(result)
                    name = self.names.bind(result, result.name_hint or "v")
                    lines.append(f"{pad}{name}: T.{dtype(result.type)} = {rendered}")
            else:
                operands = ", ".join(self.value(v) for v in op.operands)
                lines.append(f'{pad}T.evaluate(T.call_extern("{op.name}", {operands}))')
        return lines

    # loops ------------------------------------------------------------------------------
    def loop(self, loop: ForOp, depth: int) -> list[str]:
        pad = INDENT * depth
        grid = [loop]
        while _groups_into_grid(grid[-1]):
            grid.append(grid[-1].body.block.first_op)  # type: ignore[arg-type]
        self.names.push()
        names = [self.names.bind(lp.var, lp.label) for lp in grid]
        if len(grid) > 1:
            header = f"for {', '.join(names)} in T.grid({', '.join(str(lp.extent) for lp in grid)}):"
        else:
            header = f"for {names[0]} in {_loop_iter(loop)}:"
        lines = [pad + header, *self.statements(grid[-1].body.block.ops, depth + 1)]
        self.names.pop()
        return lines

    # blocks -----------------------------------------------------------------------------
    def block(self, block: BlockOp, depth: int) -> list[str]:
        pad = INDENT * (depth + 1)
        lines = [f'{INDENT * depth}with T.block("{block.label}"):']
        self.names.push()
        lines += [pad + line for line in self.iter_vars(block)]
        if predicate := block.predicate():
            conditions = " and ".join(f"{self.expr(e)} < {bound}" for e, bound in predicate)
            lines.append(f"{pad}T.where({conditions})")
        lines.append(f"{pad}T.reads({', '.join(self.region(r) for r in read_regions(block))})")
        lines.append(f"{pad}T.writes({', '.join(self.region(r) for r in write_regions(block))})")
        pairs = [f'"{k}": {v}' for k, v in block.annotations.items()]
        if aligns := _dim_aligns(block):
            pairs.append(f'"{BUFFER_DIM_ALIGN}": {aligns}')
        if pairs:
            lines.append(f"{pad}T.block_attr({{{', '.join(pairs)}}})")
        lines += self.statements(block.body.block.ops, depth + 1)
        self.names.pop()
        return lines

    def iter_vars(self, block: BlockOp) -> list[str]:
        """As TVM prints them: runs of variables bound to a loop of the same extent as one
        `T.axis.remap`, the others one `T.axis.spatial|reduce` each."""
        lines: list[str] = []
        run: list[tuple[str, str, str]] = []

        def flush() -> None:
            if len(run) > 1:
                kinds = "".join(kind for _, kind, _ in run)
                lines.append(f'{", ".join(n for n, _, _ in run)} = T.axis.remap("{kinds}", [{", ".join(v for _, _, v in run)}])')
            elif run:
                name, kind, var = run[0]
                lines.append(f"{name} = T.axis.{'reduce' if kind == 'R' else 'spatial'}({extents[name]}, {var})")
            run.clear()

        extents: dict[str, int] = {}
        for it in block.iters():
            rendered = self.expr(it.binding)
            name = self.names.bind(it.var, it.var.name_hint or "v")
            extents[name] = it.extent
            kind = "R" if it.kind == REDUCE else "S"
            loop_var = it.binding.as_var()
            if loop_var is not None and _loop_extent(loop_var) == it.extent:
                run.append((name, kind, rendered))
                continue
            flush()
            lines.append(f"{name} = T.axis.{'reduce' if kind == 'R' else 'spatial'}({it.extent}, {rendered})")
        flush()
        return lines

    # expressions --------------------------------------------------------------------------
    def region(self, region: BufferRegion) -> str:
        dims = []
        for r in region.ranges:
            start = self.expr(r.start)
            dims.append(start if r.extent == 1 else f"{start}:{self.expr(r.start + r.extent)}")
        return f"{self.names[region.buffer]}[{', '.join(dims)}]"

    def tile(self, buffer: SSAValue, offsets: Sequence[Expr], sizes: Sequence[int]) -> str:
        """An accel operand region, `C[vi * 16:vi * 16 + 16, 0:16]`."""
        return self.region(BufferRegion(buffer, tuple(Range(o, s) for o, s in zip(offsets, sizes))))

    def access(self, buffer: SSAValue, indices: Sequence[Expr]) -> str:
        return f"{self.names[buffer]}[{', '.join(self.expr(i) for i in indices)}]"

    def expr(self, expr: Expr) -> str:
        return _expr(expr, self.names)[0]

    def value(self, value: SSAValue, index_dtype: str = "int32") -> str:
        """`value` as an expression; its index constants are of `index_dtype` (TVM's dtype of what
        they compute: int64 for what is stored in an index buffer, else int32, as indices are)."""
        return self._value(value, index_dtype)[0]

    def _value(self, value: SSAValue, index_dtype: str = "int32") -> tuple[str, int]:
        for scope in self.names.scopes:
            if value in scope:
                return scope[value], _ATOM
        op = value.owner
        if isinstance(op, arith.ConstantOp):
            return _constant(op.value, index_dtype), _ATOM
        if isinstance(op, LoadOp):
            return self.access(op.buffer, op.indices()), _ATOM
        if type(op) in _BINARY:
            symbol, level = _BINARY[type(op)]  # type: ignore[index]
            symbol = _LOGICAL.get(symbol, symbol) if value.type == i1 else symbol
            lhs, rhs = (self._value(v, index_dtype) for v in op.operands)
            return f"{_wrap(lhs, level)} {symbol} {_wrap(rhs, level + 1)}", level
        if isinstance(op, arith.CmpfOp | arith.CmpiOp):
            symbol = _PREDICATES.get(_predicate_name(op).lstrip("ou").lstrip("s"), "?")
            lhs, rhs = (self._value(v) for v in op.operands)
            return f"{_wrap(lhs, _CMP + 1)} {symbol} {_wrap(rhs, _CMP + 1)}", _CMP
        if isinstance(op, scf.IfOp) and _is_expression(op):
            cond = self.value(op.cond)
            then, otherwise = (self.value(v, index_dtype) for v in _arm_values(op))
            return f"T.if_then_else({cond}, {then}, {otherwise})", _ATOM
        if isinstance(op, arith.NegfOp):
            return f"-{_wrap(self._value(op.operands[0]), _UNARY)}", _UNARY
        if isinstance(op, _CASTS):
            return f'T.Cast("{dtype(op.results[0].type)}", {self.value(op.operands[0], index_dtype)})', _ATOM
        name = _CALLS.get(type(op), f'T.call_pure_extern("{op.name}", ') if isinstance(op, Operation) else "?"
        args = ", ".join(self.value(v, index_dtype) for v in op.operands) if isinstance(op, Operation) else ""
        return (f"{name}{args})" if name.endswith(", ") else f"{name}({args})"), _ATOM


def _predicate_name(op: arith.CmpfOp | arith.CmpiOp) -> str:
    names = arith.CMPF_COMPARISON_OPERATIONS if isinstance(op, arith.CmpfOp) else arith.CMPI_COMPARISON_OPERATIONS
    return names[op.predicate.value.data]


def _wrap(rendered: tuple[str, int], level: int) -> str:
    text, own = rendered
    return f"({text})" if own < level else text


def _expr(expr: Expr, names: _Names) -> tuple[str, int]:
    if not expr.terms:
        return str(expr.const), _ATOM if expr.const >= 0 else _UNARY
    parts: list[str] = []
    for atom, coef in expr.terms:
        sign = "-" if coef < 0 else "+"
        text = _atom(atom, names)
        term = text if abs(coef) == 1 else f"{_wrap((text, _level(atom)), _MUL)} * {abs(coef)}"
        if not parts:
            parts.append(term if sign == "+" else f"-{_wrap((term, _MUL if abs(coef) != 1 else _level(atom)), _UNARY)}")
        else:
            parts.append(f"{sign} {_wrap((term, _MUL), _MUL + (sign == '-'))}")
    if expr.const:
        parts.append(f"- {-expr.const}" if expr.const < 0 else f"+ {expr.const}")
    return " ".join(parts), _ADD if len(parts) > 1 else (_MUL if " * " in parts[0] else _level(expr.terms[0][0]))


def _level(atom: Var | Div | Mod) -> int:
    return _ATOM if isinstance(atom, Var) else _MUL


def _atom(atom: Var | Div | Mod, names: _Names) -> str:
    if isinstance(atom, Var):
        return names[atom.value]
    symbol = "//" if isinstance(atom, Div) else "%"
    return f"{_wrap(_expr(atom.expr, names), _MUL)} {symbol} {atom.divisor}"


def _constant(value: Attribute, index_dtype: str = "int32") -> str:
    if isinstance(value, FloatAttr):
        return f"T.{dtype(value.type)}({value.value.data!r})"
    if isinstance(value, IntegerAttr):
        number = value.value.data
        if isinstance(value.type, IntegerType) and value.type.width.data == 1:
            return "T.bool(True)" if number else "T.bool(False)"
        kind = index_dtype if isinstance(value.type, IndexType) else dtype(value.type)
        return str(number) if kind == "int32" else f"T.{kind}({number})"
    return str(value)


def _is_expression(op: Operation) -> bool:
    """Ops printed as expressions where their value is used: pure arithmetic, loads and
    `T.if_then_else` (an scf.if of one result whose arms compute only its two values)."""
    if isinstance(op, scf.IfOp):
        return len(op.results) == 1 and all(_is_expression(o) for arm in (op.true_region, op.false_region)
                                            for o in arm.ops if not isinstance(o, scf.YieldOp))
    return isinstance(op, LoadOp) or (op.dialect_name() in ("arith", "math") and len(op.results) == 1)


def _arm_values(op: scf.IfOp) -> tuple[SSAValue, SSAValue]:
    """What the then and else arms of an if_then_else yield."""
    then_yield, else_yield = op.true_region.block.last_op, op.false_region.block.last_op
    assert isinstance(then_yield, scf.YieldOp) and isinstance(else_yield, scf.YieldOp)
    return then_yield.operands[0], else_yield.operands[0]


def _use_counts(ops: Sequence[Operation]) -> dict[SSAValue, int]:
    counts: dict[SSAValue, int] = {}
    for op in ops:
        for result in op.results:
            counts[result] = sum(1 for _ in result.uses)
    return counts


def _groups_into_grid(loop: ForOp) -> bool:
    """TVM prints a serial loop whose whole body is another serial loop as one `T.grid`."""
    inner = loop.body.block.first_op
    return (
        _plain_serial(loop)
        and isinstance(inner, ForOp)
        and inner is loop.body.block.last_op
        and _plain_serial(inner)
    )


def _plain_serial(loop: ForOp) -> bool:
    return loop.kind == SERIAL and not loop.annotations


def _loop_iter(loop: ForOp) -> str:
    annotations = ""
    if loop.annotations:
        pairs = ", ".join(f'"{k}": {v}' for k, v in loop.annotations.items())
        annotations = f", annotations={{{pairs}}}"
    if loop.kind == THREAD_BINDING:
        return f'T.thread_binding({loop.extent}, thread="{loop.thread}"{annotations})'
    function = {PARALLEL: "T.parallel", VECTORIZED: "T.vectorized", UNROLLED: "T.unroll"}.get(loop.kind)
    if function is None:
        return f"T.serial({loop.extent}{annotations})" if annotations else f"range({loop.extent})"
    return f"{function}({loop.extent}{annotations})"


def _loop_extent(value: SSAValue) -> int | None:
    owner = getattr(value, "owner", None)
    parent = owner.parent_op() if owner is not None and hasattr(owner, "parent_op") else None
    return parent.extent if isinstance(parent, ForOp) else None


def _dim_aligns(block: BlockOp) -> list[list[int]]:
    """TVM's buffer_dim_align annotation of a block writing storage-aligned buffers:
    [buffer index, axis, factor, offset] per aligned axis (storage-align records it on the
    allocation)."""
    return [[k, axis, factor, offset]
            for k, region in enumerate(write_regions(block)) if isinstance(region.buffer.owner, AllocOp)
            for axis, (factor, offset) in sorted(dim_aligns(region.buffer.owner).items())]
