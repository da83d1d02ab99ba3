"""Block predicates (`where(e0 < b0, e1 < b1, ...)`): a conjunction, never a map.

A predicate is a list of conjuncts `e < bound` over the loops around a block. Passes
that give a block new conditions conjoin them with the old ones (two bounds on one
expression keep the tighter). Passes that move a block to new loops, whose old loops
the conjuncts test, keep the instances it runs instead (analysis/footprint.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.ir import SSAValue

from xtir.dialects.expr import Expr, Var

Conjunct = tuple[Expr, int]


def conjoin(*predicates: Iterable[Conjunct]) -> list[Conjunct]:
    """All conjuncts of `predicates`, in order; a repeated expression keeps its least bound."""
    bounds: dict[Expr, int] = {}
    for predicate in predicates:
        for expr, bound in predicate:
            bounds[expr] = min(bounds.get(expr, bound), bound)
    return list(bounds.items())


def bound_on(conjunct: Conjunct, exprs: Sequence[Expr]) -> tuple[int, int] | None:
    """(d, b) when the conjunct reads `exprs[d] < b` (its expression is exprs[d] plus a constant)."""
    expr, bound = conjunct
    for d, target in enumerate(exprs):
        if (diff := expr - target).is_const and target.terms:
            return d, bound - diff.const
    return None


def at_first(conjunct: Conjunct, loops: Iterable[SSAValue]) -> Conjunct | None:
    """The conjunct with the variables of `loops` at 0, when it cuts only a tail of their iterations
    (`k_0 * 8 + k_1 < 60`): each appears alone with a positive stride, so among the iterations of
    those loops (the others fixed) the ones it keeps are closed downwards, none or from the first
    (all 0) on, and some iteration meets it exactly when the first does. None otherwise."""
    expr, bound = conjunct
    zero = set(loops)
    for atom, coef in expr.terms:
        alone = isinstance(atom, Var) and atom.value in zero
        if (alone and coef <= 0) or (not alone and any(Expr(((atom, 1),)).uses(v) for v in zero)):
            return None
    return expr.substitute(dict.fromkeys(zero, Expr())), bound
