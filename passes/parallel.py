"""parallel{loop=L}: run the iterations of L on parallel threads (TVM's parallel)."""

from dataclasses import dataclass

from xdsl.dialects import func

from xtir.dialects.block import PARALLEL
from xtir.passes.analysis.navigation import get_loop
from xtir.passes.loop_kind import check_independent, set_kind
from xtir.passes.schedule_pass import SchedulePass


@dataclass(frozen=True)
class ParallelPass(SchedulePass):
    name = "parallel"

    loop: str

    def run(self, f: func.FuncOp) -> None:
        loop = get_loop(f, self.loop)
        check_independent(loop)
        set_kind(loop, PARALLEL)
