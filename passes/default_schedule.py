"""default-schedule: a reasonable CPU schedule for each block function (what legalize-tensor
makes), so that an unscheduled model is not a naive loop nest.

For every block of a function, in order, from its fresh loop nest (one loop per iteration
variable, as `te.create_func` writes them):

- a reduction (dense, matmul, conv2d, pooling) gets a register tile: its innermost
  spatial axis is the vector axis (split to at most VECTOR_TILE elements, vectorized), the
  innermost other spatial axis that the vector axis's operand does not use (matmul's i,
  conv2d's output channel) the register axis (split so that the accumulators fill about
  ACCUMULATORS vector registers, unrolled); the reduction loops go between the tile
  loops and the outer loops; the accumulators live in a `local` cache written back per
  tile (cache-write, reverse-compute-at), into which an elementwise epilogue that reads
  the result (a fused bias and relu) is inlined (reverse-compute-inline); the init is
  decomposed out of the reduction. This is the hand schedule (b) of benchmarks/matmul.py
  without its packing: legalize-tensor hands a dense its constant weight already
  transposed. A weight that is a parameter is read with a stride: correct, slower.
- an elementwise (or injective) block vectorizes its innermost loop, unless it calls a
  libm function (tanh, tan, atan, ...; erf on f64): LLVM vectorizes such a call only where
  the CPU has a libmvec variant (lowering/vector_math.py), and warns about a marked loop it
  could not; or unless it divides or shifts integers by a value that may make the op
  undefined (guard-arith's run-time check is a branch, which LLVM does not vectorize).
- the outer spatial loops are fused and run in parallel when the block does at least
  PARALLEL_WORK iterations (below that, starting threads costs more than it saves).

Each block's schedule is applied through `xtir.Schedule` and checked like any user's; a
block that refuses a step keeps the loops it had. Functions whose loops already carry a
kind other than serial (scheduled by a user or the tuner) and the functions named in
`skip` are left alone; `default_schedule(module, func_name)` gives the pipeline one
function's schedule is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xtir.dialects.block import REDUCE, SERIAL, BlockOp, ForOp, LoadOp, accesses_in
from xtir.errors import XtirPassError
from xtir.lowering.arith_guards import needs_guard
from xtir.lowering.arith_to_llvm import MATH_LIBM
from xtir.lowering.vector_math import expands
from xtir.passes.analysis.navigation import all_blocks, get_block, get_loops, select_function
from xtir.schedule import BlockRV, LoopRV, Schedule

VECTOR_LANES = 16
"""float32 lanes of an AVX-512 register."""
VECTOR_TILE = 32
"""The most elements of the vector axis one tile computes (two registers): with ACCUMULATORS,
a dense's tile is 8 rows x 32; benchmarks/mlp.py measured it ~25% faster than 4 x 64 here."""
ACCUMULATORS = 16
"""Vector registers a register tile keeps its sums in (of AVX-512's 32)."""
PARALLEL_WORK = 1 << 16
"""Iterations of a block below which it runs on one thread."""


@dataclass(frozen=True)
class Nest:
    """A block in its fresh loop nest: loop k binds iteration variable k."""

    block: BlockOp
    spatial: list[int]
    reduce: list[int]
    extents: list[int]


def loop_nest(block: BlockOp) -> Nest | None:
    loops = get_loops(block)
    bindings = [b.as_var() for b in block.bindings()]
    if len(loops) != len(bindings) or any(b is not lp.var for b, lp in zip(bindings, loops)):
        return None
    if any(lp.kind != SERIAL for lp in loops) or block.predicate():
        return None
    kinds = block.kinds
    return Nest(block, [k for k, c in enumerate(kinds) if c != REDUCE], [k for k, c in enumerate(kinds) if c == REDUCE],
                 block.extents)


def _calls_libm(block: BlockOp) -> bool:
    """Whether the block calls a math function that is a libm call on the CPU (tanh, tan, ...;
    erf on f64, which f16 and f32 compute inline): LLVM vectorizes its loop only on CPUs with a
    libmvec variant, and would warn elsewhere that the vectorized loop is not."""
    return any(op.name in MATH_LIBM and not expands(op) for op in block.walk())


def _checks_at_run_time(block: BlockOp) -> bool:
    """Whether guard-arith will check an integer division or shift of the block at run time:
    the check branches to a report call, and LLVM warns that the marked loop did not vectorize."""
    return any(needs_guard(op) for op in block.walk())


def largest_divisor(n: int, limit: int) -> int:
    return max(d for d in range(1, min(n, limit) + 1) if n % d == 0)


def _vector_tile(extent: int) -> int:
    """The vector axis's tile: all of it up to VECTOR_TILE, else the largest divisor no larger
    (a multiple of the lanes when there is one)."""
    if extent <= VECTOR_TILE:
        return extent
    lanes = [d for d in range(VECTOR_LANES, VECTOR_TILE + 1, VECTOR_LANES) if extent % d == 0]
    return max(lanes) if lanes else largest_divisor(extent, VECTOR_TILE)


def _register_axis(nest: Nest, vec: int) -> int | None:
    """The innermost spatial axis other than `vec` that no load using the vector axis reads by:
    each of its values reuses the vector operand from registers."""
    var = nest.block.iter_vars
    accesses = list(accesses_in(nest.block.body))
    written = {a.buffer for a in accesses if a.is_write}
    vector_loads = [a for a in accesses if isinstance(a.op, LoadOp) and a.buffer not in written
                    and any(i.uses(var[vec]) for i in a.indices)]
    used = {k for k in nest.spatial for a in vector_loads if any(i.uses(var[k]) for i in a.indices)}
    free = [k for k in nest.spatial if k != vec and k not in used]
    return free[-1] if free else None


