"""C = A·B float32 on a GPU: seed 002's GEMM schedules and a hand schedule against cuBLAS, in one process.

Run: python benchmarks/gpu_matmul.py [--n 1024 4096] [--repeat R] [--banks]

`--banks` prints, without a GPU, each schedule's shared-memory wavefronts per warp over the
kernel against the conflict-free count (lowering/bank_conflicts.py, a static count).
Otherwise it needs a CUDA GPU and CuPy (`pip install 'xtir[cuda]'`); without them it prints why and
exits 0. cuBLAS is CuPy's `a @ b` in full float32 arithmetic: TF32 off (CUPY_TF32=0, CuPy's
default, and NVIDIA_TF32_OVERRIDE=0), and checked: its result is compared with float64 on a
few rows, where TF32 would be off by about 1e-1. Prints a markdown table per size, a row as
soon as it is measured: median kernel time (CUDA events, device arrays, no copies), TFLOP/s,
the ratio to cuBLAS, and the compile times (xtir's whole build, and NVRTC's part of it).
Every result is checked against cuBLAS first.

Each size runs in a child process. A schedule that fails (an XtirError, a wrong result) gets
a row saying so and the others go on; one that leaves the GPU context unusable (an illegal
address), kills or hangs its process gets such a row too, and a new child measures cuBLAS
again and goes on with the schedules after it.
"""

from __future__ import annotations

import os

os.environ["CUPY_TF32"] = "0"  # before CuPy is imported: it reads these once
os.environ["NVIDIA_TF32_OVERRIDE"] = "0"  # cuBLAS: no TF32 whatever the caller asks

import argparse  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import xtir  # noqa: E402
from xtir.build import lower_to_gpu  # noqa: E402
from xtir.errors import XtirError  # noqa: E402
from xtir.lowering.bank_conflicts import warp_totals  # noqa: E402

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
    "hand, 2x4 thread tiles per quarter warp (B's fragment conflict-free)": seed_gpu.hand_gemm(phase_grid=True),
    "hand, 2x4 tiles per quarter warp, A's rows padded to 132": seed_gpu.hand_gemm(pad_a=True, phase_grid=True),
    "hand, columns in two groups of 4, 64 apart (vthread.x)": seed_gpu.hand_gemm(split_columns=True),
}
NOT_RUN = "gpu_matmul: not run"
CONTEXT_LOST = 75
"""A child's exit status after a schedule's failure left its CUDA context unusable (reported)."""
SECONDS_PER_SCHEDULE = 90
"""How long a child may go without a row (a schedule's build, check and timing; at first CuPy's
start and cuBLAS) before it counts as hung."""


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


def row(*cells: object) -> None:
    print(f"| {' | '.join(str(c) for c in cells)} |", flush=True)


def float32_error(a, b, c, rows: int = 8) -> float:
    """The largest error of `c = a @ b` on its first rows against float64 on the host."""
    exact = a[:rows].get().astype(np.float64) @ b.get().astype(np.float64)
    return float(np.max(np.abs(c[:rows].get() - exact)))


def measure(cupy, name: str, n: int, a, b, expected, cublas: float, repeat: int) -> None:
    f = xtir.build(seed_gpu.scheduled("gpu_matmul.mlir", SCHEDULES[name], n), target="cuda")
    c = cupy.full((n, n), cupy.nan, dtype=cupy.float32)
    f(a, b, c)
    err = float(cupy.max(cupy.abs(c - expected)))
    if not err < 1e-3 * n**0.5:
        row(name, f"wrong result: max_abs_err={err:.3g}", "", "", "", "")
        return
    seconds = kernel_seconds(cupy, lambda: f(a, b, c), repeat)
    flops = 2.0 * n**3
    row(name, f"{seconds * 1e3:.3f}", f"{flops / seconds / 1e12:.1f}", f"{cublas / seconds:.2f}",
        f"{f.compile_seconds:.2f}", f"{f.nvrtc_seconds:.2f}")


def context_usable(cupy) -> bool:
    try:
        cupy.cuda.Device().synchronize()
        return float(cupy.ones(4, cupy.float32).sum()) == 4
    except Exception:  # noqa: BLE001 (a sticky CUDA error: anything CuPy raises for it)
        return False


