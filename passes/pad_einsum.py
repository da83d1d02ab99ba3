"""pad-einsum{block=B padding=P0,P1,...}: pad an einsum block's iteration domain to multiples of
the padding (TVM's pad_einsum), so that tiling it leaves no partial tile.

`padding` has one positive integer per iteration variable of B. Each variable whose extent is no
multiple of its padding gets the next multiple, and the loop it is bound to runs that far. Each
buffer B indexes by such a variable is replaced in B by a padded copy, named as TVM names it:
an input A gets `A_pad` (shape: the padded extents in the padded dimensions) and a block `A_pad`
before B's loop nest, `A_pad[v0, v1] = if_then_else(v0 < n, A[v0, v1], 0)` (an `scf.if`, so the
load runs only in range); the output C gets `C_pad`, which B writes, and a block `C_pad` after
B's nest that copies C's elements back, `C[v0, v1] = C_pad[v0, v1]`. When every extent is a
multiple already, nothing changes (as in TVM). Compute-inline the input blocks into their
consumers (a cache-read's fetch then selects 0 outside A), and reverse-compute-inline the output
block into C_pad's writer (a cache-write's write-back, guarded to C's elements).

What B must be, as TVM checks: an einsum, each buffer read or written at indices that are iteration
variables or constants, no buffer both read and written (a reduction's init-written output does not
count as read), and `padding` one positive integer per iteration variable. What xtir checks beyond
TVM, since padding must not change a number: each variable padded is bound to a loop of its own
(apply pad-einsum before splitting B's loops), and B's loop nest (its outermost loop, which the
copies go before and after) holds B alone; each padded dimension of a buffer is as long as the
variable indexing it; the output is indexed by every padded spatial variable and, when padded, at
distinct variables only, each dimension as long as its variable (the copy back covers its whole
shape); B has no predicate; the padded points compute nothing that traps (no integer division or
remainder); and a padded reduce variable adds nothing at the padded points: B's update is a sum
`C = C + g` with g a product of loads and finite constants in which every load is indexed by that
variable, at least one (zeros times a finite factor is zero; times an infinite one, NaN); a factor
may be widened by `arith.extf` (an f16 model's loads summed in f32: a widened zero is zero). TVM pads
any einsum, so a max reduction or a sum of products of one padded operand would change its results
there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, MemRefType, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import SPATIAL, AllocOp, BlockOp, ForOp, LoadOp, StoreOp, buffer_name
from xtir.dialects.expr import Expr
from xtir.dialects.layout import row_major
from xtir.passes.analysis.cache import top_level_ancestor
from xtir.passes.analysis.compute_location import scope_root
from xtir.passes.analysis.navigation import blocks_under, get_block, loops_around
from xtir.passes.analysis.reduction import ADDS, formula
from xtir.passes.analysis.regions import BufferRegion, format_expr, format_region, hint_name, read_regions, write_regions
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.cache import copy_nest, redirect_accesses
from xtir.passes.transforms.rewrite import replace_op
from xtir.passes.utils import fresh_name
from xtir.support.errors import ScheduleError

_TRAPPING = (arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp, arith.FloorDivSIOp, arith.CeilDivSIOp,
             arith.CeilDivUIOp)
_PRODUCTS = (arith.MulfOp, arith.MuliOp)


@dataclass(frozen=True)
class PadEinsumPass(StatementPrimitive):
    name = "pad-einsum"

    block: str
    """The einsum block to pad."""
    padding: tuple[int, ...]
    """One positive integer per iteration variable: its extent is padded to a multiple of it."""

    def run(self, f: func.FuncOp) -> None:
        block = get_block(f, self.block)
        _check_padding(block, self.padding)
        reads, writes = _einsum_regions(block)
        padded = {it.var: math.ceil(it.extent / p) * p for it, p in zip(block.iters(), self.padding)
                  if it.extent % p}
        if not padded:
            return
        loops = _bound_loops(block, padded)
        _check_sound(block, padded)
        _check_shapes(block, reads, writes, padded)
        nest = _nest_of(block)
        for region in reads:
            if _needs_padding(region, padded):
                pad = _padded_buffer(region, padded, f)
                Rewriter.insert_op(_copy_nest(region.buffer, pad, block, is_read=True), InsertPoint.before(nest))
                redirect_accesses(block, region.buffer, pad, reads=True, writes=False)
        for region in reversed(writes):
            if _needs_padding(region, padded):
                pad = _padded_buffer(region, padded, f)
                Rewriter.insert_op(_copy_nest(region.buffer, pad, block, is_read=False), InsertPoint.after(nest))
                redirect_accesses(block, region.buffer, pad, reads=True, writes=True)
        for loop, extent in loops.items():
            loop.properties["extent"] = IntegerAttr(extent, i64)
        _widen_domains(block, padded)


def _check_padding(block: BlockOp, padding: tuple[int, ...]) -> None:
    """TVM's InvalidPaddingError: one positive integer per iteration variable."""
    if len(padding) != len(block.iters()) or any(isinstance(p, bool) or p <= 0 for p in padding):
        raise ScheduleError(block, f'the padding for block "{block.label}" is invalid: it should be a list of '
                            f"{len(block.iters())} positive integers (one per iteration variable), got "
                            f"[{', '.join(str(p) for p in padding)}]")


