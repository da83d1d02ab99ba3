"""default-gpu-schedule: a default GPU schedule for each block function (what legalize-tensor
makes), so that a model runs on targets "cuda" / "cuda-cpu" without a hand schedule (as
dlight's default rules do for TVM). Every loop nest of a kernel must be bound to threads, so
unlike default-schedule a block it cannot schedule is an error naming it, not left as it was.

For every function, the reductions first (each inlines its elementwise epilogue), then the
blocks left:

- a reduction (dense, matmul, conv2d, pooling) is tiled as seed 002's shared-memory GEMM (the tuner's
  `gpu_tiling` with its decisions fixed by `Tiles`): each spatial loop is split into (block,
  thread, local), each reduce loop into (k0, k1). Of the tiles (thread up to the d-th root of
  `threads`, d the spatial loops longer than 1; local up to `local`, the innermost loop's
  first, all of a thread's together up to `outputs`; k1 up to `reduce`) that
  pad a loop by at most `waste` of its extent, a loop gets the one of fewest tiles, then least
  padding, then most threads: a tile need not divide the loop, so a prime extent (k = 997) gets
  a full tile, not its largest divisor (1). Where a tile does not divide its loop, pad-einsum
  first pads the loops to whole tiles (its padded inputs inlined into the shared fetches as
  zeros, the update unguarded, the write-back to the output guarded); where pad-einsum does
  not apply (a convolution's window, a max), the last tile is guarded instead. The block
  loops are fused onto blockIdx.x, the thread loops onto threadIdx.x; each thread accumulates
  its tile in a `local` buffer written back under the thread loop (a bias / relu epilogue
  inlined into the write-back), the operand tiles of one k0 step are fetched into `shared`
  memory by all threads together (where they fit in SHARED_BYTES and are more than one
  element), a 2-d tile read as [spatial, reduce] stored k-major where the thread computes
  several elements along that spatial loop (at a k step they are adjacent: vector loads, as
  the hand GEMM's A tile), the local loops unrolled and the k1 loops while the unrolled body
  stays within UNROLLED multiply-adds, the init decomposed out. The
  default tiles (256 threads, 8 x 8 a thread, k in steps of 8) are those of the hand GEMM,
  chosen on what ptxas shows (benchmarks/gpu_default_ptx.py): on a 1024 or a padded 1000x997
  matmul, 16 FFMA per shared load and no spills, as the hand GEMM (4 x 4 a thread: 8).
- a reduction the tiled schedule refuses gets the simple schedule: one thread per output
  element, the spatial loops fused and split by THREADS (the last block guarded), the reduce
  loops serial in the thread (softmax's rows: other blocks read their input too, and the
  fetch of an input to shared memory, cache-read, redirects every reader of it). Where
  lower-to-gpu refuses a function as tiled, the fallback is per kernel: each
  tiled reduction, in order, keeps the first of its candidate tiles (the tiles above, then the
  same with thread factors powers of two, which split its shared fetches evenly among the
  threads) with which the function lowers with it and the ones kept before it, and gets the
  simple schedule otherwise, with an XtirWarning naming its block and lower-to-gpu's reason
  with the first tiles. A reduction to one element (no spatial loop) is refused: no
  reduction across threads yet.
- an elementwise or injective block: its loops fused and split by THREADS (fewer when it
  has fewer elements), the last block guarded, bound to blockIdx.x / threadIdx.x.

Each step is applied through `xtir.Schedule` and checked like any user's. Functions whose loops
already carry a kind other than serial (scheduled by hand) and those named in `skip` are
left alone; `default_gpu_schedule(module, func_name)` gives the pipeline one function's
schedule is, `schedule_report(module)` applies the pass and says what each block got (a
`KernelChoice`: tiled with its tiles, one thread per output and why, or elementwise; a GPU
model's `schedule_report`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Container, Mapping
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from xtir.dialects.block import REDUCE, AllocOp, LoadOp, buffer_name
from xtir.dialects.layout import memory_space
from xtir.errors import ScheduleError, XtirError, XtirPassError, XtirWarning
from xtir.passes.analysis.navigation import all_blocks, select_function
from xtir.passes.analysis.regions import read_regions
from xtir.passes.default_schedule import Nest, loop_nest, schedule_functions
from xtir.schedule import BlockRV, LoopRV, Schedule
from xtir.support.locations import Diagnostic, op_location
from xtir.tune.spaces import auto_inline
from xtir.tune.spaces_gpu import bind_fused, bind_tiles, fetch_to_shared, int_root

THREADS = 256
"""Threads per block of an elementwise block or a reduction's simple schedule."""


