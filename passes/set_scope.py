"""set-scope{block=B index=N scope=S}: store the buffer that block B writes (its N-th written buffer)
in storage scope S (TVM's set_scope).

The scope is the memory space of the allocation's memref; every access follows the allocation,
so the program computes the same values:

    %C = block.alloc : memref<64x64xf32>    becomes    %C = block.alloc : memref<64x64xf32, "local">

The usual use is an intermediate computed inside a GPU kernel (a matmul whose result a ReLU reads
under the same thread loop): compaction sizes it for one thread, but in global memory there is one
copy for the whole grid, which every thread would write. "local" makes it one array per thread
(registers), "shared" one per thread block.

A scope is "global", "shared", "local" or "warp", or one of them with a tag after a dot
("global.A_reg", as cache-read names them). The buffer's own scope leaves the program as it is
(as in TVM). Refused, at the block: the index is not one of B's written buffers; the scope is not
one of those, or is TVM's "shared.dyn" (dynamic shared memory, which lower-to-gpu does not have:
refused here rather than when lowering); the buffer is a function argument (its storage belongs to the caller: TVM's
NonAllocatedBufferError); it is double-buffered and the scope is not "shared"; an accel op
accesses it (its tiles live in the scopes the op names).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, NoneAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import DOUBLE_BUFFER, AllocOp, BlockOp, buffer_name, scope_of
from xtir.passes.analysis.cache import allocation, check_storage_scope, select_buffer
from xtir.passes.analysis.navigation import get_block
from xtir.passes.analysis.regions import write_regions
from xtir.passes.schedule_pass import SchedulePass
from xtir.passes.transform_layout import refuse_tile_users
from xtir.support.errors import ScheduleError


def _memory_space(block: BlockOp, scope: str) -> Attribute:
    """The memref memory space of `scope`; plain global memory is the memref without one."""
    check_storage_scope(block, scope)
    return NoneAttr() if scope == "global" else StringAttr(scope)


@dataclass(frozen=True)
class SetScopePass(SchedulePass):
    name = "set-scope"

    block: str
    """The block writing the buffer."""
    index: int
    """Which of the block's written buffers (TVM's buffer_index)."""
    scope: str
    """The storage scope: "global", "shared", "local", "warp", or one of them with a tag ("global.A_reg")."""

    def run(self, f: func.FuncOp) -> None:
        block = get_block(f, self.block)
        buffer = select_buffer(block, write_regions(block), self.index, "written")
        assert isinstance(buffer.type, MemRefType)
        if scope_of(buffer.type) == self.scope:
            return
        space = _memory_space(block, self.scope)
        alloc = allocation(block, buffer, "storage",
                           "set the scope of an intermediate buffer or of a cache of it (cache-read, cache-write)")
        if DOUBLE_BUFFER in alloc.attributes and self.scope != "shared":
            raise ScheduleError(block, f"{buffer_name(buffer)} is double-buffered; double buffering applies to "
                                f'shared buffers, not to scope "{self.scope}"')
        refuse_tile_users(buffer, "set the scope before tensorize")
        old = buffer.type
        new = AllocOp(MemRefType(old.element_type, old.get_shape(), old.layout, space), buffer_name(buffer))
        new.location = alloc.location
        new.attributes.update(alloc.attributes)  # storage alignment and double-buffer marks stay with the buffer
        Rewriter.insert_op(new, InsertPoint.before(alloc))
        buffer.replace_all_uses_with(new.buffer)
        Rewriter.erase_op(alloc)
