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

from collections.abc import Callable
from dataclasses import dataclass
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
    """A compiled graph function: `model(*inputs)` returns its results as numpy arrays."""

    module: ModuleOp
    compiled: Any
    constants: dict[str, np.ndarray]
    inputs: list[tuple[tuple[int, ...], np.dtype]]
    outputs: list[tuple[tuple[int, ...], np.dtype]]

    def __call__(self, *inputs: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
        results = [np.empty(shape, dtype) for shape, dtype in self.outputs]
        self.run(*inputs, *results)
        return results[0] if len(results) == 1 else tuple(results)

    def run(self, *arrays: np.ndarray) -> None:
        """Call with the inputs and the output buffers (written in place), no allocation."""
        if len(arrays) != len(self.inputs) + len(self.outputs):
            raise XtirEvaluationError(f"the model takes {len(self.inputs)} inputs and {len(self.outputs)} outputs, "
                                      f"got {len(arrays)} arrays")
        self.compiled(*arrays[: len(self.inputs)], *self.constants.values(), *arrays[len(self.inputs):])


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
