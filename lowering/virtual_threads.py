"""inject-virtual-threads, a stage of lower-to-gpu (TVM's InjectVirtualThread): the loops bound
to vthread.{x,y,z} run serially inside each real thread.

A virtual thread is a thread axis for every analysis before this stage (lower-to-gpu checks
writes, local buffers and shared sizes treating it like threadIdx: its iterations are
independent, no two write one element of a global or shared buffer, a local buffer used in it
is allocated in it, shared regions are relaxed over it). Here, before barriers are placed, each
vthread loop is pushed down to the statements that touch its variable:

    for v in 2 (vthread.x) {               for k {
      for k {                                 %a = load A_shared[k, tx]          // runs once
        %a = load A_shared[k, tx]     ==>     for v' in 2 {                      // unrolled
        %b = load B_shared[k, 64v + tx]          %b = load B_shared[k, 64v' + tx]
        C_local[j] += %a * %b                    C_local[v', j] += %a * %b
      }                                       }
    }                                       }

- through a loop (serial or thread-bound) or an `scf.if` whose bounds or condition do not use
  the variable: the vthread loop moves inside it (its iterations being independent, the
  interchange keeps what each reads and writes); an unrolled or vectorized loop is wrapped
  whole instead, so that its accesses stay side by side (the float4 fragment reads), but an
  unrolled loop holding a store that does not use the variable (MetaSchedule's cooperative
  fetch at an unrolled k loop: wrapped whole, it would run once per virtual thread) or a shared
  buffer stored and loaded (no barrier could order the virtual threads of a loop wrapped whole)
  has the vthread loop moved inside it, as a serial loop does;
- a statement that does not touch the variable (a load of a fragment every virtual thread
  shares, a cooperative fetch) runs once, where it was, unless it holds a store that does not
  write the same value in every virtual thread (`G[t] += 1`): the loop run serially runs that
  once per virtual thread, each reading what the previous one stored (G += n), and so does the
  result, the statement (its loads too) wrapped whole in a loop over the virtual threads. (TVM's
  InjectVirtualThread runs such a store once: to it the virtual threads race there.);
- a statement that touches it (through its indices, a value computed from it, or a buffer
  allocated inside the vthread loop) is wrapped in a loop over the same range, the ops it needs
  copied in. Statements are the ops a value flows between: a load and the store of the value
  computed from it share one loop. A load that does not touch the variable and that no earlier
  op of its statement may write stays outside, once;
- a local buffer allocated inside the vthread loop (one per virtual thread) gets a leading
  dimension of the loop's extent, indexed by the variable; shared buffers stay one per block.

The loops made are serial (`xtir.loop_kind = "unrolled"` when every loop they hold is unrolled
and they run fewer than UNROLL_BELOW times, TVM's rule), named after the vthread loop, and keep
its tag in `xtir.vthread`. Barriers are placed afterwards on the result, which runs as written:
a barrier inside a loop made would order the real threads only, not the virtual threads, so a
statement wrapped whole must not both store into a shared buffer and load from it an element
another thread may store (loading the element that each of its stores writes, `S[t] += x`, each
thread reads its own: no barrier is needed).

Distributing the loop over its statements is loop fission: each statement runs for every
virtual thread before the next one does. It keeps the loop's meaning where no access of a global
(or outer local) buffer and a later store into it, or a store and a later load, in different
statements (or in one statement inside a serial loop the vthread loop was pushed into: its
iterations interleave the virtual threads) belong to different virtual threads: both index the
buffer by the variable alike (their own virtual thread's elements), or the earlier is a store
whose element and value do not use the variable and that writes the same value in every virtual
thread (not `G[t] += 1`), as does every store into that buffer in the loop (`G[t] = 5` then
`G[t] += 1`: run once, the first would not undo the increment of the virtual thread before). A
shared buffer is exempt: to it virtual threads are threads, which lower-to-gpu's race check has
kept from passing data to each other in one body of the vthread loop (lowering/thread_races.py,
check_shared_flows), and the barriers placed afterwards order every thread's accesses of one
statement before the next statement's, as the distributed loop runs them; but not one with a
store like `S[t] += 1`, which the virtual threads of a real thread run one after another (that
check leaves its accesses to this one), nor a load that a store run once reads (`H[t] = S[t]`
then `S[t] = 7`: the virtual threads after the first would read the new value).

Refused, at the loop: a vthread loop that is the outermost loop of a kernel, or that does not
run from 0 in steps of 1 to a constant (only hand-written scf: a block.for always does); a local
buffer allocated inside one that is used other than by loads and stores; a statement wrapped
whole that stores into and loads from one shared buffer at elements of other threads (at its
loop, else at the load); a pair of accesses that distributing would reorder across virtual
threads (naming the buffer).
"""

