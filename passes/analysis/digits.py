"""Loop variables as digits: index expressions with the floordivs and mods of fuse and split removed.

fuse writes each old variable as `f floordiv 8`, `f mod 8`; a split of the fused loop then puts
sums inside them (`(f_0 * 32 + f_1 * 4 + f_2) floordiv 8`). Reasoning from strides (is an index
gapless, are two iterations apart) cannot see through such atoms, and enumerating them costs
every point of every loop they mix. A change of variables removes them exactly: a variable v of
extent n becomes a mixed-radix number

    v = d_0 + c_1 * d_1 + c_2 * d_2 + ...      d_k in [0, c_(k+1) / c_k)   (c_0 = 1, the last: n)

cut where a floordiv or mod needs it (each cut c_k dividing the next, the last dividing n), so
that the values of v and the tuples of its digits match one to one. Then `v floordiv c_k` and
`v mod c_k` are sums of digits, and so is `E floordiv q` for a sum E whose terms each lie on one
side of a cut (Expr.floordiv simplifies it once its remainder provably stays in [0, q)). An atom
that no such cut makes linear stays, written in the digits.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, SSAValue

from xtir.dialects.block import loop_bounds
from xtir.dialects.expr import Div, Expr, Mod, Var


@dataclass
class Digits:
    """The digits of the variables that were cut (a variable not cut is its own single digit)."""

    extents: dict[SSAValue, int] = field(default_factory=dict)
    """Every digit's extent (the variables not cut included)."""
    places: dict[SSAValue, list[tuple[SSAValue, int]]] = field(default_factory=dict)
    """A cut variable's digits with their weights, the lowest first."""
    owner: dict[SSAValue, tuple[SSAValue, int]] = field(default_factory=dict)
    """A digit's variable and weight."""

    def of(self, var: SSAValue) -> list[SSAValue]:
        """The digits of `var`, the lowest first."""
        return [d for d, _ in self.places[var]] if var in self.places else [var]

    def value(self, var: SSAValue) -> Expr:
        """`var` as the sum of its weighted digits."""
        return Expr._make({Var(d): w for d, w in self.places[var]}, 0) if var in self.places else Expr.var(var)

    def bounds(self, value: SSAValue) -> tuple[int, int] | None:
        """Bounds of digits and of the variables given, else of loop and block variables."""
        n = self.extents.get(value)
        return (0, n - 1) if n is not None else loop_bounds(value)


def to_digits(exprs: Sequence[Expr], extents: Mapping[SSAValue, int]) -> tuple[list[Expr], Digits]:
    """`exprs` written in digits of the variables of `extents` (each in [0, extent)), cut where
    their floordivs and mods need it; and the digits."""
    cuts: dict[SSAValue, set[int]] = {v: set() for v, n in extents.items() if n > 1}
    while True:
        digits = _cut(cuts, extents)
        mapping = {v: digits.value(v) for v in digits.places}
        written = [e.substitute(mapping, digits.bounds) for e in exprs] if mapping else list(exprs)
        grown = False
        for var, cut in _wanted_cuts(written, digits):
            if var in cuts and cut not in cuts[var] and _chain(cuts[var] | {cut}, extents[var]):
                cuts[var].add(cut)
                grown = True
        if not grown:
            return written, digits


def _cut(cuts: Mapping[SSAValue, set[int]], extents: Mapping[SSAValue, int]) -> Digits:
    digits = Digits(extents=dict(extents))
    for var, at in cuts.items():
        if not at:
            continue
        weights = [1, *sorted(at)]
        sizes = [b // a for a, b in zip(weights, [*weights[1:], extents[var]])]
        fresh = Block(arg_types=[IndexType()] * len(weights)).args
        digits.places[var] = list(zip(fresh, weights))
        for d, w, n in zip(fresh, weights, sizes):
            digits.extents[d] = n
            digits.owner[d] = (var, w)
    return digits


def _chain(cuts: set[int], extent: int) -> bool:
    """Whether the cuts make digits of whole ranges: each divides the next, the last the extent."""
    ordered = sorted(cuts)
    return all(b % a == 0 for a, b in zip(ordered, [*ordered[1:], extent]))


def _wanted_cuts(exprs: Sequence[Expr], digits: Digits) -> Iterator[tuple[SSAValue, int]]:
    """(variable, cut) that would let a floordiv or mod left in `exprs` split its sum: a term
    `c * d` with c dividing the divisor q cuts the digit d at q / c."""
    for e in exprs:
        for atom, _ in e.terms:
            if not isinstance(atom, Div | Mod):
                continue
            yield from _wanted_cuts([atom.expr], digits)
            q = atom.divisor
            for inner, c in atom.expr.terms:
                if not isinstance(inner, Var) or c % q == 0 or q % abs(c) != 0:
                    continue
                var, weight = digits.owner.get(inner.value, (inner.value, 1))
                n = digits.extents.get(inner.value)
                s = q // abs(c)
                if n is not None and s < n and n % s == 0:
                    yield var, weight * s


def in_digits(exprs: Sequence[Expr], extents: Mapping[SSAValue, int]) -> tuple[list[Expr], dict[SSAValue, int]]:
    """`exprs` in digits (to_digits) and the extents of the digits of the variables of `extents`."""
    written, digits = to_digits(exprs, extents)
    return written, {d: digits.extents[d] for v in extents for d in digits.of(v)}
