"""`xtir.model`: a graph-level module compiled end to end and called like a function.

    graph = xtir.transform(graph, "fuse-ewise-fma,fuse-ops")   # graph rewrites (optional)
    model = xtir.model.compile_model(graph)                    # legalize-tensor, default-schedule, build
    y = model(x)                                               # numpy arrays in, numpy arrays out

`compile_model` legalizes the graph (passes/legalize_tensor.py), schedules each block
function (`schedule="default"`: default-schedule, or default-gpu-schedule for a GPU target;
`None`: none; or a function taking and returning the legalized module, for a schedule of your
own) and builds the entry.

With `target="cuda"` or `"cuda-cpu"` each block function is built for the GPU on its own
(`xtir.build`, whose cache builds a function called twice alike once) and the model is a
GpuModel: a call runs the host function's steps in Python, its intermediates allocated per
call on the device (CuPy arrays, target "cuda") or the host (numpy, "cuda-cpu", where
`racecheck=True` checks every kernel's shared and global accesses). `model.schedule_report`
says what default-gpu-schedule gave each block (tiled and its tiles, or one thread per output
and why: a kernel whose tiled schedule does not lower falls back alone, with a warning). A "cuda" model takes
numpy arrays (copied to the device and the results back) or CuPy arrays (the results stay
on the device); without a usable GPU and CuPy it raises an XtirError before any work. A
"cuda-cpu" model takes numpy arrays.

The constants legalize-tensor hoisted to parameters are kept by the model (read-only) and
passed on each call; outputs are allocated per call. `model.module` is the block-level module
that was built, `model.constants` the hoisted arrays by parameter name.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import SSAValue

import xtir
from xtir.build import GPU_TARGETS, TARGETS, entry_function
from xtir.dialects.block import AllocOp
from xtir.errors import ScheduleError, XtirError, XtirEvaluationError
from xtir.interpreters.block import numpy_dtype
from xtir.lowering.cuda_function import import_cupy
from xtir.lowering.runtime_errors import Checked
from xtir.passes.default_gpu_schedule import KernelChoice, schedule_report, scratch_as_parameters

Schedule = str | Callable[[ModuleOp], ModuleOp] | None


@dataclass
class CompiledModel:
    """A compiled graph function: `model(*inputs)` returns its results as numpy arrays.

    The model checks its inputs itself (shapes, dtypes, C order) and calls the machine code
    directly: the constants are its own arrays and the outputs fresh ones, so the checks
    `xtir.build`'s functions make on every argument (tens of µs, as long as a batch-1 MLP
    runs) are not needed. `run` takes the output buffers too and checks them as well.
    """

    module: ModuleOp
    compiled: Any
    constants: dict[str, np.ndarray]
    inputs: list[tuple[tuple[int, ...], np.dtype]]
    outputs: list[tuple[tuple[int, ...], np.dtype]]
    _entry: Any = field(init=False, repr=False)
    _constant_addresses: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n = len(self.inputs) + len(self.constants) + len(self.outputs)
        self._entry = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * n))(self.compiled.jit.address(self.compiled.name))
        for array in self.constants.values():
            array.flags.writeable = False  # the model's own: passed on every call
        self._constant_addresses = [_address(a) for a in self.constants.values()]

    def __call__(self, *inputs: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
        if len(inputs) != len(self.inputs):
            raise XtirEvaluationError(f"the model takes {len(self.inputs)} inputs, got {len(inputs)}")
        results = [np.empty(shape, dtype) for shape, dtype in self.outputs]
        self._call(*self._checked(inputs, self.inputs, "input"), *self._constant_addresses, *map(_address, results))
        return results[0] if len(results) == 1 else tuple(results)

    def run(self, *arrays: np.ndarray) -> None:
        """Call with the inputs and the output buffers (written in place): nothing is allocated."""
        n = len(self.inputs)
        if len(arrays) != n + len(self.outputs):
            raise XtirEvaluationError(f"the model takes {n} inputs and {len(self.outputs)} outputs, got {len(arrays)} arrays")
        ins = self._checked(arrays[:n], self.inputs, "input")
        outs = self._checked(arrays[n:], self.outputs, "output")
        for k, out in enumerate(arrays[n:]):
            if not out.flags.writeable or any(np.may_share_memory(out, a) for a in (*arrays[:n + k], *self.constants.values())):
                raise XtirEvaluationError(f"output {k} must be a writeable array of its own (it overlaps another argument)")
        self._call(*ins, *self._constant_addresses, *outs)

    def _call(self, *addresses: int) -> None:
        """The entry point called; what its code reported (a division by zero, ...) raised: the
        numbers it left are not the model's (a zero divisor was made 1)."""
        if isinstance(self.compiled, Checked):
            self.compiled.checking(lambda: self._entry(*addresses))
        else:
            self._entry(*addresses)

    @staticmethod
    def _checked(arrays: Sequence[Any], specs: list[tuple[tuple[int, ...], np.dtype]], what: str) -> list[int]:
        for k, (array, (shape, dtype)) in enumerate(zip(arrays, specs)):
            if not isinstance(array, np.ndarray) or array.shape != shape or array.dtype != dtype:
                got = f"{array.dtype} {array.shape}" if isinstance(array, np.ndarray) else type(array).__name__
                raise XtirEvaluationError(f"{what} {k} must be a {dtype} array of shape {shape}, got {got}")
            if not array.flags.c_contiguous or not array.flags.aligned:
                raise XtirEvaluationError(f"{what} {k} must be C-contiguous and aligned (use numpy.ascontiguousarray)")
        return [_address(a) for a in arrays]


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def _signature(graph: ModuleOp, entry: str) -> tuple[list[Any], list[Any]]:
    f = entry_function(graph, entry)
    assert isinstance(f, func.FuncOp)

    def spec(t: Any) -> tuple[tuple[int, ...], np.dtype]:
        if not isinstance(t, TensorType):
            raise XtirError(f"compile_model: @{entry} takes and returns tensors, not {t}")
        return tuple(t.get_shape()), numpy_dtype(t.element_type)

    return [spec(t) for t in f.function_type.inputs.data], [spec(t) for t in f.function_type.outputs.data]


