"""The callables `xtir.build` returns for targets "cuda" and "cuda-cpu".

Both run the kernels of one CudaProgram in launch order and expose `cuda_source`,
`launches` (grid, block, argument order of each launch) and `launch_description`.
An integer division or shift the kernels must not do they skip and report on the error
channel of the source (lowering/cuda_emit.py: a device flag and the operands of the first
report); a call clears it, runs, and raises that report as an XtirEvaluationError, as the
llvm target does.
- "cuda-cpu" (`EmulatedFunction`) takes numpy arrays and runs the emulation of
  lowering/cuda_emulation.py on them in place.
- "cuda" compiles with cuda-python's NVRTC to a cubin for the device's architecture and
  launches through one of two runtimes (the optional extra `xtir[cuda]` installs both): CuPy
  (`CupyFunction`: cupy.cuda.Module) or cuda-python's driver API (`CudaPythonFunction`:
  cuModuleLoadData, cuLaunchKernel). Both take numpy arrays (copied to the device, and the buffers the kernels
  write copied back) or device arrays used in place without copies: CuPy arrays, anything
  with `__cuda_array_interface__` (torch, Numba) or `__dlpack__` (JAX).
  Without the runtime or without a GPU they raise XtirError saying so.

Streams (target "cuda"): a call runs everything on one consumer stream, `f(*arrays, stream=s)`
(a handle, or a CuPy / torch / cuda.core stream), by default the current stream of the first
device argument's framework (torch's `current_stream()`, CuPy's `get_current_stream()`), else
the legacy default stream. Device arrays follow the protocols' consumer rules: a
`__cuda_array_interface__` (v3) that names its producer's stream makes the consumer stream wait
for that stream's pending work (an event, not a host wait), and `__dlpack__(stream=consumer)`
asks the producer to order its work before the consumer stream. A call with numpy arguments (or
an error channel to read) returns when the stream is done; a call on device arrays alone
returns once its kernels are queued, like a CuPy or torch operation: work queued on the same
stream after it, or a synchronisation of it, sees the results.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType

from xtir.dialects.layout import row_major_strides
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


RUNTIMES = ("cupy", "cuda-python")
_ALTERNATIVE = "target 'cuda-cpu' runs the same CUDA C on the CPU"


def _importable(runtime: str) -> bool:
    try:
        if runtime == "cupy":
            import cupy  # noqa: F401
        else:
            from cuda.bindings import driver, nvrtc  # noqa: F401
    except ImportError:
        return False
    return True


def select_runtime(runtime: str | None) -> str:
    """The runtime that runs target "cuda": the one named, else CuPy, else cuda-python."""
    if runtime is not None and runtime not in RUNTIMES:
        raise XtirError(f"unknown CUDA runtime '{runtime}'; runtimes: {', '.join(RUNTIMES)}")
    for candidate in (runtime,) if runtime else RUNTIMES:
        if _importable(candidate):
            return candidate
    missing = f"'{runtime}' is not installed" if runtime else "neither is installed"
    raise XtirError(f"target 'cuda' launches kernels through CuPy or cuda-python (pip install 'xtir[cuda]'), and "
                    f"{missing}; {_ALTERNATIVE}")


def gpu_function(runtime: str | None) -> type[DeviceFunction]:
    """The callable class of target "cuda" for `runtime`, once a GPU is known to be usable."""
    if select_runtime(runtime) == "cupy":
        import_cupy()
        return CupyFunction
    cuda_python_context()
    return CudaPythonFunction


def import_cupy() -> Any:
    """CuPy with at least one usable GPU, else an XtirError that says what is missing."""
    try:
        import cupy
    except ImportError:
        raise XtirError(f"target 'cuda' runs kernels through CuPy (pip install 'xtir[cuda]'), which is not installed; "
                        f"{_ALTERNATIVE}") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # CuPy raises its own CUDARuntimeError when there is no driver or device
        raise XtirError(f"target 'cuda' needs a CUDA GPU and none is usable here ({e}); {_ALTERNATIVE}") from None
    if count == 0:
        raise XtirError(f"target 'cuda' needs a CUDA GPU and there is none; {_ALTERNATIVE}")
    return cupy


@dataclass(frozen=True)
class DeviceArray:
    """An argument as the kernels get it: device memory at `pointer`."""

    pointer: int
    shape: tuple[int, ...]
    dtype: np.dtype
    contiguous: bool
    owner: Any
    """What holds the memory: the caller's array, or the runtime's copy of a numpy array."""
    stream: int | None = None
    """The stream its producer's work is queued on, when the consumer must wait for it
    (`__cuda_array_interface__` v3's `stream`)."""


LEGACY_STREAM = 1
"""The legacy default stream: CU_STREAM_LEGACY / cudaStreamLegacy, and its spelling in the CUDA
array interface and DLPack. Handle 0 means it too (for code not built for per-thread default
streams), and is normalised to this."""


def stream_handle(stream: Any) -> int:
    """The CUstream handle of `stream=`: an int, or a stream object of cuda.core
    (`__cuda_stream__`), torch (`cuda_stream`) or CuPy (`ptr`)."""
    if isinstance(stream, int) and not isinstance(stream, bool):
        handle = stream
    elif hasattr(stream, "__cuda_stream__"):
        protocol = stream.__cuda_stream__
        handle = (protocol() if callable(protocol) else protocol)[1]
    elif isinstance(getattr(stream, "cuda_stream", None), int):
        handle = stream.cuda_stream
    elif isinstance(getattr(stream, "ptr", None), int):
        handle = stream.ptr
    else:
        raise XtirError(f"stream= takes a CUDA stream handle (int) or a CuPy, torch or cuda.core stream, "
                        f"got {type(stream).__name__}")
    return int(handle) or LEGACY_STREAM


@dataclass(frozen=True)
class StreamHandle:
    """A stream handle as the CUDA stream protocol (cuda.core's, CuPy's `Stream.from_external`)
    presents one."""

    handle: int

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)


