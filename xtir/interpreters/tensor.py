"""Interpreter implementations of the graph-level tensor ops, on numpy arrays."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from xtir.dialects import tensor


@register_impls
class TensorGraphFunctions(InterpreterFunctions):
    @impl(tensor.MatmulOp)
    def run_matmul(self, interpreter: Interpreter, op: tensor.MatmulOp, args: PythonValues) -> PythonValues:
        return (np.asarray(args[0]) @ np.asarray(args[1]),)

    @impl(tensor.DenseOp)
    def run_dense(self, interpreter: Interpreter, op: tensor.DenseOp, args: PythonValues) -> PythonValues:
        return (np.asarray(args[0]) @ np.asarray(args[1]).T,)

    @impl(tensor.AddOp)
    def run_add(self, interpreter: Interpreter, op: tensor.AddOp, args: PythonValues) -> PythonValues:
        return (np.add(args[0], args[1]),)

    @impl(tensor.MultiplyOp)
    def run_multiply(self, interpreter: Interpreter, op: tensor.MultiplyOp, args: PythonValues) -> PythonValues:
        return (np.multiply(args[0], args[1]),)

    @impl(tensor.ReluOp)
    def run_relu(self, interpreter: Interpreter, op: tensor.ReluOp, args: PythonValues) -> PythonValues:
        return (np.maximum(args[0], 0).astype(np.asarray(args[0]).dtype),)

    @impl(tensor.EwiseFmaOp)
    def run_ewise_fma(self, interpreter: Interpreter, op: tensor.EwiseFmaOp, args: PythonValues) -> PythonValues:
        return (np.asarray(args[0]) * args[1] + args[2],)
