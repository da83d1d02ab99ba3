"""compact-buffers: allocate each scratch buffer at the size one loop iteration uses (TVM's
CompactBufferAllocation).

After compute-at, a cache such as `A_global_A_reg` is still declared 1024x1024 although
each iteration of `k_0` only touches a 16x16 tile of it. This pass moves the allocation
into the deepest loop L whose iterations do not share data through the buffer, shrinks
it to the box that one iteration of L touches, and rebases every access by the box's
start (an expression of the loops around L): the tile becomes `memref<16x16xf32>`.

It works on IR whose blocks are already inlined (lower-blocks runs it right after
inline-blocks), where every index is an expression of loop variables.

L is sound when no iteration of L reads what an earlier iteration wrote: every read of
the buffer under L must be covered by a write earlier in the same iteration that runs
whenever the read does. A write under a block predicate (`e < bound`, from a
non-dividing split) covers a read whose own predicate, rewritten at the element both
access, includes those conjuncts (the tile of a non-dividing split: both stop at the
same edge); under the init guard of a reduction that runs entirely inside one iteration
of L it covers as if unconditional, also under the tail of that reduction (`k_0 * 8 + k_1
< 60`, which holds where the init guard does); under any other scf.if it does not count.
Loops of one iteration are 0 in these predicates (a thread tile of 1 guards the write at
`i_0 * 8 + i_1 + i_2 < 60` and the write-back at `i_0 * 8 + i_1 < 60`: one edge).
Otherwise the next loop out is tried; at the function level the buffer is only
shrunk to the box its accesses can reach. A buffer with nothing to shrink still moves into
the outermost parallel loop, else the innermost one bound to threadIdx or vthread, or to
blockIdx when no threadIdx or vthread loop encloses the uses: one per (virtual) GPU thread.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.accel import RegionOp
from xtir.dialects.block import PARALLEL, THREAD_BINDING, AccessOp, AllocOp, BlockOp, ForOp, LoadOp, StoreOp
from xtir.dialects.expr import Expr, Var
from xtir.dialects.layout import memory_space, row_major
from xtir.dialects.walk import ancestors
from xtir.errors import LoweringError
from xtir.lowering.index_expr import conjuncts, decode_bounds
from xtir.passes.analysis.instances import ENUMERATION_LIMIT, distinct, gapless, points_in_context
from xtir.passes.analysis.regions import Range, loop_bounds, relax, union_ranges
from xtir.passes.transforms.rewrite import reindex, reregion


@dataclass(frozen=True)
class _Use:
    """One access of the buffer: the op, whether it writes, its indices and sizes."""

    op: AccessOp
    is_write: bool
    indices: tuple[Expr, ...]
    sizes: tuple[int, ...]
    guards: tuple[scf.IfOp, ...]


def _uses(buffer: SSAValue, root: Operation) -> list[_Use]:
    uses = []
    for op in root.walk():
        if isinstance(op, AccessOp):
            guards = tuple(_guards(op, root))
            for access in op.accesses():
                if access.buffer is buffer:
                    uses.append(_Use(op, access.is_write, access.indices, access.extents(), guards))
    return uses


INIT_GUARD = "xtir.init"
"""Marks the scf.if that lower-blocks puts around a block's init (reduce variables all 0)."""


def _guards(op: Operation, root: Operation) -> list[scf.IfOp]:
    return [p for p in ancestors(op, stop=root) if isinstance(p, scf.IfOp)]


def _guard_loops(guard: scf.IfOp) -> set[SSAValue]:
    """The loop variables the guard's condition is computed from."""
    found: set[SSAValue] = set()
    pending = [guard.cond]
    while pending:
        value = pending.pop()
        if isinstance(value.owner, Operation):
            pending.extend(value.owner.operands)
        elif isinstance(value.owner.parent_op(), ForOp):
            found.add(value)
    return found


