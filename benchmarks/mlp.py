"""End-to-end latency of imported PyTorch models: xtir against numpy and torch, in one process.

Run: python benchmarks/mlp.py [--threads T] [--repeat R]   (needs PyTorch)

Models: seed 003's MLP (784 -> 128 -> relu -> 10) at batch 1 and 64, the same with GELU's
tanh form in place of relu (its tanh: libmvec's vector tanhf, lowering/vector_math.py), and the small CNN of
examples/cnn.py (two conv2d + relu + max-pool, a linear head; 1x28x28) at batch 1 and 64.
xtir compiles each from `from_torch` through fold-constants, fuse-ewise-fma, dce, fuse-ops,
legalize-tensor, default-schedule and xtir.build (`compile_model`); numpy runs the same
model written with numpy (matmuls on its BLAS, convolutions as im2col + matmul); torch runs
the module under `torch.inference_mode()`. All three use T threads (default 1: OpenMP,
BLAS and torch's intra-op pool are all set to it before they start). Every result is
checked against torch before it is timed. A call of the compiled model includes its
Python overhead (argument checks, output allocation), as torch's and numpy's do.

Prints a markdown table: the median time of each, and torch's and numpy's time divided
by xtir's (above 1: xtir is faster).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import fair_threads  # noqa: F401 - first, before numpy and torch load their thread pools

ROOT = Path(__file__).resolve().parent.parent


def median_ms(model, x, repeat: int) -> float:
    import numpy as np

    for _ in range(3):
        model(x)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        model(x)
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def numpy_mlp(weights):
    import numpy as np

    w0, b0, w1, b1 = weights
    w0t, w1t = np.ascontiguousarray(w0.T), np.ascontiguousarray(w1.T)
    return lambda x: np.maximum(x @ w0t + b0, 0) @ w1t + b1


def numpy_mlp_gelu(weights):
    import numpy as np

    w0, b0, w1, b1 = weights
    w0t, w1t = np.ascontiguousarray(w0.T), np.ascontiguousarray(w1.T)

    def gelu(h):
        return 0.5 * h * (1 + np.tanh(np.float32(np.sqrt(2 / np.pi)) * (h + np.float32(0.044715) * h**3)))

    return lambda x: gelu(x @ w0t + b0) @ w1t + b1


def numpy_cnn(weights):
    import numpy as np

    from xtir.interpreters.tensor import sliding_windows

    w1, b1, w2, b2, w3, b3 = weights

    def conv_relu(x, w, b):  # 3x3, padding 1: im2col, then one matmul on the BLAS
        n, _, h, wd = x.shape
        cols = sliding_windows(x, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 0).transpose(0, 2, 3, 1, 4, 5)
        y = cols.reshape(n * h * wd, -1) @ w.reshape(w.shape[0], -1).T + b
        return np.maximum(y, 0).reshape(n, h, wd, -1).transpose(0, 3, 1, 2)

    def pool(x):
        n, c, h, w = x.shape
        return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))

    w3t = np.ascontiguousarray(w3.T)
    return lambda x: pool(conv_relu(pool(conv_relu(x, w1, b1)), w2, b2)).reshape(x.shape[0], -1) @ w3t + b3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)  # before numpy, torch and libgomp start their pools

    import numpy as np
    import torch

    import xtir
    from xtir.frontend import from_torch
    from xtir.model import compile_model

    sys.path.insert(0, str(ROOT / "examples"))
    from cnn import small_cnn

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).eval()
    gelu = torch.nn.GELU(approximate="tanh")
    mlp_gelu = torch.nn.Sequential(torch.nn.Linear(784, 128), gelu, torch.nn.Linear(128, 10)).eval()
    cnn = small_cnn().eval()
    cases = [
        ("MLP 784-128-10", mlp, numpy_mlp, (784,)),
        ("MLP 784-128-10 GELU", mlp_gelu, numpy_mlp_gelu, (784,)),
        ("CNN 2 conv + head", cnn, numpy_cnn, (1, 28, 28)),
    ]

    print(f"threads: {args.threads} (xtir OpenMP, numpy BLAS, torch intra-op); median of {args.repeat} calls\n")
    print("| model | batch | xtir ms | numpy ms | torch ms | numpy / xtir | torch / xtir | compile s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, module, numpy_model, shape in cases:
        weights = [p.detach().numpy() for p in module.parameters()]
        for batch in (1, 64):
            example = torch.randn(batch, *shape)
            x = example.numpy()
            start = time.perf_counter()
            graph = xtir.transform(from_torch(module, (example,)), "fold-constants,fuse-ewise-fma,dce,fuse-ops")
            model = compile_model(graph)
            compile_s = time.perf_counter() - start
            reference = numpy_model(weights)
            with torch.inference_mode():
                expected = module(example).numpy()
                for what, got in (("xtir", model(x)), ("numpy", reference(x))):
                    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4, err_msg=f"{name} {what}")
                torch_ms = median_ms(module, example, args.repeat)
            xtir_ms = median_ms(model, x, args.repeat)
            numpy_ms = median_ms(reference, x, args.repeat)
            print(f"| {name} | {batch} | {xtir_ms:.3f} | {numpy_ms:.3f} | {torch_ms:.3f} | "
                  f"{numpy_ms / xtir_ms:.2f} | {torch_ms / xtir_ms:.2f} | {compile_s:.1f} |")


if __name__ == "__main__":
    main()
