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

The cache holds at most $XTIR_CACHE_MAX_MB MiB of libraries (default 256): a build that adds
one removes the least recently used others (last use is the file's modification time, set at
each load, so a noatime mount does not matter) until the rest fit, never the one it just made;
it also removes build folders a killed build left over an hour ago. A lock file (`flock`) keeps
eviction out of the step from finding a library to loading it, in threads and processes alike;
a loaded library stays usable when its file is removed.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import hashlib
import math
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from xtir.errors import XtirError
from xtir.lowering.cuda_emit import ERROR_FLAG, ERROR_OPERANDS, CudaProgram

HEADER = Path(__file__).with_name("cuda_emulation.h")
FLAGS = ("-std=c++17", "-O2", "-shared", "-fPIC", "-pthread", "-fno-strict-aliasing", "-w")
LIBRARY = "kernels.so"
RACE_REPORT = "xtir_race_report"
"""The launcher's function giving the race detector's report of the last launch ("" for none)."""
DEFAULT_CACHE_MB = 256
STALE_BUILD_SECONDS = 3600
"""A build folder this old belongs to a build that was killed (one takes seconds)."""


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


def cache_limit() -> int:
    """The cache's bound in bytes: $XTIR_CACHE_MAX_MB (MiB, fractions allowed), else DEFAULT_CACHE_MB."""
    text = os.environ.get("XTIR_CACHE_MAX_MB", "").strip()
    if not text:
        return DEFAULT_CACHE_MB << 20
    try:
        megabytes = float(text)
    except ValueError:
        megabytes = math.nan
    if not (math.isfinite(megabytes) and megabytes >= 0):
        raise XtirError(f"XTIR_CACHE_MAX_MB must be a size in MiB (a number >= 0), got '{text}'")
    return int(megabytes * (1 << 20))


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


@contextlib.contextmanager
def _cache_lock(cache: Path, exclusive: bool) -> Iterator[None]:
    """Loaders share the cache's lock, eviction holds it alone. flock locks belong to an open
    file, so threads of one process exclude each other as processes do."""
    with open(cache / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _touch(library: Path) -> bool:
    """Mark `library` used now; False when it is not there."""
    try:
        os.utime(library)
    except FileNotFoundError:
        return False
    return True


def load_cached(program: CudaProgram, files: dict[str, str], library: Path) -> EmulatedModule:
    """`library`, the cache's library of `files`, loaded; compiled first if it is not there (and
    then the cache is trimmed to its bound)."""
    cache, limit = library.parent, cache_limit()  # a bad $XTIR_CACHE_MAX_MB is refused before any work
    cache.mkdir(parents=True, exist_ok=True)
    with _cache_lock(cache, exclusive=False):  # no eviction between finding it and loading it
        if _touch(library):
            return EmulatedModule(program, files, library)
    work = Path(tempfile.mkdtemp(prefix="build-", dir=cache))
    try:
        compile_library(files, work, program.function)
        with _cache_lock(cache, exclusive=False):
            os.replace(work / LIBRARY, library)  # atomic: a reader sees no library or a whole one
            module = EmulatedModule(program, files, library)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    evict(cache, limit, keep=library)
    return module


def evict(cache: Path, limit: int, keep: Path | None = None) -> None:
    """Remove the least recently used libraries of `cache` until the others take at most `limit`
    bytes (never `keep`), and the build folders killed builds left."""
    with _cache_lock(cache, exclusive=True):
        libraries = []
        for path in cache.glob("*.so"):
            with contextlib.suppress(FileNotFoundError):
                status = path.stat()
                libraries.append((status.st_mtime, status.st_size, path))
        total = sum(size for _, size, _ in libraries)
        for _, size, path in sorted(libraries):
            if total <= limit:
                break
            if path != keep:
                path.unlink(missing_ok=True)
                total -= size
        for folder in cache.glob("build-*"):
            with contextlib.suppress(FileNotFoundError):
                if time.time() - folder.stat().st_mtime > STALE_BUILD_SECONDS:
                    shutil.rmtree(folder, ignore_errors=True)


_loaded: dict[Path, EmulatedModule] = {}
_loading = threading.Lock()


def emulated_module(program: CudaProgram) -> EmulatedModule:
    """The kernels of `program` compiled for the host (from the cache when they are there)."""
    files = sources(program)
    cache = cache_dir()
    if cache is None:
        return EmulatedModule(program, files)
    with _loading:
        library = cache / f"{cache_key(files, host_compiler())}.so"
        if library not in _loaded:
            _loaded[library] = load_cached(program, files, library)
        return _loaded[library]


def launcher_source(program: CudaProgram) -> str:
    kernels = dict.fromkeys(launch.kernel for launch in program.launches)
    lines = ["#define XTIR_RACECHECK"] if program.racecheck else []
    lines += ['#include "cuda_emulation.h"', '#include "kernel.cu"', ""]
    for name in kernels:
        lines.append(f'extern "C" int xtir_launch_{name}(void** args, const unsigned* dims) '
                     f"{{ return xtir_emu::launch({name}, args, dims); }}")
    if program.racecheck:
        lines.append(f'extern "C" const char* {RACE_REPORT}() {{ return xtir_emu::first_report().c_str(); }}')
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
        self.program = program
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
        if self.program.racecheck:
            self._raise_race()

    def _raise_race(self) -> None:
        """The race detector's report of the launch, as an XtirError quoting the lines it names."""
        entry = getattr(self._lib, RACE_REPORT)
        entry.restype = ctypes.c_char_p
        report = entry().decode()
        if report:
            raise XtirError(f"cuda-cpu racecheck: {report}\n" + quote_lines(self.program.source, report))

    def take_error(self) -> tuple[int, int, int]:
        """The error channel's report (site code, operands), 0 for none, and the channel cleared;
        only for a program with `error_sites` (other sources have no channel)."""
        flag = ctypes.c_uint.in_dll(self._lib, ERROR_FLAG)
        operands = (ctypes.c_longlong * 2).in_dll(self._lib, ERROR_OPERANDS)
        report = (flag.value, operands[0], operands[1])
        flag.value = 0
        return report


def quote_lines(source: str, report: str) -> str:
    """The lines of `source` that `report` names ("line N"), each once, as `kernel.cu:N: text`."""
    lines = source.splitlines()
    numbers = dict.fromkeys(int(n) for n in re.findall(r"\(line (\d+)\)", report))
    return "\n".join(f"  kernel.cu:{n}: {lines[n - 1].strip()}" for n in numbers if 0 < n <= len(lines))