def _write_predicate(use: _Use, top: Operation) -> set[tuple[Expr, int]] | None:
    """The conjuncts `e < bound` under which the write runs in an iteration of `top`, from its
    predicate guards; init guards on loops inside `top` add none (the reduction then runs within
    one iteration, and its init writes before its first read), and a conjunct on the loops such an
    init guard sets to 0 that holds at 0 (a reduction tail) adds none either: it holds wherever the
    init writes. None for any other guard."""
    inside = _loops_between(use.op, top)
    conjuncts: set[tuple[Expr, int]] = set()
    zero: set[SSAValue] = set()
    for guard in use.guards:
        if guard.attributes.get(INIT_GUARD) is not None and _guard_loops(guard) <= inside:
            zero |= _zeroed(guard.cond)
            continue
        bounds = decode_bounds(guard.cond)
        if bounds is None:
            return None
        conjuncts.update(bounds)
    # A tail of the reduction (`k_0 * 8 + k_1 < 60`) holds at the step that runs the init.
    return {(e, b) for e, b in conjuncts if not (set(e.variables()) <= zero and e.evaluate(dict.fromkeys(zero, 0)) < b)}


def _zeroed(cond: SSAValue) -> set[SSAValue]:
    """The loop variables an init guard's condition (`b0 == 0 and ...`) holds at 0: those of a
    conjunct `e < 1` whose `e` is a sum of loops with positive strides (loops count up from 0).
    Each conjunct holds wherever the guard does, so one that cannot be read takes nothing from the others."""
    return {v for part in conjuncts(cond) for e, bound in decode_bounds(part, equalities=True) or []
            if bound <= 1 and all(isinstance(a, Var) and c > 0 for a, c in e.terms) for v in e.variables()}


def _read_predicate_at(read: _Use, write: _Use, top: Operation) -> set[tuple[Expr, int]]:
    """The read's predicate conjuncts in the write's loop variables, at the element both access:
    a loop variable that appears alone (`u + rest`) in one index of the read is the write's index
    minus `rest` there. Conjuncts with other loop variables of the read are left out, which only
    weakens what the read is known to need. A loop of one iteration is the constant 0 (split
    by a factor 1: `k_0 * 7 + k_1 + k_2`), not a variable to solve for."""
    relaxed = {lp.var for lp in _enclosing_loops(read.op, top) if lp.extent > 1}
    at_write: dict[SSAValue, Expr] = {}
    for dim, index in enumerate(read.indices):
        for atom, coef in index.terms:
            if not (isinstance(atom, Var) and atom.value in relaxed and coef == 1):
                continue
            rest = index - Expr.var(atom.value)
            elsewhere = any(other.uses(atom.value) for d, other in enumerate(read.indices) if d != dim)
            if not elsewhere and not any(rest.uses(v) for v in relaxed):
                at_write[atom.value] = write.indices[dim] - rest
    conjuncts: set[tuple[Expr, int]] = set()
    for guard in read.guards:
        for e, bound in decode_bounds(guard.cond) or []:
            if all(v in at_write or v not in relaxed for v in e.variables()):
                moved = e.substitute(at_write)
                conjuncts.add((moved - moved.const, bound - moved.const))
    return conjuncts


def _enclosing_loops(op: Operation, top: Operation) -> list[ForOp]:
    """The loops strictly inside `top` that enclose `op`, innermost first."""
    return [p for p in ancestors(op, stop=top) if isinstance(p, ForOp)]


def _loops_between(op: Operation, top: Operation) -> set[SSAValue]:
    """Variables of the loops strictly inside `top` that enclose `op`."""
    return {lp.var for lp in _enclosing_loops(op, top)}


def _region(use: _Use, top: Operation, shape: list[int], fixed: frozenset[SSAValue] = frozenset()) -> tuple[Range, ...]:
    """The box the use reaches in one iteration of `top`, with the `fixed` loops at one value."""
    relaxed = _loops_between(use.op, top) - fixed
    ranges = []
    for dim, (index, size) in enumerate(zip(use.indices, use.sizes)):
        r = relax(index, relaxed)
        ranges.append(Range(Expr(), shape[dim]) if r is None else Range(r.start, r.extent + size - 1))
    return tuple(ranges)


def _covers(outer: tuple[Range, ...], inner: tuple[Range, ...]) -> bool:
    for a, b in zip(outer, inner):
        # The starts may differ by variables of unit loops (extent 1), which are constants too.
        span = (b.start - a.start).bounds(loop_bounds)
        if span is None or span[0] != span[1] or span[0] < 0 or span[0] + b.extent > a.extent:
            return False
    return True