def current_stream(arrays: tuple[Any, ...]) -> int:
    """The stream a call runs on when it names none: the current stream of the framework of its
    first device argument (torch or CuPy), else the legacy default stream."""
    for array in arrays:
        framework = type(array).__module__.partition(".")[0]
        if framework == "torch" and getattr(array, "is_cuda", False):
            return stream_handle(sys.modules["torch"].cuda.current_stream(array.device))
        if framework == "cupy":
            return stream_handle(sys.modules["cupy"].cuda.get_current_stream())
    return LEGACY_STREAM


@dataclass
class DeviceFunction(_GpuFunction):
    """Target "cuda": a call checks its arguments, stages numpy arrays on the device, runs the
    launches on the consumer stream (module docstring: Streams), copies written buffers back and
    raises the error channel's report. A runtime supplies the steps (`on_stream`, `upload`,
    `launch`, `download`, `wait`, `synchronize`, `release`, the error channel)."""

    nvrtc_seconds: float = 0.0
    _one_call: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __call__(self, *arrays: Any, stream: Any = None) -> None:
        params = self.signature.function_type.inputs.data
        if len(arrays) != len(params):
            raise XtirEvaluationError(f"function '{self.name}' takes {len(params)} arguments, got {len(arrays)}")
        consumer = current_stream(arrays) if stream is None else stream_handle(stream)
        host = [k for k, a in enumerate(arrays) if isinstance(a, np.ndarray)]
        for k in host:
            self._check_host(k, arrays[k])
        device = [None if k in host else self.view(k, a, consumer) for k, a in enumerate(arrays)]
        self._check_device([d for d in device if d is not None], [k for k in range(len(arrays)) if k not in host])
        for j, k in enumerate(host):
            for i in host[:j]:
                if np.may_share_memory(arrays[i], arrays[k]):
                    raise XtirEvaluationError(f"function '{self.name}': arguments {i} and {k} overlap; the buffers of a "
                                              "compiled function must be distinct")
        producers = {d.stream for d in device if d is not None and d.stream not in (None, consumer)}
        # the error channel is the module's: concurrent calls would clear and read each other's reports
        with self._one_call if self.program.error_sites else contextlib.nullcontext(), \
                self.on_stream(consumer) as on:
            report = self._run(arrays, host, device, sorted(producers), on)
        self._raise_report(*report)

    def _run(self, arrays: tuple[Any, ...], host: list[int], device: list[DeviceArray | None], producers: list[int],
             consumer: Any) -> tuple[int, int, int]:
        """Queue the call's work on `consumer` (what `on_stream` gave), and wait for it where the
        host reads a result (a numpy argument or the error channel); a call on device arrays
        alone does not wait."""
        for producer in producers:
            self.wait(producer, consumer)
        staged: list[DeviceArray] = []
        try:
            for k in host:
                device[k] = self.upload(arrays[k], consumer)
                staged.append(device[k])
            self.clear_error(consumer)
            for launch in self.launches:
                self.launch(launch, [device[k] for k in launch.args], consumer)
            for k in host:
                if k in self.program.written_params:
                    self.download(device[k], arrays[k], consumer)
        finally:
            if host or self.program.error_sites:
                self._synchronize(consumer)  # also before the staged buffers are freed
            self.release(staged)
        return self.read_error()

    def _synchronize(self, stream: Any) -> None:
        """`synchronize`, whose errors are those of the kernels it waited for (an illegal
        address, a trap): say which ran."""
        try:
            self.synchronize(stream)
        except XtirError as e:
            kernels = ", ".join(dict.fromkeys(launch.kernel for launch in self.launches))
            raise XtirError(f"function '{self.name}' failed on the GPU, in kernel(s) {kernels} or the copies around "
                            f"them, or in earlier work queued on the stream without waiting: {e}") from None

    def _check_host(self, k: int, array: np.ndarray) -> None:
        if not array.flags.c_contiguous or not array.flags.writeable:
            raise XtirEvaluationError(f"function '{self.name}': argument {k} must be a C-contiguous, writeable array")
        self._check_type(k, array.shape, array.dtype)

    def _check_type(self, k: int, shape: tuple[int, ...], dtype: np.dtype) -> None:
        param = self.signature.function_type.inputs.data[k]
        assert isinstance(param, MemRefType)
        expected, expected_dtype = tuple(param.get_shape()), numpy_dtype(param.element_type)
        if tuple(shape) != expected or dtype != expected_dtype:
            raise XtirEvaluationError(f"function '{self.name}': argument {k} must be a C-contiguous {expected_dtype} "
                                      f"array of shape {expected}, got {dtype} {tuple(shape)}")

    def _check_device(self, arrays: list[DeviceArray], positions: list[int]) -> None:
        spans = []
        for k, array in zip(positions, arrays):
            self._check_type(k, array.shape, array.dtype)
            if not array.contiguous:
                raise XtirEvaluationError(f"function '{self.name}': argument {k} must be a C-contiguous device array")
            if k in self.program.aligned_params and array.pointer % FLOAT4_BYTES:
                raise XtirEvaluationError(f"function '{self.name}': argument {k} is read or written as float4 and must "
                                          "be 16-byte aligned")
            spans.append((array.pointer, array.pointer + max(1, math.prod(array.shape)) * array.dtype.itemsize, k))
        spans.sort()
        for (_, end, j), (begin, _, k) in zip(spans, spans[1:]):
            if begin < end:
                raise XtirEvaluationError(f"function '{self.name}': arguments {j} and {k} overlap; the buffers of a "
                                          "compiled function must be distinct")

    def _not_a_device_array(self, k: int, value: Any) -> XtirEvaluationError:
        return XtirEvaluationError(f"function '{self.name}': argument {k} must be a numpy or device array (CuPy, or "
                                   f"with __cuda_array_interface__ / __dlpack__), got {type(value).__name__}")

    def view(self, k: int, value: Any, stream: int) -> DeviceArray:
        """`value` as the kernels see it, without a copy: through `__cuda_array_interface__`,
        else DLPack, whose producer is asked to order its work before `stream`."""
        described = cuda_array_interface(value)
        if described is not None:
            pointer, shape, dtype, contiguous, producer = described
            return DeviceArray(pointer, shape, dtype, contiguous, owner=value, stream=producer)
        if not hasattr(value, "__dlpack__"):
            raise self._not_a_device_array(k, value)
        device_type, _ = value.__dlpack_device__()
        if device_type not in DLPACK_CUDA:
            raise XtirEvaluationError(f"function '{self.name}': argument {k} is a DLPack array of device type "
                                      f"{device_type}, not on a CUDA GPU (pass numpy arrays to have them copied)")
        capsule = value.__dlpack__(stream=stream)
        pointer, shape, dtype, contiguous, _ = dlpack_tensor(capsule)
        return DeviceArray(pointer, shape, dtype, contiguous, owner=(value, capsule))

    # ---- what a runtime supplies ------------------------------------------------------------
    # `stream` below is what `on_stream` gave for the call's consumer stream, once a call;
    # `producer` a stream handle (int).
    def on_stream(self, stream: int) -> contextlib.AbstractContextManager[Any]:
        """The context a call's device work runs in; it gives the runtime's form of `stream`."""
        return contextlib.nullcontext(stream)

    def upload(self, array: np.ndarray, stream: Any) -> DeviceArray:
        raise NotImplementedError

    def launch(self, launch: KernelLaunch, args: list[DeviceArray], stream: Any) -> None:
        raise NotImplementedError

    def download(self, array: DeviceArray, into: np.ndarray, stream: Any) -> None:
        raise NotImplementedError

    def wait(self, producer: int, consumer: Any) -> None:
        """Order the work queued on `consumer` from now on after the work queued on `producer`."""
        raise NotImplementedError

    def synchronize(self, stream: Any) -> None:
        """Wait for the work queued on `stream`; XtirError when that work failed."""
        raise NotImplementedError

    def release(self, staged: list[DeviceArray]) -> None:
        """Free the device copies of numpy arguments (their work is done)."""

    def clear_error(self, stream: Any) -> None:
        """Zero the error channel's flag (sources with error sites)."""

    def read_error(self) -> tuple[int, int, int]:
        return (0, 0, 0)

    def __repr__(self) -> str:
        return f"<xtir.{type(self).__name__} @{self.name} (cuda, {self.compile_seconds:.2f} s to compile)>"


