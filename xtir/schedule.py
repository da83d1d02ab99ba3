"""`xtir.Schedule`: TVM's `tvm.tir.Schedule` over xtir modules.

    sch = xtir.Schedule(xtir.parse_file("examples/matmul.mlir"))
    mm = sch.get_block("matmul")
    i, j, k = sch.get_loops(mm)
    i0, i1 = sch.split(i, factors=[None, 16])
    print(sch.trace)  # split{loop=i factors=-1,16}

Every primitive runs the registered pass of the same name (one implementation for
`xtir-opt -p` and Python): the Schedule builds the pass from its options, applies it to
a copy of the module through the pipeline driver (xtir/pipeline.py: apply, verify,
numerics) and only then adopts the copy. So a refused primitive leaves the schedule as it was, and
`sch.trace`, the passes written as pipeline text and joined by commas, replays the schedule exactly:
`xtir.transform(original, sch.trace)` prints as `sch.mod`.

Handles (BlockRV, LoopRV) denote the block or loop they were made for, as TVM's do: each
primitive carries them over to the new state (an op the primitive kept, or the op it rebuilt
in its place under the same name), and a handle whose block or loop the primitive removed
or replaced (the loop of a split, the loops of a fuse, an inlined block) is no longer valid:
using it is an XtirPassError naming that primitive. A handle denotes a block or loop of the
function it was made in: after `work_on` another function, using it is refused too. The trace
writes handles as names.
As in TVM, a primitive also takes a block by its name (`sch.compute_inline("B")`): the block
of that name in the scheduled function now.
"""

from __future__ import annotations

import copy
import functools
import inspect
import itertools
import math
import numbers
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from xtir.context import make_context
from xtir.dialects.block import REDUCE, SPATIAL, BlockOp, ForOp, buffer_name, enclosing_block
from xtir.dialects.walk import ancestors
from xtir.errors import ScheduleError, XtirError, XtirPassError, expect_module
from xtir.passes.analysis.navigation import (
    all_blocks,
    all_loops,
    blocks_under,
    child_blocks,
    functions,
    get_block,
    get_loop,
    get_loops,
    select_function,
)
from xtir.passes.analysis.regions import BufferRegion, read_regions, write_regions
from xtir.pipeline import build_pass, run_passes, spec_text
from xtir.support.errors import RENDER_LEVELS
from xtir.support.locations import SourceLocation, carry_source, clone_module, op_location, source_of
from xtir.tune.sampling import Decision, Sampler, dumps
from xtir.tune.state_cache import CachedState, StateCache, positions
from xtir.verify_numerics import NumericsChecker


class IRModule(ModuleOp):
    """`sch.mod`: a builtin.module with TVM's IRModule.show() and script().

    Only Python methods are added: it prints, parses back, verifies, clones and transforms
    as the ModuleOp it is (clones stay IRModules, so the schedule's states all show)."""

    @classmethod
    def of(cls, module: ModuleOp) -> IRModule:
        """A copy of `module` as an IRModule."""
        copied = module.clone()
        return carry_source(module, cls.create(attributes=copied.attributes, properties=copied.properties,
                                               location=copied.location, regions=[copied.detach_region(copied.body)]))

    def show(self, style: str = "mlir") -> None:
        """Print the module: as xtir IR with each block's T.reads / T.writes (as TVM's
        mod.show()), or with style="tvm" as TVMScript would (xtir.script)."""
        if style == "tvm":
            print(self.script(), end="")
            return
        if style != "mlir":
            raise XtirPassError(f'show: unknown style "{style}"; styles: mlir, tvm')
        shown = self.clone()
        run_passes(shown, [build_pass("test-block-regions", {})])
        print(shown)

    def __getitem__(self, name: str) -> IRModule:
        """The function called `name` (TVM's `mod["main"]`), as a module of its own (a copy) that
        shows, scripts, evaluates and builds as TVM's PrimFunc does."""
        return IRModule.of(ModuleOp([select_function(self, name).clone()]))

    def script(self) -> str:
        """The module as TVMScript-like text (xtir.script), as TVM's mod.script()."""
        from xtir.script import script

        return script(self)


@dataclass(frozen=True)
class BlockRV:
    """A block, by name (TVM's BlockRV)."""

    name: str
    id: int | None = field(default=None, compare=False)
    """Which block of its Schedule it denotes (None: the block of this name, when used)."""

    def __repr__(self) -> str:
        return f"BlockRV({self.name!r})"


SBlockRV = BlockRV
"""TVM 0.27's name of BlockRV."""


@dataclass(frozen=True)
class LoopRV:
    """A loop, by name (TVM's LoopRV).

    `block` is a block the loop enclosed when the handle was made: it tells apart loops
    that share a name (the copy loops `ax0` of several caches) as `BLOCK/LOOP`.
    """

    name: str
    block: str | None = None
    id: int | None = field(default=None, compare=False)
    """Which loop of its Schedule it denotes (None: the loop of this name, when used)."""

    def __repr__(self) -> str:
        where = f" above block {self.block!r}" if self.block is not None else ""
        return f"LoopRV({self.name!r}{where})"


INLINE_MARK = LoopRV("<inline mark>")
"""TVM's inline mark: the location sample_compute_location gives for decision -2; compute_at
(reverse_compute_at) inlines (reverse-inlines) the block there."""


class _HandleError(XtirPassError):
    """An argument that denotes no block or loop of the scheduled function now (a consumed handle,
    a handle of another function, a name where a handle is needed): located where that argument's
    op is or was, if known, and else nowhere, never at another argument."""


def _handle_types(annotation: Any) -> frozenset[type]:
    """Which of BlockRV and LoopRV a parameter's annotation takes (in unions and sequences too)."""
    if annotation in (BlockRV, LoopRV):
        return frozenset([annotation])
    return frozenset().union(*(_handle_types(arg) for arg in typing.get_args(annotation)))


