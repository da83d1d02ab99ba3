"""Which points index expressions reach as loops run: a box, shown to be filled exactly.

A pass that turns "the points some iterations reach" into a box of a buffer or a domain
must not add points: cache-write copies the cache back over the box of elements a block
wrote (an element it never wrote would be overwritten with an uninitialized one), and
reverse-compute-inline bounds the producer by the box of instances the consumer ran. So
the box comes with how many of its points are reached:

- each nest (one store, or one block's bindings) is a list of index expressions over
  loops, run where its predicate conjuncts hold; a conjunct bounding one index
  (`i_0 * 8 + i_1 < 120` where the index is `i_0 * 8 + i_1`) cuts the box there;
- the indices of one nest fall into groups that share no loop (a conjunct links the
  indices it tests; one testing none, a reduction's split, only has to hold somewhere);
  the points are the product of the groups';
- a group whose loops each feed one index as a plain term, without gaps between the
  values (`i_0 * 16 + i_1`), and whose conjuncts all bound an index, fills its box;
  anything else (several stores, fused or strided indices, other predicates) is
  counted by running the loops (one key per point, up to ENUMERATION_LIMIT points).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import takewhile

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from xtir.dialects.block import BlockOp, ForOp, InitOp, StoreOp, buffer_name, loop_bounds, loops_in_scope
from xtir.dialects.expr import INT64_MAX, Bounds, Expr, Var
from xtir.dialects.walk import ancestors
from xtir.passes.analysis.digits import to_digits
from xtir.passes.analysis.instances import ENUMERATION_LIMIT, gapless, points, separated
from xtir.passes.analysis.navigation import loops_around
from xtir.passes.analysis.predicate import Conjunct, bound_on
from xtir.passes.analysis.regions import Range, relax

Box = list[tuple[int, int]]
"""[lo, hi) per dimension."""


@dataclass
class Nest:
    """Index expressions over loops (variable -> extent), run where every conjunct holds."""

    indices: list[Expr]
    loops: dict[SSAValue, int] = field(default_factory=dict)
    conjuncts: list[Conjunct] = field(default_factory=list)
    in_init: bool = False


@dataclass(frozen=True)
class Coverage:
    """The box around what some nests reach, within `shape`, and how many of its points they reach."""

    box: Box
    reached: int | None
    """None when there are too many iterations to count them."""
    outside: bool = False
    """Some point lies outside `shape`."""

    @property
    def volume(self) -> int:
        return _volume(self.box)

    @property
    def exact(self) -> bool:
        return self.reached == self.volume and not self.outside


def coverage(nests: Sequence[Nest], shape: Sequence[int]) -> Coverage:
    first = nests[0]
    if all(n.indices == first.indices and n.conjuncts == first.conjuncts for n in nests):
        return _split_coverage(first, shape)
    return _counted(nests, shape)


def _split_coverage(nest: Nest, shape: Sequence[int]) -> Coverage:
    """Dimensions that share no loop, directly or through a conjunct, vary independently: the
    points are the product of each group's (so a fused i, j and a plain k are counted apart)."""
    groups, free = _groups(nest)
    if not _satisfiable(free, nest.loops):
        return Coverage([(0, 0)] * len(shape), 0)
    box: list[tuple[int, int]] = [(0, 0)] * len(shape)
    reached: int | None = 1
    outside = False
    for dims, conjuncts in groups:
        sub = Nest([nest.indices[d] for d in dims], nest.loops, conjuncts)
        sub_shape = [shape[d] for d in dims]
        cover = _from_strides(sub, sub_shape) or _counted([sub], sub_shape)
        for d, dim_box in zip(dims, cover.box):
            box[d] = dim_box
        reached = None if reached is None or cover.reached is None else reached * cover.reached
        outside = outside or cover.outside
    return Coverage(box, reached, outside)


def _groups(nest: Nest) -> tuple[list[tuple[list[int], list[Conjunct]]], list[Conjunct]]:
    """The dimensions in groups linked by shared loops (a conjunct links those it tests), with
    their conjuncts; and the conjuncts that test no loop of any index."""
    owner = list(range(len(nest.indices)))

    def root(d: int) -> int:
        while owner[d] != d:
            d = owner[d]
        return d

    uses = [set(e.variables()) for e in nest.indices]
    for links in [*uses, *(set(e.variables()) for e, _ in nest.conjuncts)]:
        linked = [d for d, u in enumerate(uses) if u & links]
        for d in linked[1:]:
            owner[root(d)] = root(linked[0])
    groups: dict[int, tuple[list[int], list[Conjunct]]] = {}
    for d in range(len(nest.indices)):
        groups.setdefault(root(d), ([], []))[0].append(d)
    free = []
    for conjunct in nest.conjuncts:
        dims = [d for d, u in enumerate(uses) if u & set(conjunct[0].variables())]
        (groups[root(dims[0])][1] if dims else free).append(conjunct)
    return list(groups.values()), free


