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

Handles (BlockRV, LoopRV) are names, resolved when used, as the passes' options are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from xtir.context import make_context
from xtir.dialects.block import BlockOp, ForOp, enclosing_block
from xtir.errors import XtirPassError, expect_module
from xtir.passes.analysis.navigation import (
    all_blocks,
    all_loops,
    blocks_under,
    child_blocks,
    get_block,
    get_loop,
    get_loops,
    select_function,
)
from xtir.passes.analysis.regions import BufferRegion, read_regions, write_regions
from xtir.pipeline import build_pass, run_passes, spec_text
from xtir.verify_numerics import NumericsChecker


@dataclass(frozen=True)
class BlockRV:
    """A block, by name (TVM's BlockRV)."""

    name: str

    def __repr__(self) -> str:
        return f"BlockRV({self.name!r})"


@dataclass(frozen=True)
class LoopRV:
    """A loop, by name (TVM's LoopRV).

    `block` is a block the loop enclosed when the handle was made: it tells apart loops
    that share a name (the copy loops `ax0` of several caches) as `BLOCK/LOOP`.
    """

    name: str
    block: str | None = None

    def __repr__(self) -> str:
        where = f" above block {self.block!r}" if self.block is not None else ""
        return f"LoopRV({self.name!r}{where})"