def _primitive(method: Callable[..., Any]) -> Callable[..., Any]:
    """A schedule primitive: what it refuses is a ScheduleError headed with its name as TVM writes
    it ("An error occurred in the schedule primitive 'compute-at'."), rendered at the schedule's
    error_render_level, and located at the first block or loop it was given where the refusal is
    about no op (a bad argument), but nowhere when one of them denotes no block or loop now; a
    refusal of a block or loop argument itself (_HandleError) is located at that argument or nowhere."""
    name = method.__name__.replace("_", "-")
    signature = inspect.signature(method)
    hints = typing.get_type_hints(method)
    # the parameters that take blocks or loops (annotated with BlockRV / LoopRV), and which of them
    handles = {key: kinds for key in signature.parameters if (kinds := _handle_types(hints.get(key)))}

    @functools.wraps(method)
    def primitive(self: Schedule, *args: Any, **kwargs: Any) -> Any:
        given = signature.bind(self, *args, **kwargs).arguments
        try:
            return method(self, *args, **kwargs)
        except ScheduleError as e:
            error = e
        except _HandleError as e:  # about that argument: located at it or nowhere, not at the others
            raise self._refusal(ScheduleError(None, e.message, location=e.location), name, []) from None
        except XtirPassError as e:
            if e.notes:  # a pass left IR that does not verify: an xtir bug, told with its notes, not a refusal
                raise
            error = ScheduleError(None, e.message, location=e.location)
        raise self._refusal(error, name, [(given[key], kinds) for key, kinds in handles.items() if key in given])

    return primitive


def _check_block_or_loop(target: object) -> None:
    if not isinstance(target, BlockRV | LoopRV | str):
        raise XtirPassError(f"expected a block or loop handle (BlockRV or LoopRV) or a block name, got {target!r}")

