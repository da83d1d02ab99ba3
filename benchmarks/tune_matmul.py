"""Tuned 1024³ float32 matmuls (C = A·Bᵀ and C = A·B), a 2D convolution and the window sum
against the hand schedule of benchmarks/matmul.py, numpy (torch for the convolution) and the
machine's FMA peak, all measured in this process (the libraries and schedules timed in turns,
so that the machine's load weighs on each alike; the tuned ÷ hand ratio is printed).

Run: python benchmarks/tune_matmul.py [--workload W ...] [--n N] [--trials T] [--seed S] [--db PATH]

Workloads: abt (C = A·Bᵀ), ab (C = A·B), conv2d (1x64x56x56 input, 64 3x3 filters, padding 1,
NCHW), window_sum (B[i] = A[i] + A[i+1] + A[i+2] over --window elements); the two matmuls by
default. The peak is a JIT-compiled loop of independent 16-lane vector FMAs, on one thread and
on one thread per core at once. Prints a markdown table of GFLOP/s (the median call) and the
fraction of that peak, and the GFLOP/s of the best call.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import fair_threads  # noqa: F401 - first, before numpy and torch load their thread pools
import llvmlite.binding as llvm
import numpy as np
from matmul import HAND_CPU, median_seconds
from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir import te, topi
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


@dataclass
class Workload:
    label: str
    module: ModuleOp
    inputs: list[np.ndarray]
    """The arguments, outputs last (as the function takes them)."""
    reference: dict[str, Callable[[], np.ndarray]]
    """Library implementations, each returning the output."""
    flops: float
    hand: str | None = None


def matmul_workload(n: int, transposed: bool, rng: np.random.Generator) -> Workload:
    a, b = rng.standard_normal((2, n, n), dtype=np.float32)
    # the hand schedule packs a panel of B per j_0; for A·B the panel is already contiguous along j
    hand = HAND_CPU if transposed else HAND_CPU.replace("transform-layout{buffer=B_global permutation=1,0},", "")
    return Workload("A·Bᵀ" if transposed else "A·B", xtir.parse(matmul_text(n, transposed)),
                    [a, b, np.empty((n, n), np.float32)],
                    {"numpy": (lambda: a @ b.T) if transposed else (lambda: a @ b)}, 2.0 * n**3, hand)


def conv2d_workload(rng: np.random.Generator, batch: int = 1, channels: int = 64, size: int = 56,
                    filters: int = 64, kernel: int = 3) -> Workload:
    x = te.placeholder((batch, channels, size, size), name="x")
    w = te.placeholder((filters, channels, kernel, kernel), name="w")
    y = topi.conv2d_nchw(x, w, padding=kernel // 2)
    xs = rng.standard_normal(x.shape, dtype=np.float32)
    ws = rng.standard_normal(w.shape, dtype=np.float32)
    reference = {}
    try:
        import torch
    except ImportError:
        pass
    else:
        tx, tw = torch.from_numpy(xs), torch.from_numpy(ws)
        reference["torch"] = lambda: torch.nn.functional.conv2d(tx, tw, padding=kernel // 2).numpy()
    flops = 2.0 * batch * filters * size * size * channels * kernel * kernel
    return Workload("conv2d", ModuleOp([te.create_func([x, w, y], "main")]),
                    [xs, ws, np.empty(y.shape, np.float32)], reference, flops)


def window_sum_workload(n: int, rng: np.random.Generator) -> Workload:
    text = (ROOT / "examples" / "window_sum.mlir").read_text()
    text = re.sub(r"(?<!\d)1026(?!\d)", str(n + 2), re.sub(r"(?<!\d)1024(?!\d)", str(n), text))
    a = rng.standard_normal(n + 2, dtype=np.float32)
    return Workload("window sum", xtir.parse(text), [a, np.empty(n, np.float32)],
                    {"numpy": lambda: a[:-2] + a[1:-1] + a[2:]}, 2.0 * n)


def run(w: Workload, args: argparse.Namespace, peak: float) -> None:
    expected = next(iter(w.reference.values()))() if w.reference else None
    start = time.perf_counter()
    result = search(w.module, trials=args.trials, seed=args.seed, database=args.db, progress=True)
    tune_s = time.perf_counter() - start
    calls = dict(w.reference)
    schedules = [("hand (benchmarks/matmul.py)", xtir.transform(w.module, w.hand))] if w.hand else []
    for name, scheduled in [*schedules, (f"tuned, {args.trials} trials", result.best.mod)]:
        compiled = xtir.build(scheduled)
        arrays = [a.copy() for a in w.inputs]
        compiled(*arrays)
        if expected is not None:
            np.testing.assert_allclose(arrays[-1], expected, rtol=1e-3, atol=1e-2)
        calls[name] = partial(compiled, *arrays)
    seconds = times_in_turns(calls, args.repeat)
    for name, (s, best) in seconds.items():
        print(f"| {w.label} | {name} | {w.flops / s / 1e9:.1f} | {w.flops / s / 1e9 / peak:.2f} | "
              f"{w.flops / best / 1e9:.1f} |", flush=True)
    tuned = seconds[f"tuned, {args.trials} trials"][0]
    versus = f"; tuned ÷ hand {seconds[schedules[0][0]][0] / tuned:.2f}" if schedules else ""
    print(f"\n{w.label}: tuning took {tune_s:.0f} s ({result.measured} measured, {result.failures} failed){versus}; "
          f"best pipeline:\n{result.best.trace}\n", flush=True)


def times_in_turns(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, tuple[float, float]]:
    """The median and the best seconds of each call, timed in turns (one call of each per
    round), so that the machine's load weighs on all alike. On a shared machine a parallel call
    waits for its slowest thread, whose core another process may hold for a time slice: the
    median then measures the load, the best what the code can do."""
    for call in calls.values():
        call()  # warm-up
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            times[name].append(median_seconds(call, 1))
    return {name: (float(np.median(t)), min(t)) for name, t in times.items()}


WORKLOADS = ("abt", "ab", "conv2d", "window_sum")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", nargs="+", choices=WORKLOADS, default=["abt", "ab"])
    parser.add_argument("--n", type=int, default=1024, help="the matmuls' size")
    parser.add_argument("--window", type=int, default=1 << 22, help="the window sum's output elements")
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", help="a tuning database to reuse and extend")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    peak1, peak = fma_peak(1), fma_peak(cores)
    print(f"FMA peak: {peak1:.0f} GFLOP/s on one core, {peak:.0f} on {cores}; load average {os.getloadavg()[0]:.1f}\n")
    print("| workload | schedule | GFLOP/s | fraction of peak | best GFLOP/s |")
    print("| --- | --- | ---: | ---: | ---: |", flush=True)
    rng = np.random.default_rng(0)
    make = {"abt": lambda: matmul_workload(args.n, True, rng), "ab": lambda: matmul_workload(args.n, False, rng),
            "conv2d": lambda: conv2d_workload(rng), "window_sum": lambda: window_sum_workload(args.window, rng)}
    for name in args.workload:
        run(make[name](), args, peak)


if __name__ == "__main__":
    main()
