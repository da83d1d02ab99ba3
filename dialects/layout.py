"""Buffer layout: where each element of a memref lives, asked in one place.

A buffer's layout is part of its memref type (xDSL reads it with `get_strides()` and
`get_offset()`, None where dynamic). xtir's own buffers (`block.alloc`, the caches,
compact-buffers' shrunk buffers, transform-layout's permuted ones) are row-major, as are
numpy arrays, which is what buffer parameters must be; the accel tiles are 16x16 regions
of row-major rows. The evaluator's parameter check, compact-buffers, transform-layout and
the tmm16 micro-kernel's row strides all ask here, so "row-major" means one thing.

It lives with the dialects, not in `passes/analysis/`, because it is a property of a type
that everything above may ask, a dialect verifier included.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Attribute


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
