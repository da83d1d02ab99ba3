"""cache-write{block=B index=N scope=S}: B writes its N-th written buffer through a cache.

As TVM's cache_write: a buffer `C_S` takes every access B makes to C, and a block
`C_S` copying the cache back into C runs right after B's outermost loop nest. No
other block may touch C inside that nest (it would see C before the write-back).
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

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import AccessOp, BlockOp, buffer_name, enclosing_block
from xtir.passes.analysis.cache import (
    cache_names,
    check_storage_scope,
    select_buffer,
    top_level_ancestor,
)
from xtir.passes.analysis.footprint import written_box
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
        for other in nest_root.walk():
            if isinstance(other, AccessOp) and buffer in other.operands and not block.is_ancestor(other):
                owner = enclosing_block(other)
                raise ScheduleError(block, f'block "{owner.label if owner else "?"}" also accesses '
                                    f'{buffer_name(buffer)} in the loop nest of block "{block.label}"',
                                    [(other, f"this access of {buffer_name(buffer)}")])
        box, why = written_box(block, buffer)
        if box is None:
            raise ScheduleError(block, f"{why}; the write-back from {cache_names(buffer, self.scope)[0]} copies a "
                       f'box of elements and would overwrite elements of {buffer_name(buffer)} that block "{block.label}" '
                       "never wrote")
        cache = alloc_cache(buffer, self.scope, f)
        copy = copy_nest(cache_names(buffer, self.scope)[1], buffer, cache, block, box)
        Rewriter.insert_op(copy, InsertPoint.after(nest_root))
        redirect_accesses(block, buffer, cache, reads=True, writes=True)
        return blocks_under(copy)[0]
