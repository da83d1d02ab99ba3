"""The lowering pipelines, by name: one source of truth for `xtir-opt -p` and `xtir.build`.

Each stage is a ModulePass of its own, registered in xtir-opt and tested by its own lit
file (tests/filecheck/lowering/); a pipeline is a ModulePass that runs its stages in order,
so `-p lower-to-llvm` and `xtir.build` apply the same list.

    lower-blocks{compact=true microkernels=false bounds_check=false}
        block dialect → scf loops over memrefs (the output contract in blocks_to_scf.py;
        lower-to-gpu starts from it too):
        inline-blocks, compact-buffers, check-parallel-loops, check-bounds{runtime},
        blocks-to-scf{microkernels}, cse, licm, cse
    convert-to-llvm
        scf / memref / arith / math / func → the llvm dialect (stages in to_llvm.py)
    lower-to-llvm{microkernels=false bounds_check=false}
        what xtir.build runs: lower-blocks when the module has block ops, lower-accel when
        accel ops are left, guard-arith (lowering/arith_guards.py: integer ops that would
        trap report on the run-time error channel), then convert-to-llvm

lower-to-gpu (lowering/to_gpu.py) starts from lower-blocks' output too: xtir.build's cuda
targets run lower-blocks, then lower-to-gpu.

cse and licm are xDSL's; so is reconcile-unrealized-casts in convert-to-llvm.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.loop_invariant_code_motion import LoopInvariantCodeMotionPass
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPass

from xtir.dialects.walk import uses_dialect
from xtir.errors import ScheduleError
from xtir.lowering.accel_to_scf import LowerAccelPass
from xtir.lowering.arith_guards import GuardArithPass
from xtir.lowering.arith_to_llvm import ConvertArithToLLVMPass, ConvertMathToLLVMPass
from xtir.lowering.blocks_to_scf import BlocksToScfPass, CheckParallelLoopsPass, InlineBlocksPass
from xtir.lowering.bounds_check import CheckBoundsPass
from xtir.lowering.compact_buffers import CompactBuffersPass
from xtir.lowering.func_to_llvm import ConvertCfToLLVMPass, ConvertFuncToLLVMPass
from xtir.lowering.llvm_target import CheckLLVMTargetPass, MangleSymbolsPass
from xtir.lowering.loops import ConvertScfToCfAnnotatedPass, ExpandUnrolledLoopsPass
from xtir.lowering.memref_to_llvm import ConvertMemrefToLLVMPass
from xtir.lowering.openmp import OutlineParallelLoopsPass
from xtir.lowering.to_llvm import CheckLLVMLoweredPass, ConvertTypesToLLVMPass


@dataclass(frozen=True)
class PipelinePass(ModulePass, ABC):
    """A named pipeline: its stages, for the module at hand, applied in order; a refusal
    names the stage that refused (`check-bounds: ...`), not the pipeline."""

    @abstractmethod
    def stages(self, module: ModuleOp) -> Sequence[ModulePass]: ...

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for stage in self.stages(op):
            try:
                stage.apply(ctx, op)
            except ScheduleError as e:
                raise e.in_pass(stage.name) from None


def lower_blocks_stages(compact: bool = True, microkernels: bool = False, bounds_check: bool = False) -> list[ModulePass]:
    return [
        InlineBlocksPass(),
        *([CompactBuffersPass()] if compact else []),
        CheckParallelLoopsPass(),
        CheckBoundsPass(runtime=bounds_check),
        BlocksToScfPass(microkernels=microkernels),
        # each index subexpression once per scope, computed in the outermost loop it depends on
        CommonSubexpressionElimination(),
        LoopInvariantCodeMotionPass(),
        CommonSubexpressionElimination(),
    ]


CONVERT_TO_LLVM_STAGES: tuple[ModulePass, ...] = (
    CheckLLVMTargetPass(),
    MangleSymbolsPass(),
    OutlineParallelLoopsPass(),
    ExpandUnrolledLoopsPass(),
    ConvertScfToCfAnnotatedPass(),
    ConvertMemrefToLLVMPass(),
    ConvertTypesToLLVMPass(),
    ReconcileUnrealizedCastsPass(),
    ConvertArithToLLVMPass(),
    ConvertMathToLLVMPass(),
    ConvertCfToLLVMPass(),
    ConvertFuncToLLVMPass(),
    CheckLLVMLoweredPass(),
)


def lower_to_llvm_stages(module: ModuleOp, microkernels: bool = False, bounds_check: bool = False) -> list[ModulePass]:
    """The stages that take `module` to the llvm dialect, by what it holds."""
    stages: list[ModulePass] = []
    if uses_dialect(module, "block"):
        stages += lower_blocks_stages(microkernels=microkernels, bounds_check=bounds_check)
    elif uses_dialect(module, "accel"):
        stages.append(LowerAccelPass())
    return [*stages, GuardArithPass(), *CONVERT_TO_LLVM_STAGES]


@dataclass(frozen=True)
class LowerBlocksPass(PipelinePass):
    """lower-blocks{compact=true microkernels=false bounds_check=false}: block dialect → scf."""

    name = "lower-blocks"

    compact: bool = True
    """Run compact-buffers after inlining the blocks (scratch buffers shrink to a tile)."""
    microkernels: bool = False
    """Leave accel.tmm16 as a call of the CPU micro-kernel (lowering/microkernels.py) for
    convert-to-llvm, instead of a scalar loop nest; xtir.build sets it."""
    bounds_check: bool = False
    """Check every access at run time (lowering/bounds_check.py) instead of refusing the
    ones that cannot be shown in bounds; xtir.build(..., bounds_check=True) sets it."""

    def stages(self, module: ModuleOp) -> Sequence[ModulePass]:
        return lower_blocks_stages(self.compact, self.microkernels, self.bounds_check)


@dataclass(frozen=True)
class ConvertToLLVMPass(PipelinePass):
    """convert-to-llvm: the output of lower-blocks → the llvm dialect."""

    name = "convert-to-llvm"

    def stages(self, module: ModuleOp) -> Sequence[ModulePass]:
        return CONVERT_TO_LLVM_STAGES


@dataclass(frozen=True)
class LowerToLLVMPass(PipelinePass):
    """lower-to-llvm{microkernels=false bounds_check=false}: what xtir.build runs."""

    name = "lower-to-llvm"

    microkernels: bool = False
    """As in lower-blocks; xtir.build sets it."""
    bounds_check: bool = False
    """As in lower-blocks."""

    def stages(self, module: ModuleOp) -> Sequence[ModulePass]:
        return lower_to_llvm_stages(module, self.microkernels, self.bounds_check)
