"""storage-align{block=B index=N axis=D factor=F offset=O}: pad the buffer that block B writes
(its N-th written buffer) so that the stride of dimension D is `F * k + O` (TVM's storage_align).

The usual use is a shared-memory tile whose threads read a column: with rows of 32 floats every
element of a column sits in the same bank, and a warp reading 32 of them waits 32 times; rows
of 33 (factor 32, offset 1) spread the column over all 32 banks.

The primitive records the alignment on the allocation, as TVM records it on the block (under
the same attribute name, `buffer_dim_align`):

    %A_shared = block.alloc {buffer_dim_align = [array<i64: 0, 32, 1>]} : memref<1024x8xf32, "shared">

The padding is applied where the buffer gets its final shape, as TVM applies it after compacting:
blocks-to-scf gives the memref.alloca a strided layout (`strided<[33, 1]>` for a 32x32 tile)
and lower-to-gpu sizes the shared tiles first. Every access goes through the layout's strides,
so the program computes the same values. Strides are padded from the innermost dimension out,
so padding one stride also stretches those outside it.

A negative axis counts from the last dimension (axis in [-ndim, ndim), as in TVM). Calling it again for the
same buffer and axis replaces the alignment. Refused, at the block: the index is not one of
B's written buffers; the factor is not positive; the offset is not in [0, factor) (TVM takes
any offset and pads to `offset mod factor`; one that no stride can equal is a mistake here);
the axis is out of range; the buffer is a function argument (its layout belongs to the caller);
the last dimension's stride would leave 1 on a buffer an accel op (tmm16, its DMA) tiles, whose
tiles are rows of contiguous elements.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType

from xtir.dialects.block import BUFFER_DIM_ALIGN, BlockOp, buffer_name, dim_aligns, dim_aligns_attr
from xtir.dialects.layout import aligned_strides
from xtir.passes.analysis.cache import allocation, select_buffer
from xtir.passes.analysis.navigation import get_block
from xtir.passes.analysis.regions import write_regions
from xtir.passes.schedule_pass import SchedulePass
from xtir.passes.transform_layout import refuse_tile_users
from xtir.support.errors import ScheduleError


def _axis(block: BlockOp, name: str, rank: int, axis: int) -> int:
    """`axis` as a dimension in [0, rank), counting a negative one from the end as TVM does."""
    if not -rank <= axis < rank:
        raise ScheduleError(block, f"{name} has {rank} dimension(s), so axis must be in "
                            f"[{-rank}, {rank}); got {axis}")
    return axis % rank


@dataclass(frozen=True)
class StorageAlignPass(SchedulePass):
    name = "storage-align"

    block: str
    """The block writing the buffer."""
    index: int
    """Which of the block's written buffers (TVM's buffer_index)."""
    axis: int
    """The dimension whose stride is padded; negative counts from the last."""
    factor: int
    """The stride becomes a multiple of it plus `offset`."""
    offset: int
    """In [0, factor)."""

    def run(self, f: func.FuncOp) -> None:
        block = get_block(f, self.block)
        buffer = select_buffer(block, write_regions(block), self.index, "written")
        if self.factor <= 0:
            raise ScheduleError(block, f"factor must be positive, got {self.factor}")
        if not 0 <= self.offset < self.factor:
            raise ScheduleError(block, f"offset must be in [0, factor) = [0, {self.factor}), "
                                f"got {self.offset}")
        assert isinstance(buffer.type, MemRefType)
        axis = _axis(block, buffer_name(buffer), len(buffer.type.get_shape()), self.axis)
        alloc = allocation(block, buffer, "layout", "align a cache of it (cache-read, cache-write)")
        aligns = dim_aligns(alloc) | {axis: (self.factor, self.offset)}
        if aligned_strides(buffer.type.get_shape(), aligns)[-1] != 1:
            refuse_tile_users(buffer, "align a dimension but the last (the stride of the last one must stay 1)")
        alloc.attributes[BUFFER_DIM_ALIGN] = dim_aligns_attr(aligns)
