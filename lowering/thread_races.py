"""Races between the threads of a GPU kernel: lower-to-gpu's check.

The threads, thread blocks and virtual threads of one launch run at once and in no order (virtual
threads until inject_virtual_threads runs them in turn, which interchanges them with the serial
loops inside them): two of them must never touch one element of a buffer, one of them writing it.
bind refuses a loop whose iterations are not independent, but lower-to-gpu also meets loops bound
by hand (`bind("threadIdx.x")` in the input) and thread loops that a later primitive (compute-at,
reorder, a cache copy, decompose-reduction) changed after bind checked them, so every pair of
accesses of a global or local buffer (at least one a store; a store and itself too) is checked
again (`check_thread_races`), as passes/analysis/dependences.py tells two iterations of a loop
apart: over the points of the thread axes that both accesses run apart on (lower-to-gpu's
`_writers`: a virtual thread whose variable an access does not use runs it once, a store whose
element does not use it keeps the last virtual thread's value; and a virtual thread that only one
of them runs apart on, where a serial loop inside its loop is around either: `_compared`), the
serial loops around each access free, the conditions around it (`where` predicates, a tile's edge)
bounding where it runs.

Exempt there: shared buffers, and for a buffer allocated inside thread loops (a local buffer:
lower-to-gpu has checked it is inside every one that uses it) the axes of those loops, along which
each thread has its own copy.

Shared buffers (`check_shared_flows`): barriers order the threads' accesses of one block, but a
barrier can only sit between two loops bound to a thread (a fetch loop, then the loop reading the
tile), where every thread runs the first before any runs the second, as the loops run serially do.
Two accesses in one body of a loop bound to a thread (one iteration of it) have none between them:
there the threads race, and inject_virtual_threads runs each statement for every virtual thread
before the next one, where the loop run serially runs each iteration whole. So each pair of a
shared buffer's accesses (a store and itself too) is compared along each thread-bound loop that is,
for both, the innermost loop of its axis around them (a fetch loop bound to the axis again inside
it runs its own threads apart), one axis at a time: the loops around that loop at one iteration
for both, those inside it free. Along a vthread loop, not a store run once for its virtual threads
(not using the variable) with another such store, nor with a load after it that reads, in each
iteration of the serial loops around both in the vthread loop, what a store before it stored in
that iteration (`_once_alike`: the store's elements the same in each, the two meeting in one
only, or the buffer's reads covered per iteration of its tile loop); nor the accesses of a buffer
that a store run in turn for each virtual thread writes (`S[t] += 1`: inject_virtual_threads
keeps them in order itself). A global or local buffer's store run once and a load after it that
meet in one iteration only of those loops are not compared along it either (`_read_where_stored`).

`threads_meet` asks the same of one pair over every thread axis at once, the serial loops free:
lower-to-gpu's barrier planner, for code under a condition on a thread id, where no barrier can
be placed.

Refused, at the first access (the store): two threads that touch one element (naming the buffer,
both accesses and the thread axes on which the threads differ; for a shared buffer the loop whose
one body holds both), or that cannot be shown not to (an index that is not affine in loop
variables of known range, or more points than the analysis enumerates).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, SSAValue

from xtir.dialects.expr import Expr, Var
from xtir.dialects.layout import memory_space
from xtir.dialects.walk import ancestors
from xtir.lowering.index_expr import decode
from xtir.lowering.loops import constant_loop, loop_name
from xtir.lowering.virtual_threads import dependents, repeated_buffers
from xtir.passes.analysis.dependences import Touch, block_of, conflicting_pairs, guard_facts, pair_conflict, who
from xtir.passes.analysis.instances import ENUMERATION_LIMIT
from xtir.support.errors import LoweringError

Access = memref.LoadOp | memref.StoreOp

_NAME = "lower-to-gpu"


@dataclass(frozen=True)
class Axis:
    """A thread axis of the kernel: its tag, the first loop bound to it, its extent."""

    tag: str
    loop: str
    extent: int


def check_thread_races(root: scf.ForOp, axes: Mapping[SSAValue, Axis], canon: Mapping[SSAValue, SSAValue],
                       apart: Callable[[Access], set[SSAValue]]) -> None:
    """Refuse two threads of the kernel `root` touching one element of a global or local buffer,
    one writing it. `axes`: the thread axes of more than one value, by canonical variable; `canon`:
    each thread-bound loop's variable → its axis's; `apart(op)`: the axes `op` runs apart on."""
    variables = _Variables(axes, canon)
    touches = [variables.touch(op) for op in root.walk()
               if isinstance(op, Access) and memory_space(op.memref) != "shared"]
    order = {t.op: k for k, t in enumerate(t for t in touches if t is not None)}
    for first, second in conflicting_pairs(t for t in touches if t is not None):
        private = _private_axes(first.buffer, canon)
        compared = [v for v in axes if v not in private and _compared(v, first.op, second.op, apart, canon)
                    and not _read_where_stored(v, first, second, apart, canon, variables, order)]
        if not compared:
            continue
        threads = [axes[v] for v in compared]
        if first.op in variables.unknown or second.op in variables.unknown:
            raise _refusal(first, second, _unknown(first, second, variables.unknown, threads))
        found = pair_conflict(compared, first, second, variables.bounds)
        if found is True:
            raise _refusal(first, second, _undecided(first, second, threads))
        if found is not False:
            raise _refusal(first, second, _race(first, second, threads, found))


def check_shared_flows(root: scf.ForOp, axes: Mapping[SSAValue, Axis], canon: Mapping[SSAValue, SSAValue],
                       apart: Callable[[Access], set[SSAValue]], tiles: Mapping[SSAValue, scf.ForOp]) -> None:
    """Refuse two threads of one block touching one element of a shared buffer, one writing it, in
    one body of a loop bound to them (`_one_body`), where no barrier can order them; arguments as
    check_thread_races', and `tiles`: each shared buffer whose reads a write before them covers in
    each iteration of a serial loop → that loop. Compared along each such loop in turn, the loops
    around it at one iteration, those inside it free (their iterations meet in other orders in the
    threads); along a vthread loop, but where an access runs once for all its virtual threads
    (`_once_alike`)."""
    variables = _Variables(axes, canon)
    touches = [variables.touch(op) for op in root.walk()
               if isinstance(op, Access) and memory_space(op.memref) == "shared"]
    order = {t.op: k for k, t in enumerate(t for t in touches if t is not None)}
    repeated: dict[scf.ForOp, set[SSAValue]] = {}
    for first, second in conflicting_pairs(t for t in touches if t is not None):
        for loop in _one_body(first.op, second.op, canon):
            v = canon[loop.body.block.args[0]]
            if v not in axes or axes[v].tag.startswith("blockIdx"):
                continue  # each block has its own shared buffers
            if axes[v].tag.startswith("vthread") and (
                    first.buffer in _cached(repeated, loop)
                    or _once_alike(first, second, v, loop, apart, order, canon, variables, tiles.get(first.buffer))):
                continue  # inject_virtual_threads keeps their order (checking the first kind itself)
            axis = Axis(axes[v].tag, loop_name(loop), axes[v].extent)
            if first.op in variables.unknown or second.op in variables.unknown:
                raise _refusal(first, second, _unknown(first, second, variables.unknown, [axis], _SHARED_ADVICE))
            free = tuple(_inside(first, loop, canon, variables) | _inside(second, loop, canon, variables))
            found = pair_conflict([v], replace(first, inner=free), replace(second, inner=free), variables.bounds)
            if found is True:
                raise _refusal(first, second, _undecided(first, second, [axis], _SHARED_ADVICE))
            if found is not False:
                raise _refusal(first, second, _shared_race(first, second, axis, found))


def threads_meet(first: Access, second: Access, axes: Mapping[SSAValue, Axis], canon: Mapping[SSAValue, SSAValue]) -> bool:
    """Whether two different threads of one block may touch one element through the store `first`
    and `second`, at any iterations of the serial loops around each (free in each thread), the
    conditions around them bounding where they run: the block ids one value (each block has its
    own shared buffers), the other axes compared. True where it cannot be shown they never do."""
    variables = _Variables(axes, canon)
    pair = variables.touch(first), variables.touch(second)
    if pair[0] is None or pair[1] is None:
        return False  # one never runs
    if first in variables.unknown or second in variables.unknown:
        return True
    threads = [v for v, axis in axes.items() if not axis.tag.startswith("blockIdx")]
    return pair_conflict(threads, pair[0], pair[1], variables.bounds) is not False


def _cached(repeated: dict[scf.ForOp, set[SSAValue]], loop: scf.ForOp) -> set[SSAValue]:
    """The buffers a store in vthread `loop` writes in turn per virtual thread, found once per loop."""
    if loop not in repeated:
        repeated[loop] = repeated_buffers(loop, dependents(loop))
    return repeated[loop]


def _one_body(first: Operation, second: Operation, canon: Mapping[SSAValue, SSAValue]) -> list[scf.ForOp]:
    """The thread-bound loops, outermost first, whose one iteration runs both accesses: around
    both and, for each, the innermost loop of its axis around it. A loop of the axis inside it
    around one only (a cooperative fetch bound again) runs that access in every thread apart,
    a barrier point between the two."""
    mine, theirs = _innermost_thread_loops(first, canon), _innermost_thread_loops(second, canon)
    return [lp for v, lp in reversed(mine.items()) if theirs.get(v) is lp]


def _innermost_thread_loops(op: Operation, canon: Mapping[SSAValue, SSAValue]) -> dict[SSAValue, scf.ForOp]:
    """Each axis of a thread-bound loop around `op` → the innermost such loop, innermost first."""
    found: dict[SSAValue, scf.ForOp] = {}
    for lp in ancestors(op):
        if isinstance(lp, scf.ForOp) and lp.body.block.args[0] in canon:
            found.setdefault(canon[lp.body.block.args[0]], lp)
    return found


def _once_alike(first: Touch, second: Touch, v: SSAValue, loop: scf.ForOp, apart: Callable[[Access], set[SSAValue]],
                order: Mapping[Operation, int], canon: Mapping[SSAValue, SSAValue], variables: _Variables,
                tile: scf.ForOp | None) -> bool:
    """Whether inject_virtual_threads keeps the order of the pair along vthread `loop`: the store
    `first` does not run apart on it (it runs once, every virtual thread's run alike), and the
    other access is such a store too, or a load after it that reads, in each iteration of the
    serial loops around both in `loop`, what a store before it stored in that iteration: `first`
    writes the same elements in each (`_same_each_iteration`), or the two meet in one iteration
    only (`_meet_in_one_iteration`), or each read of the buffer is covered by a write before it in
    each iteration of the buffer's `tile` loop, inside `loop` and around both. Run in turn or once,
    that store's element is written before the load reads it, with one value (stores that do use
    the virtual thread are compared with the load). A load before it (the virtual threads after the
    first would read what it stored), or a store that does use the virtual thread (the store run
    once would not overwrite it), stays compared."""
    if v in apart(first.op):
        return False
    if second.is_write:
        return v not in apart(second.op)
    if order[second.op] < order[first.op]:
        return False
    around = [lp for lp in ancestors(first.op, loop) if isinstance(lp, scf.ForOp) and lp.is_ancestor(second.op)]
    covered = tile is not None and loop.is_ancestor(tile) and tile in around
    assert isinstance(first.op, memref.StoreOp), "the first of a pair writes (conflicting_pairs)"
    return (covered or (first.op not in variables.unknown and _same_each_iteration(first.op, around))
            or _meet_in_one_iteration(first, second, loop, canon, variables))


def _same_each_iteration(store: memref.StoreOp, loops: list[scf.ForOp]) -> bool:
    """Whether `store` writes the same elements in every iteration of `loops` (around it): its
    indices and the conditions around it (all of them read) use none of their variables."""
    facts, complete = guard_facts(store)
    exprs = [*(decode(i) for i in store.indices), *(e for e, _ in facts)]
    variables = [lp.body.block.args[0] for lp in loops]
    return complete and all(e is not None and not any(e.uses(w) for w in variables) for e in exprs)


def _inside(touch: Touch, loop: scf.ForOp, canon: Mapping[SSAValue, SSAValue], variables: _Variables) -> set[SSAValue]:
    """The variables of `touch` of loops inside `loop`: serial loops and thread axes bound inside."""
    serial = {w for w in touch.inner if (lp := variables.loop_of(w)) is None or loop.is_ancestor(lp)}
    threads = {canon[lp.body.block.args[0]] for lp in ancestors(touch.op, loop)
               if isinstance(lp, scf.ForOp) and lp.body.block.args[0] in canon}
    return serial | threads


def _compared(v: SSAValue, first: Access, second: Access, apart: Callable[[Access], set[SSAValue]],
              canon: Mapping[SSAValue, SSAValue]) -> bool:
    """Whether the pair is compared along axis `v`: both accesses run apart on it, or one does, both
    are inside a loop bound to it and a serial loop inside that one is around either. An access that
    does not use a virtual thread runs once, but inject_virtual_threads pushes the vthread loop inside
    the serial loops, so the other access's virtual threads meet it at other serial iterations than
    they did in turn (an idle store with itself stays uncompared: it runs once)."""
    one, other = v in apart(first), v in apart(second)
    if one and other:
        return True
    return (one != other and v in _thread_loops_around(first, canon) & _thread_loops_around(second, canon)
            and (_serial_inside(first, v, canon) or _serial_inside(second, v, canon)))


def _read_where_stored(v: SSAValue, first: Touch, second: Touch, apart: Callable[[Access], set[SSAValue]],
                       canon: Mapping[SSAValue, SSAValue], variables: _Variables, order: Mapping[Operation, int]) -> bool:
    """Whether inject_virtual_threads keeps what the load `second` reads from the store `first`
    along vthread axis `v`, though a serial loop in its loop is around them (`_compared`): the
    store does not run apart on it (it runs once, alike for every virtual thread), the load does
    and comes after it, both in one loop bound to `v`, and they meet only at one iteration of the
    serial loops around both inside that loop. Then each virtual thread's load reads what the store
    stored before it in that iteration, run in turn as when distributed (the vthread loop pushed
    into those loops); it meets no other iteration's store, which the interchange reorders."""
    if v in apart(first.op) or second.is_write or v not in apart(second.op) or order[second.op] < order[first.op]:
        return False
    loop = _innermost_thread_loops(first.op, canon).get(v)
    return (loop is not None and _innermost_thread_loops(second.op, canon).get(v) is loop
            and _meet_in_one_iteration(first, second, loop, canon, variables))


