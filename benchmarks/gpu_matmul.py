"""C = A·B float32 on a GPU: seed 002's GEMM schedules and a hand schedule against cuBLAS, in one process.

Run: python benchmarks/gpu_matmul.py [--n 1024 4096] [--repeat R] [--banks]

`--banks` prints, without a GPU, each schedule's shared-memory wavefronts per warp over the
kernel against the conflict-free count (lowering/bank_conflicts.py, a static count); the timed
table has the same column. Otherwise it needs a CUDA GPU and CuPy (`pip install 'xtir[cuda]'`);
without them it prints why and exits 0. cuBLAS is CuPy's `a @ b` with TF32 off (CUPY_TF32=0), so both sides do full
float32 arithmetic. Prints a markdown table per size: median kernel time (CUDA events,
device arrays, no copies), TFLOP/s, the ratio to cuBLAS, and the compile times (xtir's
whole build, and NVRTC's part of it). Every result is checked against cuBLAS first.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

import xtir
from xtir.build import lower_to_gpu
from xtir.errors import XtirError
from xtir.lowering.bank_conflicts import warp_totals

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import seed_gpu  # noqa: E402

SCHEDULES = {
    "seed: local blocking (8,8,8,8,4)": seed_gpu.GEMM_LOCAL,
    "seed: shared blocking (8,8,8,8,8)": seed_gpu.GEMM_SHARED,
    "seed: shared blocking, decomposed": seed_gpu.blocking_with_shared(8, 8, 8, decompose=True),
    "seed: shared blocking, A's rows padded to 9 (storage-align)": seed_gpu.GEMM_SHARED_PADDED,
    "hand: 128x128 tile, 8x8/thread, double-buffered, A k-major, float4": seed_gpu.GEMM_HAND,
    "hand, k in steps of 16": seed_gpu.hand_gemm(16),
    "hand without double buffering": seed_gpu.hand_gemm(double_buffer=False),
    "hand, A's tile row-major in shared": seed_gpu.hand_gemm(transpose_a=False),
    "hand, k in 16s, A's tile row-major": seed_gpu.hand_gemm(16, transpose_a=False),
    "hand, A's k-major rows padded to 132 (storage-align)": seed_gpu.hand_gemm(pad_a=True),
}


def kernel_seconds(cupy, fn, repeat: int, batch: int = 10) -> float:
    """Median time of `fn` on the GPU by CUDA events, after one warm-up run; `batch` calls are
    queued between two events so the Python side of a call overlaps the previous kernel."""
    fn()
    times = []
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        for _ in range(batch):
            fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3 / batch)
    return float(np.median(times))


def shared_wavefronts(pipeline: str, n: int) -> str:
    """`wavefronts (× conflict-free)` a warp spends on shared memory in one run, counted statically."""
    totals = warp_totals(lower_to_gpu(seed_gpu.scheduled("gpu_matmul.mlir", pipeline, n)))
    if totals is None or totals[1] == 0:
        return "unknown address" if totals is None else "no shared memory"
    return f"{totals[0]} ({totals[0] / totals[1]:.2f}×)"


def print_banks(sizes: list[int]) -> None:
    for n in sizes:
        print(f"\nn = {n}\n\n| schedule | shared wavefronts per warp (× conflict-free) |\n|---|---|")
        for name, pipeline in SCHEDULES.items():
            print(f"| {name} | {shared_wavefronts(pipeline, n)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--banks", action="store_true", help="only the static shared-memory bank counts (no GPU)")
    args = parser.parse_args()
    if args.banks:
        print_banks(args.n)
        return
    os.environ["CUPY_TF32"] = "0"
    try:
        from xtir.lowering.cuda_function import import_cupy

        cupy = import_cupy()
    except XtirError as e:
        print(f"gpu_matmul: not run: {e}")
        return
    print(f"device: {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    for n in args.n:
        rng = np.random.default_rng(0)
        a = cupy.asarray(rng.standard_normal((n, n), dtype=np.float32))
        b = cupy.asarray(rng.standard_normal((n, n), dtype=np.float32))
        expected = a @ b
        flops = 2.0 * n**3
        cublas = kernel_seconds(cupy, lambda a=a, b=b: a @ b, args.repeat)
        print(f"\nn = {n}\n\n| schedule | time (ms) | TFLOP/s | × cuBLAS | build (s) | NVRTC (s) | shared wavefronts/warp |"
              "\n|---|---|---|---|---|---|---|")
        print(f"| cuBLAS (CuPy a @ b, no TF32) | {cublas * 1e3:.3f} | {flops / cublas / 1e12:.1f} | 1.00 | | | |")
        for name, pipeline in SCHEDULES.items():
            f = xtir.build(seed_gpu.scheduled("gpu_matmul.mlir", pipeline, n), target="cuda")
            c = cupy.full((n, n), cupy.nan, dtype=cupy.float32)
            f(a, b, c)
            err = float(cupy.max(cupy.abs(c - expected)))
            if not err < 1e-3 * n**0.5:
                print(f"| {name} | wrong result: max_abs_err={err:.3g} | | | | | |")
                continue
            seconds = kernel_seconds(cupy, lambda f=f, a=a, b=b, c=c: f(a, b, c), args.repeat)
            print(f"| {name} | {seconds * 1e3:.3f} | {flops / seconds / 1e12:.1f} | {cublas / seconds:.2f} "
                  f"| {f.compile_seconds:.2f} | {f.nvrtc_seconds:.2f} | {shared_wavefronts(pipeline, n)} |")


if __name__ == "__main__":
    main()
