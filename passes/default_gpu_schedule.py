"""default-gpu-schedule: a default GPU schedule for each block function (what legalize-tensor
makes), so that a model runs on targets "cuda" / "cuda-cpu" without a hand schedule (as
dlight's default rules do for TVM). Every loop nest of a kernel must be bound to threads, so
unlike default-schedule a block it cannot schedule is an error naming it, not left as it was.

For every function, the reductions first (each inlines its elementwise epilogue), then the
blocks left:

- a reduction (dense, matmul, conv2d, pooling) is tiled as seed 002's shared-memory GEMM (the tuner's
  `gpu_tiling` with its decisions fixed): each spatial loop is split into (block, thread,
  local), the thread factor the largest divisor of the extent up to the d-th root of
  TILE_THREADS (d: the spatial loops longer than 1), the local one the largest divisor of
  what is left up to LOCAL; a loop whose divisors are all small (a prime extent) is split by
  the root itself instead, its last tile guarded. Each reduce loop is split into (k0, k1),
  k1 the largest divisor up to REDUCE_TILE. The block loops are fused onto blockIdx.x, the
  thread loops onto threadIdx.x; each thread accumulates its tile in a `local` buffer written
  back under the thread loop (a bias / relu epilogue inlined into the write-back), the
  operand tiles of one k0 step are fetched into `shared` memory by all threads together
  (where they fit in SHARED_BYTES and are more than one element), the init is decomposed out.
- a reduction the tiled schedule refuses gets the simple schedule: one thread per output
  element, the spatial loops fused and split by THREADS (the last block guarded), the reduce
  loops serial in the thread. Where lower-to-gpu refuses the function as tiled (softmax rows
  take this path), every reduction of that function is scheduled again this way, also those
  whose tiled kernel would lower (the check is of the whole function, not of each kernel).
  A reduction to one element (no spatial loop) is refused: no reduction across threads yet.
- an elementwise or injective block: its loops fused and split by THREADS (fewer when it
  has fewer elements), the last block guarded, bound to blockIdx.x / threadIdx.x.

Each step is applied through `xtir.Schedule` and checked like any user's. Functions whose loops
already carry a kind other than serial (scheduled by hand) and those named in `skip` are
left alone; `default_gpu_schedule(module, func_name)` gives the pipeline one function's
schedule is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from xtir.dialects.block import AllocOp
from xtir.dialects.layout import memory_space
from xtir.errors import ScheduleError, XtirError, XtirPassError
from xtir.passes.analysis.navigation import all_blocks, select_function
from xtir.passes.default_schedule import Nest, largest_divisor, loop_nest, schedule_functions
from xtir.schedule import BlockRV, Schedule
from xtir.tune.spaces import auto_inline
from xtir.tune.spaces_gpu import bind_fused, bind_tiles, fetch_to_shared, int_root

THREADS = 256
"""Threads per block of an elementwise block or a reduction's simple schedule."""
TILE_THREADS = 256
"""The most threads per block of a tiled reduction."""
LOCAL = 4
"""The most elements of one spatial loop a thread of a tiled reduction computes."""
REDUCE_TILE = 8
"""The most iterations of a reduce loop per shared tile (k1)."""