def _meet_in_one_iteration(first: Touch, second: Touch, loop: scf.ForOp, canon: Mapping[SSAValue, SSAValue],
                           variables: _Variables) -> bool:
    """Whether the two accesses touch one element only at one iteration of the serial loops around
    both inside `loop` (not at two different ones), the other loops and thread axes inside `loop`
    free, those around it at one iteration."""
    if first.op in variables.unknown or second.op in variables.unknown:
        return False
    common = [lp for lp in ancestors(first.op, loop) if isinstance(lp, scf.ForOp) and lp.is_ancestor(second.op)
              and lp.body.block.args[0] not in canon]
    found = [variables.variable(lp.body.block.args[0]) for lp in common]
    iterations = [w for w in found if w is not None]
    if len(iterations) < len(found):
        return False
    free = tuple((_inside(first, loop, canon, variables) | _inside(second, loop, canon, variables)) - set(iterations))
    return pair_conflict(iterations, replace(first, inner=free), replace(second, inner=free), variables.bounds) is False


def _serial_inside(op: Operation, v: SSAValue, canon: Mapping[SSAValue, SSAValue]) -> bool:
    """Whether a serial loop around `op` is inside its loop bound to axis `v`."""
    serial = False
    for lp in ancestors(op):
        if not isinstance(lp, scf.ForOp):
            continue
        var = lp.body.block.args[0]
        if var not in canon:
            serial = True
        elif canon[var] is v:
            return serial
    return False