def _from_strides(nest: Nest, shape: Sequence[int]) -> Coverage | None:
    """The nest's box when its strides show it is filled (each loop feeds one index as a plain
    term, without gaps, and every conjunct bounds an index), else None. Fused and split loops
    are written as digits first (passes/analysis/digits.py), which their floordivs and mods
    feed as plain terms."""
    nest, bounds = _in_digits(nest)
    loose = _box(nest, bounds)
    box = _clamp(loose, shape)
    index_vars = {v for e in nest.indices for v in e.variables()}
    extents = {v: n for v, n in nest.loops.items() if v in index_vars}
    if box != loose or any(bound_on(c, nest.indices) is None for c in nest.conjuncts):
        return None
    if not gapless(nest.indices, [1] * len(nest.indices), extents):
        return None
    return Coverage(box, int(np.prod([hi - lo for lo, hi in box], dtype=object)))


def _counted(nests: Sequence[Nest], shape: Sequence[int]) -> Coverage:
    """The box around the points the nests reach and how many there are, by running their loops."""
    points_reached = _points_reached(nests)
    if points_reached is None:
        return Coverage(_clamp(_union([_box(n) for n in nests]), shape), None)
    if points_reached.shape[1] == 0:
        return Coverage([(0, 0)] * len(shape), 0)
    tight = [(int(row.min()), int(row.max()) + 1) for row in points_reached]
    box = _clamp(tight, shape)
    return Coverage(box, _distinct(points_reached, tight), box != tight)


def written_box(block: BlockOp, buffer: SSAValue) -> tuple[Box | None, str]:
    """The box of `buffer` that `block` writes, exactly; or None and why it cannot be shown.
    A store in an init must stay within the box of the body's stores (an init runs at the first
    reduction step only, so running its loops would over-count what it writes)."""
    name = buffer_name(buffer)
    stores = [store_nest(op) for op in block.walk() if isinstance(op, StoreOp) and op.buffer is buffer]
    body = [s for s in stores if not s.in_init]
    if not body:
        return None, f'block "{block.label}" writes {name} only in its init'
    assert isinstance(buffer.type, MemRefType)
    shape = buffer.type.get_shape()
    cover = coverage(body, shape)
    if cover.volume == 0:
        return None, f'block "{block.label}" writes no element of {name}: its predicate excludes every iteration'
    if cover.reached is None:
        return None, f'there are too many iterations to tell which elements of {name} block "{block.label}" writes'
    if not cover.exact:
        return None, (f'block "{block.label}" writes {cover.reached} elements of {name}, not exactly the '
                      f"{cover.volume} of {_format_box(name, cover.box)}")
    for init in (s for s in stores if s.in_init):
        if not _init_within(init, body, cover.box, shape):
            return None, f'the init of block "{block.label}" writes {name} outside what its body writes'
    return cover.box, ""


def _init_within(init: Nest, body: list[Nest], box: Box, shape: Sequence[int]) -> bool:
    """Whether an init's store writes only within `box`: it stores where a body store does, under
    the same loops and fewer conditions, or its loops (all of them) reach only the box."""
    used = {v for e in [*init.indices, *(c for c, _ in init.conjuncts)] for v in e.variables()}
    for store in body:
        if (store.indices == init.indices and set(store.conjuncts) <= set(init.conjuncts)
                and all(store.loops.get(v) == init.loops[v] for v in used)):
            return True
    cover = coverage([init], shape)
    return not cover.outside and all(blo <= lo and hi <= bhi for (lo, hi), (blo, bhi) in zip(cover.box, box))


def instances_run(block: BlockOp) -> Coverage:
    """The instances `block` runs: what its bindings reach over its loops, where its predicate holds."""
    loops = {lp.var: lp.extent for lp in loops_in_scope(block)}
    return coverage([Nest(block.bindings(), loops, block.predicate())], block.extents)


