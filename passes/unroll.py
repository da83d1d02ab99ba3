"""unroll{loop=L}: mark L to be fully unrolled by code generation (TVM's unroll)."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xtir.dialects.block import UNROLLED
from xtir.passes.analysis.navigation import get_loop
from xtir.passes.loop_kind import set_kind
from xtir.passes.utils import target_function


@dataclass(frozen=True)
class UnrollPass(ModulePass):
    name = "unroll"

    loop: str
    func: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        set_kind(get_loop(target_function(op, self.func), self.loop, self.name), UNROLLED)
