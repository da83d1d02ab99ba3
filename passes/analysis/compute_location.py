"""What compute-at and reverse-compute-at share: moving a block under a loop.

The moved block gets a fresh loop nest `ax0, ax1, ...` under the target loop that
covers, per iteration of the loops above, only the part of its iteration domain
that the blocks on the other side of the dataflow (its consumers, or its
producers) touch there. That part is found in three steps:

1. region inference: the other blocks' regions of the shared buffer, written in
   the loop variables through their bindings, with the loops below the target
   relaxed over their ranges (and the thread-bound loops whose threads share the
   buffer's storage scope, as TVM does: `shared` is shared by a thread block);
2. inversion: each dimension of the moved block's own region of that buffer is
   one iteration variable times a stride plus a constant, so a buffer range gives
   a range of that variable; variables no dimension names keep their domain. The own
   region is an over-approximation (a predicate may cut what an instance writes), so a
   producer's range is every instance whose region meets the needed one: when the regions
   of neighbouring instances overlap (extent above stride), more than those that would
   cover it if each wrote its whole region;
3. clipping: a range that can leave the instances the block runs now gets TVM's
   `where` predicate (even one longer than the domain: only a range that holds all of it
   in every iteration is replaced by the domain, else the block would run instances of
   other iterations, e.g. other threads' part of a local accumulator). Those instances are
   its domain, or less: its loops may run part of it, and its own predicate (whose loops are
   replaced) cut it; they must form a box, and the new nest runs no instance outside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from xtir.dialects.block import (
    THREAD_BINDING,
    AccessOp,
    BlockOp,
    ForOp,
    buffer_name,
    enclosing_block,
    loops_in_scope,
    scope_of,
)
from xtir.dialects.expr import Expr, Var
from xtir.passes.analysis.digits import to_digits
from xtir.passes.analysis.footprint import Box, box_of_instances
from xtir.passes.analysis.instances import gapless
from xtir.passes.analysis.navigation import child_blocks
from xtir.passes.analysis.regions import (
    BufferRegion,
    Range,
    loop_bounds,
    read_regions,
    relax,
    union_ranges,
    write_regions,
)
from xtir.passes.utils import function_of
from xtir.support.errors import ScheduleError

RegionsOf = Callable[[BlockOp], list[BufferRegion]]


@dataclass(frozen=True)
class VarRange:
    """The values an iteration variable takes under the target loop: [start, start + extent)."""

    start: Expr
    extent: int


def scope_root(op: Operation) -> Operation:
    """The block (or function) whose body holds `op` as a statement: TVM's block scope."""
    return enclosing_block(op) or function_of(op)


def buffers_touched(block: BlockOp, writes: bool) -> list[SSAValue]:
    """Buffers `block` (nested blocks included) writes, or reads, in order of appearance."""
    found: dict[SSAValue, None] = {}
    for op in block.walk():
        if isinstance(op, AccessOp):
            for access in op.accesses():
                if access.is_write == writes:
                    found[access.buffer] = None
    return list(found)


def blocks_touching(scope: Operation, buffer: SSAValue, writes: bool, exclude: BlockOp) -> list[BlockOp]:
    """The blocks of `scope` (other than `exclude`) that write, or read, `buffer`."""
    return [b for b in child_blocks(scope) if b is not exclude and buffer in buffers_touched(b, writes)]


def check_target(block: BlockOp, loop: ForOp) -> Operation:
    """TVM's rule: block and loop in one block scope, loop not around the block. Returns the scope."""
    scope = scope_root(block)
    if loop.is_ancestor(block) or scope_root(loop) is not scope:
        raise ScheduleError(loop, f'block "{block.label}" and loop "{loop.label}" must be under the same block '
                                  f'scope, and the loop must not enclose the block',
                            [(block, f'block "{block.label}" is here')])
    return scope


def check_no_update_in_place(block: BlockOp) -> None:
    """TVM's complete-or-reduction rule: the block reads no buffer it writes, other than those its init
    resets. A moved block may run several times for one instance (recomputed per iteration, or per
    step of a reduction it follows); only then does each run leave the same result."""
    written = {r.buffer for r in write_regions(block)}
    for region in read_regions(block):
        if region.buffer in written:
            raise ScheduleError(block, f'block "{block.label}" updates {buffer_name(region.buffer)} in place (it '
                       "reads the buffer it writes, and no init resets it); moved, it may run more than once for "
                       "an instance, and each run would apply the update again")


def single_written_buffer(block: BlockOp) -> SSAValue:
    written = buffers_touched(block, writes=True)
    if len(written) != 1:
        names = ", ".join(buffer_name(b) for b in written) or "none"
        raise ScheduleError(block, f'block "{block.label}" writes {len(written)} buffers ({names}); '
                   "it must write exactly one")
    return written[0]