def box_of_instances(block: BlockOp) -> tuple[Box | None, str]:
    """The box of instances `block` runs, when they fill it; else None and why not."""
    ran = instances_run(block)
    what = f'the loops and predicate of block "{block.label}"' if block.predicate() else f'the loops of block "{block.label}"'
    if ran.reached is None:
        return None, f"{what} run too many iterations to tell which instances they run"
    if ran.volume == 0:
        return None, f"{what} run no instance"
    if not ran.exact:
        return None, f"{what} run {ran.reached} of the {ran.volume} instances in the box around them"
    return ran.box, ""


def store_nest(op: StoreOp) -> Nest:
    """A store in the loop variables from the function down (the bindings of the blocks on the way
    substituted, their predicates collected)."""
    chain = list(takewhile(lambda p: isinstance(p, ForOp | BlockOp | InitOp), ancestors(op)))
    mapping: dict[SSAValue, Expr] = {}
    store = Nest([])
    for ancestor in reversed(chain):  # outermost first, so bindings compose
        if isinstance(ancestor, ForOp):
            store.loops[ancestor.var] = ancestor.extent
        elif isinstance(ancestor, BlockOp):
            mapping |= {it.var: it.binding.substitute(mapping, loop_bounds) for it in ancestor.iters()}
            store.conjuncts += ancestor.predicate()
        else:
            store.in_init = True
    store.indices = [e.substitute(mapping, loop_bounds) for e in op.indices()]
    return store


def _in_digits(nest: Nest) -> tuple[Nest, Bounds]:
    """The nest with its loops' variables written as digits, its loops the digits; and their bounds."""
    n = len(nest.indices)
    written, digits = to_digits([*nest.indices, *(e for e, _ in nest.conjuncts)], nest.loops)
    loops = {d: digits.extents[d] for v in nest.loops for d in digits.of(v)}
    conjuncts = [(e, bound) for e, (_, bound) in zip(written[n:], nest.conjuncts)]
    return Nest(written[:n], loops, conjuncts, nest.in_init), digits.bounds


def _box(nest: Nest, bounds: Bounds = loop_bounds) -> Box:
    """The indices' range over the loops, cut by the conjuncts that bound an index."""
    box = []
    for index in nest.indices:
        r = relax(index, set(nest.loops), bounds)
        assert r is not None and r.start.is_const, "indices relaxed over every loop are constant ranges"
        box.append((r.start.const, r.start.const + r.extent))
    for conjunct in nest.conjuncts:
        if (on := bound_on(conjunct, nest.indices)) is not None:
            d, bound = on
            box[d] = (box[d][0], min(box[d][1], bound))
    return box


def _clamp(box: Box, shape: Sequence[int]) -> Box:
    return [(max(lo, 0), min(hi, n)) for (lo, hi), n in zip(box, shape)]


def _union(boxes: list[Box]) -> Box:
    return [(min(lo for lo, _ in dims), max(hi for _, hi in dims)) for dims in zip(*boxes)]


def box_text(box: Box) -> str:
    """The box as slices, "lo:hi, lo:hi" (TVMScript's region notation without the buffer)."""
    return ", ".join(f"{lo}:{hi}" for lo, hi in box)


def _format_box(name: str, box: Box) -> str:
    return f"{name}[{box_text(box)}]"


def _satisfiable(conjuncts: list[Conjunct], loops: dict[SSAValue, int]) -> bool:
    """Whether some iteration of the loops meets every conjunct (False when too many to run)."""
    if not conjuncts:
        return True
    variables = list(dict.fromkeys(v for e, _ in conjuncts for v in e.variables()))
    values = points([(v, loops[v]) for v in variables], [e for e, _ in conjuncts])
    return values is not None and bool(np.any(np.all(values < np.array([[b] for _, b in conjuncts]), axis=0)))


def _points_reached(nests: Sequence[Nest]) -> np.ndarray | None:
    """The points the nests reach (columns, repeats kept), by running their loops; None past the limit."""
    columns = []
    total = 0
    for nest in nests:
        exprs = [*nest.indices, *(e for e, _ in nest.conjuncts)]
        variables = list(dict.fromkeys(v for e in exprs for v in e.variables()))
        values = points([(v, nest.loops[v]) for v in variables], exprs)
        total += 0 if values is None else values.shape[1]
        if values is None or total > ENUMERATION_LIMIT:
            return None
        n = len(nest.indices)
        runs = np.ones(values.shape[1], dtype=bool)
        for row, (_, bound) in zip(values[n:], nest.conjuncts):
            runs &= row < bound
        columns.append(values[:n, runs])
    return np.concatenate(columns, axis=1)


