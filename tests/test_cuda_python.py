"""Target "cuda" through cuda-python (NVRTC + the driver API), and the call protocol both runtimes
share (lowering/cuda_function.py: DeviceFunction).

Checked here without a GPU: NVRTC through cuda-python compiles every GPU example to a cubin for
sm_90 (and PTX), its errors are XtirErrors, the runtime is chosen as documented, no GPU is an
XtirError, the launch's parameter block points at the device pointers, `__cuda_array_interface__`
is read right, and DeviceFunction's call (staging, copies back, device arrays in place, error
channel, the stream it runs on and its waits and synchronisations) is right on a stand-in runtime
whose device is the host, whose streams are queues of work run only when waited for, and whose
launches run the cuda-cpu emulation. The launches on a real GPU run only where there is one."""

from __future__ import annotations

import ctypes
import sys
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xtir
from tests.test_cuda import THREADS, _shifted_copy, seed_gpu
from xtir.build import cuda_program
from xtir.errors import XtirError, XtirEvaluationError
from xtir.lowering import cuda_function
from xtir.lowering.cuda_emit import KernelLaunch
from xtir.lowering.cuda_emulation import emulated_module
from xtir.lowering.cuda_function import (
    LEGACY_STREAM,
    DeviceArray,
    DeviceFunction,
    StreamHandle,
    _aligned_copy,
    _checked,
    cuda_array_interface,
    dlpack_tensor,
    kernel_params,
    select_runtime,
    stream_handle,
)

ROOT = Path(__file__).resolve().parent.parent



def _why_no_nvrtc() -> str | None:
    try:
        from cuda.bindings import nvrtc

        nvrtc.nvrtcVersion()
    except Exception as e:  # noqa: BLE001 (not installed, or libnvrtc not found)
        return f"cuda-python's NVRTC is not usable here (pip install 'xtir[nvrtc]'): {e}"
    return None


def _why_no_gpu() -> str | None:
    try:
        cuda_function.gpu_function("cuda-python")
    except XtirError as e:
        return str(e)
    return None


NO_NVRTC, NO_GPU = _why_no_nvrtc(), _why_no_gpu()
needs_nvrtc = pytest.mark.skipif(NO_NVRTC is not None, reason=str(NO_NVRTC))
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"no GPU through cuda-python: {NO_GPU}")


def _gpu_examples() -> dict[str, xtir.ModuleOp]:
    examples = {name: seed_gpu.scheduled(*seed_gpu.SCHEDULES[name]) for name in seed_gpu.SCHEDULES}
    for path in sorted((ROOT / "tests" / "filecheck" / "cuda").glob("*.mlir")):
        if "gpu.launch_func" in path.read_text():
            examples[path.stem] = xtir.parse(path.read_text())
    return examples


@needs_nvrtc
@pytest.mark.parametrize("name", list(_gpu_examples()))
def test_nvrtc_compiles_the_gpu_examples_to_a_cubin(name: str) -> None:
    program = cuda_program(_gpu_examples()[name])
    cubin = cuda_function.nvrtc_compile(program.source, "sm_90")
    assert cubin.startswith(b"\x7fELF")
    for launch in program.launches:
        assert launch.kernel.encode() in cubin


@needs_nvrtc
def test_nvrtc_ptx_and_errors() -> None:
    source = cuda_program(seed_gpu.scheduled(*seed_gpu.SCHEDULES["vector_add"])).source
    ptx = cuda_function.nvrtc_compile(source, "sm_90", cubin=False)
    assert b".entry main_kernel" in ptx and b".target sm_90" in ptx
    with pytest.raises(XtirError, match=r"NVRTC rejected the CUDA C of bad\.cu:\n.*error"):
        cuda_function.nvrtc_compile("__global__ void k() { undeclared = 1; }", "sm_90", "bad.cu")


@needs_nvrtc
def test_the_error_channel_is_found_by_its_plain_name() -> None:
    """CuPy's `get_global` and cuModuleGetGlobal look the error channel up by name: C++ must not
    mangle it."""
    program = cuda_program(xtir.transform(xtir.parse(CEILDIV), THREADS))
    cubin = cuda_function.nvrtc_compile(program.source, "sm_90")
    for name in (cuda_function.ERROR_FLAG, cuda_function.ERROR_OPERANDS):
        assert b"\0" + name.encode() + b"\0" in cubin