def child_index(loop: ForOp, op: Operation) -> int | None:
    """Index of the statement of `loop`'s body that holds `op`, or None when `op` is not under `loop`."""
    for index, child in enumerate(loop.body.block.ops):
        if child is op or child.is_ancestor(op):
            return index
    return None


def program_order(root: Operation) -> dict[int, int]:
    return {id(op): n for n, op in enumerate(root.walk())}


def _relaxable_under(scope: str, thread: str) -> bool:
    """Whether the threads of `thread`'s kind see one buffer of `scope`, so a copy made under one
    of them serves them all (TVM's CanRelaxStorageUnderThread; global memory is never relaxed;
    a virtual thread ranks with threadIdx, lowering/virtual_threads.py)."""
    if scope.startswith("shared"):
        return thread.startswith(("threadIdx", "vthread"))
    if scope == "warp":
        return thread == "threadIdx.x"
    return False


def _relaxed_loops(loop: ForOp, buffer: SSAValue) -> set[SSAValue]:
    """The target loop and loops above it that run as threads sharing `buffer`."""
    scope = scope_of(buffer.type)
    chain = [loop, *loops_in_scope(loop)]
    return {lp.var for lp in chain if lp.kind == THREAD_BINDING and _relaxable_under(scope, lp.thread or "")}


def required_region(loop: ForOp, blocks: Sequence[BlockOp], buffer: SSAValue,
                    regions_of: RegionsOf, relax_threads: bool) -> tuple[Range, ...]:
    """The part of `buffer` that `blocks` (all under `loop`) touch in one iteration of `loop`,
    in the variables of the loops around `loop`; with relax_threads, for all the threads that
    share `buffer` at once."""
    outer_relaxed = _relaxed_loops(loop, buffer) if relax_threads else set()
    result: tuple[Range, ...] | None = None
    for block in blocks:
        region = next(r for r in regions_of(block) if r.buffer is buffer)
        mapping = {it.var: it.binding for it in block.iters()}
        below = loops_in_scope(block)
        below = below[next(i for i, lp in enumerate(below) if lp is loop) + 1:]
        relaxed = outer_relaxed | {lp.var for lp in below}
        ranges = tuple(_relax_range(buffer, d, r, mapping, relaxed) for d, r in enumerate(region.ranges))
        result = ranges if result is None else union_ranges(buffer, result, ranges)
    assert result is not None
    return result


def _relax_range(buffer: SSAValue, dim: int, r: Range, mapping: dict[SSAValue, Expr],
                 relaxed: set[SSAValue]) -> Range:
    relaxed_start = relax(r.start.substitute(mapping, loop_bounds), relaxed)
    if relaxed_start is None:
        assert isinstance(buffer.type, MemRefType)
        return Range(Expr(), buffer.type.get_shape()[dim])
    return Range(relaxed_start.start, relaxed_start.extent + r.extent - 1)


