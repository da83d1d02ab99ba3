"""cache-read{block=B index=N scope=S}: read B's N-th read buffer through a cache in scope S.

As TVM's cache_read: a buffer `A_S` and a block `A_S` copying the whole of A into it
are created, the copy runs just before B's outermost loop nest, and B reads the
cache. N counts B's read regions as TVM prints them (T.reads). Only B is redirected;
other consumers keep reading A (TVM's consumer_blocks=[B]). Shrink the copy to what
B needs with compute-at.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xtir.dialects.block import BlockOp, StoreOp, buffer_name
from xtir.passes.analysis.cache import (
    alloc_cache,
    cache_names,
    copy_nest,
    redirect_accesses,
    select_buffer,
    top_level_ancestor,
)
from xtir.passes.analysis.navigation import blocks_under, get_block
from xtir.passes.analysis.regions import read_regions
from xtir.passes.utils import fail, target_function


@dataclass(frozen=True)
class CacheReadPass(ModulePass):
    name = "cache-read"

    block: str
    index: int
    scope: str
    func: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.run(op)

    def run(self, op: ModuleOp) -> BlockOp:
        """Apply the cache read; return the copy block (the Schedule API's result)."""
        f = target_function(op, self.func)
        block = get_block(f, self.block)
        buffer = select_buffer(self.name, block, read_regions(block), self.index, "read")
        nest_root = top_level_ancestor(block, f)
        if any(isinstance(o, StoreOp) and o.buffer is buffer for o in nest_root.walk()):
            raise fail(self.name, block, f"{buffer_name(buffer)} is written in the loop nest of block "
                       f'"{block.label}"; a copy made before the nest would be stale')
        cache = alloc_cache(buffer, self.scope, f)
        copy = copy_nest(cache_names(buffer, self.scope)[1], cache, buffer)
        f.body.block.insert_op_before(copy, nest_root)
        redirect_accesses(block, buffer, cache, reads=True, writes=False)
        return blocks_under(copy)[0]
