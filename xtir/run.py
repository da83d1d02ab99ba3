"""`xtir-run FILE [-p PIPELINE] [--entry F] [--target T] [--check] [--bench] [--bounds-check]`: compile and run a program.

The function (`--entry`, default `main`, or the only one) is scheduled with the
pipeline, compiled for the CPU (`xtir.build`) and run on random float inputs.

--check compares every buffer with a reference: the numpy expression the file gives in
a `// xtir-run: numpy NAME = EXPR` line (argument names are the function's), or else
the unscheduled program, run by the reference evaluator when it is small and by the
JIT otherwise. It prints `ok max_abs_err=...` or the mismatch, and exits 1 on a mismatch.
An `xtir-run:` line that is not of that form, names no argument, does not evaluate or gives
values of another shape or kind than the buffer's is an error at the line (file:line:col).

--bench prints the median time over --repeat runs and the GFLOP/s, counting the float
operations the unscheduled program performs (e.g. 2·n³ for a matmul).

--target cuda runs the thread-bound loop nests on a GPU (xtir.build(..., target="cuda"));
--target cuda-cpu runs the same CUDA C on the CPU, in the emulation that checks barriers;
--racecheck adds its race detector (xtir.build(..., racecheck=True)): a race on `__shared__`
or global memory is reported (exit 1).
The reference of --check is computed on the CPU either way.

--bounds-check builds with `xtir.build(..., bounds_check=True)`: an access the compiler
cannot show inside its buffer is checked at run time instead of refused, and the first
one out of range is reported (exit 1).

A graph function (over tensors, e.g. examples/mlp.mlir) runs as a model: the pipeline
gives the graph passes (e.g. `-p fuse-ewise-fma,fuse-ops`), then `xtir.model.compile_model`
legalizes it, applies default-schedule (default-gpu-schedule for --target cuda / cuda-cpu, where --racecheck
checks every kernel) and builds it (no --bounds-check). --check compares its results with
the graph run by the reference evaluator (the ops' numpy semantics), or with the numpy
lines, which may also name the values the function returns (`// xtir-run: numpy out = ...`
for `func.return %out`). --bench times a whole call of the model.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable
from math import prod

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type, MemRefType, ModuleOp, TensorType

import xtir
from xtir import intrinsics
from xtir.build import TARGETS, entry_function
from xtir.diagnostics import read_source
from xtir.dialects.block import BlockOp, statements
from xtir.dialects.tensor import is_graph_function
from xtir.errors import XtirError
from xtir.interpreters.block import numpy_dtype
from xtir.passes.analysis.navigation import loops_around
from xtir.support.locations import format_error_at
from xtir.verify_numerics import EVALUATOR_LIMIT, innermost_iterations

FLOAT_OPS = (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp, arith.MinimumfOp,
             arith.MaxnumfOp, arith.MinnumfOp)

_DIRECTIVE = re.compile(r"^[ \t]*//\s*xtir-run:(.*)$", re.MULTILINE)
_NUMPY_LINE = re.compile(r"\s*numpy\s+(\w+)\s*=\s*(\S.*?)\s*$")


def random_arguments(f: func.FuncOp, seed: int) -> list[np.ndarray]:
    params = []
    for param in f.function_type.inputs.data:
        if not isinstance(param, MemRefType):
            raise XtirError(f"xtir-run: @{f.sym_name.data} takes {param}; only buffers (memrefs) are supported")
        params.append(param)
    return _random_arrays(f, params, seed)


def _random_arrays(f: func.FuncOp, types: list[MemRefType | TensorType], seed: int) -> list[np.ndarray]:
    _check_memory(f, [(numpy_dtype(t.element_type), tuple(t.get_shape())) for t in types])
    rng = np.random.default_rng(seed)
    arrays = []
    for t in types:
        dtype, shape = numpy_dtype(t.element_type), tuple(t.get_shape())
        if isinstance(t.element_type, Float16Type | Float32Type | Float64Type):
            arrays.append(rng.standard_normal(shape).astype(dtype))
        else:
            arrays.append(rng.integers(-8, 8, size=shape).astype(dtype))
    return arrays


def _check_memory(f: func.FuncOp, buffers: list[tuple[np.dtype, tuple[int, ...]]]) -> None:
    """xtir-run holds each argument three times (the run, the inputs, the reference): refuse
    arguments that would take more than half of this machine's memory, before allocating."""
    need = 3 * sum(prod(shape) * dtype.itemsize for dtype, shape in buffers)
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if need > memory // 2:
        raise XtirError(f"xtir-run: @{f.sym_name.data} takes {need / 3 / 2**30:.1f} GiB of buffers; with the "
                        f"copies xtir-run keeps, that is more than half of this machine's {memory / 2**30:.0f} GiB")


def float_ops(f: func.FuncOp) -> int:
    """Float operations the program performs: per block, its float ops times the iterations of its loops."""
    total = 0
    for block in (op for op in f.walk() if isinstance(op, BlockOp)):
        trips = prod(lp.extent for lp in loops_around(block))
        total += trips * sum(isinstance(op, FLOAT_OPS) for op in statements(block.body, include_init=False))
    return total