def _einsum_regions(block: BlockOp) -> tuple[list[BufferRegion], list[BufferRegion]]:
    """B's read and write regions, after TVM's ExtractEinsum: each buffer once, at single elements
    indexed by iteration variables or constants."""
    reads, writes = read_regions(block), write_regions(block)
    seen: set[SSAValue] = set()
    own = set(block.iter_vars)
    for region in [*reads, *writes]:
        if region.buffer in seen:
            _not_einsum(block, f"{buffer_name(region.buffer)} is both read and written")
        seen.add(region.buffer)
        for r in region.ranges:
            if r.extent != 1 or not (r.start.is_const or r.start.as_var() in own):
                _not_einsum(block, f"it accesses {format_region(region)}, not one element indexed by iteration "
                            "variables or constants")
    return reads, writes


def _not_einsum(block: BlockOp, why: str) -> None:
    raise ScheduleError(block, f'block "{block.label}" is not a computation of einsum pattern: {why}')


def _needs_padding(region: BufferRegion, padded: dict[SSAValue, int]) -> bool:
    return any(r.start.as_var() in padded for r in region.ranges)


def _bound_loops(block: BlockOp, padded: dict[SSAValue, int]) -> dict[ForOp, int]:
    """The loop each padded variable is bound to, with its new extent; refuse what TVM would
    leave unpadded or pad for other blocks too."""
    if block.where_map is not None:
        raise ScheduleError(block, f'block "{block.label}" has a predicate (where); pad-einsum pads a block whose '
                            "loops run its whole domain")
    loops = {lp.var: lp for lp in loops_around(block)}
    found: dict[ForOp, int] = {}
    for it in block.iters():
        if it.var not in padded:
            continue
        loop = loops.get(it.binding.as_var())
        if loop is None or loop.extent != it.extent or loop in found:
            binding = format_expr(it.binding, _loop_names(loops))
            raise ScheduleError(block, f"iteration variable %{it.var.name_hint} of block \"{block.label}\" is bound "
                                f"to {binding}, not to a loop of its own over {it.extent}; apply "
                                "pad-einsum before the block's loops are transformed")
        others = [b.label for b in blocks_under(loop) if b is not block]
        if others:
            raise ScheduleError(loop, f'loop "{loop.label}" also runs block "{others[0]}"; padding it would run '
                                "that block outside its domain")
        found[loop] = padded[it.var]
    return found


def _loop_names(loops: dict[SSAValue, ForOp]) -> Callable[[SSAValue], str]:
    """Names loop variables by their loops' names (the schedule's handles), as messages do."""
    return lambda value: loops[value].label if value in loops else hint_name(value)


def _check_sound(block: BlockOp, padded: dict[SSAValue, int]) -> None:
    """The padded points must not trap, and a padded reduce variable must add zero there."""
    for op in block.body.walk():
        if isinstance(op, _TRAPPING):
            raise ScheduleError(op, f'block "{block.label}" divides ({op.name}); at the padded points the '
                                "divisor may be 0, which traps")
    reduce = [it.var for it in block.iters() if it.kind != SPATIAL and it.var in padded]
    if reduce:
        _check_zero_update(block, reduce)