class _Variables:
    """The accesses' indices in the canonical thread variables and zero-based loop variables."""

    def __init__(self, axes: Mapping[SSAValue, Axis], canon: Mapping[SSAValue, SSAValue]) -> None:
        self.extents: dict[SSAValue, int] = {v: axis.extent for v, axis in axes.items()}
        self.canon = canon
        self.mapping: dict[SSAValue, Expr] = {k: Expr.var(v) for k, v in canon.items() if k is not v}
        self.unknown: set[Operation] = set()
        """Accesses whose element cannot be told (not affine, a variable of unknown range)."""
        self.digits: dict[SSAValue, tuple[Expr, int] | None] = {}
        """Each serial loop's variable as `zero_based` writes it, one digit for all its accesses."""
        self.origin: dict[SSAValue, SSAValue] = {}
        """Each digit → the variable of its loop."""

    def variable(self, value: SSAValue) -> SSAValue | None:
        """The zero-based variable of the serial loop whose variable `value` is (itself, or its
        digit), None where its range is not known."""
        found = self.zero_based(value)
        if found is None:
            return None
        (atom, _), = found[0].terms
        assert isinstance(atom, Var)
        return atom.value

    def loop_of(self, variable: SSAValue) -> scf.ForOp | None:
        """The loop whose variable `variable` is (or whose digit)."""
        owner = self.origin.get(variable, variable).owner
        loop = owner.parent_op() if isinstance(owner, Block) else None
        return loop if isinstance(loop, scf.ForOp) else None

    def bounds(self, value: SSAValue) -> tuple[int, int] | None:
        n = self.extents.get(value)
        return (0, n - 1) if n is not None else None

    def touch(self, op: Access) -> Touch | None:
        """`op` as dependences' Touch, every variable but the thread axes' inner (a serial loop's:
        free in each thread); None when it never runs. A condition around it over a variable of
        unknown range is left out (it can only make the access run more)."""
        decoded = [decode(i) for i in op.indices]
        if any(d is None for d in decoded):
            self.unknown.add(op)
        indices = [d.substitute(self.mapping) for d in decoded if d is not None]
        facts = [(e.substitute(self.mapping), bound) for e, bound in guard_facts(op)[0]]
        zero_based: dict[SSAValue, Expr | None] = {}
        for v in {v for e in [*indices, *(e for e, _ in facts)] for v in e.variables()}:
            if v not in self.extents:
                found = self.zero_based(v)
                if found is not None and found[1] == 0:
                    return None
                zero_based[v] = None if found is None else found[0]
        unknown = {v for v, e in zero_based.items() if e is None}
        if any(e.uses(v) for e in indices for v in unknown):
            self.unknown.add(op)
        known = {v: e for v, e in zero_based.items() if e is not None}
        indices = [e.substitute(known) for e in indices]
        facts = [(e.substitute(known), bound) for e, bound in facts if not any(e.uses(v) for v in unknown)]
        inner = [v for e in [*indices, *(e for e, _ in facts)] for v in e.variables() if v not in self.canon]
        return Touch(op, op.memref, isinstance(op, memref.StoreOp), tuple(indices), (1,) * len(op.indices),
                     tuple(dict.fromkeys(inner)), tuple(facts))

    def zero_based(self, value: SSAValue) -> tuple[Expr, int] | None:
        """The variable of a serial loop with constant bounds as `lb + step * d`, d from 0 to its
        trip count (a fresh variable, unless lb is 0 and step 1, the same for every access), and
        the trip count; else None."""
        if value not in self.digits:
            self.digits[value] = self._zero_based(value)
        return self.digits[value]

    def _zero_based(self, value: SSAValue) -> tuple[Expr, int] | None:
        loop = constant_loop(value)
        if loop is None:
            return None
        lb, step, trips = loop
        if lb == 0 and step == 1:
            self.extents[value] = trips
            return Expr.var(value), trips
        digit = Block(arg_types=[IndexType()]).args[0]
        self.extents[digit] = trips
        self.origin[digit] = value
        return Expr.var(digit) * step + lb, trips


