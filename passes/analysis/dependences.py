"""Do different iterations of a loop touch the same element, one of them writing it?

That is what makes running a loop's iterations at once (parallel, vectorize, bind) change
the result: a read-after-write, write-after-read or write-after-write between two
iterations. It works on IR whose blocks are inlined (lower-blocks' first step, where every
index is an expression of loop variables); buffers allocated inside the loop are private
to an iteration and never conflict. Loops outside the loop have one value for all its
iterations; loops inside it run independently in each. Guards (block predicates) are
ignored: an access is assumed to run for every value of its loops, which can only report
more conflicts, never fewer.

Each pair of accesses of a buffer (at least one writing) is first written in digits: the
variables of fused and split loops as mixed-radix numbers whose digits their floordivs and mods
pick (passes/analysis/digits.py), so that `(f0 * 32 + f1 * 4 + f2) floordiv 8` is the sum
`f0 * 4 + f1_hi`. Two different iterations differ in some digit of the loop variable; for each
digit d, a dimension where both indices are `c * d + rest`, with the rests' ranges (the loop's
other digits free) closer than one step of `c`, keeps them apart. Digits shown so are then taken
equal (their terms cancel) for the rest, in rounds: `i0 * 64 + t * 8 + a` shows i0, then t. A dimension pair
`E floordiv d`, `E mod d` that stays is compared as E. Otherwise the accesses are enumerated
over the digits (the outer ones only where they do not cancel out), up to ENUMERATION_LIMIT
points; beyond that, a loop digit that neither access uses still shows two iterations that
meet, and else a conflict is assumed, the refusal saying that the analysis cannot decide.

`pair_conflict` compares two accesses over the points of several variables at once, numbered
mixed-radix: lower-to-gpu's check that no two threads of a kernel (its block, thread and virtual
thread axes) touch one element (lowering/thread_races.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import scf
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue

from xtir.dialects.block import AccessOp, ForOp, loop_bounds
from xtir.dialects.bounds import Fact
from xtir.dialects.expr import Atom, Bounds, Div, Expr, Mod, Var
from xtir.dialects.walk import ancestors
from xtir.lowering.index_expr import decode_bounds
from xtir.passes.analysis.digits import Digits, to_digits
from xtir.passes.analysis.instances import ENUMERATION_LIMIT, column_ids, points, separated
from xtir.passes.analysis.regions import relax

BLOCK_ATTR = "xtir.block"
"""The name of the block an access came from (set when lower-blocks inlines it), for messages."""


@dataclass(frozen=True)
class Touch:
    """One access under the loop: its indices in loop variables, the variables of the loops
    between (free in each access), and the conditions under which it runs."""

    op: Operation
    buffer: SSAValue
    is_write: bool
    indices: tuple[Expr, ...]
    sizes: tuple[int, ...]
    inner: tuple[SSAValue, ...]
    facts: tuple[Fact, ...]


@dataclass(frozen=True)
class Conflict:
    """`first` writes an element that `second` touches in another iteration, (`iterations`
    when found by enumeration: first's, second's), or could not be shown not to."""

    buffer: SSAValue
    first: Touch
    second: Touch
    iterations: tuple[int, int] | None


def carried_conflict(loop: ForOp) -> Conflict | None:
    """The first pair of accesses through which two iterations of `loop` may share data."""
    if loop.extent == 1:
        return None
    for first, second in conflicting_pairs(t for t in _touches(loop) if not _allocated_inside(t.buffer, loop)):
        found = pair_conflict([loop.var], first, second)
        if found is not False:
            return Conflict(first.buffer, first, second, found if isinstance(found, tuple) else None)
    return None


def conflicting_pairs(touches: Iterable[Touch]) -> Iterator[tuple[Touch, Touch]]:
    """The pairs of `touches` of one buffer through which data may pass: a write and a read, two
    writes (a write and itself too: at two iterations)."""
    by_buffer: dict[SSAValue, list[Touch]] = {}
    for touch in touches:
        by_buffer.setdefault(touch.buffer, []).append(touch)
    for touches_of in by_buffer.values():
        writes = [t for t in touches_of if t.is_write]
        reads = [t for t in touches_of if not t.is_write]
        yield from ((w, r) for w in writes for r in reads)
        yield from ((w, v) for k, w in enumerate(writes) for v in writes[k:])


def describe(conflict: Conflict, loop: ForOp) -> str:
    """What a refusal says: which blocks, which buffer, which iterations."""
    name = conflict.buffer.name_hint or "a buffer"
    first, second = who(conflict.first), who(conflict.second)
    verb = "writes" if conflict.second.is_write else "reads"
    if conflict.iterations is None:
        return (f'{first} writes {name} and {second} {verb} it, and it cannot be shown that different '
                f'iterations of loop "{loop.label}" touch different elements (the analysis cannot decide it: '
                f"the strides of the indices do not tell the iterations apart, and enumerating them takes more "
                f"than {ENUMERATION_LIMIT} points or a variable of unknown range)")
    one, other = conflict.iterations
    return (f'{first} writes an element of {name} in iteration {one} of loop "{loop.label}" that {second} '
            f"{verb} in iteration {other}")


def who(touch: Touch) -> str:
    """`block "C"` for an access lower-blocks inlined from block C, else its op's name."""
    label = block_of(touch.op)
    return f'block "{label}"' if label is not None else f"a {touch.op.name}"


