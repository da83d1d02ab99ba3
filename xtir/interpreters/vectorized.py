"""The evaluator's fast path: a loop nest around one block, run with numpy array operations.

A *nest* is a chain of `block.for` loops, each the only op of the one around it, whose
innermost body is one block of straight-line ops (loads, stores, arith and math ops with
a vector form, an init of the same). Its instances are the points of the loops' grid, in
lexicographic (sequential) order. The nest runs as *steps*: the loops in a lane set V
become array axes (one lane per instance), the others (R) stay Python loops in their
order, and each step runs the block body op by op on all the lanes of one R point.

Legality. That reproduces the sequential order's results exactly when no two instances in
different lanes touch the same element of a buffer the block writes (one of the touches a
write): conflicting instances then share their lane, where the steps keep their order,
and within a step the lanes are independent. Reductions keep their order per output
element (the reduce loops are in R, each element accumulates in its own lane, step after
step, in f32 as the IR says). The condition is checked before the nest runs, over the
grid, from the access indices (not from any compiler analysis); candidate lane sets are
tried from the largest, and the empty one (a step per instance) always holds.

Checks. Before a nest runs, the bindings that could leave their domains and the accesses
that could leave their buffers (by interval arithmetic on the loops' extents) are checked
over the whole grid, at the instances where the block's `where` holds. Indices depend on
loop variables and values from outside the nest only, never on loaded data, so that check
is exact. A nest with a failing instance runs in the scalar interpreter, which performs
the instances before it and stops at it with its usual error: the buffers and the message
are the same as without the fast path. (Vector ops never raise: ops that can, integer
division and the like, keep their block in the scalar interpreter.)
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation, SSAValue

from xtir.dialects import block
from xtir.dialects.expr import Div, Expr, Var
from xtir.errors import XtirEvaluationError, XtirWarning
from xtir.interpreters.block import numpy_dtype
from xtir.interpreters.compiled_expr import compile_exprs
from xtir.interpreters.vector_ops import vector_function

MAX_LANES = 1 << 21
"""Instances per step at most (the arrays of one step stay a few tens of MB)."""

CHUNK_POINTS = 1 << 20
"""Grid points per chunk when checking a nest's legality or searching its first error."""

INDEX_MAGNITUDE = 1 << 62
"""Index arithmetic runs on int64 arrays: a nest whose expressions could reach this runs scalar."""

LONG_RUN_SECONDS = 30.0
"""A run expected to take longer (from its iteration counts) warns, pointing to xtir.build."""

SCALAR_SECONDS_PER_OP = 8e-6  # the interpreter, per op of a block instance
STEP_SECONDS_PER_OP = 3e-6  # the fast path, per op of a step
LANE_SECONDS_PER_OP = 4e-9  # the fast path, per op and instance


# The static plan of a nest ------------------------------------------------------------------


@dataclass(frozen=True)
class Access:
    op: block.LoadOp | block.StoreOp
    buffer: SSAValue
    operands: tuple[SSAValue, ...]
    exprs: tuple[Expr, ...]  # the indices
    index: Callable[..., tuple[object, ...]]
    shape: tuple[int, ...]
    in_init: bool
    value: SSAValue  # what a load defines, what a store writes
    checked: tuple[int, ...]  # the dimensions whose index could leave the buffer
    is_write: bool


@dataclass(frozen=True)
class Compute:
    op: Operation
    fn: Callable[..., object]
    operands: tuple[SSAValue, ...]
    result: SSAValue | None


Statement = Access | Compute