class Schedule:
    """A schedule of one function of a module (TVM's tvm.tir.Schedule).

    `func_name` picks the function when the module has several. The module is copied;
    `sch.mod` is the current state. Each primitive replaces the state by a new module
    and never changes a module handed out before.

    With `verify_numerics`, every primitive is also checked to keep the function's
    results on random inputs (xtir.verify_numerics); one that changes them raises
    XtirNumericsError naming it, and the schedule stays as it was.

    With a `cache` (xtir/tune/state_cache.py, shared by the schedules of one module), a primitive
    that some schedule applied after the same primitives adopts the state it made then (not with
    `verify_numerics`, whose checks must run).
    """

    def __init__(self, module: ModuleOp, func_name: str | None = None, verify_numerics: bool = False,
                 seed: int | None = None, decisions: Sequence[Any] | None = None, cache: StateCache | None = None,
                 *, debug_mask: str | int = "none", error_render_level: str = "detail", enable_check: bool = True):
        # TVM's debug_mask and enable_check are taken, for TVM scripts, and change nothing: every state
        # is verified (debug_mask="all") and every primitive's legality checked (enable_check=False
        # cannot turn a check off).
        del debug_mask, enable_check
        if error_render_level not in RENDER_LEVELS:
            raise XtirPassError(f'error_render_level can be "detail", "fast", or "none", but got: {error_render_level}')
        self._render = error_render_level
        module = expect_module(module, "xtir.Schedule", XtirPassError)
        function = _function_of(module, func_name)
        self._mod = IRModule.of(module)
        self._func_name = func_name
        self._ctx = make_context()
        self._steps: list[str] = []
        # decompose_reduction renames its block B to B_update, which B's handles then mean (as in TVM).
        self._renamed: dict[str, str] = {}
        # What each handle made by this schedule (its id) denotes now, or which step consumed it.
        # Copies share the counter, so a handle's id means the same in a copy.
        self._ids = itertools.count()
        self._ops: dict[int, ForOp | BlockOp] = {}
        self._consumed: dict[int, tuple[str, SourceLocation | None]] = {}  # the step, where the op was
        self._numerics = NumericsChecker(self._mod, function.sym_name.data) if verify_numerics else None
        self._sampler = Sampler(seed, decisions)
        self._cache = None if verify_numerics else cache
        self._origin = cache.origin(self._mod) if self._cache is not None else ""
        # The cached state self._mod is (shared: never modified, copied before it is handed out), or None.
        self._state: CachedState | None = None
        # sample_compute_location's candidates: (the state, the block, its candidates) last asked for.
        self._locations: tuple[ModuleOp, BlockOp, tuple[list[int], BlockOp | None]] | None = None

    # state -------------------------------------------------------------------------------
    @property
    def mod(self) -> IRModule:
        """The current module (with TVM's `sch.mod.show()`). Do not modify it; the schedule's
        next step starts from it (and, as its holder might modify it, stores nothing in a cache)."""
        self.detach()
        return self._mod

    def detach(self) -> None:
        """Leave the state cache: the current state becomes this schedule's own, and later steps
        store nothing in the cache (nor keep its states alive)."""
        self._own()
        self._cache = None

    @property
    def trace(self) -> Trace:
        """The primitives applied so far as an `xtir-opt -p` pipeline (empty when none)."""
        return Trace(self._steps)

    def show(self, style: str = "mlir") -> None:
        """Print the current module, as `sch.mod.show()` does (IRModule.show)."""
        self._mod.show(style)

    def copy(self) -> Schedule:
        """An independent schedule in the same state; this schedule's handles work on it too."""
        other = copy.copy(self)
        other._mod = clone_module(self._mod)
        other._ops = _carried(self._ops, self._mod, other._mod)
        other._state = None
        other._consumed = dict(self._consumed)
        other._steps = list(self._steps)
        other._renamed = dict(self._renamed)
        other._sampler = copy.deepcopy(self._sampler)
        return other

    def work_on(self, func_name: str) -> None:
        """Schedule the function `func_name` from now on (TVM's work_on)."""
        _function_of(self._mod, func_name)
        self._func_name = func_name

    def __str__(self) -> str:
        return str(self._mod)

    # handles -----------------------------------------------------------------------------
    @_primitive
    def get_block(self, name: str, func_name: str | None = None) -> BlockRV:
        """The block called `name` in the scheduled function, or in `func_name`."""
        function = self._function() if func_name is None else _function_of(self._mod, func_name)
        return self._block_rv(get_block(function, name))

    get_sblock = get_block  # TVM 0.27's name (its blocks became SBlocks)

    @_primitive
    def get_loops(self, block: BlockRV | str) -> list[LoopRV]:
        """The loops above the block (a handle or a block name) in its scope, outermost first."""
        return [self._loop_rv(loop) for loop in get_loops(self._block(block))]

    @_primitive
    def get_child_blocks(self, block_or_loop: BlockRV | LoopRV | str) -> list[BlockRV]:
        """The blocks directly under a block or loop (not nested in other blocks)."""
        _check_block_or_loop(block_or_loop)
        parent = self._loop(block_or_loop) if isinstance(block_or_loop, LoopRV) else self._block(block_or_loop)
        return [self._block_rv(b) for b in child_blocks(parent)]

    @_primitive
    def get_producers(self, block: BlockRV | str) -> list[BlockRV]:
        """Blocks of the same scope, before this one, that write a buffer it reads or writes
        (TVM's read-after-write and write-after-write dependences)."""
        target = self._block(block)
        touched = _buffers(read_regions(target)) | _buffers(write_regions(target))
        scope = self._scope_blocks(target)
        before = scope[: scope.index(target)]
        return [self._block_rv(b) for b in before if _buffers(write_regions(b)) & touched]

    @_primitive
    def get_consumers(self, block: BlockRV | str) -> list[BlockRV]:
        """Blocks of the same scope, after this one, that read or write a buffer it writes."""
        return [self._block_rv(b) for b in self._consumers(self._block(block))]

    # loop transformations ------------------------------------------------------------------
    @_primitive
    def split(self, loop: LoopRV, factors: Sequence[int | None], preserve_unit_iters: bool = True,
              disable_predication: bool = False) -> list[LoopRV]:
        """Split into len(factors) loops, outermost first; one factor may be None (inferred).

        TVM's options are taken at their defaults only: unit loops stay in the bindings, and a
        factor that does not divide the extent adds a block predicate."""
        _only_default("split", "preserve_unit_iters", preserve_unit_iters, True)
        _only_default("split", "disable_predication", disable_predication, False)
        if isinstance(factors, str | bytes) or not isinstance(factors, Sequence):
            raise XtirPassError(f"split: factors must be a list such as [None, 16], got {type(factors).__name__}")
        factors = tuple(-1 if f is None else f for f in factors)
        loops = self._apply("split", {"loop": self._loop_handle(loop), "factors": factors})
        return [self._loop_rv(lp) for lp in loops]

    @_primitive
    def fuse(self, *loops: LoopRV, preserve_unit_iters: bool = True) -> LoopRV:
        _only_default("fuse", "preserve_unit_iters", preserve_unit_iters, True)
        fused = self._apply("fuse", {"loops": self._loop_handles("fuse", loops)})
        return self._loop_rv(fused)

    @_primitive
    def reorder(self, *ordered_loops: LoopRV) -> None:
        self._apply("reorder", {"loops": self._loop_handles("reorder", ordered_loops)})

    @_primitive
    def parallel(self, loop: LoopRV) -> None:
        self._apply("parallel", {"loop": self._loop_handle(loop)})

    @_primitive
    def vectorize(self, loop: LoopRV) -> None:
        self._apply("vectorize", {"loop": self._loop_handle(loop)})

    @_primitive
    def unroll(self, loop: LoopRV) -> None:
        self._apply("unroll", {"loop": self._loop_handle(loop)})

    @_primitive
    def bind(self, loop: LoopRV, thread_axis: str) -> None:
        self._apply("bind", {"loop": self._loop_handle(loop), "thread": thread_axis})

    @_primitive
    def double_buffer(self, block: BlockRV | str) -> None:
        """Give the shared tile this block fetches two halves, the next tile fetched while this
        one is computed on (TVM's double_buffer; applied by lower-to-gpu)."""
        self._apply("double-buffer", {"block": self._block_handle(block)})

    @_primitive
    def storage_align(self, block: BlockRV | str, buffer_index: int | str, axis: int, factor: int, offset: int) -> None:
        """Pad the block's buffer_index-th written buffer (or the one of that name) so that the
        stride of dimension `axis` is `factor * k + offset` (TVM's storage_align; a negative axis
        counts from the last dimension). The buffer must be allocated in the function."""
        index = self._buffer_index("storage_align", block, buffer_index, "write")
        self._apply("storage-align", {"block": self._block_handle(block), "index": index, "axis": axis,
                                      "factor": factor, "offset": offset})

    @_primitive
    def set_scope(self, block: BlockRV | str, buffer_index: int | str, storage_scope: str) -> None:
        """Store the block's buffer_index-th written buffer (or the one of that name) in
        `storage_scope` ("global", "shared", "local" or "warp", optionally tagged; TVM's set_scope). The
        buffer must be allocated in the function."""
        index = self._buffer_index("set_scope", block, buffer_index, "write")
        self._apply("set-scope", {"block": self._block_handle(block), "index": index, "scope": storage_scope})

    @_primitive
    def annotate(self, block_or_loop: BlockRV | LoopRV | str, ann_key: str, ann_val: int | bool | str) -> None:
        self._apply("annotate", {**self._target(block_or_loop), "key": ann_key, "value": ann_val})

    @_primitive
    def tensorize(self, block_or_loop: BlockRV | LoopRV | str, tensor_intrin: str,
                  preserve_unit_iters: bool = True) -> None:
        """Compute the block (or the loop's subtree, blockized first) with a registered tensor intrinsic."""
        _only_default("tensorize", "preserve_unit_iters", preserve_unit_iters, True)
        self._apply("tensorize", {**self._target(block_or_loop), "intrin": tensor_intrin})

    # block transformations -----------------------------------------------------------------
    @_primitive
    def blockize(self, target: LoopRV, preserve_unit_iters: bool = True) -> BlockRV:
        """Make the subtree at the loop `target` a new outer block; return it (TVM's blockize of a loop)."""
        _only_default("blockize", "preserve_unit_iters", preserve_unit_iters, True)
        outer = self._apply("blockize", {"loop": self._loop_handle(target)})
        return self._block_rv(outer)

    @_primitive
    def cache_read(self, block: BlockRV | str, read_buffer_index: int | str, storage_scope: str,
                   consumer_blocks: Sequence[BlockRV | str] | None = None) -> BlockRV:
        """Read the block's read_buffer_index-th read buffer (or the one of that name) through a
        cache; return the copy block.

        The consumers that read the cache are `consumer_blocks`, or every reader in the block's scope."""
        index = self._buffer_index("cache_read", block, read_buffer_index, "read")
        options: dict[str, Any] = {"block": self._block_handle(block), "index": index, "scope": storage_scope}
        return self._block_rv(self._apply("cache-read", self._with_consumers(options, consumer_blocks)))

    @_primitive
    def cache_write(self, block: BlockRV | str, write_buffer_index: int | str, storage_scope: str,
                    consumer_blocks: Sequence[BlockRV | str] | None = None) -> BlockRV:
        """Write the block's write_buffer_index-th written buffer (or the one of that name) through a
        cache; return the write-back block.

        The `consumer_blocks` read the cache; the write-back then runs before any other access."""
        index = self._buffer_index("cache_write", block, write_buffer_index, "write")
        options: dict[str, Any] = {"block": self._block_handle(block), "index": index, "scope": storage_scope}
        return self._block_rv(self._apply("cache-write", self._with_consumers(options, consumer_blocks)))

    @_primitive
    def transform_layout(self, block: BlockRV | str, buffer: tuple[str, int] | str,
                         index_map: Sequence[int] | Callable[..., Sequence[Any]]) -> None:
        """Store a buffer the block reads or writes with its dimensions permuted (TVM's transform_layout).

        `buffer` is `("read", k)` / `("write", k)` (the block's k-th read or written buffer) or a
        buffer name; `index_map` maps the old indices to the new ones, `lambda i, j: (j, i)`, or is
        the permutation itself, `(1, 0)`. Only permutations are supported, of allocated buffers."""
        name = buffer if isinstance(buffer, str) else self._buffer_of(block, *buffer)
        permutation = _permutation(index_map) if callable(index_map) else tuple(index_map)
        self._apply("transform-layout", {"buffer": name, "permutation": permutation})

    @_primitive
    def pad_einsum(self, block: BlockRV | str, padding: Sequence[int]) -> None:
        """Pad the einsum block's iteration domain to multiples of `padding` (one per iteration
        variable) through padded copies of its buffers, `A_pad` and `C_pad` (TVM's pad_einsum)."""
        if isinstance(padding, str | bytes) or not isinstance(padding, Sequence):
            raise XtirPassError(f"pad_einsum: padding must be a list such as [16, 16, 8], got {type(padding).__name__}")
        self._apply("pad-einsum", {"block": self._block_handle(block), "padding": tuple(padding)})

    @_primitive
    def decompose_reduction(self, block: BlockRV | str, loop: LoopRV) -> BlockRV:
        """Split the block's init into a block before `loop`; return the init block.

        The block becomes `<name>_update`; `block` (and other handles of it) keep naming it.
        """
        old = self._block_handle(block)
        init, update = self._apply("decompose-reduction", {"block": old, "loop": self._loop_handle(loop)})
        self._renamed[old] = update.label
        return self._block_rv(init)

    @_primitive
    def compute_at(self, block: BlockRV | str, loop: LoopRV | None, preserve_unit_loops: bool = False,
                   index: int = -1) -> None:
        """Move the block under `loop`; a location sample_compute_location gave is taken as TVM takes
        its marks: None (the root mark) leaves the block where it is, INLINE_MARK inlines it."""
        _only_default("compute_at", "index", index, -1)
        if not self._at_mark(block, loop, "compute-inline"):
            self._apply("compute-at", self._at_options(block, loop, preserve_unit_loops))

    @_primitive
    def reverse_compute_at(self, block: BlockRV | str, loop: LoopRV | None, preserve_unit_loops: bool = False,
                           index: int = -1) -> None:
        """Move the block under `loop`; None leaves it where it is, INLINE_MARK reverse-inlines it."""
        _only_default("reverse_compute_at", "index", index, -1)
        if not self._at_mark(block, loop, "reverse-compute-inline"):
            self._apply("reverse-compute-at", self._at_options(block, loop, preserve_unit_loops))

    @_primitive
    def fuse_reduction_epilogue(self, reduction: BlockRV | str, epilogue: BlockRV | str, mode: str | None = None) -> BlockRV:
        """Fold `epilogue` (D = temp + C) into `reduction`'s init and update; return the fused block.

        mode="per-iteration" also folds non-linear epilogues as TVM does, which changes the numbers."""
        options = {"block": self._block_handle(reduction), "epilogue": self._block_handle(epilogue), "mode": mode}
        return self._block_rv(self._apply("fuse-reduction-epilogue", options))

    @_primitive
    def compute_inline(self, block: BlockRV | str) -> None:
        self._apply("compute-inline", {"block": self._block_handle(block)})

    @_primitive
    def reverse_compute_inline(self, block: BlockRV | str) -> None:
        self._apply("reverse-compute-inline", {"block": self._block_handle(block)})

    # sampling (xtir/tune/sampling.py): `seed` makes a schedule reproducible; `decisions`, the
    # values of an earlier run's decision_trace (None: sample anew), replay or mutate it ------
    # `decision=` (TVM's) makes the given decision instead, recorded as a sampled one: a perfect
    # tile's factors, a candidate's index, a location's index (-1: none).
    @_primitive
    def sample_perfect_tile(self, loop: LoopRV, n: int, max_innermost_factor: int = 16,
                            decision: Sequence[int] | None = None) -> list[int]:
        """n factors whose product is the loop's extent (for `split`), the innermost at most max_innermost_factor."""
        op = self._loop(loop)
        if decision is not None:
            decision = _checked_tiling(op, n, decision)
        return self._sampler.perfect_tile(loop.name, op.extent, n, max_innermost_factor, decision)

    @_primitive
    def sample_categorical(self, candidates: Sequence[Any], probs: Sequence[float] | None = None,
                           decision: int | None = None) -> Any:
        if decision is not None:
            _check_index("sample_categorical", decision, len(candidates), f"candidates {list(candidates)!r}")
        return candidates[self._sampler.categorical(repr(list(candidates)), len(candidates), probs, decision)]

    @_primitive
    def sample_compute_location(self, block: BlockRV | str, decision: int | None = None) -> LoopRV | None:
        """Where to compute the block, among TVM's candidates, each as likely: INLINE_MARK (decision
        -2) when compute_inline takes the block; None (-1), where it is; a loop above its first
        consumer (its index among them) that compute_at takes it under, as TVM picks those loops
        (see _compute_locations). compute_at(block, location) then applies it."""
        target = self._block(block)
        candidates, consumer = self._compute_locations(target)
        loops = get_loops(consumer) if consumer is not None else []
        if decision is not None and (not _is_integer(decision) or decision not in candidates):
            names = [lp.label for lp in loops]
            listed = ", ".join({-2: "-2 (inline)", -1: "-1 (where it is)"}.get(k) or f"{k} (loop {names[k]})"
                               for k in candidates)
            why = ("it is none of the candidates" if _is_integer(decision)
                   else "it is not an int, the index of one of the candidates")
            raise ScheduleError(target, f"sample_compute_location: wrong decision value {decision!r}: {why} "
                                        f'of block "{target.label}": {listed}')
        k = self._sampler.compute_location(target.label, candidates, None if decision is None else int(decision))
        return INLINE_MARK if k == -2 else None if k == -1 else self._loop_rv(loops[k])

    @property
    def decisions(self) -> list[Decision]:
        return list(self._sampler.decisions)

    def decision_trace(self) -> str:
        """The decisions sampled so far and the pipeline they gave, as JSON (xtir.tune.sampling.loads reads it)."""
        return dumps(self._sampler.decisions, self.trace)

    @property
    def func_name(self) -> str:
        """The name of the function this schedule schedules."""
        return self._function().sym_name.data

    def block_names(self) -> list[str]:
        """The names of the scheduled function's blocks, in program order."""
        return [b.label for b in all_blocks(self._function())]

    def get(self, rv: BlockRV | LoopRV | int) -> BlockOp | ForOp | int:
        """The block's or loop's op in the current state (read it, do not modify it: with a cache,
        the state may be shared by other schedules). A sampled int (TVM's ExprRV, whose value
        TVM's `get` gives) is its own value."""
        if isinstance(rv, int):
            return rv
        return self._block(rv) if isinstance(rv, BlockRV) else self._loop(rv)

    # internals -----------------------------------------------------------------------------
    def _apply(self, pass_name: str, options: dict[str, Any]) -> Any:
        """Run one primitive on a copy; adopt the copy only if the pass succeeds and it verifies
        (or adopt the state the cache holds for it). Return what the primitive made (in the new state)."""
        primitive = build_pass(pass_name, {**options, "func": self._func_name})
        text = spec_text(primitive)
        key = (self._origin, *self._steps, text)
        if self._cache is not None and (state := self._cache.get(key)) is not None:
            return self._resume(state, text)
        before = list(self._mod.walk())
        module = clone_module(self._mod)
        existing = list(module.walk())  # held, so that no op made by the pass reuses an id of these
        (result,) = run_passes(module, [primitive], ctx=self._ctx, numerics=self._numerics,
                               where="primitive {k} of the schedule", first=len(self._steps) + 1)
        # where the handles' ops went; with a cache, every loop's and block's (any may be a handle later)
        wanted = range(len(existing)) if self._cache is not None else self._positions().values()
        marked = {k: existing[k] for k in wanted if isinstance(existing[k], ForOp | BlockOp)}
        state = CachedState(module, result, _successors(marked, before, {id(op) for op in existing}, module))
        if self._cache is None:
            return self._resume(state, text, shared=False)
        self._cache.put(key, state)
        return self._resume(state, text)

    def _positions(self) -> dict[int, int]:
        """Where each handle's op is in the current module (its position in walk order)."""
        where = self._state.positions() if self._state is not None else positions(self._mod)
        return {h: where[id(op)] for h, op in self._ops.items()}

    def _resume(self, state: CachedState, step: str, shared: bool = True) -> Any:
        """Adopt `state`, the state after primitive `step` from the current one: each handle then
        denotes its op's successor, or is consumed by `step`."""
        self._steps.append(step)
        consumer = f"{step} (primitive {len(self._steps)} of the schedule)"
        ops = {}
        for h, k in self._positions().items():
            if (new := state.successors.get(k)) is not None:
                ops[h] = new
            else:
                self._consumed[h] = (consumer, op_location(self._ops[h]))
        self._mod, self._ops, self._state = state.module, ops, state if shared else None
        return state.result

    def _own(self) -> None:
        """Make the current state this schedule's own copy, if it is a cached one (before handing it out)."""
        if self._state is not None:
            module = clone_module(self._mod)
            self._mod, self._ops, self._state = module, _carried(self._ops, self._mod, module), None

    def _at_mark(self, block: BlockRV | str, loop: LoopRV | None, inline: str) -> bool:
        """Whether `loop` is one of TVM's marks, applied here: None leaves the block where it is,
        INLINE_MARK runs the pass `inline` on it."""
        if loop is None:
            self._block(block)  # still a block of the schedule
            return True
        if loop == INLINE_MARK:
            self._apply(inline, {"block": self._block_handle(block)})
            return True
        return False

    def _consumers(self, target: BlockOp) -> list[BlockOp]:
        """Blocks of `target`'s scope, after it, that read or write a buffer it writes."""
        written = _buffers(write_regions(target))
        scope = self._scope_blocks(target)
        after = scope[scope.index(target) + 1 :]
        return [b for b in after if (_buffers(read_regions(b)) | _buffers(write_regions(b))) & written]

    def _compute_locations(self, target: BlockOp) -> tuple[list[int], BlockOp | None]:
        """TVM's candidate locations of `target` (CollectComputeLocation): -2 when compute_inline takes
        it, -1, and the index of each loop above its first consumer, down to the innermost loop
        around all consumers, that compute_at (keeping unit loops) takes it under, except unit loops,
        the spatial loops after a reduction loop and the reduction loops after the last spatial one.
        Also the first consumer, if any. The same state asks once."""
        if self._locations is not None and self._locations[0] is self._mod and self._locations[1] is target:
            return self._locations[2]
        candidates = [-2] if self._takes("compute-inline", {"block": target.label}) else []
        candidates.append(-1)
        consumers = self._consumers(target)
        boundary = _common_ancestor(consumers) if consumers else None
        loops = get_loops(consumers[0]) if consumers else []
        if isinstance(boundary, ForOp) and any(lp is boundary for lp in loops):
            loops = loops[: next(k for k, lp in enumerate(loops) if lp is boundary) + 1]
            kinds = [_loop_kind(lp) for lp in loops]
            last_spatial = max((k for k, kind in enumerate(kinds) if kind == SPATIAL), default=-1)
            seen_other = False
            for k, (lp, kind) in enumerate(zip(loops, kinds, strict=True)):
                if lp.extent == 1:
                    continue
                if kind == SPATIAL and seen_other or kind != SPATIAL and k > last_spatial:
                    break
                seen_other = seen_other or kind != SPATIAL
                at = {"block": target.label, "loop": _loop_text(lp, self._function()), "preserve_unit_loops": True}
                if self._takes("compute-at", at):
                    candidates.append(k)
        self._locations = (self._mod, target, (candidates, consumers[0] if consumers else None))
        return self._locations[2]

    def _takes(self, pass_name: str, options: dict[str, Any]) -> bool:
        """Whether the primitive `pass_name` takes the current state (tried on a copy)."""
        try:
            run_passes(clone_module(self._mod), [build_pass(pass_name, {**options, "func": self._func_name})],
                       ctx=self._ctx)
        except ScheduleError:
            return False
        return True

    def _refusal(self, error: ScheduleError, primitive: str, given: Sequence[tuple[Any, frozenset[type]]]) -> ScheduleError:
        """`error` as the refusal of `primitive`, which was given the block and loop arguments `given`
        (each with the handle types its parameter takes)."""
        source, line_offset = source_of(self._mod)
        fallback = self._given_location(given) if error.op is None and error.location is None else None
        return error.in_primitive(primitive, self._render, source, line_offset, fallback)

    def _given_location(self, given: Sequence[tuple[Any, frozenset[type]]]) -> SourceLocation | None:
        """Where the first block or loop among the arguments `given` (lists of them included) is in
        the source; None when one of them denotes no block or loop now (the refusal may be about it)."""
        ops = []
        for arg, kinds in given:
            for item in arg if isinstance(arg, list | tuple) else [arg]:
                if item is None or item == INLINE_MARK:  # compute_at's marks, no op
                    continue
                try:
                    op = self._given_op(item, kinds)
                except XtirError:
                    op = None
                if op is None:
                    return None
                ops.append(op)
        return next((location for op in ops if (location := op_location(op)) is not None), None)

    def _given_op(self, item: object, kinds: frozenset[type]) -> ForOp | BlockOp | None:
        """The op an argument of a parameter taking `kinds` denotes: a handle's, or the block (the
        loop, where only loops are taken) a name names; None for an argument of another type."""
        if isinstance(item, LoopRV) and LoopRV in kinds:
            return self._loop(item)
        if isinstance(item, BlockRV | str) and BlockRV in kinds:
            return self._block(item)
        if isinstance(item, str):
            return get_loop(self._function(), item)
        return None

    def _buffer_of(self, block: BlockRV | str, kind: str, index: int) -> str:
        regions = {"read": read_regions, "write": write_regions}.get(kind)
        if regions is None:
            raise XtirPassError(f'transform_layout: buffer must be ("read", index), ("write", index) or a name, got "{kind}"')
        found = regions(self._block(block))
        if not 0 <= index < len(found):
            raise XtirPassError(f'transform_layout: block "{self._block_handle(block)}" has {len(found)} {kind} buffers; '
                                f"index {index} is out of range")
        return buffer_name(found[index].buffer)

    def _block_rv(self, block: BlockOp) -> BlockRV:
        h = next(self._ids)
        self._ops[h] = block
        return BlockRV(block.label, h)

    def _loop_rv(self, loop: ForOp) -> LoopRV:
        h = next(self._ids)
        self._ops[h] = loop
        blocks = blocks_under(loop)
        return LoopRV(loop.label, blocks[0].label if blocks else None, h)

    def _denoted(self, handle: BlockRV | LoopRV) -> ForOp | BlockOp | None:
        """The op a handle of this schedule denotes; None for a handle made by hand (a name)."""
        if handle.id in self._consumed:
            step, location = self._consumed[handle.id]
            raise _HandleError(
                f"{handle!r} is no longer valid: its {_kind(handle)} was removed or replaced by {step}; "
                "use the handles that primitive returned, or get_block/get_loops again", location=location
            )
        op = self._ops.get(handle.id) if handle.id is not None else None
        function = self._function()
        if op is not None and not function.is_ancestor(op):
            owner = next(p for p in ancestors(op) if isinstance(p, func.FuncOp)).sym_name.data
            raise _HandleError(f'{handle!r} is a {_kind(handle)} of function "{owner}", but the schedule works on '
                               f'"{function.sym_name.data}" now; use it after sch.work_on("{owner}"), or get a handle '
                               f'of the {_kind(handle)} of "{function.sym_name.data}"', location=op_location(op))
        return op

    def _buffer_index(self, primitive: str, block: BlockRV | str, index: int | str, what: str) -> int:
        """A buffer index as TVM takes it: an int, or the name of one of the block's read (write) buffers."""
        if isinstance(index, int) and not isinstance(index, bool):
            return index
        if not isinstance(index, str):
            raise XtirPassError(f"{primitive}: {what}_buffer_index must be an int or a buffer name, got {index!r}")
        target = self._block(block)
        names = [buffer_name(r.buffer) for r in (read_regions if what == "read" else write_regions)(target)]
        if index not in names:
            raise XtirPassError(f'{primitive}: block "{target.label}" {what}s no buffer named "{index}"; '
                                f"it {what}s {', '.join(names) or 'none'}")
        return names.index(index)

    def _with_consumers(self, options: dict[str, Any], consumer_blocks: Sequence[BlockRV | str] | None) -> dict[str, Any]:
        """A cache primitive's options with TVM's consumer_blocks (none given: the default, left out)."""
        if not consumer_blocks:
            return options
        return {**options, "consumers": tuple(self._block_handle(b) for b in consumer_blocks)}

    def _at_options(self, block: BlockRV | str, loop: LoopRV, preserve_unit_loops: bool) -> dict[str, Any]:
        return {
            "block": self._block_handle(block),
            "loop": self._loop_handle(loop),
            "preserve_unit_loops": preserve_unit_loops or None,  # the default is left out of the trace
        }

    def _target(self, block_or_loop: BlockRV | LoopRV | str) -> dict[str, str]:
        _check_block_or_loop(block_or_loop)
        if isinstance(block_or_loop, LoopRV):
            return {"loop": self._loop_handle(block_or_loop)}
        return {"block": self._block_handle(block_or_loop)}

    def _function(self) -> func.FuncOp:
        return _function_of(self._mod, self._func_name)

    def _block_handle(self, block: BlockRV | str) -> str:
        """The block's current name: its own, or what decompose_reduction renamed it to."""
        block = self._named(block)
        if (op := self._denoted(block)) is not None:
            return op.label
        return self._renaming(block.name, {b.label for b in all_blocks(self._function())})

    def _renaming(self, name: str, names: set[str]) -> str:
        """What decompose_reduction renamed the block `name` to, if it is none of `names` now."""
        while name not in names and name in self._renamed:
            name = self._renamed[name]
        return name

    def _loop_handle(self, loop: LoopRV) -> str:
        """The loop's name when it is unique in the function, else `BLOCK/LOOP`."""
        if not isinstance(loop, LoopRV):
            hint = " (sch.get_loops(block) gives them)" if isinstance(loop, str) else ""
            raise _HandleError(f"expected a loop handle (LoopRV), got {loop!r}{hint}")
        if (op := self._denoted(loop)) is not None:
            return _loop_text(op, self._function())
        namesakes = [lp for lp in all_loops(self._function()) if lp.label == loop.name]
        if len(namesakes) <= 1 or loop.block is None:
            return loop.name
        return f"{self._block_handle(BlockRV(loop.block))}/{loop.name}"

    def _loop_handles(self, primitive: str, loops: Sequence[LoopRV]) -> tuple[str, ...]:
        if not loops:
            raise XtirPassError(f"{primitive}: no loops given")
        return tuple(self._loop_handle(lp) for lp in loops)

    def _block(self, block: BlockRV | str) -> BlockOp:
        block = self._named(block)
        op = self._denoted(block)
        return op if isinstance(op, BlockOp) else get_block(self._function(), self._block_handle(block))

    def _named(self, block: BlockRV | str) -> BlockRV:
        """A block handle, or the handle of the block a name names (as TVM's primitives take
        `Union[BlockRV, str]`): the one block of the scheduled function with that name now."""
        if isinstance(block, BlockRV):
            return block
        if not isinstance(block, str):
            raise _HandleError(f"expected a block handle (BlockRV) or a block name, got {block!r}")
        function = self._function()
        names = {b.label for b in all_blocks(function)}
        if (renamed := self._renaming(block, names)) != block and renamed in names:
            raise XtirPassError(f'no block named "{block}": decompose_reduction renamed it "{renamed}" '
                                f"(a handle of it, sch.get_block({block!r}) taken before, follows the renaming)")
        return BlockRV(get_block(function, block).label)

    def _loop(self, loop: LoopRV) -> ForOp:
        op = self._denoted(loop) if isinstance(loop, LoopRV) else None
        return op if isinstance(op, ForOp) else get_loop(self._function(), self._loop_handle(loop))

    def _scope_blocks(self, block: BlockOp) -> list[BlockOp]:
        """The blocks in `block`'s scope (same enclosing block), in program order."""
        scope = enclosing_block(block)
        return [b for b in all_blocks(self._function()) if enclosing_block(b) is scope]



