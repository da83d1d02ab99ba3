"""The README demo: seed 001's walkthrough scheduled, compiled and timed against numpy.

Run: python examples/demo.py [--n N] [--quiet]

Schedules the 1024³ matmul C = A·Bᵀ of examples/matmul.mlir as seed 001 does (split,
reorder, blockize, cache-read/write into the accelerator's scopes, decompose-reduction,
tensorize onto accel.tmm16), printing the program in TVMScript form (xtir.script) after a
few of the steps; then builds it and the hand CPU schedule of benchmarks/matmul.py with
LLVM, checks both against numpy and reports GFLOP/s next to numpy's.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent
sys.path.insert(0, str(EXAMPLES.parent / "benchmarks"))
# benchmarks/ is not a package; fair_threads goes first, before numpy loads OpenBLAS
import fair_threads  # noqa: E402,F401,I001
import numpy as np  # noqa: E402
from matmul import HAND_CPU, median_seconds  # noqa: E402

import xtir  # noqa: E402


def step(title: str, sch: xtir.Schedule, quiet: bool) -> None:
    print(f"\n# ---- {title}")
    if not quiet:
        print(xtir.script(sch.mod), end="")


def seed_schedule(module, quiet: bool) -> xtir.Schedule:
    """Seed 001, section 6.2.2, primitive for primitive."""
    sch = xtir.Schedule(module)
    step("the input", sch, quiet)
    block_mm = sch.get_block("matmul")
    i, j, k = sch.get_loops(block_mm)
    i, ii = sch.split(i, factors=[None, 16])
    j, ji = sch.split(j, factors=[None, 16])
    k, ki = sch.split(k, factors=[None, 16])
    sch.reorder(i, j, k, ii, ji, ki)
    step("split into 16x16x16 tiles and reorder", sch, quiet)
    block_mm = sch.blockize(ii)
    a_reg = sch.cache_read(block_mm, 0, storage_scope="global.A_reg")
    b_reg = sch.cache_read(block_mm, 1, storage_scope="global.B_reg")
    sch.compute_at(a_reg, k)
    sch.compute_at(b_reg, k)
    c_acc = sch.cache_write(block_mm, 0, storage_scope="global.accumulator")
    sch.reverse_compute_at(c_acc, j)
    sch.decompose_reduction(block_mm, k)
    sch.tensorize(block_mm, "tmm16")
    step("blockize, cache the tiles, split off the init, tensorize onto accel.tmm16", sch, quiet)
    sch.parallel(i)
    print(f"\n# then parallel(i_0). The whole schedule as an xtir-opt pipeline:\n#   {sch.trace}")
    return sch


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1024, help="matrix size, a multiple of 32 (default 1024)")
    parser.add_argument("--quiet", action="store_true", help="do not print the IR of the steps")
    args = parser.parse_args()
    n = args.n
    text = re.sub(r"(?<!\d)1024(?!\d)", str(n), (EXAMPLES / "matmul.mlir").read_text())
    seed = seed_schedule(xtir.parse(text, "matmul.mlir"), args.quiet)

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)
    expected = a @ b.T
    flops = 2.0 * n**3
    numpy_s = median_seconds(lambda: a @ b.T, 5)
    print(f"\n{n}x{n}x{n} float32 C = A·Bᵀ, median of 5 runs:")
    print(f"  {'numpy a @ b.T':38} {numpy_s * 1e3:8.2f} ms {flops / numpy_s / 1e9:7.1f} GFLOP/s")
    for label, module in [
        ("seed 001 schedule (accel.tmm16)", seed.mod),
        ("hand CPU schedule (benchmarks/)", xtir.transform(xtir.parse(text), HAND_CPU)),
    ]:
        start = time.perf_counter()
        compiled = xtir.build(module)
        compile_s = time.perf_counter() - start
        c = np.full((n, n), np.nan, dtype=np.float32)
        compiled(a, b, c)
        error = float(np.max(np.abs(c - expected)))
        if not error < 1e-2:
            print(f"  {label}: max |C - A·Bᵀ| = {error:.2e}: WRONG")
            return 1
        s = median_seconds(lambda: compiled(a, b, c), 5)  # noqa: B023 - called right away
        print(
            f"  {label:38} {s * 1e3:8.2f} ms {flops / s / 1e9:7.1f} GFLOP/s  {numpy_s / s:4.2f}× numpy"
            f"  (built in {compile_s:.2f} s, max error {error:.1e})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
