"""Matching a block against a tensor intrinsic's description, and instantiating its implementation.

The block's body must have the description's shape: the same loop nest (count and
extents, in order) around one inner block with the same iteration variables (kind,
extent, binding), and the same statements op by op (names, properties, types and
operands, with values mapped across). Each description buffer is bound to one
buffer of the block, which must have its element type and storage scope, and every
access must index it as the description does plus an offset that does not depend
on the inner iteration variables: that offset is where the instruction's region
starts. A mismatch is reported as the first thing that differs, with both sides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from xtir.dialects.block import AccessOp, BlockOp, ForOp, LoadOp, StoreOp, buffer_name, scope_of
from xtir.dialects.expr import Expr
from xtir.intrinsics import ANY_SCOPE, TensorIntrin
from xtir.passes.analysis.regions import format_expr, loop_bounds


class Mismatch(Exception):
    """What differs between a block and a description (the exception's message), and `at`, the op
    of the block's body where it differs (None when it is the block itself)."""

    def __init__(self, message: str, at: Operation | None = None):
        super().__init__(message)
        self.at = at


@dataclass
class Binding:
    """How the description's buffers map onto the block's: buffer and region offset per argument."""

    buffers: dict[SSAValue, SSAValue] = field(default_factory=dict)
    offsets: dict[SSAValue, list[Expr]] = field(default_factory=dict)


def _nest(ops: list[Operation], where: str) -> tuple[list[ForOp], BlockOp]:
    """A perfect loop nest around one block: its loops (outermost first) and the block."""
    loops: list[ForOp] = []
    while len(ops) == 1 and isinstance(ops[0], ForOp):
        loops.append(ops[0])
        ops = list(ops[0].body.block.ops)
    if len(ops) != 1 or not isinstance(ops[0], BlockOp):
        raise Mismatch(f"{where} is not a loop nest around a single block")
    return loops, ops[0]


def description_nest(intrin: TensorIntrin) -> tuple[list[ForOp], BlockOp]:
    ops = [op for op in intrin.desc.body.block.ops if not isinstance(op, func.ReturnOp)]
    return _nest(ops, f'the description of intrinsic "{intrin.name}"')


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _loop_names(loops: list[ForOp]) -> str:
    return ", ".join(lp.label for lp in loops) or "none"


def _match_loops(mine: list[ForOp], theirs: list[ForOp]) -> None:
    if len(mine) != len(theirs):
        raise Mismatch(f"the body has {_count(len(mine), 'loop')} ({_loop_names(mine)}) where the intrinsic has "
                       f"{len(theirs)} ({_loop_names(theirs)})")
    for a, b in zip(mine, theirs):
        if a.extent != b.extent:
            raise Mismatch(f'loop "{a.label}" has extent {a.extent} where the intrinsic\'s loop "{b.label}" '
                           f"has {b.extent}", a)


def _match_iters(inner: BlockOp, desc: BlockOp, loop_map: dict[SSAValue, Expr]) -> None:
    mine, theirs = inner.iters(), desc.iters()
    if len(mine) != len(theirs):
        raise Mismatch(f'block "{inner.label}" has {len(mine)} iteration variables where the intrinsic\'s block '
                       f'"{desc.label}" has {len(theirs)}')
    for a, b in zip(mine, theirs):
        name, their_name = f"%{a.var.name_hint}", f"%{b.var.name_hint}"
        if a.kind != b.kind:
            raise Mismatch(f"iteration variable {name} is {a.kind} where the intrinsic's {their_name} is {b.kind}")
        if a.extent != b.extent:
            raise Mismatch(f"iteration variable {name} has extent {a.extent} where the intrinsic's {their_name} "
                           f"has {b.extent}")
        expected = b.binding.substitute(loop_map)
        if not (a.binding - expected).is_const or (a.binding - expected).const:
            raise Mismatch(f"iteration variable {name} is bound to {format_expr(a.binding)} where the intrinsic "
                           f"binds {their_name} to {format_expr(expected)} (in this nest's loops)")
    if inner.predicate():
        raise Mismatch(f'block "{inner.label}" has a where predicate; the intrinsic computes whole tiles')
    if inner.init is None and desc.init is not None:
        raise Mismatch(f'block "{inner.label}" has no init where the intrinsic\'s block has one')
    if inner.init is not None and desc.init is None:
        raise Mismatch(f'block "{inner.label}" has an init, but the intrinsic only accumulates; split the init off '
                       "first with decompose-reduction")


def _bind_buffer(binding: Binding, theirs: SSAValue, mine: SSAValue) -> None:
    if theirs in binding.buffers:
        if binding.buffers[theirs] is not mine:
            raise Mismatch(f"the intrinsic accesses {buffer_name(theirs)} as one buffer, but the block uses both "
                           f"{buffer_name(binding.buffers[theirs])} and {buffer_name(mine)} there")
        return
    assert isinstance(mine.type, MemRefType) and isinstance(theirs.type, MemRefType)
    if mine.type.element_type != theirs.type.element_type:
        raise Mismatch(f"{buffer_name(mine)} has element type {mine.type.element_type} where the intrinsic's "
                       f"{buffer_name(theirs)} has {theirs.type.element_type}")
    want = scope_of(theirs.type)
    if want != ANY_SCOPE and scope_of(mine.type) != want:
        raise Mismatch(f'{buffer_name(mine)} is in scope "{scope_of(mine.type)}" where the intrinsic\'s '
                       f'{buffer_name(theirs)} must be in "{want}" (cache it there with cache-read/cache-write)')
    if len(mine.type.get_shape()) != len(theirs.type.get_shape()):
        raise Mismatch(f"{buffer_name(mine)} has rank {len(mine.type.get_shape())} where the intrinsic's "
                       f"{buffer_name(theirs)} has rank {len(theirs.type.get_shape())}")
    binding.buffers[theirs] = mine


def _match_access(binding: Binding, mine: AccessOp, theirs: AccessOp, var_map: dict[SSAValue, Expr],
                  inner_vars: set[SSAValue]) -> None:
    (a,) = mine.accesses()
    (b,) = theirs.accesses()
    _bind_buffer(binding, b.buffer, a.buffer)
    offsets = []
    for dim, (x, y) in enumerate(zip(a.indices, b.indices)):
        expected = y.substitute(var_map)
        offset = x - expected
        if any(v in inner_vars for v in offset.variables()):
            raise Mismatch(f"{mine.name} of {buffer_name(a.buffer)}: dimension {dim} is indexed by {format_expr(x)} "
                           f"where the intrinsic indexes {buffer_name(b.buffer)} by {format_expr(y)}, i.e. "
                           f"{format_expr(expected)} here (a transposed or permuted operand?)")
        offsets.append(offset)
    previous = binding.offsets.setdefault(b.buffer, offsets)
    if any(not (p - o).is_const or (p - o).const for p, o in zip(previous, offsets)):
        raise Mismatch(f"{buffer_name(a.buffer)} is accessed at two different tiles "
                       f"([{', '.join(map(format_expr, previous))}] and [{', '.join(map(format_expr, offsets))}])")
    _check_in_bounds(a.buffer, b.buffer, offsets)


def _check_in_bounds(mine: SSAValue, theirs: SSAValue, offsets: list[Expr]) -> None:
    assert isinstance(mine.type, MemRefType) and isinstance(theirs.type, MemRefType)
    for dim, (off, size, bound) in enumerate(zip(offsets, theirs.type.get_shape(), mine.type.get_shape())):
        lo_hi = off.bounds(loop_bounds)
        if lo_hi is not None and (lo_hi[0] < 0 or lo_hi[1] + size > bound):
            span = f"[{lo_hi[0]}, {lo_hi[1] + size})"
            where = f"spans {span}" if off.is_const else f"starts at {format_expr(off)}, so it covers up to {span}"
            raise Mismatch(f"the {size}-wide tile of {buffer_name(mine)} along dimension {dim} {where}, outside the "
                           f"buffer's [0, {bound})")


def _match_op(binding: Binding, mine: Operation, theirs: Operation, values: dict[SSAValue, SSAValue],
              var_map: dict[SSAValue, Expr], inner_vars: set[SSAValue]) -> None:
    if mine.name != theirs.name:
        raise Mismatch(f"the body has {mine.name} where the intrinsic has {theirs.name}")
    if isinstance(mine, AccessOp) and isinstance(theirs, AccessOp):
        _match_access(binding, mine, theirs, var_map, inner_vars)
        data = [(mine.value, theirs.value)] if isinstance(mine, StoreOp) and isinstance(theirs, StoreOp) else []
    else:
        if mine.properties != theirs.properties or mine.attributes != theirs.attributes:
            raise Mismatch(f"{mine.name} differs from the intrinsic's: {_describe(mine)} vs {_describe(theirs)}")
        data = list(zip(mine.operands, theirs.operands))
    for index, (m, t) in enumerate(data):
        if values.get(t) is not m:
            raise Mismatch(f"operand {index} of {mine.name} is {_origin(m)} where the intrinsic uses {_origin(t)}")
    for m, t in zip(mine.results, theirs.results):
        if m.type != t.type:
            raise Mismatch(f"{mine.name} yields {m.type} where the intrinsic's yields {t.type}")
        values[t] = m


def _origin(value: SSAValue) -> str:
    """Where a value comes from, in words: `the load of B`, `%vi`, `the result of arith.mulf`."""
    if isinstance(value.owner, LoadOp):
        return f"the load of {buffer_name(value.owner.buffer)}"
    if isinstance(value.owner, Operation):
        return f"the result of {value.owner.name}"
    return f"%{value.name_hint}"


def _describe(op: Operation) -> str:
    props = {**op.properties, **op.attributes}
    return "{" + ", ".join(f"{k} = {v}" for k, v in sorted(props.items())) + "}"


def match(block: BlockOp, intrin: TensorIntrin) -> Binding:
    """How `block`'s body computes what `intrin` describes (Mismatch when it does not)."""
    desc_loops, desc_block = description_nest(intrin)
    if block.init is not None and desc_block.init is None:
        raise Mismatch(f'block "{block.label}" has an init, but the intrinsic only accumulates; split the init '
                       "off first with decompose-reduction")
    loops, inner = _nest(list(block.body.block.ops), f'the body of block "{block.label}"')
    _match_loops(loops, desc_loops)
    loop_map = {b.var: Expr.var(a.var) for a, b in zip(loops, desc_loops)}
    _at(inner, _match_iters, inner, desc_block, loop_map)
    var_map = {b.var: Expr.var(a.var) for a, b in zip(inner.iters(), desc_block.iters())}
    values: dict[SSAValue, SSAValue] = {b.var: a.var for a, b in zip(inner.iters(), desc_block.iters())}
    mine, theirs = list(inner.body.block.ops), list(desc_block.body.block.ops)
    if len(mine) != len(theirs):
        raise Mismatch(f'block "{inner.label}" has {len(mine)} statements where the intrinsic\'s has {len(theirs)}')
    binding = Binding()
    inner_vars = {it.var for it in inner.iters()}
    for m, t in zip(mine, theirs):
        _at(m, _match_op, binding, m, t, values, var_map, inner_vars)
    return binding


def _at(op: Operation, check: Callable[..., None], *args: object) -> None:
    """`check(*args)`, its Mismatch located at `op` unless it names an op already."""
    try:
        check(*args)
    except Mismatch as e:
        e.at = e.at or op
        raise