def child(n: int, names: list[str], repeat: int) -> int:
    """Measure cuBLAS and the schedules `names` at size n, a row each as it goes."""
    try:
        from xtir.lowering.cuda_function import import_cupy

        cupy = import_cupy()
    except XtirError as e:
        print(f"{NOT_RUN}: {e}", flush=True)
        return 0
    print(f"device: {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}", flush=True)
    rng = np.random.default_rng(0)
    a = cupy.asarray(rng.standard_normal((n, n), dtype=np.float32))
    b = cupy.asarray(rng.standard_normal((n, n), dtype=np.float32))
    expected = a @ b
    reference_error = float32_error(a, b, expected)
    cublas = kernel_seconds(cupy, lambda: a @ b, repeat)
    print(f"\nn = {n}\n\n| schedule | time (ms) | TFLOP/s | × cuBLAS | build (s) | NVRTC (s) |\n|---|---|---|---|---|---|")
    arithmetic = "float32" if reference_error < 1e-2 else f"NOT float32: error {reference_error:.2g} vs float64, TF32?"
    row(f"cuBLAS (CuPy a @ b, {arithmetic})", f"{cublas * 1e3:.3f}", f"{2.0 * n**3 / cublas / 1e12:.1f}", "1.00", "", "")
    for name in names:
        try:
            measure(cupy, name, n, a, b, expected, cublas, repeat)
        except Exception as e:  # noqa: BLE001 (report and go on to the next schedule)
            traceback.print_exc()
            row(name, f"failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", "", "", "", "")
            if not context_usable(cupy):
                return CONTEXT_LOST
    return 0


def run_isolated(schedules: list[str], child_command: Callable[[list[str]], list[str]]) -> bool:
    """Run `schedules` in child processes (`child_command(names)` measures `names`), a new one
    after a schedule that killed, hung or broke its process; False when there is no GPU."""
    remaining = schedules
    while remaining:
        reported: set[str] = set()
        status = _run_child(child_command(remaining), reported)
        if NOT_RUN in reported:
            return False
        done = [name for name in remaining if name in reported]
        left = [name for name in remaining if name not in reported]
        if status != 0 and left and (status != CONTEXT_LOST or not done):
            why = "hung: killed" if status is None else f"its process died (exit {status})"
            row(left[0], f"failed: {why}; see stderr", "", "", "", "")
            left = left[1:]
        if status == 0:
            break
        remaining = left
    return True


def _run_child(command: list[str], reported: set[str]) -> int | None:
    """Run a child, echoing its lines as they come and noting the schedules it reported (and
    NOT_RUN); its exit status, or None when it printed nothing for SECONDS_PER_SCHEDULE and was
    killed. A parent stopped (the session's timeout) stops its child too."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    last_line = [time.monotonic()]

    def relay() -> None:
        for line in process.stdout:
            print(line, end="", flush=True)
            last_line[0] = time.monotonic()
            if line.startswith(NOT_RUN):
                reported.add(NOT_RUN)
            elif line.startswith("| "):
                reported.add(line[2:].split(" | ")[0])

    reader = threading.Thread(target=relay, daemon=True)
    reader.start()
    try:
        while process.poll() is None:
            if time.monotonic() - last_line[0] > SECONDS_PER_SCHEDULE:
                process.kill()
                process.wait()
                return None
            time.sleep(0.2)
        reader.join()
        return process.returncode
    finally:
        if process.poll() is None:
            process.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--banks", action="store_true", help="only the static shared-memory bank counts (no GPU)")
    parser.add_argument("--child", nargs="+", metavar="SCHEDULE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.banks:
        print_banks(args.n)
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # `timeout`'s signal: run the finally clauses
    if args.child:
        sys.exit(child(args.n[0], args.child, args.repeat))
    for n in args.n:
        command = [sys.executable, __file__, "--n", str(n), "--repeat", str(args.repeat), "--child"]
        if not run_isolated(list(SCHEDULES), lambda names, command=command: [*command, *names]):
            return


if __name__ == "__main__":
    main()