@dataclass(frozen=True)
class _CupyKernels:
    """The kernels of a CupyFunction loaded on one GPU."""

    module: Any
    """The loaded module (cupy.cuda.Module): it unloads the kernels when collected."""
    kernels: dict[str, Any]
    error: tuple[Any, Any] | None
    """The error channel's flag and operands as device arrays, when the source has one."""


@dataclass
class CupyFunction(DeviceFunction):
    """Target "cuda" through CuPy: the cubin cuda-python's NVRTC makes (`nvrtc_compile`, as the
    other runtime) loaded from memory by cupy.cuda.Module, numpy arguments staged as CuPy arrays,
    device arguments read as cuda-python's are (CuPy arrays through their array interface). Not
    CuPy's own compile: it adds -ftz=true, which flushes float denormals to zero where numpy, the
    llvm target and cuda-python keep them. A call runs on CuPy's current device, as a RawKernel
    does: the kernels are loaded on each GPU at its first call (on the build's GPU when built)."""

    _cupy: Any = field(default=None, repr=False)
    _images: dict[str, bytes] = field(default_factory=dict, repr=False)
    """The cubin for each architecture (`sm_90`) of the GPUs the kernels were loaded on."""
    _devices: dict[int, _CupyKernels] = field(default_factory=dict, repr=False)
    _loading: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self._cupy = import_cupy()
        self._loaded()

    def _loaded(self) -> _CupyKernels:
        """The kernels on CuPy's current device, loaded there on first use."""
        device = self._cupy.cuda.runtime.getDevice()
        with self._loading:
            if device not in self._devices:
                self._devices[device] = self._load(device)
        return self._devices[device]

    def _load(self, device: int) -> _CupyKernels:
        # from memory: CuPy's RawModule(path=) reads its file again on each further device
        cupy = self._cupy
        image = self._image(f"sm_{cupy.cuda.Device(device).compute_capability}")
        with self._errors(f"loading the kernels on GPU {device}"):
            module = cupy.cuda.Module()
            module.load(image)
            kernels = {launch.kernel: module.get_function(launch.kernel) for launch in self.launches}
            error = None
            if self.program.error_sites:
                error = (self._global(module, device, ERROR_FLAG, 1, cupy.uint32),
                         self._global(module, device, ERROR_OPERANDS, 2, cupy.int64))
        return _CupyKernels(module, kernels, error)

    def _image(self, arch: str) -> bytes:
        if arch not in self._images:
            start = time.perf_counter()
            self._images[arch] = nvrtc_compile(self.program.source, arch, f"{self.name}.cu")
            self.nvrtc_seconds += time.perf_counter() - start
        return self._images[arch]

    def _global(self, module: Any, device: int, name: str, size: int, dtype: Any) -> Any:
        """The module's global array `name` as a CuPy array (which keeps the module alive)."""
        cuda = self._cupy.cuda
        memory = cuda.UnownedMemory(module.get_global_var(name), size * np.dtype(dtype).itemsize, module, device)
        return self._cupy.ndarray((size,), dtype, cuda.MemoryPointer(memory, 0))

    @contextlib.contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        """CuPy's CUDA errors (a binary for another GPU, out of memory, a fault) as an XtirError."""
        cuda = self._cupy.cuda
        named = (("driver", "CUDADriverError"), ("runtime", "CUDARuntimeError"), ("memory", "OutOfMemoryError"))
        errors = tuple(e for module, name in named if (e := getattr(getattr(cuda, module, None), name, None)))
        try:
            yield
        except errors as e:
            raise XtirError(f"target 'cuda' (CuPy): function '{self.name}': {doing} failed: {e}") from None

    @contextlib.contextmanager
    def on_stream(self, stream: int) -> Iterator[Any]:
        """The call's stream as a CuPy stream, made CuPy's current stream: where its copies, fills
        and kernels go."""
        external = self._cupy.cuda.Stream.from_external(StreamHandle(stream))
        with external:
            yield external

    def upload(self, array: np.ndarray, stream: Any) -> DeviceArray:
        with self._errors(f"copying a {array.shape} {array.dtype} argument to the GPU"):
            copy = self._cupy.asarray(array)
        return DeviceArray(copy.data.ptr, copy.shape, copy.dtype, True, owner=copy)

    def launch(self, launch: KernelLaunch, args: list[DeviceArray], stream: Any) -> None:
        # a numpy scalar is passed by value: the 8 bytes of the pointer
        with self._errors(f"launching {launch.kernel} (grid {launch.grid}, block {launch.block})"):
            self._loaded().kernels[launch.kernel](launch.grid, launch.block, tuple(np.uint64(a.pointer) for a in args))

    def download(self, array: DeviceArray, into: np.ndarray, stream: Any) -> None:
        with self._errors("copying a result from the GPU"):
            array.owner.get(out=into, stream=stream)

    def wait(self, producer: int, consumer: Any) -> None:
        event = self._cupy.cuda.Event(disable_timing=True)
        self._cupy.cuda.runtime.eventRecord(event.ptr, producer)
        consumer.wait_event(event)

    def synchronize(self, stream: Any) -> None:
        with self._errors("waiting for the GPU"):
            stream.synchronize()

    def clear_error(self, stream: Any) -> None:
        error = self._loaded().error
        if error is not None:
            error[0].fill(0)

    def read_error(self) -> tuple[int, int, int]:
        error = self._loaded().error
        if error is None:
            return (0, 0, 0)
        flag, operands = error
        x, y = (int(v) for v in operands.get())
        return (int(flag.get()[0]), x, y)


