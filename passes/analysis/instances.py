"""Does an iteration of a loop chain run some block instance more than once?

compute-at relaxes regions: the moved block may be recomputed in each iteration of a
loop that binds none of its variables, or over overlapping windows. That is harmless
while the block's init runs at each recomputation, not once it is split off
(decompose-reduction).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xtir.dialects.block import BlockOp, ForOp
from xtir.dialects.expr import Div, Expr, Mod, Var

# Loops sharing a binding are checked together by running all their iterations.
ENUMERATION_LIMIT = 1 << 20


def repeated_instances(block: BlockOp, loops: Sequence[ForOp]) -> str | None:
    """Why iterations of `loops` (enclosing `block`, outer values fixed) run an instance of
    `block` twice, or None when each instance runs at most once."""
    bindings = [it.binding for it in block.iters()]
    loops = [lp for lp in loops if lp.extent > 1]
    for lp in loops:
        if not any(b.uses(lp.var) for b in bindings):
            return (
                f'loop "{lp.label}" binds no variable of block "{block.label}", so each of its {lp.extent} '
                "iterations runs the same instances again"
            )
    for group in _coupled_loops(loops, bindings):
        exprs = [b for b in bindings if any(b.uses(lp.var) for lp in group)]
        if not _injective(group, exprs):
            names = ", ".join(f'"{lp.label}"' for lp in group)
            return f'the loops {names} run some instance of block "{block.label}" more than once'
    return None


def _coupled_loops(loops: list[ForOp], bindings: list[Expr]) -> list[list[ForOp]]:
    """Loops grouped so that no binding uses loops of two groups."""
    groups: list[list[ForOp]] = []
    for lp in loops:
        joined = [g for g in groups if any(b.uses(lp.var) and any(b.uses(o.var) for o in g) for b in bindings)]
        members = {id(lp)} | {id(o) for g in joined for o in g}
        merged = [o for o in loops if id(o) in members]  # outermost first
        groups = [g for g in groups if not any(g is j for j in joined)] + [merged]
    return groups


def _injective(loops: list[ForOp], exprs: list[Expr]) -> bool:
    if _mixed_radix(loops, _undo_fuse(exprs)):
        return True
    size = int(np.prod([lp.extent for lp in loops], dtype=object))
    if size > ENUMERATION_LIMIT:
        return False  # not provably injective: refuse rather than miscompile
    grids = np.meshgrid(*[np.arange(lp.extent, dtype=np.int64) for lp in loops], indexing="ij")
    env: dict[SSAValue, np.ndarray | int] = {lp.var: g.ravel() for lp, g in zip(loops, grids)}
    others = {v for e in exprs for v in e.variables() if v not in env}
    # Outer values are fixed while the group runs; try both ends of their unknown range.
    for outer in (0, 1 << 20):
        values = np.stack([np.broadcast_to(e.evaluate(env | dict.fromkeys(others, outer)), (size,)) for e in exprs])
        if np.unique(values, axis=1).shape[1] != size:
            return False
    return True


def _undo_fuse(exprs: list[Expr]) -> list[Expr]:
    """Replace each pair `E floordiv d`, `E mod d` (what fuse binds) by E: together they
    take as many values as E does."""
    atoms = {e.terms[0][0]: e for e in exprs if e.const == 0 and len(e.terms) == 1 and e.terms[0][1] == 1}
    result = list(exprs)
    for atom, div in atoms.items():
        if isinstance(atom, Div) and (mod := atoms.get(Mod(atom.expr, atom.divisor))) is not None:
            result = [e for e in result if e is not div and e is not mod] + [atom.expr]
    return result if len(result) == len(exprs) else _undo_fuse(result)


def _mixed_radix(loops: list[ForOp], exprs: list[Expr]) -> bool:
    """Each loop appears in one binding, as a plain term, with a stride beyond the span of
    the smaller terms there (`i_0 * 16 + i_1`): injective without enumerating."""
    vars_ = {lp.var: lp for lp in loops}
    seen: set[SSAValue] = set()
    for e in exprs:
        terms = []
        for atom, coef in e.terms:
            if isinstance(atom, Div | Mod) and any(v in vars_ for v in atom.expr.variables()):
                return False
            if isinstance(atom, Var) and atom.value in vars_:
                if atom.value in seen:
                    return False
                seen.add(atom.value)
                terms.append((abs(coef), vars_[atom.value].extent))
        span = 0
        for stride, extent in sorted(terms):
            if stride <= span:
                return False
            span += stride * (extent - 1)
    return True
