"""`xtir.build`: compile a module to a function callable on numpy arrays (TVM's `tvm.build`).

Pipeline for target "llvm": `lower-to-llvm` (lowering/pipelines.py: lower-blocks when the
module has block-dialect ops, lower-accel when accel ops are left, convert-to-llvm), then
the JIT of `xtir.lowering.jit` (LLVM IR, O3 for the host CPU in a worker process, MCJIT). Compiled
functions are cached in the process by the hash of the module's text, the target and the
entry. Safe to call from several threads at once.
"""

from __future__ import annotations

import hashlib
import time
from typing import TYPE_CHECKING

import xdsl.builder as xdsl_builder
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Block, Operation, Region

from xtir.context import make_context
from xtir.diagnostics import verify
from xtir.errors import XtirError, expect_module
from xtir.evaluate import check_parameters

if TYPE_CHECKING:
    from xtir.lowering.jit import CompiledFunction

TARGETS = ("llvm",)
_CACHE: dict[str, CompiledFunction] = {}


def _install_implicit_builder_hook() -> None:
    """Make xDSL's `ImplicitBuilder` safe in threads. Each `with ImplicitBuilder(...)` (xDSL
    uses one to add a missing terminator, e.g. when parsing an `scf.for`) swaps
    `Operation.__post_init__` for a hook and back; two threads doing so at once leave a hook
    in place that the next swap wraps again, and every op made in an ImplicitBuilder after
    that is inserted twice ("Can't add to a block an operation already attached to a
    block"). Install the hook once and for all (it acts only in a thread inside an
    ImplicitBuilder) and make the swap a no-op."""
    xdsl_builder._override_operation_post_init()
    xdsl_builder._override_operation_post_init = lambda: Operation.__post_init__


_install_implicit_builder_hook()


def _run(module: ModuleOp, pass_name: str, **options: object) -> None:
    from xtir.passes_registry import XTIR_PASSES

    try:
        pass_class = XTIR_PASSES[pass_name]()
    except ModuleNotFoundError:
        raise XtirError(f"the module needs the '{pass_name}' pass, which is not available yet") from None
    pass_class(**options).apply(make_context(), module)
    verify(module)


def lower_to_llvm(module: ModuleOp, entry: str | None = None, bounds_check: bool = False) -> ModuleOp:
    """A copy of `module` lowered to the llvm dialect (the input is left untouched); the
    function `entry` is made public (a private one would have no symbol to call)."""
    result = module.clone()
    for op in result.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == entry:
            op.sym_visibility = None
    # accel.tmm16 becomes a call of the vectorized CPU micro-kernel rather than a loop nest
    _run(result, "lower-to-llvm", microkernels=True, bounds_check=bounds_check)
    return result


def entry_function(module: ModuleOp, entry: str | None) -> func.FuncOp:
    """The function `entry`, else `main`, else the module's only function with a body."""
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    names = ", ".join(f.sym_name.data for f in funcs) or "none"
    wanted = entry or "main"
    for f in funcs:
        if f.sym_name.data == wanted:
            return f
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
    module: ModuleOp, target: str = "llvm", entry: str | None = None, bounds_check: bool = False
) -> CompiledFunction:
    """Compile `module` for `target`; return a callable `f(*arrays)` for its entry function.

    `f` takes numpy arrays in the function's argument order and writes output buffers
    in place; shapes, dtypes and layouts are checked (XtirError). `f.llvm_ir` is the
    generated LLVM IR, `f.compile_seconds` the time this call took. An access that cannot
    be shown to stay in its buffer is refused; with `bounds_check=True` every access is
    checked at run time instead, and `f` raises the first one out of range after the call.
    """
    expect_module(module, "xtir.build")
    if target not in TARGETS:
        hint = " (GPU code generation is not available yet)" if target == "cuda" else ""
        raise XtirError(f"unknown target '{target}'{hint}; targets: {', '.join(TARGETS)}")
    start = time.perf_counter()
    key = hashlib.sha256(f"{target}\0{entry}\0{bounds_check}\0{module}".encode()).hexdigest()
    if (cached := _CACHE.get(key)) is not None:
        return cached
    from xtir.lowering.bounds_check import BoundsChecked
    from xtir.lowering.jit import CompiledFunction, compile_llvm, start_worker

    signature = _signature(entry_function(module, entry))
    start_worker()
    jit = compile_llvm(lower_to_llvm(module, signature.sym_name.data, bounds_check))
    compiled = CompiledFunction(signature, jit, time.perf_counter() - start)
    if bounds_check:
        compiled = BoundsChecked(compiled)  # type: ignore[assignment]
    _CACHE[key] = compiled
    return compiled
