"""The callables `xtir.build` returns for targets "cuda" and "cuda-cpu".

Both run the kernels of one CudaProgram in launch order and expose `cuda_source`,
`launches` (grid, block, argument order of each launch) and `launch_description`.
An integer division or shift the kernels must not do they skip and report on the error
channel of the source (lowering/cuda_emit.py: a device flag and the operands of the first
report); a call clears it, runs, and raises that report as an XtirEvaluationError, as the
llvm target does.
- "cuda-cpu" (`EmulatedFunction`) takes numpy arrays and runs the emulation of
  lowering/cuda_emulation.py on them in place.
- "cuda" (`CudaFunction`) compiles with NVRTC through CuPy (the optional extra `xtir[cuda]`)
  and takes numpy arrays (copied to the device, and the buffers the kernels write copied
  back) or device arrays: CuPy arrays, or anything with `__cuda_array_interface__` or
  `__dlpack__` (torch), used in place without copies. Without CuPy or without a GPU it
  raises XtirError saying so.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType

from xtir.errors import XtirError, XtirEvaluationError
from xtir.evaluate import numpy_dtype
from xtir.lowering.cuda_emit import ERROR_FLAG, ERROR_OPERANDS, CudaProgram, KernelLaunch
from xtir.lowering.jit import host_arrays

FLOAT4_BYTES = 16


@dataclass
class _GpuFunction:
    signature: func.FuncOp
    program: CudaProgram
    compile_seconds: float = 0.0

    @property
    def name(self) -> str:
        return self.signature.sym_name.data

    @property
    def cuda_source(self) -> str:
        return self.program.source

    @property
    def launches(self) -> tuple[KernelLaunch, ...]:
        return self.program.launches

    @property
    def launch_description(self) -> str:
        return self.program.describe()

    def _raise_report(self, code: int, x: int, y: int) -> None:
        if code:
            raise XtirEvaluationError(self.program.error_message(code, x, y))


@dataclass
class EmulatedFunction(_GpuFunction):
    """Target "cuda-cpu": the CUDA C compiled for the host CPU (lowering/cuda_emulation.py)."""

    _module: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        from xtir.lowering.cuda_emulation import emulated_module

        self._module = emulated_module(self.program)

    def __call__(self, *arrays: Any) -> None:
        checked = host_arrays(self.signature, arrays)
        # float4 accesses need 16-byte aligned buffers; numpy only promises the element's alignment
        staged = [_aligned_copy(a) if k in self.program.aligned_params and a.ctypes.data % FLOAT4_BYTES else a
                  for k, a in enumerate(checked)]
        with self._module.calls:  # one call at a time: the error channel is the library's
            if self.program.error_sites:
                self._module.take_error()  # what a call cut short (XtirError) left there
            for launch in self.launches:
                self._module.launch(launch.kernel, launch.grid, launch.block, [staged[k].ctypes.data for k in launch.args])
            report = self._module.take_error() if self.program.error_sites else (0, 0, 0)
        for original, used in zip(checked, staged):
            if used is not original:
                original[...] = used
        self._raise_report(*report)

    def __repr__(self) -> str:
        return f"<xtir.EmulatedFunction @{self.name} (cuda-cpu, {self.compile_seconds:.2f} s to compile)>"


def _aligned_copy(array: np.ndarray) -> np.ndarray:
    raw = np.empty(array.nbytes + FLOAT4_BYTES, dtype=np.uint8)
    start = -raw.ctypes.data % FLOAT4_BYTES
    copy = raw[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    copy[...] = array
    return copy


def import_cupy() -> Any:
    """CuPy with at least one usable GPU, else an XtirError that says what is missing."""
    try:
        import cupy
    except ImportError:
        raise XtirError("target 'cuda' runs kernels through CuPy (pip install 'xtir[cuda]'), which is not installed; "
                        "target 'cuda-cpu' runs the same CUDA C on the CPU") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # CuPy raises its own CUDARuntimeError when there is no driver or device
        raise XtirError(f"target 'cuda' needs a CUDA GPU and none is usable here ({e}); "
                        "target 'cuda-cpu' runs the same CUDA C on the CPU") from None
    if count == 0:
        raise XtirError("target 'cuda' needs a CUDA GPU and there is none; target 'cuda-cpu' runs the same CUDA C on the CPU")
    return cupy


@dataclass
class CudaFunction(_GpuFunction):
    """Target "cuda": the kernels compiled by NVRTC and launched through CuPy."""

    _cupy: Any = field(default=None, repr=False)
    _kernels: dict[str, Any] = field(default_factory=dict, repr=False)
    _error: tuple[Any, Any] | None = field(default=None, repr=False)
    """The error channel's flag and operands as device arrays, when the source has one."""

    def __post_init__(self) -> None:
        self._cupy = import_cupy()
        start = time.perf_counter()
        try:
            module = self._cupy.RawModule(code=self.program.source, options=("--std=c++17",), backend="nvrtc")
            for launch in self.launches:
                self._kernels[launch.kernel] = module.get_function(launch.kernel)
            if self.program.error_sites:
                cupy = self._cupy
                self._error = (cupy.ndarray((1,), cupy.uint32, module.get_global(ERROR_FLAG)),
                               cupy.ndarray((2,), cupy.int64, module.get_global(ERROR_OPERANDS)))
        except self._cupy.cuda.compiler.CompileException as e:
            raise XtirError(f"NVRTC rejected the CUDA C of '{self.name}':\n{e}") from None
        self.nvrtc_seconds = time.perf_counter() - start

    def __call__(self, *arrays: Any) -> None:
        cupy = self._cupy
        params = self.signature.function_type.inputs.data
        if len(arrays) != len(params):
            raise XtirEvaluationError(f"function '{self.name}' takes {len(params)} arguments, got {len(arrays)}")
        host = [k for k, a in enumerate(arrays) if isinstance(a, np.ndarray)]
        for k in host:
            if not arrays[k].flags.c_contiguous or not arrays[k].flags.writeable:
                raise XtirEvaluationError(f"function '{self.name}': argument {k} must be a C-contiguous, writeable array")
            for j in host[:host.index(k)]:
                if np.may_share_memory(arrays[j], arrays[k]):
                    raise XtirEvaluationError(f"function '{self.name}': arguments {j} and {k} overlap; the buffers of a "
                                              "compiled function must be distinct")
        device = [cupy.asarray(a) if k in host else self._device_array(k, a) for k, a in enumerate(arrays)]
        self._check_device(device)
        if self._error is not None:
            self._error[0].fill(0)
        for launch in self.launches:
            self._kernels[launch.kernel](launch.grid, launch.block, tuple(device[k] for k in launch.args))
        for k in host:
            if k in self.program.written_params:
                device[k].get(out=arrays[k])
        cupy.cuda.get_current_stream().synchronize()
        if self._error is not None:
            flag, operands = self._error
            self._raise_report(int(flag.get()[0]), *(int(v) for v in operands.get()))

    def _device_array(self, k: int, value: Any) -> Any:
        cupy = self._cupy
        if isinstance(value, cupy.ndarray):
            return value
        if hasattr(value, "__cuda_array_interface__"):
            return cupy.asarray(value)  # a view of the same memory
        if hasattr(value, "__dlpack__"):
            return cupy.from_dlpack(value)
        raise XtirEvaluationError(f"function '{self.name}': argument {k} must be a numpy or device array "
                                  f"(CuPy, or with __cuda_array_interface__ / __dlpack__), got {type(value).__name__}")

    def _check_device(self, device: list[Any]) -> None:
        spans = []
        for k, (array, param) in enumerate(zip(device, self.signature.function_type.inputs.data)):
            assert isinstance(param, MemRefType)
            shape, dtype = tuple(param.get_shape()), numpy_dtype(param.element_type)
            if tuple(array.shape) != shape or array.dtype != dtype or not array.flags.c_contiguous:
                raise XtirEvaluationError(f"function '{self.name}': argument {k} must be a C-contiguous {dtype} array "
                                          f"of shape {shape}, got {array.dtype} {tuple(array.shape)}")
            if k in self.program.aligned_params and array.data.ptr % FLOAT4_BYTES:
                raise XtirEvaluationError(f"function '{self.name}': argument {k} is read or written as float4 and must "
                                          "be 16-byte aligned")
            spans.append((array.data.ptr, array.data.ptr + max(1, math.prod(shape)) * array.itemsize, k))
        spans.sort()
        for (_, end, j), (begin, _, k) in zip(spans, spans[1:]):
            if begin < end:
                raise XtirEvaluationError(f"function '{self.name}': arguments {j} and {k} overlap; the buffers of a "
                                          "compiled function must be distinct")

    def __repr__(self) -> str:
        return f"<xtir.CudaFunction @{self.name} (cuda, {self.compile_seconds:.2f} s to compile)>"

