"""Buffer layout: where each element of a memref lives, asked in one place.

A buffer's layout is part of its memref type (xDSL reads it with `get_strides()` and
`get_offset()`, None where dynamic). xtir's own buffers (`block.alloc`, the caches,
compact-buffers' shrunk buffers, transform-layout's permuted ones) are row-major, as are
numpy arrays, which is what buffer parameters must be, until storage-align pads their strides
(`aligned_strides`, applied as the allocations are lowered); the accel tiles are 16x16 regions
of row-major rows. The evaluator's parameter check, compact-buffers, transform-layout and
the tmm16 micro-kernel's row strides all ask here, so "row-major" means one thing.

It lives with the dialects, not in `passes/analysis/`, because it is a property of a type
that everything above may ask, a dialect verifier included.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import MemRefType, StridedLayoutAttr, StringAttr
from xdsl.ir import Attribute, SSAValue


def memory_space(buffer: SSAValue) -> str | None:
    """The storage scope that `buffer`'s memref type names ("shared", "local"); None for global memory."""
    t = buffer.type
    return t.memory_space.data if isinstance(t, MemRefType) and isinstance(t.memory_space, StringAttr) else None


def static_strides(t: MemRefType) -> tuple[list[int], int] | None:
    """(strides per dimension, offset) in elements, or None when the layout is not static."""
    strides, offset = t.get_strides(), t.get_offset()
    if strides is None or offset is None or None in strides:
        return None
    return [s for s in strides if s is not None], offset


def row_major_strides(shape: Sequence[int]) -> list[int]:
    """The strides of a C-contiguous array of `shape`: the last dimension is contiguous."""
    return [math.prod(shape[k + 1 :]) for k in range(len(shape))]


def is_row_major(t: MemRefType) -> bool:
    """Whether `t` addresses its elements as a C-contiguous array of its shape does (a dimension
    of size 1 may have any stride; an empty buffer any layout)."""
    shape = t.get_shape()
    if math.prod(shape) == 0:
        return True
    layout = static_strides(t)
    if layout is None or layout[1] != 0:
        return False
    return all(d == 1 or s == r for d, s, r in zip(shape, layout[0], row_major_strides(shape)))


def row_stride(t: MemRefType) -> int:
    """Elements between two rows of a 2-D tile taken from the last two dimensions of `t`."""
    layout = static_strides(t)
    assert layout is not None and len(layout[0]) >= 2, f"{t} has no static row stride"
    return layout[0][-2]


def row_major(element_type: Attribute, shape: Sequence[int], memory_space: Attribute) -> MemRefType:
    """A row-major buffer type (the identity layout) in `memory_space`."""
    return MemRefType(element_type, list(shape), memory_space=memory_space)


def aligned_strides(shape: Sequence[int], aligns: Mapping[int, tuple[int, int]]) -> list[int]:
    """The strides of a buffer of `shape` stored with TVM's storage_align: from the innermost
    dimension out, each stride is what the dimensions inside it span, raised where the dimension
    is aligned (`aligns[d] = (factor, offset)`) to the next value that is `offset` modulo `factor`
    (as TVM's CompactBufferAllocation pads them). A 16x16 tile with (32, 1) on dimension 0 has
    rows of 17 elements: strides [17, 1]."""
    strides = [0] * len(shape)
    stride = 1
    for d in reversed(range(len(shape))):
        if d in aligns:
            factor, offset = aligns[d]
            stride += (offset - stride) % factor
        strides[d] = stride
        stride *= shape[d]
    return strides


def storage_type(element_type: Attribute, shape: Sequence[int], memory_space: Attribute,
                 aligns: Mapping[int, tuple[int, int]]) -> MemRefType:
    """The buffer type of an allocation with storage alignments: row-major where they ask for
    no padding, else strided by `aligned_strides`."""
    strides = aligned_strides(shape, aligns)
    if strides == row_major_strides(shape):
        return row_major(element_type, shape, memory_space)
    return MemRefType(element_type, list(shape), StridedLayoutAttr(strides, 0), memory_space)


def strides_of(t: MemRefType) -> list[int]:
    """The static strides of `t` in elements (its layout has offset 0; xtir's buffers do)."""
    layout = static_strides(t)
    assert layout is not None and layout[1] == 0, f"{t} has no static layout at offset 0"
    return layout[0]


def extent(t: MemRefType) -> tuple[int, int]:
    """The element offsets from the buffer's start that the static layout of `t` addresses:
    (lowest, highest + 1), the layout's offset included (a negative stride reaches below it);
    (0, 0) for an empty buffer."""
    layout = static_strides(t)
    assert layout is not None, f"{t} has no static layout"
    strides, offset = layout
    shape = t.get_shape()
    if math.prod(shape) == 0:
        return (0, 0)
    spans = [(n - 1) * s for n, s in zip(shape, strides)]
    return offset + sum(min(0, span) for span in spans), offset + sum(max(0, span) for span in spans) + 1


def reach(t: MemRefType) -> int:
    """Elements an allocation of `t` holds: up to the last one its layout addresses (a padded row
    stride or an offset makes it more than the shape's product)."""
    return extent(t)[1]
