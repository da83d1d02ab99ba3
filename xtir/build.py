"""`xtir.build`: compile a module to a function callable on numpy arrays (TVM's `tvm.build`).

Pipeline for target "llvm": `lower-to-llvm` (lowering/pipelines.py: lower-blocks when the
module has block-dialect ops, lower-accel when accel ops are left, guard-arith,
convert-to-llvm), then the JIT of `xtir.lowering.jit` (LLVM IR, O3 for the host CPU in a
worker process, MCJIT). Targets "cuda" / "cuda-cpu" run the same lower-blocks pipeline,
then lower-to-gpu and the CUDA emitter. Compiled functions are cached in the process by
the hash of the module's text, the target and the entry. Safe to call from several threads at once.
"""

from __future__ import annotations

import hashlib
import os
import time
from typing import TYPE_CHECKING

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Block, Region

from xtir.dialects.symbols import functions, lookup_function
from xtir.dialects.walk import uses_dialect
from xtir.errors import XtirError, expect_module
from xtir.evaluate import check_parameters
from xtir.support.locations import clone_module

if TYPE_CHECKING:
    from xtir.lowering.cuda_emit import CudaProgram
    from xtir.lowering.jit import CompiledFunction

TARGETS = ("llvm", "cuda", "cuda-cpu")
GPU_TARGETS = ("cuda", "cuda-cpu")
RACECHECK_ENV = "XTIR_CUDA_RACECHECK"
"""Set (not "" or "0"), it makes racecheck the default of target "cuda-cpu"."""
_CACHE: dict[str, CompiledFunction] = {}


def _run(module: ModuleOp, pass_name: str, **options: object) -> None:
    from xtir.pipeline import build_pass, run_passes

    run_passes(module, [build_pass(pass_name, options)])


def lower_to_llvm(module: ModuleOp, entry: str | None = None, bounds_check: bool = False) -> ModuleOp:
    """A copy of `module` lowered to the llvm dialect (the input is left untouched); the
    function `entry` is made public (a private one would have no symbol to call)."""
    result = clone_module(module)
    if entry is not None and (function := lookup_function(result, entry)) is not None:
        function.sym_visibility = None
    # accel.tmm16 becomes a call of the vectorized CPU micro-kernel rather than a loop nest
    _run(result, "lower-to-llvm", microkernels=True, bounds_check=bounds_check)
    return result


def lower_to_gpu(module: ModuleOp) -> ModuleOp:
    """A copy of `module` in the gpu dialect (kernels and their launches), the CUDA emitter's input."""
    result = clone_module(module)
    if uses_dialect(result, "block"):
        _run(result, "lower-blocks")
    if not uses_dialect(result, "gpu"):
        _run(result, "lower-to-gpu")
        _run(result, "version-edge-blocks")
    return result


def cuda_program(module: ModuleOp, entry: str | None = None, racecheck: bool = False) -> CudaProgram:
    """The CUDA C of `entry`'s kernels and their launch plan (no GPU needed); with `racecheck`,
    for the race detector of target "cuda-cpu"."""
    from xtir.lowering.cuda_emit import emit_cuda

    lowered = lower_to_gpu(module)
    return emit_cuda(lowered, entry_function(lowered, entry), racecheck)


def _racecheck(target: str, racecheck: bool | None) -> bool:
    """Whether to build with the race detector: as asked, else as $XTIR_CUDA_RACECHECK says (cuda-cpu only)."""
    if racecheck is None:
        return target == "cuda-cpu" and os.environ.get(RACECHECK_ENV, "") not in ("", "0")
    if racecheck and target != "cuda-cpu":
        raise XtirError(f"racecheck=True is for target 'cuda-cpu' (its emulation records every __shared__ and global access); "
                        f"target '{target}' has no race detector")
    return racecheck


def _build_gpu(module: ModuleOp, target: str, entry: str | None, bounds_check: bool,
               runtime: str | None, racecheck: bool) -> CompiledFunction:
    from xtir.lowering.cuda_function import EmulatedFunction, gpu_function

    if bounds_check:
        raise XtirError(f"bounds_check=True is for the llvm target; target '{target}' refuses accesses it cannot "
                        "show in bounds")
    kind = gpu_function(runtime) if target == "cuda" else EmulatedFunction  # says there is no GPU before any work
    start = time.perf_counter()
    signature = _signature(entry_function(module, entry))
    program = cuda_program(module, signature.sym_name.data, racecheck)
    compiled = kind(signature, program)
    compiled.compile_seconds = time.perf_counter() - start
    return compiled  # type: ignore[return-value]


