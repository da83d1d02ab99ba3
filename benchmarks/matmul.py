"""1024³ float32 C = A·Bᵀ on the CPU: xtir schedules against numpy's `a @ b.T`, in one process.

Run: python benchmarks/matmul.py [--n N] [--repeat R]

Prints a markdown table: median time, GFLOP/s, the ratio to numpy, and the compile
time from IR text to a callable (parse, schedule, lower, LLVM -O3, JIT). Every result
is checked against numpy before it is timed.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import fair_threads  # noqa: F401 - first, before numpy and torch load their thread pools
import numpy as np

import xtir

ROOT = Path(__file__).resolve().parent.parent

SEED_TENSORIZE = (
    "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
    "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},"
    'cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},'
    'compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},'
    'cache-write{block=matmul_o index=0 scope="global.accumulator"},'
    'reverse-compute-at{block="C_global.accumulator" loop=j_0},decompose-reduction{block=matmul_o loop=k_0},'
    "tensorize{block=matmul_o_update intrin=tmm16},parallel{loop=i_0}"
)

# Pack a transposed panel of B per j_0 (contiguous along j), keep an 8x32 tile of C in a
# local buffer, vectorize along j, unroll along i, and run the j_0 panels in parallel.
HAND_CPU = (
    "split{loop=i factors=-1,8},split{loop=j factors=-1,32},reorder{loops=j_0,i_0,k,i_1,j_1},"
    'cache-read{block=matmul index=1 scope="global"},transform-layout{buffer=B_global permutation=1,0},'
    "compute-at{block=B_global loop=j_0},"
    'cache-write{block=matmul index=0 scope="local"},reverse-compute-at{block=C_local loop=i_0},'
    "decompose-reduction{block=matmul loop=k},"
    "vectorize{loop=j_1},unroll{loop=i_1},parallel{loop=j_0}"
)

SCHEDULES = {
    "(a) naive loop nest": "",
    "(b) hand CPU schedule": HAND_CPU,
    "(c) seed tensorize + parallel": SEED_TENSORIZE,
}


def median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--only", help="run only the schedules whose label contains this text")
    args = parser.parse_args()
    n = args.n
    text = re.sub(r"(?<!\d)1024(?!\d)", str(n), (ROOT / "examples" / "matmul.mlir").read_text())
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    expected = a @ b.T
    flops = 2.0 * n**3
    numpy_s = median_seconds(lambda: a @ b.T, args.repeat)
    print(f"{n}x{n}x{n} float32 C = A·Bᵀ, median of {args.repeat}\n")
    print("| schedule | time (ms) | GFLOP/s | × numpy | compile (s) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| numpy `a @ b.T` | {numpy_s * 1e3:.2f} | {flops / numpy_s / 1e9:.1f} | 1.00 | |")
    for label, pipeline in SCHEDULES.items():
        if args.only and args.only not in label:
            continue
        start = time.perf_counter()
        module = xtir.parse(text)
        if pipeline:
            module = xtir.transform(module, pipeline)
        compiled = xtir.build(module)
        compile_s = time.perf_counter() - start
        c = np.empty((n, n), dtype=np.float32)
        compiled(a, b, c)
        np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-2)
        repeat = args.repeat if label[1] != "a" else max(1, args.repeat // 5)
        s = median_seconds(lambda: compiled(a, b, c), repeat)  # noqa: B023 - called right away
        print(f"| {label} | {s * 1e3:.2f} | {flops / s / 1e9:.1f} | {numpy_s / s:.2f} | {compile_s:.2f} |")


if __name__ == "__main__":
    main()
