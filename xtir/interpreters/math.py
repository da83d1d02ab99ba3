"""Float math ops for the evaluator, computed in the IR's precision (numpy scalars).

xDSL's own implementations use Python's `math` on doubles (so an f32 `math.exp` would be
rounded differently from compiled code) and lack tanh and absf.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import math
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from xtir.interpreters.block import numpy_dtype

_UNARY = {math.ExpOp: np.exp, math.LogOp: np.log, math.SqrtOp: np.sqrt, math.TanhOp: np.tanh, math.AbsFOp: np.abs}


def _unary(op: math.ExpOp | math.LogOp | math.SqrtOp | math.TanhOp | math.AbsFOp, args: PythonValues) -> PythonValues:
    dtype = numpy_dtype(op.result.type)
    return (dtype.type(_UNARY[type(op)](dtype.type(args[0]))),)


@register_impls
class MathFunctions(InterpreterFunctions):
    @impl(math.ExpOp)
    def run_exp(self, interpreter: Interpreter, op: math.ExpOp, args: PythonValues) -> PythonValues:
        return _unary(op, args)

    @impl(math.LogOp)
    def run_log(self, interpreter: Interpreter, op: math.LogOp, args: PythonValues) -> PythonValues:
        return _unary(op, args)

    @impl(math.SqrtOp)
    def run_sqrt(self, interpreter: Interpreter, op: math.SqrtOp, args: PythonValues) -> PythonValues:
        return _unary(op, args)

    @impl(math.TanhOp)
    def run_tanh(self, interpreter: Interpreter, op: math.TanhOp, args: PythonValues) -> PythonValues:
        return _unary(op, args)

    @impl(math.AbsFOp)
    def run_absf(self, interpreter: Interpreter, op: math.AbsFOp, args: PythonValues) -> PythonValues:
        return _unary(op, args)
