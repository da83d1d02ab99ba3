"""Unit tests of xtir.dialects.expr: quasi-affine index expressions over SSA values."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import AffineMapAttr, IndexType
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineExpr, AffineMap

from xtir.dialects.expr import (
    Div,
    Expr,
    Mod,
    Var,
    collect_operands,
    from_affine,
    from_affine_map,
    to_affine_map,
)


@pytest.fixture
def vs() -> tuple[SSAValue, ...]:
    """Four index values (block arguments) named i, j, k, l."""
    block = Block(arg_types=[IndexType()] * 4)
    for arg, name in zip(block.args, "ijkl"):
        arg.name_hint = name
    return tuple(block.args)


def bounded(**ranges: tuple[int, int]):
    """A bounds function from name hints to inclusive ranges; other values are unbounded."""

    def bounds(v: SSAValue) -> tuple[int, int] | None:
        return ranges.get(v.name_hint or "")

    return bounds


# arithmetic --------------------------------------------------------------------------


def test_construction(vs):
    i, *_ = vs
    assert Expr.of(3) == Expr((), 3)
    assert Expr.of(i) == Expr.var(i) == Expr(((Var(i), 1),))
    e = Expr.var(i) * 2
    assert Expr.of(e) is e
    assert Expr.of(0).is_const and not Expr.var(i).is_const


def test_add_sub_collects_terms_and_constants(vs):
    i, j, *_ = vs
    ei, ej = Expr.var(i), Expr.var(j)
    e = ei * 16 + ej + 3 - ej + 2
    assert e == ei * 16 + 5
    assert e.coefficient(i) == 16 and e.coefficient(j) == 0
    assert e.variables() == [i]  # the cancelled term is gone
    assert (ei - ei).is_const and (ei - ei).const == 0
    assert 1 + ei == ei + 1
    assert 10 - ei == -ei + 10
    assert (10 - ei).coefficient(i) == -1


def test_mul_and_neg(vs):
    i, j, *_ = vs
    ei, ej = Expr.var(i), Expr.var(j)
    assert (ei + ej * 2 - 1) * 3 == ei * 3 + ej * 6 - 3
    assert 3 * ei == ei * 3
    assert -(ei - 4) == ei * -1 + 4
    assert (ei * 5) * 0 == Expr.of(0)
    with pytest.raises(TypeError):
        ei * ej  # noqa: B018 (a product of two variables is not affine)


def test_equality_ignores_term_order_and_hashes_alike(vs):
    i, j, *_ = vs
    a = Expr(((Var(i), 1), (Var(j), 2)), 1)
    b = Expr(((Var(j), 2), (Var(i), 1)), 1)
    assert a == b and hash(a) == hash(b)
    assert a != Expr(((Var(j), 2), (Var(i), 1)), 2)
    assert len({a, b}) == 1


def test_variables_compare_by_identity():
    block = Block(arg_types=[IndexType(), IndexType()])
    x, y = block.args
    x.name_hint = y.name_hint = "same"
    assert Expr.var(x) != Expr.var(y)
    assert (Expr.var(x) + Expr.var(y)).variables() == [x, y]


def test_terms_print_order_largest_stride_first(vs):
    i, j, k, _ = vs
    e = Expr.var(k) + Expr.var(i) * 256 + Expr.var(j) * -16
    assert [v for v in e.variables()] == [i, j, k]


def test_queries(vs):
    i, j, *_ = vs
    ei, ej = Expr.var(i), Expr.var(j)
    assert ei.as_var() is i
    assert (ei + 0).as_var() is i
    assert (ei + 1).as_var() is None and (ei * 2).as_var() is None and Expr.of(4).as_var() is None
    e = (ei * 4 + ej).floordiv(8) + ei
    assert set(e.variables()) == {i, j}
    assert e.uses(j) and not Expr.of(1).uses(j)


# floordiv / mod ----------------------------------------------------------------------


def test_floordiv_mod_simplify_with_bounds(vs):
    i, j, *_ = vs
    ei, ej = Expr.var(i), Expr.var(j)
    b = bounded(j=(0, 15))
    assert (ei * 16 + ej).floordiv(16, b) == ei
    assert (ei * 16 + ej).mod(16, b) == ej
    # the split i * 16 + j with an offset that stays inside the divisor
    assert (ei * 32 + ej).floordiv(16, b) == ei * 2
    assert (ei * 16 + 3).floordiv(16) == ei
    assert (ei * 16 + 3).mod(16) == Expr.of(3)
    # a negative constant borrows from the quotient: 16 * i - 1 == 16 * (i - 1) + 15
    assert (ei * 16 - 1).floordiv(16) == ei - 1
    assert (ei * 16 - 1).mod(16) == Expr.of(15)


def test_floordiv_mod_not_simplified_when_unbounded(vs):
    i, j, *_ = vs
    ei, ej = Expr.var(i), Expr.var(j)
    e = ei * 16 + ej
    q, r = e.floordiv(16), e.mod(16)
    assert q == Expr(((Div(e, 16), 1),))
    assert r == Expr(((Mod(e, 16), 1),))
    assert q != ei and r != ej
    assert q.variables() == [i, j]


def test_floordiv_mod_not_simplified_when_rest_can_reach_divisor(vs):
    i, j, *_ = vs
    ei, ej = Expr.var(i), Expr.var(j)
    e = ei * 16 + ej
    assert e.floordiv(16, bounded(j=(0, 16))) == Expr(((Div(e, 16), 1),))
    assert e.floordiv(16, bounded(j=(-1, 15))) == Expr(((Div(e, 16), 1),))
    assert e.mod(16, bounded(j=(0, 16))) == Expr(((Mod(e, 16), 1),))


def test_floordiv_of_constants_and_nested_atoms(vs):
    i, *_ = vs
    ei = Expr.var(i)
    assert Expr.of(17).floordiv(4) == Expr.of(4)
    assert Expr.of(17).mod(4) == Expr.of(1)
    assert Expr.of(-1).floordiv(4) == Expr.of(-1)
    assert Expr.of(-1).mod(4) == Expr.of(3)
    # i mod 4 lies in [0, 3] whatever i is, so (i mod 4) floordiv 4 == 0
    assert ei.mod(4).floordiv(4) == Expr.of(0)
    assert ei.mod(4).mod(4) == ei.mod(4)
    # with i in [0, 63], i floordiv 16 lies in [0, 3]
    assert ei.floordiv(16).bounds(bounded(i=(0, 63))) == (0, 3)


def test_division_by_non_positive_constant(vs):
    i, *_ = vs
    with pytest.raises(ValueError, match="non-positive"):
        Expr.var(i).floordiv(0)
    with pytest.raises(ValueError, match="non-positive"):
        Expr.var(i).mod(-4)


def test_bounds(vs):
    i, j, *_ = vs
    ei, ej = Expr.var(i), Expr.var(j)
    b = bounded(i=(0, 3), j=(0, 15))
    assert (ei * 16 + ej).bounds(b) == (0, 63)
    assert (ej * -2 + 5).bounds(b) == (-25, 5)
    assert Expr.of(7).bounds(b) == (7, 7)
    assert (ei + Expr.var(vs[2])).bounds(b) is None  # k is unbounded
    assert ei.mod(4).bounds(bounded()) == (0, 3)
    assert ei.mod(8).bounds(bounded(i=(0, 5))) == (0, 5)


# substitute / evaluate ---------------------------------------------------------------


def test_substitute(vs):
    i, j, k, m = vs
    ei, ej, ek = Expr.var(i), Expr.var(j), Expr.var(k)
    # vi * 4 + vk, with vi := i_0 * 16 + i_1 (here k * 16 + l)
    e = ei * 4 + ej
    assert e.substitute({i: ek * 16 + Expr.var(m)}) == ek * 64 + Expr.var(m) * 4 + ej
    # unmapped variables stay; constants are kept
    assert (ei + 3).substitute({}) == ei + 3
    assert (ei + ej).substitute({j: Expr.of(5)}) == ei + 5


def test_substitute_simplifies_div_mod_with_bounds(vs):
    i, j, k, m = vs
    # fuse: f := i * 16 + j, then f floordiv 16 == i and f mod 16 == j when j < 16
    ef = Expr.var(k)
    fused = {k: Expr.var(i) * 16 + Expr.var(j)}
    b = bounded(j=(0, 15))
    assert ef.floordiv(16).substitute(fused, b) == Expr.var(i)
    assert ef.mod(16).substitute(fused, b) == Expr.var(j)
    # without bounds the divisions remain
    assert ef.floordiv(16).substitute(fused) == (Expr.var(i) * 16 + Expr.var(j)).floordiv(16)
    assert ef.floordiv(16).substitute(fused) != Expr.var(i)


def test_evaluate(vs):
    i, j, k, _ = vs
    ei, ej, ek = Expr.var(i), Expr.var(j), Expr.var(k)
    env = {i: 3, j: 5, k: 0}
    assert (ei * 16 + ej - 2).evaluate(env) == 51
    assert Expr.of(9).evaluate({}) == 9
    # floor semantics, as in MLIR's floordiv and mod
    assert (ek - 5).floordiv(4).evaluate(env) == -2
    assert (ek - 5).mod(4).evaluate(env) == 3
    assert (ei * 16 + ej).floordiv(16).evaluate(env) == 3
    assert (ei * 16 + ej).mod(16).evaluate(env) == 5
    with pytest.raises(KeyError):
        (ei + Expr.var(vs[3])).evaluate(env)


def test_simplification_preserves_value(vs):
    """Simplified and unsimplified forms agree on every point of the bounded domain."""
    i, j, *_ = vs
    e = Expr.var(i) * 16 + Expr.var(j) + 3
    b = bounded(i=(0, 3), j=(0, 12))
    for iv in range(4):
        for jv in range(13):
            env = {i: iv, j: jv}
            for d in (1, 2, 4, 16, 32):
                assert e.floordiv(d, b).evaluate(env) == e.evaluate(env) // d
                assert e.mod(d, b).evaluate(env) == e.evaluate(env) % d


def test_div_and_mod_of_one_expression_recombine(vs):
    """`d * (e floordiv d) + e mod d` is e (times any k): what fusing split loops writes. Each
    round of split and fuse used to double the binding instead (4x the IR per round)."""
    i, j, *_ = vs
    e = Expr.var(i) * 3 + Expr.var(j) - 2
    assert e.floordiv(8) * 8 + e.mod(8) == e
    assert (e.floordiv(8) * 24 + e.mod(8) * 3 + 5) == e * 3 + 5
    nested = e.floordiv(4).floordiv(2) * 8 + e.floordiv(4).mod(2) * 4 + e.mod(4)
    assert nested == e  # 8 * (x floordiv 2) + 4 * (x mod 2) is 4 * x, with x = e floordiv 4; then it is e
    assert e.floordiv(8) * 4 + e.mod(8) != e  # not the identity: kept as it is
    for iv in range(-3, 9):
        for jv in range(-5, 7):
            env = {i: iv, j: jv}
            value = e.evaluate(env)
            assert (e.floordiv(8) * 4 + e.mod(8)).evaluate(env) == value // 8 * 4 + value % 8


# AffineMap storage -------------------------------------------------------------------


def test_affine_map_round_trip(vs):
    i, j, k, _ = vs
    ei, ej, ek = Expr.var(i), Expr.var(j), Expr.var(k)
    exprs = [
        ei * 16 + ej,
        ej * -2 + ei + 3,
        (ej * 3 - 1).mod(8),
        (ei * 4 + ek).floordiv(16) * 2 - 1,
        Expr.of(5),
        -ei,
        ei.mod(4).floordiv(2),
    ]
    attr, operands = to_affine_map(exprs)
    assert isinstance(attr, AffineMapAttr)
    assert operands == [i, j, k]  # operands in order of first appearance
    assert attr.data.num_dims == 3 and attr.data.num_symbols == 0
    assert len(attr.data.results) == len(exprs)
    assert from_affine_map(attr, operands) == exprs


def test_affine_map_text(vs):
    i, j, *_ = vs
    attr, operands = to_affine_map([Expr.var(i) * 16 + Expr.var(j), Expr.var(j).mod(4)])
    assert operands == [i, j]
    assert str(attr) == "affine_map<(d0, d1) -> (((d0 * 16) + d1), (d1 mod 4))>"


def test_affine_map_of_constants_has_no_operands():
    attr, operands = to_affine_map([Expr.of(0), Expr.of(7)])
    assert operands == []
    assert from_affine_map(attr, []) == [Expr.of(0), Expr.of(7)]


def test_collect_operands_deduplicates(vs):
    i, j, *_ = vs
    assert collect_operands([Expr.var(j), Expr.var(i) + Expr.var(j), Expr.var(i).floordiv(2)]) == [j, i]


def test_from_affine_map_built_elsewhere(vs):
    """Maps written by hand (generic IR) read back into the same expressions."""
    i, j, *_ = vs
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    amap = AffineMapAttr(AffineMap(2, 0, (d0 * 16 + d1, d1 // 4, d0 % 8, d1.ceil_div(4))))
    ei, ej = Expr.var(i), Expr.var(j)
    assert from_affine_map(amap, [i, j]) == [ei * 16 + ej, ej.floordiv(4), ei.mod(8), (ej + 3).floordiv(4)]


def test_from_affine_rejects_non_constant_divisor(vs):
    i, j, *_ = vs
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    with pytest.raises(ValueError, match="non-affine"):
        from_affine(AffineBinaryOpExpr(AffineBinaryOpKind.FloorDiv, d0, d1), [i, j])
    # xDSL itself refuses to build a product of two dimensions
    with pytest.raises(NotImplementedError):
        d0 * d1  # noqa: B018