from __future__ import annotations

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import IndexType, MemRefType, NoneAttr, StridedLayoutAttr, StringAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.expr import Expr, Var
from xtir.dialects.layout import memory_space, reach, strides_of
from xtir.dialects.walk import ancestors
from xtir.lowering.blocks_to_scf import THREAD
from xtir.lowering.index_expr import decode, index_bounds
from xtir.lowering.loops import LOOP_KIND, LOOP_NAME, THREAD_BINDING, UNROLLED, VECTORIZED, constant_int, loop_kind, loop_name
from xtir.passes.utils import fail

VTHREAD = "xtir.vthread"
"""The tag of the vthread loop a serial loop was made from."""

UNROLL_BELOW = 16

_NAME = "lower-to-gpu"


def vthread_tag(op: Operation) -> str | None:
    attr = op.attributes.get(THREAD)
    if (isinstance(op, scf.ForOp) and loop_kind(op) == THREAD_BINDING and isinstance(attr, StringAttr)
            and attr.data.startswith("vthread")):
        return attr.data
    return None


def leading_dimension(old: MemRefType, n: int) -> MemRefType:
    """`old` with a leading dimension of n: n copies one after the other (a padded buffer keeps
    its strides, the copies `reach(old)` elements apart)."""
    layout = old.layout if isinstance(old.layout, NoneAttr) else StridedLayoutAttr([reach(old), *strides_of(old)], 0)
    return MemRefType(old.element_type, [n, *old.get_shape()], layout, old.memory_space)


def inject_virtual_threads(root: scf.ForOp) -> bool:
    """Push every vthread loop of the kernel `root` down to its statements; whether there was one."""
    if vthread_tag(root) is not None:
        raise fail(_NAME, root, f'loop "{loop_name(root)}" bound to {vthread_tag(root)} is the outermost loop of a '
                   "kernel; bind a loop around it to blockIdx or threadIdx")
    found = False
    while (loop := next((op for op in root.walk() if vthread_tag(op) is not None), None)) is not None:
        _inject(loop)  # outermost first: an inner one is copied along, still tagged
        found = True
    return found


def _inject(loop: scf.ForOp) -> None:
    lb, ub, step = constant_int(loop.lb), constant_int(loop.ub), constant_int(loop.step)
    if lb != 0 or step != 1 or ub is None:
        raise fail(_NAME, loop, f'loop "{loop_name(loop)}" bound to {vthread_tag(loop)} must run from 0 in steps of 1 '
                   "to a constant")
    dependent = dependents(loop)
    accesses = _accesses(loop, dependent)  # before the loop's own local buffers get new accesses
    _expand_locals(loop, ub, dependent)
    distributor = _Distributor(loop, ub)
    distributor.block(loop.body.block, InsertPoint.before(loop), {})
    reordered = _reordered_pair(accesses, distributor, loop, dependent)
    if reordered is not None:
        raise fail(_NAME, loop, _reordered(loop, *reordered))
    Rewriter.erase_op(loop)


Access = memref.LoadOp | memref.StoreOp


