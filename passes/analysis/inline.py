"""What compute-inline and reverse-compute-inline share.

Both move one block's computation into another block, so both accept only blocks in
TVM's inlinable form, `X[...] = f(loads...)`: loads, side-effect-free arithmetic and
one final store, using no value from outside the block other than its iteration
variables and buffers (so the computation can be copied anywhere its indices are
known). Both then remove the inlined block with the loops it leaves empty.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.traits import is_side_effect_free

from xtir.dialects.block import Access, AccessOp, BlockOp, LoadOp, StoreOp, buffer_name, enclosing_block
from xtir.dialects.expr import Expr
from xtir.passes.analysis.cache import top_level_ancestor
from xtir.passes.analysis.navigation import child_blocks
from xtir.passes.analysis.regions import format_expr
from xtir.passes.utils import function_of
from xtir.support.errors import ScheduleError


def owner_label(op: Operation) -> str:
    """`block "NAME"` for the block around `op`, for messages."""
    block = op if isinstance(op, BlockOp) else enclosing_block(op)
    return f'block "{block.label}"' if block is not None else f"{op.name} outside any block"


def format_access(buffer: SSAValue, indices: Sequence[Expr]) -> str:
    return f"{buffer_name(buffer)}[{', '.join(format_expr(e) for e in indices)}]"


HAS_INIT = "The block has init statement"
"""TVM's HasInitBlock, which compute_inline and reverse_compute_inline raise for the block they inline."""


def has_init_phrase(block: BlockOp) -> str | None:
    """TVM's phrase for refusing `block` as the block compute_inline (reverse_compute_inline) inlines."""
    return HAS_INIT if block.init is not None else None


def check_complete(block: BlockOp, what: str, tvm_phrase: str | None = None) -> None:
    """TVM's complete block: spatial iteration variables only (so no init either). `tvm_phrase` is
    what TVM says when it refuses the same block, if it does (TVM's checks differ by primitive)."""
    if block.reduce_vars:
        tvm = f" (TVM: {tvm_phrase})" if tvm_phrase else ""
        raise ScheduleError(
            block,
            f"{what} is a reduction block (reduce variable %{block.reduce_vars[0].name_hint}); "
            f"the primitive needs a complete block: spatial iteration variables only, no init{tvm}",
        )


def check_no_predicate(block: BlockOp) -> None:
    if pred := block.predicate():
        conds = ", ".join(f"{format_expr(e)} < {n}" for e, n in pred)
        raise ScheduleError(
            block,
            f'block "{block.label}" has a predicate (where {conds}); the primitive needs a block that runs over its whole domain',
        )


def single_store(block: BlockOp, what: str) -> StoreOp:
    """The store ending `block`'s body, after checking the body is in inlinable form."""
    ops = list(block.body.block.ops)
    stores = [op for op in ops if isinstance(op, StoreOp)]
    if len(stores) != 1 or ops[-1] is not stores[0]:
        found = f"it has {len(stores)} stores" if len(stores) != 1 else f"{ops[-1].name} follows its store"
        raise ScheduleError(block, f"the body of {what} must end in its only block.store, `X[...] = f(...)`; {found}")
    for op in ops[:-1]:
        if not is_inlinable_statement(op):
            raise ScheduleError(
                op,
                f"{what} contains {op.name}; an inlinable body holds only block.load, side-effect-free "
                "arithmetic, if_then_else (an scf.if yielding values computed so) and one final block.store",
            )
    for op in block.body.block.walk():
        for value in op.operands:
            if not visible_in_copy(value, block):
                raise ScheduleError(
                    op,
                    f"{what} uses %{value.name_hint or '?'}, defined outside the block; an inlinable body may "
                    "use only its own iteration variables, buffers and the values it computes",
                )
    return stores[0]


def is_plain_statement(op: Operation) -> bool:
    """A block.load or side-effect-free arithmetic: what a body may compute before its store."""
    return isinstance(op, LoadOp) or (not op.regions and is_side_effect_free(op))


def is_inlinable_statement(op: Operation) -> bool:
    """A plain statement, or TVM's if_then_else: an scf.if with results whose branches hold only
    plain statements (pad-einsum's `if_then_else(v0 < n, A[v0, v1], 0)`)."""
    if isinstance(op, scf.IfOp):
        return bool(op.results) and all(
            isinstance(o, scf.YieldOp) or is_inlinable_statement(o) for r in op.regions for o in r.block.ops)
    return is_plain_statement(op)


def visible_in_copy(value: SSAValue, block: BlockOp) -> bool:
    """Whether a copy of the body elsewhere can use `value` (or its substitute)."""
    body = block.body.block
    if isinstance(value.type, MemRefType):
        return True  # buffers are function arguments or function-level allocations
    if isinstance(value, BlockArgument):
        return value.owner is body
    owner = value.owner
    assert isinstance(owner, Operation)
    return block is not owner and block.is_ancestor(owner)


def plain_vars(indices: Sequence[Expr], block: BlockOp) -> list[SSAValue] | None:
    """The variables when `indices` are `block`'s iteration variables, each exactly once, else None."""
    own = set(block.iter_vars)
    found = [v for e in indices if (v := e.as_var()) is not None and v in own]
    return found if len(found) == len(indices) == len(set(found)) == len(own) else None


def body_loads(block: BlockOp, buffer: SSAValue) -> list[LoadOp]:
    """B's loads of `buffer`, those in an if_then_else's branches included."""
    return [op for op in block.body.block.walk() if isinstance(op, LoadOp) and op.buffer is buffer]


def check_only_leaf(block: BlockOp) -> None:
    """Refuse to remove the only block of a scope (TVM's OnlyLeafError): the scope would be empty."""
    scope = enclosing_block(block) or function_of(block)
    if child_blocks(scope) == [block]:
        where = f'block "{scope.label}"' if isinstance(scope, BlockOp) else "its function"
        raise ScheduleError(
            block,
            f'block "{block.label}" is the only block in the scope of {where}; removing it would leave the scope empty',
        )


def nests_between(f: func.FuncOp, ops: Sequence[Operation]) -> list[Operation]:
    """The statements of `f`'s body from the first to the last one that holds any of `ops`."""
    body = list(f.body.block.ops)
    tops = {top_level_ancestor(op, f) for op in ops}
    positions = [k for k, stmt in enumerate(body) if stmt in tops]
    return body[min(positions) : max(positions) + 1]


def accesses_outside(stmts: Sequence[Operation], block: BlockOp) -> Iterator[Access]:
    """The buffer accesses in `stmts` that `block` does not make itself."""
    for stmt in stmts:
        for op in stmt.walk():
            if isinstance(op, AccessOp) and not block.is_ancestor(op):
                yield from op.accesses()

