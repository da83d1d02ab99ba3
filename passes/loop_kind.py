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
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr

from xtir.dialects.block import PARALLEL, REDUCE, AllocOp, ForOp
from xtir.lowering.blocks_to_scf import inline_blocks
from xtir.lowering.compact_buffers import compact
from xtir.passes.analysis.dependences import carried_conflict, describe
from xtir.passes.analysis.navigation import all_loops, child_blocks
from xtir.passes.utils import fail, function_of


def check_independent(pass_name: str, loop: ForOp) -> None:
    for block in child_blocks(loop):
        for it in block.iters():
            if it.kind == REDUCE and it.binding.uses(loop.var):
                raise fail(
                    pass_name,
                    loop,
                    f'loop "{loop.label}" feeds reduce iteration variable %{it.var.name_hint} of block '
                    f'"{block.label}"; its iterations are not independent',
                )
    check_no_carried_dependence(pass_name, loop)


def check_no_carried_dependence(pass_name: str, loop: ForOp) -> None:
    """Refuse `loop` when two of its iterations share an element that one writes, as the build
    would see it with `loop` parallel: blocks inlined, scratch buffers compacted."""
    f = function_of(loop)
    index = next(k for k, other in enumerate(all_loops(f)) if other is loop)
    lowered = f.clone()
    copy = all_loops(lowered)[index]
    set_kind(copy, PARALLEL)
    inline_blocks(lowered.regions[0])
    for alloc in [op for op in lowered.walk() if isinstance(op, AllocOp)]:
        compact(alloc, lowered)  # type: ignore[arg-type]
    conflict = carried_conflict(copy)
    if conflict is not None:
        raise fail(pass_name, loop, f"{describe(conflict, loop)}; its iterations are not independent")


def set_kind(loop: ForOp, kind: str, thread: str | None = None) -> None:
    loop.properties["kind"] = StringAttr(kind)
    if thread is None:
        loop.properties.pop("thread", None)
    else:
        loop.properties["thread"] = StringAttr(thread)
