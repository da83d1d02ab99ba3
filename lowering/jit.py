"""llvm dialect → LLVM IR → O3 for the host CPU → machine code in process (MCJIT).

`translate` wraps `xdsl.backend.llvm.convert_module` and adds what it drops: function
linkage, and the `xtir.loop_annotation` of a loop's back edge as `llvm.loop` metadata
(`llvm.loop.vectorize.enable`, `llvm.loop.unroll.count`, `llvm.loop.unroll.full`).
`compile_llvm` parses and verifies the IR, runs LLVM's new-pass-manager O3 pipeline (loop and SLP vectorization
on) with a target machine for the host CPU and its features, and hands the module to
MCJIT. libgomp is loaded into the process once, for `GOMP_parallel`.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
import re
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import llvmlite.binding as llvm
import llvmlite.ir as ir
import numpy as np
from xdsl.backend.llvm.convert import convert_module
from xdsl.dialects import func
from xdsl.dialects import llvm as llvm_dialect
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr

from xtir.errors import XtirError, XtirEvaluationError, XtirWarning
from xtir.evaluate import check_arguments
from xtir.lowering.loops import LOOP_ANNOTATION


@functools.cache
def target_machine() -> llvm.TargetMachine:
    """The host's target machine (CPU name and features, O3), made once per process."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple()
    features = llvm.get_host_cpu_features()
    flags = features.flatten()
    if features.get("avx512f"):
        # LLVM tunes AVX-512 CPUs to 256-bit vectors (prefer-256-bit, for clock reasons on
        # old parts); the micro-kernels here are FMA-bound, so use the full 512 bits.
        flags += ",-prefer-256-bit"
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(), features=flags, opt=3, jit=True)


@functools.cache
def load_openmp_runtime() -> str:
    """Load libgomp into the process so MCJIT resolves GOMP_parallel and omp_get_*."""
    name = ctypes.util.find_library("gomp")
    if name is None:
        raise XtirError("parallel loops need libgomp (OpenMP's runtime), which was not found")
    llvm.load_library_permanently(name)
    return name


class _DistinctMD(ir.values.MDValue):
    """A `distinct !{...}` node that may reference itself (an llvm.loop ID)."""

    def descr(self, buf: list[str]) -> None:
        buf.append("distinct ")
        super().descr(buf)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


def _loop_id(module: ir.Module, annotation: DictionaryAttr) -> ir.values.MDValue:
    properties: list[ir.values.MDValue] = []

    def prop(name: str, value: ir.Value | None = None) -> None:
        operands: list[Any] = [ir.MetaDataString(module, name)]
        if value is not None:
            operands.append(value)
        properties.append(module.add_metadata(operands))

    entries = annotation.data
    if entries.get("vectorize") == BoolAttr.from_bool(True):
        prop("llvm.loop.vectorize.enable", ir.Constant(ir.IntType(1), 1))
    if isinstance(width := entries.get("vectorize_width"), IntegerAttr):
        prop("llvm.loop.vectorize.width", ir.Constant(ir.IntType(32), width.value.data))
    if entries.get("unroll") == StringAttr("full"):
        prop("llvm.loop.unroll.full")
    if isinstance(count := entries.get("unroll_count"), IntegerAttr):
        prop("llvm.loop.unroll.count", ir.Constant(ir.IntType(32), count.value.data))
    loop_id = _DistinctMD(module, [], name=str(len(module.metadata)))
    loop_id.operands = (loop_id, *properties)
    return loop_id


def translate(module: ModuleOp, triple: str | None = None, data_layout: str = "") -> ir.Module:
    """LLVM IR of a module in the llvm dialect, loop annotations as `llvm.loop` metadata."""
    llvm_module = convert_module(module, fallback_target_triple=triple, data_layout=data_layout)
    for op in module.ops:
        if not isinstance(op, llvm_dialect.FuncOp) or not op.body.blocks:
            continue
        function = llvm_module.get_global(op.sym_name.data)
        if op.linkage.linkage.data != "external":  # convert_module drops linkage
            function.linkage = op.linkage.linkage.data
        # convert_module appends one basic block per block, in order
        for block, llvm_block in zip(op.body.blocks, function.blocks):
            annotation = block.last_op.attributes.get(LOOP_ANNOTATION) if block.last_op else None
            if isinstance(annotation, DictionaryAttr) and llvm_block.terminator is not None:
                llvm_block.terminator.set_metadata("llvm.loop", _loop_id(llvm_module, annotation))
    return llvm_module


def optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine, marked: Sequence[str] = ()) -> None:
    """O3; what LLVM prints about it (a forced vectorization it could not do) becomes an
    XtirWarning naming the `marked` (vectorized) loops, not lines on the process's stderr."""
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    pb = llvm.create_pass_builder(tm, pto)
    with _stderr_captured() as printed:
        pb.getModulePassManager().run(module, pb)
    for message in dict.fromkeys(printed()):
        warnings.warn(_llvm_warning(message, marked), XtirWarning, stacklevel=4)


