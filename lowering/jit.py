"""llvm dialect → LLVM IR → O3 for the host CPU (in a worker process) → machine code in process.

`translate` wraps `xdsl.backend.llvm.convert_module` and adds what it drops: function
linkage, and the `xtir.loop_annotation` of a loop's back edge as `llvm.loop` metadata
(`llvm.loop.vectorize.enable`, `llvm.loop.unroll.count`, `llvm.loop.unroll.full`).

`compile_llvm` hands the IR text to the LLVM worker (`llvm_worker.py`, one child process,
started on first use and reused), which verifies it, runs LLVM's new-pass-manager O3
pipeline for the host CPU, verifies the result and emits an object file. If LLVM crashes
there, the worker dies and the build raises an XtirError; a new worker serves the next
build. The object is loaded into an MCJIT engine of this process that owns its target
machine and nothing else, after checking that every symbol it calls exists here (MCJIT
would leave a missing one at address 0). libgomp is loaded once, for `GOMP_parallel`, and
glibc's libmvec, for the vector variants of libm functions (lowering/vector_math.py).

Thread safety: one build at a time talks to the worker (`_WORKER_LOCK`); the few calls
into LLVM made in this process (engines made, queried and freed) hold `_LLVM_LOCK`, since
they touch LLVM's global context. Compiled functions may be called from any thread.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import functools
import os
import pickle
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm
import llvmlite.ir as ir
import numpy as np
from xdsl.backend.llvm.convert import convert_module
from xdsl.dialects import func
from xdsl.dialects import llvm as llvm_dialect
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.utils.exceptions import LLVMTranslationException

from xtir.errors import XtirError, XtirEvaluationError, XtirWarning
from xtir.evaluate import check_arguments
from xtir.lowering import llvm_worker
from xtir.lowering.llvm_target import SYMBOL_PREFIX, llvm_symbol
from xtir.lowering.loops import LOOP_ANNOTATION
from xtir.lowering.vector_math import add_vector_variants, vector_variant_names

_LLVM_LOCK = threading.RLock()
"""Held by every call into LLVM in this process (reentrant: an engine may be freed by the
garbage collector while its thread holds the lock)."""


@functools.cache
def host_target() -> tuple[str, str]:
    """The host's target triple and data layout (strings: nothing of LLVM's is kept)."""
    with _LLVM_LOCK:
        tm = llvm_worker.host_target_machine()
        return tm.triple, str(tm.target_data)


@functools.cache
def load_system_library(stem: str) -> str | None:
    """Load the system's lib`stem` into the process, for MCJIT to resolve the compiled code's
    calls into it; its name, or None if there is none or it does not load."""
    name = ctypes.util.find_library(stem)
    if name is None:
        return None
    with _LLVM_LOCK:
        try:
            llvm.load_library_permanently(name)
        except RuntimeError:
            return None
    return name


@functools.cache
def load_openmp_runtime() -> str:
    """Load libgomp into the process so MCJIT resolves GOMP_parallel and omp_get_*."""
    name = load_system_library("gomp")
    if name is None:
        raise XtirError("parallel loops need libgomp (OpenMP's runtime), which was not found or does not load")
    return name


@functools.cache
def host_vector_variants() -> frozenset[str]:
    """The libmvec functions of vector_math.VECTOR_VARIANTS that the host CPU runs and this
    process defines (glibc 2.22 to 2.34 have a libmvec without the tanhf variants)."""
    if load_system_library("mvec") is None:
        return frozenset()
    with _LLVM_LOCK:
        features = llvm.get_host_cpu_features()
        return frozenset(
            name for feature, name in vector_variant_names() if features.get(feature) and llvm.address_of_symbol(name)
        )


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


def translate(
    module: ModuleOp, triple: str | None = None, data_layout: str = "", vector_variants: Collection[str] = ()
) -> ir.Module:
    """LLVM IR of a module in the llvm dialect, loop annotations as `llvm.loop` metadata, and
    those of `vector_variants` that vectorize its libm functions (see lowering/vector_math.py)."""
    llvm_module = convert_module(module, fallback_target_triple=triple, data_layout=data_layout)
    add_vector_variants(llvm_module, vector_variants)
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


def vectorized_loops(module: ModuleOp) -> list[str]:
    """The names of the loops whose back edge asks LLVM to vectorize them."""
    names = []
    for op in module.walk():
        annotation = op.attributes.get(LOOP_ANNOTATION)
        if isinstance(annotation, DictionaryAttr) and annotation.data.get("vectorize") == BoolAttr.from_bool(True):
            name = annotation.data.get("name")
            names.append(f'"{name.data}"' if isinstance(name, StringAttr) else "?")
    return list(dict.fromkeys(names))


def _llvm_warning(message: str, vectorized: Sequence[str]) -> str:
    """LLVM's message, saying which loops it can be about (it knows no names)."""
    reason = message.removeprefix("loop not vectorized: ")
    if reason == message or not vectorized:
        return f"LLVM: {message}"
    which = f"loop {vectorized[0]}" if len(vectorized) == 1 else f"one of the loops {', '.join(vectorized)}"
    return f"LLVM did not vectorize {which}, marked vectorized: {reason}"


