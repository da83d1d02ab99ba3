"""Interpreter implementations of the memref ops lowered IR uses, on numpy arrays.

xDSL's own memref functions work on its ShapedArray and have no alloca; the evaluator
passes numpy arrays, so lowered IR (lower-blocks) is run with these instead. Accesses
are bounds-checked like block.load / block.store.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from xtir.dialects.block import buffer_name
from xtir.interpreters.block import check_in_bounds, numpy_dtype


def _allocate(buffer_type: object) -> np.ndarray:
    assert isinstance(buffer_type, MemRefType)
    dtype = numpy_dtype(buffer_type.element_type)
    # NaN makes a read of never-written memory visible in the results (as block.alloc)
    fill = np.nan if np.issubdtype(dtype, np.floating) else 0
    return np.full(buffer_type.get_shape(), fill, dtype=dtype)


@register_impls
class MemRefNumpyFunctions(InterpreterFunctions):
    @impl(memref.AllocaOp)
    def run_alloca(self, interpreter: Interpreter, op: memref.AllocaOp, args: PythonValues) -> PythonValues:
        return (_allocate(op.memref.type),)

    @impl(memref.AllocOp)
    def run_alloc(self, interpreter: Interpreter, op: memref.AllocOp, args: PythonValues) -> PythonValues:
        return (_allocate(op.memref.type),)

    @impl(memref.DeallocOp)
    def run_dealloc(self, interpreter: Interpreter, op: memref.DeallocOp, args: PythonValues) -> PythonValues:
        return ()

    @impl(memref.LoadOp)
    def run_load(self, interpreter: Interpreter, op: memref.LoadOp, args: PythonValues) -> PythonValues:
        array, *indices = args
        index = tuple(indices)
        check_in_bounds(f"memref.load from {buffer_name(op.memref)}", array, index)
        return (array[index],)

    @impl(memref.StoreOp)
    def run_store(self, interpreter: Interpreter, op: memref.StoreOp, args: PythonValues) -> PythonValues:
        value, array, *indices = args
        index = tuple(indices)
        check_in_bounds(f"memref.store to {buffer_name(op.memref)}", array, index)
        array[index] = value
        return ()