class Schedule:
    """A schedule of one function of a module (TVM's tvm.tir.Schedule).

    `func_name` picks the function when the module has several. The module is copied;
    `sch.mod` is the current state. Each primitive replaces the state by a new module
    and never changes a module handed out before.

    With `verify_numerics`, every primitive is also checked to keep the function's
    results on random inputs (xtir.verify_numerics); one that changes them raises
    XtirNumericsError naming it, and the schedule stays as it was.
    """

    def __init__(self, module: ModuleOp, func_name: str | None = None, verify_numerics: bool = False):
        module = expect_module(module, "xtir.Schedule", XtirPassError)
        function = select_function(module, func_name)  # an unknown or missing function name fails here
        self._mod = module.clone()
        self._func_name = func_name
        self._ctx = make_context()
        self._steps: list[str] = []
        # decompose_reduction renames its block B to B_update, which B's handles then mean (as in TVM).
        self._renamed: dict[str, str] = {}
        self._numerics = NumericsChecker(self._mod, function.sym_name.data) if verify_numerics else None

    # state -------------------------------------------------------------------------------
    @property
    def mod(self) -> ModuleOp:
        """The current module. Do not modify it; the schedule's next step starts from it."""
        return self._mod

    @property
    def trace(self) -> str:
        """The primitives applied so far as an `xtir-opt -p` pipeline (empty when none)."""
        return ",".join(self._steps)

    def show(self) -> None:
        print(self)

    def __str__(self) -> str:
        return str(self._mod)

    # handles -----------------------------------------------------------------------------
    def get_block(self, name: str) -> BlockRV:
        return BlockRV(get_block(self._function(), name).label)

    def get_loops(self, block: BlockRV) -> list[LoopRV]:
        """The loops above the block in its scope, outermost first."""
        return [self._loop_rv(loop) for loop in get_loops(self._block(block))]

    def get_child_blocks(self, block_or_loop: BlockRV | LoopRV) -> list[BlockRV]:
        """The blocks directly under a block or loop (not nested in other blocks)."""
        parent = self._block(block_or_loop) if isinstance(block_or_loop, BlockRV) else self._loop(block_or_loop)
        return [BlockRV(b.label) for b in child_blocks(parent)]

    def get_producers(self, block: BlockRV) -> list[BlockRV]:
        """Blocks of the same scope, before this one, that write a buffer it reads or writes
        (TVM's read-after-write and write-after-write dependences)."""
        target = self._block(block)
        touched = _buffers(read_regions(target)) | _buffers(write_regions(target))
        scope = self._scope_blocks(target)
        before = scope[: scope.index(target)]
        return [BlockRV(b.label) for b in before if _buffers(write_regions(b)) & touched]

    def get_consumers(self, block: BlockRV) -> list[BlockRV]:
        """Blocks of the same scope, after this one, that read or write a buffer it writes."""
        target = self._block(block)
        written = _buffers(write_regions(target))
        scope = self._scope_blocks(target)
        after = scope[scope.index(target) + 1 :]
        return [BlockRV(b.label) for b in after if (_buffers(read_regions(b)) | _buffers(write_regions(b))) & written]

    # loop transformations ------------------------------------------------------------------
    def split(self, loop: LoopRV, factors: Sequence[int | None]) -> list[LoopRV]:
        """Split into len(factors) loops, outermost first; one factor may be None (inferred)."""
        if isinstance(factors, str | bytes) or not isinstance(factors, Sequence):
            raise XtirPassError(f"split: factors must be a list such as [None, 16], got {type(factors).__name__}")
        factors = tuple(-1 if f is None else f for f in factors)
        loops = self._apply("split", {"loop": self._loop_handle(loop), "factors": factors})
        return [self._loop_rv(lp) for lp in loops]

    def fuse(self, *loops: LoopRV) -> LoopRV:
        fused = self._apply("fuse", {"loops": self._loop_handles("fuse", loops)})
        return self._loop_rv(fused)

    def reorder(self, *ordered_loops: LoopRV) -> None:
        self._apply("reorder", {"loops": self._loop_handles("reorder", ordered_loops)})

    def parallel(self, loop: LoopRV) -> None:
        self._apply("parallel", {"loop": self._loop_handle(loop)})

    def vectorize(self, loop: LoopRV) -> None:
        self._apply("vectorize", {"loop": self._loop_handle(loop)})

    def unroll(self, loop: LoopRV) -> None:
        self._apply("unroll", {"loop": self._loop_handle(loop)})

    def bind(self, loop: LoopRV, thread_axis: str) -> None:
        self._apply("bind", {"loop": self._loop_handle(loop), "thread": thread_axis})

    def annotate(self, block_or_loop: BlockRV | LoopRV, ann_key: str, ann_val: int | bool | str) -> None:
        self._apply("annotate", {**self._target(block_or_loop), "key": ann_key, "value": ann_val})

    def tensorize(self, block_or_loop: BlockRV | LoopRV, tensor_intrin: str) -> None:
        """Compute the block (or the loop's subtree, blockized first) with a registered tensor intrinsic."""
        self._apply("tensorize", {**self._target(block_or_loop), "intrin": tensor_intrin})

    # block transformations -----------------------------------------------------------------
    def blockize(self, loop: LoopRV) -> BlockRV:
        """Make the subtree at `loop` a new outer block; return it."""
        outer = self._apply("blockize", {"loop": self._loop_handle(loop)})
        return BlockRV(outer.label)

    def cache_read(self, block: BlockRV, read_buffer_index: int, storage_scope: str,
                   consumer_blocks: Sequence[BlockRV] | None = None) -> BlockRV:
        """Read the block's read_buffer_index-th read buffer through a cache; return the copy block.

        The consumers that read the cache are `consumer_blocks`, or every reader in the block's scope."""
        options: dict[str, Any] = {"block": self._block_handle(block), "index": read_buffer_index,
                                   "scope": storage_scope}
        if consumer_blocks:
            options["consumers"] = tuple(self._block_handle(b) for b in consumer_blocks)
        return BlockRV(self._apply("cache-read", options).label)

    def cache_write(self, block: BlockRV, write_buffer_index: int, storage_scope: str) -> BlockRV:
        """Write the block's write_buffer_index-th written buffer through a cache; return the write-back block."""
        options = {"block": self._block_handle(block), "index": write_buffer_index, "scope": storage_scope}
        return BlockRV(self._apply("cache-write", options).label)

    def decompose_reduction(self, block: BlockRV, loop: LoopRV) -> BlockRV:
        """Split the block's init into a block before `loop`; return the init block.

        The block becomes `<name>_update`; `block` (and other handles of it) keep naming it.
        """
        old = self._block_handle(block)
        init, update = self._apply("decompose-reduction", {"block": old, "loop": self._loop_handle(loop)})
        self._renamed[old] = update.label
        return BlockRV(init.label)

    def compute_at(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool = False) -> None:
        self._apply("compute-at", self._at_options(block, loop, preserve_unit_loops))

    def reverse_compute_at(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool = False) -> None:
        self._apply("reverse-compute-at", self._at_options(block, loop, preserve_unit_loops))

    def fuse_reduction_epilogue(self, reduction: BlockRV, epilogue: BlockRV, mode: str | None = None) -> BlockRV:
        """Fold `epilogue` (D = temp + C) into `reduction`'s init and update; return the fused block.

        mode="per-iteration" also folds non-linear epilogues as TVM does, which changes the numbers."""
        options = {"block": self._block_handle(reduction), "epilogue": self._block_handle(epilogue), "mode": mode}
        return BlockRV(self._apply("fuse-reduction-epilogue", options).label)

    def compute_inline(self, block: BlockRV) -> None:
        self._apply("compute-inline", {"block": self._block_handle(block)})

    def reverse_compute_inline(self, block: BlockRV) -> None:
        self._apply("reverse-compute-inline", {"block": self._block_handle(block)})

    # internals -----------------------------------------------------------------------------
    def _apply(self, pass_name: str, options: dict[str, Any]) -> Any:
        """Run one primitive on a copy; adopt the copy only if the pass succeeds and it verifies.
        Return what the primitive made (in the new state)."""
        primitive = build_pass(pass_name, {**options, "func": self._func_name})
        module = self._mod.clone()
        (result,) = run_passes(module, [primitive], ctx=self._ctx, numerics=self._numerics,
                               where="primitive {k} of the schedule", first=len(self._steps) + 1)
        self._mod = module
        self._steps.append(spec_text(primitive))
        return result

    def _at_options(self, block: BlockRV, loop: LoopRV, preserve_unit_loops: bool) -> dict[str, Any]:
        return {
            "block": self._block_handle(block),
            "loop": self._loop_handle(loop),
            "preserve_unit_loops": preserve_unit_loops or None,  # the default is left out of the trace
        }

    def _target(self, block_or_loop: BlockRV | LoopRV) -> dict[str, str]:
        if isinstance(block_or_loop, BlockRV):
            return {"block": self._block_handle(block_or_loop)}
        return {"loop": self._loop_handle(block_or_loop)}

    def _function(self) -> func.FuncOp:
        return select_function(self._mod, self._func_name)

    def _block_handle(self, block: BlockRV) -> str:
        """The block's current name: its own, or what decompose_reduction renamed it to."""
        if not isinstance(block, BlockRV):
            raise XtirPassError(f"expected a block handle (BlockRV), got {block!r}")
        names = {b.label for b in all_blocks(self._function())}
        name = block.name
        while name not in names and name in self._renamed:
            name = self._renamed[name]
        return name

    def _loop_handle(self, loop: LoopRV) -> str:
        """The loop's name when it is unique in the function, else `BLOCK/LOOP`."""
        if not isinstance(loop, LoopRV):
            raise XtirPassError(f"expected a loop handle (LoopRV), got {loop!r}")
        namesakes = [lp for lp in all_loops(self._function()) if lp.label == loop.name]
        if len(namesakes) <= 1 or loop.block is None:
            return loop.name
        return f"{self._block_handle(BlockRV(loop.block))}/{loop.name}"

    def _loop_handles(self, primitive: str, loops: Sequence[LoopRV]) -> tuple[str, ...]:
        if not loops:
            raise XtirPassError(f"{primitive}: no loops given")
        return tuple(self._loop_handle(lp) for lp in loops)

    def _block(self, block: BlockRV) -> BlockOp:
        return get_block(self._function(), self._block_handle(block))

    def _loop(self, loop: LoopRV) -> ForOp:
        return get_loop(self._function(), self._loop_handle(loop))

    def _scope_blocks(self, block: BlockOp) -> list[BlockOp]:
        """The blocks in `block`'s scope (same enclosing block), in program order."""
        scope = enclosing_block(block)
        return [b for b in all_blocks(self._function()) if enclosing_block(b) is scope]

    @staticmethod
    def _loop_rv(loop: ForOp) -> LoopRV:
        blocks = blocks_under(loop)
        return LoopRV(loop.label, blocks[0].label if blocks else None)


def _buffers(regions: Sequence[BufferRegion]) -> set[SSAValue]:
    return {r.buffer for r in regions}
