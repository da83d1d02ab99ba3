"""Repeated split and fuse: loop names and bindings stay short, names unique, numbers right.

TVM names the fused loop `L0_L1_fused`, so fusing the two loops of a split doubles the name
(`i_0_j_0_fused_0_i_0_j_0_fused_1_fused`), and the binding `8 * (f floordiv 8) + f mod 8`
doubled with it: 16 rounds made 59 MB of IR.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import xtir
from xtir.dialects.block import ForOp

ROOT = Path(__file__).resolve().parent.parent


def test_sixteen_rounds_of_split_and_fuse_stay_small_and_correct() -> None:
    text = re.sub(r"(?<!\d)1024(?!\d)", "16", (ROOT / "examples" / "matmul.mlir").read_text())
    module = xtir.parse(text)
    sch = xtir.Schedule(module)
    size = len(str(sch.mod))
    for round_ in range(16):
        i, j, _k = sch.get_loops(sch.get_block("matmul"))
        outer, inner = sch.split(sch.fuse(i, j), [None, 8])
        sch.split(sch.fuse(outer, inner), [16, 16])
        names = [op.label for op in sch.mod.walk() if isinstance(op, ForOp)]
        assert len(names) == len(set(names)) == 3
        assert max(map(len, names)) <= 48, f"round {round_}: {names}"
        assert len(str(sch.mod)) <= size + 200, f"round {round_}:\n{sch.mod}"
    assert str(xtir.transform(module, sch.trace)) == str(sch.mod)

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((16, 16), np.float32), rng.standard_normal((16, 16), np.float32)
    evaluated, compiled = np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float32)
    xtir.evaluate(sch.mod, a, b, evaluated)
    xtir.build(sch.mod)(a, b, compiled)
    np.testing.assert_allclose(evaluated, a @ b.T, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(compiled, a @ b.T, rtol=1e-5, atol=1e-5)