class _CupyLoading:
    """What CupyFunction uses of CuPy to load its kernels, on GPUs of the given architectures:
    `device` is CuPy's current device; each module load is recorded as (device, binary)."""

    uint32, int64 = np.uint32, np.int64

    def __init__(self, *capabilities: str) -> None:
        self.capabilities, self.device = capabilities or ("90",), 0
        self.loaded: list[tuple[int, bytes]] = []
        self.cuda = types.SimpleNamespace(
            Device=lambda device=None: types.SimpleNamespace(
                compute_capability=self.capabilities[self.device if device is None else device]),
            runtime=types.SimpleNamespace(getDevice=lambda: self.device),
            Module=lambda: _CupyModule(self),
            UnownedMemory=lambda pointer, size, owner, device: f"{pointer} ({size} bytes on GPU {device})",
            MemoryPointer=lambda memory, offset: memory)

    def ndarray(self, shape: tuple[int, ...], dtype: type, memptr: str) -> str:
        return memptr


class _CupyModule:
    """cupy.cuda.Module: a binary loaded on the current device."""

    def __init__(self, cupy: _CupyLoading) -> None:
        self.cupy = cupy

    def load(self, image: bytes) -> None:
        self.device = self.cupy.device
        self.cupy.loaded.append((self.device, image))

    def get_function(self, name: str) -> Callable[..., None]:
        def kernel(grid: tuple[int, ...], block: tuple[int, ...], args: tuple[Any, ...]) -> None:
            assert self.cupy.device == self.device, "a kernel launched on a GPU other than its module's"
            self.cupy.launched.append((self.device, name))

        return kernel

    def get_global_var(self, name: str) -> str:
        return f"{name} on GPU {self.device}"


@needs_nvrtc
def test_the_cupy_runtime_loads_the_cubin_cuda_python_makes(monkeypatch: pytest.MonkeyPatch) -> None:
    """CuPy's own compile (RawModule(code=...)) adds -ftz=true after the caller's options: float
    denormals flushed to zero on one runtime only. Both load what `nvrtc_compile` makes."""
    cupy = _CupyLoading()
    monkeypatch.setattr(cuda_function, "import_cupy", lambda: cupy)
    emulated = xtir.build(xtir.transform(xtir.parse(CEILDIV), THREADS), target="cuda-cpu")
    f = cuda_function.CupyFunction(emulated.signature, emulated.program)
    assert cupy.loaded == [(0, cuda_function.nvrtc_compile(emulated.program.source, "sm_90", "main.cu"))]
    assert f._loaded().error == ("xtir_error on GPU 0 (4 bytes on GPU 0)",
                                 "xtir_error_operands on GPU 0 (16 bytes on GPU 0)")