# ---- cuda-python: NVRTC and the driver API ------------------------------------------------------

def _checked(result: Any, call: str) -> Any:
    """The values of a cuda.bindings call, whose first result is its status."""
    status, *values = result if isinstance(result, tuple) else (result,)
    if int(status) != 0:
        raise XtirError(f"target 'cuda' (cuda-python): {call} failed: {status!r}")
    return values[0] if len(values) == 1 else tuple(values)


@functools.cache
def _header_directories() -> tuple[str, ...]:
    """The CUDA headers' folder, for sources that include one (cuda_fp16.h); NVRTC has no default."""
    try:
        from cuda.pathfinder import find_nvidia_header_directory

        found = find_nvidia_header_directory("cudart")
    except Exception:  # noqa: BLE001 (no CUDA headers here: a source that needs them fails with NVRTC's message)
        return ()
    return (found,) if found else ()


def nvrtc_compile(source: str, arch: str, name: str = "kernel.cu", cubin: bool = True) -> bytes:
    """`source` compiled by NVRTC (through cuda-python) for `arch` (`sm_90`): a cubin, or PTX.
    A cubin runs on drivers older than the NVRTC of the same major version; PTX would need a
    driver as new as the NVRTC."""
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        raise XtirError("target 'cuda' compiles with cuda-python's NVRTC, which is not installed (pip install "
                        f"'xtir[cuda]'); {_ALTERNATIVE}") from None
    program = _checked(nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []), "nvrtcCreateProgram")
    try:
        options = [b"--std=c++17", f"--gpu-architecture={arch}".encode(),
                   *(f"--include-path={d}".encode() for d in _header_directories())]
        (status,) = nvrtc.nvrtcCompileProgram(program, len(options), options)
        if int(status) != 0:
            size = _checked(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
            log = b" " * size
            _checked(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
            raise XtirError(f"NVRTC rejected the CUDA C of {name}:\n{log.decode(errors='replace').rstrip(chr(0))}")
        get_size, get = (nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN) if cubin else (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX)
        image = b" " * _checked(get_size(program), get_size.__name__)
        _checked(get(program, image), get.__name__)
        return image
    finally:
        nvrtc.nvrtcDestroyProgram(program)


@functools.cache
def cuda_python_context() -> tuple[Any, str]:
    """The primary context of GPU 0 (the one CuPy and torch use, so their arrays are valid in it),
    made current on this thread, and the GPU's architecture (`sm_90`); XtirError when no GPU is
    usable. Once a process: a call makes the context current on its own thread."""
    from cuda.bindings import driver

    try:
        _checked(driver.cuInit(0), "cuInit")
        device = _checked(driver.cuDeviceGet(0), "cuDeviceGet")
    except Exception as e:  # no driver library (cuda.pathfinder's error), no device, a driver too old
        raise XtirError(f"target 'cuda' needs a CUDA GPU and none is usable here ({e}); {_ALTERNATIVE}") from None
    context = _checked(driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    _checked(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    capability = [_checked(driver.cuDeviceGetAttribute(attribute, device), "cuDeviceGetAttribute") for attribute in
                  (driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                   driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)]
    return context, f"sm_{capability[0]}{capability[1]}"


def kernel_params(pointers: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """cuLaunchKernel's `kernelParams` for kernels whose parameters are all pointers: `values`
    holds the device pointers, `params[k]` the address of `values[k]`. Both must stay alive until
    the launch returns; pass `params.ctypes.data`."""
    values = np.array(pointers, dtype=np.uint64)
    params = values.ctypes.data + values.itemsize * np.arange(len(pointers), dtype=np.uint64)
    return values, params


def cuda_array_interface(value: Any) -> tuple[int, tuple[int, ...], np.dtype, bool, int | None] | None:
    """Pointer, shape, dtype, C-contiguity and producer stream (None: nothing to wait for) of an
    object with `__cuda_array_interface__`, else None."""
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None:
        return None
    shape, dtype = tuple(interface["shape"]), np.dtype(interface["typestr"])
    strides = interface.get("strides")
    dense = tuple(dtype.itemsize * s for s in row_major_strides(shape))
    contiguous = strides is None or all(n <= 1 or s == d for n, s, d in zip(shape, strides, dense))
    stream = interface.get("stream")
    if stream == 0:
        raise XtirEvaluationError("a __cuda_array_interface__ gives stream 0, which version 3 disallows as ambiguous "
                                  f"({LEGACY_STREAM} is the legacy default stream, None nothing to wait for)")
    return int(interface["data"][0]), shape, dtype, contiguous, None if stream is None else int(stream)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    """DLPack's DLTensor, the first member of the DLManagedTensor a "dltensor" capsule holds."""

    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


DLPACK_CUDA = (2, 13)  # kDLCUDA, kDLCUDAManaged
_DLPACK_KINDS = {0: "i", 1: "u", 2: "f"}
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def dlpack_tensor(capsule: Any) -> tuple[int, tuple[int, ...], np.dtype, bool, int]:
    """Pointer, shape, dtype, C-contiguity and DLPack device type of a "dltensor" capsule. The
    capsule is only read, not consumed: it frees the tensor when it is collected, so it must
    outlive the use of the pointer."""
    tensor = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    shape = tuple(tensor.shape[k] for k in range(tensor.ndim))
    code, bits = tensor.dtype.code, tensor.dtype.bits
    if tensor.dtype.lanes != 1 or (code not in _DLPACK_KINDS and (code, bits) != (6, 8)):
        raise XtirError(f"DLPack type code {code} of {bits} bits x {tensor.dtype.lanes} has no numpy dtype here")
    dtype = np.dtype(np.bool_) if code == 6 else np.dtype(f"{_DLPACK_KINDS[code]}{bits // 8}")
    contiguous = True
    if tensor.strides:  # strides in elements; none means C-contiguous
        dense = row_major_strides(shape)
        contiguous = all(n <= 1 or tensor.strides[k] == dense[k] for k, n in enumerate(shape))
    pointer = (tensor.data or 0) + tensor.byte_offset
    return pointer, shape, dtype, contiguous, tensor.device.device_type


@dataclass
class CudaPythonFunction(DeviceFunction):
    """Target "cuda" through cuda-python: NVRTC to a cubin, the driver API to load it and to
    launch it on the call's stream."""

    _context: Any = field(default=None, repr=False)
    _module: Any = field(default=None, repr=False)
    _kernels: dict[str, Any] = field(default_factory=dict, repr=False)
    _error: tuple[int, int] | None = field(default=None, repr=False)
    """Device addresses of the error channel's flag and operands, when the source has one."""

    def __post_init__(self) -> None:
        from cuda.bindings import driver

        self._context, arch = cuda_python_context()
        start = time.perf_counter()
        image = nvrtc_compile(self.program.source, arch, f"{self.name}.cu")
        self.nvrtc_seconds = time.perf_counter() - start
        self._module = _checked(driver.cuModuleLoadData(image), "cuModuleLoadData")
        for launch in self.launches:
            self._kernels[launch.kernel] = _checked(driver.cuModuleGetFunction(self._module, launch.kernel.encode()),
                                                    "cuModuleGetFunction")
        if self.program.error_sites:
            flag, operands = (_checked(driver.cuModuleGetGlobal(self._module, name.encode()), "cuModuleGetGlobal")[0]
                              for name in (ERROR_FLAG, ERROR_OPERANDS))
            self._error = (int(flag), int(operands))

    @contextlib.contextmanager
    def on_stream(self, stream: int) -> Iterator[int]:
        from cuda.bindings import driver

        _checked(driver.cuCtxSetCurrent(self._context), "cuCtxSetCurrent")  # current per thread
        yield stream

    def upload(self, array: np.ndarray, stream: int) -> DeviceArray:
        from cuda.bindings import driver

        pointer = int(_checked(driver.cuMemAlloc(max(1, array.nbytes)), "cuMemAlloc"))
        staged = DeviceArray(pointer, array.shape, array.dtype, True, owner=None)
        if array.nbytes:  # from pageable memory: the host buffer is read before this returns
            _checked(driver.cuMemcpyHtoDAsync(pointer, array.ctypes.data, array.nbytes, stream), "cuMemcpyHtoDAsync")
        return staged

    def launch(self, launch: KernelLaunch, args: list[DeviceArray], stream: int) -> None:
        from cuda.bindings import driver

        _values, params = kernel_params([a.pointer for a in args])  # both alive until the launch returns
        _checked(driver.cuLaunchKernel(self._kernels[launch.kernel], *launch.grid, *launch.block, 0, stream,
                                       params.ctypes.data, 0),
                 f"cuLaunchKernel({launch.kernel}, grid {launch.grid}, block {launch.block})")

    def download(self, array: DeviceArray, into: np.ndarray, stream: int) -> None:
        from cuda.bindings import driver

        if into.nbytes:
            _checked(driver.cuMemcpyDtoHAsync(into.ctypes.data, array.pointer, into.nbytes, stream), "cuMemcpyDtoHAsync")

    def wait(self, producer: int, consumer: int) -> None:
        from cuda.bindings import driver

        event = _checked(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate")
        try:
            _checked(driver.cuEventRecord(event, producer), "cuEventRecord")
            _checked(driver.cuStreamWaitEvent(consumer, event, 0), "cuStreamWaitEvent")
        finally:
            driver.cuEventDestroy(event)  # freed once the wait is done with it

    def synchronize(self, stream: int) -> None:
        from cuda.bindings import driver

        _checked(driver.cuStreamSynchronize(stream), "cuStreamSynchronize")

    def release(self, staged: list[DeviceArray]) -> None:
        from cuda.bindings import driver

        for array in staged:
            _checked(driver.cuMemFree(array.pointer), "cuMemFree")

    def clear_error(self, stream: int) -> None:
        from cuda.bindings import driver

        if self._error is not None:
            _checked(driver.cuMemsetD32Async(self._error[0], 0, 1, stream), "cuMemsetD32Async")

    def read_error(self) -> tuple[int, int, int]:
        from cuda.bindings import driver

        if self._error is None:
            return (0, 0, 0)
        flag, operands = np.zeros(1, np.uint32), np.zeros(2, np.int64)
        _checked(driver.cuMemcpyDtoH(flag.ctypes.data, self._error[0], flag.nbytes), "cuMemcpyDtoH")
        _checked(driver.cuMemcpyDtoH(operands.ctypes.data, self._error[1], operands.nbytes), "cuMemcpyDtoH")
        return (int(flag[0]), int(operands[0]), int(operands[1]))
