"""The protocol every schedule primitive follows (`split`, `compute-at`, ... as ModulePasses).

A primitive is a frozen dataclass deriving from `SchedulePass`: its fields are its options
(xdsl-opt's convention), `func` names the function it schedules (left out when the module
has one), and `run(function)` makes the change and returns what the `Schedule` API returns
for it (the new loops of a split, the copy block of a cache-read; None when nothing).
`apply` (what xtir-opt calls) and `schedule` (what the pipeline driver calls, keeping the
result) are written once here. Refusals raise `ScheduleError(op, message, notes)`; the
driver names the pass in the diagnostic.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xtir.passes.analysis.navigation import select_function


@dataclass(frozen=True)
class SchedulePass(ModulePass, ABC):
    func: str | None = field(default=None, kw_only=True)
    """The function to schedule; may be left out when the module has only one."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.schedule(op)

    def schedule(self, module: ModuleOp) -> Any:
        """Apply the primitive to its function of `module`; return what `run` returns."""
        return self.run(select_function(module, self.func))

    @abstractmethod
    def run(self, function: func.FuncOp) -> Any:
        """Make the change in `function`, or raise before changing anything."""
