"""`xtir-run FILE [-p PIPELINE] [--entry F] [--check] [--bench] [--bounds-check]`: compile and run a program.

The function (`--entry`, default `main`, or the only one) is scheduled with the
pipeline, compiled for the CPU (`xtir.build`) and run on random float inputs.

--check compares every buffer with a reference: the numpy expression the file gives in
a `// xtir-run: numpy NAME = EXPR` line (argument names are the function's), or else
the unscheduled program, run by the reference evaluator when it is small and by the
JIT otherwise. It prints `ok max_abs_err=...` or the mismatch, and exits 1 on a mismatch.

--bench prints the median time over --repeat runs and the GFLOP/s, counting the float
operations the unscheduled program performs (e.g. 2·n³ for a matmul).

--bounds-check builds with `xtir.build(..., bounds_check=True)`: an access the compiler
cannot show inside its buffer is checked at run time instead of refused, and the first
one out of range is reported (exit 1).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from math import prod
from pathlib import Path

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type, MemRefType, ModuleOp

import xtir
from xtir.build import entry_function
from xtir.dialects.block import BlockOp, statements
from xtir.errors import XtirError
from xtir.interpreters.block import numpy_dtype
from xtir.passes.analysis.navigation import loops_around
from xtir.verify_numerics import EVALUATOR_LIMIT, innermost_iterations

FLOAT_OPS = (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp, arith.MinimumfOp,
             arith.MaxnumfOp, arith.MinnumfOp)

_NUMPY_LINE = re.compile(r"^//\s*xtir-run:\s*numpy\s+(\w+)\s*=\s*(.+)$", re.MULTILINE)


def random_arguments(f: func.FuncOp, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = []
    for param in f.function_type.inputs.data:
        if not isinstance(param, MemRefType):
            raise XtirError(f"xtir-run: @{f.sym_name.data} takes {param}; only buffers (memrefs) are supported")
        dtype = numpy_dtype(param.element_type)
        shape = tuple(param.get_shape())
        if isinstance(param.element_type, Float16Type | Float32Type | Float64Type):
            arrays.append(rng.standard_normal(shape).astype(dtype))
        else:
            arrays.append(rng.integers(-8, 8, size=shape).astype(dtype))
    return arrays


def float_ops(f: func.FuncOp) -> int:
    """Float operations the program performs: per block, its float ops times the iterations of its loops."""
    total = 0
    for block in (op for op in f.walk() if isinstance(op, BlockOp)):
        trips = prod(lp.extent for lp in loops_around(block))
        total += trips * sum(isinstance(op, FLOAT_OPS) for op in statements(block.body, include_init=False))
    return total


def reference(text: str, module: ModuleOp, f: func.FuncOp, arrays: list[np.ndarray],
              bounds_check: bool = False) -> tuple[list[np.ndarray], str]:
    """The expected buffers after the call, and where they come from."""
    expected = [a.copy() for a in arrays]
    names = [arg.name_hint or f"arg{k}" for k, arg in enumerate(f.body.block.args)]
    lines = _NUMPY_LINE.findall(text)
    if lines:
        env = {"np": np, **dict(zip(names, expected))}
        for target, expr in lines:
            env[target][...] = eval(expr, {"np": np}, env)  # noqa: S307 - the example file's own expression
        return expected, "numpy"
    name = f.sym_name.data
    iterations = innermost_iterations(f)
    if iterations is not None and iterations <= EVALUATOR_LIMIT:
        xtir.evaluate(module, *expected, func=name)
        return expected, "the reference evaluator"
    xtir.build(module, entry=name, bounds_check=bounds_check)(*expected)
    return expected, "the unscheduled program (JIT)"


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
    parser.add_argument("--repeat", type=int, default=10, help="runs timed by --bench (default 10)")
    parser.add_argument("--bounds-check", action="store_true",
                        help="check every access at run time instead of refusing those not shown in bounds")
    parser.add_argument("--intrinsics", action="append", default=[], metavar="FILE",
                        help="register the tensor intrinsics of an IR file")
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except XtirError as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:
        print(f"xtir-run: error: {e}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    from xtir import intrinsics

    for path in args.intrinsics:
        intrinsics.register_file(path, override=True)
    text = Path(args.file).read_text()
    original = xtir.parse(text, args.file)
    scheduled = xtir.transform(original, args.pipeline) if args.pipeline else original
    f = entry_function(scheduled, args.entry)
    name = f.sym_name.data
    compiled = xtir.build(scheduled, entry=name, bounds_check=args.bounds_check)
    print(f"compiled @{name} in {compiled.compile_seconds:.2f} s")
    arrays = random_arguments(f, seed=0)
    inputs = [a.copy() for a in arrays]
    compiled(*arrays)
    status = 0
    if args.check:
        expected, source = reference(text, original, entry_function(original, name), inputs, args.bounds_check)
        names = [arg.name_hint or f"arg{k}" for k, arg in enumerate(f.body.block.args)]
        ok, err, where = compare(arrays, expected, names)
        if ok:
            print(f"ok max_abs_err={err:.3g} (against {source})")
        else:
            print(f"mismatch in {where}: max_abs_err={err:.3g} (against {source})")
            status = 1
    if args.bench:
        times = []
        for _ in range(max(1, args.repeat)):
            start = time.perf_counter()
            compiled(*arrays)
            times.append(time.perf_counter() - start)
        median = float(np.median(times))
        flops = float_ops(entry_function(original, name))
        rate = f", {flops / median / 1e9:.1f} GFLOP/s" if flops else ""
        print(f"median {median * 1e3:.3f} ms over {len(times)} runs{rate}")
    return status


if __name__ == "__main__":
    sys.exit(main())
