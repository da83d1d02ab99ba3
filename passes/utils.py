"""What every schedule pass shares: option handling, targets and diagnostics."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Operation

from xtir.dialects.walk import parent_of_type
from xtir.errors import LoweringError


def fail(pass_name: str, op: Operation, message: str) -> LoweringError:
    """A LoweringError already naming its pass (raise it): lowering/to_gpu.py's form. Other passes
    raise LoweringError or ScheduleError and leave the name to the pipeline driver."""
    return LoweringError(op, message, pass_name=pass_name)


def same_function(a: func.FuncOp, b: func.FuncOp) -> bool:
    """Whether `a` and `b` are the same function up to names: xDSL's is_structurally_equivalent
    compares ops' names, operands, attributes and properties, not their result types (an
    astype to i32 and one to i16 would be equal)."""
    return (
        a.function_type == b.function_type
        and a.body.is_structurally_equivalent(b.body)
        and all(x.result_types == y.result_types for x, y in zip(a.walk(), b.walk(), strict=True))
    )


def function_of(op: Operation) -> Operation:
    """The func.func around `op`: loop and block names are unique per function, as in a TVM PrimFunc."""
    if isinstance(op, func.FuncOp):
        return op
    return parent_of_type(op, func.FuncOp) or op.get_toplevel_object()


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
