"""compute-inline{block=B}: compute what B writes where it is read (TVM's compute_inline).

B must be a complete block (spatial iteration variables only, no init, no predicate)
of the form `X[v0, v1, ...] = f(v0, v1, ..., loads...)`: the store indices are B's
iteration variables, each exactly once, and X is an intermediate buffer (block.alloc;
a block writing a function argument is an output block) that only B writes and B
does not read. Every read `X[e0, e1, ...]` in another block becomes a copy of f with
each v_k replaced by e_k; then B, the loops left empty without it and X's allocation
are removed. A B that nobody reads is simply removed, as in TVM.

TVM relies on its stage-pipeline scopes for the rest; here the check is explicit:
no block in the loop nests from B to its consumers may write a buffer f reads, since
the copies of f would read it after that write.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import SSAValue
from xdsl.rewriter import Rewriter

from xtir.dialects.block import AllocOp, BlockOp, LoadOp, StoreOp, buffer_name
from xtir.passes.analysis.inline import (
    accesses_outside,
    body_loads,
    check_complete,
    check_no_predicate,
    check_only_leaf,
    format_access,
    has_init_phrase,
    nests_between,
    owner_label,
    plain_vars,
    single_store,
)
from xtir.passes.analysis.navigation import get_block
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.rewrite import clone_before, remove_nest
from xtir.support.errors import ScheduleError


def check_inlinable(f: func.FuncOp, block: BlockOp) -> tuple[StoreOp, list[SSAValue]]:
    """B's store `X[v0, v1, ...] = f(...)` and its index variables, after checking B can be inlined at all."""
    what = f'block "{block.label}"'
    check_complete(block, what, has_init_phrase(block))
    check_no_predicate(block)
    store = single_store(block, what)
    buffer = store.buffer
    if not isinstance(buffer.owner, AllocOp):
        raise ScheduleError(
            block,
            f'{what} is an output block: it writes {buffer_name(buffer)}, an argument of function "{f.sym_name.data}"; '
            "only a block writing an intermediate buffer (block.alloc) can be inlined",
        )
    store_vars = plain_vars(store.indices(), block)
    if store_vars is None:
        names = ", ".join(f"%{v.name_hint}" for v in block.iter_vars)
        raise ScheduleError(
            store,
            f"{what} stores {format_access(buffer, store.indices())}; an inlined block must store at its iteration "
            f"variables ({names}), each exactly once and alone in its index, so that every read of "
            f"{buffer_name(buffer)} names the iteration that computed it",
        )
    if body_loads(block, buffer):
        raise ScheduleError(block, f"{what} reads {buffer_name(buffer)}, the buffer it writes; it cannot be inlined")
    return store, store_vars


def consumer_loads(f: func.FuncOp, store: StoreOp) -> list[LoadOp]:
    """Every read of the stored buffer outside B, in program order; other uses are refused."""
    buffer = store.buffer
    loads: list[LoadOp] = []
    for op in f.walk():
        if op is store or not any(v is buffer for v in op.operands):
            continue
        if isinstance(op, LoadOp):
            loads.append(op)
        elif isinstance(op, StoreOp):
            raise ScheduleError(
                op,
                f"{owner_label(op)} also writes {buffer_name(buffer)}; {owner_label(store)} must be its only "
                "producer to be inlined",
                [(store, f"{owner_label(store)} writes {buffer_name(buffer)}")],
            )
        else:
            raise ScheduleError(
                op,
                f"{op.name} in {owner_label(op)} uses {buffer_name(buffer)}; only block.load reads of an inlined "
                "buffer can be replaced by its computation",
                [(store, f"{owner_label(store)} writes {buffer_name(buffer)}")],
            )
    return loads


def check_reads_unchanged(f: func.FuncOp, block: BlockOp, loads: list[LoadOp]) -> None:
    """No write between B and its consumers to a buffer B reads: the inlined copies read later."""
    reads = {load.buffer: load for load in reversed(list(block.body.block.walk())) if isinstance(load, LoadOp)}
    for access in accesses_outside(nests_between(f, [block, *loads]), block):
        if access.is_write and access.buffer in reads:
            name = buffer_name(access.buffer)
            raise ScheduleError(
                access.op,
                f'{owner_label(access.op)} writes {name}, which block "{block.label}" reads, '
                "in the loop nests from it to its consumers; inlined, the read would move past that write",
                [(reads[access.buffer], f'block "{block.label}" reads {name}')],
            )


def inline_load(block: BlockOp, store: StoreOp, store_vars: list[SSAValue], load: LoadOp) -> None:
    """Replace `load`, of X[e0, e1, ...], by B's computation with each v_k replaced by e_k."""
    at = dict(zip(store_vars, load.indices()))
    values = clone_before(list(block.body.block.ops)[:-1], load, at, {})
    load.result.replace_all_uses_with(values[store.value])
    Rewriter.erase_op(load)


@dataclass(frozen=True)
class ComputeInlinePass(StatementPrimitive):
    name = "compute-inline"

    block: str

    def run(self, f: func.FuncOp) -> None:
        block = get_block(f, self.block)
        store, store_vars = check_inlinable(f, block)
        loads = consumer_loads(f, store)
        check_reads_unchanged(f, block, loads)
        check_only_leaf(block)
        alloc = store.buffer.owner
        assert isinstance(alloc, AllocOp)
        for load in loads:
            inline_load(block, store, store_vars, load)
        remove_nest(block)
        Rewriter.erase_op(alloc)
