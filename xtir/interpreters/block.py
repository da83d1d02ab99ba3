"""Interpreter implementations of the block dialect: TensorIR semantics, checked.

Buffers are numpy arrays. Beyond running the program, the evaluator checks what a
compiler would silently get wrong: every binding must land inside its block's
domain and every access inside its buffer, else the run stops naming the block.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from xtir.dialects import block
from xtir.dialects.expr import from_affine_map
from xtir.errors import XtirEvaluationError
from xtir.interpreters.compiled_expr import CompiledCache, compile_exprs


@functools.cache  # printing the type takes ~10 µs: it was most of a compiled function's call overhead
def numpy_dtype(element_type: Any) -> np.dtype:
    text = str(element_type)
    table = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_,
             "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64}
    if text not in table:
        raise XtirEvaluationError(f"the evaluator has no numpy type for element type {text}")
    return np.dtype(table[text])


def check_in_bounds(op_desc: str, array: np.ndarray, index: tuple[int, ...], sizes: tuple[int, ...] | None = None):
    sizes = sizes or (1,) * len(index)
    for d, (i, n, dim) in enumerate(zip(index, sizes, array.shape)):
        if i < 0 or i + n > dim:
            where = ", ".join(map(str, index))
            raise XtirEvaluationError(
                f"{op_desc}: access at [{where}] is out of bounds of a buffer of shape "
                f"{'x'.join(map(str, array.shape))} (dimension {d})"
            )


@register_impls
class BlockFunctions(InterpreterFunctions):
    def __init__(self, vectorize: bool = True) -> None:
        from xtir.interpreters.vectorized import NestRunner  # here: it imports numpy_dtype from this module

        self.compiled = CompiledCache()
        self.nests = NestRunner() if vectorize else None

    def _index(self, op: block.LoadOp | block.StoreOp, index_args: PythonValues) -> tuple[int, ...]:
        f = self.compiled.get(op, "map", lambda: compile_exprs(from_affine_map(op.map, op.index_vars), op.index_vars))
        return f(*index_args)

    @impl(block.ForOp)
    def run_for(self, interpreter: Interpreter, op: block.ForOp, args: PythonValues) -> PythonValues:
        """A nest of loops around a block runs as numpy array operations where that keeps the
        sequential results (xtir/interpreters/vectorized.py), else an iteration at a time."""
        if self.nests is None:
            self.run_sequentially(interpreter, op)
        else:
            self.nests.run(interpreter, op, lambda: self.run_sequentially(interpreter, op))
        return ()

    def run_sequentially(self, interpreter: Interpreter, op: block.ForOp) -> None:
        for i in range(op.extent):
            interpreter.run_ssacfg_region(op.body, (i,), op.label)

    @impl(block.BlockOp)
    def run_block(self, interpreter: Interpreter, op: block.BlockOp, args: PythonValues) -> PythonValues:
        bind = self.compiled.get(op, "bind", lambda: compile_exprs(op.bindings(), op.loop_vars))
        if op.where_map is not None:
            pred = self.compiled.get(op, "where", lambda: compile_exprs([e for e, _ in op.predicate()], op.loop_vars))
            if not all(v < b for v, b in zip(pred(*args), op.where_bounds.get_values())):  # type: ignore[union-attr]
                return ()
        values = bind(*args)
        for var, value, extent in zip(op.iter_vars, values, op.extents):
            if not 0 <= value < extent:
                raise XtirEvaluationError(
                    f'block "{op.label}": iteration variable %{var.name_hint} = {value} is outside its '
                    f"domain [0, {extent})"
                )
        interpreter.run_ssacfg_region(op.body, values, op.label)
        return ()

    @impl(block.InitOp)
    def run_init(self, interpreter: Interpreter, op: block.InitOp, args: PythonValues) -> PythonValues:
        owner = op.parent_op()
        assert isinstance(owner, block.BlockOp)
        if all(v == 0 for v in interpreter.get_values(owner.reduce_vars)):
            interpreter.run_ssacfg_region(op.body, (), "init")
        return ()

    @impl(block.AllocOp)
    def run_alloc(self, interpreter: Interpreter, op: block.AllocOp, args: PythonValues) -> PythonValues:
        assert isinstance(op.buffer.type, MemRefType)
        dtype = numpy_dtype(op.buffer.type.element_type)
        # NaN makes a read of never-written memory visible in the results
        fill = np.nan if np.issubdtype(dtype, np.floating) else 0
        return (np.full(op.buffer.type.get_shape(), fill, dtype=dtype),)

    @impl(block.LoadOp)
    def run_load(self, interpreter: Interpreter, op: block.LoadOp, args: PythonValues) -> PythonValues:
        array, *index_args = args
        index = self._index(op, index_args)
        check_in_bounds(f"block.load from {block.buffer_name(op.buffer)}", array, index)
        return (array[index],)

    @impl(block.StoreOp)
    def run_store(self, interpreter: Interpreter, op: block.StoreOp, args: PythonValues) -> PythonValues:
        value, array, *index_args = args
        index = self._index(op, index_args)
        check_in_bounds(f"block.store to {block.buffer_name(op.buffer)}", array, index)
        array[index] = value
        return ()