class Trace(str):
    """`sch.trace`: the schedule as `xtir-opt -p` pipeline text (a str), with TVM's `show()`."""

    steps: tuple[str, ...]

    def __new__(cls, steps: Sequence[str]) -> Trace:
        trace = super().__new__(cls, ",".join(steps))
        trace.steps = tuple(steps)
        return trace

    def show(self) -> None:
        """Print the primitives, one a line."""
        print("\n".join(self.steps))

    def __reduce__(self) -> tuple[type[Trace], tuple[tuple[str, ...]]]:
        return Trace, (self.steps,)  # pickle's default calls Trace(text), which takes steps


def _kind(handle: BlockRV | LoopRV) -> str:
    return "block" if isinstance(handle, BlockRV) else "loop"


def _only_default(primitive: str, option: str, value: object, default: object) -> None:
    """Refuse a TVM option that xtir has only at TVM's default value (which is what xtir does)."""
    if value != default:
        raise XtirPassError(f"{primitive}: {option}={value!r} is not supported; xtir does what TVM does "
                            f"with {option}={default!r}, its default")


def _checked_tiling(loop: ForOp, n: int, decision: Sequence[int]) -> list[int]:
    """`decision` as sample_perfect_tile's factors of `loop`: n positive ints whose product is its extent."""
    factors = list(decision) if isinstance(decision, Sequence) and not isinstance(decision, str) else None
    if factors is None or len(factors) != n or not all(_is_integer(f) and f >= 1 for f in factors):
        raise ScheduleError(loop, f'sample_perfect_tile: decision {decision!r} is not {n} positive factors of loop '
                                  f'"{loop.label}"')
    factors = [int(f) for f in factors]  # numpy ints (a decision computed with numpy) become Python ints
    if math.prod(factors) != loop.extent:
        raise ScheduleError(loop, f'sample_perfect_tile: the factors {factors} of decision multiply to '
                                  f'{math.prod(factors)}, not to the extent {loop.extent} of loop "{loop.label}"')
    return factors


