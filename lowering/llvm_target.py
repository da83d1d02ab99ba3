"""`check-llvm-target` and `mangle-symbols`: what the CPU target refuses, and the symbols it defines.

check-llvm-target refuses, before anything changes, what has no CPU lowering: a loop bound
to a GPU thread axis (it belongs to the cuda target), and element types without lowering
(bf16: llvmlite, which writes the LLVM IR, has no bfloat type; f80, f128, tf32, f8 types,
complex numbers), before xDSL's translation to LLVM IR fails on them with an exception of
its own.

mangle-symbols renames every function the module defines to `xtir.NAME` (`llvm_symbol`),
and its calls, so that no user function takes the place of a symbol of the runtime
(`GOMP_parallel`, `free`, or `memcpy` that LLVM may call); names must be identifiers
(letters, digits, `_$.`): LLVM takes others quoted, but they are not safe as symbols. The
run-time error channel's `xtir_runtime_error` is reserved, even where nothing reports on it
(lowering/runtime_errors.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    ContainerType,
    Float16Type,
    Float32Type,
    Float64Type,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute
from xdsl.passes import ModulePass

from xtir.errors import LoweringError
from xtir.lowering import runtime_errors
from xtir.lowering.loops import THREAD_BINDING, loop_kind, loop_name, thread_tag

SYMBOL_PREFIX = "xtir."
"""The prefix of the LLVM symbol of every function a module defines. No symbol of the runtime
(libgomp, libc, libm, LLVM's own helpers) starts with it."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")


def llvm_symbol(name: str) -> str:
    """The LLVM symbol of the function `name` of the module (see SYMBOL_PREFIX)."""
    return SYMBOL_PREFIX + name


def _unsupported_type(t: Attribute) -> Attribute | None:
    """The element type in `t` that has no lowering: floats other than f16, f32 and f64 (llvmlite,
    which writes the LLVM IR, has no bfloat, and xDSL translates no f80, f128, tf32 or f8 type),
    and complex numbers."""
    if isinstance(t, ComplexType):
        return t
    if isinstance(t, ContainerType):
        return _unsupported_type(t.get_element_type())
    if isinstance(t, AnyFloat) and not isinstance(t, Float16Type | Float32Type | Float64Type):
        return t
    return None


@dataclass(frozen=True)
class CheckLLVMTargetPass(ModulePass):
    name = "check-llvm-target"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if isinstance(inner, scf.ForOp) and loop_kind(inner) == THREAD_BINDING:
                raise LoweringError(inner, f"loop {loop_name(inner)} is bound to {thread_tag(inner)}; "
                                    "build it for the cuda target")
        for inner in op.walk():
            types = [v.type for v in (*inner.operands, *inner.results,
                                      *(a for r in inner.regions for b in r.blocks for a in b.args))]
            if isinstance(inner, func.FuncOp):
                types += [*inner.function_type.inputs, *inner.function_type.outputs]
            if (bad := next(filter(None, map(_unsupported_type, types)), None)) is not None:
                raise LoweringError(inner, f"element type {bad} is not supported on the CPU (the backend compiles "
                                    "f16, f32, f64 and integers); use f32, or f16")


@dataclass(frozen=True)
class MangleSymbolsPass(ModulePass):
    name = "mangle-symbols"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        runtime_errors.check_reserved(op)
        renamed: set[str] = set()
        for f in op.ops:
            if isinstance(f, func.FuncOp) and f.body.blocks:
                name = f.sym_name.data
                if not _IDENTIFIER.fullmatch(name):
                    raise LoweringError(f, f"function name {name!r} cannot be a symbol of machine code: use ASCII "
                                        "letters, digits, '_', '$' and '.', starting with a letter or '_'")
                f.sym_name = StringAttr(llvm_symbol(name))
                renamed.add(name)
        for inner in op.walk():
            if isinstance(inner, func.CallOp) and inner.callee.string_value() in renamed:
                inner.callee = SymbolRefAttr(llvm_symbol(inner.callee.string_value()))
