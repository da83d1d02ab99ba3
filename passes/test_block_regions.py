"""test-block-regions: attach each block's derived read/write regions as attributes.

For lit tests of the region analysis: the attributes mirror TVM's T.reads/T.writes, and name
the iteration variables as the printed IR does (`vi_1` where a second `%vi` prints so).
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.passes import ModulePass

from xtir.passes.analysis.navigation import all_blocks
from xtir.passes.analysis.regions import format_regions, printed_names, read_regions, write_regions


@dataclass(frozen=True)
class TestBlockRegionsPass(ModulePass):
    name = "test-block-regions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        names = printed_names(op)
        for block in all_blocks(op):
            block.attributes["reads"] = ArrayAttr([StringAttr(s) for s in format_regions(read_regions(block), names)])
            block.attributes["writes"] = ArrayAttr([StringAttr(s) for s in format_regions(write_regions(block), names)])