def _accesses(loop: scf.ForOp, dependent: set[SSAValue]) -> list[Access]:
    """The loads and stores in `loop` that distributing it must keep in order across virtual
    threads: not those of a local buffer one per virtual thread, nor of a shared buffer (virtual
    threads are threads to it: the barriers placed afterwards order a statement's accesses by every
    thread, virtual or real, before the next statement's, which the distributed loop does), but a
    shared buffer's all the same where a store runs serially per virtual thread (`_repeated`), and
    the loads that a store run once computes its value from with the stores of their buffers (run
    once, not by every virtual thread: the later ones read nothing stored after the first run)."""
    private = {op.memref for op in loop.walk() if isinstance(op, memref.AllocaOp) and op.memref in dependent}
    repeated = repeated_buffers(loop, dependent)
    once = [load for op in loop.walk() if isinstance(op, memref.StoreOp) and not _uses(op, loop, dependent)
            for load in feeding_loads(op.value, loop)]
    fed = {load.memref for load in once}
    return [op for op in loop.walk() if isinstance(op, Access) and op.memref not in private
            and (memory_space(op.memref) != "shared" or op.memref in repeated or op in once
                 or (isinstance(op, memref.StoreOp) and op.memref in fed))]


def repeated_buffers(loop: scf.ForOp, dependent: set[SSAValue]) -> set[SSAValue]:
    """The buffers a `_repeated` store in `loop` writes (`dependent`: the loop's `dependents`):
    this stage keeps every access of them in the loop in order across virtual threads
    (`_accesses`), shared ones too."""
    return {op.memref for op in repeated_stores(loop, dependent)}


def repeated_stores(loop: scf.ForOp, dependent: set[SSAValue]) -> set[memref.StoreOp]:
    """The `_repeated` stores of `loop`."""
    return {op for op in loop.walk() if _repeated(op, loop, dependent)}


def _repeated(op: Operation, loop: scf.ForOp, dependent: set[SSAValue]) -> bool:
    """Whether `op` is a store that does not use the variable yet does not write the same value in
    every virtual thread (`G[t] += 1`, `_idempotent`): it runs once per virtual thread of one real
    thread, one after another, a shared buffer's too (no barrier between them)."""
    return isinstance(op, memref.StoreOp) and not _uses(op, loop, dependent) and not _idempotent(op, loop, dependent)


def _reordered_pair(accesses: list[Access], distributor: _Distributor, loop: scf.ForOp,
                    dependent: set[SSAValue]) -> tuple[Access, Access] | None:
    """Two of `accesses` that distributing the loop (each statement run for every virtual thread
    before the next one: loop fission) reorders across virtual threads: an access of a buffer and
    a later store into it (or a store and a later load) not run in turn by one loop made (`_in_turn`),
    unless both touch only their own virtual thread's elements (`_own_elements`) or the earlier one
    is a store that writes the same value in every virtual thread into a buffer every store in the
    loop writes so (`_written_alike`; after `G[t] += 1` rewriting `G[t] = 5` once would lose a
    virtual thread's increment)."""
    for k, first in enumerate(accesses):
        for second in accesses[k + 1:]:
            if (second.memref is first.memref and memref.StoreOp in (type(first), type(second))
                    and not distributor.in_turn(first, second)
                    and not _own_elements(first, second, loop, dependent)
                    and not _written_alike(first, loop, dependent)):
                return first, second
    return None


def _written_alike(op: Access, loop: scf.ForOp, dependent: set[SSAValue]) -> bool:
    """Whether `op` and every store in `loop` into its buffer are `_idempotent` stores."""
    return _idempotent(op, loop, dependent) and all(
        _idempotent(o, loop, dependent) for o in loop.walk() if isinstance(o, memref.StoreOp) and o.memref is op.memref)


def _reordered(loop: scf.ForOp, first: Access, second: Access) -> str:
    def verb(op: Operation) -> str:
        return "stored" if isinstance(op, memref.StoreOp) else "loaded"
    return (f"{first.memref.name_hint or 'a buffer'} is {verb(first)} and later {verb(second)} in loop "
            f'"{loop_name(loop)}" ({vthread_tag(loop)}) at elements other virtual threads may touch: inject-virtual-'
            "threads runs each statement for every virtual thread before the next statement, which would reorder "
            "the two across virtual threads; index both by the virtual thread alike, or make the earlier one a store "
            "that writes the same value at the same element in every virtual thread (a cooperative fetch), as every "
            "store into the buffer in the loop")


