"""The stages of lower-blocks: block-dialect IR (after any schedule) to scf / memref / arith.

lower-blocks is a pipeline (lowering/pipelines.py): inline-blocks, compact-buffers,
check-parallel-loops, check-bounds, blocks-to-scf, then xDSL's cse, licm and cse. Its
output contract (what convert-to-llvm and lower-to-gpu start from): only func.func /
func.return / func.call (a host function calling the module's block functions), arith
(index arithmetic included), scf.for / scf.if / scf.yield and memref.alloca /
memref.load / memref.store remain, plus any scalar math.* ops of the input, which pass
through; function signatures are unchanged.

- `block.for %i = 0 to N "name" KIND` becomes `scf.for %i = %c0 to %cN step %c1` with
  the discardable attributes `xtir.loop_name = "name"` (always), `xtir.loop_kind =
  "parallel" | "vectorized" | "unrolled" | "thread_binding"` (non-serial loops only),
  `xtir.thread = "threadIdx.x"` (thread-bound loops) and `xtir.annotations = {...}`
  (loops with annotations). Loops made for accel ops are named `tmm16.i` etc.
- `block.block`: its iteration variables are replaced by their bindings and its body
  is inlined in place. A `where` predicate becomes `scf.if (e0 < b0 and ...)` around the
  body; the init region runs first under `scf.if (every reduce binding == 0)`, marked
  with the unit attribute `xtir.init` (TVM's lowering of T.init).
- `block.load` / `block.store`: the index expressions become arith.muli / addi / subi,
  arith.floordivsi (floordiv) and arith.remsi (mod; with a select that makes it a floor
  mod when the operand may be negative) feeding memref.load / memref.store.
- compact-buffers (lowering/compact_buffers.py, on by default) shrinks each scratch buffer
  to what one iteration of the deepest loop that does not carry data through it uses, and
  allocates it there. check-parallel-loops then refuses a parallel loop two of whose
  iterations touch one element that one of them writes, in a buffer allocated outside it
  (a parameter, or a scratch buffer that carries data between iterations): a race;
  iterations writing disjoint rows of an intermediate buffer are not one.
- check-bounds (lowering/bounds_check.py): every access must be shown inside its buffer,
  from the loop bounds and the conditions of the guards around it, or is refused; with
  `runtime=true` each access is checked at run time instead.
- `block.alloc` becomes `memref.alloca` (same type: the scope string stays the memory
  space) at the start of the function, or inside the loop compact-buffers put it in;
  accel ops become loop nests (lower-accel).
- Index constants live in the function prologue (after the allocas), once each; the
  pipeline ends with xDSL's CSE and LICM, so each index subexpression is computed once per
  scope, in the outermost loop whose variables it uses.

inline-blocks is a recursive walk, not a rewrite pattern: inlining a block rewrites the
index expressions of the ops nested in it (their iteration variables become expressions
of the loops), which rebuilds those ops outside any rewriter, and the outer block must be
inlined before the blocks nested in it. Its output is still block dialect with the blocks
gone (block.for loops, block.load/store and accel ops indexed by loop variables, guards
as scf.if), the form compact-buffers and the checks work on. blocks-to-scf is local, one
op at a time, and uses a PatternRewriteWalker.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import DictionaryAttr, MemRefType, ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects import block as blk
from xtir.dialects.accel import Accel, TMM16Op
from xtir.dialects.block import SERIAL, AccessOp, BlockOp
from xtir.dialects.layout import storage_type
from xtir.errors import LoweringError
from xtir.lowering import runtime_errors
from xtir.lowering.accel_to_scf import LowerAccelOp
from xtir.lowering.arith_guards import GUARDED
from xtir.lowering.compact_buffers import INIT_GUARD, require_inlined
from xtir.lowering.index_expr import IndexEmitter, alloca_point, constant, entry_block, sort_prologue
from xtir.lowering.loops import LOOP_KIND, LOOP_NAME
from xtir.lowering.microkernels import KERNEL_ATTR, tmm16_call
from xtir.passes.analysis.dependences import BLOCK_ATTR, carried_conflict, describe
from xtir.passes.transforms.rewrite import substitute_in_op

THREAD = "xtir.thread"
ANNOTATIONS = "xtir.annotations"

_SCF_OPS = {scf.ForOp.name, scf.IfOp.name, scf.YieldOp.name}
_MEMREF_OPS = {memref.AllocaOp.name, memref.LoadOp.name, memref.StoreOp.name}
_FUNC_OPS = {func.FuncOp.name, func.ReturnOp.name, func.CallOp.name}  # calls between functions (a host function)
_INPUT_OPS = _SCF_OPS | _MEMREF_OPS | _FUNC_OPS | {op.name for op in blk.Block_.operations} | {
    op.name for op in Accel.operations
}
_OUTPUT_OPS = _SCF_OPS | _MEMREF_OPS | _FUNC_OPS


def _allowed(op: Operation, names: set[str]) -> bool:
    if isinstance(op, func.CallOp) and (KERNEL_ATTR in op.attributes or runtime_errors.CALL_ATTR in op.attributes):
        return names is _OUTPUT_OPS  # a micro-kernel call or a bounds report is output, never input
    return op.name in names or op.name.startswith(("arith.", "math."))


# Step 1: inline the blocks ---------------------------------------------------------


def _guard(emitter: IndexEmitter, conditions: list[SSAValue], point: InsertPoint, init: bool = False) -> InsertPoint:
    """An `scf.if` on the conjunction of `conditions`, at `point`; where its body goes."""
    cond = emitter.all_of(conditions)
    body = Block([scf.YieldOp()])
    guard = scf.IfOp(cond, [], Region(body))
    if init:
        guard.attributes[INIT_GUARD] = UnitAttr()
    Rewriter.insert_op(guard, point)
    return InsertPoint.before(body.last_op)  # type: ignore[arg-type]


def inline_block(op: BlockOp) -> None:
    """Replace a block by its body: iteration variables become their bindings, the
    predicate and the init become scf.if guards."""
    bindings = op.bindings()
    mapping = dict(zip(op.iter_vars, bindings))
    reduce_bindings = [b for b, kind in zip(bindings, op.kinds) if kind == blk.REDUCE]
    predicate = op.predicate()
    emitter = IndexEmitter(op)
    for statement in blk.statements(op.body):
        if isinstance(statement, (AccessOp, *GUARDED)):  # for messages about it (bounds, arith guards)
            statement.attributes[BLOCK_ATTR] = StringAttr(op.label)

    # Ops that index with expressions get the bindings substituted (and simplified).
    users: dict[int, Operation] = {}
    for var in op.iter_vars:
        for use in var.uses:
            if isinstance(use.operation, AccessOp | BlockOp):
                users.setdefault(id(use.operation), use.operation)
    for user in users.values():
        substitute_in_op(user, mapping)
    # Any other use (ops lowered earlier, e.g. by lower-accel) gets the value computed.
    for var, binding in mapping.items():
        if var.uses:
            var.replace_all_uses_with(emitter.expr(binding))

    point = InsertPoint.before(op)
    if predicate:
        point = _guard(emitter, [emitter.cmp(emitter.expr(e), "slt", bound) for e, bound in predicate], point)
    init = op.init
    if init is not None:
        inner = IndexEmitter(op, point=point)
        init_point = _guard(inner, [inner.cmp(inner.expr(b), "eq", 0) for b in reduce_bindings], point, init=True)
        Rewriter.inline_block(init.body.block, init_point)
        Rewriter.erase_op(init)
    Rewriter.inline_block(op.body.block, point)
    Rewriter.erase_op(op)


def inline_blocks(region: Region) -> None:
    """Inline every block.block in `region`, outer blocks first."""
    for block in region.blocks:
        op = block.first_op
        while op is not None:
            if isinstance(op, BlockOp):
                before = op.prev_op
                inline_block(op)
                # continue with what replaced the block (guards, body, nested blocks)
                op = before.next_op if before is not None else block.first_op
                continue
            for r in op.regions:
                inline_blocks(r)
            op = op.next_op


# Step 2: loops, accesses and buffers ----------------------------------------------------


class LowerFor(RewritePattern):
    """block.for -> scf.for with the loop's name, kind and thread as attributes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.ForOp, rewriter: PatternRewriter) -> None:
        body = rewriter.move_region_contents_to_new_regions(op.body)
        body.block.add_op(scf.YieldOp())
        lb, ub, step = (constant(rewriter, op, v) for v in (0, op.extent, 1))
        loop = scf.ForOp(lb, ub, step, [], body)
        loop.attributes[LOOP_NAME] = StringAttr(op.label)
        if op.kind != SERIAL:
            loop.attributes[LOOP_KIND] = StringAttr(op.kind)
        if op.thread is not None:
            loop.attributes[THREAD] = StringAttr(op.thread)
        if op.annotations:
            loop.attributes[ANNOTATIONS] = DictionaryAttr(op.annotations)
        loop.location = op.location  # later stages (lower-to-gpu) point their diagnostics at the source
        rewriter.replace(op, loop)


