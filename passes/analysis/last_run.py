"""Does a block recomputed under a loop read only final values in its last run?

reverse-compute-at moves a complete consumer under a loop, where it runs, per iteration, the
instances whose reads lie within the region its producers write in that iteration. That
region is derived (analysis/regions.py): it can hold elements written in other iterations,
or in none (a strided write, a predicate). An instance run too early reads values not
produced yet; the result is still right when its last run comes after every write of what it
reads, since that run overwrites what the earlier ones wrote. This runs the loops to check
it: the iteration of the loops around (and including) the target loop in which each element
is last written, and the one in which each instance last runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from xtir.dialects.block import BlockOp, ForOp, StoreOp, buffer_name
from xtir.dialects.expr import Expr
from xtir.passes.analysis.footprint import Box, store_nest
from xtir.passes.analysis.instances import ENUMERATION_LIMIT, points
from xtir.passes.analysis.navigation import loops_around
from xtir.passes.analysis.regions import read_regions

ITERATION_LIMIT = 1 << 16
"""Most iterations of the loops around the target loop that are run one by one."""


def stale_read(loop: ForOp, block: BlockOp, producers: dict[SSAValue, list[BlockOp]],
               starts: Sequence[Expr], extents: Sequence[int], box: Box) -> str | None:
    """Why some instance of `block`, run under `loop` at `starts[k] + [0, extents[k])` of each of its
    variables (within `box`), last runs before an element it reads is last written; None when none."""
    outer = [*reversed(loops_around(loop)), loop]
    steps = int(np.prod([lp.extent for lp in outer], dtype=object))
    if steps > ITERATION_LIMIT:
        return f"the loops around run {steps} iterations, too many to check"
    last_run = _last_runs(outer, starts, extents, box)
    if last_run is None:
        return "its instances are too many, or depend on more than these loops, to check"
    regions = {r.buffer: r for r in read_regions(block)}
    for buffer, writers in producers.items():
        last_write = _last_writes(outer, writers, buffer)
        if last_write is None:
            return f"too many iterations to check when {buffer_name(buffer)} is written"
        read_last = _latest_read_write(block, regions[buffer].ranges, last_write, box)
        if read_last is None:
            return f"too many elements of {buffer_name(buffer)} read to check"
        late = np.argwhere((last_run >= 0) & (read_last > last_run))
        if late.size:
            v = tuple(int(x) + lo for x, (lo, _) in zip(late[0], box))
            return (f'instance {v} of block "{block.label}" runs last in iteration {int(last_run[tuple(late[0])])} of '
                    f"the loops around, but reads {buffer_name(buffer)} written in iteration "
                    f"{int(read_last[tuple(late[0])])}")
    return None


def _last_runs(outer: list[ForOp], starts: Sequence[Expr], extents: Sequence[int], box: Box) -> np.ndarray | None:
    """Per instance of `box`, the last iteration of the `outer` loops (in the order they run) that runs
    it, or -1."""
    known = {lp.var for lp in outer}
    if any(v not in known for e in starts for v in e.variables()):
        return None
    if int(np.prod([hi - lo for lo, hi in box], dtype=object)) > ENUMERATION_LIMIT:
        return None
    values = points([(lp.var, lp.extent) for lp in outer], list(starts))
    assert values is not None
    last = np.full([hi - lo for lo, hi in box], -1, dtype=np.int64)
    for step in range(values.shape[1]):  # in the order the iterations run: later ones overwrite
        window = tuple(slice(max(int(s), lo) - lo, max(min(int(s) + n, hi) - lo, 0))
                       for s, n, (lo, hi) in zip(values[:, step], extents, box))
        last[window] = step
    return last


def _last_writes(outer: list[ForOp], writers: list[BlockOp], buffer: SSAValue) -> np.ndarray | None:
    """Per element of `buffer`, the last iteration of the `outer` loops in which `writers` write it, or -1."""
    assert isinstance(buffer.type, MemRefType)
    last = np.full(buffer.type.get_shape(), -1, dtype=np.int64)
    for store in (op for w in writers for op in w.walk() if isinstance(op, StoreOp) and op.buffer is buffer):
        nest = store_nest(store)
        loops = [(var, extent) for var, extent in nest.loops.items()]
        values = points(loops, [*nest.indices, *(e for e, _ in nest.conjuncts), *(Expr.var(lp.var) for lp in outer)])
        if values is None:
            return None
        n = len(nest.indices)
        runs = np.all(values[n: n + len(nest.conjuncts)] < np.array([[b] for _, b in nest.conjuncts]), axis=0) \
            if nest.conjuncts else np.ones(values.shape[1], dtype=bool)
        step = np.zeros(values.shape[1], dtype=np.int64)
        for row, lp in zip(values[n + len(nest.conjuncts):], outer):
            step = step * lp.extent + row
        np.maximum.at(last, tuple(values[:n, runs]), step[runs])
    return last


def _latest_read_write(block: BlockOp, ranges, last_write: np.ndarray, box: Box) -> np.ndarray | None:
    """Per instance of `box`, the latest last write among the elements its region `ranges` reads."""
    shape = [hi - lo for lo, hi in box]
    volume = int(np.prod(shape, dtype=object))
    offsets = list(product(*(range(r.extent) for r in ranges)))
    if volume * len(offsets) > ENUMERATION_LIMIT:
        return None
    shifted = {it.var: Expr.var(it.var) + lo for it, (lo, _) in zip(block.iters(), box)}
    values = points([(it.var, n) for it, n in zip(block.iters(), shape)],
                    [r.start.substitute(shifted) for r in ranges])
    assert values is not None
    latest = np.full(volume, -1, dtype=np.int64)
    for offset in offsets:
        index = values + np.array(offset)[:, None]
        inside = np.all((index >= 0) & (index < np.array(last_write.shape)[:, None]), axis=0)
        found = np.full(volume, -1, dtype=np.int64)
        found[inside] = last_write[tuple(index[:, inside])]
        latest = np.maximum(latest, found)
    return latest.reshape(shape)
