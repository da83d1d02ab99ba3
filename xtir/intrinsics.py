"""Tensor intrinsics: what a hardware instruction computes, and how to call it (TVM's TensorIntrin).

An intrinsic is a pair of functions with the same arguments:

- the *description*, a loop nest around one block in the `block` dialect, which
  says what the instruction computes on its argument buffers (their shapes,
  element types and storage scopes are part of it; the scope "*" accepts any);
- the *implementation*, the ops that do it, usually one `accel` op.

`tensorize` matches a block against a description and replaces the block's body by
the implementation. Intrinsics are registered from Python (`register`), from an IR
module holding `@NAME_desc` / `@NAME_impl` pairs (`register_module`, `register_file`,
or `xtir-opt --intrinsics=FILE`). The accelerator's three are built in: `tmm16`
(C += A·Bᵀ on 16x16 tiles), `fill_zero16` (C = 0, for init blocks) and `dma_copy16`
(a 16x16 copy between any two scopes, for cache blocks).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from xtir.context import make_context
from xtir.diagnostics import parse_module, read_source
from xtir.support.errors import XtirError, XtirPassError

ANY_SCOPE = "*"
"""A description buffer in this scope matches a buffer of any scope."""

_ACC = 'memref<16x16xf32, "global.accumulator">'
_A = 'memref<16x16xf32, "global.A_reg">'
_B = 'memref<16x16xf32, "global.B_reg">'
_ANY = 'memref<16x16xf32, "*">'

BUILTIN_INTRINSICS = f"""
builtin.module {{
  func.func @tmm16_desc(%A: {_A}, %B: {_B}, %C: {_ACC}) {{
    block.for %i = 0 to 16 "i" {{
      block.for %j = 0 to 16 "j" {{
        block.for %k = 0 to 16 "k" {{
          block.block "tmm16"(%vii = spatial(16, %i), %vjj = spatial(16, %j), %vkk = reduce(16, %k)) {{
            %c = block.load %C[%vii, %vjj] : {_ACC}
            %a = block.load %A[%vii, %vkk] : {_A}
            %b = block.load %B[%vjj, %vkk] : {_B}
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vii, %vjj] : {_ACC}
          }}
        }}
      }}
    }}
    func.return
  }}
  func.func @tmm16_impl(%A: {_A}, %B: {_B}, %C: {_ACC}) {{
    accel.tmm16 %C[0 : 16, 0 : 16], %A[0 : 16, 0 : 16], %B[0 : 16, 0 : 16] : {_ACC}, {_A}, {_B}
    func.return
  }}
  func.func @fill_zero16_desc(%C: {_ACC}) {{
    block.for %i = 0 to 16 "i" {{
      block.for %j = 0 to 16 "j" {{
        block.block "fill_zero16"(%vii = spatial(16, %i), %vjj = spatial(16, %j)) {{
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vii, %vjj] : {_ACC}
        }}
      }}
    }}
    func.return
  }}
  func.func @fill_zero16_impl(%C: {_ACC}) {{
    accel.fill_zero %C[0 : 16, 0 : 16] : {_ACC}
    func.return
  }}
  func.func @dma_copy16_desc(%dst: {_ANY}, %src: {_ANY}) {{
    block.for %i = 0 to 16 "i" {{
      block.for %j = 0 to 16 "j" {{
        block.block "dma_copy16"(%vii = spatial(16, %i), %vjj = spatial(16, %j)) {{
          %x = block.load %src[%vii, %vjj] : {_ANY}
          block.store %x, %dst[%vii, %vjj] : {_ANY}
        }}
      }}
    }}
    func.return
  }}
  func.func @dma_copy16_impl(%dst: {_ANY}, %src: {_ANY}) {{
    accel.dma_copy %dst[0 : 16, 0 : 16], %src[0 : 16, 0 : 16] : {_ANY}, {_ANY}
    func.return
  }}
}}
"""


@dataclass(frozen=True)
class TensorIntrin:
    name: str
    desc: func.FuncOp
    impl: func.FuncOp


_registry: dict[str, TensorIntrin] = {}


def register(name: str, desc: func.FuncOp, impl: func.FuncOp, override: bool = False) -> TensorIntrin:
    """Register an intrinsic (TVM's TensorIntrin.register); the functions are copied."""
    _ensure_builtins()
    if name in _registry and not override:
        raise XtirError(f'tensor intrinsic "{name}" is already registered (pass override=True to replace it)')
    desc_types = list(desc.function_type.inputs)
    impl_types = list(impl.function_type.inputs)
    if desc_types != impl_types:
        raise XtirError(f'tensor intrinsic "{name}": the description takes ({", ".join(map(str, desc_types))}) '
                        f'but the implementation takes ({", ".join(map(str, impl_types))}); they must match')
    _check_impl_arguments(name, desc, impl)
    intrin = TensorIntrin(name, desc.clone(), impl.clone())
    _registry[name] = intrin
    return intrin


def _check_impl_arguments(name: str, desc: func.FuncOp, impl: func.FuncOp) -> None:
    """tensorize learns which buffer an argument is from the description's accesses, so the
    implementation may use only arguments the description accesses."""
    for desc_arg, impl_arg in zip(desc.body.block.args, impl.body.block.args):
        if impl_arg.uses and not desc_arg.uses:
            raise XtirError(f'tensor intrinsic "{name}": the implementation uses argument %{impl_arg.name_hint}, '
                            "which the description never accesses, so tensorize cannot tell which buffer it is")


def register_module(module: ModuleOp, override: bool = False) -> list[str]:
    """Register every `@NAME_desc` / `@NAME_impl` pair of `module`; return the names."""
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    names = [n.removesuffix("_desc") for n in funcs if n.endswith("_desc")]
    missing = [n for n in names if f"{n}_impl" not in funcs]
    if missing:
        raise XtirError(f"tensor intrinsic(s) {', '.join(missing)}: a @NAME_desc function needs a @NAME_impl")
    if not names:
        raise XtirError("no tensor intrinsics found: define them as @NAME_desc and @NAME_impl functions")
    for name in names:
        register(name, funcs[f"{name}_desc"], funcs[f"{name}_impl"], override)
    return names


def register_file(path: str | Path, override: bool = False) -> list[str]:
    return register_module(_parse(read_source(path), str(path)), override)


def add_files_option(parser: argparse.ArgumentParser) -> None:
    """The `--intrinsics FILE` option the command-line tools share (registered by `register_files`)."""
    parser.add_argument("--intrinsics", action="append", default=[], metavar="FILE",
                        help="register the tensor intrinsics (@NAME_desc / @NAME_impl function pairs) of an IR "
                        "file for tensorize; may be repeated")


def register_files(paths: list[str]) -> None:
    """Register the intrinsics of the `--intrinsics` files, later definitions replacing earlier ones."""
    for path in paths:
        register_file(path, override=True)


_builtins_loaded = False


def _ensure_builtins() -> None:
    """Load the built-in intrinsics once, before anything else registers (so a user's
    intrinsic of the same name is a duplicate, not silently replaced later)."""
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        register_module(_parse(BUILTIN_INTRINSICS, "<builtin intrinsics>"))


def _parse(text: str, name: str) -> ModuleOp:
    return parse_module(make_context(), text, name)


def registered() -> list[str]:
    _ensure_builtins()
    return sorted(_registry)


def get(name: str) -> TensorIntrin:
    _ensure_builtins()
    if name not in _registry:
        raise XtirPassError(unknown_message(name))
    return _registry[name]


def unknown_message(name: str) -> str:
    return f'tensor intrinsic "{name}" is not registered; registered: {", ".join(registered())}'


def is_registered(name: str) -> bool:
    _ensure_builtins()
    return name in _registry