class LowerLoad(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.LoadOp, rewriter: PatternRewriter) -> None:
        emitter = IndexEmitter(op, rewriter)
        load = memref.LoadOp.get(op.buffer, [emitter.expr(e) for e in op.indices()])
        load.location = op.location
        rewriter.replace(op, load)


class LowerStore(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.StoreOp, rewriter: PatternRewriter) -> None:
        emitter = IndexEmitter(op, rewriter)
        store = memref.StoreOp.get(op.value, op.buffer, [emitter.expr(e) for e in op.indices()])
        store.location = op.location
        rewriter.replace(op, store)


class LowerAlloc(RewritePattern):
    """block.alloc -> memref.alloca of the same type: at the start of the function, or where it
    is when compact-buffers moved it into a loop (a parallel loop's iterations each get theirs).
    A storage alignment (storage-align) pads its strides. Its attributes (double-buffer's mark,
    the alignment, which lower-to-gpu applies again to the shared tiles it resizes) go along."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: blk.AllocOp, rewriter: PatternRewriter) -> None:
        t = op.buffer.type
        assert isinstance(t, MemRefType)
        if aligns := blk.dim_aligns(op):
            t = storage_type(t.element_type, t.get_shape(), t.memory_space, aligns)
        alloca = memref.AllocaOp.get(t.element_type, shape=t.get_shape(), layout=t.layout, memory_space=t.memory_space)
        alloca.location = op.location
        alloca.attributes.update(op.attributes)
        entry = entry_block(op)
        nested = not isinstance(op.parent_op(), func.FuncOp)
        rewriter.insert(alloca, alloca_point(entry) if entry is not None and not nested else InsertPoint.before(op))
        alloca.memref.name_hint = op.buffer.name_hint
        rewriter.replace_all_uses_with(op.buffer, alloca.memref)
        rewriter.erase(op)


def _or_zero(value: SSAValue | None, rewriter: PatternRewriter, anchor: Operation) -> SSAValue:
    return value if value is not None else constant(rewriter, anchor, 0)


class TMM16ToMicrokernel(RewritePattern):
    """accel.tmm16 -> a call of the CPU micro-kernel, with each tile's start as index values."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TMM16Op, rewriter: PatternRewriter) -> None:
        emitter = IndexEmitter(op, rewriter)
        offsets = [[_or_zero(emitter.offset(e), rewriter, op) for e in offs] for _, offs, _ in op.regions_()]
        rewriter.replace(op, tmm16_call(op, offsets))


