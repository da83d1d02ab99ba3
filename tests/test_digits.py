"""Loop variables as digits (passes/analysis/digits.py): the change of variables is exact, and it
removes the floordivs and mods that fuse and split write."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block

from xtir.dialects.expr import Div, Expr, Mod
from xtir.passes.analysis.digits import to_digits
from xtir.passes.analysis.instances import column_ids, distinct, gapless, separated


def _variables(n: int):
    return Block(arg_types=[IndexType()] * n).args


def _has_div_mod(e: Expr) -> bool:
    return any(isinstance(atom, Div | Mod) for atom, _ in e.terms)


def test_fetch_of_a_fused_tile_becomes_linear():
    b, k, f0, f1, f2 = _variables(5)
    extents = {b: 8192, k: 256, f0: 8, f1: 8, f2: 4}
    e = Expr.var(f0) * 32 + Expr.var(f1) * 4 + Expr.var(f2)
    rows = Expr.var(b).floordiv(64) * 32 + e.floordiv(8)
    cols = Expr.var(k) * 8 + e.mod(8)
    (r, c), digits = to_digits([rows, cols], extents)
    assert not _has_div_mod(r) and not _has_div_mod(c)
    assert [digits.extents[d] for d in digits.of(f1)] == [2, 4]  # f1 = f1_hi * 2 + f1_lo
    assert [digits.extents[d] for d in digits.of(b)] == [64, 128]
    # every (b, f0, f1, f2) is told apart by its element and k
    assert separated([rows, cols], [1, 1], {f0: 8, f1: 8, f2: 4})
    assert gapless([rows, cols], [1, 1], {f0: 8, f1: 8, f2: 4})


def test_a_cut_that_breaks_the_chain_leaves_the_atom():
    (f,) = _variables(1)
    # cuts at 4 (floordiv 4) and 6 (mod 6): 4 does not divide 6, so one atom stays
    (a, m), _ = to_digits([Expr.var(f).floordiv(4), Expr.var(f).mod(6)], {f: 24})
    assert _has_div_mod(a) or _has_div_mod(m)


@pytest.mark.parametrize("seed", range(40))
def test_digits_keep_every_value(seed: int):
    """Random fused/split-like expressions: at every point, the digit form evaluated at the
    point's digits equals the expression evaluated at the point."""
    rnd = random.Random(seed)
    variables = _variables(3)
    extents = {v: rnd.choice([2, 3, 4, 6, 8, 12]) for v in variables}
    exprs = []
    for _ in range(3):
        e = sum((Expr.var(v) * rnd.choice([-2, 1, 1, 2, 3, 4, 8]) for v in variables if rnd.random() < 0.8),
                Expr((), rnd.choice([0, 0, 1, 5])))
        for _ in range(rnd.choice([1, 1, 2])):
            q = rnd.choice([2, 3, 4, 6, 8])
            e = e.floordiv(q) if rnd.random() < 0.5 else e.mod(q)
            e = e * rnd.choice([1, 2, 4]) + Expr.var(rnd.choice(variables)) * rnd.choice([0, 1])
        exprs.append(e)
    written, digits = to_digits(exprs, extents)
    for point in itertools.product(*(range(n) for n in extents.values())):
        env = dict(zip(extents, point))
        digit_env = {}
        for v, value in env.items():
            places = digits.places.get(v, [(v, 1)])
            for (d, w), nxt in zip(places, [*(w for _, w in places[1:]), None]):
                digit_env[d] = (value // w) % (nxt // w) if nxt is not None else value // w
        assert [e.evaluate(env) for e in exprs] == [e.evaluate(digit_env) for e in written]


@pytest.mark.parametrize("span", [3, 1 << 40])
def test_distinct_columns_counts_as_numpy_does(span: int):
    """`distinct` counts columns by one mixed-radix key each (np.unique over columns sorted
    void rows: 27 s of lower-to-gpu's 29 s on the 4096 hand GEMM); past 63 bits of key, by columns."""
    rng = np.random.default_rng(span)
    for rows in (1, 2, 3):
        keys = rng.integers(-span, span, size=(rows, 500), dtype=np.int64)
        keys[:, 250:] = keys[:, :250]  # repeated columns
        assert distinct(keys) == np.unique(keys, axis=1).shape[1]
        ids = column_ids(keys)
        assert all((ids[a] == ids[b]) == (keys[:, a] == keys[:, b]).all() for a, b in rng.integers(0, 500, (200, 2)))
    assert distinct(np.zeros((2, 0), np.int64)) == 0
