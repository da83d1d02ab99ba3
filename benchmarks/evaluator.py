"""The reference evaluator: vectorized loop nests against the scalar interpreter, in one process.

Run: python benchmarks/evaluator.py [--full]

For each program, `xtir.evaluate(module, ...)` (loop nests as numpy array operations)
and `xtir.evaluate(module, ..., vectorize=False)` (every block instance in the scalar
interpreter, the evaluator before the fast path) on the same inputs; the outputs must be
bit for bit the same. Each time is CPU time, the best of a few calls (as many as fit in 2 s,
at most 5).
The scalar interpreter takes about 70 µs per instance of a 6-op
block: on the large sizes it would run for tens of minutes, so without --full its time
there is extrapolated from the same program at the small size (time per block instance,
which does not depend on the size), and marked so.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import xtir
from xtir.dialects.block import BlockOp, ForOp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
from seed_tensorize import schedule as seed_tensorize  # noqa: E402

MATMUL_RELU = """
func.func @main(%A: memref<NxNxf32>, %B: memref<NxNxf32>, %D: memref<NxNxf32>) {
  %Y = block.alloc : memref<NxNxf32>
  block.for %i = 0 to N "i" {
    block.for %j = 0 to N "j" {
      block.for %k = 0 to N "k" {
        block.block "matmul"(%vi = spatial(N, %i), %vj = spatial(N, %j), %vk = reduce(N, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %Y[%vi, %vj] : memref<NxNxf32>
          }
          %y = block.load %Y[%vi, %vj] : memref<NxNxf32>
          %a = block.load %A[%vi, %vk] : memref<NxNxf32>
          %b = block.load %B[%vk, %vj] : memref<NxNxf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %y, %ab : f32
          block.store %sum, %Y[%vi, %vj] : memref<NxNxf32>
        }
      }
    }
  }
  block.for %i = 0 to N "i" {
    block.for %j = 0 to N "j" {
      block.block "relu"(%vi = spatial(N, %i), %vj = spatial(N, %j)) {
        %y = block.load %Y[%vi, %vj] : memref<NxNxf32>
        %zero = arith.constant 0.000000e+00 : f32
        %r = arith.maximumf %y, %zero : f32
        block.store %r, %D[%vi, %vj] : memref<NxNxf32>
      }
    }
  }
  func.return
}
"""


@dataclass
class Case:
    name: str
    module: object
    shapes: list[tuple[int, ...]]
    expected: Callable[[list[np.ndarray]], np.ndarray]  # numpy's answer for the last argument
    small: Case | None = None  # the same program smaller, to extrapolate the scalar time from


def matmul_relu(n: int, small: Case | None = None) -> Case:
    module = xtir.parse(MATMUL_RELU.replace("N", str(n)))
    return Case(f"matmul+relu {n}³", module, [(n, n)] * 3, lambda a: np.maximum(a[0] @ a[1], 0), small)


def tensorize(n: int, small: Case | None = None) -> Case:
    text = re.sub(r"(?<!\d)1024(?!\d)", str(n), (ROOT / "examples" / "matmul.mlir").read_text())
    module = seed_tensorize(xtir.parse(text)).mod
    return Case(f"seed tensorize (accel.tmm16) {n}³", module, [(n, n)] * 3, lambda a: a[0] @ a[1].T, small)


def window_sum(n: int, small: Case | None = None) -> Case:
    text = re.sub(r"(?<!\d)1026(?!\d)", str(n + 2), (ROOT / "examples" / "window_sum.mlir").read_text())
    module = xtir.parse(re.sub(r"(?<!\d)1024(?!\d)", str(n), text))
    return Case(f"window sum {n}", module, [(n + 2,), (n,)], lambda a: a[0][:-2] + a[0][1:-1] + a[0][2:], small)


def conv2d() -> Case:
    sys.path.insert(0, str(ROOT))
    from tests.fuzz.schedules import conv2d_reference

    module = xtir.parse((ROOT / "tests" / "fuzz" / "programs" / "conv2d.mlir").read_text())
    shapes = [(2, 3, 6, 6), (4, 3, 3, 3), (4,), (2, 4, 4, 4)]
    return Case("conv2d + bias + relu (fuzz program)", module, shapes, lambda a: conv2d_reference(a)[0])


def block_instances(module) -> int:
    """Executions of block bodies in one call."""
    total = 0
    for op in module.walk():
        if isinstance(op, BlockOp):
            count, parent = 1, op.parent_op()
            while parent is not None:
                count *= parent.extent if isinstance(parent, ForOp) else 1
                parent = parent.parent_op()
            total += count
    return total


def arguments(case: Case) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s, dtype=np.float32) for s in case.shapes]


def timed(case: Case, vectorize: bool, budget: float = 2.0, runs: int = 5) -> tuple[float, list[np.ndarray]]:
    """The process's CPU time, the best of up to `runs` calls (while they fit in `budget` seconds),
    each on fresh arguments: on a shared machine the wall time of a call of a few milliseconds
    is mostly the other processes'. (The evaluator runs on one thread.)"""
    best, spent = math.inf, 0.0
    for _ in range(runs):
        args = arguments(case)
        start = time.process_time()
        xtir.evaluate(case.module, *args, vectorize=vectorize)
        elapsed = time.process_time() - start
        best, spent = min(best, elapsed), spent + elapsed
        if spent > budget:
            break
    return best, args


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="run the scalar interpreter on the large sizes too")
    full = parser.parse_args().full
    small_mm, small_tz = matmul_relu(64), tensorize(64)
    cases = [small_mm, matmul_relu(256, small_mm), conv2d(), window_sum(1024), small_tz, tensorize(256, small_tz)]
    scalar: dict[str, float] = {}  # seconds per block instance, measured
    print("| program | block instances | scalar interpreter | vectorized | speed-up |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for case in cases:
        fast, got = timed(case, vectorize=True)
        want = case.expected(arguments(case))
        assert np.allclose(got[-1], want, rtol=1e-4, atol=1e-3), f"{case.name}: wrong result"
        instances = block_instances(case.module)
        if case.small is None or full:
            slow, reference = timed(case, vectorize=False)
            assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(got, reference)), case.name
            scalar[case.name] = slow / instances
            slow_text = f"{slow:.2f} s"
        else:
            if case.small.name not in scalar:
                scalar[case.small.name] = timed(case.small, vectorize=False)[0] / block_instances(case.small.module)
            slow = scalar[case.small.name] * instances
            slow_text = f"~{slow:.0f} s (extrapolated)"
        print(f"| {case.name} | {instances:,} | {slow_text} | {fast:.3f} s | {slow / fast:,.0f}× |")


if __name__ == "__main__":
    main()