def _check(module: ModuleOp, names: set[str], what: str) -> None:
    for top in module.ops:
        if not isinstance(top, func.FuncOp):
            raise LoweringError(top, f"unexpected op {top.name} at the top level; it lowers functions only")
        for op in top.walk():
            if not _allowed(op, names):
                raise LoweringError(op, f"unexpected op {op.name}; {what}")


def _check_parallel_loops(f: Operation) -> None:
    """No two iterations of a parallel loop may share an element one of them writes (after
    compact-buffers gave each iteration its own scratch buffers where it could). The parallel
    primitive refuses such loops already; this catches parallel loops written by hand and
    blocks moved under a parallel loop afterwards."""
    for loop in (o for o in f.walk() if isinstance(o, blk.ForOp) and o.kind == blk.PARALLEL):
        conflict = carried_conflict(loop)
        if conflict is not None:
            raise LoweringError(loop, f'parallel loop "{loop.label}" would race: {describe(conflict, loop)}')


@dataclass(frozen=True)
class InlineBlocksPass(ModulePass):
    """inline-blocks: step 1. Refuses ops outside the dialects lower-blocks lowers, then
    replaces every block by its body (the IR stays block dialect, without blocks)."""

    name = "inline-blocks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check(op, _INPUT_OPS, "it lowers the block, accel, arith, math, scf and memref dialects only")
        for f in op.ops:
            if isinstance(f, func.FuncOp):
                inline_blocks(f.body)


@dataclass(frozen=True)
class CheckParallelLoopsPass(ModulePass):
    """check-parallel-loops: refuse a parallel loop whose iterations race (on inlined blocks,
    after compact-buffers gave each iteration its own scratch buffers where it could)."""

    name = "check-parallel-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp):
                require_inlined(f)
                _check_parallel_loops(f)


@dataclass(frozen=True)
class BlocksToScfPass(ModulePass):
    """blocks-to-scf{microkernels=false}: step 2, on inlined blocks. Loops, accesses,
    allocations and accel ops become scf / memref / arith (see the module docstring for the
    output contract, which it checks); xDSL's cse and licm run after it in lower-blocks."""

    name = "blocks-to-scf"

    microkernels: bool = False
    """Leave accel.tmm16 as a call of the CPU micro-kernel (lowering/microkernels.py) for
    convert-to-llvm, instead of a scalar loop nest; xtir.build sets it."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp):
                require_inlined(f)
        patterns = [LowerFor(), LowerLoad(), LowerStore(), LowerAlloc(), LowerAccelOp()]
        if self.microkernels:
            patterns.insert(0, TMM16ToMicrokernel())
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=False).rewrite_module(op)
        for f in op.ops:
            if isinstance(f, func.FuncOp):
                sort_prologue(f)
        _check(op, _OUTPUT_OPS, "lowering left it behind")