# ----------------------------------------------------------------------------------------
# the worker process


_BOOTSTRAP = "import runpy, sys; sys.path.insert(0, sys.argv[1]); runpy.run_path(sys.argv[2], run_name='__main__')"
"""The worker's command: isolated from the environment, the current directory and the user's
modules (a `types.py` next to the user's script would shadow the standard library's), with
only llvmlite's directory on its path."""


class _Worker:
    """The LLVM worker (`llvm_worker.py`): its process, its pipes, the file its stderr goes to."""

    def __init__(self) -> None:
        self.log = tempfile.TemporaryFile()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _BOOTSTRAP, str(Path(llvm.__file__).parents[2]), llvm_worker.__file__],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                start_new_session=True,  # the terminal's ^C and ^Z are for the user's process, which ends the worker
            )
        except OSError as e:
            self.log.close()
            raise XtirError(f"cannot start the LLVM worker process ({sys.executable}): {e}") from None
        self.owner = os.getpid()

    def usable(self) -> bool:
        return self.owner == os.getpid() and self.process.poll() is None

    def compile(self, text: str, what: str) -> tuple[Any, ...]:
        """The worker's reply to `text`; an XtirError if it died meanwhile (LLVM crashed)."""
        start = os.fstat(self.log.fileno()).st_size
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        try:
            pickle.dump(text, stdin, protocol=pickle.HIGHEST_PROTOCOL)
            stdin.flush()
            return pickle.load(stdout)
        except (OSError, EOFError, pickle.UnpicklingError):
            pass
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        printed = os.pread(self.log.fileno(), 1 << 16, start).decode(errors="replace")
        raise XtirError(
            f"LLVM crashed compiling {what} (its worker process ended with {_exit_status(code)}); this "
            f"process is unaffected, but the program cannot be compiled. LLVM printed:\n{_crash_report(printed)}"
        )

    def stop(self) -> None:
        """End the worker (closing its input ends it; a worker that hangs is killed)."""
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]
        if self.owner == os.getpid():  # a forked child only lets go of its copies of the pipes
            try:
                self.process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def _exit_status(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"signal {signal.Signals(-code).name}"
    return f"exit status {code}"


_NOISE = re.compile(r"\s*(#\d+ 0x|Stack dump|PLEASE submit|\d+\.\s+Program arguments|Stack dump without)")


def _crash_report(printed: str, keep: int = 12) -> str:
    """What LLVM printed before dying, without its stack dump."""
    lines = [ln for ln in printed.splitlines() if ln.strip() and not _NOISE.match(ln)]
    if not lines:
        return "  (nothing)"
    return "\n".join("  " + ln[:300] for ln in lines[-keep:])


_WORKER_LOCK = threading.Lock()
"""One build at a time talks to the worker."""
_worker: _Worker | None = None


def _running_worker() -> _Worker:
    """The worker, started if there is none or it died (the caller holds _WORKER_LOCK)."""
    global _worker
    if _worker is None or not _worker.usable():
        if _worker is not None:
            _worker.stop()
        _worker = _Worker()
    return _worker


def start_worker() -> None:
    """Start the worker unless it runs or is busy: `xtir.build` calls this first, so that the
    worker's start (a Python process importing llvmlite) overlaps the lowering."""
    if _WORKER_LOCK.acquire(blocking=False):
        try:
            _running_worker()
        finally:
            _WORKER_LOCK.release()


def compile_in_worker(text: str, what: str) -> tuple[Any, ...]:
    """The worker's reply to the LLVM IR `text` (see `llvm_worker.py`); `what` names the code
    in the XtirError raised if LLVM crashes."""
    global _worker
    with _WORKER_LOCK:
        worker = _running_worker()
        try:
            return worker.compile(text, what)
        except BaseException:  # it crashed, or we were interrupted mid-conversation: start afresh
            worker.stop()
            _worker = None
            raise


def _stop_worker() -> None:
    """At exit: end the worker (killed, if a thread still talks to it)."""
    global _worker
    if not _WORKER_LOCK.acquire(timeout=5):
        if _worker is not None:
            _worker.process.kill()
        return
    try:
        if _worker is not None:
            _worker.stop()
            _worker = None
    finally:
        _WORKER_LOCK.release()


def _after_fork_in_child() -> None:
    """A forked child must not share the parent's worker (their requests would interleave),
    and its locks may have been copied while another thread held them."""
    global _worker, _WORKER_LOCK, _LLVM_LOCK
    _WORKER_LOCK, _LLVM_LOCK = threading.Lock(), threading.RLock()
    if _worker is not None:
        _worker.stop()
        _worker = None


atexit.register(_stop_worker)
os.register_at_fork(after_in_child=_after_fork_in_child)


# ----------------------------------------------------------------------------------------
# loading the machine code


def undefined_symbols(obj: bytes) -> list[str]:
    """The global symbols an ELF64 little-endian object file uses without defining them (for
    other formats: none known)."""
    if obj[:6] != b"\x7fELF\x02\x01":
        return []
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + k * shentsize) for k in range(shnum)]
    names = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for at in range(offset + entsize, offset + size, entsize):  # entry 0 is the null symbol
            name, info, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", obj, at)
            if shndx == 0 and info >> 4 == 1:  # SHN_UNDEF, STB_GLOBAL
                names.append(obj[strings + name : obj.index(b"\0", strings + name)].decode())
    return names


