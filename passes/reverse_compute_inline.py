"""reverse-compute-inline{block=B}: compute B inside the block producing its input (TVM's reverse_compute_inline).

B must be a complete block (spatial iteration variables only, no init) of the form
`Y[...] = g(X[v0, v1, ...], inputs...)`: X is the only buffer it reads that some block
writes (its other reads are inputs no block writes), every read of X is at the same
indices, and those are B's iteration variables, each exactly once.
X must be an intermediate buffer (block.alloc) written by a single producer block P,
itself complete (TVM refuses reduction producers) and of the form
`X[p0, p1, ...] = f(...)`, whose only consumer is B.

P's store becomes `Y[...] = g(f(...), inputs...)` with each v_d replaced by p_d, so B's
other reads and its store are rewritten in P's iteration variables. B ran the instances
its loops reach where its predicate holds, which must form a box; where P covers more of
X than that, P gets the predicate `p_d < hi` (and `p_d >= lo`) for the box (as TVM
adds), conjoined with P's own.
Then B, the loops left empty without it and X's allocation are removed.

Since Y is now written while P runs, no other block in the loop nests from P to B
may access Y.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import AccessOp, AllocOp, BlockOp, LoadOp, StoreOp, buffer_name, enclosing_block
from xtir.dialects.expr import Expr
from xtir.passes.analysis.footprint import box_of_instances
from xtir.passes.analysis.inline import (
    accesses_outside,
    body_loads,
    check_complete,
    check_only_leaf,
    format_access,
    has_init_phrase,
    nests_between,
    owner_label,
    plain_vars,
    single_store,
)
from xtir.passes.analysis.navigation import get_block
from xtir.passes.analysis.predicate import conjoin
from xtir.passes.analysis.regions import loop_bounds
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.rewrite import clone_before, rebuild_block, remove_nest
from xtir.support.errors import ScheduleError

NON_SINGLE_PRODUCER = (
    "The consumer block to be inlined is required to have only a single producer block, and the producer block "
    "should be a complete block who has only a single consumer"
)
"""TVM's NonSingleProducerError: what it says of a producer that is no complete block (a reduction)."""


def check_consumer(block: BlockOp) -> StoreOp:
    what = f'block "{block.label}"'
    check_complete(block, what, has_init_phrase(block))
    return single_store(block, what)


def written_buffers(f: func.FuncOp) -> set[SSAValue]:
    return {a.buffer for op in f.walk() if isinstance(op, AccessOp) for a in op.accesses() if a.is_write}


def inlined_buffer(f: func.FuncOp, block: BlockOp, store: StoreOp) -> SSAValue:
    """X: the only buffer B reads that a block writes (TVM's single-read rule), an intermediate one."""
    written = written_buffers(f)
    reads = dict.fromkeys(op.buffer for op in block.body.block.walk() if isinstance(op, LoadOp))
    produced = [b for b in reads if b in written]
    what = f'block "{block.label}"'
    if len(produced) != 1:
        found = (
            f"{len(produced)} buffers that blocks write ({', '.join(buffer_name(b) for b in produced)})"
            if produced
            else "no buffer that a block writes"
        )
        raise ScheduleError(
            block,
            f"{what} reads {found}; the inlined consumer must read exactly one produced buffer, "
            "`Y[...] = g(X[vi, vj, ...], inputs...)`, its other reads being inputs no block writes",
        )
    buffer = produced[0]
    if buffer is store.buffer:
        raise ScheduleError(block, f"{what} reads {buffer_name(buffer)}, the buffer it writes; it cannot be inlined")
    if not isinstance(buffer.owner, AllocOp):
        raise ScheduleError(
            block,
            f'{what} reads {buffer_name(buffer)}, an argument of function "{f.sym_name.data}": its producer\'s writes '
            "are results of the function and cannot be replaced; only a consumer of an intermediate buffer "
            "(block.alloc) can be inlined",
        )
    return buffer


def load_vars(block: BlockOp, buffer: SSAValue) -> list[SSAValue]:
    """B's variables in the order of X's dimensions (B's reads of X all at the same indices)."""
    loads = body_loads(block, buffer)
    for load in loads:
        if load.parent is not block.body.block:
            raise ScheduleError(
                load,
                f'block "{block.label}" reads {buffer_name(buffer)} inside an if_then_else; an inlined consumer must '
                "read its input unconditionally, in its body",
            )
    indices = loads[0].indices()
    for load in loads[1:]:
        if load.indices() != indices:
            raise ScheduleError(
                load,
                f'block "{block.label}" reads {format_access(buffer, indices)} and '
                f"{format_access(buffer, load.indices())}; an inlined consumer must read its input at one index only",
            )
    found = plain_vars(indices, block)
    if found is None:
        names = ", ".join(f"%{v.name_hint}" for v in block.iter_vars)
        raise ScheduleError(
            loads[0],
            f'block "{block.label}" reads {format_access(buffer, indices)}; an inlined consumer must read its input '
            f"at its iteration variables ({names}), each exactly once and alone in its index, so that they can be "
            "expressed through the producer's",
        )
    return found


