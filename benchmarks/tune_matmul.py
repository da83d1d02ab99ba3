"""Tuned 1024³ float32 matmuls (C = A·Bᵀ and C = A·B) against the hand schedule of
benchmarks/matmul.py, numpy and the machine's FMA peak, all measured in this process.

Run: python benchmarks/tune_matmul.py [--n N] [--trials T] [--seed S] [--db PATH]

The peak is a JIT-compiled loop of independent 16-lane vector FMAs, on one thread and on one
thread per core at once. Prints a markdown table of GFLOP/s and the fraction of that peak.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import threading
import time
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
from matmul import HAND_CPU, median_seconds

import xtir
from xtir.tune import search

ROOT = Path(__file__).resolve().parent.parent
ACCUMULATORS, LANES = 12, 16


def _splat(value: float) -> str:
    return "<" + ", ".join([f"float {value:e}"] * LANES) + ">"


# Every accumulator starts from its own value and is summed at the exit: chains that were
# identical or unused would be merged or removed by LLVM, and the loop would do fewer FMAs than
# it counts (one of twelve, before this was seen).
FMA_LOOP = (
    f"declare <{LANES} x float> @llvm.fma.v{LANES}f32(<{LANES} x float>, <{LANES} x float>, <{LANES} x float>)\n"
    "define float @fma_loop(i64 %n) {\nentry:\n  br label %loop\nloop:\n"
    "  %i = phi i64 [0, %entry], [%next, %loop]\n"
    + "".join(f"  %a{k} = phi <{LANES} x float> [{_splat(k)}, %entry], [%b{k}, %loop]\n" for k in range(ACCUMULATORS))
    + "".join(f"  %b{k} = call <{LANES} x float> @llvm.fma.v{LANES}f32(<{LANES} x float> %a{k}, <{LANES} x float> {_splat(0.5)}, "
              f"<{LANES} x float> {_splat(1.0)})\n" for k in range(ACCUMULATORS))
    + "  %next = add i64 %i, 1\n  %done = icmp eq i64 %next, %n\n  br i1 %done, label %exit, label %loop\nexit:\n"
    + f"  %s0 = fadd <{LANES} x float> %b0, zeroinitializer\n"
    + "".join(f"  %s{k} = fadd <{LANES} x float> %s{k - 1}, %b{k}\n" for k in range(1, ACCUMULATORS))
    + f"  %e = call float @llvm.vector.reduce.fadd.v{LANES}f32(float 0.0, <{LANES} x float> %s{ACCUMULATORS - 1})\n"
    + f"  ret float %e\n}}\ndeclare float @llvm.vector.reduce.fadd.v{LANES}f32(float, <{LANES} x float>)\n"
)


def fma_peak(threads: int, iterations: int = 20_000_000, runs: int = 5) -> float:
    """GFLOP/s of `threads` threads each running the FMA loop (ctypes releases the GIL), the
    best of `runs`: on a shared machine the slower runs are the disturbed ones."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=3)
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(FMA_LOOP), target)
    engine.finalize_object()
    loop = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_int64)(engine.get_function_address("fma_loop"))
    loop(1000)
    seconds = min(_threaded_seconds(loop, threads, iterations) for _ in range(runs))
    return threads * iterations * ACCUMULATORS * LANES * 2 / seconds / 1e9


def _threaded_seconds(loop, threads: int, iterations: int) -> float:
    workers = [threading.Thread(target=loop, args=(iterations,)) for _ in range(threads)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - start


def matmul_text(n: int, transposed_b: bool) -> str:
    text = re.sub(r"(?<!\d)1024(?!\d)", str(n), (ROOT / "examples" / "matmul.mlir").read_text())
    return text if transposed_b else text.replace("%B[%vj, %vk]", "%B[%vk, %vj]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", help="a tuning database to reuse and extend")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    n, cores = args.n, os.cpu_count() or 1
    flops = 2.0 * n**3
    peak1, peak = fma_peak(1), fma_peak(cores)
    print(f"FMA peak: {peak1:.0f} GFLOP/s on one core, {peak:.0f} on {cores}; load average {os.getloadavg()[0]:.1f}\n")
    print("| C = | schedule | GFLOP/s | fraction of peak |")
    print("| --- | --- | ---: | ---: |")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, n, n), dtype=np.float32)
    for label, transposed in (("A·Bᵀ", True), ("A·B", False)):
        module = xtir.parse(matmul_text(n, transposed))
        expected = a @ (b.T if transposed else b)
        numpy_s = median_seconds(lambda: a @ (b.T if transposed else b), args.repeat)  # noqa: B023
        rows = [("numpy", numpy_s)]
        hand = HAND_CPU if transposed else HAND_CPU.replace(
            'cache-read{block=matmul index=1 scope="global"},transform-layout{buffer=B_global permutation=1,0},'
            "compute-at{block=B_global loop=j_0},", "")
        start = time.perf_counter()
        result = search(module, trials=args.trials, seed=args.seed, database=args.db, progress=True)
        tune_s = time.perf_counter() - start
        for name, pipeline in (("hand (benchmarks/matmul.py)", hand), (f"tuned, {args.trials} trials", result.best.trace)):
            compiled = xtir.build(xtir.transform(module, pipeline))
            c = np.empty((n, n), np.float32)
            compiled(a, b, c)
            np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-2)
            rows.append((name, median_seconds(lambda: compiled(a, b, c), args.repeat)))  # noqa: B023
        for name, s in rows:
            print(f"| {label} | {name} | {flops / s / 1e9:.1f} | {flops / s / 1e9 / peak:.2f} |")
        print(f"\n{label}: tuning took {tune_s:.0f} s ({result.measured} measured, {result.failures} failed); "
              f"best pipeline:\n{result.best.trace}\n")


if __name__ == "__main__":
    main()
