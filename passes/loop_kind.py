"""Shared legality of parallel, vectorize and bind: iterations must be independent.

A loop whose variable feeds a reduce iteration variable carries a reduction; running
its iterations at once would race on the reduced buffer (TVM's rule for
parallel/vectorize/bind: no reduce block var may be bound to the loop).

Beyond TVM's rule, no two iterations may touch one element of a buffer where one of them
writes it (`U[15 - vi] = U[14 - vi] + 1`, or one block writing what another block reads in
the next iteration): that is checked as the build checks it, on a lowered copy of the
function, after compact-buffers has given each iteration its own copy of the scratch
buffers it can (a cache tile written and read in one iteration). An in-place update of the
element an iteration owns (`U[vi] = U[vi] * 0.5 + T[vi]`) is independent; so is a loop
writing disjoint rows of an intermediate buffer read after it. What the primitive accepts,
`xtir.build` compiles.

That must stay true after the loop was marked: a primitive that moves, creates or rewrites
statements (compute-at under a parallel loop, a cache copy or an init nest placed inside one,
a split that keeps compact-buffers from giving each iteration its own tile) derives from
StatementPrimitive, which checks the parallel and vectorized loops of the function again
once the change is made, as the build and the primitives that marked them check them, and
refuses the change when one of them would race. (Thread-bound loops are not checked again:
a `shared` cache computed under a thread loop is written by every thread on purpose, the
cooperative fetch that TVM's GPU schedules make.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation

from xtir.dialects.block import PARALLEL, REDUCE, VECTORIZED, AllocOp, ForOp
from xtir.errors import XtirPassError
from xtir.lowering.blocks_to_scf import inline_blocks
from xtir.lowering.compact_buffers import compact
from xtir.passes.analysis.dependences import Conflict, carried_conflict, describe
from xtir.passes.analysis.navigation import all_loops, child_blocks, select_function
from xtir.passes.schedule_pass import SchedulePass
from xtir.passes.utils import function_of
from xtir.support.errors import ScheduleError


def check_independent(loop: ForOp) -> None:
    for block in child_blocks(loop):
        for it in block.iters():
            if it.kind == REDUCE and it.binding.uses(loop.var):
                raise ScheduleError(
                    loop,
                    f'loop "{loop.label}" feeds reduce iteration variable %{it.var.name_hint} of block '
                    f'"{block.label}"; its iterations are not independent',
                )
    check_no_carried_dependence(loop)


def check_no_carried_dependence(loop: ForOp) -> None:
    """Refuse `loop` when two of its iterations share an element that one writes, as the build
    would see it with `loop` parallel: blocks inlined, scratch buffers compacted."""
    (copy,) = _as_built(function_of(loop), [loop], made_parallel=[loop])
    conflict = carried_conflict(copy)
    if conflict is not None:
        raise ScheduleError(loop, f"{describe(conflict, loop)}; its iterations are not independent")


def _as_built(f: Operation, loops: list[ForOp], made_parallel: Sequence[ForOp] = ()) -> list[ForOp]:
    """The copies of `loops` in a copy of `f` lowered as the build lowers it (blocks inlined,
    scratch buffers compacted), with the `made_parallel` loops marked parallel first."""
    index = {id(lp): k for k, lp in enumerate(all_loops(f))}
    lowered = f.clone()
    copies = all_loops(lowered)
    for loop in made_parallel:
        set_kind(copies[index[id(loop)]], PARALLEL)
    inline_blocks(lowered.regions[0])
    for alloc in [op for op in lowered.walk() if isinstance(op, AllocOp)]:
        compact(alloc, lowered)  # type: ignore[arg-type]
    return [copies[index[id(lp)]] for lp in loops]


def check_marked_loops(f: Operation) -> None:
    """After a change to `f`, refuse a parallel loop that would race (the build's check) or a
    vectorized one whose iterations are no longer independent (vectorize's check)."""
    loops = all_loops(f)
    parallel = [lp for lp in loops if lp.kind == PARALLEL]
    vectorized = [lp for lp in loops if lp.kind == VECTORIZED]
    for loop, copy in zip([*parallel, *vectorized], _as_checked(f, parallel, vectorized)):
        if (conflict := carried_conflict(copy)) is not None:
            raise _race(loop, conflict)


def _as_checked(f: Operation, parallel: list[ForOp], vectorized: list[ForOp]) -> list[ForOp]:
    """The copy of each `parallel` loop in `f` lowered as built, then of each `vectorized` loop
    in `f` lowered with it marked parallel (what vectorize checks). One lowered copy serves the
    parallel loops and the vectorized loops that are not nested in another vectorized loop, nor
    enclose one or a parallel loop, all marked at once; each other vectorized loop gets its own.

    Marking a loop parallel changes the lowering only where compact-buffers moves a buffer it
    cannot shrink into the outermost parallel loop enclosing all its uses (compact_buffers.py).
    A buffer moved so into a vectorized loop V of the shared copy, instead of into the loop L
    checked or staying where it was, has all its uses in V, and V is outside every parallel loop
    enclosing them; L is neither inside V nor encloses V, so the buffer is outside L either way.
    """
    def apart(loop: ForOp) -> bool:
        return not any(loop is not other and (loop.is_ancestor(other) or other.is_ancestor(loop)) for other in vectorized) \
            and not any(loop.is_ancestor(p) for p in parallel)

    shared = [lp for lp in vectorized if apart(lp)]
    together = [*parallel, *shared]
    copies = dict(zip(map(id, together), _as_built(f, together, made_parallel=shared) if together else []))
    return [copies[id(lp)] if id(lp) in copies else _as_built(f, [lp], made_parallel=[lp])[0]
            for lp in [*parallel, *vectorized]]


def _race(loop: ForOp, conflict: Conflict) -> XtirPassError:
    return ScheduleError(loop, f'after the change, {loop.kind} loop "{loop.label}" would race: '
                f"{describe(conflict, loop)}; its iterations must stay independent")


class StatementPrimitive(SchedulePass):
    """A schedule primitive that changes statements, not only loop kinds: the loops marked
    parallel or vectorized before must still have independent iterations after `run`
    (see the module docstring)."""

    def schedule(self, module: ModuleOp) -> Any:
        function = select_function(module, self.func)
        result = self.run(function)
        check_marked_loops(function)
        return result


def set_kind(loop: ForOp, kind: str, thread: str | None = None) -> None:
    loop.properties["kind"] = StringAttr(kind)
    if thread is None:
        loop.properties.pop("thread", None)
    else:
        loop.properties["thread"] = StringAttr(thread)