def _own_elements(a: Access, b: Access, loop: scf.ForOp, dependent: set[SSAValue]) -> bool:
    """Whether `a` and `b` touch only elements of their own virtual thread (two virtual threads of
    one real thread never one element): equal indices that use the variable (lower-to-gpu has
    checked that a store's element differs between virtual threads), or an index in which both
    hold the same row of the variable (`_vthread_row`)."""
    if len(a.indices) != len(b.indices):
        return False
    if any(i in dependent for i in a.indices) and all(_same_value(x, y) for x, y in zip(a.indices, b.indices)):
        return True
    return any((row := _vthread_row(x, loop)) is not None and row == _vthread_row(y, loop)
               for x, y in zip(a.indices, b.indices))


def _vthread_row(index: SSAValue, loop: scf.ForOp) -> tuple[int, Expr] | None:
    """(s, outer) where `index` = s * v + outer + inner, v the loop's variable, outer over values
    alike in every virtual thread of a real thread (defined outside the loop, or a real thread's
    id), inner within [0, s): the virtual thread is (index - outer) floordiv s. Else None."""
    expr = decode(index)
    v = loop.body.block.args[0]
    if expr is None:
        return None
    stride, outer, inner = 0, {}, {}
    for atom, coef in expr.terms:
        variables = [atom.value] if isinstance(atom, Var) else atom.expr.variables()
        if isinstance(atom, Var) and atom.value is v:
            stride = coef
        elif v in variables:
            return None
        else:
            (outer if all(_alike_in_vthreads(x, loop) for x in variables) else inner)[atom] = coef
    span = Expr._make(inner, expr.const).bounds(index_bounds)
    if stride <= 0 or span is None or span[0] < 0 or span[1] >= stride:
        return None
    return stride, Expr._make(outer, 0)


def _alike_in_vthreads(value: SSAValue, loop: scf.ForOp) -> bool:
    """Whether `value` is the same in every virtual thread of `loop` in one real thread: defined
    outside it, or the variable of a loop inside bound to a real thread."""
    holder = value.owner.parent_op() if isinstance(value, BlockArgument) else value.owner
    if not isinstance(holder, Operation) or not (holder is loop or loop.is_ancestor(holder)):
        return True
    return (isinstance(holder, scf.ForOp) and value is holder.body.block.args[0] and holder is not loop
            and loop_kind(holder) == THREAD_BINDING and vthread_tag(holder) is None)


def _same_value(a: SSAValue, b: SSAValue) -> bool:
    """Whether `a` and `b` are one value or computed alike by pure ops from the same values."""
    if a is b:
        return True
    x, y = a.owner, b.owner
    return (isinstance(x, Operation) and isinstance(y, Operation) and _pure(x) and type(x) is type(y)
            and x.properties == y.properties and x.attributes == y.attributes and len(x.operands) == len(y.operands)
            and list(x.results).index(a) == list(y.results).index(b)
            and all(_same_value(p, q) for p, q in zip(x.operands, y.operands)))


def _reads_own_element(load: memref.LoadOp, stores: list[memref.StoreOp]) -> bool:
    """Whether `load` reads the element that each of `stores` writes (none: nothing to read)."""
    return all(len(s.indices) == len(load.indices) and all(_same_value(x, y) for x, y in zip(s.indices, load.indices))
               for s in stores)


def _idempotent(op: Access, loop: scf.ForOp, dependent: set[SSAValue], outer: frozenset[Operation] = frozenset()) -> bool:
    """Whether `op` is a store that writes the same value at the same element in every virtual
    thread: it does not use the variable, and the stores in `loop` into the buffers its value is
    loaded from are such stores too (not itself, as in `S[t] += 1`, nor one in `outer`)."""
    if not isinstance(op, memref.StoreOp) or op in outer or _uses(op, loop, dependent):
        return False
    sources = loaded_buffers(op.value, loop)
    return all(_idempotent(o, loop, dependent, outer | {op}) for o in loop.walk()
               if isinstance(o, memref.StoreOp) and o.memref in sources)