def compile_model(graph: ModuleOp, entry: str = "main", schedule: Schedule = "default", target: str = "llvm",
                  racecheck: bool | None = None) -> CompiledModel | GpuModel:
    """Legalize, schedule and build the graph function `entry` of `graph` for `target` (see the
    module docstring)."""
    from xtir.passes.legalize_tensor import hoisted_constants

    if target not in TARGETS:
        raise XtirError(f"compile_model: unknown target '{target}'; targets: {', '.join(TARGETS)}")
    if target == "cuda":
        import_cupy()  # no GPU: say so before any work
    inputs, outputs = _signature(graph, entry)
    constants = hoisted_constants(graph).get(entry, {})
    module = xtir.transform(graph, "legalize-tensor")
    report: list[KernelChoice] = []
    if schedule == "default" and target in GPU_TARGETS:
        report = _default_gpu_schedule(module)
    elif schedule == "default":
        module = xtir.transform(module, "default-schedule")
    elif callable(schedule):
        module = schedule(module)
    elif schedule is not None:
        raise XtirError(f"compile_model: schedule is 'default', None or a function of the module, got {schedule!r}")
    if target in GPU_TARGETS:
        return GpuModel(module, target, constants, inputs, outputs, _steps(module, entry, target, racecheck), report)
    if racecheck:
        raise XtirError("compile_model: racecheck=True is for target 'cuda-cpu'")
    return CompiledModel(module, xtir.build(module, entry=entry), constants, inputs, outputs)


def _default_gpu_schedule(module: ModuleOp) -> list[KernelChoice]:
    """default-gpu-schedule applied to `module` in place, refusals named as the pass names them;
    what each block got."""
    try:
        return schedule_report(module)
    except ScheduleError as e:
        raise e.in_pass("default-gpu-schedule") from None


_Buffer = tuple[tuple[int, ...], np.dtype]
"""A buffer a GPU model allocates per call: its shape and dtype."""


@dataclass(frozen=True)
class _Step:
    """One call of the host function: a block function built for the GPU, on the buffers
    numbered as `_steps` numbers them."""

    kernel: Any
    buffers: tuple[int, ...]


def _steps(module: ModuleOp, entry: str, target: str, racecheck: bool | None) -> list[_Step | _Buffer]:
    """The host function `entry` as the model runs it: a buffer allocated (its shape, dtype: the
    arguments are buffers 0..n-1, each alloc the next) or a block function called."""
    host = entry_function(module, entry)
    numbers: dict[SSAValue, int] = {arg: k for k, arg in enumerate(host.body.block.args)}
    steps: list[_Step | _Buffer] = []
    for op in host.body.block.ops:
        if isinstance(op, AllocOp):
            numbers[op.buffer] = len(numbers)
            steps.append((tuple(op.buffer.type.get_shape()), numpy_dtype(op.buffer.type.element_type)))
        elif isinstance(op, func.CallOp):
            name = op.callee.root_reference.data
            distinct = list(dict.fromkeys(op.arguments))
            merged = tuple(distinct.index(v) for v in op.arguments)
            callee, scratch = scratch_as_parameters(_merged_parameters(entry_function(module, name), merged))
            for buffer in scratch:  # per call: each call gets its own
                numbers[buffer] = len(numbers)
                steps.append((tuple(buffer.type.get_shape()), numpy_dtype(buffer.type.element_type)))
            # a function called twice alike is built once: xtir.build caches by the module's text
            built = xtir.build(ModuleOp([callee]), target, name, racecheck=racecheck)
            steps.append(_Step(built, tuple(numbers[v] for v in (*distinct, *scratch))))
        elif not isinstance(op, func.ReturnOp):
            raise XtirError(f"compile_model: target '{target}' runs a host function of buffers and calls; "
                            f"@{entry} has a '{op.name}'")
    return steps


