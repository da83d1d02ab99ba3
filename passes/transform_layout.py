"""transform-layout{buffer=X permutation=P0,P1,...}: store a scratch buffer with its dimensions
permuted (TVM's transform_layout with an index map `lambda *i: (i[P0], i[P1], ...)`).

Dimension d of the new buffer is dimension P[d] of the old one, and every access
`X[e0, e1, ...]` becomes `X[e_P0, e_P1, ...]`, so the program computes the same values.
The usual use is packing: a cache of Bᵀ's panel (`cache-read` + `transform-layout`)
makes the loop over j read contiguous memory, so it vectorizes. X must be a buffer made
by block.alloc (an argument's layout belongs to the caller).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.accel import RegionOp
from xtir.dialects.block import BUFFER_DIM_ALIGN, AllocOp, LoadOp, StoreOp, buffer_name, dim_aligns, dim_aligns_attr
from xtir.dialects.layout import row_major
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.rewrite import reindex
from xtir.support.errors import ScheduleError


def _find_alloc(f, name: str) -> AllocOp:
    allocs = [op for op in f.walk() if isinstance(op, AllocOp)]
    matches = [a for a in allocs if buffer_name(a.buffer) == name]
    if len(matches) != 1:
        args = [buffer_name(a) for a in f.body.block.args]
        what = "an argument of the function; its layout belongs to the caller" if name in args else \
            f"{'several' if matches else 'no'} buffers allocated with that name"
        listing = ", ".join(buffer_name(a.buffer) for a in allocs) or "none"
        raise ScheduleError(f, f"cannot transform the layout of {name}: {what}; allocated buffers: {listing}")
    return matches[0]


def refuse_tile_users(buffer: SSAValue, advice: str) -> None:
    """Refuse at an accel op reading or writing `buffer`: its tiles are rows of contiguous elements."""
    for use in buffer.uses:
        if isinstance(use.operation, RegionOp):
            raise ScheduleError(use.operation, f"{buffer_name(buffer)} is accessed by {use.operation.name}, whose "
                                f"tiles are row-major; {advice}")


def transform_layout(alloc: AllocOp, permutation: tuple[int, ...]) -> AllocOp:
    buffer = alloc.buffer
    assert isinstance(buffer.type, MemRefType)
    shape = buffer.type.get_shape()
    if sorted(permutation) != list(range(len(shape))):
        raise ScheduleError(alloc, f"permutation {','.join(map(str, permutation))} is not a permutation of the "
                   f"{len(shape)} dimensions of {buffer_name(buffer)}")
    users = {id(u.operation): u.operation for u in buffer.uses}.values()
    refuse_tile_users(buffer, "transform the layout before tensorize")
    new = AllocOp(row_major(buffer.type.element_type, [shape[p] for p in permutation], buffer.type.memory_space),
                  buffer_name(buffer))
    new.location = alloc.location
    new.attributes.update(alloc.attributes)  # a double-buffer mark stays with the buffer
    if aligns := dim_aligns(alloc):  # a storage alignment stays with its dimension, wherever that moves
        new.attributes[BUFFER_DIM_ALIGN] = dim_aligns_attr({permutation.index(a): fo for a, fo in aligns.items()})
    Rewriter.insert_op(new, InsertPoint.before(alloc))
    buffer.replace_all_uses_with(new.buffer)
    Rewriter.erase_op(alloc)
    for user in list(users):
        assert isinstance(user, LoadOp | StoreOp)
        indices = user.indices()
        reindex(user, [indices[p] for p in permutation])
    return new


@dataclass(frozen=True)
class TransformLayoutPass(StatementPrimitive):
    name = "transform-layout"

    buffer: str
    permutation: tuple[int, ...]

    def run(self, f: func.FuncOp) -> None:
        transform_layout(_find_alloc(f, self.buffer), self.permutation)
