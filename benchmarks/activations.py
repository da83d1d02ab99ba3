"""Elementwise activations over 1M floats: xtir against torch, one thread each, in one process.

Run: python benchmarks/activations.py [--size N] [--repeat R] [--dtype float32|float16]   (needs PyTorch)

Each activation (sigmoid, tanh, SiLU, GELU erf and tanh forms, and softmax over rows of 1024
for exp) is imported from torch
(`from_torch`), fused, scheduled by default-schedule and built (`compile_model`); torch runs
the same function under `torch.inference_mode()` with `torch.set_num_threads(1)` (xtir's
OpenMP is held to one thread too). Each result is checked against torch before it is timed (softmax to 1e-5: its sums add in
another order).
"scalar" is xtir built as before lowering/vector_math.py (exp as `llvm.exp`, erf and tanh as
scalar libm calls; `scalar_math` switches it off in this process), to show what it gains.
Prints a markdown table: the median time of a call (Python overhead included), throughput in
elements per nanosecond, and torch's and scalar xtir's times divided by xtir's (above 1: xtir
is faster).
"""

from __future__ import annotations

import argparse
import contextlib
import os

import fair_threads  # noqa: F401 - first, before numpy and torch load their thread pools
from mlp import median_ms


@contextlib.contextmanager
def scalar_math():
    """Build as before lowering/vector_math.py: no inline exp / erf, no libmvec variants, and
    default-schedule leaves a block calling erf unmarked, as it did."""
    import sys
    from unittest import mock

    from xtir.lowering import arith_to_llvm, jit
    from xtir.passes import default_schedule

    compiled = sys.modules["xtir.build"]._CACHE  # the module: `xtir.build` is the function
    compiled.clear()
    with (
        mock.patch.object(arith_to_llvm, "expands", lambda op: False),
        mock.patch.object(default_schedule, "expands", lambda op: False),
        mock.patch.object(jit, "host_vector_variants", frozenset),
    ):
        yield
    compiled.clear()


def activations():
    import torch
    import torch.nn.functional as F

    return {
        "softmax (exp)": lambda x: torch.softmax(x, -1),
        "sigmoid": torch.sigmoid,
        "tanh": torch.tanh,
        "silu": F.silu,
        "gelu (erf)": F.gelu,
        "gelu (tanh)": lambda x: F.gelu(x, approximate="tanh"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--dtype", choices=["float32", "float16"], default="float32")
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"

    import numpy as np
    import torch

    import xtir
    from xtir.frontend import from_torch
    from xtir.model import compile_model

    class Activation(torch.nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, x):
            return self.fn(x)

    torch.set_num_threads(1)
    torch.manual_seed(0)
    dtype = getattr(torch, args.dtype)
    example = (4 * torch.randn(args.size // 1024, 1024)).to(dtype)
    x = example.numpy()
    eps = float(np.finfo(x.dtype).eps)
    print(f"{args.size} {args.dtype} elements, one thread; median of {args.repeat} calls\n")
    print("| activation | xtir ms | scalar ms | torch ms | xtir elem/ns | torch elem/ns | scalar / xtir | torch / xtir |")
    print("|---|---|---|---|---|---|---|---|")
    for name, fn in activations().items():
        module = Activation(fn)
        graph = xtir.transform(from_torch(module, (example,)), "fold-constants,fuse-ewise-fma,dce,fuse-ops")
        model = compile_model(graph)
        with scalar_math():
            scalar = compile_model(graph)
        with torch.inference_mode():
            expected = module(example).numpy()
            for got in (model(x), scalar(x)):
                np.testing.assert_allclose(got, expected, rtol=max(4 * eps, 1e-5), atol=2e-6, err_msg=name)
            torch_s = median_ms(module, example, args.repeat) / 1e3
        xtir_s = median_ms(model, x, args.repeat) / 1e3
        scalar_s = median_ms(scalar, x, args.repeat) / 1e3
        n = example.numel() * 1e-9
        print(
            f"| {name} | {xtir_s * 1e3:.3f} | {scalar_s * 1e3:.3f} | {torch_s * 1e3:.3f} | {n / xtir_s:.3f} | "
            f"{n / torch_s:.3f} | {scalar_s / xtir_s:.1f} | {torch_s / xtir_s:.2f} |"
        )


if __name__ == "__main__":
    main()