def block_of(op: Operation) -> str | None:
    """The name of the block lower-blocks inlined `op` from, when known."""
    label = op.attributes.get(BLOCK_ATTR)
    return label.data if isinstance(label, StringAttr) else None


def _touches(loop: ForOp) -> Iterator[Touch]:
    for op in loop.walk():
        if isinstance(op, AccessOp):
            inner = tuple(lp.var for lp in _loops_between(op, loop))
            facts = tuple(f for f in guard_facts(op)[0] if all(loop_bounds(v) is not None for v in f[0].variables()))
            for access in op.accesses():
                yield Touch(op, access.buffer, access.is_write, access.indices, access.extents(), inner, facts)


def guard_facts(op: Operation) -> tuple[list[Fact], bool]:
    """The conditions of the scf.ifs whose then-branch holds `op`, as facts `e < bound`, and
    whether they are all the conditions (a guard whose condition it cannot read is left out)."""
    facts: list[Fact] = []
    complete = True
    around = list(ancestors(op))
    for child, parent in zip([op, *around], around):
        if isinstance(parent, scf.IfOp):
            found = decode_bounds(parent.cond, equalities=True) if parent.true_region.is_ancestor(child) else None
            facts += found or []
            complete = complete and found is not None
    return facts, complete


def _loops_between(op: Operation, loop: ForOp) -> Iterator[ForOp]:
    return (p for p in ancestors(op, stop=loop) if isinstance(p, ForOp))


def _allocated_inside(buffer: SSAValue, loop: ForOp) -> bool:
    owner = buffer.owner
    return isinstance(owner, Operation) and loop.is_ancestor(owner)


@dataclass(frozen=True)
class _Side:
    """One access of a pair, in digits (passes/analysis/digits.py): its indices and guards, the
    digits of the loops between (free in each access), its tile sizes."""

    indices: tuple[Expr, ...]
    sizes: tuple[int, ...]
    inner: frozenset[SSAValue]
    facts: tuple[Fact, ...]


@dataclass(frozen=True)
class _Pair:
    """Two accesses, fused and split variables written as digits: two iterations (points of the
    variables compared, numbered by `iteration`) differ in some digit of `loop_digits`."""

    first: _Side
    second: _Side
    loop_digits: tuple[SSAValue, ...]
    iteration: Expr
    digits: Digits