def single_producer(f: func.FuncOp, consumer: BlockOp, buffer: SSAValue) -> StoreOp:
    """P's store `X[p0, p1, ...] = f(...)`, after checking P is X's only producer and B its only consumer."""
    writers = [
        op for op in f.walk() if isinstance(op, AccessOp) and any(a.is_write and a.buffer is buffer for a in op.accesses())
    ]
    producers = list(dict.fromkeys(owner_label(op) for op in writers))
    producer = enclosing_block(writers[0])
    if len(producers) != 1 or producer is None:
        first_writes = {owner_label(op): op for op in reversed(writers)}
        raise ScheduleError(
            consumer,
            f"{buffer_name(buffer)} is written by {' and '.join(producers)}; "
            f'block "{consumer.label}" can only be inlined into a single producer block',
            [(first_writes[label], f"{label} writes {buffer_name(buffer)}") for label in producers],
        )
    what = f'block "{producer.label}", the producer of {buffer_name(buffer)},'
    check_complete(producer, what, NON_SINGLE_PRODUCER)
    store = single_store(producer, what)
    if body_loads(producer, buffer):
        raise ScheduleError(producer, f"{what} reads it too; it cannot take the consumer's computation")
    for op in f.walk():
        if any(v is buffer for v in op.operands) and op is not store and not consumer.is_ancestor(op):
            raise ScheduleError(
                op,
                f'{owner_label(op)} also reads {buffer_name(buffer)}; its producer "{producer.label}" must have '
                f'block "{consumer.label}" as its only consumer',
                [(consumer, f'block "{consumer.label}" reads {buffer_name(buffer)}')],
            )
    return store


def check_output_untouched(f: func.FuncOp, producer: BlockOp, consumer: BlockOp, out: SSAValue) -> None:
    """No other access to Y from P to B: Y is to be written while P runs, earlier than B did."""
    for access in accesses_outside(nests_between(f, [producer, consumer]), consumer):
        if access.buffer is out:
            verb = "writes" if access.is_write else "reads"
            raise ScheduleError(
                access.op,
                f'{owner_label(access.op)} {verb} {buffer_name(out)} in the loop nests from block "{producer.label}" '
                f'to block "{consumer.label}"; writing {buffer_name(out)} in "{producer.label}" would reorder it with '
                "that access",
                [(consumer, f'block "{consumer.label}" writes {buffer_name(out)}')],
            )


def inline_into_producer(consumer: BlockOp, store: StoreOp, at: dict[SSAValue, Expr], producer_store: StoreOp) -> None:
    """Replace P's store of f by B's store of g(f), B's variables replaced per `at`."""
    inputs = set(body_loads(consumer, producer_store.buffer))
    ops = [op for op in list(consumer.body.block.ops)[:-1] if op not in inputs]
    values = clone_before(ops, producer_store, at, {load.result: producer_store.value for load in inputs})
    new = StoreOp(values[store.value], store.buffer, [e.substitute(at, loop_bounds) for e in store.indices()])
    new.attributes |= store.attributes
    new.location = store.location
    Rewriter.insert_op(new, InsertPoint.before(producer_store))
    Rewriter.erase_op(producer_store)


def domain_predicate(producer: BlockOp, consumer: BlockOp,
                     at: dict[SSAValue, Expr]) -> list[tuple[Expr, int]]:
    """P's predicate, conjoined with bounds `lo <= p_d < hi` wherever P's iterations reach past the
    box of instances B's loops run (P computed X there, B wrote nothing)."""
    box, why = box_of_instances(consumer)
    if box is None:
        raise ScheduleError(consumer, f"{why}; the producer cannot be limited to them")
    bindings = {it.var: it.binding for it in producer.iters()}
    added = []
    for var, (lo, hi) in zip(consumer.iter_vars, box):
        expr = at[var]
        reach = expr.bounds(loop_bounds)
        p_d = expr.substitute(bindings, loop_bounds)
        if reach is None or reach[1] >= hi:
            added.append((p_d, hi))
        if reach is None or reach[0] < lo:
            added.append((-p_d, 1 - lo))
    return conjoin(producer.predicate(), added)


@dataclass(frozen=True)
class ReverseComputeInlinePass(StatementPrimitive):
    name = "reverse-compute-inline"

    block: str

    def run(self, f: func.FuncOp) -> None:
        consumer = get_block(f, self.block)
        store = check_consumer(consumer)
        buffer = inlined_buffer(f, consumer, store)
        consumer_vars = load_vars(consumer, buffer)
        producer_store = single_producer(f, consumer, buffer)
        producer = enclosing_block(producer_store)
        assert producer is not None
        check_output_untouched(f, producer, consumer, store.buffer)
        check_only_leaf(consumer)
        at = dict(zip(consumer_vars, producer_store.indices()))
        predicate = domain_predicate(producer, consumer, at)
        inline_into_producer(consumer, store, at, producer_store)
        if predicate != producer.predicate():
            rebuild_block(producer, producer.bindings(), predicate)
        remove_nest(consumer)
        alloc = buffer.owner
        assert isinstance(alloc, AllocOp)
        Rewriter.erase_op(alloc)
