"""Walking the IR: the ops around an op, innermost first, and whether a module uses a dialect.

xDSL's `Operation` has `parent_op()` and `is_ancestor()` but no iterator over the
ancestors (MLIR's `getParentOfType` has no xDSL counterpart); these two are that, so
that passes and analyses do not each write their own `while parent is not None` loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import UnionType
from typing import TypeVar

from xdsl.ir import Operation

T = TypeVar("T", bound=Operation)


def ancestors(op: Operation, stop: Operation | type[Operation] | UnionType | None = None) -> Iterator[Operation]:
    """The ops around `op`, innermost first, up to (not including) `stop`: an op, or an op type
    (a class or a union of classes) at whose first instance the walk ends."""
    parent = op.parent_op()
    while parent is not None and parent is not stop:
        if isinstance(stop, type | UnionType) and isinstance(parent, stop):
            return
        yield parent
        parent = parent.parent_op()


def parent_of_type(op: Operation, kind: type[T]) -> T | None:
    """The innermost op around `op` of type `kind` (MLIR's getParentOfType), or None."""
    return next((p for p in ancestors(op) if isinstance(p, kind)), None)


def uses_dialect(module: Operation, dialect: str) -> bool:
    """Whether any op under `module` belongs to `dialect` ("block", "accel", "gpu")."""
    prefix = dialect + "."
    return any(op.name.startswith(prefix) for op in module.walk())
