"""Seed 003's MLP from PyTorch, end to end: import, rewrite, fuse, legalize, schedule, build, run.

Run: python examples/mlp.py   (needs PyTorch: pip install -e '.[torch]')

A `torch.nn.Sequential` MLP (784 -> 128 -> relu -> 10) is imported through torch.fx with its
weights as constants, then for batch 1 and 64:

  graph passes   fold-constants, fuse-ewise-fma, dce    (graph rewrites)
                 fuse-ops                               (dense + bias + relu: one operator)
  legalize       legalize-tensor                        (block functions, a host function)
  schedule       default-schedule                       (tiles, vectorizes, parallelizes)
  build          xtir.build                             (LLVM, JIT)

and the compiled model is compared with torch's output and timed against it. Each step's
functions are printed; `compile_model` does legalize, schedule and build in one call (the
timed model is made that way). examples/cnn.py runs a small CNN with the same steps.
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np
import torch

import xtir
from xtir.dialects.block import ForOp
from xtir.frontend import from_torch
from xtir.model import compile_model

GRAPH_PASSES = "fold-constants,fuse-ewise-fma,dce"


def functions(module) -> str:
    return ", ".join(f"@{f.sym_name.data}" for f in module.ops)


def median_ms(call, repeat: int = 50) -> float:
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def run_end_to_end(name: str, model: torch.nn.Module, example: torch.Tensor) -> None:
    """Import `model` at the batch of `example`, take it through every step, check and time it."""
    model = model.eval()
    graph = from_torch(model, (example,))
    print(f"{name}, batch {example.shape[0]}: imported {functions(graph)}")
    graph = xtir.transform(graph, GRAPH_PASSES)
    fused = xtir.transform(graph, "fuse-ops")
    print(f"  fuse-ops          {functions(fused)}")
    legal = xtir.transform(fused, "legalize-tensor")
    print(f"  legalize-tensor   {functions(legal)}")
    scheduled = xtir.transform(legal, "default-schedule")
    kinds = Counter(loop.kind for loop in scheduled.walk() if isinstance(loop, ForOp))
    print(f"  default-schedule  loops: {', '.join(f'{n} {kind}' for kind, n in sorted(kinds.items()))}")
    compiled = compile_model(fused)  # legalize-tensor, default-schedule, xtir.build
    print(f"  built in {compiled.compiled.compile_seconds:.2f} s")

    x = example.numpy()
    with torch.inference_mode():
        expected = model(example).numpy()
        torch_ms = median_ms(lambda: model(example))
    got = compiled(x)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    print(f"  matches torch (max abs err {np.max(np.abs(got - expected)):.2g})")
    xtir_ms = median_ms(lambda: compiled(x))
    print(f"  xtir {xtir_ms:.3f} ms, torch {torch_ms:.3f} ms ({torch.get_num_threads()} threads): "
          f"torch/xtir = {torch_ms / xtir_ms:.2f}")


def main() -> None:
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    for batch in (1, 64):
        run_end_to_end("MLP 784-128-10", mlp, torch.randn(batch, 784))


if __name__ == "__main__":
    main()
