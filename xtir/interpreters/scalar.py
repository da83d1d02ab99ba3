"""Float arith ops the upstream interpreter lacks, and constants as the evaluator holds them.

Upstream `arith.constant` yields Python floats (doubles); the oracle must compute in
the IR's precision, so float constants become numpy scalars of their type. Integer
constants are wrapped into their type's signed range (xtir/interpreters/integer.py);
dense tensor constants (graph weights) become numpy arrays.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.arith import ArithFunctions

from xtir.interpreters.block import numpy_dtype
from xtir.interpreters.integer import integer_constant
from xtir.interpreters.tensor import dense_to_numpy


@register_impls
class ScalarFunctions(InterpreterFunctions):
    @impl(arith.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: arith.ConstantOp, args: PythonValues) -> PythonValues:
        if isinstance(op.value, FloatAttr):
            return (numpy_dtype(op.result.type).type(op.value.value.data),)
        if isinstance(op.value, IntegerAttr):
            return (integer_constant(op),)
        if isinstance(op.value, DenseIntOrFPElementsAttr) and isinstance(op.result.type, TensorType):
            return (dense_to_numpy(op.value),)
        return ArithFunctions().run_constant(interpreter, op, args).values  # @impl wraps the result

    @impl(arith.DivfOp)
    def run_divf(self, interpreter: Interpreter, op: arith.DivfOp, args: PythonValues) -> PythonValues:
        return (args[0] / args[1],)

    @impl(arith.NegfOp)
    def run_negf(self, interpreter: Interpreter, op: arith.NegfOp, args: PythonValues) -> PythonValues:
        return (-args[0],)

    @impl(arith.MaxnumfOp)
    def run_maxnumf(self, interpreter: Interpreter, op: arith.MaxnumfOp, args: PythonValues) -> PythonValues:
        return (np.fmax(args[0], args[1]),)

    @impl(arith.MinnumfOp)
    def run_minnumf(self, interpreter: Interpreter, op: arith.MinnumfOp, args: PythonValues) -> PythonValues:
        return (np.fmin(args[0], args[1]),)

    @impl(arith.ExtFOp)
    def run_extf(self, interpreter: Interpreter, op: arith.ExtFOp, args: PythonValues) -> PythonValues:
        return (numpy_dtype(op.result.type).type(args[0]),)

    @impl(arith.TruncFOp)
    def run_truncf(self, interpreter: Interpreter, op: arith.TruncFOp, args: PythonValues) -> PythonValues:
        return (numpy_dtype(op.result.type).type(args[0]),)

