"""Per-pass numerical verification (`xtir-opt --verify-numerics`, `Schedule(..., verify_numerics=True)`).

A `NumericsChecker` runs the program once on random inputs (fixed seed) when it is
made; `check(module, pass_name)` then runs the program after a pass on the same
inputs and compares every buffer (and every returned value) with the run before the
pass. At the first difference it raises `XtirNumericsError`:

    error: numerics changed after pass 'split{loop="i" factors=-1,16}': buffer C of @main differs (max abs err 3.2)

A program runs on the reference evaluator (`xtir.evaluate`) when its innermost loop
bodies run at most `EVALUATOR_LIMIT` times in all, else with the JIT (`xtir.build`).
When the JIT cannot build it (loops bound to GPU threads), the evaluator still runs
programs of up to `EVALUATOR_MAX` iterations (slowly); beyond that the check refuses,
with the reason. Float results may differ
by rounding (a reduction in another order): a buffer differs when its largest error
exceeds `RTOL` times its largest magnitude (at least 1).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Operation

from xtir.dialects.symbols import lookup_function
from xtir.errors import XtirError, XtirEvaluationError, XtirNumericsError

EVALUATOR_LIMIT = 200_000
"""Innermost iterations above which a program runs with the JIT instead of the evaluator (about 50 µs each)."""

EVALUATOR_MAX = 2_000_000
"""The most innermost iterations the evaluator is given when the JIT cannot build the program
(e.g. loops bound to GPU threads): about a minute and a half per run."""

RTOL = 1e-3
"""Allowed error, relative to the largest magnitude of the buffer (at least 1)."""


class NumericsChecker:
    """Runs a module's functions before and after each pass on the same random inputs.

    `func_name` picks one function; None checks every function with a body. The
    inputs and the results of the last accepted program are kept, so each check runs
    only the new program. A failed check leaves the checker as it was.
    """

    def __init__(self, module: ModuleOp, func_name: str | None = None, seed: int = 0,
                 evaluator_limit: int | None = None):
        self.evaluator_limit = EVALUATOR_LIMIT if evaluator_limit is None else evaluator_limit
        funcs = _functions(module)
        if func_name is not None:
            funcs = [f for f in funcs if f.sym_name.data == func_name]
            if not funcs:
                raise _refusal(f"no function named '{func_name}' with a body")
        self._names = [f.sym_name.data for f in funcs]
        rng = np.random.default_rng(seed)
        self._inputs: dict[str, list[np.ndarray]] = {}
        self._types: dict[str, func.FunctionType] = {}
        for f in funcs:
            name = f.sym_name.data
            self._types[name] = f.function_type
            try:
                self._inputs[name] = random_inputs(f, rng)
            except XtirError as e:
                raise _refusal(f"cannot run @{name}: {e.message}") from None
        self._expected: dict[str, list[np.ndarray]] = {}
        self._engines: dict[str, str] = {}
        for name in self._names:
            try:
                self._expected[name], self._engines[name] = self._run(module, name)
            except XtirError as e:
                raise _refusal(f"cannot run @{name} of the input program: {e.message}") from None

    @property
    def functions(self) -> list[str]:
        return list(self._names)

    def check(self, module: ModuleOp, pass_name: str, where: str = "") -> None:
        """Compare `module` (the IR after pass `pass_name`) with the program before it.

        `where` (e.g. "pass 2 of 5") is added to the message. Raise XtirNumericsError at
        the first difference; on success the module becomes the new reference."""
        after = f"after pass '{pass_name}'" + (f" ({where})" if where else "")
        results: dict[str, list[np.ndarray]] = {}
        engines: dict[str, str] = {}
        for name in self._names:
            f = _find(module, name)
            if f is None:
                why = ("the module was lowered to the llvm dialect, which it cannot run (check the pipeline "
                       "before convert-to-llvm)" if any(op.name.startswith("llvm.") for op in module.walk())
                       else f"@{name} is no longer a func.func with a body")
                raise _refusal(f"cannot compare numerics {after}: {why}")
            if f.function_type != self._types[name]:
                raise _refusal(f"cannot compare numerics {after}: the signature of @{name} changed "
                               f"from {self._types[name]} to {f.function_type}")
            try:
                results[name], engines[name] = self._run(module, name)
            except XtirEvaluationError as e:
                raise XtirNumericsError(f"error: numerics changed {after}: @{name} no longer runs: {e.message}",
                                        message=f"numerics changed {after}: @{name} no longer runs: {e.message}"
                                        ) from None
            except XtirError as e:
                raise _refusal(f"cannot run @{name} {after}: {e.message}") from None
            labels = _labels(f)
            for label, got, expected in zip(labels, results[name], self._expected[name]):
                ok, err = compare(got, expected)
                if not ok:
                    how = "" if engines[name] == self._engines[name] else \
                        f"; before: {self._engines[name]}, after: {engines[name]}"
                    message = f"numerics changed {after}: {label} of @{name} differs (max abs err {err:.3g}{how})"
                    raise XtirNumericsError(f"error: {message}", message=message)
        self._expected.update(results)
        self._engines.update(engines)

    def _run(self, module: ModuleOp, name: str) -> tuple[list[np.ndarray], str]:
        """The buffers after a call of @name on copies of the inputs, then the returned values."""
        from xtir.build import build
        from xtir.evaluate import evaluate

        f = _find(module, name)
        assert f is not None
        iterations = innermost_iterations(f)
        lowered = any(op.name.startswith("llvm.") for op in module.walk())
        small = iterations is not None and iterations <= self.evaluator_limit
        jit_error: XtirError | None = None

        def jit() -> tuple[list[np.ndarray], str] | None:
            nonlocal jit_error
            try:
                compiled = build(module, entry=name)
            except XtirError as e:
                jit_error = e
                return None
            arrays = [a.copy() for a in self._inputs[name]]
            compiled(*arrays)
            return arrays, "the JIT"

        if (not small or lowered) and (result := jit()) is not None:
            return result
        if lowered:
            raise XtirError("the program uses the llvm dialect, which the reference evaluator does not run"
                            + (f", and the JIT cannot build it: {jit_error.message}" if jit_error else ""))
        if not small and iterations is not None and iterations > max(EVALUATOR_MAX, self.evaluator_limit):
            size = f"{iterations} innermost iterations, more than the {max(EVALUATOR_MAX, self.evaluator_limit)} it runs"
            raise XtirError(f"the program is too large for the reference evaluator ({size}) and the JIT "
                            f"cannot build it: {jit_error.message if jit_error else 'unknown reason'}")
        arrays = [a.copy() for a in self._inputs[name]]
        try:
            returned = evaluate(module, *arrays, func=name)
        except XtirEvaluationError as e:
            if "Could not find" not in e.message:  # a failure of the program, not a missing op implementation
                raise
            if jit_error is None and (result := jit()) is not None:
                return result
            raise XtirError(f"neither the reference evaluator ({e.message}) nor the JIT "
                            f"({jit_error.message if jit_error else 'unknown reason'}) can run it") from None
        return arrays + [np.asarray(r) for r in returned], "the reference evaluator"


def _refusal(message: str) -> XtirNumericsError:
    message = f"verify-numerics: {message}"
    return XtirNumericsError(f"error: {message}", message=message)


def _functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]


def _find(module: ModuleOp, name: str) -> func.FuncOp | None:
    f = lookup_function(module, name)
    return f if f is not None and f.body.blocks else None


def _labels(f: func.FuncOp) -> list[str]:
    args = [f"buffer {arg.name_hint}" if arg.name_hint else f"argument {k}" for k, arg in enumerate(f.body.block.args)]
    return args + [f"result {k}" for k in range(len(f.function_type.outputs.data))]


def random_inputs(f: func.FuncOp, rng: np.random.Generator) -> list[np.ndarray]:
    """Random arrays for the function's buffer (memref or tensor) parameters: floats from a
    standard normal distribution, integers in [-8, 8)."""
    from xtir.interpreters.block import numpy_dtype

    arrays = []
    for k, param in enumerate(f.function_type.inputs.data):
        if not isinstance(param, MemRefType | TensorType):
            raise XtirError(f"parameter {k} has type {param}; only buffers (memrefs or tensors) get random inputs")
        shape = tuple(param.get_shape())
        if any(d < 0 for d in shape):
            raise XtirError(f"parameter {k} has a dynamic shape ({param})")
        dtype = numpy_dtype(param.element_type)
        if isinstance(param.element_type, Float16Type | Float32Type | Float64Type):
            arrays.append(rng.standard_normal(shape).astype(dtype))
        else:
            arrays.append(rng.integers(-8, 8, size=shape).astype(dtype))
    return arrays


def compare(got: np.ndarray, expected: np.ndarray) -> tuple[bool, float]:
    """(close enough, largest absolute error). NaN where both have NaN counts as equal."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return False, float("inf")
    if not got.size:
        return True, 0.0
    g, e = got.astype(np.float64), expected.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(e)
    diff = np.where(both_nan, 0.0, np.abs(g - e))
    diff = np.where(np.isnan(diff) | (np.isinf(g) & (g != e)), np.inf, diff)  # NaN on one side only, or inf mismatch
    err = float(np.max(diff))
    finite = e[np.isfinite(e)]
    scale = max(1.0, float(np.max(np.abs(finite)))) if finite.size else 1.0
    return err <= RTOL * scale, err


# How much work a program is ------------------------------------------------------------------


def innermost_iterations(f: Operation) -> int | None:
    """How many times the innermost loop bodies run in all (block.for and scf.for loops);
    None when an scf.for has bounds that are not constants."""
    from xtir.dialects.block import ForOp
    from xtir.lowering.loops import trip_count

    total = 0

    def visit(op: Operation, trips: int) -> bool:
        """Count the leaf loops under op; True if op holds a loop."""
        nonlocal total
        has_loop = False
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    if isinstance(child, ForOp | scf.ForOp):
                        n = child.extent if isinstance(child, ForOp) else trip_count(child)
                        if n is None:
                            raise _Unknown
                        if not visit(child, trips * n):
                            total += trips * n
                        has_loop = True
                    elif child.regions and visit(child, trips):
                        has_loop = True
        return has_loop

    try:
        if not visit(f, 1):
            total += 1
    except _Unknown:
        return None
    return total


class _Unknown(Exception):
    pass
