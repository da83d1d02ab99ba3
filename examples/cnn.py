"""A small CNN from PyTorch, end to end, with the steps of examples/mlp.py.

Run: python examples/cnn.py   (needs PyTorch: pip install -e '.[torch]')

Two conv2d + relu + max-pool stages and a linear head on 1x28x28 images (fashion-MNIST
sized), at batch 1 and 64: fuse-ops makes each conv2d + bias + relu one operator, the
pools and the head their own; the compiled model is compared with torch and timed.
"""

from __future__ import annotations

import torch
from mlp import run_end_to_end  # examples/mlp.py: import, each step, check, time


def small_cnn() -> torch.nn.Module:
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 8x14x14
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 16x7x7
        nn.Flatten(), nn.Linear(16 * 7 * 7, 10),
    )


def main() -> None:
    torch.manual_seed(0)
    cnn = small_cnn()
    for batch in (1, 64):
        run_end_to_end("CNN", cnn, torch.randn(batch, 1, 28, 28))


if __name__ == "__main__":
    main()
