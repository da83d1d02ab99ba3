"""unroll{loop=L}: mark L to be fully unrolled by code generation (TVM's unroll)."""

from dataclasses import dataclass

from xdsl.dialects import func

from xtir.dialects.block import UNROLLED
from xtir.passes.analysis.navigation import get_loop
from xtir.passes.loop_kind import set_kind
from xtir.passes.schedule_pass import SchedulePass


@dataclass(frozen=True)
class UnrollPass(SchedulePass):
    name = "unroll"

    loop: str

    def run(self, f: func.FuncOp) -> None:
        set_kind(get_loop(f, self.loop), UNROLLED)
