"""Does an index expression stay in a range, where facts `e < bound` (a predicate) hold?

Used by the block verifier (bindings and accesses under a block's `where`) and by
lower-blocks (every access, under the guards it is inlined into). `within` first bounds
the expression by interval arithmetic tightened with the facts: a fact `e < b` caps any
expression that is a multiple of e plus something bounded (`i_0 * 16 + i_1` under
`i_0 * 16 + i_1 < 1000`; `(i_0 * 16 + i_1) * 4 + j` too), also inside a floordiv or mod.
When that is not enough it runs every point of the variables involved (up to
ENUMERATION_LIMIT): either the expression stays inside wherever the facts hold, or a point
shows where it leaves. Beyond the limit the answer is unknown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from xtir.dialects.expr import Bounds, Div, Expr, Mod, Var

Fact = tuple[Expr, int]
"""`expr < bound`, for every point that runs."""

ENUMERATION_LIMIT = 1 << 20


@dataclass(frozen=True)
class Verdict:
    """`inside` is True (shown), False (a point leaves: `witness` values, `value` there) or
    None (unknown); `span` is the interval the facts allowed."""

    inside: bool | None
    span: tuple[int, int] | None
    witness: dict[SSAValue, int] | None = None
    value: int | None = None


def within(expr: Expr, lo: int, hi: int, facts: Sequence[Fact], bounds: Bounds) -> Verdict:
    """Whether `expr` stays in [lo, hi] at every point of its variables' bounds where all
    `facts` hold."""
    span = fact_bounds(expr, facts, bounds)
    if span is not None and lo <= span[0] and span[1] <= hi:
        return Verdict(True, span)
    return _search(expr, lo, hi, facts, bounds, span)


def fact_bounds(expr: Expr, facts: Sequence[Fact], bounds: Bounds) -> tuple[int, int] | None:
    """An inclusive interval holding `expr` wherever the facts hold (None: unbounded)."""
    span = _atom_sum(expr, facts, bounds)
    return None if span is None else _tighten(expr, span, facts, bounds)


def _atom_sum(expr: Expr, facts: Sequence[Fact], bounds: Bounds) -> tuple[int, int] | None:
    lo = hi = expr.const
    for atom, coef in expr.terms:
        if isinstance(atom, Var):
            span = bounds(atom.value)
            span = None if span is None else _tighten(Expr.var(atom.value), span, facts, bounds)
        else:
            span = _div_mod_bounds(atom, fact_bounds(atom.expr, facts, bounds))
        if span is None:
            return None
        a, b = span[0] * coef, span[1] * coef
        lo, hi = lo + min(a, b), hi + max(a, b)
    return lo, hi


def _div_mod_bounds(atom: Div | Mod, inner: tuple[int, int] | None) -> tuple[int, int] | None:
    if isinstance(atom, Div):
        return None if inner is None else (inner[0] // atom.divisor, inner[1] // atom.divisor)
    if inner is not None and inner[0] >= 0:
        return inner if inner[1] < atom.divisor else (0, min(inner[1], atom.divisor - 1))
    return 0, atom.divisor - 1


def _tighten(expr: Expr, span: tuple[int, int], facts: Sequence[Fact], bounds: Bounds) -> tuple[int, int]:
    """For each fact `e < bound` and multiple c of it in `expr` (`16 * e + i_1`): `expr` =
    c * e + (expr - c * e) is at most c * (bound - 1) + max(expr - c * e) when c > 0, and at
    least c * (bound - 1) + min(expr - c * e) when c < 0."""
    lo, hi = span
    for e, bound in facts:
        for c in _multiples(expr, e):
            rest = (expr - e * c).bounds(bounds)
            if rest is None:
                continue
            if c > 0:
                hi = min(hi, c * (bound - 1) + rest[1])
            else:
                lo = max(lo, c * (bound - 1) + rest[0])
    return lo, hi


def _multiples(expr: Expr, e: Expr) -> set[int]:
    """The nonzero c for which some term of `e`, times c, is a term of `expr`."""
    coefs = dict(expr.terms)
    return {coefs[atom] // k for atom, k in e.terms if atom in coefs and coefs[atom] % k == 0}


def _search(
    expr: Expr, lo: int, hi: int, facts: Sequence[Fact], bounds: Bounds, span: tuple[int, int] | None
) -> Verdict:
    variables = list(dict.fromkeys([*expr.variables(), *(v for e, _ in facts for v in e.variables())]))
    spans = [bounds(v) for v in variables]
    if any(s is None for s in spans):
        return Verdict(None, span)
    sizes = [s[1] - s[0] + 1 for s in spans if s is not None]
    if int(np.prod(sizes, dtype=object)) > ENUMERATION_LIMIT:
        return Verdict(None, span)
    # Python integers where int64 could overflow (index constants are checked in lowering)
    known = {v: s for v, s in zip(variables, spans) if s is not None}
    exact = any(_magnitude(e, known) >= 2**62 for e in [expr, *(e for e, _ in facts)])
    dtype = object if exact else np.int64
    grids = np.meshgrid(*[np.arange(s[0], s[1] + 1, dtype=np.int64).astype(dtype) for s in spans if s is not None],
                        indexing="ij")
    env = {v: g.ravel() for v, g in zip(variables, grids)}
    runs = np.ones(grids[0].size if grids else 1, dtype=bool)
    for e, bound in facts:
        runs &= np.asarray(e.evaluate(env)) < bound
    values = np.broadcast_to(np.asarray(expr.evaluate(env), dtype=dtype), runs.shape)
    outside = runs & ((values < lo) | (values > hi))
    if not outside.any():
        return Verdict(True, span)
    k = int(np.argmax(outside))
    return Verdict(False, span, {v: int(env[v][k]) for v in variables}, int(values[k]))



def _magnitude(expr: Expr, spans: dict[SSAValue, tuple[int, int]]) -> int:
    """A bound on |value| of `expr` and of every partial sum evaluating it computes."""
    total = abs(expr.const)
    for atom, coef in expr.terms:
        if isinstance(atom, Var):
            lo, hi = spans[atom.value]
            total += abs(coef) * max(abs(lo), abs(hi))
        else:
            total += abs(coef) * _magnitude(atom.expr, spans)
    return total
