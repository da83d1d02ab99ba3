"""Rewriting the index expressions of ops in place of variables (the core of loop passes).

Also the surgery every primitive shares: replacing an op by a rebuilt one, erasing a block
with the loops it leaves empty, cloning statements. It goes through xDSL's `Rewriter`
(insertion points, replace with uses moved, erase) rather than raw detach/erase calls.

Loop variables are used by block bindings and predicates (and, inside a block, by
buffer indices); substituting a variable rebuilds each user with new expressions,
since the expressions live in an affine map over the op's operands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.accel import RegionOp
from xtir.dialects.block import BlockOp, ForOp, LoadOp, StoreOp
from xtir.dialects.expr import Expr
from xtir.lowering.index_expr import IndexEmitter
from xtir.passes.analysis.regions import loop_bounds


def move_ops(ops: Sequence[Operation], to: InsertPoint) -> None:
    """Move `ops` (in order, uses kept) to `to`: xDSL's Rewriter inserts only detached ops."""
    for op in ops:
        op.detach()
    Rewriter.insert_op(ops, to)


def replace_op(old: Operation, new: Operation) -> Operation:
    """Put `new` where `old` is: attributes, location, result names and uses move over."""
    new.attributes |= old.attributes
    new.location = old.location
    for o, n in zip(old.results, new.results):
        n.name_hint = o.name_hint
    Rewriter.replace_op(old, new)
    return new


def rebuild_block(block: BlockOp, bindings: list[Expr], predicate: list[tuple[Expr, int]]) -> BlockOp:
    """Replace `block` by a copy with new bindings and predicate; the body and the
    annotations move over."""
    iters = [(it.var.name_hint or "", it.kind, it.extent, b) for it, b in zip(block.iters(), bindings)]
    body = block.detach_region(block.body)
    new = BlockOp(block.label, iters, body, predicate, block.annotations)
    replace_op(block, new)
    return new


def substitute_in_op(op: Operation, mapping: Mapping[SSAValue, Expr]) -> Operation:
    """Rewrite the index expressions of one op with `mapping` applied."""

    def sub(e: Expr) -> Expr:
        return e.substitute(mapping, loop_bounds)

    if isinstance(op, BlockOp):
        return rebuild_block(op, [sub(b) for b in op.bindings()], [(sub(e), n) for e, n in op.predicate()])
    if isinstance(op, LoadOp):
        return replace_op(op, LoadOp(op.buffer, [sub(e) for e in op.indices()]))
    if isinstance(op, StoreOp):
        return replace_op(op, StoreOp(op.value, op.buffer, [sub(e) for e in op.indices()]))
    if isinstance(op, RegionOp):
        regions = [(b, [sub(e) for e in offs], sizes) for b, offs, sizes in op.regions_()]
        return replace_op(op, type(op)(*regions))
    raise AssertionError(f"{op.name} does not use index expressions")


def reindex(op: LoadOp | StoreOp, indices: list[Expr]) -> Operation:
    """Replace an access by the same access at other indices."""
    if isinstance(op, LoadOp):
        return replace_op(op, LoadOp(op.buffer, indices))
    return replace_op(op, StoreOp(op.value, op.buffer, indices))


def reregion(op: RegionOp, regions: list) -> Operation:
    """Replace an accel op by the same op on other regions ((buffer, offsets, sizes) each)."""
    return replace_op(op, type(op)(*regions))


def erase_empty_loops(op: Operation | None) -> None:
    """Erase `op` if it is a loop left without a body, then its parents while they become empty."""
    while isinstance(op, ForOp) and op.body.block.first_op is None:
        parent = op.parent_op()
        Rewriter.erase_op(op)
        op = parent


def substitute_var(var: SSAValue, expr: Expr, within: Operation | None = None) -> None:
    """Replace the uses of an index variable (those inside `within`, if given) by an expression:
    in index expressions, and where arithmetic uses it as a value (an if_then_else's comparison,
    an index cast) by the expression computed before the user."""
    users = {id(use.operation): use.operation for use in list(var.uses)}
    for user in users.values():
        if within is not None and not within.is_ancestor(user):
            continue
        if isinstance(user, BlockOp | LoadOp | StoreOp | RegionOp):
            substitute_in_op(user, {var: expr})
            continue
        value = _LocalIndexEmitter(user).expr(expr)
        for k, operand in enumerate(user.operands):
            if operand is var:
                user.operands[k] = value


def clone_before(
    ops: Sequence[Operation], anchor: Operation, at: Mapping[SSAValue, Expr], values: dict[SSAValue, SSAValue]
) -> dict[SSAValue, SSAValue]:
    """Copy `ops` before `anchor`, their loads reading with the iteration variables replaced per `at`.

    `values` maps original values to their replacements (seed it to substitute some) and
    comes back with the copies' results added. An iteration variable that arithmetic uses as a
    value (a comparison of an `if_then_else`, an index cast) becomes its expression, computed
    before `anchor`; the loads nested in an op's regions (an scf.if's branches) are re-indexed too.
    """
    emitter = _LocalIndexEmitter(anchor)
    for op in ops:
        if isinstance(op, LoadOp):
            values[op.result] = _clone_load(op, at, InsertPoint.before(anchor))
            continue
        for var in _variables_used(op, at):
            if var not in values:
                values[var] = emitter.expr(at[var])
        copy = op.clone(values)  # clone records its results in `values`
        for old, new in zip(list(op.walk()), list(copy.walk())):
            if isinstance(old, LoadOp) and old is not op:
                values[old.result] = _clone_load(old, at, InsertPoint.before(new))
                new.result.replace_all_uses_with(values[old.result])
                Rewriter.erase_op(new)
        Rewriter.insert_op(copy, InsertPoint.before(anchor))
    return values


def _clone_load(op: LoadOp, at: Mapping[SSAValue, Expr], where: InsertPoint) -> SSAValue:
    load = LoadOp(op.buffer, [e.substitute(at, loop_bounds) for e in op.indices()])
    load.attributes |= op.attributes
    load.location = op.location
    load.result.name_hint = op.result.name_hint
    Rewriter.insert_op(load, where)
    return load.result


def _variables_used(op: Operation, at: Mapping[SSAValue, Expr]) -> list[SSAValue]:
    """The substituted variables that `op` or an op nested in it (other than a load, which takes
    them as index expressions) uses as values."""
    used = {v: None for o in op.walk() if not isinstance(o, LoadOp) for v in o.operands if v in at}
    return list(used)


class _LocalIndexEmitter(IndexEmitter):
    """Index arithmetic with its constants next to it (a block body uses no value from outside)."""

    def const(self, value: int) -> SSAValue:
        return self.emit(arith.ConstantOp(IntegerAttr(value, IndexType())))


def remove_nest(block: BlockOp) -> None:
    """Erase `block` and the loops its removal leaves empty (TVM's leaf block removal)."""
    parent = block.parent_op()
    Rewriter.erase_op(block)
    erase_empty_loops(parent)
