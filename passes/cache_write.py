"""cache-write{block=B index=N scope=S consumers=D1,D2,...}: B writes its N-th written buffer
through a cache.

As TVM's cache_write: a buffer `C_S` takes every access B makes to C, and a block
`C_S` copying the cache back into C runs right after B's outermost loop nest. No
other block may touch C inside that nest (it would see C before the write-back).

With `consumers` (TVM's consumer_blocks), the blocks listed read the cache instead of C,
and the write-back moves down to just before the first other access of C after B's nest
(the end of the function if none); any op taking C counts as one, a call as a write too.
So the listed blocks must read C, not write it, and come
between B and that access; and B must write the whole of C, as a listed block may read any
element of the cache.
The write-back copies the box of C that B writes (`C[0:120]` under `where(... < 120)`,
one column of a matrix), shown to be exactly the elements B writes: an element of the
box B never wrote would be overwritten with an uninitialized cache element, so a block
writing a scattered set (strided, diagonal) is refused. Shrink the write-back to what
B produces per iteration with reverse-compute-at.

B may not read C unless its own init writes it first: the cache starts empty (a
decomposed `B_update` reads what `B_init` left in C, which the cache would not hold).
S is a storage scope as cache-read takes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import AccessOp, BlockOp, LoadOp, buffer_name, enclosing_block
from xtir.passes.analysis.cache import (
    cache_names,
    check_block_accesses,
    check_storage_scope,
    select_buffer,
    top_level_ancestor,
)
from xtir.passes.analysis.compute_location import buffers_touched
from xtir.passes.analysis.footprint import box_text, written_box
from xtir.passes.analysis.navigation import blocks_under, get_block
from xtir.passes.analysis.regions import read_regions, write_regions
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.cache import alloc_cache, copy_nest, redirect_accesses
from xtir.support.errors import ScheduleError


@dataclass(frozen=True)
class CacheWritePass(StatementPrimitive):
    name = "cache-write"

    block: str
    index: int
    scope: str
    consumers: tuple[str, ...] = ()

    def run(self, f: func.FuncOp) -> BlockOp:
        """Apply the cache write; return the write-back block (the Schedule API's result)."""
        block = get_block(f, self.block)
        check_storage_scope(block, self.scope)
        buffer = select_buffer(block, write_regions(block), self.index, "written")
        if any(r.buffer is buffer for r in read_regions(block)):
            raise ScheduleError(block, f'block "{block.label}" reads {buffer_name(buffer)} without an init '
                       f"that writes it first, so the cache {cache_names(buffer, self.scope)[0]} would start "
                       "uninitialized; cache-write a reduction before decompose-reduction")
        nest_root = top_level_ancestor(block, f)
        for other in _users(nest_root, buffer):
            if not block.is_ancestor(other):
                raise ScheduleError(block, f"{_access_text(other)} also accesses "
                                    f'{buffer_name(buffer)} in the loop nest of block "{block.label}"',
                                    [(other, f"this access of {buffer_name(buffer)}")])
        box, why = written_box(block, buffer)
        if box is None:
            raise ScheduleError(block, f"{why}; the write-back from {cache_names(buffer, self.scope)[0]} copies a "
                       f'box of elements and would overwrite elements of {buffer_name(buffer)} that block "{block.label}" '
                       "never wrote")
        consumers = [get_block(f, name) for name in self.consumers]
        write_back = _write_back_point(f, block, buffer, nest_root, consumers)
        if consumers and box != [(0, n) for n in buffer.type.get_shape()]:
            raise ScheduleError(block, f'block "{block.label}" writes only part of {buffer_name(buffer)} '
                                f"({box_text(box)}), so its consumer blocks could read elements of the cache it "
                                f"never wrote; they can read the cache of a buffer written whole")
        cache = alloc_cache(buffer, self.scope, f)
        copy = copy_nest(cache_names(buffer, self.scope)[1], buffer, cache, block, box)
        Rewriter.insert_op(copy, write_back)
        redirect_accesses(block, buffer, cache, reads=True, writes=True)
        for consumer in consumers:
            redirect_accesses(consumer, buffer, cache, reads=True, writes=False)
        return blocks_under(copy)[0]


def _write_back_point(f: func.FuncOp, block: BlockOp, buffer: SSAValue, nest_root: Operation,
                      consumers: list[BlockOp]) -> InsertPoint:
    """Right after B's nest; with consumer blocks, before the first later statement that accesses
    the buffer other than by their reads (the function's end if none). The consumers may come
    after it, but not after another write of the buffer: the cache holds what B wrote."""
    if not consumers:
        return InsertPoint.after(nest_root)
    ops = list(f.body.block.ops)
    later = ops[ops.index(nest_root) + 1 :]
    writer = next((op for op in later if _write_of(op, buffer) is not None), None)
    valid = later[: later.index(writer)] if writer is not None else later
    for consumer in consumers:
        _check_consumer(block, consumer, buffer)
        top = top_level_ancestor(consumer, f)
        if any(op is top for op in valid):
            continue
        if writer is None or ops.index(top) < ops.index(nest_root):
            why = f'runs before block "{block.label}" writes {buffer_name(buffer)}'
        else:
            why = f"reads {buffer_name(buffer)} after {_writer_text(_write_of(writer, buffer), buffer)}"
        raise ScheduleError(consumer, f'consumer block "{consumer.label}" {why}; its cache holds what block '
                            f'"{block.label}" wrote')
    stop = next((op for op in later if _other_access(op, buffer, consumers) is not None), ops[-1])
    return InsertPoint.before(stop)


def _check_consumer(block: BlockOp, consumer: BlockOp, buffer: SSAValue) -> None:
    if consumer is block or buffer not in buffers_touched(consumer, writes=False):
        raise ScheduleError(consumer, f'block "{consumer.label}" does not read {buffer_name(buffer)} written by block '
                            f'"{block.label}"; it cannot be a consumer of its cache')
    if buffer in buffers_touched(consumer, writes=True):
        raise ScheduleError(consumer, f'consumer block "{consumer.label}" also writes {buffer_name(buffer)}; its writes '
                            "would go to the buffer the cache is written back over")
    check_block_accesses(consumer, buffer)


def _users(root: Operation, buffer: SSAValue) -> Iterator[Operation]:
    """The ops under `root` that take `buffer`: block accesses, and any other op it is passed to (a call)."""
    return (op for op in root.walk() if buffer in op.operands)


def _may_write(op: Operation, buffer: SSAValue) -> bool:
    """Whether `op`, which takes `buffer`, may write it: a store or an intrinsic call writing a tile of
    it does; an op that is no block access (a `func.call`) may, as far as this pass can tell."""
    if isinstance(op, AccessOp):
        return any(a.is_write and a.buffer is buffer for a in op.accesses())
    return True


def _write_of(root: Operation, buffer: SSAValue) -> Operation | None:
    """An op under `root` that may write `buffer`."""
    return next((op for op in _users(root, buffer) if _may_write(op, buffer)), None)


def _other_access(root: Operation, buffer: SSAValue, consumers: list[BlockOp]) -> Operation | None:
    """An op under `root` taking `buffer` other than a read by one of `consumers`."""
    for op in _users(root, buffer):
        read_by_consumer = isinstance(op, LoadOp) and any(c.is_ancestor(op) for c in consumers)
        if not read_by_consumer:
            return op
    return None


def _writer_text(op: Operation, buffer: SSAValue) -> str:
    if isinstance(op, AccessOp):
        return f"{_access_text(op)} writes it"
    return f"{_access_text(op)}, which takes {buffer_name(buffer)}, may write it"


def _access_text(op: Operation) -> str:
    owner = enclosing_block(op)
    return f'block "{owner.label}"' if owner is not None else op.name
