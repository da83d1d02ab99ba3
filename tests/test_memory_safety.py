"""Parallel loops do not race.

Regression tests of issue 17 (item 5) and issue 14 (parallel over an intermediate buffer):
what the parallel primitive accepts, xtir.build compiles; what would race is refused by the
primitive (and by the build, for parallel loops written by hand). Outputs start as NaN, and
every array sits between guard zones that must come back untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir

PAD = 64
SENTINEL = np.float32(-12345.0)


class Guarded:
    """Arrays that live inside larger buffers, between guard zones filled with SENTINEL."""

    def __init__(self) -> None:
        self.buffers: list[np.ndarray] = []

    def array(self, values: np.ndarray) -> np.ndarray:
        flat = np.full(values.size + 2 * PAD, SENTINEL, dtype=values.dtype)
        self.buffers.append(flat)
        view = flat[PAD:-PAD].reshape(values.shape)
        view[...] = values
        return view

    def nan(self, *shape: int) -> np.ndarray:
        return self.array(np.full(shape, np.nan, np.float32))

    def check(self) -> None:
        for flat in self.buffers:
            assert (flat[:PAD] == SENTINEL).all() and (flat[-PAD:] == SENTINEL).all(), "a guard zone was written"


rng = np.random.default_rng(17)


def rand(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


# Parallel loops ---------------------------------------------------------------------------


def test_parallel_over_an_intermediate_buffer_builds(scaled: Callable[[str, Mapping[str, str]], ModuleOp]) -> None:
    """Issue 14: iterations of matmul's i write disjoint rows of temp, read after the loop by
    the add block; the build used to refuse it as a race."""
    sch = xtir.Schedule(scaled("matmul_bias", {"1024": "48"}))
    sch.parallel(sch.get_loops(sch.get_block("matmul"))[0])
    f = xtir.build(sch.mod)
    g = Guarded()
    a, b, c = g.array(rand(48, 48)), g.array(rand(48, 48)), g.array(rand(48, 48))
    d = g.nan(48, 48)
    f(a, b, c, d)
    g.check()
    np.testing.assert_allclose(d, a @ b.T + c, rtol=1e-4, atol=1e-4)


IN_PLACE = """
func.func @main(%U: memref<256xf32>, %T: memref<256xf32>) {
  block.for %i = 0 to 256 "i" {
    block.block "U"(%vi = spatial(256, %i)) {
      %u = block.load %U[%vi] : memref<256xf32>
      %t = block.load %T[%vi] : memref<256xf32>
      %half = arith.constant 5.000000e-01 : f32
      %h = arith.mulf %u, %half : f32
      %s = arith.addf %h, %t : f32
      block.store %s, %U[%vi] : memref<256xf32>
    }
  }
  func.return
}
"""


def test_in_place_update_stays_parallel() -> None:
    """U[i] = U[i] * 0.5 + T[i]: each iteration reads and writes only its own element."""
    sch = xtir.Schedule(xtir.parse(IN_PLACE))
    i0, _ = sch.split(sch.get_loops(sch.get_block("U"))[0], [None, 16])
    sch.parallel(i0)
    g = Guarded()
    u0, t = rand(256), rand(256)
    u = g.array(u0)
    xtir.build(sch.mod)(u, g.array(t))
    g.check()
    np.testing.assert_allclose(u, u0 * 0.5 + t, rtol=1e-6)


BACKWARD_SHIFT = """
func.func @main(%U: memref<257xf32>) {
  block.for %i = 0 to 256 "i"KIND {
    block.block "B"(%vi = spatial(256, %i)) {
      %u = block.load %U[255 - %vi] : memref<257xf32>
      %one = arith.constant 1.000000e+00 : f32
      %s = arith.addf %u, %one : f32
      block.store %s, %U[256 - %vi] : memref<257xf32>
    }
  }
  func.return
}
"""

TWO_BLOCKS = """
func.func @main(%A: memref<257xf32>, %T: memref<257xf32>, %C: memref<256xf32>) {
  block.for %i = 0 to 256 "i"KIND {
    block.block "P"(%vi = spatial(256, %i)) {
      %a = block.load %A[%vi] : memref<257xf32>
      block.store %a, %T[%vi] : memref<257xf32>
    }
    block.block "Q"(%vi = spatial(256, %i)) {
      %t = block.load %T[%vi + 1] : memref<257xf32>
      block.store %t, %C[%vi] : memref<256xf32>
    }
  }
  func.return
}
"""


@pytest.mark.parametrize(("program", "block"), [(BACKWARD_SHIFT, "B"), (TWO_BLOCKS, "P")], ids=["backward_shift", "two_blocks"])
@pytest.mark.parametrize("primitive", ["parallel", "vectorize", "bind"])
def test_loop_carried_dependence_is_refused(program: str, block: str, primitive: str) -> None:
    """Issue 17 item 5: iterations that depend on each other through memory (one block whose
    instances do, or two blocks communicating across iterations) are not independent."""
    sch = xtir.Schedule(xtir.parse(program.replace("KIND", "")))
    loop = sch.get_loops(sch.get_block(block))[0]
    args = ("threadIdx.x",) if primitive == "bind" else ()
    with pytest.raises(xtir.XtirPassError, match="its iterations are not independent"):
        getattr(sch, primitive)(loop, *args)
    assert sch.trace == ""


@pytest.mark.parametrize("program", [BACKWARD_SHIFT, TWO_BLOCKS], ids=["backward_shift", "two_blocks"])
def test_racing_parallel_loop_written_by_hand_is_refused_by_the_build(program: str) -> None:
    module = xtir.parse(program.replace("KIND", " parallel"))
    with pytest.raises(xtir.XtirError, match='parallel loop "i" would race'):
        xtir.build(module)