def _check_zero_update(block: BlockOp, reduce: list[SSAValue]) -> None:
    stores = [op for op in block.body.block.ops if isinstance(op, StoreOp)]
    names = ", ".join(f"%{v.name_hint}" for v in reduce)
    rule = (f"padding reduce variable {names} of block \"{block.label}\" is sound only for a sum C = C + a * b * ... "
            f"of loads indexed by {names} and finite constants, which the zero padding makes add 0")
    if block.init is None or len(stores) != 1:
        raise ScheduleError(block, f"{rule}; the block is no reduction with an init and one store")
    store = stores[0]
    total = store.value.owner
    accumulator = [v for v in getattr(total, "operands", ()) if isinstance(v.owner, LoadOp)
                   and v.owner.buffer is store.buffer and v.owner.indices() == store.indices()]
    if not isinstance(total, ADDS) or len(accumulator) != 1:
        raise ScheduleError(store, f"{rule}; it computes {formula(store.value)}")
    (term,) = [v for v in total.operands if v is not accumulator[0]]
    factors = _factors(term)
    for factor in factors:
        if not _zero_or_finite(factor, reduce):
            raise ScheduleError(store, f"{rule}; in {formula(term)}, the factor {formula(factor)} is not one")
    if not any(isinstance(_widened(factor).owner, LoadOp) for factor in factors):
        raise ScheduleError(store, f"{rule}; {formula(term)} loads nothing, so the padded steps add it too")


def _factors(value: SSAValue) -> list[SSAValue]:
    op = value.owner
    if isinstance(op, _PRODUCTS):
        return [f for operand in op.operands for f in _factors(operand)]
    return [value]


def _widened(value: SSAValue) -> SSAValue:
    """The value an arith.extf widens (an f16 model's loads summed in f32), else `value`: a
    widened zero is zero, a widened finite value finite."""
    return value.owner.input if isinstance(value.owner, arith.ExtFOp) else value


def _zero_or_finite(factor: SSAValue, reduce: list[SSAValue]) -> bool:
    op = _widened(factor).owner
    if isinstance(op, LoadOp):
        indexed = {e.as_var() for e in op.indices()}
        return all(v in indexed for v in reduce)
    if isinstance(op, arith.ConstantOp):
        value = op.value
        return isinstance(value, IntegerAttr) or (isinstance(value, FloatAttr) and math.isfinite(value.value.data))
    return False


def _nest_of(block: BlockOp) -> Operation:
    """B's loop nest: the statement of B's scope that holds B, which the copies into the padded
    buffers go before and the copies back after, so it must hold B alone."""
    nest = top_level_ancestor(block, scope_root(block))
    others = [b.label for b in blocks_under(nest) if b is not block]
    if others:
        raise ScheduleError(nest, f'{_describe(nest)} holds block "{others[0]}" besides block "{block.label}"; '
                            "pad-einsum copies the padded buffers before that nest and back after it, so it must "
                            f'hold block "{block.label}" alone')
    return nest


def _describe(op: Operation) -> str:
    return f'loop "{op.label}"' if isinstance(op, ForOp) else op.name


def _check_shapes(block: BlockOp, reads: list[BufferRegion], writes: list[BufferRegion],
                  padded: dict[SSAValue, int]) -> None:
    """A_pad's guard compares a padded dimension with its variable's extent, and C's copy back
    covers C's whole shape: A's padded dimensions must be as long as the variables indexing them,
    and C indexed by every padded spatial variable (a point outside writes C), at variables only,
    each dimension as long as its variable (C_pad's elements that B leaves unwritten go back too)."""
    extents = {it.var: it.extent for it in block.iters()}
    for region in reads:
        for d, (r, n) in enumerate(zip(region.ranges, _shape(region.buffer))):
            var = r.start.as_var()
            if var in padded and n != extents[var]:
                _refuse_shape(block, region, d, f"of {n} elements, but %{var.name_hint} runs over {extents[var]}")
    spatial = [it.var for it in block.iters() if it.kind == SPATIAL and it.var in padded]
    for region in writes:
        indexed = [r.start.as_var() for r in region.ranges]
        for var in spatial:
            if var not in indexed:
                raise ScheduleError(block, f'padded spatial variable %{var.name_hint} of block "{block.label}" does '
                                    f"not index {format_region(region)}: the padded points would write its elements")
        if not _needs_padding(region, padded):
            continue
        for d, (var, n) in enumerate(zip(indexed, _shape(region.buffer))):
            if var is None:
                _refuse_shape(block, region, d, "at a constant, not an iteration variable")
            elif var in indexed[:d]:
                _refuse_shape(block, region, d, f"at %{var.name_hint} again")
            elif n != extents[var]:
                _refuse_shape(block, region, d, f"of {n} elements, but %{var.name_hint} runs over {extents[var]}")