def _in_digits(compared: Sequence[SSAValue], first: Touch, second: Touch, bounds: Bounds) -> _Pair:
    exprs = [*first.indices, *second.indices, *(e for t in (first, second) for e, _ in t.facts)]
    variables = {*compared, *(v for e in exprs for v in e.variables())}
    extents = {v: span[1] + 1 for v in variables if (span := bounds(v)) is not None and span[0] == 0}
    written, digits = to_digits(exprs, extents)
    rest = iter(written)
    sides = []
    for touch in (first, second):
        indices = tuple(next(rest) for _ in touch.indices)
        sides.append((touch, indices))
    facts = [(e, bound) for t in (first, second) for (_, bound), e in zip(t.facts, rest)]
    facts_of = (tuple(facts[: len(first.facts)]), tuple(facts[len(first.facts):]))
    first_side, second_side = (
        _Side(indices, touch.sizes, frozenset(d for v in touch.inner for d in digits.of(v)), own_facts)
        for (touch, indices), own_facts in zip(sides, facts_of))
    iteration, weight = Expr(), 1
    for v in compared:  # mixed radix, the first variable lowest
        iteration = iteration + digits.value(v) * weight
        weight *= extents[v]
    return _Pair(first_side, second_side, tuple(d for v in compared for d in digits.of(v)), iteration, digits)


def pair_conflict(compared: Sequence[SSAValue], first: Touch, second: Touch,
                  bounds: Bounds = loop_bounds) -> bool | tuple[int, int]:
    """Whether `first` and `second` touch one element at two different points of the variables
    `compared` (each from 0 to its `bounds`; the loop of carried_conflict, or a GPU kernel's thread
    axes), the variables of each one's `inner` loops free: False when they never do; else the two
    points of a meeting, numbered mixed-radix (the first variable lowest), or True when none could
    be shown (too many points to enumerate)."""
    pair = _in_digits(compared, first, second, bounds)
    dims = _paired_dims(pair.first.indices, pair.second.indices, pair.first.sizes, pair.second.sizes)
    if any(_kept_apart(pair, group, dims) for group in _coordinates(pair)):
        return False
    found = _enumerate(pair)
    if found is None:
        found = _same_element(pair)
    return True if found is None else found


def _kept_apart(pair: _Pair, group: list[tuple[Atom, int]], dims: list[tuple[Expr, Expr, int, int]]) -> bool:
    """Whether two iterations, which differ in some atom of `group`, touch different elements: the
    atoms are shown in rounds, each separating the iterations where it differs in some dimension
    while the digits shown in earlier rounds are equal (their terms cancel out). Sound: of the atoms
    two iterations differ in, take one of the earliest round; those of earlier rounds are equal.
    `C[i0 * 64 + t * 8 + a, ...]` (a an inner loop): i0 is shown first, then t, i0 equal."""
    equal: frozenset[SSAValue] = frozenset()
    left = list(group)
    while left:
        shown = [(atom, span) for atom, span in left if any(_separates(pair, atom, span, dim, equal) for dim in dims)]
        if not shown:
            return False
        equal |= {atom.value for atom, _ in shown if isinstance(atom, Var)}
        left = [entry for entry in left if entry not in shown]
    return True


def _same_element(pair: _Pair) -> tuple[int, int] | None:
    """Iterations 0 and w that meet when both accesses have the same indices, run unconditionally,
    and use no digit of the loop of weight w: the iterations touch the same elements (a fused loop
    over a tile that binds only the tile: `(b floordiv 64) * 32 + t`). Decides, without a point
    enumerated, what would be too many points to enumerate."""
    first, second = pair.first, pair.second
    if first.indices != second.indices or first.facts or second.facts:
        return None
    used = {v for e in first.indices for v in e.variables()}
    for d in pair.loop_digits:
        if d not in used and pair.digits.extents[d] > 1:
            return 0, pair.iteration.coefficient(d)
    return None


