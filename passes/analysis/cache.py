"""What cache-read and cache-write share: the cache buffer and its copy block.

TVM names a cache of buffer A in scope S buffer `A_S` (dots become underscores,
e.g. `A_global_A_reg`) and its copy block `A_S` with the dots kept
(`A_global.A_reg`); the copy loops are `ax0, ax1, ...` over the whole buffer (over
what the block writes, for cache-write) and the block variables `v0, v1, ...`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import MemRefType, StringAttr
from xdsl.ir import Operation, SSAValue

from xtir.dialects.block import SPATIAL, AccessOp, AllocOp, BlockOp, ForOp, LoadOp, StoreOp, buffer_name
from xtir.dialects.expr import Expr
from xtir.passes.analysis.regions import BufferRegion
from xtir.support.errors import ScheduleError


def cache_names(buffer: SSAValue, scope: str) -> tuple[str, str]:
    """(buffer name, block name) of the cache of `buffer` in `scope`."""
    base = buffer_name(buffer)
    return f"{base}_{scope.replace('.', '_')}", f"{base}_{scope}"


def alloc_cache(buffer: SSAValue, scope: str, at: Operation) -> SSAValue:
    """A buffer like `buffer` in `scope`, allocated at the start of the function body `at`."""
    assert isinstance(buffer.type, MemRefType)
    cache_type = MemRefType(buffer.type.element_type, buffer.type.get_shape(), memory_space=StringAttr(scope))
    alloc = AllocOp(cache_type, cache_names(buffer, scope)[0])
    block = at.regions[0].block
    first = block.first_op
    allocs = [op for op in block.ops if isinstance(op, AllocOp)]
    if allocs:
        block.insert_op_after(alloc, allocs[-1])
    elif first is not None:
        block.insert_op_before(alloc, first)
    else:
        block.add_op(alloc)
    return alloc.buffer


def copy_nest(name: str, dst: SSAValue, src: SSAValue, origin: Operation,
              box: Sequence[tuple[int, int]] | None = None) -> ForOp:
    """for ax0, ax1, ...: block name(v0, v1, ...): dst[v...] = src[v...] over the whole buffer, or
    over `box` ([lo, hi) per dimension: v_d = lo + ax_d, as TVM binds a cache region).

    The nest takes `origin`'s location: diagnostics about it point at the block it was made for."""
    assert isinstance(src.type, MemRefType)
    shape = src.type.get_shape()
    box = box if box is not None else [(0, n) for n in shape]
    loops = [ForOp(f"ax{d}", hi - lo) for d, (lo, hi) in enumerate(box)]
    for outer, inner in zip(loops, loops[1:]):
        outer.body.block.add_op(inner)
    block = BlockOp(name, [(f"v{d}", SPATIAL, n, Expr.var(lp.var) + lo)
                           for d, (n, lp, (lo, _)) in enumerate(zip(shape, loops, box))])
    index = [Expr.var(v) for v in block.iter_vars]
    load = LoadOp(src, index)
    block.body.block.add_ops([load, StoreOp(load.result, dst, index)])
    loops[-1].body.block.add_op(block)
    for op in loops[0].walk():
        op.location = origin.location
    return loops[0]


def redirect_accesses(root: Operation, old: SSAValue, new: SSAValue, reads: bool, writes: bool) -> None:
    """Make the loads (reads) and/or stores (writes) of `old` under `root` use `new`."""
    for op in list(root.walk()):
        if (isinstance(op, LoadOp) and reads) or (isinstance(op, StoreOp) and writes):
            if op.buffer is old:
                op.operands = [new if v is old else v for v in op.operands]


def select_buffer(block: BlockOp, regions: list[BufferRegion], index: int, what: str) -> SSAValue:
    """The buffer of `block`'s index-th read or written region, checked for the cache passes."""
    if not 0 <= index < len(regions):
        listing = ", ".join(buffer_name(r.buffer) for r in regions) or "none"
        raise ScheduleError(block, f'block "{block.label}" has {len(regions)} {what} buffers ({listing}); '
                   f"index {index} is out of range")
    buffer = regions[index].buffer
    if any(isinstance(op, AccessOp) and not isinstance(op, LoadOp | StoreOp) and buffer in op.operands
           for op in block.walk()):
        raise ScheduleError(block, f'{buffer_name(buffer)} is accessed by accel ops in block "{block.label}"; '
                   "cache before tensorize")
    return buffer


def top_level_ancestor(op: Operation, scope: Operation) -> Operation:
    """The ancestor of `op` that sits directly in `scope`'s body."""
    node = op
    while node.parent_op() is not scope:
        parent = node.parent_op()
        assert parent is not None
        node = parent
    return node