def _expand_locals(loop: scf.ForOp, n: int, dependent: set[SSAValue]) -> None:
    """Each local buffer allocated inside `loop` that holds values of the virtual threads: one
    per virtual thread."""
    v = loop.body.block.args[0]
    for alloca in [op for op in loop.walk() if isinstance(op, memref.AllocaOp) and op.memref in dependent]:
        old = alloca.memref.type
        assert isinstance(old, MemRefType)
        users = [u.operation for u in alloca.memref.uses]
        for user in users:
            if not isinstance(user, memref.LoadOp | memref.StoreOp) or user.memref is not alloca.memref:
                raise fail(_NAME, user, f"local buffer {alloca.memref.name_hint or '?'} allocated inside loop "
                           f'"{loop_name(loop)}" ({vthread_tag(loop)}) is used by {user.name}; only loads and stores '
                           "of it get the virtual thread's copy")
        new_type = leading_dimension(old, n)
        new = memref.AllocaOp.get(new_type.element_type, shape=new_type.get_shape(), layout=new_type.layout,
                                  memory_space=new_type.memory_space)
        new.memref.name_hint = alloca.memref.name_hint
        new.attributes.update(alloca.attributes)
        new.location = alloca.location
        Rewriter.replace_op(alloca, new)
        for user in users:
            assert isinstance(user, memref.LoadOp | memref.StoreOp)
            if isinstance(user, memref.LoadOp):
                repl = memref.LoadOp.get(new.memref, [v, *user.indices])
                repl.res.name_hint = user.res.name_hint
            else:
                repl = memref.StoreOp.get(user.value, new.memref, [v, *user.indices])
            repl.location = user.location
            Rewriter.replace_op(user, repl)


def _pure(op: Operation) -> bool:
    return op.dialect_name() in ("arith", "math") and not op.regions


def dependents(loop: scf.ForOp) -> set[SSAValue]:
    """The values that depend on the loop's variable: computed from it, loaded from a local
    buffer of the loop that a store depending on it writes (that buffer's memref too: it
    becomes one per virtual thread), results of ops holding such an op. An op depends on the
    variable when it, or an op around it inside the loop (an `scf.if` condition, a loop bound),
    uses such a value: a store under `if v < 1` writes for some virtual threads only."""
    found: set[SSAValue] = {loop.body.block.args[0]}
    locals_ = {op.memref for op in loop.walk() if isinstance(op, memref.AllocaOp) and memory_space(op.memref) == "local"}
    size = -1
    while size != len(found):
        size = len(found)
        for op in loop.walk():
            if op is loop or not _uses(op, loop, found):
                continue
            found.update(op.results)
            if isinstance(op, memref.StoreOp) and op.memref in locals_:
                found.add(op.memref)
            parent = op.parent_op()
            while parent is not None and parent is not loop:
                found.update(parent.results)
                parent = parent.parent_op()
    return found


def _uses(op: Operation, loop: scf.ForOp, values: set[SSAValue]) -> bool:
    """Whether `op`, or an op around it inside `loop`, has an operand in `values`."""
    return any(o in values for o in op.operands) or guarded_by(op, loop, values)


def guarded_by(op: Operation, loop: scf.ForOp, values: set[SSAValue]) -> bool:
    """Whether an op around `op` inside `loop` (an `scf.if`, a loop) has an operand in `values`."""
    return any(o in values for parent in ancestors(op, loop) for o in parent.operands)


def loaded_buffers(value: SSAValue, loop: scf.ForOp) -> set[SSAValue]:
    """The buffers of the loads inside `loop` that `value` is computed from (an op with regions
    on the way counts with every load it holds)."""
    return {load.memref for load in feeding_loads(value, loop)}


def feeding_loads(value: SSAValue, loop: scf.ForOp) -> list[memref.LoadOp]:
    """The loads inside `loop` that `value` is computed from (an op with regions on the way counts
    with every load it holds)."""
    found: list[memref.LoadOp] = []
    pending, seen = [value], set()
    while pending:
        current = pending.pop()
        owner = current.owner
        if current in seen or not isinstance(owner, Operation) or not loop.is_ancestor(owner):
            continue
        seen.add(current)
        for inner in owner.walk():
            if isinstance(inner, memref.LoadOp) and inner not in found:
                found.append(inner)
            pending.extend(inner.operands)
    return found