def _private_axes(buffer: SSAValue, canon: Mapping[SSAValue, SSAValue]) -> set[SSAValue]:
    """The axes of the thread loops around the buffer's allocation: one copy per thread along them."""
    owner = buffer.owner
    return _thread_loops_around(owner, canon) if isinstance(owner, Operation) else set()


def _thread_loops_around(op: Operation, canon: Mapping[SSAValue, SSAValue]) -> set[SSAValue]:
    """The axes of the thread-bound loops around `op`."""
    return {canon[lp.body.block.args[0]] for lp in ancestors(op) if isinstance(lp, scf.ForOp)
            and lp.body.block.args[0] in canon}


def _name(touch: Touch) -> str:
    return touch.buffer.name_hint or "a buffer"


def _what(touch: Touch) -> str:
    """The block the access came from, else `the load of A` / `the store into A`."""
    if block_of(touch.op) is not None:
        return who(touch)
    return f"the store into {_name(touch)}" if touch.is_write else f"the load of {_name(touch)}"


def _refusal(first: Touch, second: Touch, message: str) -> LoweringError:
    """At the write, with a note at the other access."""
    notes = [] if second.op is first.op else [(second.op, f"{_what(second)} {_verb(second)} it here")]
    return LoweringError(first.op, message, notes, pass_name=_NAME)


