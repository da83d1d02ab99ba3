"""vectorize{loop=L}: execute the iterations of L as one vector operation (TVM's vectorize)."""

from dataclasses import dataclass

from xdsl.dialects import func

from xtir.dialects.block import VECTORIZED
from xtir.passes.analysis.navigation import get_loop
from xtir.passes.loop_kind import check_independent, set_kind
from xtir.passes.schedule_pass import SchedulePass


@dataclass(frozen=True)
class VectorizePass(SchedulePass):
    name = "vectorize"

    loop: str

    def run(self, f: func.FuncOp) -> None:
        loop = get_loop(f, self.loop)
        check_independent(loop)
        set_kind(loop, VECTORIZED)