def entry_function(module: ModuleOp, entry: str | None) -> func.FuncOp:
    """The function `entry`, else `main`, else the module's only function with a body."""
    found = lookup_function(module, entry or "main")
    if found is not None and found.body.blocks:
        return found
    funcs = [f for f in functions(module) if f.body.blocks]
    names = ", ".join(f.sym_name.data for f in funcs) or "none"
    if entry is None and len(funcs) == 1:
        return funcs[0]
    if entry is None:
        raise XtirError(f"no function named 'main' in the module; pass entry= (functions: {names})")
    raise XtirError(f"no function named '{entry}' in the module (functions: {names})")


def _signature(f: func.FuncOp) -> func.FuncOp:
    """A body-less copy of `f`'s signature that keeps the argument names (for error messages)."""
    if f.function_type.outputs.data:
        raise XtirError(f"function '{f.sym_name.data}' returns values; a built function writes its buffers instead")
    for k, t in enumerate(f.function_type.inputs.data):
        if not isinstance(t, MemRefType):
            raise XtirError(
                f"function '{f.sym_name.data}': parameter {k} has type {t}; a built function takes buffers (memrefs) only"
            )
    check_parameters(f)
    block = Block(arg_types=f.function_type.inputs.data)
    for new, old in zip(block.args, f.body.block.args):
        new.name_hint = old.name_hint
    return func.FuncOp(f.sym_name.data, f.function_type, Region(block))


def build(
    module: ModuleOp, target: str = "llvm", entry: str | None = None, bounds_check: bool = False,
    runtime: str | None = None, racecheck: bool | None = None,
) -> CompiledFunction:
    """Compile `module` for `target`; return a callable `f(*arrays)` for its entry function.

    `f` takes numpy arrays in the function's argument order and writes output buffers
    in place; shapes, dtypes and layouts are checked (XtirError). `f.llvm_ir` is the
    generated LLVM IR, `f.compile_seconds` the time this call took. An access that cannot
    be shown to stay in its buffer is refused; with `bounds_check=True` every access is
    checked at run time instead. What the code must not do at run time (an access out of
    range, an integer division by zero, an over-wide shift, a scratch buffer the heap cannot
    give) it skips and reports: `f` raises the first report as an XtirEvaluationError after
    the call (lowering/runtime_errors.py).

    Target "cuda" runs the thread-bound loop nests as CUDA kernels on a GPU (XtirError without
    one), launched through `runtime` "cupy" or "cuda-python" (default: CuPy where installed);
    "cuda-cpu" runs the same CUDA C on the CPU (lowering/cuda_emulation.py); with `racecheck=True`
    (default: $XTIR_CUDA_RACECHECK set) it also checks every `__shared__` and global access and raises
    an XtirError naming the kernel, buffer, element, threads and lines of the first race (two threads
    touching an element between barriers, or two blocks touching one, one writing) or read of a
    `__shared__` element the block never wrote.
    Their callables have `cuda_source` and `launches` instead of `llvm_ir`.
    """
    expect_module(module, "xtir.build")
    if target not in TARGETS:
        raise XtirError(f"unknown target '{target}'; targets: {', '.join(TARGETS)}")
    if runtime is not None and target != "cuda":
        raise XtirError(f"runtime= chooses how target 'cuda' launches kernels; target '{target}' has none")
    racecheck = _racecheck(target, racecheck)
    start = time.perf_counter()
    key = hashlib.sha256(f"{target}\0{entry}\0{bounds_check}\0{runtime}\0{racecheck}\0{module}".encode()).hexdigest()
    if (cached := _CACHE.get(key)) is not None:
        return cached
    if target in GPU_TARGETS:
        _CACHE[key] = _build_gpu(module, target, entry, bounds_check, runtime, racecheck)
        return _CACHE[key]
    from xtir.lowering.jit import CompiledFunction, compile_llvm, start_worker
    from xtir.lowering.runtime_errors import Checked, sites_called

    signature = _signature(entry_function(module, entry))
    start_worker()
    jit = compile_llvm(lower_to_llvm(module, signature.sym_name.data, bounds_check))
    compiled = CompiledFunction(signature, jit, time.perf_counter() - start)
    if sites := sites_called(compiled.llvm_ir):
        compiled = Checked(compiled, sites)  # type: ignore[assignment]
    _CACHE[key] = compiled
    return compiled