@dataclass
class Nest:
    """A nest's plan: what its steps and checks read, derived from the IR once (reading
    the ops' attributes costs as much as a small nest's steps)."""

    loops: list[block.ForOp]
    block: block.BlockOp
    iters: list[block.IterVar]
    predicate: list[tuple[Expr, int]]
    init: list[Statement]
    body: list[Statement]
    external: list[SSAValue]  # values the nest reads from outside it
    bind: Callable[..., tuple[object, ...]]
    where: Callable[..., tuple[object, ...]] | None
    spatial: tuple[int, ...]  # positions of the loops bound to spatial variables only
    checked_iters: tuple[int, ...]  # the iteration variables whose binding could leave its domain
    lanes_by_key: dict[tuple[object, ...], tuple[int, ...]] = field(default_factory=dict)
    hinted: bool = False

    def __post_init__(self) -> None:
        blk = self.block
        self.extents = tuple(loop.extent for loop in self.loops)
        self.loop_vars = tuple(loop.var for loop in self.loops)
        self.operands = tuple(blk.loop_vars)  # of the bindings and the predicate
        self.iter_vars = tuple(it.var for it in self.iters)
        self.domain = tuple(it.extent for it in self.iters)
        self.reduce_vars = tuple(it.var for it in self.iters if it.kind == block.REDUCE)
        self.where_bounds = tuple(bound for _, bound in self.predicate)
        self.dtypes = [_dtype(v) for v in self.external]
        self.accesses = [s for s in (*self.init, *self.body) if isinstance(s, Access)]
        written = {a.buffer for a in self.accesses if a.is_write}
        self.written_accesses = [a for a in self.accesses if a.buffer in written]
        self.relevant = _relevant_loops(self, self.written_accesses)
        self.key_vars = _lane_check_inputs(self)

    def holds(self, env: dict[SSAValue, object]) -> object:
        """Where the block's predicate holds (True, or a bool array)."""
        if self.where is None:
            return True
        return _all([v < b for v, b in zip(self.where(*(env[v] for v in self.operands)), self.where_bounds)])

    def op_count(self) -> int:
        return len(self.init) + len(self.body) + 2


@dataclass(frozen=True)
class ScalarNest:
    """A nest whose block has an op without a vector form: it runs in the scalar interpreter."""

    loops: list[block.ForOp]
    block: block.BlockOp
    reason: str


def _chain(root: block.ForOp) -> tuple[list[block.ForOp], block.BlockOp] | None:
    loops, op = [root], root
    while True:
        ops = list(op.body.block.ops)
        if len(ops) != 1:
            return None
        (op,) = ops
        if isinstance(op, block.BlockOp):
            return loops, op
        if not isinstance(op, block.ForOp):
            return None
        loops.append(op)


def _statements(ops: Sequence[Operation], in_init: bool, bounds: Bounds) -> list[Statement] | str:
    result: list[Statement] = []
    for op in ops:
        if isinstance(op, block.LoadOp | block.StoreOp):
            buffer = op.buffer
            assert isinstance(buffer.type, MemRefType)
            operands, exprs = tuple(op.index_vars), tuple(op.indices())
            is_write = isinstance(op, block.StoreOp)
            value = op.value if is_write else op.result
            shape = tuple(buffer.type.get_shape())
            checked = _could_leave(exprs, shape, bounds)
            result.append(Access(op, buffer, operands, exprs, compile_exprs(exprs, operands), shape, in_init, value,
                                 checked, is_write))
            continue
        fn = vector_function(op)
        if fn is None:
            return f"{op.name} has no vector form"
        result.append(Compute(op, fn, tuple(op.operands), op.results[0] if op.results else None))
    return result


Bounds = Callable[[SSAValue], "tuple[int, int] | None"]
"""block.loop_bounds, remembered for the values of one nest."""


