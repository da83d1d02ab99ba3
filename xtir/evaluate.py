"""The reference evaluator: run block-level (or graph-level) IR on numpy arrays.

It interprets the IR with xDSL's interpreter and our implementations of the block,
accel and tensor dialects; no code generation is involved, so it is the oracle for
numerical tests of every pass. Lowered IR (scf / memref / arith) runs too. Loop nests
around a block run as numpy array operations (xtir/interpreters/vectorized.py); what
cannot (lowered IR, blocks with ops that have no vector form) runs an op at a time, and a
run estimated to take long warns, pointing to xtir.build.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType
from xdsl.interpreter import Interpreter
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.utils.exceptions import InterpretationError

from xtir.errors import XtirError, XtirEvaluationError, expect_module
from xtir.interpreters.accel import AccelFunctions
from xtir.interpreters.block import BlockFunctions, numpy_dtype
from xtir.interpreters.integer import IntegerFunctions
from xtir.interpreters.mathops import MathFunctions
from xtir.interpreters.memref import MemRefNumpyFunctions
from xtir.interpreters.scalar import ScalarFunctions
from xtir.interpreters.tensor import TensorGraphFunctions


def find_func(module: ModuleOp, name: str) -> func.FuncOp:
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    for f in funcs:
        if f.sym_name.data == name:
            return f
    available = ", ".join(f.sym_name.data for f in funcs) or "none"
    raise XtirEvaluationError(f"no function named '{name}' in the module (functions: {available})")


def _row_major(t: MemRefType) -> bool:
    """Whether `t`'s layout addresses its elements as a C-contiguous array does (a dimension
    of size 1 may have any stride; an empty buffer any layout)."""
    shape, strides = t.get_shape(), t.get_strides()
    if math.prod(shape) == 0:
        return True
    if strides is None or t.get_offset() != 0:
        return False
    return all(d == 1 or s == math.prod(shape[k + 1 :]) for k, (d, s) in enumerate(zip(shape, strides)))


def check_parameters(f: func.FuncOp, error: type[XtirError] = XtirError) -> None:
    """A buffer parameter is a numpy array in row-major order: a layout of its own (`strided<[2]>`,
    an offset) is refused (the evaluator would ignore it and compiled code honour it, reaching
    past the array), and so is an element type numpy has no dtype for."""
    for k, param in enumerate(f.function_type.inputs.data):
        if not isinstance(param, MemRefType):
            continue
        where = f"function '{f.sym_name.data}': parameter {k} has type {param}"
        if not _row_major(param):
            raise error(f"{where}; buffer parameters must have the row-major layout (no strides or offset of "
                        "their own), the layout of a C-contiguous numpy array")
        try:
            numpy_dtype(param.element_type)
        except XtirEvaluationError:
            raise error(f"{where}; numpy has no dtype for {param.element_type}, so no array can be passed for it") from None


def check_arguments(f: func.FuncOp, arrays: tuple[Any, ...]) -> list[np.ndarray]:
    """Each argument must be a numpy array of exactly the parameter's shape and dtype."""
    params = f.function_type.inputs.data
    name = f.sym_name.data
    if len(arrays) != len(params):
        raise XtirEvaluationError(f"function '{name}' takes {len(params)} arguments, got {len(arrays)}")
    checked = []
    for k, (array, param) in enumerate(zip(arrays, params)):
        hint = f.body.block.args[k].name_hint if f.body.blocks else None
        arg = f"argument {k} (%{hint})" if hint else f"argument {k}"
        if not isinstance(param, MemRefType | TensorType):
            raise XtirEvaluationError(f"function '{name}': parameter {k} has type {param}; only buffers are supported")
        if not isinstance(array, np.ndarray):
            raise XtirEvaluationError(f"function '{name}': {arg} must be a numpy array, got {type(array).__name__}")
        shape, dtype = tuple(param.get_shape()), numpy_dtype(param.element_type)
        if array.shape != shape or array.dtype != dtype:
            raise XtirEvaluationError(
                f"function '{name}': {arg} must be a {dtype} array of shape {shape}, "
                f"got {array.dtype} {array.shape}"
            )
        if isinstance(param, MemRefType) and not array.flags.writeable:
            raise XtirEvaluationError(f"function '{name}': {arg} must be writeable")
        checked.append(array)
    return checked


def evaluate(module: ModuleOp, *arrays: Any, func: str = "main", vectorize: bool = True) -> tuple[Any, ...]:
    """Run `func` on numpy arrays. Buffer (memref) arguments are written in place,
    like a TVM PrimFunc call; values the function returns are returned.

    Loop nests run as numpy array operations where that gives the sequential results
    (xtir/interpreters/vectorized.py); `vectorize=False` runs every block instance in
    the scalar interpreter instead (the same results, much slower)."""
    expect_module(module, "xtir.evaluate", XtirEvaluationError)
    f = find_func(module, func)
    check_parameters(f, XtirEvaluationError)
    args = check_arguments(f, arrays)
    interpreter = Interpreter(module)
    interpreter.register_implementations(FuncFunctions())
    interpreter.register_implementations(ArithFunctions())
    interpreter.register_implementations(ScalarFunctions(), override=True)
    interpreter.register_implementations(IntegerFunctions(), override=True)
    interpreter.register_implementations(MathFunctions())
    interpreter.register_implementations(BlockFunctions(vectorize))
    interpreter.register_implementations(AccelFunctions())
    interpreter.register_implementations(TensorGraphFunctions())
    # lowered IR (lower-blocks): scf loops and memref accesses on the same numpy arrays
    interpreter.register_implementations(ScfFunctions())
    interpreter.register_implementations(MemRefNumpyFunctions())
    try:
        # IEEE arithmetic as in compiled code: 1/0 is inf, whatever np.seterr the caller set
        with np.errstate(all="ignore"):
            return tuple(interpreter.call_op(func, tuple(args)))
    except InterpretationError as e:
        raise XtirEvaluationError(f"evaluating '{func}': {e}") from None
    except XtirError as e:
        # xDSL's interpreter notes the whole module onto the error once per enclosing op
        e.__notes__ = []
        raise
    except MemoryError as e:
        raise XtirEvaluationError(f"evaluating '{func}': out of memory ({e})") from None
    except RecursionError:
        # xDSL's interpreter recurses per nested region, and prints the module into its errors
        raise XtirEvaluationError(
            f"evaluating '{func}': the reference evaluator ran out of Python recursion: the program nests too "
            "deeply, or an error deep inside it (such as an op it cannot run) could not be reported"
        ) from None