@dataclass(frozen=True)
class Tiles:
    """The limits of a tiled reduction's tiles (benchmarks/gpu_default_ptx.py compares choices)."""

    threads: int = 256
    """The most threads per block."""
    local: int = 8
    """The most elements of one spatial loop a thread computes."""
    outputs: int = 64
    """The most elements a thread computes (its accumulators, in registers)."""
    reduce: int = 8
    """The most iterations of a reduce loop per shared tile (k1)."""
    waste: float = 1 / 8
    """The most a last tile past the loop's end (padded or guarded) may add to it, as a fraction of its extent."""
    power_of_two_threads: bool = False
    """Thread factors powers of two only: the threads then split the operand fetches evenly."""


TILES = Tiles()
UNROLLED = 512
"""The most multiply-adds of a tiled reduction's unrolled k1 and local loops (the hand GEMM's 8 x 8 x 8)."""

TILED = "tiled"
PER_OUTPUT = "one thread per output"
ELEMENTWISE = "elementwise"


@dataclass(frozen=True)
class KernelChoice:
    """What default-gpu-schedule gave one block of a function (a GpuModel's `schedule_report`)."""

    function: str
    block: str
    schedule: str
    """TILED, PER_OUTPUT or ELEMENTWISE."""
    detail: str
    """The tiles of a tiled reduction; why a reduction is not tiled; the threads of an elementwise block."""

    def __str__(self) -> str:
        return f'@{self.function} block "{self.block}": {self.schedule} ({self.detail})'