def reference(text: str, path: str, module: ModuleOp, f: func.FuncOp, arrays: list[np.ndarray],
              bounds_check: bool = False) -> tuple[list[np.ndarray], str]:
    """The expected buffers after the call, and where they come from."""
    expected = [a.copy() for a in arrays]
    names = [arg.name_hint or f"arg{k}" for k, arg in enumerate(f.body.block.args)]
    directives = list(_DIRECTIVE.finditer(text))
    if directives:
        buffers = dict(zip(names, expected))
        for directive in directives:
            _run_numpy_line(text, path, directive, buffers)
        return expected, "numpy"
    name = f.sym_name.data
    iterations = innermost_iterations(f)
    if iterations is not None and iterations <= EVALUATOR_LIMIT:
        xtir.evaluate(module, *expected, func=name)
        return expected, "the reference evaluator"
    xtir.build(module, entry=name, bounds_check=bounds_check)(*expected)
    return expected, "the unscheduled program (JIT)"


def _run_numpy_line(text: str, path: str, directive: re.Match[str], buffers: dict[str, np.ndarray]) -> None:
    """Assign one `// xtir-run: numpy NAME = EXPR` line to its buffer; a line that is not of that
    form, names no argument, does not evaluate or gives values the buffer cannot hold is an
    error at the line."""
    start = directive.start(1)

    def error(message: str, at: int = 0, length: int = 1) -> XtirError:
        return XtirError(format_error_at(text, path, start + at, f"xtir-run: {message}", length))

    line = _NUMPY_LINE.fullmatch(directive.group(1))
    if line is None:
        raise error("expected `// xtir-run: numpy NAME = EXPR`", 0, len(directive.group(1)))
    target, expr = line.group(1), line.group(2)
    if target not in buffers:
        raise error(f"numpy: no argument named '{target}' (arguments: {', '.join(buffers) or 'none'})",
                    line.start(1), len(target))
    try:
        code = compile(expr, path, "eval")
    except SyntaxError as e:
        raise error(f"numpy: invalid expression: {e.msg}", line.start(2) + max((e.offset or 1) - 1, 0)) from None
    try:
        value = np.asarray(eval(code, {"np": np}, dict(buffers)))  # noqa: S307 - the example file's own expression
    except Exception as e:  # the user's expression: any error it raises is theirs
        raise error(f"numpy: {expr} failed: {type(e).__name__}: {e}", line.start(2), len(expr)) from None
    buffer = buffers[target]
    if not np.can_cast(value.dtype, buffer.dtype, "same_kind"):
        raise error(f"numpy: {expr} gives {value.dtype} values; {target} holds {buffer.dtype}",
                    line.start(2), len(expr))
    try:
        buffer[...] = value
    except ValueError as e:
        raise error(f"numpy: {expr} has shape {value.shape}; {target} has shape {buffer.shape} ({e})",
                    line.start(2), len(expr)) from None


def compare(got: list[np.ndarray], expected: list[np.ndarray], names: list[str]) -> tuple[bool, float, str]:
    """(all close, the largest absolute error, the buffer where it is). Float sums in another
    order differ by rounding, so the tolerance is relative to each buffer's magnitude."""
    ok, worst, where = True, 0.0, ""
    for name, g, e in zip(names, got, expected):
        if not g.size:
            continue
        err = float(np.max(np.abs(g.astype(np.float64) - e.astype(np.float64))))
        bad = not np.isfinite(err) or err > 1e-3 * max(1.0, float(np.max(np.abs(e))))
        if bad or (ok and err > worst):
            worst, where = err, name
        ok = ok and not bad
    return ok, worst, where


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xtir-run", description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("-p", "--pipeline", default="", help="xtir-opt pass pipeline to apply first")
    parser.add_argument("--entry", help="function to run (default: the only one, or main)")
    parser.add_argument("--check", action="store_true", help="compare with a reference")
    parser.add_argument("--bench", action="store_true", help="print the median time and GFLOP/s")
    parser.add_argument("--repeat", type=_positive, default=10, help="runs timed by --bench (default 10)")
    parser.add_argument("--target", default="llvm", choices=TARGETS,
                        help="llvm (the CPU, default), cuda (a GPU) or cuda-cpu (the CUDA C emulated on the CPU)")
    parser.add_argument("--bounds-check", action="store_true",
                        help="check every access at run time instead of refusing those not shown in bounds")
    parser.add_argument("--racecheck", action="store_true",
                        help="with --target cuda-cpu: report races on __shared__ memory (the emulation's race detector)")
    intrinsics.add_files_option(parser)
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except XtirError as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:
        print(f"xtir-run: error: {e}", file=sys.stderr)
        return 1


