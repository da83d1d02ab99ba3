"""What cache-read and cache-write ask before they build (`xtir.passes.transforms.cache`):
the names of a cache and which buffer a block's index-th region is.

TVM names a cache of buffer A in scope S buffer `A_S` (dots become underscores,
e.g. `A_global_A_reg`) and its copy block `A_S` with the dots kept
(`A_global.A_reg`); the copy loops are `ax0, ax1, ...` over the whole buffer (over
what the block writes, for cache-write) and the block variables `v0, v1, ...`.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from xtir.dialects.block import AccessOp, AllocOp, BlockOp, LoadOp, StoreOp, buffer_name
from xtir.dialects.walk import ancestors
from xtir.passes.analysis.regions import BufferRegion
from xtir.support.errors import ScheduleError

STORAGE_RANKS = ("global", "shared", "local", "warp")
"""The storage scopes xtir has (TVM's StorageRank names them); a tag may follow a dot
("global.A_reg"). Inside a GPU kernel lower-to-gpu takes "shared" and "local" only."""


def check_storage_scope(op: Operation, scope: str) -> None:
    """Refuse, at `op`, a storage scope that is none of STORAGE_RANKS (tagged or not) or one of
    TVM's that xtir does not have (dynamic shared memory, tensor-core fragments)."""
    rank, dot, tag = scope.partition(".")
    if rank == "shared" and tag.partition(".")[0] == "dyn":
        raise ScheduleError(op, f'the storage scope "{scope}" (TVM\'s dynamic shared memory) is not supported: '
                            'lower-to-gpu sizes shared buffers when it compiles; use "shared"')
    if rank not in STORAGE_RANKS or (dot and not tag):
        raise ScheduleError(op, f'the storage scope "{scope}" is invalid; a storage scope is '
                            f'{", ".join(STORAGE_RANKS)}, or one of them with a tag ("global.A_reg"); '
                            "TVM's shared.dyn and wmma.* are not supported")


def cache_names(buffer: SSAValue, scope: str) -> tuple[str, str]:
    """(buffer name, block name) of the cache of `buffer` in `scope`."""
    base = buffer_name(buffer)
    return f"{base}_{scope.replace('.', '_')}", f"{base}_{scope}"


def select_buffer(block: BlockOp, regions: list[BufferRegion], index: int, what: str) -> SSAValue:
    """The buffer of `block`'s index-th read or written region, checked for the cache passes."""
    if not 0 <= index < len(regions):
        listing = ", ".join(buffer_name(r.buffer) for r in regions) or "none"
        raise ScheduleError(block, f'block "{block.label}" has {len(regions)} {what} buffers ({listing}); '
                   f"index {index} is out of range")
    buffer = regions[index].buffer
    check_block_accesses(block, buffer)
    return buffer


def check_block_accesses(block: BlockOp, buffer: SSAValue) -> None:
    """Refuse any op but a load or store taking `buffer` in `block` (an accel op, a call): the cache
    passes redirect loads and stores only, so it would go on using `buffer` instead of the cache."""
    other = next((op for op in block.walk() if buffer in op.operands and not isinstance(op, LoadOp | StoreOp)), None)
    if isinstance(other, AccessOp):
        raise ScheduleError(block, f'{buffer_name(buffer)} is accessed by accel ops in block "{block.label}"; '
                   "cache before tensorize")
    if other is not None:
        raise ScheduleError(block, f'{buffer_name(buffer)} is passed to {other.name} in block "{block.label}", which '
                            "would go on using it instead of the cache", [(other, f"this use of {buffer_name(buffer)}")])


def allocation(block: BlockOp, buffer: SSAValue, what: str, advice: str) -> AllocOp:
    """The allocation of the buffer `block` writes; refused for a function argument, whose `what`
    (layout, storage) belongs to the caller."""
    alloc = buffer.owner
    if not isinstance(alloc, AllocOp):
        raise ScheduleError(block, f'{buffer_name(buffer)}, written by block "{block.label}", is not allocated in the '
                            f"function (an argument: its {what} belongs to the caller); {advice}")
    return alloc


def top_level_ancestor(op: Operation, scope: Operation) -> Operation:
    """The ancestor of `op` that sits directly in `scope`'s body."""
    return [op, *ancestors(op, stop=scope)][-1]