def _llvm_warning(message: str, vectorized: Sequence[str]) -> str:
    """LLVM's message, saying which loops it can be about (it knows no names)."""
    reason = message.removeprefix("loop not vectorized: ")
    if reason == message or not vectorized:
        return f"LLVM: {message}"
    which = f"loop {vectorized[0]}" if len(vectorized) == 1 else f"one of the loops {', '.join(vectorized)}"
    return f"LLVM did not vectorize {which}, marked vectorized: {reason}"


def vectorized_loops(module: ModuleOp) -> list[str]:
    """The names of the loops whose back edge asks LLVM to vectorize them."""
    names = []
    for op in module.walk():
        annotation = op.attributes.get(LOOP_ANNOTATION)
        if isinstance(annotation, DictionaryAttr) and annotation.data.get("vectorize") == BoolAttr.from_bool(True):
            name = annotation.data.get("name")
            names.append(f'"{name.data}"' if isinstance(name, StringAttr) else "?")
    return list(dict.fromkeys(names))


_FD2_LOCK = threading.Lock()
"""File descriptor 2 belongs to the process: two threads redirecting it at once would each
restore what the other put there, leaving a deleted capture file as the process's stderr
and taking each other's LLVM messages. One capture (redirect and optimization) at a time."""


@contextlib.contextmanager
def _stderr_captured() -> Iterator[Callable[[], list[str]]]:
    """Redirect file descriptor 2 (where LLVM's C++ code prints) to a temporary file; yields a
    function returning the lines printed, without LLVM's `warning: <unknown>:0:0: ` prefix.

    Holds _FD2_LOCK throughout. Works without a stderr too (`sys.stderr` is None when Python
    starts with fd 2 closed, or in pythonw): fd 2 is closed again afterwards."""
    lines: list[str] = []
    with _FD2_LOCK, tempfile.TemporaryFile() as capture:
        _flush_stderr()
        saved = _dup_if_open(2)
        os.dup2(capture.fileno(), 2)
        try:
            yield lambda: lines
        finally:
            if saved is None:
                os.close(2)
            else:
                os.dup2(saved, 2)
                os.close(saved)
            capture.seek(0)
            text = capture.read().decode(errors="replace")
            lines.extend(re.sub(r"^(warning|remark): <unknown>:0:0: ", "", ln) for ln in text.splitlines() if ln)


def _flush_stderr() -> None:
    """Flush Python's stderr, if there is one, so what it buffered goes to the real fd 2."""
    if sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):  # a closed or broken stream: nothing to keep
            sys.stderr.flush()


def _dup_if_open(fd: int) -> int | None:
    """A duplicate of `fd`, or None when it is not open."""
    try:
        return os.dup(fd)
    except OSError:
        return None


@dataclass
class JitModule:
    """Machine code for a module, alive as long as this object is."""

    engine: llvm.ExecutionEngine
    llvm_ir: str
    optimized_llvm_ir: str

    def address(self, name: str) -> int:
        return self.engine.get_function_address(name)


def compile_llvm(module: ModuleOp) -> JitModule:
    """Compile a module in the llvm dialect for the host; raise XtirError if LLVM rejects it."""
    tm = target_machine()
    if any(op.sym_name.data == "GOMP_parallel" for op in module.ops if isinstance(op, llvm_dialect.FuncOp)):
        load_openmp_runtime()
    text = str(translate(module, tm.triple, str(tm.target_data)))
    try:
        ref = llvm.parse_assembly(text)
        ref.verify()
    except RuntimeError as e:
        raise XtirError(f"LLVM rejected the generated IR: {e}") from None
    optimize(ref, tm, vectorized_loops(module))
    optimized = str(ref)
    engine = llvm.create_mcjit_compiler(ref, tm)
    engine.finalize_object()
    return JitModule(engine, text, optimized)


@dataclass
class CompiledFunction:
    """A compiled entry function: call it with numpy arrays, written in place like a TVM module.

    `llvm_ir` is the LLVM IR as generated, `optimized_llvm_ir` after O3, `compile_seconds`
    the time `xtir.build` took (lowering included).
    """

    signature: func.FuncOp
    jit: JitModule
    compile_seconds: float = 0.0
    _cfunc: Any = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n = len(self.signature.function_type.inputs.data)
        prototype = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * n))
        self._cfunc = prototype(self.jit.address(self.name))

    @property
    def name(self) -> str:
        return self.signature.sym_name.data

    @property
    def llvm_ir(self) -> str:
        return self.jit.llvm_ir

    @property
    def optimized_llvm_ir(self) -> str:
        return self.jit.optimized_llvm_ir

    def __call__(self, *arrays: Any) -> None:
        checked = check_arguments(self.signature, arrays)
        for k, array in enumerate(checked):
            if not array.flags.c_contiguous or not array.flags.aligned:
                raise XtirEvaluationError(
                    f"function '{self.name}': argument {k} must be a C-contiguous, aligned array (use numpy.ascontiguousarray)"
                )
        for k in range(len(checked)):
            for j in range(k):
                if np.may_share_memory(checked[j], checked[k]):
                    raise XtirEvaluationError(
                        f"function '{self.name}': arguments {j} and {k} overlap; the buffers of a compiled "
                        "function must be distinct"
                    )
        self._cfunc(*(array.ctypes.data for array in checked))

    def __repr__(self) -> str:
        return f"<xtir.CompiledFunction @{self.name} ({self.compile_seconds:.2f} s to compile)>"
