"""Target "cuda-cpu": the emitted CUDA C compiled by the host C++ compiler and run on the CPU.

The kernel source is included unchanged after `cuda_emulation.h` (which says how blocks,
threads, barriers and `__shared__` are emulated); a launcher per kernel,
`int xtir_launch_K(void** args, const unsigned* dims)`, is all that is added. The shared
library is built with g++ (or $CXX) in a temporary directory and loaded with ctypes.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from xtir.errors import XtirError
from xtir.lowering.cuda_emit import CudaProgram

HEADER = Path(__file__).with_name("cuda_emulation.h")
FLAGS = ("-std=c++17", "-O2", "-shared", "-fPIC", "-pthread", "-fno-strict-aliasing", "-w")


def host_compiler() -> str:
    compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("clang++")
    if compiler is None:
        raise XtirError("target 'cuda-cpu' needs a host C++ compiler (g++ or clang++, or $CXX) on PATH")
    return compiler


def launcher_source(program: CudaProgram) -> str:
    kernels = dict.fromkeys(launch.kernel for launch in program.launches)
    lines = ['#include "cuda_emulation.h"', '#include "kernel.cu"', ""]
    for name in kernels:
        lines.append(f'extern "C" int xtir_launch_{name}(void** args, const unsigned* dims) '
                     f"{{ return xtir_emu::launch({name}, args, dims); }}")
    return "\n".join(lines) + "\n"


class EmulatedModule:
    """The kernels of a CudaProgram compiled for the host; `launch` runs one on host pointers."""

    def __init__(self, program: CudaProgram) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="xtir-cuda-cpu-")
        work = Path(self._dir.name)
        (work / "kernel.cu").write_text(program.source)
        (work / "launcher.cpp").write_text(launcher_source(program))
        shutil.copy(HEADER, work / HEADER.name)
        library = work / "kernels.so"
        command = [host_compiler(), *FLAGS, "-o", str(library), str(work / "launcher.cpp")]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise XtirError(f"the host C++ compiler rejected the emulated CUDA C of '{program.function}':\n"
                            + done.stderr[-4000:])
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
