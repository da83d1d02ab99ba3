"""double-buffer{block=B}: double the shared-memory tile that block B fetches (TVM's `double_buffer`).

B is a copy into a `shared` buffer (cache-read with scope="shared"), computed at a serial
reduction loop L of its consumers (compute-at, GEMM's `k_0`): each iteration of L fetches the
tile it then reads. Double buffering gives the buffer two tiles and overlaps the fetch of the
next tile with the computation on this one:

    fetch tile 0 into half 0                       (prologue)
    for k in 0 .. n-2:
        barrier
        load tile k+1 into registers (per thread)
        compute on half k % 2
        store the registers into half (k+1) % 2
    barrier
    compute on half (n-1) % 2                      (epilogue, no fetch)

so one `__syncthreads()` per iteration suffices instead of two: the stores of iteration k write
the half iteration k-1 read, and iteration k reads the half it does not write. The global loads
of the next tile are issued before the computation on this one and their latency hides behind
it (a fetch that is not one plain copy stores into the shared half directly, before computing).

The schedule primitive checks that B is such a fetch and marks its buffer, as TVM's
`s[AA].double_buffer()` marks it with `double_buffer_scope`: `%A_shared = block.alloc
{double_buffer_scope} : memref<..., "shared">`. The transformation itself is TVM's
InjectDoubleBuffer and happens in lower-to-gpu, once the tile is sized to one thread block
(`memref<64x8xf32, "shared">` becomes `memref<2x64x8xf32, "shared">`), where the barriers are
placed from the halves each statement touches.

Refused, at the block or loop: B writes no buffer or several, or one of scope other than shared,
or another block writes it too; B is not under a loop of every block reading the buffer; that
loop is thread-bound, parallel, vectorized or unrolled, is not a reduction loop of every reader,
or a reader comes before the fetch in it; the two tiles exceed 48 KiB of shared memory; the
buffer is double-buffered already.

Serial loops of one iteration around the fetch are passed over, as TVM drops them before
injecting double buffers: a fetch computed at `k_1` of `split{loop=k factors=-1,1}` is pipelined
over `k_0`. When no serial loop of more iterations holds it inside the thread mapping (a k tile
as long as k) there is no next tile to overlap with the computation: double-buffer is a no-op,
the IR left as it is (TVM's double_buffer accepts such a loop too, marking the buffer whatever
the loop), with an XtirWarning saying so (which loop stopped the search, and how to pipeline).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import FixedBitwidthType, MemRefType, StringAttr, UnitAttr
from xdsl.ir import Operation, SSAValue

from xtir.dialects.block import DOUBLE_BUFFER, REDUCE, SERIAL, AllocOp, BlockOp, ForOp
from xtir.passes.analysis.compute_location import child_index, required_region
from xtir.passes.analysis.navigation import all_blocks, get_block, get_loops
from xtir.passes.analysis.regions import hint_name, read_regions, write_regions
from xtir.passes.schedule_pass import SchedulePass
from xtir.support.errors import ScheduleError, XtirWarning
from xtir.support.locations import Diagnostic, op_location

MAX_SHARED_BYTES = 48 * 1024


def _fetched_buffer(block: BlockOp) -> tuple[SSAValue, AllocOp]:
    """The one shared buffer `block` writes and nothing else writes, with its allocation."""
    written = [r.buffer for r in write_regions(block)]
    if len(written) != 1:
        raise ScheduleError(block, f'block "{block.label}" writes {len(written)} buffers; double buffering applies to '
                            "a block copying into one shared buffer (cache-read with scope \"shared\")")
    buffer = written[0]
    alloc = buffer.owner
    scope = buffer.type.memory_space if isinstance(buffer.type, MemRefType) else None
    if not isinstance(alloc, AllocOp) or not isinstance(scope, StringAttr) or scope.data != "shared":
        what = f"scope {scope.data}" if isinstance(scope, StringAttr) else "global scope"
        raise ScheduleError(block, f'block "{block.label}" writes {hint_name(buffer)} of {what}; double buffering '
                            'applies to a shared-memory cache (cache-read with scope "shared")')
    f = block.get_toplevel_object()
    others = [b for b in all_blocks(f) if b is not block and any(r.buffer is buffer for r in write_regions(b))]
    if others:
        raise ScheduleError(block, f'{hint_name(buffer)} is also written by block "{others[0].label}"; double buffering '
                            "needs one block fetching the whole tile")
    if DOUBLE_BUFFER in alloc.attributes:
        raise ScheduleError(block, f"{hint_name(buffer)} is double-buffered already")
    return buffer, alloc


def _readers(f: Operation, buffer: SSAValue) -> list[BlockOp]:
    return [b for b in all_blocks(f) if any(r.buffer is buffer for r in read_regions(b))]


def _serial(loop: ForOp) -> bool:
    return loop.thread is None and loop.kind == SERIAL


def _pipeline_loop(block: BlockOp, buffer: SSAValue, readers: list[BlockOp]) -> ForOp | None:
    """The innermost loop around the fetch that holds every reader: the loop whose iterations
    the tiles belong to (where compute-at put the fetch). Serial loops of one iteration are
    passed over (TVM drops them first): a fetch computed at `k_1` of `split{factors=-1,1}` is
    pipelined over `k_0`. None when only such loops hold it inside the thread mapping: one tile."""
    name = hint_name(buffer)
    if not readers:
        raise ScheduleError(block, f"no block reads {name}: there is nothing to overlap the fetch with")
    around = [lp for lp in get_loops(block) if all(lp.is_ancestor(r) for r in readers)]
    if not around:
        raise ScheduleError(block, f'block "{block.label}" is not under a loop of the blocks reading {name}; compute it '
                            "at the reduction loop first (compute-at)")
    kept = list(around)
    while kept and _serial(kept[-1]) and kept[-1].extent < 2:
        kept.pop()
    if len(kept) < len(around) and (not kept or not _serial(kept[-1])):
        _warn_one_tile(block, name, around[-1], kept[-1] if kept else None)
        return None
    loop = kept[-1]
    if not _serial(loop):
        how = f"bound to {loop.thread}" if loop.thread is not None else loop.kind
        raise ScheduleError(loop, f'loop "{loop.label}" around the fetch of {name} is {how}; double buffering needs a '
                            "serial loop whose iterations fetch one tile each")
    for reader in readers:
        if not any(b.uses(loop.var) for b, kind in zip(reader.bindings(), reader.kinds) if kind == REDUCE):
            raise ScheduleError(loop, f'loop "{loop.label}" is not a reduction loop of block "{reader.label}", which '
                                f"reads {name}; double buffering pipelines the tiles of a serial reduction loop")
        if child_index(loop, reader) < child_index(loop, block):  # type: ignore[operator]  # both are under loop
            raise ScheduleError(block, f'block "{reader.label}" reads {name} before block "{block.label}" fetches it in '
                                f'loop "{loop.label}"')
    return loop


def _warn_one_tile(block: BlockOp, name: str, unit: ForOp, outer: ForOp | None) -> None:
    """Say why double-buffer leaves `name` single: the fetch runs once per thread mapping."""
    if outer is None:
        inside = "the kernel"
    elif outer.thread is not None:
        inside = f'loop "{outer.label}" bound to {outer.thread}'
    else:
        inside = f'loop "{outer.label}" ({outer.kind})'
    message = (f'double-buffer: block "{block.label}" fetches {name} at loop "{unit.label}" of one iteration, and '
               f"no serial loop of more holds it inside {inside}: the tile is fetched once, no next tile to overlap "
               f"with the computation; {name} is left single. To pipeline it, split the reduction loop (a tile "
               "shorter than the loop) and compute the fetch at the outer part")
    warnings.warn(str(Diagnostic("warning", message, op_location(block))), XtirWarning, stacklevel=2)


def _tile_bytes(block: BlockOp, loop: ForOp, buffer: SSAValue) -> int:
    """Bytes of one tile: the region the fetch writes in one iteration of `loop` (a bound: the
    whole buffer along a dimension the fetch's indices give no range for)."""
    tile = required_region(loop, [block], buffer, write_regions, relax_threads=False)
    element = buffer.type.element_type  # type: ignore[attr-defined]
    return math.prod(r.extent for r in tile) * (element.size if isinstance(element, FixedBitwidthType) else 8)


@dataclass(frozen=True)
class DoubleBufferPass(SchedulePass):
    name = "double-buffer"

    block: str

    def run(self, f: func.FuncOp) -> None:
        block = get_block(f, self.block)
        buffer, alloc = _fetched_buffer(block)
        loop = _pipeline_loop(block, buffer, _readers(f, buffer))
        if loop is None:
            return  # one tile: no next one to fetch during the computation, so no second half to give it
        tile = _tile_bytes(block, loop, buffer)
        if 2 * tile > MAX_SHARED_BYTES:
            raise ScheduleError(block, f"double-buffered, {hint_name(buffer)} takes 2 x {tile} = {2 * tile} bytes of "
                                f"shared memory; a block has at most {MAX_SHARED_BYTES} (48 KiB)")
        alloc.attributes[DOUBLE_BUFFER] = UnitAttr()
