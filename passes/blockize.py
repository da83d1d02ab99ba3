"""blockize{loop=L}: make the subtree at loop L the body of a new outer block (TVM's blockize).

The single block X under L gets an outer block `X_o` whose iteration variables
cover the loops above L. Each binding `f` of X is divided into an outer and an inner
part, `f = o * E + i` with `i` ranging exactly over [0, E) on the loops from L down:
the outer block takes `v_o = o` with domain extent/E, the inner block keeps
`v_i = i` with domain E, and X's body reads `v_o * E + v_i`. A reduction's init
moves to the outer block as a loop nest over the inner spatial loops with block
`X_init` (variables `v_i_init`), exactly as TVM prints it. X and the loops keep their
annotations; the new outer block, init block and init loops have none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import SPATIAL, BlockOp, ForOp, InitOp, loops_in_scope
from xtir.dialects.expr import Expr, Var
from xtir.dialects.walk import ancestors
from xtir.passes.analysis.init_first import init_not_first, init_note
from xtir.passes.analysis.navigation import child_blocks, get_loop
from xtir.passes.analysis.regions import loop_bounds
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.rewrite import move_ops, substitute_var
from xtir.support.errors import ScheduleError


@dataclass(frozen=True)
class Division:
    """binding = outer * inner_extent + inner."""

    outer: Expr
    inner: Expr
    inner_extent: int


def divide(binding: Expr, inner_loops: set[SSAValue]) -> Division | None:
    """Split a binding into outer and inner parts, or None when it does not divide."""
    inner_terms, outer_terms = {}, {}
    for atom, coef in binding.terms:
        if not isinstance(atom, Var):
            if any(v in inner_loops for v in atom.expr.variables()):
                return None
            outer_terms[atom] = coef
        elif atom.value in inner_loops:
            inner_terms[atom] = coef
        else:
            outer_terms[atom] = coef
    inner = Expr._make(inner_terms, 0)
    if not _is_mixed_radix(inner):
        return None
    rng = inner.bounds(loop_bounds)
    assert rng is not None
    extent = rng[1] + 1
    outer = Expr._make(outer_terms, binding.const)
    if any(c % extent for _, c in outer.terms) or outer.const % extent:
        return None
    return Division(Expr._make({a: c // extent for a, c in outer.terms}, outer.const // extent), inner, extent)


def _is_mixed_radix(inner: Expr) -> bool:
    """Whether the inner terms enumerate [0, E) exactly once each (c1 = 1, c(k+1) = ck * extent k)."""
    expected = 1
    for atom, coef in sorted(inner.terms, key=lambda t: t[1]):
        rng = loop_bounds(atom.value)  # type: ignore[union-attr]
        if coef != expected or rng is None:
            return False
        expected *= rng[1] + 1
    return True


def loops_between(top: ForOp, block: BlockOp) -> list[ForOp]:
    """top and the loops below it down to block, outermost first."""
    loops = [p for p in ancestors(block, stop=top) if isinstance(p, ForOp)]
    return [top, *loops[::-1]]


def blockize(loop: ForOp) -> BlockOp:
    blocks = child_blocks(loop)
    if len(blocks) != 1:
        raise ScheduleError(loop, f'loop "{loop.label}" must have exactly one child block, found {len(blocks)} '
                            "(TVM: The loop is required to have only one child block)",
                            [(b, f'block "{b.label}" is a child block of loop "{loop.label}"') for b in blocks])
    (block,) = blocks
    if block.predicate():
        raise ScheduleError(
            block,
            f'block "{block.label}" has a predicate (from a non-dividing split); the bindings of the inner block '
            f'cannot be blockized by the loops starting at "{loop.label}"',
        )
    _check_init_runs_first(block, loop)
    inner_loops = loops_between(loop, block)
    inner_vars = {lp.var for lp in inner_loops}
    iters = block.iters()
    divisions = []
    for it in iters:
        d = divide(it.binding, inner_vars)
        if d is None or it.extent % d.inner_extent:
            raise ScheduleError(
                block,
                f"the bindings of the inner block \"{block.label}\" cannot be blockized by the loops starting at "
                f'"{loop.label}": %{it.var.name_hint} is not (outer) * E + (inner loops ranging over [0, E))',
            )
        divisions.append(d)

    # Every iteration variable gets an outer one, unit ones (`spatial(1, 0)`) included, as
    # TVM's blockize (preserve_unit_iters): a reduction stays a reduction block outside.
    outer_iters = [
        (f"{it.var.name_hint}_o", it.kind, it.extent // d.inner_extent, d.outer)
        for it, d in zip(iters, divisions)
    ]
    outer = BlockOp(f"{block.label}_o", outer_iters)
    outer.location = block.location
    outer_var = {}
    for k, (it, d) in enumerate(zip(iters, divisions)):
        if not d.outer.is_const or d.inner_extent < it.extent:
            outer_var[it.var] = Expr.var(outer.iter_vars[k])
        else:
            outer_var[it.var] = d.outer

    init = block.init
    Rewriter.insert_op(outer, InsertPoint.before(loop))
    move_ops([loop], InsertPoint.at_end(outer.body.block))
    if init is not None:
        Rewriter.insert_op(_outer_init(block, init, inner_loops, divisions, outer_var), InsertPoint.before(loop))

    _rebuild_inner(block, divisions, outer_var)
    return outer


def _check_init_runs_first(block: BlockOp, loop: ForOp) -> None:
    """The outer block runs the init once, before the loops from `loop` down; the block ran it at each
    of their steps where every reduce variable is 0: the same only when, in each iteration of the loops
    above, that is the first step of each instance that runs it, and the only one."""
    if block.init is None:
        return
    scope = loops_in_scope(block)
    above = scope[:next(k for k, lp in enumerate(scope) if lp is loop)]
    if (why := init_not_first(block, scope, above, every_run=False)) is not None:
        raise ScheduleError(loop, f'block "{block.label}" runs its init when every reduce variable is 0, which '
                            f'under loop "{loop.label}" is not the first step of each instance ({why}); the outer '
                            "block would run it once, before them all", [init_note(block)])


def _recombine(pairs: list, outer_var: dict, new_inner_vars: Sequence[SSAValue]) -> dict[SSAValue, Expr]:
    """v -> v_o * E + v_i for each (iteration variable, division); variables whose inner
    part is constant have no inner variable and take the next of `new_inner_vars` otherwise."""
    inner_vars = iter(new_inner_vars)
    mapping = {}
    for it, d in pairs:
        value = outer_var[it.var] * d.inner_extent
        if not d.inner.is_const:
            value = value + Expr.var(next(inner_vars))
        mapping[it.var] = value
    return mapping


def _rebuild_inner(block: BlockOp, divisions: list[Division], outer_var: dict) -> BlockOp:
    iters = block.iters()
    keep = [(it, d) for it, d in zip(iters, divisions) if not d.inner.is_const]
    inner = BlockOp(
        block.label,
        [(f"{it.var.name_hint}_i", it.kind, d.inner_extent, d.inner) for it, d in keep],
        annotations=block.annotations,
    )
    mapping = _recombine(list(zip(iters, divisions)), outer_var, inner.iter_vars)
    move_ops(list(block.body.block.ops), InsertPoint.at_end(inner.body.block))
    Rewriter.insert_op(inner, InsertPoint.before(block))
    for old_var, value in mapping.items():
        substitute_var(old_var, value)
    inner.attributes |= block.attributes
    inner.location = block.location
    Rewriter.erase_op(block)
    return inner


def _outer_init(block: BlockOp, init: InitOp, inner_loops: list[ForOp], divisions: list[Division], outer_var: dict) -> InitOp:
    """The outer block's init: loops over the inner spatial loops, around block X_init."""
    spatial = [(it, d) for it, d in zip(block.iters(), divisions) if it.kind == SPATIAL]
    used = [lp for lp in inner_loops if any(d.inner.uses(lp.var) for _, d in spatial)]
    copies = [ForOp(lp.label, lp.extent) for lp in used]
    to_copy = {lp.var: Expr.var(c.var) for lp, c in zip(used, copies)}
    keep = [(it, d) for it, d in spatial if not d.inner.is_const]
    init_block = BlockOp(
        f"{block.label}_init",
        [(f"{it.var.name_hint}_i_init", SPATIAL, d.inner_extent, d.inner.substitute(to_copy)) for it, d in keep],
    )
    init_block.location = init.location
    for lp, c in zip(used, copies):
        c.location = lp.location
    move_ops(list(init.body.block.ops), InsertPoint.at_end(init_block.body.block))
    for var, value in _recombine(spatial, outer_var, init_block.iter_vars).items():
        substitute_var(var, value, within=init_block)
    nest: BlockOp | ForOp = init_block
    for c in reversed(copies):
        c.body.block.add_op(nest)
        nest = c
    new_init = InitOp()
    new_init.body.block.add_op(nest)
    Rewriter.erase_op(init)
    return new_init


@dataclass(frozen=True)
class BlockizePass(StatementPrimitive):
    name = "blockize"

    loop: str

    def run(self, f: func.FuncOp) -> BlockOp:
        """Apply the blockize; return the new outer block (the Schedule API's result)."""
        loop = get_loop(f, self.loop)
        return blockize(loop)