def _shape(buffer: SSAValue) -> tuple[int, ...]:
    assert isinstance(buffer.type, MemRefType)
    return buffer.type.get_shape()


def _refuse_shape(block: BlockOp, region: BufferRegion, dim: int, why: str) -> None:
    raise ScheduleError(block, f'block "{block.label}" accesses {format_region(region)}, dimension {dim} {why}; '
                        "pad-einsum pads a buffer whose dimensions are the extents of the variables indexing them")


def _padded_buffer(region: BufferRegion, padded: dict[SSAValue, int], f: func.FuncOp) -> SSAValue:
    """`A_pad`: A's shape with the padded variables' extents in the dimensions they index, allocated
    after the function's allocations."""
    buffer = region.buffer
    assert isinstance(buffer.type, MemRefType)
    shape = [padded.get(r.start.as_var(), n) for r, n in zip(region.ranges, buffer.type.get_shape())]
    alloc = AllocOp(row_major(buffer.type.element_type, shape, buffer.type.memory_space),
                    f"{buffer_name(buffer)}_pad")
    body = f.body.block
    allocs = [op for op in body.ops if isinstance(op, AllocOp)]
    Rewriter.insert_op(alloc, InsertPoint.after(allocs[-1]) if allocs else InsertPoint.at_start(body))
    return alloc.buffer


def _copy_nest(buffer: SSAValue, pad: SSAValue, origin: BlockOp, is_read: bool) -> ForOp:
    """TVM's copy block: `for i0, i1: block A_pad(v0, v1)`, over A_pad's shape reading A where
    in range (else 0), or over C's shape writing C from C_pad."""
    name = fresh_name(origin.get_toplevel_object(), buffer_name(pad))
    if is_read:
        return copy_nest(name, pad, buffer, origin, prefix="i", value=_guarded_load)
    return copy_nest(name, buffer, pad, origin, prefix="i")


def _guarded_load(copy: BlockOp, buffer: SSAValue, index: list[Expr]) -> SSAValue:
    """`if_then_else(v0 < n0 and ..., A[v0, ...], 0)` as an scf.if, so A is loaded only in range."""
    body = copy.body.block
    conditions = []
    for it, n in zip(copy.iters(), _shape(buffer)):
        if n != it.extent:
            bound = arith.ConstantOp(IntegerAttr.from_index_int_value(n))
            less = arith.CmpiOp(it.var, bound, "slt")
            body.add_ops([bound, less])
            conditions.append(less.result)
    condition = conditions[0]
    for other in conditions[1:]:
        both = arith.AndIOp(condition, other)
        body.add_op(both)
        condition = both.result
    load = LoadOp(buffer, index)
    element = load.result.type
    zero = arith.ConstantOp(IntegerAttr(0, element) if isinstance(element, IntegerType) else FloatAttr(0.0, element))
    inside, outside = Block(), Block()
    inside.add_ops([load, scf.YieldOp(load.result)])
    outside.add_ops([zero, scf.YieldOp(zero.result)])
    choice = scf.IfOp(condition, [element], Region(inside), Region(outside))
    body.add_op(choice)
    return choice.results[0]


def _widen_domains(block: BlockOp, padded: dict[SSAValue, int]) -> None:
    """B with the padded extents as its iteration variables' domains."""
    iters = [(it.var.name_hint or "", it.kind, padded.get(it.var, it.extent), it.binding) for it in block.iters()]
    replace_op(block, BlockOp(block.label, iters, block.detach_region(block.body), block.predicate(),
                              block.annotations))


