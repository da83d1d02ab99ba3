"""Shared legality of parallel, vectorize and bind: iterations must be independent.

A loop whose variable feeds a reduce iteration variable carries a reduction; running
its iterations at once would race on the reduced buffer (TVM's rule for
parallel/vectorize/bind: no reduce block var may be bound to the loop).
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr

from xtir.dialects.block import REDUCE, ForOp
from xtir.passes.analysis.navigation import child_blocks
from xtir.passes.utils import fail


def check_independent(pass_name: str, loop: ForOp) -> None:
    for block in child_blocks(loop):
        for it in block.iters():
            if it.kind == REDUCE and it.binding.uses(loop.var):
                raise fail(
                    pass_name,
                    loop,
                    f'loop "{loop.label}" feeds reduce iteration variable %{it.var.name_hint} of block '
                    f'"{block.label}"; its iterations are not independent',
                )


def set_kind(loop: ForOp, kind: str, thread: str | None = None) -> None:
    loop.properties["kind"] = StringAttr(kind)
    if thread is None:
        loop.properties.pop("thread", None)
    else:
        loop.properties["thread"] = StringAttr(thread)