def cached_dependents(loop: scf.ForOp, cache: dict[scf.ForOp, set[SSAValue]]) -> set[SSAValue]:
    """`dependents(loop)`, computed once per loop in `cache`."""
    if loop not in cache:
        cache[loop] = dependents(loop)
    return cache[loop]


def untouched_vthreads(op: Operation, root: Operation, cache: dict[scf.ForOp, set[SSAValue]]) -> list[scf.ForOp]:
    """The vthread loops around `op` (inside `root`) whose variable it does not depend on: it
    runs once per real thread, not once per virtual one. `cache` keeps each loop's `dependents`."""
    return [lp for lp in ancestors(op, root) if isinstance(lp, scf.ForOp) and vthread_tag(lp) is not None
            and not any(_uses(inner, lp, cached_dependents(lp, cache)) for inner in op.walk())]


def _may_write(op: Operation, buffer: SSAValue) -> bool:
    for inner in op.walk():
        if isinstance(inner, memref.StoreOp):
            if inner.memref is buffer:
                return True
        elif not (_pure(inner) or isinstance(inner, memref.LoadOp | scf.ForOp | scf.IfOp | scf.YieldOp)):
            return True
    return False


def _defined_in(value: SSAValue, op: Operation) -> bool:
    owner = value.owner
    holder = owner.parent_op() if isinstance(owner, Block) else owner
    return holder is not None and (holder is op or op.is_ancestor(holder))