def _positive(text: str) -> int:
    """A count of runs for --repeat: a median needs at least one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of runs, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"a median needs at least one run, got {value}")
    return value


def _run(args: argparse.Namespace) -> int:
    intrinsics.register_files(args.intrinsics)
    text = read_source(args.file)
    original = xtir.parse(text, args.file)
    if is_graph_function(entry_function(original, args.entry)):
        return _run_graph(args, text, original)
    scheduled = xtir.transform(original, args.pipeline) if args.pipeline else original
    f = entry_function(scheduled, args.entry)
    name = f.sym_name.data
    compiled = xtir.build(scheduled, target=args.target, entry=name, bounds_check=args.bounds_check,
                          racecheck=args.racecheck or None)
    print(f"compiled @{name} in {compiled.compile_seconds:.2f} s")
    arrays = random_arguments(f, seed=0)
    inputs = [a.copy() for a in arrays]
    compiled(*arrays)
    status = 0
    if args.check:
        expected, source = reference(text, args.file, original, entry_function(original, name), inputs,
                                     args.bounds_check)
        names = [arg.name_hint or f"arg{k}" for k, arg in enumerate(f.body.block.args)]
        status = _report(arrays, expected, names, source)
    if args.bench:
        _bench(lambda: compiled(*arrays), args.repeat, float_ops(entry_function(original, name)))
    return status


def _report(got: list[np.ndarray], expected: list[np.ndarray], names: list[str], source: str) -> int:
    """Print the comparison; the exit status (1 on a mismatch)."""
    ok, err, where = compare(got, expected, names)
    if ok:
        print(f"ok max_abs_err={err:.3g} (against {source})")
        return 0
    print(f"mismatch in {where}: max_abs_err={err:.3g} (against {source})")
    return 1


def _bench(call: Callable[[], object], repeat: int, flops: int) -> None:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    median = float(np.median(times))
    rate = f", {flops / median / 1e9:.1f} GFLOP/s" if flops else ""
    print(f"median {median * 1e3:.3f} ms over {len(times)} runs{rate}")


# Graph functions -------------------------------------------------------------------------------


def _run_graph(args: argparse.Namespace, text: str, original: ModuleOp) -> int:
    from xtir.model import compile_model

    if args.bounds_check:
        raise XtirError("xtir-run: --bounds-check is for block-level programs, not graph functions")
    if args.racecheck and args.target != "cuda-cpu":
        raise XtirError(f"xtir-run: --racecheck is for --target cuda-cpu (its emulation records every __shared__ "
                        f"and global access); target '{args.target}' has no race detector")
    graph = xtir.transform(original, args.pipeline) if args.pipeline else original
    name = entry_function(original, args.entry).sym_name.data
    if not is_graph_function(entry_function(graph, name)):
        raise XtirError(f"xtir-run: the pipeline '{args.pipeline}' took @{name} out of the graph level; on a graph "
                        "function -p takes graph passes (xtir-run legalizes, schedules and builds it)")
    start = time.perf_counter()
    model = compile_model(graph, entry=name, target=args.target, racecheck=args.racecheck or None)
    schedule = "default-schedule" if args.target == "llvm" else "default-gpu-schedule"
    print(f"compiled @{name} for {args.target} in {time.perf_counter() - start:.2f} s (legalize-tensor, {schedule}, build)")
    f = entry_function(original, name)
    inputs = _random_arrays(f, list(f.function_type.inputs.data), seed=0)
    results = model(*inputs)
    results = list(results) if isinstance(results, tuple) else [results]
    status = 0
    if args.check:
        expected, source = _graph_reference(text, args.file, original, f, inputs)
        status = _report(results, expected, _result_names(f), source)
    if args.bench:
        _bench(lambda: model(*inputs), args.repeat, _graph_float_ops(graph, name))
    return status


def _result_names(f: func.FuncOp) -> list[str]:
    ret = f.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    return [value.name_hint or f"result{k}" for k, value in enumerate(ret.arguments)]


def _graph_reference(text: str, path: str, module: ModuleOp, f: func.FuncOp,
                     inputs: list[np.ndarray]) -> tuple[list[np.ndarray], str]:
    """The graph's results: from the numpy lines, which assign the returned values by their
    names, or else from the reference evaluator."""
    directives = list(_DIRECTIVE.finditer(text))
    if not directives:
        return [np.asarray(r) for r in xtir.evaluate(module, *inputs, func=f.sym_name.data)], "the reference evaluator"
    names = [arg.name_hint or f"arg{k}" for k, arg in enumerate(f.body.block.args)]
    buffers = dict(zip(names, [a.copy() for a in inputs]))
    outputs = [np.full(t.get_shape(), np.nan, numpy_dtype(t.element_type)) for t in f.function_type.outputs.data]
    buffers.update(zip(_result_names(f), outputs))
    for directive in directives:
        _run_numpy_line(text, path, directive, buffers)
    return outputs, "numpy"


def _graph_float_ops(graph: ModuleOp, name: str) -> int:
    """The float operations of the legalized, unscheduled block functions, once per call."""
    legal = xtir.transform(graph, "legalize-tensor")
    functions = {f.sym_name.data: f for f in legal.ops if isinstance(f, func.FuncOp)}
    calls = [op for op in functions[name].walk() if isinstance(op, func.CallOp)]
    return sum(float_ops(functions[call.callee.root_reference.data]) for call in calls)


if __name__ == "__main__":
    sys.exit(main())
