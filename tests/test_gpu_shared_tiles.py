"""lower-to-gpu sizes each shared buffer to one thread block's tile of one k step also when n (or
m) is smaller than the block tile: the cooperative fetch's guard on its fused index (`f < 480`
for an 8x60 tile fetched by 512 lanes) cuts the partial last row off, so B_shared is 8 x n, not
the kernel's k x n. Run through the cuda-cpu emulation against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import memref

import xtir
from tests.test_cuda import seed_gpu
from xtir.build import lower_to_gpu

HAND = seed_gpu.hand_gemm()
SHARED = seed_gpu.GEMM_SHARED
# name: (pipeline, (m, n, k), A_shared shape, B_shared shape); the hand GEMM's A tile is k-major
SMALL = {
    "hand 64x64x60": (HAND, (64, 64, 60), (2, 8, 64), (2, 8, 64)),
    "hand 60x60x64": (HAND, (60, 60, 64), (2, 8, 60), (2, 8, 60)),
    "hand 40x72x200": (HAND, (40, 72, 200), (2, 8, 40), (2, 8, 72)),
    "shared 64x64x60": (SHARED, (64, 64, 60), (64, 8), (8, 64)),
    "shared 60x60x64": (SHARED, (60, 60, 64), (60, 8), (8, 60)),
    "shared 40x72x200": (SHARED, (40, 72, 200), (40, 8), (8, 64)),
}


def _shared_shapes(module: xtir.ModuleOp) -> tuple[tuple[int, ...], tuple[int, ...]]:
    shapes = {op.memref.name_hint: op.memref.type.get_shape() for op in lower_to_gpu(module).walk()
              if isinstance(op, memref.AllocaOp)}
    return shapes["A_shared"], shapes["B_shared"]


@pytest.mark.parametrize("name", SMALL)
def test_small_n_tiles(name: str) -> None:
    """One k step's tiles, and numpy's numbers."""
    pipeline, (m, n, k), a_tile, b_tile = SMALL[name]
    module = seed_gpu.scheduled_gemm(pipeline, m, n, k)
    assert _shared_shapes(module) == (a_tile, b_tile)
    arrays, expected = seed_gpu.gemm_inputs(m, n, k, np.random.default_rng(0))
    xtir.build(module, target="cuda-cpu")(*arrays)
    assert float(np.max(np.abs(arrays[-1] - expected))) < 1e-3


def test_long_k_fits() -> None:
    """At 64x64x4096 the kernel-wide B tile (2 x 4096 x 64 floats) was over 48 KiB and refused;
    one k step's is 4 KiB."""
    module = seed_gpu.scheduled_gemm(HAND, 64, 64, 4096)
    assert _shared_shapes(module) == ((2, 8, 64), (2, 8, 64))
    kernel = xtir.build(module, target="cuda-cpu")
    assert [launch.shared_bytes for launch in kernel.launches] == [8192]
    arrays, expected = seed_gpu.gemm_inputs(64, 64, 4096, np.random.default_rng(0))
    kernel(*arrays)
    assert float(np.max(np.abs(arrays[-1] - expected))) < 1e-2