def _iteration_private(uses: list[_Use], top: Operation, shape: list[int]) -> bool:
    """Every read is covered by a write before it in the same iteration of `top` that runs
    whenever the read does: unconditionally, or under a predicate the read's implies."""
    written: list[tuple[_Use, set[tuple[Expr, int]]]] = []
    for use in uses:
        if not use.is_write:
            if not any(_write_covers(writer, predicate, use, top, shape) for writer, predicate in written):
                return False
        elif (predicate := _write_predicate(use, top)) is not None:
            written.append((use, predicate))
    return True


def _write_covers(
    write: _Use, predicate: set[tuple[Expr, int]], read: _Use, top: Operation, shape: list[int]
) -> bool:
    """Whether `write`, which comes first in the program, has written every element `read`
    reads by the time it reads it. Loops around both are compared at one iteration: in a
    shared loop the write covers only what it writes in the same iteration, or earlier in it."""
    shared = frozenset(_loops_between(write.op, top) & _loops_between(read.op, top))
    box = _region(write, top, shape, shared)
    if not _covers(box, _region(read, top, shape, shared)) or not _fills(write, top, box, shared):
        return False
    if predicate and any(n != 1 for n in write.sizes):
        return False  # _read_predicate_at matches elements to a write's index, not within its tiles
    units = _unit_loops(write.op) | _unit_loops(read.op)
    return _at_zero(predicate, units) <= _at_zero(_read_predicate_at(read, write, top), units)


def _unit_loops(op: Operation) -> set[SSAValue]:
    """The variables of the loops of one iteration around `op`: 0 wherever it runs."""
    return {lp.var for lp in ancestors(op) if isinstance(lp, ForOp) and lp.extent == 1}


def _at_zero(conjuncts: set[tuple[Expr, int]], zero: set[SSAValue]) -> set[tuple[Expr, int]]:
    """The conjuncts `e < bound` with the `zero` variables at 0, those then always true left out: a
    thread tile of 1 guards the write at `i_0 * 2 + i_1 + i_2 < 41` (i_2 a loop of one iteration), the
    write-back at `i_0 * 2 + i_1 < 41`, one edge."""
    folded = set()
    for e, bound in conjuncts:
        moved = e.substitute(dict.fromkeys(zero, Expr()))
        if moved.variables() or moved.const >= bound:
            folded.add((moved - moved.const, bound - moved.const))
    return folded


def _fills(write: _Use, top: Operation, box: tuple[Range, ...], fixed: frozenset[SSAValue]) -> bool:
    """Whether the write reaches every element of its box in an iteration of `top` (the `fixed`
    loops at one value), as `_covers` assumes; a strided write (columns j, j + 8, j + 16) does not."""
    loops = {
        lp.var: lp.extent
        for lp in _enclosing_loops(write.op, top)
        if lp.var not in fixed and any(i.uses(lp.var) for i in write.indices)
    }
    if gapless(write.indices, write.sizes, loops):
        return True
    tile = int(np.prod(write.sizes))
    found = points_in_context(list(loops.items()), write.indices) if tile <= ENUMERATION_LIMIT else None
    if found is None or found[0].shape[1] * tile > ENUMERATION_LIMIT:
        return False  # not shown to fill its box: it covers no read
    values, contexts = found
    rank = len(write.sizes)
    offsets = np.stack(np.meshgrid(*[np.arange(n) for n in write.sizes], indexing="ij")).reshape(rank, -1)
    reached = values[:, :, None].repeat(offsets.shape[1], axis=2)
    reached[:rank] += offsets[:, None, :]
    volume = int(np.prod([r.extent for r in box], dtype=object))
    return distinct(reached.reshape(values.shape[0], -1)) == volume * contexts


def _candidates(uses: list[_Use], f: func.FuncOp) -> list[Operation]:
    """The loops enclosing every use, innermost first, then the function."""
    common: list[Operation] = list(_enclosing_loops(uses[0].op, f))
    for use in uses[1:]:
        mine = _enclosing_loops(use.op, f)
        common = [lp for lp in common if any(lp is m for m in mine)]
    return [*common, f]


def _box(uses: list[_Use], top: Operation, buffer: SSAValue, shape: list[int]) -> tuple[Range, ...]:
    box: tuple[Range, ...] | None = None
    for use in uses:
        region = _region(use, top, shape)
        box = region if box is None else union_ranges(buffer, box, region)
    assert box is not None
    return tuple(Range(Expr(), n) if r.extent >= n else r for r, n in zip(box, shape))


