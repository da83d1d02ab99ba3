"""Loop-nest features of a scheduled function, what the cost model learns from (MetaSchedule's
per-store features, reduced to what xtir's schedules change).

Each leaf block gets one vector (`BLOCK_FEATURES`): its work, how its loops run (parallel,
thread-bound, vectorized, unrolled), how long its innermost reduce loop runs, the stride of
each access along the innermost loop, and
how many bytes its accesses touch under each loop: from those, how much work runs on data that
fits a cache level and at what arithmetic intensity. A function's vector is the vectors of its
TOP_BLOCKS heaviest blocks, heaviest first, zero-padded, then the count of blocks. Sizes are
log2(1 + x): the model compares schedules whose sizes differ by factors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import SSAValue

from xtir.dialects.block import PARALLEL, REDUCE, UNROLLED, VECTORIZED, AccessOp, BlockOp, ForOp, scope_of
from xtir.dialects.expr import Expr
from xtir.dialects.walk import ancestors
from xtir.passes.analysis.navigation import all_blocks, loops_around, select_function
from xtir.passes.analysis.regions import relax

CACHES = {"l1": 32 * 1024, "l2": 1024 * 1024}
"""Bytes of the data caches a tile should fit (per core, a typical x86 server)."""
TOP_BLOCKS = 3

BLOCK_FEATURES = (
    "work", "ops", "flops", "loops",
    "parallel", "grid", "threads", "vector_width", "innermost_vectorized", "unrolled", "innermost_extent", "inner_reduce",
    "stride0", "stride1", "strided", "max_stride",
    "bytes", "innermost_bytes", "intensity",
    "l1_work", "l1_intensity", "l2_work", "l2_intensity",
    "local_bytes", "shared_bytes", "fast_accesses",
)


def _log(x: float) -> float:
    return math.log2(1.0 + x)


@dataclass(frozen=True)
class LoopAccess:
    buffer: SSAValue
    indices: tuple[Expr, ...]
    """In the loop variables around the block."""


def function_features(module: ModuleOp, func_name: str | None = None) -> np.ndarray:
    """The feature vector of a (scheduled) function: deterministic for a given IR."""
    leaves = [b for b in all_blocks(select_function(module, func_name)) if not _has_nested_block(b)]
    vectors = sorted(((block_features(b), b.label) for b in leaves), key=lambda vl: (-vl[0][2], -vl[0][0], vl[1]))
    width = len(BLOCK_FEATURES)
    top = [v for v, _ in vectors[:TOP_BLOCKS]]
    top += [np.zeros(width)] * (TOP_BLOCKS - len(top))
    return np.concatenate([*top, [len(leaves)]])


def block_features(block: BlockOp) -> np.ndarray:
    loops = loops_around(block)[::-1]  # outermost first
    accesses = block_accesses(block)
    ops = sum(1 for op in block.body.walk() if op.name.startswith("arith.") and not isinstance(op, arith.ConstantOp))
    work = math.prod(lp.extent for lp in loops)
    strides = [abs(_stride(a, loops[-1].var)) for a in accesses] if loops else []
    footprints = [footprint_bytes(accesses, loops[level:]) for level in range(len(loops) + 1)]  # under each loop; one instance
    flops = work * max(ops, 1)
    features = {
        "work": _log(work), "ops": ops, "flops": _log(flops), "loops": len(loops),
        "parallel": _log(_product(loops, lambda lp: lp.kind == PARALLEL)),
        "grid": _log(_product(loops, lambda lp: (lp.thread or "").startswith("blockIdx"))),
        "threads": _log(_product(loops, lambda lp: (lp.thread or "").startswith("threadIdx"))),
        "vector_width": _product(loops, lambda lp: lp.kind == VECTORIZED) if any(lp.kind == VECTORIZED for lp in loops) else 0,
        "innermost_vectorized": float(bool(loops) and loops[-1].kind == VECTORIZED),
        "unrolled": _log(_product(loops, lambda lp: lp.kind == UNROLLED)),
        "innermost_extent": _log(loops[-1].extent if loops else 1),
        "inner_reduce": _log(_inner_reduce_extent(block, loops)),
        "stride0": sum(s == 0 for s in strides), "stride1": sum(s == 1 for s in strides),
        "strided": sum(s > 1 for s in strides), "max_stride": _log(max(strides, default=0)),
        "bytes": _log(footprints[0]), "innermost_bytes": _log(footprints[-2] if loops else footprints[-1]),
        "intensity": _log(flops / max(footprints[0], 1)),
        "local_bytes": _log(_scoped_bytes(accesses, loops, "local")),
        "shared_bytes": _log(_scoped_bytes(accesses, loops, "shared")),
        "fast_accesses": sum(scope_of(a.buffer.type) in ("local", "shared") for a in accesses),
    }
    for cache, size in CACHES.items():
        level = next((k for k, b in enumerate(footprints) if b <= size), len(loops))
        tile_work = math.prod(lp.extent for lp in loops[level:]) * max(ops, 1)
        features[f"{cache}_work"] = _log(tile_work)
        features[f"{cache}_intensity"] = _log(tile_work / max(footprints[level], 1))
    return np.array([float(features[name]) for name in BLOCK_FEATURES])


def _inner_reduce_extent(block: BlockOp, loops: list[ForOp]) -> int:
    """The extent of the innermost loop a reduce variable binds (R1 of multi-level tiling: how
    long a register tile accumulates before it is stored and loaded again); 1 when none."""
    bound = {v for it in block.iters() if it.kind == REDUCE for v in it.binding.variables()}
    return next((lp.extent for lp in reversed(loops) if lp.var in bound), 1)


def _has_nested_block(block: BlockOp) -> bool:
    return any(isinstance(op, BlockOp) for op in block.body.walk() if op is not block)


def block_accesses(block: BlockOp) -> list[LoopAccess]:
    """Every access of the block (init included), its indices in the loop variables around it."""
    mapping: dict[SSAValue, Expr] = {}
    for outer in [p for p in ancestors(block) if isinstance(p, BlockOp)][::-1] + [block]:
        for it in outer.iters():
            mapping[it.var] = it.binding.substitute(mapping)
    return [LoopAccess(a.buffer, tuple(i.substitute(mapping) for i in a.indices))
            for op in block.body.walk() if isinstance(op, AccessOp) for a in op.accesses()]


def _shape(buffer: SSAValue) -> tuple[int, ...]:
    assert isinstance(buffer.type, MemRefType)
    return tuple(buffer.type.get_shape())


def _element_bytes(buffer: SSAValue) -> int:
    assert isinstance(buffer.type, MemRefType)
    return max(1, getattr(buffer.type.element_type, "bitwidth", 32) // 8)


def _stride(access: LoopAccess, var: SSAValue) -> int:
    """Elements between the accesses of two consecutive iterations of `var` (others at 0)."""
    def offset(step: int) -> int:
        total = 0
        for index, size in zip(access.indices, _shape(access.buffer)):
            env = {v: 0 for v in index.variables()} | ({var: step} if index.uses(var) else {})
            total = total * size + index.evaluate(env)
        return total

    return offset(1) - offset(0)


def footprint_bytes(accesses: list[LoopAccess], inner: list[ForOp]) -> int:
    """Bytes the accesses touch while the `inner` loops run (a box per access, the largest per buffer)."""
    relaxed = {lp.var for lp in inner}
    largest: dict[SSAValue, int] = {}
    for a in accesses:
        elements = 1
        for index, size in zip(a.indices, _shape(a.buffer)):
            r = relax(index, relaxed)
            elements *= min(r.extent, size) if r is not None else size
        largest[a.buffer] = max(largest.get(a.buffer, 0), elements * _element_bytes(a.buffer))
    return sum(largest.values())


def _scoped_bytes(accesses: list[LoopAccess], loops: list[ForOp], scope: str) -> int:
    return footprint_bytes([a for a in accesses if scope_of(a.buffer.type) == scope], loops)


def _product(loops: list[ForOp], chosen) -> int:
    return math.prod(lp.extent for lp in loops if chosen(lp))