@dataclass
class _BlockSchedule:
    """The schedule of one block, on a schedule of its own (dropped when a step is refused)."""

    sch: Schedule
    name: str
    func_name: str | None

    def block(self) -> BlockRV:
        return self.sch.get_block(self.name)

    def parallel(self, outer: list[LoopRV], work: int) -> None:
        """Fuse the outer loops and run them in parallel, when the work is worth threads."""
        if not outer or work < PARALLEL_WORK:
            return
        loop = self.sch.fuse(*outer) if len(outer) > 1 else outer[0]
        self.sch.parallel(loop)

    def elementwise(self, nest: Nest) -> None:
        *outer, inner = self.sch.get_loops(self.block())
        if nest.extents[-1] >= 4 and not _calls_libm(nest.block) and not _checks_at_run_time(nest.block):
            self.sch.vectorize(inner)
        self.parallel(outer, math.prod(nest.extents))

    def reduction(self, nest: Nest) -> None:
        loops = self.sch.get_loops(self.block())
        vec = nest.spatial[-1]
        reg = _register_axis(nest, vec)
        v = _vector_tile(nest.extents[vec])
        budget = max(1, ACCUMULATORS // -(-v // VECTOR_LANES))
        r = largest_divisor(nest.extents[reg], budget) if reg is not None else 1
        outer: list[LoopRV] = []
        tile: list[LoopRV] = []
        vec_inner = reg_inner = None
        for k in nest.spatial:
            factor = v if k == vec else r if k == reg else None
            if factor is None or factor == 1:
                outer.append(loops[k])
            elif factor == nest.extents[k]:
                tile.append(loops[k])
            else:
                o, i = self.sch.split(loops[k], [None, factor])
                outer.append(o)
                tile.append(i)
            if k == vec:
                vec_inner = tile[-1] if factor != 1 and tile else outer[-1]
            if k == reg and factor != 1:
                reg_inner = tile[-1]
        tile.sort(key=lambda lp: lp is vec_inner)  # the vector loop innermost
        reduce = [loops[k] for k in nest.reduce]
        self.sch.reorder(*outer, *reduce, *tile)
        if outer:
            self.cache_tile(outer[-1])
        self.sch.decompose_reduction(self.block(), reduce[0])
        if vec_inner is not None and nest.extents[vec] >= 4 and not _checks_at_run_time(nest.block):
            self.sch.vectorize(vec_inner)
        if reg_inner is not None:
            self.sch.unroll(reg_inner)
        self.parallel(outer, math.prod(nest.extents))

    def cache_tile(self, loop: LoopRV) -> None:
        """Accumulate a tile in a local buffer written back under `loop`; the one elementwise
        block reading the result (an epilogue) is inlined into the write-back."""
        (out,) = {a.buffer for a in accesses_in(get_block(self.function(), self.name).body) if a.is_write}
        readers = [b for b in all_blocks(self.function()) if b.label != self.name
                   and any(a.buffer is out and not a.is_write for a in accesses_in(b.body))]
        copy = self.sch.cache_write(self.block(), 0, "local")
        self.sch.reverse_compute_at(copy, loop)
        if len(readers) == 1 and not any(k == REDUCE for k in readers[0].kinds):
            try:
                self.sch.reverse_compute_inline(BlockRV(readers[0].label))
            except XtirPassError:
                pass  # not a pure elementwise read of the result: it stays a block of its own

    def function(self) -> func.FuncOp:
        return select_function(self.sch.mod, self.func_name)


def _scheduled_by_hand(f: func.FuncOp) -> bool:
    return any(isinstance(op, ForOp) and op.kind != SERIAL for op in f.walk())


def default_schedule(module: ModuleOp, func_name: str | None = None) -> str:
    """The default CPU schedule of one function, as the `xtir-opt -p` pipeline (with
    `func=`) that applies it: print it, edit it, or replace it by a schedule of your own."""
    return _schedule(module, func_name)[1]


def _schedule(module: ModuleOp, func_name: str | None) -> tuple[ModuleOp, str]:
    """The module with one function scheduled, and the pipeline that did it."""
    steps: list[str] = []
    current = module
    for label in [b.label for b in all_blocks(select_function(module, func_name))]:
        blocks = {b.label: b for b in all_blocks(select_function(current, func_name))}
        if label not in blocks or (nest := loop_nest(blocks[label])) is None:
            continue  # inlined into another block, or no longer in a fresh nest
        trial = _BlockSchedule(Schedule(current, func_name=func_name), label, func_name)
        try:
            trial.reduction(nest) if nest.reduce else trial.elementwise(nest)
        except XtirPassError:
            continue  # the block refused a step: it keeps the loops it had
        current = trial.sch.mod
        steps.append(trial.sch.trace)
    return current, ",".join(s for s in steps if s)


@dataclass(frozen=True)
class DefaultSchedulePass(ModulePass):
    """default-schedule{skip=f,g}: see the module docstring."""

    name = "default-schedule"

    skip: tuple[str, ...] = ()
    """Functions to leave unscheduled (scheduled elsewhere)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        schedule_functions(op, self.skip, _schedule)


def schedule_functions(op: ModuleOp, skip: Container[str],
                       schedule: Callable[[ModuleOp, str], tuple[ModuleOp, str]]) -> None:
    """Replace each function of `op` with blocks, not in `skip` nor scheduled by hand, by its
    `schedule` (default-gpu-schedule's too)."""
    for f in [f for f in op.ops if isinstance(f, func.FuncOp)]:
        name = f.sym_name.data
        if name in skip or _scheduled_by_hand(f) or not all_blocks(f):
            continue
        scheduled, pipeline = schedule(op, name)
        if pipeline:
            Rewriter.replace_op(f, select_function(scheduled, name).clone())
