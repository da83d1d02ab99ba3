"""What cache-read and cache-write build: the cache buffer, its copy nest, the redirected accesses.

The names follow TVM (see `xtir.passes.analysis.cache`): the cache of buffer A in scope S
is buffer `A_S` with its copy block `A_S` (dots kept), copy loops `ax0, ax1, ...` and block
variables `v0, v1, ...`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import MemRefType, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import SPATIAL, AllocOp, BlockOp, ForOp, LoadOp, StoreOp
from xtir.dialects.expr import Expr
from xtir.dialects.layout import row_major
from xtir.passes.analysis.cache import cache_names


def alloc_cache(buffer: SSAValue, scope: str, at: Operation) -> SSAValue:
    """A buffer like `buffer` in `scope`, allocated at the start of the function body `at`."""
    assert isinstance(buffer.type, MemRefType)
    cache_type = row_major(buffer.type.element_type, buffer.type.get_shape(), StringAttr(scope))
    alloc = AllocOp(cache_type, cache_names(buffer, scope)[0])
    block = at.regions[0].block
    allocs = [op for op in block.ops if isinstance(op, AllocOp)]
    Rewriter.insert_op(alloc, InsertPoint.after(allocs[-1]) if allocs else InsertPoint.at_start(block))
    return alloc.buffer


CopyValue = Callable[[BlockOp, SSAValue, list[Expr]], SSAValue]
"""Builds, at the end of a copy block's body, the value it stores: from the block, the source
buffer and the block's indices (its variables)."""


def load(block: BlockOp, src: SSAValue, index: list[Expr]) -> SSAValue:
    """`src[v...]`: what a copy stores unless told otherwise."""
    op = LoadOp(src, index)
    block.body.block.add_op(op)
    return op.result


def copy_nest(name: str, dst: SSAValue, src: SSAValue, origin: Operation,
              box: Sequence[tuple[int, int]] | None = None, prefix: str = "ax", value: CopyValue = load) -> ForOp:
    """for ax0, ax1, ...: block name(v0, v1, ...): dst[v...] = src[v...] over dst's whole shape, or
    over `box` ([lo, hi) per dimension: v_d = lo + ax_d, as TVM binds a cache region). `prefix`
    names the loops (pad-einsum's are `i0, i1, ...`); `value` builds what is stored in place of
    the load of src (pad-einsum's `if_then_else(in range, A[v...], 0)`).

    The nest takes `origin`'s location: diagnostics about it point at the block it was made for."""
    assert isinstance(dst.type, MemRefType)
    shape = dst.type.get_shape()
    box = box if box is not None else [(0, n) for n in shape]
    loops = [ForOp(f"{prefix}{d}", hi - lo) for d, (lo, hi) in enumerate(box)]
    for outer, inner in zip(loops, loops[1:]):
        outer.body.block.add_op(inner)
    block = BlockOp(name, [(f"v{d}", SPATIAL, n, Expr.var(lp.var) + lo)
                           for d, (n, lp, (lo, _)) in enumerate(zip(shape, loops, box))])
    index = [Expr.var(v) for v in block.iter_vars]
    block.body.block.add_op(StoreOp(value(block, src, index), dst, index))
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