def _distinct(values: np.ndarray, box: Box) -> int:
    """How many different columns `values` (all within `box`) has, from one key per column."""
    keys = np.zeros(values.shape[1], dtype=object if _volume(box) >= 2**62 else np.int64)
    for row, (lo, hi) in zip(values, box):
        keys = keys * (hi - lo) + (row - lo)
    return len(np.unique(keys))


def _volume(box: Box) -> int:
    return int(np.prod([hi - lo for lo, hi in box], dtype=object))


def produced_each_iteration(loop: ForOp, writers: Sequence[BlockOp],
                            buffer: SSAValue) -> tuple[tuple[Range, ...] | None, str]:
    """What `writers` (all under `loop`) write of `buffer` in one iteration of `loop`, exactly: ranges in
    the variables of `loop` and the loops around it; or None and why it cannot be shown. A block placed
    after them in the iteration may read it, so it must be final there: every element of the ranges is
    written in the iteration (a region relaxes over loops a predicate cuts), and no other iteration
    writes it again (the iterations write apart, or recompute the same instances). Elements a predicate
    cuts at a bound on the index (`i_0 * 16 + i_1 < 35`) are left out of every iteration alike."""
    name = buffer_name(buffer)
    outer = {lp.var for lp in [loop, *loops_around(loop)]}
    stores = [store_nest(op) for w in writers for op in w.walk() if isinstance(op, StoreOp) and op.buffer is buffer]
    body = [s for s in stores if not s.in_init]
    if not body:
        return None, f"{name} is written only in inits under the loop"
    first = body[0]
    if any(s.indices != first.indices or s.conjuncts != first.conjuncts for s in body):
        return None, f"{name} is written by several stores at different elements under the loop"
    parts = [_split_terms(e, outer) for e in first.indices]
    if any(p is None for p in parts):
        return None, f"an index of {name} mixes the loops around the iteration with those inside it"
    fixed, moving = zip(*(p for p in parts if p is not None))
    kept = []
    for conjunct in first.conjuncts:
        if set(conjunct[0].variables()).isdisjoint(outer):
            kept.append(conjunct)
        elif bound_on(conjunct, first.indices) is None:
            return None, (f"the predicate of the blocks writing {name} mixes the loops around the iteration with "
                          "those inside it, so what one iteration writes changes from one to the next")
    inner = Nest(list(moving), {v: n for v, n in first.loops.items() if v not in outer}, kept)
    cover = coverage([inner], [INT64_MAX] * len(moving))
    if not cover.exact:
        return None, f"one iteration writes {cover.reached} elements of {name}, not the whole box around them"
    if (why := _iterations_apart(list(fixed), cover.box, first.loops, outer, writers, name)) is not None:
        return None, why
    return tuple(Range(f + lo, hi - lo) for f, (lo, hi) in zip(fixed, cover.box)), ""


def _iterations_apart(fixed: list[Expr], box: Box, loops: dict[SSAValue, int], outer: set[SSAValue],
                      writers: Sequence[BlockOp], name: str) -> str | None:
    """Why iterations of the loops `outer` may write one element of the tiles `fixed + box` twice (two
    instances of the writers, so not the same value), or None."""
    used = {v for e in fixed for v in e.variables()}
    for w in writers:
        for it in w.iters():
            for v in it.binding.variables():
                if v in outer and v not in used:
                    return (f'block "{w.label}" writes the same elements of {name} in every iteration of a loop '
                            "that feeds its bindings; a later iteration overwrites what an earlier one wrote")
    if not separated(fixed, [hi - lo for lo, hi in box], {v: loops[v] for v in used}):
        return f"iterations of the loops around write overlapping parts of {name}, or parts not shown apart"
    return None


def _split_terms(expr: Expr, outer: set[SSAValue]) -> tuple[Expr, Expr] | None:
    """expr as (terms over `outer` only, the rest with the constant); None when a term mixes both."""
    fixed: dict = {}
    moving: dict = {}
    for atom, coef in expr.terms:
        used = {atom.value} if isinstance(atom, Var) else set(atom.expr.variables())
        if used <= outer:
            fixed[atom] = coef
        elif used.isdisjoint(outer):
            moving[atom] = coef
        else:
            return None
    return Expr._make(fixed, 0), Expr._make(moving, expr.const)
