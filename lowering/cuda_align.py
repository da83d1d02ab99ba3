"""When a vectorized loop of 4 may become one `float4` load and store in CUDA C.

A `float4` access needs its address 16-byte aligned. The CUDA emitter turns a vectorized
`scf.for %v = 0 to 4` whose body copies one f32 element (`memref.load` then `memref.store`
of the loaded value, indices computed by index arithmetic) into
`*(float4*)(dst + d) = *(const float4*)(src + s)` only when both linear offsets are
provably `base + v` with `base` a multiple of 4. When only the load's offset is (a copy that
transposes, e.g. a row of A into a k-major shared tile), the load is one float4 and the store
four scalar stores of its lanes (from distinct buffers, so that the loads may all go first;
kernel parameters are `__restrict__`). The buffers themselves start 16-byte
aligned (cudaMalloc gives 256 bytes; `__shared__`/local arrays are declared
`__align__(16)`; device arrays passed by the caller are checked at the call).

The copy may sit under a guard `if (c)`, or store a select `c ? src[s] : fill` with `fill` a
constant (TVM's if_then_else, pad-einsum's padded fetch): it is still one float4 copy when `c`
is provably the same on the 4 lanes (each test `x < n` with x not depending on the lane, or
`base + v` with base and n multiples of 4), the select then `c ? float4 load : 4 x fill`.
Otherwise the loop stays, each lane testing its own condition.

The proof is a small abstract interpretation of the index ops in the loop body: every
index value is `base + coef * v` with `base` known divisible by `div` (0: base is 0) and,
where needed, known non-negative. Floor division and remainder by a multiple of 4 keep
the form when the base is a multiple of 4, since `base + v` for v < 4 never crosses a
multiple of 4 (a remainder also needs a non-negative base: C's `%` truncates).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import Float32Type, IntegerAttr, MemRefType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from xtir.dialects.layout import memory_space, static_strides, strides_of
from xtir.lowering.loops import LOOP_KIND, VECTORIZED, constant_int

WIDTH = 4


@dataclass(frozen=True)
class Lane:
    """An index value `base + coef * v`, base divisible by `div` (0: base == 0)."""

    div: int
    coef: int
    nonneg: bool


@dataclass(frozen=True)
class Float4Copy:
    """A vectorized loop that is one aligned float4 load and one aligned float4 store, or
    (`scattered`) four scalar stores of the loaded lanes."""

    loop: scf.ForOp
    load: memref.LoadOp
    store: memref.StoreOp
    scattered: bool = False
    guard: scf.IfOp | None = None
    """An if around the copy whose condition is the same on the 4 lanes, or (with `fill`) the
    select `c ? load : fill` whose value the copy stores."""
    fill: SSAValue | None = None
    """The constant a select stores on all 4 lanes where its condition is false."""

    @property
    def float4_buffers(self) -> list[SSAValue]:
        """The buffers accessed as float4."""
        return [self.load.memref] if self.scattered else [self.load.memref, self.store.memref]


def _loop_of(arg: BlockArgument) -> scf.ForOp | None:
    owner = arg.block.parent_op()
    return owner if isinstance(owner, scf.ForOp) and arg.index == 0 else None


def divisor(value: SSAValue, depth: int = 0) -> int:
    """A number known to divide `value` (0: the value is 0)."""
    if depth > 32:
        return 1
    if (c := constant_int(value)) is not None:
        return abs(c)
    if isinstance(value, BlockArgument):
        loop = _loop_of(value)
        if loop is None or (lb := constant_int(loop.lb)) is None or (step := constant_int(loop.step)) is None:
            return 1
        return math.gcd(lb, step)
    op = value.owner
    match op:
        case arith.MuliOp():
            return divisor(op.lhs, depth + 1) * divisor(op.rhs, depth + 1)
        case arith.AddiOp() | arith.SubiOp():
            return math.gcd(divisor(op.lhs, depth + 1), divisor(op.rhs, depth + 1))
        case arith.RemSIOp() if (c := constant_int(op.rhs)) is not None and c > 0:
            return math.gcd(divisor(op.lhs, depth + 1), c)
    return 1


def nonnegative(value: SSAValue, depth: int = 0) -> bool:
    """Whether `value` is known to be >= 0."""
    if depth > 32:
        return False
    if (c := constant_int(value)) is not None:
        return c >= 0
    if isinstance(value, BlockArgument):
        loop = _loop_of(value)
        return loop is not None and nonnegative(loop.lb, depth + 1) and (constant_int(loop.step) or 0) > 0
    op = value.owner
    match op:
        case gpu.ThreadIdOp() | gpu.BlockIdOp() | gpu.BlockDimOp() | gpu.GridDimOp():
            return True
        case arith.AddiOp() | arith.MuliOp():
            return nonnegative(op.lhs, depth + 1) and nonnegative(op.rhs, depth + 1)
        case arith.FloorDivSIOp() | arith.DivSIOp() | arith.RemSIOp():
            return nonnegative(op.lhs, depth + 1) and (constant_int(op.rhs) or 0) > 0
    return False


def _depends_on(value: SSAValue, body: Block) -> bool:
    """Whether `value` is computed in the loop of `body` (directly or under its guard)."""
    loop = body.parent_op()
    return not isinstance(value, BlockArgument) and loop is not None and loop.is_ancestor(value.owner)


def lane(value: SSAValue, v: SSAValue, body: Block) -> Lane | None:
    """`value` as `base + coef * v`, or None when it is not of that form (or not provably)."""
    if value is v:
        return Lane(0, 1, True)
    if not _depends_on(value, body):
        return Lane(divisor(value), 0, nonnegative(value))
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return Lane(abs(op.value.value.data), 0, op.value.value.data >= 0)
    if not isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp | arith.FloorDivSIOp | arith.RemSIOp):
        return None
    lhs, rhs = lane(op.lhs, v, body), lane(op.rhs, v, body)
    if lhs is None or rhs is None:
        return None
    match op:
        case arith.AddiOp():
            return Lane(math.gcd(lhs.div, rhs.div), lhs.coef + rhs.coef, lhs.nonneg and rhs.nonneg)
        case arith.SubiOp():
            return Lane(math.gcd(lhs.div, rhs.div), lhs.coef - rhs.coef, False)
        case arith.MuliOp():
            return _times(lhs, rhs)
    c = constant_int(op.rhs)
    if c is None or c <= 0 or rhs.coef:
        return None
    return _divided(lhs, c, isinstance(op, arith.FloorDivSIOp))


def _times(lhs: Lane, rhs: Lane) -> Lane | None:
    if lhs.coef and rhs.coef:
        return None
    if rhs.coef:
        lhs, rhs = rhs, lhs
    if lhs.coef and rhs.div == 0:
        return Lane(0, 0, True)
    if lhs.coef:
        return None  # v times a value that is not a constant
    return Lane(lhs.div * rhs.div, 0, lhs.nonneg and rhs.nonneg)


def _divided(x: Lane, c: int, floor: bool) -> Lane | None:
    """`x floordiv c` or `x rem c` (C's truncating %) as a lane, c a positive constant."""
    if x.coef == 0:
        return Lane(1, 0, x.nonneg) if floor else Lane(math.gcd(x.div, c), 0, x.nonneg)
    aligned = x.coef == 1 and x.div % WIDTH == 0 and c % WIDTH == 0
    if not aligned:
        return None
    if floor:
        return Lane(1, 0, x.nonneg)
    return Lane(math.gcd(x.div, c), 1, True) if x.nonneg else None


def linear_lane(access: memref.LoadOp | memref.StoreOp, v: SSAValue, body: Block) -> Lane | None:
    """The access's linear element offset (through its layout's strides) as a lane."""
    ty = access.memref.type
    assert isinstance(ty, MemRefType)
    div, coef = 0, 0
    for index, stride in zip(access.indices, strides_of(ty)):
        part = lane(index, v, body)
        if part is None:
            return None
        div, coef = math.gcd(div, part.div * stride), coef + part.coef * stride
    return Lane(div, coef, True)


def _aligned(access: memref.LoadOp | memref.StoreOp, v: SSAValue, body: Block) -> bool:
    ty = access.memref.type
    if not isinstance(ty, MemRefType) or not isinstance(ty.element_type, Float32Type):
        return False
    if any(d < 0 for d in ty.get_shape()) or not _static_at_zero(ty):
        return False
    offset = linear_lane(access, v, body)
    return offset is not None and offset.coef == 1 and offset.div % WIDTH == 0


def _static_at_zero(ty: MemRefType) -> bool:
    """Row-major, or padded by storage-align: static strides from the buffer's start, which the
    linear offset's lane uses (a padded row stride that is no multiple of 4 breaks the alignment
    of the rows after the first, and the offset's `div` says so)."""
    layout = static_strides(ty)
    return layout is not None and layout[1] == 0


def float4_copy(loop: scf.ForOp) -> Float4Copy | None:
    """`loop` as an aligned float4 copy, or None."""
    kind = loop.attributes.get(LOOP_KIND)
    if kind is None or getattr(kind, "data", None) != VECTORIZED or loop.iter_args:
        return None
    if (constant_int(loop.lb), constant_int(loop.ub), constant_int(loop.step)) != (0, WIDTH, 1):
        return None
    body = loop.body.block
    v = body.args[0]
    effects = _effects(body)
    guard = fill = None
    if len(effects) == 1 and isinstance(effects[0], scf.IfOp):
        guard = effects[0]
        if guard.results or (guard.false_region.blocks and _effects(guard.false_region.block)):
            return None
        effects = _effects(guard.true_region.block)
    elif len(effects) == 2 and isinstance(effects[0], scf.IfOp):
        guard = effects[0]
        if (selected := _selected_load(guard)) is None:
            return None
        load, fill = selected
        effects = [load, effects[1]]
    if guard is not None and not _uniform(guard.cond, v, body):
        return None
    if len(effects) != 2 or not isinstance(load := effects[0], memref.LoadOp):
        return None
    store = effects[1]
    stored = load.res if fill is None else guard.results[0]  # type: ignore[union-attr]
    if not isinstance(store, memref.StoreOp) or store.value is not stored or stored.uses.get_length() != 1:
        return None
    if not _aligned(load, v, body):
        return None
    if _aligned(store, v, body):
        return Float4Copy(loop, load, store, guard=guard, fill=fill)
    if store.memref is load.memref or memory_space(load.memref) == "local":
        return None  # a per-thread array lives in registers: no wider load to gain
    return Float4Copy(loop, load, store, scattered=True, guard=guard, fill=fill)


def _selected_load(select: scf.IfOp) -> tuple[memref.LoadOp, SSAValue] | None:
    """`select` as `c ? A[..] : fill` (TVM's if_then_else, pad-einsum's padded fetch): the load
    that its then-branch yields and the constant its else-branch yields, or None."""
    if len(select.results) != 1 or not select.false_region.blocks or select.results[0].uses.get_length() != 1:
        return None
    then_block, else_block = select.true_region.block, select.false_region.block
    effects = _effects(then_block)
    if len(effects) != 1 or not isinstance(load := effects[0], memref.LoadOp) or _effects(else_block):
        return None
    then_yield, else_yield = then_block.last_op, else_block.last_op
    assert isinstance(then_yield, scf.YieldOp) and isinstance(else_yield, scf.YieldOp)
    fill = else_yield.operands[0]
    if then_yield.operands[0] is not load.res or load.res.uses.get_length() != 1 or not isinstance(fill.owner, arith.ConstantOp):
        return None
    return load, fill


def _effects(block: Block) -> list[Operation]:
    """The ops of `block` but index arithmetic, the comparisons of a guard and the yield."""
    return [op for op in block.ops if not isinstance(op, scf.YieldOp | arith.CmpiOp | arith.AndIOp) and not _index_op(op)]


def _uniform(cond: SSAValue, v: SSAValue, body: Block) -> bool:
    """Whether the guard `cond` (`x < n` and ...) is the same on the 4 lanes: x does not depend on
    the lane, or is `base + v` with base and n multiples of 4 (x < n just when base < n)."""
    op = cond.owner
    if isinstance(op, arith.AndIOp):
        return _uniform(op.lhs, v, body) and _uniform(op.rhs, v, body)
    if not isinstance(op, arith.CmpiOp) or op.predicate.value.data != 2:  # slt
        return False
    x, n = lane(op.lhs, v, body), lane(op.rhs, v, body)
    if x is None or n is None or n.coef:
        return False
    return x.coef == 0 or (x.coef == 1 and x.div % WIDTH == 0 and (c := constant_int(op.rhs)) is not None and c % WIDTH == 0)


def _index_op(op: object) -> bool:
    return isinstance(op, arith.ConstantOp | arith.AddiOp | arith.SubiOp | arith.MuliOp | arith.FloorDivSIOp | arith.RemSIOp)
