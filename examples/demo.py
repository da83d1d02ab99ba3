"""The README demo: the seed matmul through xtir-opt's machinery, then evaluated.

Prints the IR of examples/matmul.mlir with the read/write regions the analysis
derives, then runs a 32x32x32 instance through the reference evaluator and compares
it with numpy.
"""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np

import xtir

HERE = Path(__file__).resolve().parent


def main() -> int:
    opt = Path(sys.executable).parent / "xtir-opt"
    shown = subprocess.run(
        [str(opt), str(HERE / "matmul.mlir"), "-p", "test-block-regions"], capture_output=True, text=True
    )
    print(shown.stdout or shown.stderr)

    n = 32
    small = re.sub(r"(?<!\d)1024(?!\d)", str(n), (HERE / "matmul.mlir").read_text())
    module = xtir.parse(small, "matmul-32.mlir")
    rng = np.random.default_rng(0)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    c = np.empty((n, n), dtype=np.float32)
    xtir.evaluate(module, a, b, c)
    err = float(np.max(np.abs(c - a @ b.T)))
    print(f"matmul {n}x{n}x{n} on the reference evaluator: max |C - A @ B.T| = {err:.2e}")
    return 0 if err < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