def _verb(second: Touch) -> str:
    """What the second access of a pair does (the first writes: conflicting_pairs)."""
    return "writes" if second.is_write else "reads"


def _listed(axes: list[Axis]) -> str:
    return ", ".join(axis.tag for axis in axes)


_ADVICE = ("the threads of a launch run at once, in no order (a race); a loop bound to a thread must keep "
           "independent iterations: keep the loop that passes data through the buffer serial, or let each thread "
           "touch its own elements")


def _race(first: Touch, second: Touch, axes: list[Axis], points: tuple[int, int]) -> str:
    one, other = (dict(zip(axes, _digits(p, axes))) for p in points)
    differ = [axis for axis in axes if one[axis] != other[axis]]
    where = ", ".join(f'loop "{a.loop}" ({a.tag}) at {one[a]} and at {other[a]}' for a in differ)
    alike = " (the other thread axes alike)" if len(differ) < len(axes) else ""
    if second.op is first.op:
        what = f"{_what(first)} writes one element of {_name(first)} in two threads"
    else:
        what = f"{_what(first)} writes an element of {_name(first)} that {_what(second)} {_verb(second)} in another thread"
    return f"{what}, {where}{alike}; {_ADVICE}"


def _digits(point: int, axes: list[Axis]) -> Iterator[int]:
    for axis in axes:  # mixed radix, the first axis lowest (pair_conflict's numbering)
        point, value = divmod(point, axis.extent)
        yield value


