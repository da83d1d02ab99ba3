"""Do different iterations of a loop touch the same element, one of them writing it?

That is what makes running a loop's iterations at once (parallel, vectorize, bind) change
the result: a read-after-write, write-after-read or write-after-write between two
iterations. It works on IR whose blocks are inlined (lower-blocks' first step, where every
index is an expression of loop variables); buffers allocated inside the loop are private
to an iteration and never conflict. Loops outside the loop have one value for all its
iterations; loops inside it run independently in each. Guards (block predicates) are
ignored: an access is assumed to run for every value of its loops, which can only report
more conflicts, never fewer.

Each pair of accesses of a buffer (at least one writing) is first tested per dimension: when
both indices are `c * l + rest` in the loop variable `l`, with the rests' ranges closer than
one step of `c`, two different iterations cannot meet in that dimension. A dimension pair
`E floordiv d`, `E mod d` (what fuse binds) is compared as E. Otherwise the accesses are
enumerated (up to ENUMERATION_LIMIT points); beyond that, a conflict is assumed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue

from xtir.dialects.block import AccessOp, ForOp, loop_bounds
from xtir.dialects.bounds import Fact
from xtir.dialects.expr import Atom, Div, Expr, Mod, Var
from xtir.dialects.walk import ancestors
from xtir.lowering.index_expr import decode, decode_bounds
from xtir.passes.analysis.instances import ENUMERATION_LIMIT, points
from xtir.passes.analysis.regions import relax

BLOCK_ATTR = "xtir.block"
"""The name of the block an access came from (set when lower-blocks inlines it), for messages."""


@dataclass(frozen=True)
class Touch:
    """One access under the loop: its indices in loop variables, the loops between, and the
    conditions under which it runs."""

    op: Operation
    buffer: SSAValue
    is_write: bool
    indices: tuple[Expr, ...]
    sizes: tuple[int, ...]
    inner: tuple[ForOp, ...]
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
    by_buffer: dict[SSAValue, list[Touch]] = {}
    for touch in _touches(loop):
        by_buffer.setdefault(touch.buffer, []).append(touch)
    for buffer, touches in by_buffer.items():
        if _allocated_inside(buffer, loop):
            continue
        writes = [t for t in touches if t.is_write]
        reads = [t for t in touches if not t.is_write]
        pairs = [(w, r) for w in writes for r in reads] + [(w, v) for k, w in enumerate(writes) for v in writes[k:]]
        for first, second in pairs:
            found = _conflict(loop, first, second)
            if found is not False:
                return Conflict(buffer, first, second, found if isinstance(found, tuple) else None)
    return None


def describe(conflict: Conflict, loop: ForOp) -> str:
    """What a refusal says: which blocks, which buffer, which iterations."""
    name = conflict.buffer.name_hint or "a buffer"
    first, second = _who(conflict.first), _who(conflict.second)
    verb = "writes" if conflict.second.is_write else "reads"
    if conflict.iterations is None:
        return (f'{first} writes {name} and {second} {verb} it, and it cannot be shown that different '
                f'iterations of loop "{loop.label}" touch different elements')
    one, other = conflict.iterations
    return (f'{first} writes an element of {name} in iteration {one} of loop "{loop.label}" that {second} '
            f"{verb} in iteration {other}")


def _who(touch: Touch) -> str:
    label = block_of(touch.op)
    return f'block "{label}"' if label is not None else f"a {touch.op.name}"


def block_of(op: Operation) -> str | None:
    """The name of the block lower-blocks inlined `op` from, when known."""
    label = op.attributes.get(BLOCK_ATTR)
    return label.data if isinstance(label, StringAttr) else None


def _touches(loop: ForOp) -> Iterator[Touch]:
    for op in loop.walk():
        if isinstance(op, AccessOp):
            inner = tuple(_loops_between(op, loop))
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
            found = _condition_facts(parent.cond) if parent.true_region.is_ancestor(child) else None
            facts += found or []
            complete = complete and found is not None
    return facts, complete


def _condition_facts(cond: SSAValue) -> list[Fact] | None:
    """`e < b` conjuncts (predicates) and `e == c` ones (the init guard), else None."""
    op = cond.owner
    if isinstance(op, arith.AndIOp):
        lhs, rhs = _condition_facts(op.lhs), _condition_facts(op.rhs)
        return None if lhs is None or rhs is None else lhs + rhs
    if isinstance(op, arith.CmpiOp) and op.predicate.value.data == 0:  # eq
        lhs, rhs = decode(op.lhs), decode(op.rhs)
        if lhs is None or rhs is None:
            return None
        return [(lhs - rhs, 1), (rhs - lhs, 1)]
    return decode_bounds(cond)


def _loops_between(op: Operation, loop: ForOp) -> Iterator[ForOp]:
    return (p for p in ancestors(op, stop=loop) if isinstance(p, ForOp))


def _allocated_inside(buffer: SSAValue, loop: ForOp) -> bool:
    owner = buffer.owner
    return isinstance(owner, Operation) and loop.is_ancestor(owner)


def _conflict(loop: ForOp, first: Touch, second: Touch) -> bool | tuple[int, int]:
    """False when no two iterations meet; else the iterations of a meeting, or True when
    none could be shown (too many points to enumerate)."""
    dims = _paired_dims(first.indices, second.indices, first.sizes, second.sizes)
    for group in _coordinates(loop, first, second):
        if all(any(_separates(loop, atom, span, dim, first, second) for dim in dims) for atom, span in group):
            return False
    found = _enumerate(loop, first, second)
    return True if found is None else found


def _coordinates(loop: ForOp, first: Touch, second: Touch) -> list[list[tuple[Atom, int]]]:
    """Sets of atoms that tell the iterations of `loop` apart, each atom with how many values it
    takes: the loop variable itself, and `E floordiv d` with `E mod d` for E = a * l + b (what
    fuse binds, the fused loop's variable under a tile: `(f floordiv 114) * 7 + i_1`). Two
    different iterations differ in some atom of each set."""
    groups: list[list[tuple[Atom, int]]] = [[(Var(loop.var), loop.extent)]]
    seen: set[tuple[Expr, int]] = set()
    for e in (*first.indices, *second.indices):
        for atom, _ in e.terms:
            if not isinstance(atom, Div | Mod) or (atom.expr, atom.divisor) in seen:
                continue
            seen.add((atom.expr, atom.divisor))
            inner = atom.expr
            if inner.variables() != [loop.var] or any(not isinstance(a, Var) for a, _ in inner.terms):
                continue
            lo, hi = sorted(inner.evaluate({loop.var: x}) for x in (0, loop.extent - 1))
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


def _separates(
    loop: ForOp, atom: Atom, span: int, dim: tuple[Expr, Expr, int, int], first: Touch, second: Touch
) -> bool:
    """Whether two iterations of `loop` at which `atom` (a function of the loop variable taking
    `span` values) differs touch different elements in dimension `dim`: both indices are
    `c * atom + rest`, with one c, rests free of the loop variable, and the rests' ranges (over
    the inner loops, outer values equal) closer than any nonzero multiple of c up to span - 1."""
    a, b, size_a, size_b = dim
    c = dict(a.terms).get(atom, 0)
    if c == 0 or c != dict(b.terms).get(atom, 0):
        return False
    rest_a, rest_b = a - Expr(((atom, c),)), b - Expr(((atom, c),))
    if rest_a.uses(loop.var) or rest_b.uses(loop.var):
        return False
    ra = relax(rest_a, {lp.var for lp in first.inner}, loop_bounds)
    rb = relax(rest_b, {lp.var for lp in second.inner}, loop_bounds)
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


def _enumerate(loop: ForOp, first: Touch, second: Touch) -> tuple[int, int] | None | bool:
    """Run both accesses over every iteration of `loop` and their inner loops (the outer
    values that do not cancel out as well): iterations at which they meet, False when they
    never do, None when there are too many points."""
    context = _context(loop, first, second)
    if context is None:
        return None
    a = _points(loop, first, context)
    b = _points(loop, second, context)
    if a is None or b is None:
        return None
    keys = np.concatenate([a[1:], b[1:]], axis=1)
    if keys.shape[1] == 0:
        return False
    _, group = np.unique(keys, axis=1, return_inverse=True)
    group = group.ravel()
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


def _context(loop: ForOp, first: Touch, second: Touch) -> list[tuple[SSAValue, int]] | None:
    """Outer variables that must be enumerated: those inside a floordiv / mod, with different
    coefficients in the two accesses, or in their conditions (others shift both alike and
    are left at 0)."""
    inner = {lp.var for t in (first, second) for lp in t.inner} | {loop.var}
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
        span = loop_bounds(v)
        if span is None:
            return None
        result.append((v, span[1] + 1))
    return result


def _points(loop: ForOp, touch: Touch, context: list[tuple[SSAValue, int]]) -> np.ndarray | None:
    """Rows: the iteration of `loop`, the context values, the element's indices; one column
    per point where the access runs (tiles expanded)."""
    ranges = [(loop.var, loop.extent), *((lp.var, lp.extent) for lp in touch.inner), *context]
    tile = int(np.prod(touch.sizes, dtype=object))
    size = int(np.prod([n for _, n in ranges], dtype=object)) * tile
    if size > ENUMERATION_LIMIT:
        return None
    exprs = [Expr.var(loop.var), *(Expr.var(v) for v, _ in context), *touch.indices]
    values = points(ranges, [*exprs, *(e for e, _ in touch.facts)])
    if values is None:
        return None
    runs = np.ones(values.shape[1], dtype=bool)
    for row, (_, bound) in zip(values[len(exprs):], touch.facts):
        runs &= row < bound
    values = values[: len(exprs), runs]
    if tile == 1:
        return values
    rank = len(touch.sizes)
    offsets = np.stack(np.meshgrid(*[np.arange(n) for n in touch.sizes], indexing="ij")).reshape(rank, -1)
    expanded = values[:, :, None].repeat(offsets.shape[1], axis=2)
    expanded[-rank:] += offsets[:, None, :]
    return expanded.reshape(values.shape[0], -1)