def _span(expr: Expr, bounds: Bounds) -> tuple[int, int] | None:
    """The values `expr` takes where its variables stay in their loops' extents and blocks'
    domains (which the steps check), as an interval (None: a variable without bounds)."""
    lo = hi = expr.const
    for atom, coef in expr.terms:
        if isinstance(atom, Var):
            span = bounds(atom.value)
        elif (inner := _span(atom.expr, bounds)) is None:
            return None
        elif isinstance(atom, Div):
            span = (inner[0] // atom.divisor, inner[1] // atom.divisor)
        else:
            inside = inner[0] >= 0 and inner[1] < atom.divisor
            span = inner if inside else (0, atom.divisor - 1)
        if span is None:
            return None
        lo, hi = lo + min(span[0] * coef, span[1] * coef), hi + max(span[0] * coef, span[1] * coef)
    return lo, hi


def _could_leave(exprs: Sequence[Expr], extents: Sequence[int], bounds: Bounds) -> tuple[int, ...]:
    """Positions of the expressions that could leave [0, extent) (those the steps check)."""
    spans = [_span(e, bounds) for e in exprs]
    return tuple(k for k, (span, n) in enumerate(zip(spans, extents)) if span is None or not 0 <= span[0] <= span[1] < n)


def _magnitude(expr: Expr, bounds: Bounds) -> int | None:
    """A bound on every intermediate value when `expr` is computed term by term, its floordiv
    and mod operands included (None: a variable without bounds)."""
    total = largest = abs(expr.const)
    for atom, coef in expr.terms:
        if isinstance(atom, Var):
            span = bounds(atom.value)
            if span is None:
                return None
            size = max(abs(span[0]), abs(span[1]))
        else:
            inner = _magnitude(atom.expr, bounds)
            if inner is None:
                return None
            largest = max(largest, inner)
            size = inner // atom.divisor + 1 if isinstance(atom, Div) else atom.divisor
        total += abs(coef) * size
    return max(total, largest)


def _fits(exprs: Sequence[Expr], bounds: Bounds) -> bool:
    return all((m := _magnitude(e, bounds)) is not None and m < INDEX_MAGNITUDE for e in exprs)


def _defined_inside(blk: block.BlockOp) -> set[SSAValue]:
    inside: set[SSAValue] = set(blk.iter_vars)
    for op in blk.walk():
        inside.update(op.results)
    return inside


def _has_regions(blk: block.BlockOp) -> bool:
    return any(op.regions for op in blk.body.block.ops if not isinstance(op, block.InitOp))


def plan_nest(root: block.ForOp) -> Nest | ScalarNest | None:
    """The nest rooted at `root`; None when `root` is no such nest (its body holds several ops,
    or a block with loops or blocks inside: it runs loop by loop, its inner nests each on
    their own)."""
    chain = _chain(root)
    if chain is None or _has_regions(chain[1]):
        return None
    loops, blk = chain
    bounds = functools.cache(block.loop_bounds)
    init_op = blk.init
    body_ops = [op for op in blk.body.block.ops if op is not init_op]
    init = _statements(list(init_op.body.block.ops), True, bounds) if init_op is not None else []
    body = _statements(body_ops, False, bounds)
    if isinstance(init, str) or isinstance(body, str):
        return ScalarNest(loops, blk, init if isinstance(init, str) else str(body))
    iters, predicate, loop_vars = blk.iters(), blk.predicate(), blk.loop_vars
    bindings = [it.binding for it in iters]
    exprs = bindings + [e for e, _ in predicate]
    exprs += [e for s in (*init, *body) if isinstance(s, Access) for e in s.exprs]
    if not _fits(exprs, bounds):
        return ScalarNest(loops, blk, "its index arithmetic could leave 64 bits")
    inside = _defined_inside(blk) | {loop.var for loop in loops}
    external = {v: None for op in blk.walk() for v in op.operands if v not in inside}
    reduce_loops = {v for it in iters if it.kind == block.REDUCE for v in it.binding.variables()}
    bound = {v for it in iters for v in it.binding.variables()}
    spatial = tuple(k for k, loop in enumerate(loops) if loop.var in bound and loop.var not in reduce_loops)
    where = compile_exprs([e for e, _ in predicate], loop_vars) if blk.where_map is not None else None
    checked_iters = _could_leave(bindings, [it.extent for it in iters], bounds)
    return Nest(loops, blk, iters, predicate, init, body, list(external), compile_exprs(bindings, loop_vars), where,
                spatial, checked_iters)


# Running a nest --------------------------------------------------------------------------------


def _dtype(value: SSAValue) -> np.dtype | None:
    """The numpy type the fast path holds a scalar value in (None: a buffer, or held as it is)."""
    if isinstance(value.type, MemRefType):
        return None
    try:
        return numpy_dtype(value.type)
    except XtirEvaluationError:
        return None


def _numpy_value(value: object, dtype: np.dtype | None) -> object:
    """An outside value as the fast path holds it (the interpreter keeps Python ints and bools)."""
    if dtype is None or isinstance(value, np.ndarray):
        return value
    return np.bool_(value) if dtype == np.bool_ else np.asarray(value).astype(dtype)[()]


def _lane_grid(extents: Sequence[int]) -> list[np.ndarray]:
    """Broadcastable aranges, one axis per loop."""
    n = len(extents)
    return [np.arange(e, dtype=np.int64).reshape([1] * k + [e] + [1] * (n - k - 1)) for k, e in enumerate(extents)]


def _chunks(extents: Sequence[int], limit: int = CHUNK_POINTS) -> Iterator[tuple[list[object], tuple[int, ...]]]:
    """The grid of `extents` in lexicographic order, a chunk at a time: each chunk gives every
    loop's values (ints for the leading loops, broadcastable arrays for the others) and its shape."""
    n = len(extents)
    if n == 0:
        yield [], ()
        return
    split = n
    while split > 0 and math.prod(extents[split - 1 :]) <= limit:
        split -= 1
    if split == n:  # the last loop alone is too long: slices of it
        for lead in itertools.product(*(range(e) for e in extents[:-1])):
            for start in range(0, extents[-1], limit):
                stop = min(start + limit, extents[-1])
                yield [*lead, np.arange(start, stop, dtype=np.int64)], (stop - start,)
        return
    trailing = _lane_grid(extents[split:])
    shape = tuple(extents[split:])
    for lead in itertools.product(*(range(e) for e in extents[:split])):
        yield [*lead, *trailing], shape


def _all(values: Sequence[object]) -> object:
    result: object = True
    for v in values:
        result = v if result is True else result & v
    return result


def _compact(env: dict[SSAValue, object], keys: Sequence[SSAValue], shape: tuple[int, ...], mask: np.ndarray):
    """The instances where `mask` holds, on one axis: a new env and its shape."""
    mask = np.broadcast_to(mask, shape)
    env = dict(env)
    for v in keys:
        if v in env and np.ndim(env[v]):
            env[v] = np.broadcast_to(env[v], shape)[mask]
    return env, (int(np.count_nonzero(mask)),)


class NestRunner:
    """Runs the nests of one evaluation (plans cached per root loop)."""

    def __init__(self) -> None:
        self.plans: dict[int, tuple[block.ForOp, Nest | ScalarNest | None]] = {}
        self.warned = False

    def plan(self, root: block.ForOp) -> Nest | ScalarNest | None:
        entry = self.plans.get(id(root))
        if entry is None or entry[0] is not root:
            entry = (root, plan_nest(root))
            self.plans[id(root)] = entry
        return entry[1]

    def run(self, interpreter: Interpreter, root: block.ForOp, run_scalar: Callable[[], None]) -> None:
        """Run the loop `root`: vectorized when it roots a nest that allows it, else by `run_scalar`."""
        nest = self.plan(root)
        if not isinstance(nest, Nest):
            if nest is not None:
                self._hint_scalar(nest)
            run_scalar()
            return
        values = interpreter.get_values(nest.external)
        outside = {v: _numpy_value(x, t) for v, x, t in zip(nest.external, values, nest.dtypes)}
        if (shared := _aliasing(nest, outside)) is not None:
            self._hint_scalar(ScalarNest(nest.loops, nest.block, shared))
            run_scalar()
            return
        if _fails_somewhere(nest, outside):
            self._hint_scalar(ScalarNest(nest.loops, nest.block, "an instance fails a check, which it reports"))
            run_scalar()
            return
        lanes = _lanes(nest, outside)
        self._hint_vector(nest, lanes)
        _steps(nest, outside, lanes)

    # hints ----------------------------------------------------------------------------------------
    def _hint_scalar(self, nest: ScalarNest) -> None:
        instances = math.prod(loop.extent for loop in nest.loops)
        ops = sum(1 for _ in nest.block.walk())
        seconds = instances * _runs(nest.loops[0]) * ops * SCALAR_SECONDS_PER_OP
        self._warn(seconds, f'block "{nest.block.label}" runs in the scalar interpreter ({nest.reason})', nest.loops[0])

    def _hint_vector(self, nest: Nest, lanes: tuple[int, ...]) -> None:
        if nest.hinted:
            return
        nest.hinted = True
        instances = math.prod(nest.extents)
        steps = instances // math.prod(nest.extents[k] for k in lanes)
        per_run = nest.op_count() * (steps * STEP_SECONDS_PER_OP + instances * LANE_SECONDS_PER_OP)
        what = f'block "{nest.block.label}" runs as {steps:,} steps of {instances // steps:,} instances'
        self._warn(per_run * _runs(nest.loops[0]), what, nest.loops[0])

    def _warn(self, seconds: float, what: str, root: block.ForOp) -> None:
        if self.warned or seconds < LONG_RUN_SECONDS:
            return
        self.warned = True
        runs = _runs(root)
        times = f", {runs:,} times over" if runs > 1 else ""
        warnings.warn(
            f"xtir.evaluate will take about {seconds:.0f} s: {what}{times}. The reference evaluator checks "
            "every access as it runs; xtir.build(module) compiles the function, which takes a fraction of that.",
            XtirWarning,
            stacklevel=2,
        )


def _runs(root: block.ForOp) -> int:
    """How many times `root` runs in one call of its function (its enclosing loops' extents)."""
    count, parent = 1, root.parent_op()
    while parent is not None:
        if isinstance(parent, block.ForOp):
            count *= parent.extent
        parent = parent.parent_op()
    return count


def _aliasing(nest: Nest, outside: dict[SSAValue, object]) -> str | None:
    """Two buffer values on one array would hide dependences between them from the check."""
    arrays = [(b, outside.get(b)) for b in {a.buffer: None for a in nest.accesses}]
    for (b1, x1), (b2, x2) in itertools.combinations(arrays, 2):
        if isinstance(x1, np.ndarray) and isinstance(x2, np.ndarray) and np.may_share_memory(x1, x2):
            return f"{block.buffer_name(b1)} and {block.buffer_name(b2)} share memory"
    return None


# Lanes and steps ---------------------------------------------------------------------------------


def _lanes(nest: Nest, outside: dict[SSAValue, object]) -> tuple[int, ...]:
    """The largest candidate lane set that keeps the sequential results (positions in the chain)."""
    key = tuple(_hashable(outside[v]) for v in nest.key_vars)
    if key not in nest.lanes_by_key:
        lanes = next(lanes for lanes in _candidates(nest.spatial, nest.extents) if _independent(nest, outside, lanes))
        nest.lanes_by_key[key] = _capped(lanes, nest.extents)
    return nest.lanes_by_key[key]


def _hashable(value: object) -> object:
    return value.item() if isinstance(value, np.generic) else id(value)


def _lane_check_inputs(nest: Nest) -> tuple[SSAValue, ...]:
    """The outside values the lane check's verdict depends on. Those of the predicate; those
    in the written buffers' indices (through the bindings) only when they do more than
    shift every access to a buffer by the same amount (a shift keeps which instances meet)."""
    chain = set(nest.loop_vars)
    used = {v for e, _ in nest.predicate for v in e.variables() if v not in chain}
    bindings = {it.var: it.binding for it in nest.iters}
    shifts: dict[SSAValue, set[tuple[frozenset[object], ...]]] = {}
    outside_vars: set[SSAValue] = set()
    shifting_only = True
    for access in nest.written_accesses:
        composed = [e.substitute(bindings) for e in access.exprs]
        outside_vars |= {v for e in composed for v in e.variables() if v not in chain}
        shifts.setdefault(access.buffer, set()).add(tuple(_outside_terms(e, chain) for e in composed))
        shifting_only &= not any(
            not isinstance(atom, Var) and any(v not in chain for v in atom.expr.variables())
            for e in composed for atom, _ in e.terms
        )
    if not (shifting_only and all(len(s) == 1 for s in shifts.values())):
        used |= outside_vars
    return tuple(v for v in nest.external if v in used)


def _outside_terms(expr: Expr, chain: set[SSAValue]) -> frozenset[object]:
    return frozenset((atom, coef) for atom, coef in expr.terms if isinstance(atom, Var) and atom.value not in chain)


def _candidates(spatial: tuple[int, ...], extents: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Lane sets to try, larger first: the spatial loops, each of them left out, each alone, none."""
    seen: set[tuple[int, ...]] = set()
    ordered = sorted(spatial, key=lambda k: extents[k])
    options = [spatial, *(tuple(k for k in spatial if k != drop) for drop in ordered)]
    options += [(k,) for k in reversed(ordered)]
    for lanes in options:
        if lanes not in seen and math.prod(extents[k] for k in lanes) > 1:
            seen.add(lanes)
            yield lanes
    yield ()


def _capped(lanes: tuple[int, ...], extents: Sequence[int]) -> tuple[int, ...]:
    """Fewer lanes (outer loops back to steps) when too many: a subset of a legal set is legal."""
    while math.prod(extents[k] for k in lanes) > MAX_LANES and len(lanes) > 1:
        lanes = lanes[1:]
    return lanes


def _steps(nest: Nest, outside: dict[SSAValue, object], lanes: tuple[int, ...]) -> None:
    extents, loop_vars = nest.extents, nest.loop_vars
    rest = [k for k in range(len(extents)) if k not in lanes]
    grid = _lane_grid([extents[k] for k in lanes])
    shape = tuple(extents[k] for k in lanes)
    for point in itertools.product(*(range(extents[k]) for k in rest)):
        env = dict(outside)
        env.update(zip((loop_vars[k] for k in lanes), grid))
        env.update(zip((loop_vars[k] for k in rest), point))
        _step(nest, env, shape)


def _step(nest: Nest, env: dict[SSAValue, object], shape: tuple[int, ...]) -> None:
    """One step: the block's instances at these loop values (ints, or arrays over the lanes)."""
    holds = nest.holds(env)
    if holds is not True:
        if not np.any(holds):
            return
        if not np.all(holds):
            env, shape = _compact(env, nest.loop_vars, shape, np.asarray(holds))
    env.update(zip(nest.iter_vars, nest.bind(*(env[v] for v in nest.operands))))
    if nest.init:
        first = _all([env[v] == 0 for v in nest.reduce_vars])
        if np.all(first):
            _run(nest.init, env)
        elif np.any(first):
            _run(nest.init, _compact(env, [*nest.loop_vars, *nest.iter_vars], shape, np.asarray(first))[0])
    _run(nest.body, env)


def _run(statements: Sequence[Statement], env: dict[SSAValue, object]) -> None:
    for s in statements:
        if isinstance(s, Compute):
            result = s.fn(*(env[v] for v in s.operands))
            if s.result is not None:
                env[s.result] = result
            continue
        index = s.index(*(env[v] for v in s.operands))
        array = env[s.buffer]
        if s.is_write:
            _store(array, index, env[s.value])
        else:
            env[s.value] = array[index]  # type: ignore[index]


def _store(array: np.ndarray, index: object, value: object) -> None:
    """`array[index] = value`; a 0-d buffer takes the lanes' value (independent lanes: at most one
    lane writes its one element; none where the predicate holds nowhere)."""
    if array.ndim == 0 and np.ndim(value) > 0:
        if np.size(value):
            array[()] = np.ravel(value)[-1]
        return
    array[index] = value  # type: ignore[index]


# Grid-wide checks: independent lanes, the first failing instance ----------------------------------


def _grid_env(nest: Nest, outside: dict[SSAValue, object], positions: Sequence[int], chunk: Sequence[object]):
    """An env with the loops at `positions` at the chunk's values, the other loops at 0, and the
    block's iteration variables; and where the block's predicate holds."""
    env = dict(outside)
    env.update((v, 0) for v in nest.loop_vars)
    env.update(zip((nest.loop_vars[k] for k in positions), chunk))
    holds = nest.holds(env)
    env.update(zip(nest.iter_vars, nest.bind(*(env[v] for v in nest.operands))))
    return env, holds


def _outside(values: Sequence[object], extents: Sequence[int]) -> object:
    bad: object = False
    for value, extent in zip(values, extents):
        bad = bad | (np.asarray(value) < 0) | (np.asarray(value) >= extent)
    return bad


def _performed(nest: Nest, env: dict[SSAValue, object], holds: object, access: Access) -> object:
    """Where an access happens: where the predicate holds (and, in the init, at the first reduce instance)."""
    if not access.in_init:
        return holds
    return holds & _all([np.asarray(env[v]) == 0 for v in nest.reduce_vars])


def _failing(nest: Nest, env: dict[SSAValue, object], holds: object) -> object:
    """Where an instance fails a check: a binding outside its domain, an access outside its
    buffer (of those that could: the others cannot fail)."""
    bad = _outside([env[nest.iter_vars[k]] for k in nest.checked_iters], [nest.domain[k] for k in nest.checked_iters])
    for access in nest.accesses:
        if access.checked:
            index = access.index(*(env[v] for v in access.operands))
            outside = _outside([index[k] for k in access.checked], [access.shape[k] for k in access.checked])
            bad = bad | (_performed(nest, env, True, access) & outside)
    return np.asarray(holds) & bad


def _fails_somewhere(nest: Nest, outside: dict[SSAValue, object]) -> bool:
    """Whether some instance of the nest fails a check (at these outside values)."""
    if not nest.checked_iters and not any(a.checked for a in nest.accesses):
        return False
    positions = range(len(nest.loops))
    return any(np.any(_failing(nest, *_grid_env(nest, outside, positions, chunk))) for chunk, _ in _chunks(nest.extents))


def _element(index: Sequence[np.ndarray], shape: tuple[int, ...], count: int) -> np.ndarray:
    return np.ravel_multi_index(index, shape) if shape else np.zeros(count, dtype=np.int64)


def _independent(nest: Nest, outside: dict[SSAValue, object], lanes: tuple[int, ...]) -> bool:
    """Whether no two instances in different lanes touch one element of a written buffer (a
    write among the touches).

    Conservative where exactness would cost: the init's accesses count at every instance
    (not only the first of each reduction), an access outside its buffer counts as a
    conflict (not reached: a nest with one runs in the scalar interpreter). Loops outside
    the lanes that neither the predicate nor the written buffers' indices depend on
    (through the bindings) only repeat the same touches: they are held at 0."""
    if not lanes:
        return True
    extents, loop_vars = nest.extents, nest.loop_vars
    accesses = nest.written_accesses
    positions = [k for k in range(len(extents)) if k in lanes or k in nest.relevant]
    owners = {a.buffer: np.full(math.prod(a.shape), -1, dtype=np.int64) for a in accesses}
    lane_extents = [extents[k] for k in lanes]
    # first the writes claim their elements for their lanes, then the reads check theirs
    for writes in (True, False):
        claims = [a for a in accesses if a.is_write == writes]
        for chunk, shape in _chunks([extents[k] for k in positions]) if claims else ():
            env, holds = _grid_env(nest, outside, positions, chunk)
            mask = np.broadcast_to(holds, shape)
            lane = np.broadcast_to(np.ravel_multi_index([env[loop_vars[k]] for k in lanes], lane_extents), shape)[mask]
            for access in claims:
                index = access.index(*(env[v] for v in access.operands))
                if access.checked and np.any(mask & _outside(index, access.shape)):
                    return False
                element = _element([np.broadcast_to(i, shape)[mask] for i in index], access.shape, lane.size)
                owner = owners[access.buffer]
                seen = owner[element]
                if np.any((seen != -1) & (seen != lane)):
                    return False
                if writes:
                    owner[element] = lane
                    if np.any(owner[element] != lane):
                        return False
    return True


def _relevant_loops(nest: Nest, accesses: Sequence[Access]) -> set[int]:
    """Positions of the loops that the predicate, or (through the bindings) the written
    buffers' indices, depend on."""
    iters = {it.var: it for it in nest.iters}
    used: set[SSAValue] = {v for e, _ in nest.predicate for v in e.variables()}
    for v in {v for a in accesses for v in a.operands}:
        if v in iters:
            used |= set(iters[v].binding.variables())
    return {k for k, loop in enumerate(nest.loops) if loop.var in used}