def _undecided(first: Touch, second: Touch, axes: list[Axis], advice: str = _ADVICE) -> str:
    return (f"it cannot be shown that different threads ({_listed(axes)}) touch different elements of "
            f"{_name(first)} through {_pair(first, second)} (the analysis cannot decide it: the strides of the "
            f"indices do not tell the threads apart, and enumerating them takes more than {ENUMERATION_LIMIT} "
            f"points); {advice}")


def _unknown(first: Touch, second: Touch, unknown: set[Operation], axes: list[Axis], advice: str = _ADVICE) -> str:
    which = first if first.op in unknown else second
    return (f"which elements {_what(which)} touches cannot be told (an index that is not affine in "
            f"loop variables of constant range), so different threads ({_listed(axes)}) may touch one element "
            f"through {_pair(first, second)}; {advice}")


_SHARED_ADVICE = ("a barrier can order two loops bound to a thread, not the accesses in one body of such a loop: "
                  "there the threads run at once (a race) and virtual threads one statement after another, not in "
                  "turn as the loop does; a loop bound to a thread must keep independent iterations: pass the data "
                  "from one loop bound to the thread to another (a fetch loop, then the loop reading it), or let "
                  "each thread touch its own elements")


def _shared_race(first: Touch, second: Touch, axis: Axis, points: tuple[int, int]) -> str:
    one, other = points
    if second.op is first.op:
        what = f"{_what(first)} writes one element of shared buffer {_name(first)} in two threads"
    else:
        what = (f"{_what(first)} writes an element of shared buffer {_name(first)} that {_what(second)} "
                f"{_verb(second)} in another thread")
    return f'{what}, in one body of loop "{axis.loop}" ({axis.tag}) at {one} and at {other}; {_SHARED_ADVICE}'


def _pair(first: Touch, second: Touch) -> str:
    return _what(first) if second.op is first.op else f"{_what(first)} and {_what(second)}"
