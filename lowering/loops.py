"""Loop kinds at the scf level, before the llvm conversion: the stages expand-unrolled-loops
and convert-scf-to-cf-annotated of convert-to-llvm.

`lower-blocks` tags each `scf.for` with `xtir.loop_name` and, unless it is serial,
`xtir.loop_kind` (parallel, vectorized, unrolled, thread_binding). Here:
- thread-bound loops are refused before (check-llvm-target, in lowering/llvm_target.py);
- unrolled loops with a constant trip count are fully unrolled in the IR (xDSL's
  `scf-for-loop-unroll` pattern, restricted to them) when that makes at most
  UNROLL_BUDGET ops; a bigger loop asks LLVM to unroll it by the largest count
  within the budget (`unroll_count = N`), and one with dynamic bounds keeps an
  `unroll = "full"` annotation for LLVM;
- scf becomes cf with xDSL's patterns, and the back edge of a vectorized (or
  annotated unrolled) loop carries `xtir.loop_annotation`, which the JIT turns into
  `llvm.loop` metadata (`llvm.loop.vectorize.enable`, `llvm.loop.unroll.count`,
  `llvm.loop.unroll.full`).
Parallel loops are outlined by `lowering/openmp.py` before this runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering, SwitchLowering
from xdsl.transforms.scf_for_loop_unroll import UnrollLoopPattern

LOOP_NAME = "xtir.loop_name"
LOOP_KIND = "xtir.loop_kind"
LOOP_ANNOTATION = "xtir.loop_annotation"
THREAD_TAG_ATTRS = ("xtir.thread", "xtir.thread_tag", "xtir.loop_thread")

PARALLEL, VECTORIZED, UNROLLED, THREAD_BINDING = "parallel", "vectorized", "unrolled", "thread_binding"

UNROLL_BUDGET = 2048
"""Most ops a full unroll may create in the IR; bigger loops are left to LLVM's unroller."""


def _string_attr(op: Operation, name: str) -> str | None:
    attr = op.attributes.get(name)
    return attr.data if isinstance(attr, StringAttr) else None


def loop_kind(op: scf.ForOp) -> str:
    return _string_attr(op, LOOP_KIND) or "serial"


def loop_name(op: scf.ForOp) -> str:
    return _string_attr(op, LOOP_NAME) or "<unnamed>"


def constant_int(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def trip_count(op: scf.ForOp) -> int | None:
    lb, ub, step = constant_int(op.lb), constant_int(op.ub), constant_int(op.step)
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, (ub - lb + step - 1) // step)


def constant_loop(value: SSAValue) -> tuple[int, int, int] | None:
    """(lb, step, trip count) of the scf.for whose variable `value` is, when its bounds are
    constants; else None."""
    owner = value.owner.parent_op() if isinstance(value, BlockArgument) else None
    if not isinstance(owner, scf.ForOp) or value is not owner.body.block.args[0]:
        return None
    trips, lb, step = trip_count(owner), constant_int(owner.lb), constant_int(owner.step)
    if trips is None or lb is None or step is None:
        return None
    return lb, step, trips


def unrolled_size(op: Operation) -> float:
    """How many ops `op` becomes once its unrolled loops (and theirs) are unrolled."""
    inner = sum(unrolled_size(child) for region in op.regions for block in region.blocks for child in block.ops)
    if isinstance(op, scf.ForOp) and loop_kind(op) == UNROLLED:
        trips = trip_count(op)
        return float("inf") if trips is None else trips * inner
    return 1 + inner


def thread_tag(op: scf.ForOp) -> str:
    """The GPU thread axis a thread-bound loop is bound to."""
    return next((t for a in THREAD_TAG_ATTRS if (t := _string_attr(op, a))), "a GPU thread axis")


def annotate(op: scf.ForOp, **entries: Attribute) -> None:
    old = op.attributes.get(LOOP_ANNOTATION)
    merged = dict(old.data) if isinstance(old, DictionaryAttr) else {"name": StringAttr(loop_name(op))}
    op.attributes[LOOP_ANNOTATION] = DictionaryAttr({**merged, **entries})


def llvm_unroll_request(op: scf.ForOp, size: float) -> dict[str, Attribute]:
    """What to ask of LLVM for an unrolled loop too big to unroll here: a full unroll only
    when the trip count is unknown (LLVM then unrolls what it can prove); otherwise the
    largest count that keeps the copies within the budget. A full unroll of nests of
    constant loops lets LLVM unroll those too, and its O3 passes take minutes."""
    trips = trip_count(op)
    if trips is None:
        return {"unroll": StringAttr("full")}
    count = int(UNROLL_BUDGET * trips // size)
    return {"unroll_count": IntegerAttr(count, 32)} if count >= 2 else {}


class UnrollTaggedLoop(RewritePattern):
    """Fully unroll `scf.for` loops of kind "unrolled" (innermost first is not needed:
    the clones of an inner unrolled loop are unrolled in turn)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        if loop_kind(op) != UNROLLED:
            return
        if (size := unrolled_size(op)) > UNROLL_BUDGET:
            if LOOP_ANNOTATION not in op.attributes:
                annotate(op, **llvm_unroll_request(op, size))
                rewriter.notify_op_modified(op)
            return
        UnrollLoopPattern().match_and_rewrite(op, rewriter)


class AnnotatedForLowering(ForLowering):
    """xDSL's scf.for → cf lowering, keeping the loop's annotation on its back edge.

    An innermost vectorized loop is annotated `vectorize = true` here (LLVM vectorizes
    innermost loops only; an outer one is left to the cost model, and to SLP once its
    inner loops are unrolled). The back edge is the branch from the loop body to the
    header; it stays the same op when nested scf ops split its block later.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, for_op: scf.ForOp, rewriter: PatternRewriter) -> None:
        innermost = not any(isinstance(op, scf.ForOp) for op in for_op.body.walk())
        if loop_kind(for_op) == VECTORIZED and innermost:
            annotate(for_op, vectorize=BoolAttr.from_bool(True))
        annotation = for_op.attributes.get(LOOP_ANNOTATION)
        header, preheader = for_op.body.first_block, for_op.parent_block()
        super().match_and_rewrite(for_op, rewriter)
        if annotation is None or header is None:
            return
        for block in header.predecessors():
            if block is not preheader and block.last_op is not None:
                block.last_op.attributes[LOOP_ANNOTATION] = annotation


@dataclass(frozen=True)
class ExpandUnrolledLoopsPass(ModulePass):
    """expand-unrolled-loops: unroll the loops of kind "unrolled" (xDSL's `scf-for-loop-unroll`
    unrolls every loop it is given; here only the marked ones, within UNROLL_BUDGET)."""

    name = "expand-unrolled-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(UnrollTaggedLoop()).rewrite_module(op)


@dataclass(frozen=True)
class ConvertScfToCfAnnotatedPass(ModulePass):
    """convert-scf-to-cf-annotated: xDSL's `convert-scf-to-cf` patterns, with the for loop's
    lowering replaced by one that keeps the loop's annotation on its back edge (upstream's
    drops the loop's attributes, and with them what LLVM is asked to do with the loop)."""

    name = "convert-scf-to-cf-annotated"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier([SwitchLowering(), IfLowering(), AnnotatedForLowering()])
        PatternRewriteWalker(patterns).rewrite_module(op)