def _tile(extent: int, threads: int) -> tuple[int, int]:
    """(thread, local) factors of a spatial loop of a tiled reduction."""
    thread = largest_divisor(extent, threads)
    if thread * 4 < min(extent, threads):  # divisors too small (a prime): guard the last tile instead
        return threads, 1
    return thread, largest_divisor(extent // thread, LOCAL)


def _elementwise(sch: Schedule, block: BlockRV, nest: Nest) -> None:
    bind_fused(sch, sch.get_loops(block), min(THREADS, math.prod(nest.extents)))


def _per_output(sch: Schedule, block: BlockRV, nest: Nest) -> None:
    """One thread per output element; the reduce loops serial inside."""
    loops = sch.get_loops(block)
    if nest.reduce[0] < nest.spatial[-1]:
        sch.reorder(*[loops[k] for k in nest.spatial], *[loops[k] for k in nest.reduce])
    bind_fused(sch, [loops[k] for k in nest.spatial], min(THREADS, math.prod(nest.extents[k] for k in nest.spatial)))


def _tiled(sch: Schedule, block: BlockRV, nest: Nest) -> None:
    """Block tile, thread tile in `local`, operand tiles in `shared` (see the module docstring)."""
    loops = sch.get_loops(block)
    per_dim = int_root(TILE_THREADS, max(1, sum(nest.extents[k] > 1 for k in nest.spatial)))
    grid, threads, local = [], [], []
    for k in nest.spatial:
        thread, inner = _tile(nest.extents[k], per_dim)
        b, t, lc = sch.split(loops[k], [None, thread, inner])
        grid.append(b)
        threads.append(t)
        local.append(lc)
    k0, k1 = zip(*[sch.split(loops[k], [None, largest_divisor(nest.extents[k], REDUCE_TILE)])
                   for k in nest.reduce])
    thread = bind_tiles(sch, block, grid, threads, [*k0, *k1, *local])
    fetch_to_shared(sch, block, thread, k0[-1], [*k1, *local])
    sch.decompose_reduction(block, k0[0])


def _lowers(module: ModuleOp, name: str) -> bool:
    """Whether lower-to-gpu takes function `name` of `module` as scheduled (and as a GPU model
    builds it: its scratch buffers parameters)."""
    from xtir.build import lower_to_gpu  # the front door's: the schedule is checked as a build would lower it

    try:
        lower_to_gpu(ModuleOp([scratch_as_parameters(select_function(module, name))[0]]))
    except XtirError:
        return False
    return True


def scratch_as_parameters(f: func.FuncOp) -> tuple[func.FuncOp, list[SSAValue]]:
    """A copy of block function `f` whose buffers in global memory (an intermediate one kernel
    writes and the next reads: a conv2d's padded input, softmax's row maxima) are parameters
    after its own, and those buffers (of `f`'s copy, as keys): the model allocates them, as
    lower-to-gpu keeps no buffer alive between kernels."""
    f = f.clone()
    scratch = [op for op in f.body.block.ops if isinstance(op, AllocOp) and memory_space(op.buffer) is None]
    buffers = []
    for alloc in scratch:
        parameter = f.body.block.insert_arg(alloc.buffer.type, len(f.body.block.args))
        parameter.name_hint = alloc.buffer.name_hint
        alloc.buffer.replace_all_uses_with(parameter)
        alloc.detach()
        alloc.erase()
        buffers.append(parameter)
    f.function_type = FunctionType.from_lists([a.type for a in f.body.block.args], [])
    return f, buffers


def _schedule(module: ModuleOp, func_name: str | None, tiled: bool = True) -> tuple[ModuleOp, str]:
    """The module with one function scheduled, and the pipeline that did it; with `tiled`, the
    tiled reductions, retried without when the tiled kernel does not lower."""
    sch = Schedule(module, func_name=func_name)
    name = sch.func_name
    for label in sch.block_names():
        auto_inline(sch, BlockRV(label))
    blocks = {b.label: b for b in all_blocks(select_function(sch.mod, name))}
    nests = {label: loop_nest(b) for label, b in blocks.items()}
    reductions = [label for label, nest in nests.items() if nest is not None and nest.reduce]
    for label in reductions:
        sch = _reduction(sch, label, nests[label], tiled)  # type: ignore[arg-type]
    for label, nest in nests.items():
        if label in reductions or label not in sch.block_names():
            continue  # scheduled above, or inlined into a write-back
        if nest is None:
            raise ScheduleError(sch.get(BlockRV(label)), f"block \"{label}\" of @{name} is not in a fresh loop nest (one serial "
                                f"loop per iteration variable) and a kernel needs every loop nest bound; schedule @{name} "
                                "by hand (bind its loops)")
        _elementwise(sch, BlockRV(label), nest)
    if tiled and reductions and not _lowers(sch.mod, name):
        return _schedule(module, func_name, tiled=False)
    return sch.mod, str(sch.trace)


def _reduction(sch: Schedule, label: str, nest: Nest, tiled: bool) -> Schedule:
    if not nest.spatial:
        raise ScheduleError(sch.get(BlockRV(label)), f"block \"{label}\" of @{sch.func_name} reduces to one element: it has no "
                            "spatial loop to bind to threads (a reduction across threads is not supported yet)")
    if tiled:
        trial = sch.copy()
        try:
            _tiled(trial, BlockRV(label), nest)
            return trial
        except XtirPassError:
            pass  # the tiled schedule does not apply: one thread per output element
    _per_output(sch, BlockRV(label), nest)
    return sch


def default_gpu_schedule(module: ModuleOp, func_name: str | None = None) -> str:
    """The default GPU schedule of one function, as the `xtir-opt -p` pipeline (with `func=`)
    that applies it."""
    return _schedule(module, func_name)[1]


@dataclass(frozen=True)
class DefaultGpuSchedulePass(ModulePass):
    """default-gpu-schedule{skip=f,g}: see the module docstring."""

    name = "default-gpu-schedule"

    skip: tuple[str, ...] = ()
    """Functions to leave unscheduled (scheduled elsewhere)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        schedule_functions(op, self.skip, _schedule)
