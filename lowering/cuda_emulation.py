"""Target "cuda-cpu": the emitted CUDA C compiled by the host C++ compiler and run on the CPU.

The kernel source is included unchanged after `cuda_emulation.h` (which says how blocks,
threads, barriers and `__shared__` are emulated); a launcher per kernel,
`int xtir_launch_K(void** args, const unsigned* dims)`, is all that is added. The shared
library is built with g++ (or $CXX) and loaded with ctypes.

A build takes the compiler seconds, so libraries are cached: in a folder of the cache
directory ($XTIR_CACHE_DIR, else ~/.cache/xtir), named by a hash of everything the compiler
reads (the files it compiles, its flags, its path and `--version`). A library is compiled in
a folder of its own and renamed into place, so processes and threads that build the same
kernel at once each find a whole library or none. XTIR_NO_CACHE=1 builds in a temporary
directory every time. In one process, builds of the same source share one loaded library
(dlopen gives one handle per path), and its calls take turns.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from xtir.errors import XtirError
from xtir.lowering.cuda_emit import ERROR_FLAG, ERROR_OPERANDS, CudaProgram

HEADER = Path(__file__).with_name("cuda_emulation.h")
FLAGS = ("-std=c++17", "-O2", "-shared", "-fPIC", "-pthread", "-fno-strict-aliasing", "-w")
LIBRARY = "kernels.so"


def host_compiler() -> str:
    compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("clang++")
    if compiler is None:
        raise XtirError("target 'cuda-cpu' needs a host C++ compiler (g++ or clang++, or $CXX) on PATH")
    return compiler


@functools.cache
def _compiler_version(compiler: str) -> str:
    done = subprocess.run([compiler, "--version"], capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


def cache_dir() -> Path | None:
    """Where built libraries are kept, or None when caching is off (XTIR_NO_CACHE=1)."""
    if os.environ.get("XTIR_NO_CACHE", "") not in ("", "0"):
        return None
    root = os.environ.get("XTIR_CACHE_DIR") or Path.home() / ".cache" / "xtir"
    return Path(root) / "cuda-cpu"


FP16_HEADER = "#pragma once\n// cuda-cpu: __half is emulated in cuda_emulation.h, included first\n"
"""What the kernel's `#include <cuda_fp16.h>` finds here."""


def sources(program: CudaProgram) -> dict[str, str]:
    """The files the compiler reads, by name."""
    return {"kernel.cu": program.source, "launcher.cpp": launcher_source(program), HEADER.name: HEADER.read_text(),
            "cuda_fp16.h": FP16_HEADER}


def cache_key(files: dict[str, str], compiler: str) -> str:
    digest = hashlib.sha256()
    for part in (compiler, _compiler_version(compiler), *FLAGS, *(p for item in sorted(files.items()) for p in item)):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def compile_library(files: dict[str, str], into: Path, function: str) -> None:
    """Write `files` into the folder `into` and compile them there to LIBRARY."""
    for name, text in files.items():
        (into / name).write_text(text)
    command = [host_compiler(), *FLAGS, "-I", str(into), "-o", str(into / LIBRARY), str(into / "launcher.cpp")]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise XtirError(f"the host C++ compiler rejected the emulated CUDA C of '{function}':\n" + done.stderr[-4000:])


def cached_library(files: dict[str, str], cache: Path, function: str) -> Path:
    """The library of `files` in `cache`, compiled first if it is not there."""
    library = cache / f"{cache_key(files, host_compiler())}.so"
    if not library.exists():
        cache.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="build-", dir=cache))
        try:
            compile_library(files, work, function)
            os.replace(work / LIBRARY, library)  # atomic: a reader sees no library or a whole one
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return library


_loaded: dict[Path, EmulatedModule] = {}
_loading = threading.Lock()


def emulated_module(program: CudaProgram) -> EmulatedModule:
    """The kernels of `program` compiled for the host (from the cache when they are there)."""
    files = sources(program)
    cache = cache_dir()
    if cache is None:
        return EmulatedModule(program, files)
    with _loading:
        library = cached_library(files, cache, program.function)
        if library not in _loaded:
            _loaded[library] = EmulatedModule(program, files, library)
        return _loaded[library]


def launcher_source(program: CudaProgram) -> str:
    kernels = dict.fromkeys(launch.kernel for launch in program.launches)
    lines = ['#include "cuda_emulation.h"', '#include "kernel.cu"', ""]
    for name in kernels:
        lines.append(f'extern "C" int xtir_launch_{name}(void** args, const unsigned* dims) '
                     f"{{ return xtir_emu::launch({name}, args, dims); }}")
    return "\n".join(lines) + "\n"


class EmulatedModule:
    """The kernels of a CudaProgram compiled for the host; `launch` runs one on host pointers.
    `calls` is held by each call of a function using it: the error channel is the library's."""

    def __init__(self, program: CudaProgram, files: dict[str, str], library: Path | None = None) -> None:
        self.calls = threading.Lock()
        if library is None:
            self._dir = tempfile.TemporaryDirectory(prefix="xtir-cuda-cpu-")
            compile_library(files, Path(self._dir.name), program.function)
            library = Path(self._dir.name) / LIBRARY
        self._lib = ctypes.CDLL(str(library))
        self._entries = {}
        for launch in program.launches:
            entry = getattr(self._lib, f"xtir_launch_{launch.kernel}")
            entry.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_uint)]
            entry.restype = ctypes.c_int
            self._entries[launch.kernel] = entry

    def launch(self, kernel: str, grid: tuple[int, ...], block: tuple[int, ...], pointers: list[int]) -> None:
        args = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
        dims = (ctypes.c_uint * 6)(*grid, *block)
        status = self._entries[kernel](args, dims)
        if status:
            raise XtirError(f"cuda-cpu: could start only {status - 1} of the {block[0] * block[1] * block[2]} threads "
                            f"of a block of '{kernel}' (a per-process thread limit?)")

    def take_error(self) -> tuple[int, int, int]:
        """The error channel's report (site code, operands), 0 for none, and the channel cleared;
        only for a program with `error_sites` (other sources have no channel)."""
        flag = ctypes.c_uint.in_dll(self._lib, ERROR_FLAG)
        operands = (ctypes.c_longlong * 2).in_dll(self._lib, ERROR_OPERANDS)
        report = (flag.value, operands[0], operands[1])
        flag.value = 0
        return report