def _load(obj: bytes) -> llvm.ExecutionEngine:
    """An engine for the object; XtirError if it uses a symbol this process lacks. (Making an
    engine makes the process's symbols visible to LLVM, so the check comes after.)"""
    with _LLVM_LOCK:
        engine = llvm_worker.load_object(obj)
        missing = [name for name in undefined_symbols(obj) if not llvm.address_of_symbol(name)]
        if missing:
            engine.close()
            raise XtirError(f"the compiled code calls '{missing[0]}', which is defined nowhere in this process")
        return engine


@dataclass(eq=False)
class JitModule:
    """Machine code for a module, alive as long as this object is."""

    engine: llvm.ExecutionEngine
    llvm_ir: str
    optimized_llvm_ir: str

    def address(self, name: str) -> int:
        """The address of the module's function `name` (0 if there is none)."""
        with _LLVM_LOCK:
            return self.engine.get_function_address(llvm_symbol(name))

    def __del__(self) -> None:
        # freeing the engine deletes its (empty) module from LLVM's global context, which
        # other threads use; at exit, LLVM may be gone already: leave it
        if not sys.is_finalizing():
            with _LLVM_LOCK:
                self.engine.close()


def compile_llvm(module: ModuleOp) -> JitModule:
    """Compile a module in the llvm dialect for the host; XtirError if LLVM rejects it or crashes."""
    triple, data_layout = host_target()
    if any(op.sym_name.data == "GOMP_parallel" for op in module.ops if isinstance(op, llvm_dialect.FuncOp)):
        load_openmp_runtime()
    try:
        text = str(translate(module, triple, data_layout, host_vector_variants()))
    except LLVMTranslationException as e:
        raise XtirError(f"cannot write the program as LLVM IR: {e}") from None
    functions = [op for op in module.ops if isinstance(op, llvm_dialect.FuncOp) and op.body.blocks]
    defined = [op.sym_name.data.removeprefix(SYMBOL_PREFIX) for op in functions]
    reply = compile_in_worker(text, f"this program (functions {', '.join(defined)})")
    if reply[0] == "rejected":
        raise XtirError(f"LLVM rejected the generated IR: {reply[1]}")
    if reply[0] == "broken":
        raise XtirError(f"LLVM's optimizer produced invalid IR from this program (an LLVM bug it provokes): {reply[1]}")
    _, optimized, obj, messages = reply
    marked = vectorized_loops(module)
    for message in dict.fromkeys(messages):
        warnings.warn(_llvm_warning(message, marked), XtirWarning, stacklevel=3)
    return JitModule(_load(obj), text, optimized)


def host_arrays(signature: func.FuncOp, arrays: tuple[Any, ...]) -> list[np.ndarray]:
    """The arguments of a compiled function, checked: numpy arrays of the parameters' shapes and
    dtypes, C-contiguous and aligned, no two sharing memory."""
    name = signature.sym_name.data
    checked = check_arguments(signature, arrays)
    for k, array in enumerate(checked):
        if not array.flags.c_contiguous or not array.flags.aligned:
            raise XtirEvaluationError(
                f"function '{name}': argument {k} must be a C-contiguous, aligned array (use numpy.ascontiguousarray)"
            )
    for k in range(len(checked)):
        for j in range(k):
            if np.may_share_memory(checked[j], checked[k]):
                raise XtirEvaluationError(
                    f"function '{name}': arguments {j} and {k} overlap; the buffers of a compiled function must be distinct"
                )
    return checked


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
        address = self.jit.address(self.name)
        if not address:
            raise XtirError(f"function '{self.name}' is missing from the machine code")
        self._cfunc = prototype(address)

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
        # __array_interface__ rather than .ctypes, which builds a ctypes object per array (~4 µs)
        self._cfunc(*(array.__array_interface__["data"][0] for array in host_arrays(self.signature, arrays)))

    def __repr__(self) -> str:
        return f"<xtir.CompiledFunction @{self.name} ({self.compile_seconds:.2f} s to compile)>"