def invert_region(block: BlockOp, own: BufferRegion, needed: tuple[Range, ...],
                  provides: bool) -> list[VarRange]:
    """The ranges of `block`'s iteration variables for the part `needed` of a buffer: with `provides`
    (`own` is what an instance writes), every instance that may write into `needed`; otherwise (`own`
    is what an instance reads), the instances whose accesses lie within `needed`."""
    ranges = {it.var: VarRange(Expr(), it.extent) for it in block.iters()}
    constrained: set[SSAValue] = set()
    for dim, (mine, want) in enumerate(zip(own.ranges, needed)):
        if mine.start.is_const:
            continue
        var, stride, offset = _strided_var(block, own, dim)
        if var in constrained:
            raise ScheduleError(block, f'block "{block.label}" indexes {buffer_name(own.buffer)} with '
                       f"%{var.name_hint} in more than one dimension; its iteration range cannot be inferred")
        constrained.add(var)
        start = want.start - offset
        if any(coef % stride for _, coef in start.terms) or start.const % stride:
            raise ScheduleError(block, f"the region {buffer_name(own.buffer)} needs along dimension {dim} does not "
                       f"start at a multiple of the stride {stride} of %{var.name_hint}")
        first = Expr._make({a: c // stride for a, c in start.terms}, start.const // stride)
        ranges[var] = _var_range(first, stride, mine.extent, want.extent, provides)
    return [ranges[it.var] for it in block.iters()]


def _var_range(first: Expr, stride: int, own: int, want: int, provides: bool) -> VarRange:
    """Instance `first` accesses [want start, + own); instance v, `stride * (v - first)` further.
    Instances whose accesses fit in `want` elements are the tight range; when an instance may write
    less than its region, every instance whose region meets `want` must run, which is more only
    when the regions overlap (the tight range covers `want` from the regions of disjoint instances:
    each element of it lies in one of them)."""
    tight = VarRange(first, max(-(-(want - own) // stride) + 1, 1))
    if not provides or own <= stride:
        return tight
    before = -(-own // stride) - 1
    return VarRange(first - before, -(-want // stride) + before)


def _strided_var(block: BlockOp, own: BufferRegion, dim: int) -> tuple[SSAValue, int, int]:
    """`block`'s index of dimension `dim` as (variable, stride, offset): index = var * stride + offset."""
    start = own.ranges[dim].start
    own_vars = {it.var for it in block.iters()}
    if len(start.terms) == 1:
        atom, coef = start.terms[0]
        if isinstance(atom, Var) and atom.value in own_vars and coef > 0:
            return atom.value, coef, start.const
    raise ScheduleError(block, f'block "{block.label}" indexes dimension {dim} of {buffer_name(own.buffer)} with '
               "an expression that is not one iteration variable times a stride plus a constant; "
               "its iteration range cannot be inferred")


def instance_box(block: BlockOp) -> Box:
    """The instances `block` runs now, [lo, hi) per iteration variable: its loops' reach, cut by
    its predicate. Moved, it must run the same ones, from new loops: so they must form a box."""
    box, why = box_of_instances(block)
    if box is None:
        raise ScheduleError(block, f"{why}; new loops could not run the same ones")
    return box


Overflow = list[tuple[int, int, int]]
"""Conjuncts `sign * binding of variable index < bound` that new loops need: (index, sign, bound)."""


def clip(block: BlockOp, ranges: list[VarRange], box: Box) -> tuple[list[VarRange], Overflow]:
    """Keep each range within its variable's [lo, hi) of `box`. Returns the ranges and the conjuncts
    for the ranges that may still leave it."""
    clipped: list[VarRange] = []
    overflow: Overflow = []
    for index, (it, r, (lo, hi)) in enumerate(zip(block.iters(), ranges, box)):
        span = r.start.bounds(loop_bounds)
        if span is not None and span[1] <= lo and span[0] + r.extent >= hi:
            # TVM's rule: a range shown to hold all of [lo, hi) in every iteration runs just that; one
            # that moves with the loops keeps them (and a predicate), even when longer than the domain
            clipped.append(VarRange(Expr((), lo), hi - lo))
            continue
        first, last = span or (0, it.extent)  # a start of unknown bounds: taken as anywhere in the domain
        if first < lo:
            overflow.append((index, -1, 1 - lo))
        if last + r.extent > hi:
            overflow.append((index, 1, hi))
        clipped.append(r)
    return clipped, overflow


def covers_domain(block: BlockOp, ranges: list[VarRange], box: Box, limit: int = 1 << 16) -> str | None:
    """None when, over all iterations of the loops around, the ranges cover the instances `box` holds;
    otherwise which variable is left partly uncomputed."""
    for it, r, (lo, hi) in zip(block.iters(), ranges, box):
        reached = _reached_from_strides(r, lo)
        if reached is None:
            variables = r.start.variables()
            extents = [(loop_bounds(v) or (0, -1))[1] + 1 for v in variables]
            count = 1
            for e in extents:
                count *= e
            if count > limit:
                return (f"%{it.var.name_hint} (its range starts at {len(variables)} loop variables' {count} values, "
                        f"more than the {limit} that are tried, and the strides do not show it)")
            starts = sorted({r.start.evaluate(dict(zip(variables, point))) for point in product(*map(range, extents))})
            reached = lo
            for s in starts:
                if s > reached:
                    break
                reached = max(reached, s + r.extent)
        if reached < hi:
            return f"%{it.var.name_hint} (values from {reached} to {hi - 1} are never reached)"
    return None


def _reached_from_strides(r: VarRange, lo: int) -> int | None:
    """How far from `lo` the ranges reach without a gap, when the strides of their start (in the digits
    of fused and split loops) show that they leave none between the least and the greatest; else None."""
    variables = r.start.variables()
    extents = {v: span[1] + 1 for v in variables if (span := loop_bounds(v)) is not None and span[0] == 0}
    if len(extents) != len(variables):
        return None
    (start,), digits = to_digits([r.start], extents)
    used = {v: digits.extents[v] for v in start.variables()}
    span = start.bounds(digits.bounds)
    if span is None or not gapless([start], [r.extent], used):
        return None
    first, last = span
    return lo if first > lo else max(lo, last + r.extent)