def _merged_parameters(f: func.FuncOp, merged: tuple[int, ...]) -> func.FuncOp:
    """A copy of `f` with one parameter for the parameters a call passes the same buffer
    (`merged[k]`: parameter k's among the call's distinct arguments): a kernel refuses
    overlapping arguments, and the call means one buffer read (or written) through both."""
    f = f.clone()
    args = list(f.body.block.args)
    for k in reversed(range(len(merged))):
        first = merged.index(merged[k])
        if first != k:
            args[k].replace_all_uses_with(args[first])
            f.body.block.erase_arg(args[k])
    f.function_type = FunctionType.from_lists([a.type for a in f.body.block.args], [])
    return f


@dataclass
class GpuModel:
    """A graph function built for target "cuda" or "cuda-cpu": `model(*inputs)` runs its block
    functions' kernels in order (see the module docstring)."""

    module: ModuleOp
    target: str
    constants: dict[str, np.ndarray]
    inputs: list[tuple[tuple[int, ...], np.dtype]]
    outputs: list[tuple[tuple[int, ...], np.dtype]]
    steps: list[_Step | _Buffer]
    schedule_report: list[KernelChoice] = field(default_factory=list)
    """What default-gpu-schedule gave each block (tiled, with its tiles; one thread per output,
    and why; elementwise); empty for a schedule of the caller's."""
    _device_constants: list[Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # the kernels' copy: a "cuda-cpu" kernel, like xtir.build's CPU functions, takes writeable buffers only
        self._device_constants = [self._array(a) if self.target == "cuda" else a.copy() for a in self.constants.values()]
        for array in self.constants.values():
            array.flags.writeable = False  # the model's own: passed on every call

    @property
    def kernels(self) -> list[Any]:
        """The built block functions, in call order (their `cuda_source`, `launches`)."""
        return [s.kernel for s in self.steps if isinstance(s, _Step)]

    def __call__(self, *inputs: Any) -> Any:
        if len(inputs) != len(self.inputs):
            raise XtirEvaluationError(f"the model takes {len(self.inputs)} inputs, got {len(inputs)}")
        on_host = all(isinstance(a, np.ndarray) for a in inputs)
        for k, (array, (shape, dtype)) in enumerate(zip(inputs, self.inputs)):
            if self.target != "cuda" and not isinstance(array, np.ndarray):
                raise XtirEvaluationError(f"input {k}: target '{self.target}' runs on the host and takes numpy arrays, "
                                          f"got {type(array).__module__}.{type(array).__name__}")
            if tuple(getattr(array, "shape", ())) != shape or getattr(array, "dtype", None) != dtype:
                raise XtirEvaluationError(f"input {k} must be a {dtype} array of shape {shape}, got "
                                          f"{type(array).__name__} {getattr(array, 'dtype', '')} {getattr(array, 'shape', '')}")
        outputs = [self._empty(shape, dtype) for shape, dtype in self.outputs]
        # a 0-d tensor's buffer is one element (legalize-tensor's block_shape): a view of shape (1,)
        buffers = [a.reshape(1) if a.ndim == 0 else a
                   for a in (*self._distinct(list(map(self._array, inputs))), *self._device_constants, *outputs)]
        for step in self.steps:
            if isinstance(step, _Step):
                step.kernel(*(buffers[k] for k in step.buffers))
            else:
                buffers.append(self._empty(*step))
        if self.target == "cuda" and on_host:
            outputs = [a.get() for a in outputs]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _distinct(self, arrays: list[Any]) -> list[Any]:
        """`arrays` with a copy of each that shares memory with an earlier one (`model(a, a)`):
        a kernel refuses overlapping arguments, and the inputs are only read."""
        xp = import_cupy() if self.target == "cuda" else np
        return [xp.array(a) if any(xp.may_share_memory(a, b) for b in arrays[:k]) else a for k, a in enumerate(arrays)]

    def _array(self, array: Any) -> Any:
        """`array` where the kernels run: a CuPy array on target "cuda"."""
        return import_cupy().asarray(array) if self.target == "cuda" else np.ascontiguousarray(array)

    def _empty(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        return import_cupy().empty(shape, dtype) if self.target == "cuda" else np.empty(shape, dtype)
