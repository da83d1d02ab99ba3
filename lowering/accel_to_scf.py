"""lower-accel: each accel intrinsic becomes a scalar loop nest (scf.for + memref.load/store + arith).

    accel.tmm16 %C[%ci : 16, %cj : 16], %A[%ai : 16, %ak : 16], %B[%bj : 16, %bk : 16]

becomes (C[ci + i, cj + j] += sum_k A[ai + i, ak + k] * B[bj + j, bk + k]):

    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %c = memref.load %C[%ci + %i, %cj + %j]
        %r = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %c) -> (f32) {
          ... %acc + A[%ai + %i, %ak + %k] * B[%bj + %j, %bk + %k] ...
          scf.yield %sum : f32
        } {xtir.loop_name = "tmm16.k"}
        memref.store %r, %C[%ci + %i, %cj + %j]
      } {xtir.loop_name = "tmm16.j"}
    } {xtir.loop_name = "tmm16.i"}

The C element is loaded once and carried through the k loop (so LLVM keeps it in a
register); `fill_zero` and `dma_copy` are i, j nests of stores. Region offsets are index
expressions, computed once before the nest; the buffers keep their types (and scopes).
The output uses the same dialects as lower-blocks, whose blocks-to-scf stage lowers the
accel ops it meets with the same pattern, so lower-accel may run before it, after it or
not at all (lower-to-llvm runs it for modules with accel ops and no blocks).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xtir.dialects.accel import TILE, DMACopyOp, FillZeroOp, RegionOp, TMM16Op
from xtir.lowering.index_expr import INDEX, IndexEmitter, constant, sort_prologue
from xtir.lowering.loops import LOOP_NAME


def _loop(
    rewriter: PatternRewriter,
    anchor: Operation,
    point: InsertPoint,
    name: str,
    hint: str,
    iter_args: tuple[SSAValue, ...] = (),
) -> scf.ForOp:
    """An empty `scf.for 0 to 16` named `name` (its body gets a yield from the caller)."""
    body = Block(arg_types=[INDEX, *(a.type for a in iter_args)])
    body.args[0].name_hint = hint
    lb, ub, step = constant(rewriter, anchor, 0), constant(rewriter, anchor, TILE), constant(rewriter, anchor, 1)
    loop = scf.ForOp(lb, ub, step, iter_args, body)
    loop.attributes[LOOP_NAME] = StringAttr(name)
    return rewriter.insert(loop, point)


def _element_type(buffer: SSAValue):
    assert isinstance(buffer.type, MemRefType)
    return buffer.type.element_type


def lower_accel_op(op: RegionOp, rewriter: PatternRewriter) -> None:
    """Replace one accel op by its loop nest (in place, before the op, which is erased)."""
    short = op.name.removeprefix("accel.")
    outer = IndexEmitter(op, rewriter)
    regions = op.regions_()
    bases = [[outer.offset(e) for e in offs] for _, offs, _ in regions]
    buffers = [b for b, _, _ in regions]

    li = _loop(rewriter, op, InsertPoint.before(op), f"{short}.i", "i")
    i = li.body.block.args[0]
    at_i = IndexEmitter(op, rewriter, InsertPoint.at_end(li.body.block))
    lj = None

    if isinstance(op, TMM16Op):
        (c_buf, a_buf, b_buf), (cb, ab, bb) = buffers, bases
        ci, ai = at_i.add(cb[0], i), at_i.add(ab[0], i)
        lj = _loop(rewriter, op, InsertPoint.at_end(li.body.block), f"{short}.j", "j")
        j = lj.body.block.args[0]
        at_j = IndexEmitter(op, rewriter, InsertPoint.at_end(lj.body.block))
        cj, bj = at_j.add(cb[1], j), at_j.add(bb[0], j)
        c = at_j.emit(memref.LoadOp.get(c_buf, [ci, cj]))
        c.name_hint = "c"
        lk = _loop(rewriter, op, InsertPoint.at_end(lj.body.block), f"{short}.k", "k", (c,))
        k, acc = lk.body.block.args
        acc.name_hint = "acc"
        at_k = IndexEmitter(op, rewriter, InsertPoint.at_end(lk.body.block))
        ak, bk = at_k.add(ab[1], k), at_k.add(bb[1], k)
        a = at_k.emit(memref.LoadOp.get(a_buf, [ai, ak]))
        b = at_k.emit(memref.LoadOp.get(b_buf, [bj, bk]))
        total = at_k.emit(arith.AddfOp(acc, at_k.emit(arith.MulfOp(a, b))))
        at_k.emit(scf.YieldOp(total))
        at_j.emit(memref.StoreOp.get(lk.results[0], c_buf, [ci, cj]))
    elif isinstance(op, FillZeroOp | DMACopyOp):
        dst, db = buffers[0], bases[0]
        di = at_i.add(db[0], i)
        si = at_i.add(bases[1][0], i) if isinstance(op, DMACopyOp) else None
        lj = _loop(rewriter, op, InsertPoint.at_end(li.body.block), f"{short}.j", "j")
        j = lj.body.block.args[0]
        at_j = IndexEmitter(op, rewriter, InsertPoint.at_end(lj.body.block))
        dj = at_j.add(db[1], j)
        if isinstance(op, DMACopyOp):
            assert si is not None
            value = at_j.emit(memref.LoadOp.get(buffers[1], [si, at_j.add(bases[1][1], j)]))
        else:
            value = constant(rewriter, op, 0.0, _element_type(dst))
        at_j.emit(memref.StoreOp.get(value, dst, [di, dj]))
    else:  # pragma: no cover - the three ops of the dialect
        raise AssertionError(f"no lowering for {op.name}")

    IndexEmitter(op, rewriter, InsertPoint.at_end(lj.body.block)).emit(scf.YieldOp())
    at_i.emit(scf.YieldOp())
    rewriter.erase(op)


class LowerAccelOp(RewritePattern):
    """accel.tmm16 / accel.fill_zero / accel.dma_copy -> scf.for nest of scalar ops."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RegionOp, rewriter: PatternRewriter) -> None:
        lower_accel_op(op, rewriter)


@dataclass(frozen=True)
class LowerAccelPass(ModulePass):
    """lower-accel: the accel intrinsics as scalar loop nests; everything else is left as it is."""

    name = "lower-accel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([LowerAccelOp()]), apply_recursively=False).rewrite_module(op)
        for f in op.ops:
            if isinstance(f, func.FuncOp):
                sort_prologue(f)