def _block_shared(buffer: SSAValue, uses: list[_Use]) -> bool:
    """A `shared` buffer used under thread-bound loops is one per GPU thread block, shared by its
    threads: lower-to-gpu sizes it (a loop iteration here is a thread there)."""
    return memory_space(buffer) == "shared" and any(
        isinstance(p, ForOp) and p.kind == THREAD_BINDING
        for u in uses
        for p in ancestors(u.op)
    )


def _own_per_iteration(op: Operation, f: func.FuncOp) -> ForOp | None:
    """Among `op` (unless it is `f`) and its ancestors below `f`, the outermost parallel loop, else
    the innermost loop bound to threadIdx or vthread, or blockIdx where the kernel has none around
    it: its iterations are (virtual) threads, so the buffer private to each iteration becomes each
    thread's own even when every thread uses all of it (a row sum's accumulator of 2 rows that one
    thread computes)."""
    chain = [lp for lp in [*([op] if op is not f else []), *ancestors(op, stop=f)] if isinstance(lp, ForOp)]
    parallel = next((lp for lp in reversed(chain) if lp.kind == PARALLEL), None)
    return parallel or next((lp for lp in chain if lp.kind == THREAD_BINDING and lp.thread_attr is not None
                             and lp.thread_attr.data.startswith(("threadIdx", "vthread", "blockIdx"))), None)


def compact(alloc: AllocOp, f: func.FuncOp) -> None:
    """Shrink `alloc` to what one iteration of the deepest sound loop uses, and move it there."""
    buffer = alloc.buffer
    assert isinstance(buffer.type, MemRefType)
    shape = list(buffer.type.get_shape())
    uses = _uses(buffer, f)
    if not uses or any(u for u in buffer.uses if not isinstance(u.operation, AccessOp)) or _block_shared(buffer, uses):
        return
    top = next(c for c in _candidates(uses, f) if c is f or _iteration_private(uses, c, shape))
    box = _box(uses, top, buffer, shape)
    if [r.extent for r in box] == shape and all(r.start.is_const and r.start.const == 0 for r in box):
        # Nothing to shrink; the buffer still moves into a parallel or thread-bound loop, whose
        # iterations each get their own (not into a serial one: a large buffer is allocated on the heap).
        top = _own_per_iteration(top, f)
        if top is None:
            return
    new_type = row_major(buffer.type.element_type, [r.extent for r in box], buffer.type.memory_space)
    new = AllocOp(new_type, buffer.name_hint)
    new.attributes.update(alloc.attributes)  # a storage alignment applies to the compacted shape, as in TVM
    new.location = alloc.location  # diagnostics about the buffer still point at its source line
    body = top.body.block if isinstance(top, ForOp) else f.body.block
    Rewriter.insert_op(new, InsertPoint.at_start(body))
    buffer.replace_all_uses_with(new.buffer)
    Rewriter.erase_op(alloc)
    starts = [r.start for r in box]
    for op in {id(u.op): u.op for u in uses}.values():
        _rebase(op, new.buffer, starts)


def _rebase(op: AccessOp, buffer: SSAValue, starts: list[Expr]) -> None:
    if isinstance(op, LoadOp | StoreOp):
        reindex(op, [i - s for i, s in zip(op.indices(), starts)])
    elif isinstance(op, RegionOp):
        reregion(op, [(b, [o - s for o, s in zip(offs, starts)] if b is buffer else offs, sizes)
                      for b, offs, sizes in op.regions_()])


def require_inlined(f: func.FuncOp) -> None:
    """The stages of lower-blocks after inline-blocks work on loop nests without blocks."""
    if any(isinstance(o, BlockOp) for o in f.walk()):
        raise LoweringError(f, f"function @{f.sym_name.data} still has blocks; the pass runs on loop nests "
                            "whose blocks are inlined (after inline-blocks)")


@dataclass(frozen=True)
class CompactBuffersPass(ModulePass):
    name = "compact-buffers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in (o for o in op.ops if isinstance(o, func.FuncOp)):
            require_inlined(f)
            for alloc in [o for o in f.walk() if isinstance(o, AllocOp)]:
                compact(alloc, f)