def _cost(extent: int, tile: int) -> tuple[int, int]:
    """(tiles, padding) of a loop split by `tile`, its last tile guarded."""
    tiles = -(-extent // tile)
    return tiles, tiles * tile - extent


def _spatial_tile(extent: int, threads: int, local: int, tiles: Tiles) -> tuple[int, int]:
    """(thread, local) factors of a spatial loop of a tiled reduction, up to `threads` and
    `local`: of the tiles padding the loop by at most `tiles.waste`, the one of fewest tiles,
    then least padding, then most threads. A tile need not divide the extent (its last one
    padded or guarded): a prime gets a full tile."""
    fits = [(t, lc) for t in range(1, threads + 1) for lc in range(1, local + 1)
            if _cost(extent, t * lc)[1] <= extent * tiles.waste and (not tiles.power_of_two_threads or t & (t - 1) == 0)]
    return min(fits, key=lambda f: (*_cost(extent, f[0] * f[1]), -f[0]))


def _reduce_tile(extent: int, tiles: Tiles) -> int:
    """k1 of a reduce loop, up to `tiles.reduce`: as a spatial tile, of fewest steps, then least
    padding (the k0 step past the extent guarded: a prime k is tiled too)."""
    return min((f for f in range(1, tiles.reduce + 1) if _cost(extent, f)[1] <= extent * tiles.waste),
               key=lambda f: _cost(extent, f))


def _elementwise(sch: Schedule, block: BlockRV, nest: Nest) -> str:
    threads = min(THREADS, math.prod(nest.extents))
    bind_fused(sch, sch.get_loops(block), threads)
    return f"{threads} threads a block"


def _per_output(sch: Schedule, block: BlockRV, nest: Nest) -> None:
    """One thread per output element; the reduce loops serial inside."""
    loops = sch.get_loops(block)
    if nest.reduce[0] < nest.spatial[-1]:
        sch.reorder(*[loops[k] for k in nest.spatial], *[loops[k] for k in nest.reduce])
    bind_fused(sch, [loops[k] for k in nest.spatial], min(THREADS, math.prod(nest.extents[k] for k in nest.spatial)))


def _tiled(sch: Schedule, block: BlockRV, nest: Nest, tiles: Tiles, pad: bool) -> str:
    """Block tile, thread tile in `local`, operand tiles in `shared` (see the module docstring);
    with `pad`, the loops padded to whole tiles first; the tiles, as the report says them."""
    loops = sch.get_loops(block)
    names = [sch.get(lp).label for lp in loops]
    per_dim = int_root(tiles.threads, max(1, sum(nest.extents[k] > 1 for k in nest.spatial)))
    factors = {}
    for k in reversed(nest.spatial):  # the innermost first: the thread's outputs up to tiles.outputs
        used = math.prod(factors[j][1] for j in factors)
        factors[k] = _spatial_tile(nest.extents[k], per_dim, min(tiles.local, tiles.outputs // used), tiles)
    factors |= {k: (_reduce_tile(nest.extents[k], tiles),) for k in nest.reduce}
    partial = [k for k in range(len(loops)) if nest.extents[k] % math.prod(factors[k])]
    padded = pad and bool(partial)  # the padding need not touch an input: a loop no input reads
    inputs = _pad(sch, block, [math.prod(factors[k]) for k in range(len(loops))]) if padded else []
    loops = sch.get_loops(block)
    grid, threads, local = [], [], []
    for k in nest.spatial:
        b, t, lc = sch.split(loops[k], [None, *factors[k]])
        grid.append(b)
        threads.append(t)
        local.append(lc)
    k0, k1 = zip(*[sch.split(loops[k], [None, *factors[k]]) for k in nest.reduce])
    thread = bind_tiles(sch, block, grid, threads, [*k0, *k1, *local])
    if padded:
        _inline_epilogue(sch, block)
    shared_input = _shared_input_error(sch, block)  # before cache-read renames the readers' buffers
    try:
        fetch_to_shared(sch, block, thread, k0[-1], [*k1, *local])
    except XtirPassError as e:
        if shared_input is None:
            raise
        raise shared_input from e
    _k_major(sch, block, {k for k in nest.spatial if factors[k][1] > 1})
    sch.decompose_reduction(block, k0[0])
    for producer in inputs:
        sch.compute_inline(producer)  # into its shared fetch: zeros outside the input
    _unroll(sch, local, k1)
    tail = " padded" if padded else " guarded"
    return ", ".join(f"{names[k]} {'x'.join(map(str, factors[k]))}{tail if k in partial else ''}" for k in range(len(loops)))


def _shared_input_error(sch: Schedule, block: BlockRV) -> ScheduleError | None:
    """Why the shared fetches fail where another block reads an input of `block` (softmax's rows:
    three blocks read them): cache-read redirects every reader of the input to the shared copy,
    which lives under this block's k0 loop only. None where no other block reads its inputs."""
    op = sch.get(block)
    others = [b for b in all_blocks(select_function(sch.mod, sch.func_name)) if b is not op]
    for buffer in dict.fromkeys(buffer_name(r.buffer) for r in read_regions(op)):
        readers = [b.label for b in others if buffer in {buffer_name(r.buffer) for r in read_regions(b)}]
        if readers:
            return ScheduleError(op, f"its input {buffer} is also read by block(s) {', '.join(readers)}, and the fetch "
                                 "of an input to shared memory (cache-read) redirects every reader of it")
    return None


def _unroll(sch: Schedule, local: list[LoopRV], k1: list[LoopRV]) -> None:
    """Unroll the thread tile's loops (its accumulators then live in registers, and the shared
    loads of a fragment merge into vectors), and the k1 loops, innermost first, while the
    unrolled body stays within UNROLLED multiply-adds."""
    body = math.prod(sch.get(loop).extent for loop in local)
    for loop in [*local, *reversed(k1)]:
        extent = sch.get(loop).extent
        if loop in k1:
            if body * extent > UNROLLED:
                return
            body *= extent
        if extent > 1:
            sch.unroll(loop)


def _k_major(sch: Schedule, block: BlockRV, wide: set[int]) -> None:
    """Store each shared operand tile the block reads as [spatial, reduce] k-major where the
    thread computes several elements along that spatial variable (its iteration variable's
    index in `wide`): at a k step they are adjacent, read as vectors (as the hand GEMM's A
    tile). With one element the k-last tile stays: the thread's k steps are adjacent there."""
    op = sch.get(block)
    variables = list(op.iter_vars)
    for load in [o for o in op.walk() if isinstance(o, LoadOp) and memory_space(o.buffer) == "shared"]:
        index = [e.as_var() for e in load.indices()]
        if (len(index) == 2 and index[0] in variables and variables.index(index[0]) in wide and index[1] in variables
                and op.kinds[variables.index(index[1])] == REDUCE):
            sch.transform_layout(block, buffer_name(load.buffer), (1, 0))


def _pad(sch: Schedule, block: BlockRV, tiles: list[int]) -> list[BlockRV]:
    """pad-einsum the block's loops to multiples of `tiles` (no partial tile: the update runs
    unguarded); the padded copies of its inputs, to inline into their fetches. Nothing where the
    tiles divide the loops; an XtirPassError where the block is no einsum pad-einsum takes (a
    convolution's window, a max)."""
    before = set(sch.block_names())
    sch.pad_einsum(block, tiles)
    added = [BlockRV(name) for name in sch.block_names() if name not in before]
    return [b for b in added if block.name in [c.name for c in sch.get_consumers(b)]]


def _inline_epilogue(sch: Schedule, block: BlockRV) -> None:
    """An elementwise epilogue (bias, relu) into the padded output's write-back: bind_tiles
    inlined the copy back to the output there, the epilogue reads that output."""
    for write_back in sch.get_consumers(block):
        inlined = True
        while inlined:
            inlined = False
            for consumer in sch.get_consumers(write_back):
                try:
                    sch.reverse_compute_inline(consumer)
                    inlined = True
                except XtirPassError:
                    pass  # not a pure elementwise read of the result: it stays a block of its own


def _lowering_error(module: ModuleOp, name: str) -> str | None:
    """Why lower-to-gpu refuses function `name` of `module` as scheduled (and as a GPU model
    builds it: its scratch buffers parameters); None when it takes it."""
    from xtir.build import lower_to_gpu  # the front door's: the schedule is checked as a build would lower it

    try:
        lower_to_gpu(ModuleOp([scratch_as_parameters(select_function(module, name))[0]]))
    except XtirError as e:
        return e.message
    return None


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


@dataclass
class _Attempt:
    """One function scheduled with some reductions tiled: the module, its pipeline, the choices."""

    function: str
    module: ModuleOp
    pipeline: str
    choices: list[KernelChoice]

    def tiled(self) -> list[str]:
        return [c.block for c in self.choices if c.schedule == TILED]


def _attempt(module: ModuleOp, func_name: str | None, plan: Mapping[str, Tiles | None], tiles: Tiles) -> _Attempt:
    """The function scheduled, every reduction tiled where the tiled schedule applies, with its
    tiles in `plan` (None: one thread per output, its tiled kernels do not lower) or `tiles`."""
    sch = Schedule(module, func_name=func_name)
    name = sch.func_name
    for label in sch.block_names():
        auto_inline(sch, BlockRV(label))
    blocks = {b.label: b for b in all_blocks(select_function(sch.mod, name))}
    nests = {label: loop_nest(b) for label, b in blocks.items()}
    reductions = [label for label, nest in nests.items() if nest is not None and nest.reduce]
    choices = []
    for label in reductions:
        sch, choice = _reduction(sch, label, nests[label], plan.get(label, tiles))  # type: ignore[arg-type]
        choices.append(choice)
    for label, nest in nests.items():
        if label in reductions or label not in sch.block_names():
            continue  # scheduled above, or inlined into a write-back
        if nest is None:
            raise ScheduleError(sch.get(BlockRV(label)), f"block \"{label}\" of @{name} is not in a fresh loop nest (one serial "
                                f"loop per iteration variable) and a kernel needs every loop nest bound; schedule @{name} "
                                "by hand (bind its loops)")
        choices.append(KernelChoice(name, label, ELEMENTWISE, _elementwise(sch, BlockRV(label), nest)))
    return _Attempt(name, sch.mod, str(sch.trace), choices)


def _schedule(module: ModuleOp, func_name: str | None, tiles: Tiles = TILES) -> _Attempt:
    """The module with one function scheduled, its pipeline and choices: the reductions tiled;
    where the function does not lower so, each reduction in order (with the choices kept before
    it) keeps the first of its candidate tiles with which the function lowers, else gets one
    thread per output."""
    first = _attempt(module, func_name, {}, tiles)
    name = first.function
    if not first.tiled() or (first_error := _lowering_error(first.module, name)) is None:
        return first
    plan: dict[str, Tiles | None] = dict.fromkeys(first.tiled())
    best = _attempt(module, func_name, plan, tiles)
    if _lowering_error(best.module, name) is not None:
        return first  # it does not lower with no reduction tiled either: the build says why
    candidates = _candidates(tiles)
    refused = {}
    for label in first.tiled():
        errors = []
        for candidate in candidates:
            trial_plan = plan | {label: candidate}
            if all(trial_plan[other] == tiles for other in trial_plan):  # the first attempt
                trial, error = first, first_error
            else:
                trial = _attempt(module, func_name, trial_plan, tiles)
                error = _lowering_error(trial.module, name)
            if error is None:
                plan, best = trial_plan, trial
                break
            errors.append(error)
        else:
            refused[label] = errors[0]  # the default tiles' reason
    for choice in best.choices:
        if choice.block in refused:
            _warn_untiled(select_function(module, name), choice, refused[choice.block])
    best.choices = [KernelChoice(c.function, c.block, c.schedule, f"its tiled kernel does not lower: {refused[c.block]}")
                    if c.block in refused else c for c in best.choices]
    return best


def _candidates(tiles: Tiles) -> list[Tiles]:
    """The tiles a reduction tries, in order, before one thread per output: with `tiles`, a
    thread count of no power of two (16 x 10 threads on a 128 x 10 output) guards the shared
    fetches, and lower-to-gpu may not fit a guarded fetch's tile in shared memory."""
    return [tiles, *([replace(tiles, power_of_two_threads=True)] if not tiles.power_of_two_threads else [])]


def _warn_untiled(f: func.FuncOp, choice: KernelChoice, error: str) -> None:
    block = next((b for b in all_blocks(f) if b.label == choice.block), f)
    message = (f'default-gpu-schedule: block "{choice.block}" of @{choice.function} gets one thread per output: its tiled '
               f"kernel does not lower ({error}); the function's other kernels keep their schedules")
    warnings.warn(str(Diagnostic("warning", message, op_location(block))), XtirWarning, stacklevel=2)


def _reduction(sch: Schedule, label: str, nest: Nest, tiles: Tiles | None) -> tuple[Schedule, KernelChoice]:
    """The reduction tiled (with `tiles`, where that applies), else one thread per output."""
    if not nest.spatial:
        raise ScheduleError(sch.get(BlockRV(label)), f"block \"{label}\" of @{sch.func_name} reduces to one element: it has no "
                            "spatial loop to bind to threads (a reduction across threads is not supported yet)")
    why = "its tiled kernel does not lower"
    if tiles is not None:
        for pad in (True, False):  # a guarded last tile where pad-einsum does not apply
            trial = sch.copy()
            try:
                return trial, KernelChoice(sch.func_name, label, TILED, _tiled(trial, BlockRV(label), nest, tiles, pad))
            except XtirPassError as e:
                why = f"the tiled schedule does not apply: {e.message}"
    _per_output(sch, BlockRV(label), nest)
    return sch, KernelChoice(sch.func_name, label, PER_OUTPUT, why)


def default_gpu_schedule(module: ModuleOp, func_name: str | None = None) -> str:
    """The default GPU schedule of one function, as the `xtir-opt -p` pipeline (with `func=`)
    that applies it."""
    return _schedule(module, func_name).pipeline


def schedule_report(module: ModuleOp, skip: Container[str] = (), tiles: Tiles = TILES) -> list[KernelChoice]:
    """Apply default-gpu-schedule to `module` in place (as the pass) and say what each block got."""
    report: list[KernelChoice] = []

    def schedule(op: ModuleOp, name: str) -> tuple[ModuleOp, str]:
        done = _schedule(op, name, tiles)
        report.extend(done.choices)
        return done.module, done.pipeline

    schedule_functions(module, skip, schedule)
    return report


@dataclass(frozen=True)
class DefaultGpuSchedulePass(ModulePass):
    """default-gpu-schedule{skip=f,g}: see the module docstring."""

    name = "default-gpu-schedule"

    skip: tuple[str, ...] = ()
    """Functions to leave unscheduled (scheduled elsewhere)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        schedule_report(op, self.skip)
