"""Seed 003's MLP from PyTorch on the GPU path: import, fuse, legalize, default-gpu-schedule, build, run.

Run: python examples/mlp_gpu.py [--target cuda|cuda-cpu] [--batch 1 64] [--show]
     (needs PyTorch; target "cuda" needs a GPU and CuPy; the default is "cuda" where one is
     usable, else "cuda-cpu", the same CUDA C run on the CPU, with its race detector)

`compile_model(graph, target=...)` schedules each block function with default-gpu-schedule
(each dense + bias + relu one kernel: a tile of the output per thread block, x and w tiles
in shared memory) and builds it for the target; the model is called with numpy arrays (on
"cuda" also with CuPy arrays: the results stay on the device), compared with torch, and
timed (on "cuda" by CUDA events around device-to-device calls; on "cuda-cpu" the times are
the emulation's, not a GPU's). Each kernel's line gives its launch and the schedule it got
(`model.schedule_report`: the tiles, or why one thread per output); --show prints its CUDA C.
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np
import torch

import xtir
from xtir.errors import XtirError
from xtir.frontend import from_torch
from xtir.lowering.cuda_function import import_cupy
from xtir.model import compile_model

GRAPH_PASSES = "fold-constants,fuse-ewise-fma,dce,fuse-ops"


def default_target() -> str:
    try:
        import_cupy()
    except XtirError:
        return "cuda-cpu"
    return "cuda"


def median_ms(call, sync=lambda: None, repeat: int = 50) -> float:
    call()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def run(model: torch.nn.Module, batch: int, target: str, show: bool) -> None:
    example = torch.randn(batch, 784)
    graph = xtir.transform(from_torch(model, (example,)), GRAPH_PASSES)
    start = time.perf_counter()
    compiled = compile_model(graph, target=target, racecheck=target == "cuda-cpu")
    seconds = time.perf_counter() - start
    expected = model(example).detach().numpy()
    error = float(np.max(np.abs(compiled(example.numpy()) - expected)))
    ok = "ok" if error < 1e-3 else "WRONG"
    if target == "cuda":
        cupy = import_cupy()
        x = cupy.asarray(example.numpy())
        ms = median_ms(lambda: compiled(x), cupy.cuda.Device().synchronize)
        on_gpu = copy.deepcopy(model).cuda()
        with torch.no_grad():
            x_torch = example.cuda()
            torch_ms = median_ms(lambda: on_gpu(x_torch), torch.cuda.synchronize)
    else:
        torch_ms = median_ms(lambda: model(example))
        ms = median_ms(lambda: compiled(example.numpy()), repeat=5)
    print(f"batch {batch} on {target}: {ok} (max error {error:.2e}), compiled in {seconds:.1f} s, "
          f"{ms:.3f} ms a call (torch on {'the GPU' if target == 'cuda' else 'the CPU'}: {torch_ms:.3f} ms)")
    for kernel in compiled.kernels:
        launches = ", ".join(f"grid {lc.grid} block {lc.block} shared {lc.shared_bytes} B" for lc in kernel.launches)
        schedules = "; ".join(f"{c.block} {c.schedule} ({c.detail})" for c in compiled.schedule_report
                              if c.function == kernel.name)
        print(f"  @{kernel.name}: {launches}; {schedules}")
        if show:
            print(kernel.cuda_source)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", choices=["cuda", "cuda-cpu"], default=None)
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--show", action="store_true", help="print each kernel's CUDA C")
    args = parser.parse_args()
    target = args.target or default_target()
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)).eval()
    for batch in args.batch:
        run(model, batch, target, args.show)


if __name__ == "__main__":
    main()
