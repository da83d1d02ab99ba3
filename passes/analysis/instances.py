"""Does an iteration of a loop chain run some block instance more than once?

compute-at relaxes regions: the moved block may be recomputed in each iteration of a
loop that binds none of its variables, or over overlapping windows. That is harmless
while the block's init runs at each recomputation, not once it is split off
(decompose-reduction).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import SSAValue

from xtir.dialects.block import BlockOp, ForOp, loop_bounds
from xtir.dialects.expr import Div, Expr, Mod, Var
from xtir.passes.analysis.digits import in_digits

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
            which = f"loop {names} runs" if len(group) == 1 else f"the loops {names} run"
            return f'{which} some instance of block "{block.label}" more than once'
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
    return injective({lp.var: lp.extent for lp in loops}, exprs)


def injective(extents: dict[SSAValue, int], exprs: Sequence[Expr]) -> bool:
    """Whether different values of the variables of `extents` give different values of `exprs`."""
    if separated(_undo_fuse(list(exprs)), [1] * len(exprs), extents):
        return True
    size = int(np.prod(list(extents.values()), dtype=object))
    found = points_in_context(list(extents.items()), exprs)
    # Not provably injective (too many points, unbounded context): refuse rather than miscompile.
    return found is not None and distinct(found[0]) == size * found[1]


def points_in_context(
    ranges: Sequence[tuple[SSAValue, int]], exprs: Sequence[Expr]
) -> tuple[np.ndarray, int] | None:
    """`points` of `exprs` over `ranges`, for every value of each other variable that a
    floordiv or mod mixes with them (`(o + i) floordiv 2` depends on o's parity); those
    values are extra rows, so points of different contexts never coincide. Variables only
    added (`o * 16 + i`) shift every point alike and stay 0. Returns the points and the
    number of contexts; None past ENUMERATION_LIMIT or for a context variable of unknown range."""
    inner = {var for var, _ in ranges}
    context: dict[SSAValue, None] = {}
    for e in exprs:
        for atom, _ in e.terms:
            if isinstance(atom, Div | Mod) and any(v in inner for v in atom.expr.variables()):
                context.update(dict.fromkeys(v for v in atom.expr.variables() if v not in inner))
    bounds = [loop_bounds(v) for v in context]
    if any(b is None for b in bounds):
        return None
    extents = [b[1] + 1 for b in bounds if b is not None]
    values = points([*ranges, *zip(context, extents)], [*exprs, *map(Expr.var, context)])
    return None if values is None else (values, int(np.prod(extents, dtype=object)))


def points(ranges: Sequence[tuple[SSAValue, int]], exprs: Sequence[Expr]) -> np.ndarray | None:
    """The values of `exprs` (rows) at each point (columns) of the box `var in [0, extent)`,
    other variables set to 0; None when the box has more than ENUMERATION_LIMIT points."""
    size = int(np.prod([extent for _, extent in ranges], dtype=object))
    if size > ENUMERATION_LIMIT:
        return None
    grids = np.meshgrid(*[np.arange(extent, dtype=np.int64) for _, extent in ranges], indexing="ij")
    env: dict[SSAValue, np.ndarray | int] = {var: g.ravel() for (var, _), g in zip(ranges, grids)}
    env |= dict.fromkeys((v for e in exprs for v in e.variables() if v not in env), 0)
    return np.stack([np.broadcast_to(e.evaluate(env), (size,)) for e in exprs])


def distinct(values: np.ndarray) -> int:
    """How many different columns `values` has."""
    return int(column_ids(values).max()) + 1 if values.size else 0


def column_ids(keys: np.ndarray) -> np.ndarray:
    """An id per column of `keys`, equal for equal columns: one mixed-radix number per column
    when they fit in 63 bits (far quicker to sort than the columns), else np.unique's."""
    lo, hi = keys.min(axis=1), keys.max(axis=1)
    if int(np.prod([int(h) - int(m) + 1 for m, h in zip(lo, hi)], dtype=object)) >= 2**62:
        return np.unique(keys, axis=1, return_inverse=True)[1].ravel()
    code = np.zeros(keys.shape[1], dtype=np.int64)
    for row, m, h in zip(keys, lo, hi):
        code = code * (int(h) - int(m) + 1) + (row - m)
    return np.unique(code, return_inverse=True)[1].ravel()


def _undo_fuse(exprs: list[Expr]) -> list[Expr]:
    """Replace each pair `E floordiv d`, `E mod d` (what fuse binds) by E: together they
    take as many values as E does."""
    atoms = {e.terms[0][0]: e for e in exprs if e.const == 0 and len(e.terms) == 1 and e.terms[0][1] == 1}
    result = list(exprs)
    for atom, div in atoms.items():
        if isinstance(atom, Div) and (mod := atoms.get(Mod(atom.expr, atom.divisor))) is not None:
            result = [e for e in result if e is not div and e is not mod] + [atom.expr]
    return result if len(result) == len(exprs) else _undo_fuse(result)


def plain_terms(exprs: Sequence[Expr], extents: dict[SSAValue, int]) -> list[list[tuple[int, int]]] | None:
    """Per expression, (|stride|, extent) of each term that is a variable of `extents`; None
    when such a variable is inside a floordiv/mod or appears in two expressions."""
    seen: set[SSAValue] = set()
    result = []
    for e in exprs:
        terms = []
        for atom, coef in e.terms:
            if isinstance(atom, Div | Mod) and any(v in extents for v in atom.expr.variables()):
                return None
            if isinstance(atom, Var) and atom.value in extents:
                if atom.value in seen:
                    return None
                seen.add(atom.value)
                terms.append((abs(coef), extents[atom.value]))
        result.append(terms)
    return result


def _spans(terms: list[tuple[int, int]], span: int, fits: Callable[[int, int], bool]) -> bool:
    """Walk the terms from the smallest stride, `span` the largest value the smaller ones
    reach; each stride must `fit` that span."""
    for stride, extent in sorted(terms):
        if not fits(stride, span):
            return False
        span += stride * (extent - 1)
    return True


def gapless(exprs: Sequence[Expr], sizes: Sequence[int], extents: dict[SSAValue, int]) -> bool:
    """Whether index `exprs` (tiles of `sizes` at each) reach every value between their
    least and greatest as the variables of `extents` run, shown from the strides: each
    stride at most one past what the smaller terms and the tile reach (fused and split loops as digits,
    passes/analysis/digits.py)."""
    per_expr = plain_terms(*in_digits(exprs, extents))
    return per_expr is not None and all(
        _spans(terms, size - 1, lambda stride, span: stride <= span + 1) for terms, size in zip(per_expr, sizes)
    )


def separated(exprs: Sequence[Expr], sizes: Sequence[int], extents: dict[SSAValue, int]) -> bool:
    """Whether tiles of `sizes` at index `exprs` share no element for any two different values of the
    variables of `extents`. Shown from the strides (each loop feeds one index as a plain term, each
    stride beyond what the smaller terms and the tile reach: `i_0 * 16 + i_1` with tiles of one; the
    dual of `gapless`; fused and split loops as digits, passes/analysis/digits.py), or, for tiles on a
    grid of their size (`(f floordiv 8) * 8` with tiles of 8), as different grid cells."""
    per_expr = plain_terms(*in_digits(exprs, extents))
    if per_expr is not None and all(
        _spans(terms, size - 1, lambda stride, span: stride > span) for terms, size in zip(per_expr, sizes)
    ):
        return True
    on_grid = all(e.const % n == 0 and all(c % n == 0 for _, c in e.terms) for e, n in zip(exprs, sizes))
    return any(n > 1 for n in sizes) and on_grid and injective(
        extents, [Expr._make({a: c // n for a, c in e.terms}, e.const // n) for e, n in zip(exprs, sizes)])
