"""What every schedule pass shares: option handling, targets and diagnostics."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Operation

from xtir.errors import XtirPassError
from xtir.support.locations import format_op_error


def fail(pass_name: str, op: Operation, message: str) -> XtirPassError:
    """An error naming the pass and pointing at the op it refused (raise it): the lowering passes'
    form; schedule primitives raise ScheduleError, which the pipeline driver names."""
    return XtirPassError(format_op_error(op, f"{pass_name}: {message}"))


def function_of(op: Operation) -> Operation:
    """The func.func around `op`: loop and block names are unique per function, as in a TVM PrimFunc."""
    parent: Operation | None = op
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent or op.get_toplevel_object()


def single_child(op: Operation) -> Operation | None:
    """The only op in a single-region, single-block op's body, else None."""
    ops = list(op.regions[0].block.ops)
    return ops[0] if len(ops) == 1 else None


def fresh_name(root: Operation, base: str, taken: set[str] | None = None) -> str:
    """`base`, or `base_1`, `base_2`, ... if a loop or block of `root` already has it."""
    from xtir.dialects.block import BlockOp, ForOp

    names = taken if taken is not None else {
        op.label for op in root.walk() if isinstance(op, ForOp | BlockOp)
    }
    if base not in names:
        return base
    k = 1
    while f"{base}_{k}" in names:
        k += 1
    return f"{base}_{k}"