def _is_integer(value: object) -> bool:
    """An int, numpy's included; not a bool (TVM's decisions are ints, and True is no factor)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_index(primitive: str, decision: object, count: int, among: str, op: Operation | None = None) -> None:
    """A decision that picks one of `count` things, `among` (TVM: "Wrong decision value")."""
    if not isinstance(decision, int) or isinstance(decision, bool) or not 0 <= decision < count:
        raise ScheduleError(op, f"{primitive}: wrong decision value, where n = {count}, but decision is: {decision!r} "
                                f"(an index among the {among})")


def _function_of(module: ModuleOp, func_name: str | None) -> func.FuncOp:
    """The function to schedule; with several and no name, say how to pick one from Python."""
    if func_name is None and len(names := [f.sym_name.data for f in functions(module)]) > 1:
        raise XtirPassError(f"the module has {len(names)} functions ({', '.join(names)}); choose one with "
                            f"func_name=, e.g. xtir.Schedule(mod, func_name={names[0]!r}) or sch.work_on({names[0]!r})")
    return select_function(module, func_name)


def _carried(ops: dict[int, ForOp | BlockOp], source: ModuleOp, copy: ModuleOp) -> dict[int, ForOp | BlockOp]:
    """The same handles in `copy`, a clone of `source` (cloning keeps the order of ops)."""
    mapping = {id(old): new for old, new in zip(source.walk(), copy.walk(), strict=True)}
    return {h: mapping[id(op)] for h, op in ops.items()}


def _anchors(op: ForOp | BlockOp) -> frozenset[str]:
    """The names of the blocks under a loop (none for a block): what tells a loop's successor
    among the loops a primitive made of the same name."""
    return frozenset(b.label for b in blocks_under(op)) if isinstance(op, ForOp) else frozenset()


def _successors(ops: dict[int, ForOp | BlockOp], before: list[Operation], existing: set[int],
                module: ModuleOp) -> dict[int, ForOp | BlockOp]:
    """Where each of `ops` (by position in walk order) is after a primitive changed `module`, a
    copy of the module whose ops are `before` (the copy's ops had the ids `existing`): the op
    itself when the primitive kept it, else the one op the primitive made in its place (same
    kind and name, and for a loop, above a block that the old loop was above); absent when none."""
    present = {id(op) for op in module.walk()}
    made = [op for op in module.walk() if id(op) not in existing and isinstance(op, ForOp | BlockOp)]
    found: dict[int, ForOp | BlockOp] = {}
    for k, op in ops.items():
        if id(op) in present:
            found[k] = op
            continue
        anchors = _anchors(before[k])  # of the op as it was, in the module the copy was made from
        successors = [new for new in made if type(new) is type(op) and new.label == op.label
                      and (isinstance(op, BlockOp) or anchors & _anchors(new))]
        if len(successors) == 1:
            found[k] = successors[0]
    return found


def _loop_text(loop: ForOp, function: func.FuncOp) -> str:
    """How a pass option names `loop`: its name when unique in the function, else `BLOCK/LOOP`."""
    namesakes = [lp for lp in all_loops(function) if lp.label == loop.label]
    blocks = blocks_under(loop)
    return loop.label if len(namesakes) <= 1 or not blocks else f"{blocks[0].label}/{loop.label}"


def _common_ancestor(blocks: Sequence[BlockOp]) -> Operation | None:
    """The innermost op around all of `blocks` (the first one's parent when it is alone)."""
    return next((p for p in ancestors(blocks[0]) if all(p.is_ancestor(b) for b in blocks)), None)


def _loop_kind(loop: ForOp) -> str:
    """TVM's iter type of a loop (GetLoopIterType): SPATIAL when it feeds no reduce variable of the
    blocks directly under it, REDUCE when it feeds reduce variables only, else "opaque"."""
    kinds = {it.kind for b in child_blocks(loop) for it in b.iters() if it.binding.uses(loop.var)}
    return REDUCE if kinds == {REDUCE} else SPATIAL if REDUCE not in kinds else "opaque"


def _buffers(regions: Sequence[BufferRegion]) -> set[SSAValue]:
    return {r.buffer for r in regions}


class _Axis:
    """An index of `transform_layout`'s index map: only its position can be read back."""

    def __init__(self, position: int):
        self.position = position


def _permutation(index_map: Callable[..., Sequence[Any]]) -> tuple[int, ...]:
    """The permutation an index map such as `lambda i, j: (j, i)` makes (one parameter a dimension)."""
    rank = len(inspect.signature(index_map).parameters)
    try:
        result = index_map(*(_Axis(k) for k in range(rank)))
        return tuple(axis.position for axis in result)
    except (TypeError, AttributeError):
        raise XtirPassError(
            "transform_layout: the index map must return the indices it is given in another order "
            "(a permutation, `lambda i, j: (j, i)`); splitting or combining dimensions is not supported"
        ) from None
