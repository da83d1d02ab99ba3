"""Seed 001's tensorization walkthrough through the Schedule API, checked against numpy.

Run: python examples/seed_tensorize.py [N]   (N: matrix size, a multiple of 16; default 64)

The same schedule as examples/seed_tensorize.sh: split/reorder into 16x16x16 tiles,
blockize, cache the tiles in the accelerator's scopes next to the tile loop, split the
init off, and compute the tile with accel.tmm16. The program is evaluated with the
reference evaluator (small N: it interprets every operation).
"""

import re
import sys
from pathlib import Path

import numpy as np

import xtir

EXAMPLES = Path(__file__).resolve().parent


def schedule(module):
    sch = xtir.Schedule(module)
    block_mm = sch.get_block("matmul")
    i, j, k = sch.get_loops(block_mm)
    i, ii = sch.split(i, factors=[None, 16])
    j, ji = sch.split(j, factors=[None, 16])
    k, ki = sch.split(k, factors=[None, 16])
    sch.reorder(i, j, k, ii, ji, ki)
    block_mm = sch.blockize(ii)
    a_reg = sch.cache_read(block_mm, 0, storage_scope="global.A_reg")
    b_reg = sch.cache_read(block_mm, 1, storage_scope="global.B_reg")
    sch.compute_at(a_reg, k)
    sch.compute_at(b_reg, k)
    c_acc = sch.cache_write(block_mm, 0, storage_scope="global.accumulator")
    sch.reverse_compute_at(c_acc, j)
    sch.decompose_reduction(block_mm, k)
    sch.tensorize(block_mm, "tmm16")
    return sch


def main(n: int) -> None:
    text = (EXAMPLES / "matmul.mlir").read_text()
    module = xtir.parse(re.sub(r"(?<!\d)1024(?!\d)", str(n), text))
    sch = schedule(module)
    sch.show()
    print(f"\n// xtir-opt -p '{sch.trace}'")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    c = np.empty((n, n), dtype=np.float32)
    xtir.evaluate(sch.mod, a, b, c)
    error = float(np.abs(c - a @ b.T).max())
    print(f"// {n}x{n}x{n}: max |C - A·Bᵀ| = {error:.2e}")
    sys.exit(0 if error < 1e-3 else 1)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 64)
