"""The loop-carried dependence check never accepts a loop whose iteration order matters.

Random loop nests of one or two blocks that read and write buffers at random affine indices
(with floordiv / mod and predicates); for each loop that parallel accepts, running its
iterations backwards (the loop variable replaced by extent - 1 - it) must give the same
numbers in the reference evaluator. A loop whose iterations share an element one of them
writes gives different numbers in one order or the other (the values written are distinct),
so an accepted loop that changes the result is a missed dependence.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import xtir
from xtir.dialects.block import BlockOp
from xtir.dialects.expr import Expr
from xtir.passes.analysis.navigation import all_loops
from xtir.passes.transforms.rewrite import substitute_in_op

SIZE = 72


def _index(rnd: random.Random, variables: list[str]) -> str:
    terms = [f"{rnd.choice([-2, -1, 1, 1, 2, 3])} * {v}" for v in variables if rnd.random() < 0.7] or ["0"]
    e = "(" + " + ".join(terms) + ")"
    if rnd.random() < 0.25:
        e = f"({e} {rnd.choice(['floordiv', 'mod'])} {rnd.choice([2, 3, 4])})"
    return e


def _place(rnd: random.Random, e: str) -> str:
    """`e` moved into [0, SIZE): shifted (|e| stays below SIZE / 2 here), or wrapped by a mod."""
    return f"{e} + {SIZE // 2}" if rnd.random() < 0.5 else f"({e} + {SIZE * 8}) mod {SIZE}"


def _program(rnd: random.Random) -> str:
    """Two loops i, j and one or two blocks reading and writing %X and %Y."""
    ei, ej = rnd.choice([2, 3, 4, 6]), rnd.choice([2, 3, 4])
    blocks = []
    for name in ["P", "Q"][: rnd.choice([1, 2])]:
        src, dst = rnd.choice(["%X", "%Y"]), rnd.choice(["%X", "%Y"])
        where = f" where(%i + %j < {rnd.choice([3, 4, 5])})" if rnd.random() < 0.3 else ""
        read = _place(rnd, _index(rnd, ["%vi", "%vj"]))
        write = _place(rnd, _index(rnd, ["%vi", "%vj"]))
        blocks.append(f"""
        block.block "{name}"(%vi = spatial({ei}, %i), %vj = spatial({ej}, %j)){where} {{
          %a = block.load {src}[{read}] : memref<{SIZE}xf32>
          %k = arith.constant {rnd.randint(1, 9)}.0 : f32
          %s = arith.addf %a, %k : f32
          block.store %s, {dst}[{write}] : memref<{SIZE}xf32>
        }}""")
    return f"""
func.func @main(%X: memref<{SIZE}xf32>, %Y: memref<{SIZE}xf32>) {{
  block.for %i = 0 to {ei} "i" {{
    block.for %j = 0 to {ej} "j" {{{"".join(blocks)}
    }}
  }}
  func.return
}}
"""


def _reversed(module: xtir.ModuleOp, name: str) -> xtir.ModuleOp:
    """A copy whose loop `name` runs its iterations in the opposite order."""
    copy = module.clone()
    loop = next(lp for lp in all_loops(copy) if lp.label == name)
    mapping = {loop.var: Expr.of(loop.extent - 1) - Expr.var(loop.var)}
    for user in {id(u.operation): u.operation for u in loop.var.uses}.values():
        assert isinstance(user, BlockOp)
        substitute_in_op(user, mapping)
    return copy


def _run(module: xtir.ModuleOp, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x, y = x.copy(), y.copy()
    xtir.evaluate(module, x, y)
    return x, y


@pytest.mark.parametrize("seed", range(6))
def test_accepted_loops_do_not_depend_on_iteration_order(seed: int) -> None:
    rnd = random.Random(seed)
    accepted = refused = 0
    for _ in range(60):
        module = xtir.parse(_program(rnd))
        x = np.arange(SIZE, dtype=np.float32) * 100
        y = np.arange(SIZE, dtype=np.float32) * 1000 + 7
        for name in ("i", "j"):
            try:
                xtir.transform(module, f"parallel{{loop={name}}}")
            except xtir.XtirPassError:
                refused += 1
                continue
            accepted += 1
            forward, backward = _run(module, x, y), _run(_reversed(module, name), x, y)
            for a, b in zip(forward, backward):
                np.testing.assert_array_equal(a, b, err_msg=f"loop {name} accepted:\n{module}")
    assert accepted and refused  # both kinds occur, so the test can fail

