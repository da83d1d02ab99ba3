"""cache-read{block=B index=N scope=S consumers=C1,C2,...}: read B's N-th read buffer through
a cache in scope S.

As TVM's cache_read: a buffer `A_S` and a block `A_S` copying the whole of A into it
are created, and the consumers read the cache. N counts B's read regions as TVM prints
them (T.reads). The consumers are every block of B's scope that reads A (TVM's
default), or those listed in `consumers` (TVM's consumer_blocks). Where TVM puts it:
the copy of an input of the function (a buffer nothing in it writes) runs first, at the
start of the body (so a second cache_read's copy comes before the first's); the copy of
a buffer the function writes runs just before the outermost loop nest of the first
consumer, and A must not be written from there to the last consumer, or the copy would
be stale. Shrink the copy to what B
needs with compute-at. S is a storage scope as set-scope takes it (global, shared, local or
warp, tagged or not: "global.A_reg"); any other, and TVM's shared.dyn, is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import AccessOp, AllocOp, BlockOp, buffer_name, enclosing_block
from xtir.passes.analysis.cache import cache_names, check_storage_scope, select_buffer
from xtir.passes.analysis.compute_location import blocks_touching, buffers_touched, scope_root
from xtir.passes.analysis.navigation import blocks_under, get_block
from xtir.passes.analysis.regions import read_regions
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.cache import alloc_cache, copy_nest, redirect_accesses
from xtir.support.errors import ScheduleError


@dataclass(frozen=True)
class CacheReadPass(StatementPrimitive):
    name = "cache-read"

    block: str
    index: int
    scope: str
    consumers: tuple[str, ...] = ()

    def run(self, f: func.FuncOp) -> BlockOp:
        """Apply the cache read; return the copy block (the Schedule API's result)."""
        block = get_block(f, self.block)
        check_storage_scope(block, self.scope)
        buffer = select_buffer(block, read_regions(block), self.index, "read")
        consumers = self._consumers(f, block, buffer)
        nests = [op for op in f.body.block.ops if any(op is c or op.is_ancestor(c) for c in consumers)]
        _check_not_written(block, buffer, f, nests[0], nests[-1])
        cache = alloc_cache(buffer, self.scope, f)
        copy = copy_nest(cache_names(buffer, self.scope)[1], cache, buffer, block)
        Rewriter.insert_op(copy, InsertPoint.before(_copy_position(f, buffer, nests[0])))
        for consumer in consumers:
            redirect_accesses(consumer, buffer, cache, reads=True, writes=False)
        return blocks_under(copy)[0]

    def _consumers(self, f: Operation, block: BlockOp, buffer: SSAValue) -> list[BlockOp]:
        """The blocks to redirect: those named, or every reader of `buffer` in `block`'s scope."""
        if not self.consumers:
            readers = blocks_touching(scope_root(block), buffer, writes=False, exclude=block)
            return [block, *readers]
        named = [get_block(f, name) for name in self.consumers]
        for consumer in named:
            if buffer not in buffers_touched(consumer, writes=False):
                raise ScheduleError(consumer, f'block "{consumer.label}" does not read {buffer_name(buffer)}; '
                           "it cannot be a consumer of its cache")
        return named


def _copy_position(f: func.FuncOp, buffer: SSAValue, first_consumer: Operation) -> Operation:
    """The op the copy goes before. As TVM's cache_read: a buffer nothing in the function writes
    (an input) is copied at the start of the body, after the allocations, so the stage of a
    later cache_read comes first; any other just before the first consumer's loop nest."""
    if any(a.is_write and a.buffer is buffer for op in f.walk() if isinstance(op, AccessOp) for a in op.accesses()):
        return first_consumer
    return next(op for op in f.body.block.ops if not isinstance(op, AllocOp))


def _check_not_written(block: BlockOp, buffer: SSAValue, f: Operation, first: Operation,
                       last: Operation) -> None:
    ops = list(f.body.block.ops)
    for nest in ops[ops.index(first):ops.index(last) + 1]:
        for writer in (o for o in nest.walk() if isinstance(o, AccessOp)):
            if any(a.is_write and a.buffer is buffer for a in writer.accesses()):
                raise ScheduleError(block, f"{buffer_name(buffer)} is written by "
                                    f"{_writer_name(writer)} between the cache copy and the last consumer; "
                                    "a copy made before would be stale",
                                    [(writer, f"{_writer_name(writer)} writes {buffer_name(buffer)}")])


def _writer_name(op: Operation) -> str:
    owner = enclosing_block(op)
    return f'block "{owner.label}"' if owner is not None else op.name