@needs_nvrtc
def test_the_cupy_runtime_loads_the_kernels_again_on_another_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call on another GPU (CuPy's current device, as for a RawKernel) loads the kernels
    there, compiled for that GPU's architecture, from the binary in memory: no file to have
    gone (CuPy's RawModule(path=) reads its file again on each new device)."""
    cupy = _CupyLoading("90", "80")
    cupy.launched = []
    monkeypatch.setattr(cuda_function, "import_cupy", lambda: cupy)
    emulated = xtir.build(xtir.transform(xtir.parse(CEILDIV), THREADS), target="cuda-cpu")
    f = cuda_function.CupyFunction(emulated.signature, emulated.program)
    (launch,) = f.launches
    f.launch(launch, [], None)
    cupy.device = 1
    f.launch(launch, [], None)
    f.launch(launch, [], None)
    assert cupy.launched == [(0, "main_kernel"), (1, "main_kernel"), (1, "main_kernel")]
    source = emulated.program.source
    assert cupy.loaded == [(0, cuda_function.nvrtc_compile(source, "sm_90", "main.cu")),
                           (1, cuda_function.nvrtc_compile(source, "sm_80", "main.cu"))]
    assert f._loaded().error[0] == "xtir_error on GPU 1 (4 bytes on GPU 1)"


class _CupyFailing(_CupyLoading):
    """CuPy whose module load fails (a binary for another GPU) or whose copies run out of memory."""

    class CUDADriverError(RuntimeError):  # noqa: N818 (CuPy's names)
        pass

    class OutOfMemoryError(MemoryError):  # noqa: N818
        pass

    def __init__(self, load_fails: bool) -> None:
        super().__init__()
        self.cuda.driver = types.SimpleNamespace(CUDADriverError=self.CUDADriverError)
        self.cuda.runtime.CUDARuntimeError = self.CUDADriverError
        self.cuda.memory = types.SimpleNamespace(OutOfMemoryError=self.OutOfMemoryError)
        if load_fails:
            self.cuda.Module = lambda: types.SimpleNamespace(load=self._no_binary)

    def _no_binary(self, image: bytes) -> None:
        raise self.CUDADriverError("CUDA_ERROR_NO_BINARY_FOR_GPU: no kernel image is available")

    def asarray(self, array: np.ndarray) -> Any:
        raise self.OutOfMemoryError("Out of memory allocating 4,000,000,000 bytes")


@needs_nvrtc
def test_cupy_errors_are_xtir_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module CuPy cannot load and a copy that runs out of memory raise XtirError saying what
    failed, not CuPy's exceptions."""
    emulated = xtir.build(xtir.transform(xtir.parse(CEILDIV), THREADS), target="cuda-cpu")
    monkeypatch.setattr(cuda_function, "import_cupy", lambda: _CupyFailing(load_fails=True))
    with pytest.raises(XtirError, match=r"\(CuPy\): function 'main': loading the kernels on GPU 0 failed: "
                                        "CUDA_ERROR_NO_BINARY"):
        cuda_function.CupyFunction(emulated.signature, emulated.program)
    monkeypatch.setattr(cuda_function, "import_cupy", lambda: _CupyFailing(load_fails=False))
    f = cuda_function.CupyFunction(emulated.signature, emulated.program)
    with pytest.raises(XtirError, match=r"copying a \(4,\) float32 argument to the GPU failed: Out of memory"):
        f.upload(np.zeros(4, np.float32), None)


@needs_nvrtc
def test_cuda_bindings_results_are_read_status_first() -> None:
    """cuda.bindings returns (status, values...) and raises nothing itself: `_checked` reads
    real results, here NVRTC's (no GPU needed)."""
    from cuda.bindings import nvrtc

    major, _minor = _checked(nvrtc.nvrtcVersion(), "nvrtcVersion")
    assert major >= 12
    with pytest.raises(XtirError, match=r"nvrtcGetPTXSize failed: <nvrtcResult\.NVRTC_ERROR_INVALID_PROGRAM"):
        _checked(nvrtc.nvrtcGetPTXSize(nvrtc.nvrtcProgram()), "nvrtcGetPTXSize")


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make `import module` fail as if it were not installed."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def test_runtime_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(XtirError, match="unknown CUDA runtime 'cudnn'; runtimes: cupy, cuda-python"):
        select_runtime("cudnn")
    module = seed_gpu.scheduled(*seed_gpu.SCHEDULES["vector_add"])
    with pytest.raises(XtirError, match="runtime= chooses how target 'cuda' launches kernels; target 'cuda-cpu'"):
        xtir.build(module, target="cuda-cpu", runtime="cuda-python")
    _without(monkeypatch, "cupy")
    with pytest.raises(XtirError, match="'cupy' is not installed; target 'cuda-cpu' runs the same CUDA C"):
        select_runtime("cupy")
    if NO_NVRTC is None:
        assert select_runtime(None) == "cuda-python"  # CuPy absent: cuda-python
    _without(monkeypatch, "cuda.bindings", "cuda.bindings.driver", "cuda.bindings.nvrtc")
    with pytest.raises(XtirError, match=r"CuPy or cuda-python \(pip install 'xtir\[cuda\]'\), and neither is installed"):
        xtir.build(module, target="cuda")


@needs_nvrtc
@pytest.mark.skipif(NO_GPU is None, reason="a GPU is usable here")
def test_cuda_python_without_gpu_says_so() -> None:
    with pytest.raises(XtirError, match="target 'cuda' needs a CUDA GPU and none is usable here"):
        xtir.build(seed_gpu.scheduled(*seed_gpu.SCHEDULES["vector_add"]), target="cuda", runtime="cuda-python")


def test_kernel_params_point_at_the_device_pointers() -> None:
    pointers = [0x7F0000001000, 0x7F0000002010, 2**64 - 16]
    values, params = kernel_params(pointers)
    assert [ctypes.c_uint64.from_address(int(a)).value for a in params] == pointers
    assert params.dtype == np.uint64 and params.flags.c_contiguous


@dataclass
class _Device:
    """A numpy array posing as device memory through `__cuda_array_interface__` (v3: with the
    stream its producer queued work on, if any)."""

    array: np.ndarray
    strides: tuple[int, ...] | None = None
    stream: int | None = None

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {"shape": self.array.shape, "typestr": self.array.dtype.str, "data": (self.array.ctypes.data, False),
                "strides": self.strides, "version": 3, "stream": self.stream}


def test_cuda_array_interface() -> None:
    a = np.zeros((4, 8), np.float32)
    assert cuda_array_interface(_Device(a)) == (a.ctypes.data, (4, 8), np.dtype(np.float32), True, None)
    assert cuda_array_interface(_Device(a, (32, 4)))[3]  # dense strides spelled out
    assert not cuda_array_interface(_Device(a, (4, 16)))[3]  # a transposed view
    assert cuda_array_interface(_Device(a, stream=7))[4] == 7
    with pytest.raises(XtirEvaluationError, match="stream 0, which version 3 disallows as ambiguous"):
        cuda_array_interface(_Device(a, stream=0))
    assert cuda_array_interface(a) is None


def test_dlpack_capsules_are_read_right() -> None:
    """Read on numpy's (CPU) capsules: the same DLTensor a GPU array exports."""
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    assert dlpack_tensor(a.__dlpack__()) == (a.ctypes.data, (4, 6), np.dtype(np.float32), True, 1)
    view = a[1:, 2:]
    pointer, shape, dtype, contiguous, _ = dlpack_tensor(view.__dlpack__())
    assert (pointer, shape, contiguous) == (view.ctypes.data, (3, 4), False)
    assert not dlpack_tensor(a.T.__dlpack__())[3]
    assert dlpack_tensor(a[2:].__dlpack__())[:4] == (a[2:].ctypes.data, (2, 6), np.dtype(np.float32), True)
    for dtype in (np.int8, np.uint16, np.int64, np.float16, np.float64, np.bool_):
        assert dlpack_tensor(np.zeros(3, dtype).__dlpack__())[2] == np.dtype(dtype)


class _Streams:
    """Streams of a stand-in device: queues of host work that runs only when the stream is
    synchronised or another stream waits for it. What a call leaves unordered stays undone."""

    def __init__(self) -> None:
        self.queues: dict[int, list[Callable[[], None]]] = {}
        self.log: list[str] = []

    def enqueue(self, stream: int, what: str, work: Callable[[], None]) -> None:
        self.queues.setdefault(stream, []).append(work)
        self.log.append(f"{what} on {stream}")

    def synchronize(self, stream: int) -> None:
        self.log.append(f"synchronize {stream}")
        self._run(stream, len(self.queues.get(stream, [])))

    def wait(self, producer: int, consumer: int) -> None:
        """An event recorded on `producer` and waited for on `consumer`."""
        recorded = list(self.queues.get(producer, []))
        self.enqueue(consumer, f"wait for {producer}", lambda: self._run_items(producer, recorded))

    def _run(self, stream: int, count: int) -> None:
        queue = self.queues.get(stream, [])
        for _ in range(count):
            queue.pop(0)()

    def _run_items(self, stream: int, items: list[Callable[[], None]]) -> None:
        queue = self.queues.get(stream, [])
        for item in items:
            if item in queue:
                queue.remove(item)
                item()


@dataclass
class _HostDevice(DeviceFunction):
    """DeviceFunction on a stand-in runtime: device memory is host memory (numpy copies for the
    uploads), work is queued on `_Streams`, a launch runs the cuda-cpu emulation. It counts the
    copies."""

    copies: list[str] = field(default_factory=list)
    streams: _Streams = field(default_factory=_Streams)

    def __post_init__(self) -> None:
        self._emulated = emulated_module(self.program)

    def upload(self, array: np.ndarray, stream: int) -> DeviceArray:
        self.copies.append("in")
        staging, copy = array.copy(), np.empty_like(array)  # read now, as from pageable memory
        self.streams.enqueue(stream, "upload", lambda: copy.__setitem__(..., staging))
        return DeviceArray(copy.ctypes.data, copy.shape, copy.dtype, True, owner=copy)

    def launch(self, launch: KernelLaunch, args: list[DeviceArray], stream: int) -> None:
        pointers = [a.pointer for a in args]
        self.streams.enqueue(stream, launch.kernel,
                             lambda: self._emulated.launch(launch.kernel, launch.grid, launch.block, pointers))

    def download(self, array: DeviceArray, into: np.ndarray, stream: int) -> None:
        self.copies.append("out")
        self.streams.enqueue(stream, "download", lambda: into.__setitem__(..., array.owner))

    def wait(self, producer: int, consumer: int) -> None:
        self.streams.wait(producer, consumer)

    def synchronize(self, stream: int) -> None:
        self.streams.synchronize(stream)

    def clear_error(self, stream: int) -> None:
        if self.program.error_sites:
            self.streams.enqueue(stream, "clear error", self._emulated.take_error)

    def read_error(self) -> tuple[int, int, int]:
        return self._emulated.take_error() if self.program.error_sites else (0, 0, 0)


def _host_device(module: xtir.ModuleOp) -> _HostDevice:
    emulated = xtir.build(module, target="cuda-cpu")
    return _HostDevice(emulated.signature, emulated.program)


def test_numpy_arguments_are_staged_and_written_ones_copied_back() -> None:
    f = _host_device(seed_gpu.scheduled(*seed_gpu.SCHEDULES["vector_add"]))
    a, b, c = (np.random.default_rng(k).standard_normal(1024).astype(np.float32) for k in range(3))
    before = b.copy()
    f(a, b, c)
    np.testing.assert_array_equal(c, a + b)
    np.testing.assert_array_equal(b, before)
    assert f.copies == ["in", "in", "in", "out"]  # only C, the buffer the kernel writes, comes back


def test_device_arrays_are_used_in_place() -> None:
    f = _host_device(seed_gpu.scheduled(*seed_gpu.SCHEDULES["vector_add"]))
    a, b, c = (np.full(1024, k, np.float32) for k in (1, 2, 0))
    f(_Device(a), b, _Device(c))  # device and numpy arrays mixed
    np.testing.assert_array_equal(c, 3)  # a numpy argument: the call waited for its stream
    assert f.copies == ["in"]


def test_a_misaligned_device_array_is_refused_where_the_kernels_use_float4() -> None:
    """A view such as `a[1:]` of a CuPy or torch array starts 4 bytes past a 16-byte boundary,
    where a float4 access is a misaligned address on the GPU: refused before any work."""
    f = _host_device(_shifted_copy(0))
    assert f.program.aligned_params == {0, 1}
    buffer = _aligned_copy(np.arange(1032, dtype=np.float32))
    b = np.zeros(1024, np.float32)
    with pytest.raises(XtirEvaluationError, match="argument 0 is read or written as float4 and must be 16-byte aligned"):
        f(_Device(buffer[1:1029]), b)
    assert f.copies == [] and f.streams.log == []
    f(_Device(buffer[4:1032]), b)  # 16 bytes in: aligned
    np.testing.assert_array_equal(b, buffer[4:1028])


def test_a_failure_on_the_gpu_names_the_kernels() -> None:
    """An illegal address or a trap in a kernel surfaces at the next synchronisation: say which
    kernels ran."""
    f = _vector_add()

    def failed(stream: int) -> None:
        raise XtirError("target 'cuda' (cuda-python): cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS")

    f.synchronize = failed  # type: ignore[method-assign]
    with pytest.raises(XtirError, match="function 'main' failed on the GPU, in kernel\\(s\\) main_kernel or the copies "
                                        "around them, or in earlier work queued on the stream without waiting: "
                                        ".*CUDA_ERROR_ILLEGAL_ADDRESS"):
        f(*_operands())


def test_device_arrays_are_checked() -> None:
    f = _host_device(seed_gpu.scheduled(*seed_gpu.SCHEDULES["vector_add"]))
    a, c = np.zeros(1024, np.float32), np.zeros(1024, np.float32)
    with pytest.raises(XtirEvaluationError, match="argument 1 must be a C-contiguous float32 array of shape \\(1024,\\), "
                                                  "got float64 \\(1024,\\)"):
        f(a, _Device(np.zeros(1024)), c)
    with pytest.raises(XtirEvaluationError, match="arguments 0 and 2 overlap"):
        f(_Device(a), np.zeros(1024, np.float32), _Device(a))
    with pytest.raises(XtirEvaluationError, match="argument 1 must be a numpy or device array"):
        f(a, [0.0] * 1024, c)
    assert f.copies == []  # refused before any copy


def _binary(op: str, ty: str) -> str:
    """C[i] = op(A[i], B[i]) on 64 elements of type `ty`."""
    return f"""func.func @main(%A: memref<64x{ty}>, %B: memref<64x{ty}>, %C: memref<64x{ty}>) {{
  block.for %i = 0 to 64 "i" {{
    block.block "C"(%vi = spatial(64, %i)) {{
      %a = block.load %A[%vi] : memref<64x{ty}>
      %b = block.load %B[%vi] : memref<64x{ty}>
      %c = {op} %a, %b : {ty}
      block.store %c, %C[%vi] : memref<64x{ty}>
    }}
  }}
  func.return
}}"""


CEILDIV = _binary("arith.ceildivui", "i32")


def _check_error_channel(f: DeviceFunction) -> None:
    """`f` of CEILDIV reports a division by zero, and a call after it does not (it clears it)."""
    a, b, c = np.full(64, 7, np.int32), np.full(64, 2, np.int32), np.zeros(64, np.int32)
    f(a, b, c)
    np.testing.assert_array_equal(c, 4)
    b[5] = 0
    with pytest.raises(XtirEvaluationError, match="'arith.ceildivui' on 7, 0: division by zero"):
        f(a, b, c)
    b[5] = 2
    f(a, b, c)


def test_error_channel_through_the_device_call() -> None:
    _check_error_channel(_host_device(xtir.transform(xtir.parse(CEILDIV), THREADS)))


def test_concurrent_calls_each_raise_their_own_errors() -> None:
    """The error channel is the module's: a call that starts while another is between clearing
    and reading it cleared the other's report, which then returned normally after dividing by
    zero. Calls of a function with an error channel run one at a time."""
    module = xtir.transform(xtir.parse(CEILDIV), THREADS)
    f = _host_device(module)
    a, c = np.full(64, 7, np.int32), np.zeros(64, np.int32)
    good, bad = np.full(64, 2, np.int32), np.full(64, 2, np.int32)
    bad[5] = 0
    outcome: list[str] = []

    def clean_call() -> None:
        f(a, good, np.zeros(64, np.int32))
        outcome.append("clean call done")

    launch = f.launch

    def launch_then_let_another_call_in(*args: Any) -> None:
        launch(*args)
        if not outcome:
            other = threading.Thread(target=clean_call)
            other.start()
            other.join(timeout=0.5)  # it must wait for this call to finish
            outcome.append("launched")

    f.launch = launch_then_let_another_call_in  # type: ignore[method-assign]
    with pytest.raises(XtirEvaluationError, match="division by zero"):
        f(a, bad, c)
    deadline = time.monotonic() + 10
    while len(outcome) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert outcome == ["launched", "clean call done"]


def _vector_add() -> _HostDevice:
    return _host_device(seed_gpu.scheduled(*seed_gpu.SCHEDULES["vector_add"]))


def _operands(a: float = 1, b: float = 2) -> list[np.ndarray]:
    return [np.full(1024, a, np.float32), np.full(1024, b, np.float32), np.zeros(1024, np.float32)]


def test_the_launches_wait_for_the_stream_that_produced_an_argument() -> None:
    """CUDA array interface v3: the consumer orders its work after the `stream` an array names."""
    f = _vector_add()
    a, b, c = _operands(a=0)
    f.streams.enqueue(7, "producer", lambda: a.fill(1))  # queued by A's producer, not yet run
    f(_Device(a, stream=7), _Device(b, stream=LEGACY_STREAM), _Device(c))
    f.streams.synchronize(LEGACY_STREAM)
    np.testing.assert_array_equal(c, 3)
    assert f.streams.log == ["producer on 7", "wait for 7 on 1", "main_kernel on 1", "synchronize 1"]


def test_numpy_results_are_there_when_the_call_returns() -> None:
    f = _vector_add()
    a, b, c = _operands()
    f(a, b, c, stream=5)
    np.testing.assert_array_equal(c, 3)
    assert f.streams.log == [*["upload on 5"] * 3, "main_kernel on 5", "download on 5", "synchronize 5"]


def test_a_call_on_device_arrays_alone_does_not_wait() -> None:
    """Like a CuPy or torch operation: queued on the stream, seen by what is queued after it."""
    f = _vector_add()
    a, b, c = _operands()
    f(_Device(a), _Device(b), _Device(c), stream=5)
    np.testing.assert_array_equal(c, 0)
    f.streams.synchronize(5)
    np.testing.assert_array_equal(c, 3)


def test_stream_objects_and_handles() -> None:
    assert stream_handle(5) == 5
    assert stream_handle(0) == LEGACY_STREAM  # the driver API's 0 is the legacy default stream
    assert stream_handle(types.SimpleNamespace(cuda_stream=9)) == 9  # torch.cuda.Stream
    assert stream_handle(types.SimpleNamespace(ptr=11)) == 11  # cupy.cuda.Stream

    class CoreStream:  # cuda.core's protocol
        def __cuda_stream__(self) -> tuple[int, int]:
            return (0, 13)

    assert stream_handle(CoreStream()) == 13
    for junk in ("s", True, types.SimpleNamespace(ptr=None)):
        with pytest.raises(XtirError, match="stream= takes a CUDA stream handle"):
            stream_handle(junk)


def test_cupy_streams_are_read_as_the_stand_ins_are() -> None:
    """CuPy makes these stream objects without a GPU: its null stream is the legacy default
    stream, and the stream the CuPy runtime makes of a handle (`Stream.from_external`) has it."""
    cupy = pytest.importorskip("cupy")
    assert stream_handle(cupy.cuda.Stream.null) == LEGACY_STREAM
    external = cupy.cuda.Stream.from_external(StreamHandle(0x7F0012345600))
    assert external.ptr == 0x7F0012345600 and stream_handle(external) == 0x7F0012345600
    assert stream_handle(StreamHandle(LEGACY_STREAM)) == LEGACY_STREAM


class _CupyArray(_Device):
    """What `current_stream` takes for a CuPy array."""


class _TorchTensor(_Device):
    """torch (2.13) gives version 2 of the interface: no `stream`, nothing to wait for."""

    is_cuda = True
    device = "cuda:0"

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        interface = {**super().__cuda_array_interface__, "version": 2}
        del interface["stream"]
        return interface


_CupyArray.__module__, _TorchTensor.__module__ = "cupy", "torch"


def _framework(monkeypatch: pytest.MonkeyPatch, name: str, **cuda: Any) -> None:
    monkeypatch.setitem(sys.modules, name, types.SimpleNamespace(cuda=types.SimpleNamespace(**cuda)))


def test_the_default_stream_is_the_current_stream_of_the_first_device_argument(monkeypatch: pytest.MonkeyPatch) -> None:
    _framework(monkeypatch, "cupy", get_current_stream=lambda: types.SimpleNamespace(ptr=21))
    _framework(monkeypatch, "torch", current_stream=lambda device: types.SimpleNamespace(cuda_stream=23))
    f = _vector_add()
    a, b, c = _operands()
    f(a, _CupyArray(b), _TorchTensor(c))
    assert "main_kernel on 21" in f.streams.log
    f.streams.log.clear()
    f(_TorchTensor(a), _CupyArray(b), c)
    assert "main_kernel on 23" in f.streams.log
    f.streams.log.clear()
    f(_Device(a), b, c)  # no framework's array: the legacy default stream
    assert "main_kernel on 1" in f.streams.log
    np.testing.assert_array_equal(c, 3)


@dataclass
class _DLPackOnTheGpu:
    """A device array seen through DLPack alone, on a CUDA device; it records the consumer
    stream each export was asked for."""

    array: np.ndarray
    streams: list[int | None] = field(default_factory=list)

    def __dlpack__(self, *, stream: int | None = None) -> Any:  # keyword-only, as torch's and CuPy's
        self.streams.append(stream)
        return self.array.__dlpack__()

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)


def test_dlpack_producers_are_given_the_consumer_stream() -> None:
    f = _vector_add()
    a, b, c = _operands()
    exported = _DLPackOnTheGpu(a)
    f(exported, b, c, stream=5)
    f(exported, b, c)
    assert exported.streams == [5, LEGACY_STREAM]  # never None or 0: DLPack's 1 is the legacy stream
    np.testing.assert_array_equal(c, 3)


@needs_gpu
@pytest.mark.parametrize("name", list(seed_gpu.SCHEDULES))
def test_seed_002_runs_on_the_gpu_through_cuda_python(name: str) -> None:
    example, pipeline = seed_gpu.SCHEDULES[name]
    n = 128 if name.startswith("gemm") else 1024
    f = xtir.build(seed_gpu.scheduled(example, pipeline, n), target="cuda", runtime="cuda-python")
    arrays, expected = seed_gpu.inputs(name, n, np.random.default_rng(0))
    f(*arrays)
    assert np.max(np.abs(arrays[-1] - expected)) < 1e-3
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here: device arrays not tried")
    device = [torch.from_numpy(a).cuda() for a in seed_gpu.inputs(name, n, np.random.default_rng(0))[0]]
    f(*device)  # through __cuda_array_interface__, in place
    assert float((device[-1].cpu() - torch.from_numpy(expected)).abs().max()) < 1e-3
    device[-1].fill_(float("nan"))
    f(*(_OnlyDLPack(t) for t in device))
    assert float((device[-1].cpu() - torch.from_numpy(expected)).abs().max()) < 1e-3


@dataclass
class _OnlyDLPack:
    """A device array seen through DLPack alone (as a JAX array is)."""

    tensor: Any

    def __dlpack__(self, stream: int | None = None) -> Any:
        return self.tensor.__dlpack__(stream=stream)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.tensor.__dlpack_device__()


@dataclass
class _OnStream:
    """A device array (CuPy) whose `__cuda_array_interface__` names the stream its producer used."""

    array: Any
    stream: int

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {**self.array.__cuda_array_interface__, "stream": self.stream}


@needs_gpu
@pytest.mark.parametrize("runtime", ["cuda-python", "cupy"])
def test_streams_on_the_gpu(runtime: str) -> None:
    """A producer's slow work on one non-blocking stream, the call on another: the kernel waits
    for it (an event); the call runs on the stream named, or torch's current one."""
    cupy = pytest.importorskip("cupy")
    f = xtir.build(seed_gpu.scheduled(*seed_gpu.SCHEDULES["vector_add"]), target="cuda", runtime=runtime)
    producer, consumer = cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
    a, b, c = (cupy.full(1024, k, cupy.float32) for k in (0, 2, 0))
    big = cupy.ones((4096, 4096), cupy.float32)
    cupy.cuda.Device().synchronize()
    with producer:
        for _ in range(8):
            big = big @ big / 4096  # some milliseconds of work before A is written
        a.fill(1)
    f(_OnStream(a, producer.ptr), b, c, stream=consumer)
    consumer.synchronize()
    assert float(c.min()) == float(c.max()) == 3
    torch = pytest.importorskip("torch")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        x, y, z = (torch.full((1024,), k, device="cuda") for k in (1.0, 4.0, 0.0))
        f(x, y, z)  # on torch's current stream, ordered after the fills
    side.synchronize()
    assert float(z.min()) == float(z.max()) == 5



def _built_on_the_gpu(text: str, runtime: str) -> DeviceFunction:
    """`text`'s loop on threads, built for target "cuda" through `runtime` (skipped where absent)."""
    if runtime == "cupy":
        pytest.importorskip("cupy")
    return xtir.build(xtir.transform(xtir.parse(text), THREADS), target="cuda", runtime=runtime)


@needs_gpu
@pytest.mark.parametrize("runtime", ["cuda-python", "cupy"])
def test_the_error_channel_on_the_gpu(runtime: str) -> None:
    """The flag and operands are found in the loaded module, cleared by each call and read back."""
    _check_error_channel(_built_on_the_gpu(CEILDIV, runtime))


@needs_gpu
def test_a_misaligned_view_is_refused_on_the_gpu() -> None:
    cupy = pytest.importorskip("cupy")
    f = xtir.build(_shifted_copy(0), target="cuda")
    buffer, b = cupy.arange(1032, dtype=cupy.float32), cupy.zeros(1024, cupy.float32)
    with pytest.raises(XtirEvaluationError, match="argument 0 is read or written as float4 and must be 16-byte aligned"):
        f(buffer[1:1029], b)
    f(buffer[4:1032], b)
    assert float(cupy.max(cupy.abs(b - buffer[4:1028]))) == 0


@needs_gpu
def test_xtir_run_on_the_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    from xtir.run import main

    assert main([str(ROOT / "examples" / "gpu_matmul.mlir"), "-p", seed_gpu.GEMM_LOCAL, "--target", "cuda", "--check",
                 "--bench", "--repeat", "2"]) == 0
    out = capsys.readouterr().out
    assert "ok max_abs_err=" in out and "GFLOP/s" in out


@needs_gpu
def test_tuning_on_the_gpu() -> None:
    pytest.importorskip("cupy")
    from tests.test_tune_gpu import gemm

    best = xtir.tune(gemm(64), target="cuda", trials=2, seed=0, progress=False, cost_model="none")
    f = xtir.build(best.mod, target="cuda")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 64, 64), dtype=np.float32)
    c = np.zeros((64, 64), np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@needs_gpu
@pytest.mark.parametrize("runtime", ["cuda-python", "cupy"])
def test_denormals_on_the_gpu_as_numpy_has_them(runtime: str) -> None:
    """No flush to zero (CuPy's own compile would): 1e-20 * 1e-20 is 1e-40, a float denormal."""
    f = _built_on_the_gpu(_binary("arith.mulf", "f32"), runtime)
    a, b = np.full(64, 1e-20, np.float32), np.geomspace(1e-20, 1e-18, 64).astype(np.float32)
    c = np.zeros(64, np.float32)
    f(a, b, c)
    np.testing.assert_array_equal(c, a * b)
    assert np.all(c != 0)
