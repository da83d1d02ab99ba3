"""vectorize{loop=L}: execute the iterations of L as one vector operation (TVM's vectorize)."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xtir.dialects.block import VECTORIZED
from xtir.passes.analysis.navigation import get_loop
from xtir.passes.loop_kind import check_independent, set_kind
from xtir.passes.utils import target_function


@dataclass(frozen=True)
class VectorizePass(ModulePass):
    name = "vectorize"

    loop: str
    func: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loop = get_loop(target_function(op, self.func), self.loop, self.name)
        check_independent(self.name, loop)
        set_kind(loop, VECTORIZED)