class _Distributor:
    """Copies the body of one vthread loop to before it, the vthread loop pushed down."""

    def __init__(self, loop: scf.ForOp, n: int):
        self.loop = loop
        self.n = n
        self.var = loop.body.block.args[0]
        self.dependent = dependents(loop)
        self.repeated = repeated_stores(loop, self.dependent)
        """The `_repeated` stores of the loop, found once (distributing copies its ops, changing none)."""
        self.wrapped: dict[Operation, scf.ForOp] = {}
        """The loop over the virtual threads made for each op of a statement wrapped in one."""
        self.iterated: set[scf.ForOp] = set()
        """The loops made inside a serial loop the vthread loop was pushed into: run once per
        iteration of it, they interleave the virtual threads' iterations."""
        self.serial_depth = 0
        """How many serial loops the vthread loop is being pushed into."""

    def in_turn(self, first: Operation, second: Operation) -> bool:
        """Whether one loop made runs `first` and `second` for each virtual thread in turn, as the
        vthread loop did: not one inside a serial loop pushed through (`iterated`)."""
        made = self.wrapped.get(first)
        return made is not None and made is self.wrapped.get(second) and made not in self.iterated

    def touches(self, op: Operation) -> bool:
        return any(o in self.dependent for inner in op.walk() for o in inner.operands)

    def block(self, source: Block, point: InsertPoint, mapping: dict[SSAValue, SSAValue]) -> None:
        ops = [op for op in source.ops if not isinstance(op, scf.YieldOp)]
        for alloca in (op for op in ops if isinstance(op, memref.AllocaOp)):
            self.copy(alloca, point, mapping)  # allocations go first (lower-to-gpu hoists them to the kernel's entry)
        k = 0
        while k < len(ops):
            op = ops[k]
            if _pure(op) or isinstance(op, memref.AllocaOp):
                k += 1  # pure ops are copied where they are used
            elif not self.touches(op) and not self.repeats_from(ops, k):
                self.copy(op, point, mapping)
                k += 1
            else:
                end = self.statement_end(ops, k, lifting=self.touches(op))
                self.statement([o for o in ops[k:end + 1] if not _pure(o) and not isinstance(o, memref.AllocaOp)],
                               point, mapping)
                k = end + 1

    def repeats_from(self, ops: list[Operation], start: int) -> bool:
        """Whether the statement starting at ops[start] (no load lifted) holds a store that
        `repeats`: then it runs in a loop over the virtual threads though it does not touch the
        variable, but for its `liftable` loads (of buffers it does not write), run once before."""
        end = self.statement_end(ops, start, lifting=False)
        return any(self.repeats(op) for op in ops[start:end + 1])

    def repeats(self, op: Operation) -> bool:
        """Whether `op` holds a `_repeated` store: the loop run serially runs it once per virtual
        thread, each reading what the previous one stored (G += n), and so must the loop made; it
        is wrapped whole (pushing the loop into it would reorder its iterations across virtual
        threads). TVM's InjectVirtualThread runs such a store once, a race to it."""
        return any(o in self.repeated for o in op.walk())

    def statement_end(self, ops: list[Operation], start: int, lifting: bool = True) -> int:
        """The last op of the statement starting at ops[start]: the values of its ops that run in
        the virtual threads' loop (all but pure ops and, when `lifting`, lifted loads) flow (through
        pure ops) to no op after it. Grown until stable: a longer statement may write what a load
        reads."""
        position = {id(op): k for k, op in enumerate(ops)}
        block = ops[start].parent_block()
        assert block is not None
        end, previous = start, -1
        while end != previous:
            previous = end
            statement = ops[start:end + 1]
            for op in statement:
                if not _pure(op) and not (lifting and self.liftable(op, statement)):
                    end = max([end, *self.last_users(op, block, position)])
        return end

    def liftable(self, op: Operation, statement: list[Operation]) -> bool:
        """A load that does not touch the variable and that no other op of its statement may write
        runs once, before the virtual threads' loop."""
        return isinstance(op, memref.LoadOp) and not self.touches(op) and not any(
            _may_write(other, op.memref) for other in statement if other is not op)

    def last_users(self, op: Operation, block: Block, position: dict[int, int]) -> list[int]:
        found, pending = [], list(op.results)
        while pending:
            value = pending.pop()
            for use in value.uses:
                user = block.find_ancestor_op_in_block(use.operation)
                assert user is not None, "values of a loop body stay in it"
                if _pure(user):
                    pending.extend(user.results)
                else:
                    found.append(position[id(user)])
        return found

    def statement(self, ops: list[Operation], point: InsertPoint, mapping: dict[SSAValue, SSAValue]) -> None:
        inside: list[Operation] = []
        for op in ops:
            if self.liftable(op, ops):
                self.copy(op, point, mapping)
            else:
                inside.append(op)
        if len(inside) == 1 and self.pushable(inside[0]):
            self.push(inside[0], point, mapping)
        else:
            self.wrap(inside, point, mapping)

    def pushable(self, op: Operation) -> bool:
        """Loops unrolled or vectorized are not pushed through: the virtual threads' loop goes
        around them, so that their accesses stay side by side (float4); but an unrolled loop that
        wrapped whole would run wrong is (`runs_whole_badly`: MetaSchedule's fetch at an unrolled
        k loop). One that `repeats` is never pushed through."""
        if (not isinstance(op, scf.ForOp | scf.IfOp) or op.results or any(o in self.dependent for o in op.operands)
                or self.repeats(op)):
            return False
        kind = loop_kind(op) if isinstance(op, scf.ForOp) else None
        return kind != VECTORIZED and (kind != UNROLLED or self.runs_whole_badly(op))

    def runs_whole_badly(self, op: Operation) -> bool:
        """Whether `op` holds a store that does not use the variable (a cooperative fetch, a double
        buffer's staging: wrapped whole, it would run once per virtual thread, not once) or a shared
        buffer stored and loaded (wrapped whole, no barrier could order the virtual threads)."""
        inner = list(op.walk())
        stores = [o for o in inner if isinstance(o, memref.StoreOp)]
        shared = {o.memref for o in stores if memory_space(o.memref) == "shared"}
        return (any(not self.touches(o) for o in stores)
                or any(isinstance(o, memref.LoadOp) and o.memref in shared for o in inner))

    def push(self, op: Operation, point: InsertPoint, mapping: dict[SSAValue, SSAValue]) -> None:
        """A copy of `op` with the vthread loop pushed into its regions."""
        for operand in op.operands:
            self.provide(operand, point, mapping)
        shell = op.clone_without_regions(value_mapper=mapping)
        Rewriter.insert_op(shell, point)
        serial = isinstance(op, scf.ForOp) and loop_kind(op) != THREAD_BINDING
        self.serial_depth += serial
        for old, new in zip(op.regions, shell.regions):
            for source in old.blocks:
                target = Block(arg_types=[a.type for a in source.args])
                new.add_block(target)
                inner = dict(mapping) | dict(zip(source.args, target.args))
                self.block(source, InsertPoint.at_end(target), inner)
                assert source.last_op is not None
                Rewriter.insert_op(source.last_op.clone(value_mapper=inner), InsertPoint.at_end(target))
        self.serial_depth -= serial

    def wrap(self, ops: list[Operation], point: InsertPoint, mapping: dict[SSAValue, SSAValue]) -> None:
        """`ops` in a serial loop over the virtual threads."""
        self.check_no_shared_flow(ops)
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = self.var.name_hint
        loop = scf.ForOp(self.loop.lb, self.loop.ub, self.loop.step, [], body)
        loop.attributes[LOOP_NAME] = StringAttr(loop_name(self.loop))
        loop.attributes[VTHREAD] = StringAttr(vthread_tag(self.loop) or "")
        if self.n < UNROLL_BELOW and all(loop_kind(o) == UNROLLED for op in ops for o in op.walk()
                                         if isinstance(o, scf.ForOp)):
            loop.attributes[LOOP_KIND] = StringAttr(UNROLLED)
        Rewriter.insert_op(loop, point)
        if self.serial_depth:
            self.iterated.add(loop)
        self.wrapped.update(dict.fromkeys((o for op in ops for o in op.walk()), loop))
        inner = dict(mapping)
        inner[self.var] = body.args[0]
        for op in ops:
            self.copy(op, InsertPoint.at_end(body), inner)
        body.add_op(scf.YieldOp())

    def check_no_shared_flow(self, ops: list[Operation]) -> None:
        """Refuse a wrapped statement that stores into a shared buffer and loads from it an element
        another thread may store: a barrier placed between the two inside the loop made would order
        the real threads only, each virtual thread reading before the later ones have written. A
        load of the element every store into the buffer in the statement writes (`S[t] += x`) reads
        its own thread's element only (lower-to-gpu has checked that real threads store apart):
        no barrier is needed, the virtual threads of a real thread running in the order the
        loop run serially does."""
        inner = [o for op in ops for o in op.walk()]
        stores = [o for o in inner if isinstance(o, memref.StoreOp) and memory_space(o.memref) == "shared"]
        load = next((o for o in inner if isinstance(o, memref.LoadOp)
                     and not _reads_own_element(o, [s for s in stores if s.memref is o.memref])), None)
        if load is None:
            return
        at = next((o for o in ops if isinstance(o, scf.ForOp)), load)
        raise fail(_NAME, at, f"shared buffer {load.memref.name_hint or '?'} is stored and loaded inside one "
                   f'statement that each virtual thread of loop "{loop_name(self.loop)}" ({vthread_tag(self.loop)}) '
                   "runs whole in turn: a barrier between the store and the load would order the real threads only, "
                   "not the virtual threads; keep a loop there serial or unrolled (not vectorized), or move the vthread "
                   "loop inside it")

    def copy(self, op: Operation, point: InsertPoint, mapping: dict[SSAValue, SSAValue]) -> None:
        for inner in op.walk():
            for operand in inner.operands:
                if not _defined_in(operand, op):
                    self.provide(operand, point, mapping)
        clone = op.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, point)
        mapping.update(zip(op.results, clone.results))

    def provide(self, value: SSAValue, point: InsertPoint, mapping: dict[SSAValue, SSAValue]) -> None:
        """Copy the pure ops of the vthread loop's body that `value` is computed by (on demand:
        once per loop made, where the statement needs them)."""
        owner = value.owner
        if value in mapping or not isinstance(owner, Operation) or not self.loop.is_ancestor(owner):
            return
        assert _pure(owner), f"{owner.name} is copied before its users"
        for operand in owner.operands:
            self.provide(operand, point, mapping)
        clone = owner.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, point)
        mapping.update(zip(owner.results, clone.results))