def _coordinates(pair: _Pair) -> list[list[tuple[Atom, int]]]:
    """Sets of atoms that tell the iterations of the loop apart, each atom with how many values it
    takes: the digits of the loop variable, and `E floordiv d` with `E mod d` for a floordiv or mod
    no digit made linear, of an E that differs between any two iterations. Two different
    iterations differ in some atom of each set."""
    extents = {d: pair.digits.extents[d] for d in pair.loop_digits}
    groups: list[list[tuple[Atom, int]]] = [[(Var(d), n) for d, n in extents.items()]]
    seen: set[tuple[Expr, int]] = set()
    for e in (*pair.first.indices, *pair.second.indices):
        for atom, _ in e.terms:
            if not isinstance(atom, Div | Mod) or (atom.expr, atom.divisor) in seen:
                continue
            seen.add((atom.expr, atom.divisor))
            inner = atom.expr
            if not set(inner.variables()) <= set(extents) or any(not isinstance(a, Var) for a, _ in inner.terms):
                continue
            if not separated([inner], [1], extents):
                continue
            span = inner.bounds(pair.digits.bounds)
            assert span is not None, "the loop's digits are bounded"
            lo, hi = span
            q = atom.divisor
            groups.append([(Div(inner, q), hi // q - lo // q + 1), (Mod(inner, q), min(q, hi - lo + 1))])
    return groups


def _paired_dims(
    a: Sequence[Expr], b: Sequence[Expr], sizes_a: Sequence[int], sizes_b: Sequence[int]
) -> list[tuple[Expr, Expr, int, int]]:
    """(index in a, index in b, tile size in a, tile size in b) per dimension, with a pair of
    dimensions `E floordiv d`, `E mod d` (single elements in both) replaced by E: they match
    exactly where E does."""
    dims = [(x, y, sx, sy) for x, y, sx, sy in zip(a, b, sizes_a, sizes_b)]
    for d, (x, y, sx, sy) in enumerate(dims):
        div_x, div_y = _lone_atom(x, Div), _lone_atom(y, Div)
        if div_x is None or div_y is None or div_x.divisor != div_y.divisor or sx != 1 or sy != 1:
            continue
        for e, (x2, y2, sx2, sy2) in enumerate(dims):
            mod_x, mod_y = _lone_atom(x2, Mod), _lone_atom(y2, Mod)
            if (mod_x is not None and mod_y is not None and sx2 == sy2 == 1
                    and mod_x == Mod(div_x.expr, div_x.divisor) and mod_y == Mod(div_y.expr, div_y.divisor)):
                rest = [dim for k, dim in enumerate(dims) if k not in (d, e)]
                return _paired_dims(*_unzip([*rest, (div_x.expr, div_y.expr, 1, 1)]))
    return dims


def _unzip(dims: list[tuple[Expr, Expr, int, int]]) -> tuple[list[Expr], list[Expr], list[int], list[int]]:
    return [d[0] for d in dims], [d[1] for d in dims], [d[2] for d in dims], [d[3] for d in dims]


def _lone_atom(e: Expr, kind: type[Div] | type[Mod]) -> Div | Mod | None:
    if e.const == 0 and len(e.terms) == 1 and e.terms[0][1] == 1 and isinstance(e.terms[0][0], kind):
        return e.terms[0][0]
    return None


def _separates(pair: _Pair, atom: Atom, span: int, dim: tuple[Expr, Expr, int, int],
               equal: frozenset[SSAValue] = frozenset()) -> bool:
    """Whether two iterations at which `atom` (a digit of the loop variable, or a function of
    the digits, taking `span` values) differs touch different elements in dimension `dim`: both
    indices are `c * atom + rest`, with one c, and the rests' ranges (the other digits of the loop
    but those `equal` in both, and those of the inner loops free, the outer values equal) closer
    than any nonzero multiple of c up to span - 1."""
    a, b, size_a, size_b = dim
    c = dict(a.terms).get(atom, 0)
    if c == 0 or c != dict(b.terms).get(atom, 0):
        return False
    rest_a, rest_b = a - Expr(((atom, c),)), b - Expr(((atom, c),))
    if any(t == atom for e in (rest_a, rest_b) for t, _ in e.terms):
        return False
    loop = set(pair.loop_digits) - equal
    ra = relax(rest_a, loop | pair.first.inner, pair.digits.bounds)
    rb = relax(rest_b, loop | pair.second.inner, pair.digits.bounds)
    if ra is None or rb is None or not (rb.start - ra.start).is_const:
        return False
    # c * (atom_a - atom_b) = rest_b - rest_a, which lies in [lo, hi]
    shift = (rb.start - ra.start).const
    lo, hi = shift - (ra.extent + size_a - 2), shift + rb.extent + size_b - 2
    step = abs(c)
    smallest = -(-max(lo, 1) // step) * step  # the least positive multiple of c at or above lo
    largest = (min(hi, -1) // step) * step  # the greatest negative multiple at or below hi
    far = step * (span - 1)
    return not (smallest <= min(hi, far)) and not (largest >= max(lo, -far))


def _enumerate(pair: _Pair) -> tuple[int, int] | None | bool:
    """Run both accesses over every iteration of the loop and their inner loops (the outer
    digits that do not cancel out as well): iterations at which they meet, False when they
    never do, None when there are too many points."""
    context = _context(pair)
    if context is None:
        return None
    a = _points(pair, pair.first, context)
    b = _points(pair, pair.second, context)
    if a is None or b is None:
        return None
    keys = np.concatenate([a[1:], b[1:]], axis=1)
    if keys.shape[1] == 0:
        return False
    group = column_ids(keys)
    n = int(group.max()) + 1
    big = np.iinfo(np.int64).max
    first_lo, first_hi, second_lo, second_hi = (np.full(n, v, dtype=np.int64) for v in (big, -big, big, -big))
    split = a.shape[1]
    np.minimum.at(first_lo, group[:split], a[0])
    np.maximum.at(first_hi, group[:split], a[0])
    np.minimum.at(second_lo, group[split:], b[0])
    np.maximum.at(second_hi, group[split:], b[0])
    both = (first_lo != big) & (second_lo != big)
    one = both & ~((first_lo == first_hi) & (second_lo == second_hi) & (first_lo == second_lo))
    if not one.any():
        return False
    g = int(np.argmax(one))
    if first_lo[g] != second_hi[g]:
        return int(first_lo[g]), int(second_hi[g])
    return int(first_hi[g]), int(second_lo[g])


def _context(pair: _Pair) -> list[tuple[SSAValue, int]] | None:
    """Outer digits that must be enumerated: those inside a floordiv / mod, with different
    coefficients in the two accesses, or in their conditions (others shift both alike and
    are left at 0)."""
    first, second = pair.first, pair.second
    inner = first.inner | second.inner | set(pair.loop_digits)
    found: dict[SSAValue, None] = {}
    for a, b in zip(first.indices, second.indices):
        for e in (a, b):
            for atom, _ in e.terms:
                if isinstance(atom, Div | Mod):
                    found.update(dict.fromkeys(v for v in atom.expr.variables() if v not in inner))
        for v in {*a.variables(), *b.variables()} - inner:
            if a.coefficient(v) != b.coefficient(v):
                found[v] = None
    found.update(dict.fromkeys(v for t in (first, second) for e, _ in t.facts for v in e.variables() if v not in inner))
    result = []
    for v in found:
        span = pair.digits.bounds(v)
        if span is None:
            return None
        result.append((v, span[1] + 1))
    return result


def _points(pair: _Pair, side: _Side, context: list[tuple[SSAValue, int]]) -> np.ndarray | None:
    """Rows: the iteration of the loop, the context values, the element's indices; one column
    per point where the access runs (tiles expanded). Inner digits the access does not use
    change none of them and stay 0."""
    used = {v for e in [*side.indices, *(e for e, _ in side.facts)] for v in e.variables()}
    inner = [(d, pair.digits.extents[d]) for d in side.inner if d in used]
    ranges = [*((d, pair.digits.extents[d]) for d in pair.loop_digits), *inner, *context]
    tile = int(np.prod(side.sizes, dtype=object))
    size = int(np.prod([n for _, n in ranges], dtype=object)) * tile
    if size > ENUMERATION_LIMIT:
        return None
    exprs = [pair.iteration, *(Expr.var(v) for v, _ in context), *side.indices]
    values = points(ranges, [*exprs, *(e for e, _ in side.facts)])
    if values is None:
        return None
    runs = np.ones(values.shape[1], dtype=bool)
    for row, (_, bound) in zip(values[len(exprs):], side.facts):
        runs &= row < bound
    values = values[: len(exprs), runs]
    if tile == 1:
        return values
    rank = len(side.sizes)
    offsets = np.stack(np.meshgrid(*[np.arange(n) for n in side.sizes], indexing="ij")).reshape(rank, -1)
    expanded = values[:, :, None].repeat(offsets.shape[1], axis=2)
    expanded[-rank:] += offsets[:, None, :]
    return expanded.reshape(values.shape[0], -1)
