"""Block predicates (`where(e0 < b0, e1 < b1, ...)`): a conjunction, never a map.

A predicate is a list of conjuncts `e < bound` over the loops around a block. Passes
that give a block new conditions conjoin them with the old ones (two bounds on one
expression keep the tighter). Passes that move a block to new loops, whose old loops
the conjuncts test, keep the instances it runs instead (analysis/footprint.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xtir.dialects.expr import Expr

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
