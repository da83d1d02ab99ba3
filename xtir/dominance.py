"""Use before definition: the one dominance rule xtir checks (xDSL's verifier checks none).

Without it, IR whose operand is used above its definition parses and verifies, and then
the evaluator, the LLVM translation or a pass fails on it with a KeyError.

In a region with one block (every region of xtir's dialects, of func and of structured
control flow), an op may use the block's arguments, the results of the ops before it in
the block, and whatever the enclosing op may use. A region with several blocks (branches,
after lowering) would need a dominator tree: there every value of the region counts as
defined everywhere in it, so only single-block scopes are checked.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue


def first_use_before_definition(root: Operation) -> tuple[Operation, int, SSAValue] | None:
    """The first op under `root`, in program order, with an operand defined inside `root` but
    not above the op: (op, operand index, value); None when every use is preceded by its
    definition. Values defined outside `root` are taken as given."""
    return _check_regions(root, root, set())


def _check_regions(op: Operation, root: Operation, visible: set[SSAValue]) -> tuple[Operation, int, SSAValue] | None:
    for region in op.regions:
        # the values of a multi-block region count as defined throughout it (see the module docstring)
        shared = _defined_in(region.blocks) if len(region.blocks) > 1 else []
        visible.update(shared)
        for block in region.blocks:
            found = _check_block(block, root, visible)
            if found is not None:
                return found
        visible.difference_update(shared)
    return None


def _check_block(block: Block, root: Operation, visible: set[SSAValue]) -> tuple[Operation, int, SSAValue] | None:
    """Check `block`'s ops in order; the values it defines are visible only while it is checked
    (those of a multi-block region already are, and stay so)."""
    defined = [v for v in block.args if v not in visible]
    visible.update(defined)
    try:
        for op in block.ops:
            for index, operand in enumerate(op.operands):
                if operand not in visible and _defined_under(operand, root):
                    return op, index, operand
            found = _check_regions(op, root, visible)
            if found is not None:
                return found
            results = [v for v in op.results if v not in visible]
            visible.update(results)
            defined.extend(results)
        return None
    finally:
        visible.difference_update(defined)


def _defined_in(blocks) -> list[SSAValue]:
    values: list[SSAValue] = []
    for block in blocks:
        values.extend(block.args)
        for op in block.ops:
            values.extend(op.results)
    return values


def _defined_under(value: SSAValue, root: Operation) -> bool:
    """Whether `value` is defined by an op or block argument nested in `root`."""
    owner = value.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    return op is not None and (op is root or root.is_ancestor(op))
