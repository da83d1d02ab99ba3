"""`xtir.model`: a graph-level module compiled end to end and called like a function.

    graph = xtir.transform(graph, "fuse-ewise-fma,fuse-ops")   # graph rewrites (optional)
    model = xtir.model.compile_model(graph)                    # legalize-tensor, default-schedule, build
    y = model(x)                                               # numpy arrays in, numpy arrays out

`compile_model` legalizes the graph (passes/legalize_tensor.py), schedules each block
function (`schedule="default"`: default-schedule; `None`: none; or a function taking and
returning the legalized module, for a schedule of your own) and builds the entry. The
constants legalize-tensor hoisted to parameters are kept by the model and passed on each
call; outputs are allocated per call. `model.module` is the block-level module that was
built, `model.constants` the hoisted arrays by parameter name.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

import xtir
from xtir.build import entry_function
from xtir.errors import XtirError, XtirEvaluationError
from xtir.interpreters.block import numpy_dtype

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
        self._entry(*self._checked(inputs, self.inputs, "input"), *self._constant_addresses, *map(_address, results))
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
        self._entry(*ins, *self._constant_addresses, *outs)

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


def compile_model(graph: ModuleOp, entry: str = "main", schedule: Schedule = "default") -> CompiledModel:
    """Legalize, schedule and build the graph function `entry` of `graph` (see the module docstring)."""
    from xtir.passes.legalize_tensor import hoisted_constants

    inputs, outputs = _signature(graph, entry)
    constants = hoisted_constants(graph).get(entry, {})
    module = xtir.transform(graph, "legalize-tensor")
    if schedule == "default":
        module = xtir.transform(module, "default-schedule")
    elif callable(schedule):
        module = schedule(module)
    elif schedule is not None:
        raise XtirError(f"compile_model: schedule is 'default', None or a function of the module, got {schedule!r}")
    return CompiledModel(module, xtir.build(module, entry=entry), constants, inputs, outputs)
