"""xtir.dialects.layout: the one answer to "where does this element live"."""

import pytest
from xdsl.dialects.builtin import MemRefType, NoneAttr, StridedLayoutAttr, StringAttr, f32

from xtir.dialects.layout import is_row_major, row_major, row_major_strides, row_stride, static_strides


def strided(shape: list[int], strides: list[int], offset: int = 0) -> MemRefType:
    return MemRefType(f32, shape, StridedLayoutAttr(strides, offset))


def test_row_major_strides() -> None:
    assert row_major_strides([4, 8, 16]) == [128, 16, 1]
    assert static_strides(MemRefType(f32, [4, 8])) == ([8, 1], 0)


@pytest.mark.parametrize(
    ("t", "expected"),
    [
        (MemRefType(f32, [4, 8]), True),
        (strided([4, 8], [8, 1]), True),
        (strided([1, 8], [99, 1]), True),  # a dimension of size 1 may have any stride
        (strided([4, 8], [1, 4]), False),  # column-major
        (strided([4, 8], [16, 1]), False),  # padded rows
        (strided([4, 8], [8, 1], 3), False),  # an offset
        (strided([0, 8], [1, 1], 3), True),  # no element to misplace
    ],
)
def test_is_row_major(t: MemRefType, expected: bool) -> None:
    assert is_row_major(t) is expected


def test_row_stride_of_a_tile_is_the_second_to_last_stride() -> None:
    assert row_stride(MemRefType(f32, [32, 64])) == 64
    assert row_stride(MemRefType(f32, [2, 32, 64])) == 64
    assert row_stride(strided([32, 64], [128, 1])) == 128


def test_row_major_keeps_the_scope() -> None:
    t = row_major(f32, [2, 3], StringAttr("shared"))
    assert t.memory_space == StringAttr("shared") and isinstance(t.layout, NoneAttr) and is_row_major(t)
