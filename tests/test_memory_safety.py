"""Compiled code touches only its arguments, and parallel loops do not race.

Regression tests of issue 17 (items 5 and 7) and issue 14 (parallel over an intermediate
buffer): what the parallel primitive accepts, xtir.build compiles; what would race is
refused by the primitive (and by the build, for parallel loops written by hand); a `where`
that lets a binding or an index leave its range is refused at parse; an access that cannot
be shown inside its buffer is refused by the build, or checked at run time with
`bounds_check=True`. Outputs start as NaN, and every array sits between guard zones that
must come back untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir

ROOT = Path(__file__).resolve().parent.parent

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


# Predicates and bounds ----------------------------------------------------------------------

WEAK_PREDICATE = """
func.func @main(%A: memref<10xf32>, %B: memref<10xf32>) {
  block.for %i0 = 0 to 3 "i_0" {
    block.for %i1 = 0 to 4 "i_1" {
      block.block "split"(%vi = spatial(10, %i0 * 4 + %i1)) where(%i0 * 4 + %i1 < 12) {
        %a = block.load %A[%vi] : memref<10xf32>
        block.store %a, %B[%vi] : memref<10xf32>
      }
    }
  }
  func.return
}
"""


def test_predicate_that_lets_a_binding_leave_its_domain_is_refused_at_parse() -> None:
    """Issue 17 item 7: the compiled code read and wrote A[10], A[11], B[10], B[11]."""
    with pytest.raises(xtir.XtirError, match=r"binding of %vi is 10 at i_0 = 2, i_1 = 2, where the predicate holds"):
        xtir.parse(WEAK_PREDICATE)


def test_predicate_that_lets_an_index_leave_is_refused_at_parse() -> None:
    text = WEAK_PREDICATE.replace("spatial(10,", "spatial(12,")
    with pytest.raises(xtir.XtirError, match=r"index 0 is 10 at i_0 = 2, i_1 = 2, where the predicate holds"):
        xtir.parse(text)


UNKNOWN_GUARD = """
func.func @main(%A: memref<10xf32>, %B: memref<16xf32>, %N: memref<1xindex>) {
  %n = block.load %N[0] : memref<1xindex>
  block.for %t = 0 to 16 "t" {
    %in = arith.cmpi slt, %t, %n : index
    scf.if %in {
      block.block "g"(%vt = spatial(16, %t)) {
        %a = block.load %A[%vt] : memref<10xf32>
        block.store %a, %B[%vt] : memref<16xf32>
      }
    }
  }
  func.return
}
"""


def test_access_not_shown_in_bounds_is_refused_by_the_build() -> None:
    with pytest.raises(xtir.XtirError, match="cannot show that index 0 stays in .0, 9.*bounds_check=True"):
        xtir.build(xtir.parse(UNKNOWN_GUARD))


def test_bounds_check_reports_the_first_access_out_of_range() -> None:
    f = xtir.build(xtir.parse(UNKNOWN_GUARD), bounds_check=True)
    g = Guarded()
    a, b = g.array(rand(10)), g.nan(16)
    f(a, b, np.array([10], dtype=np.int64))  # the guard keeps t < 10: nothing out of range
    np.testing.assert_array_equal(b[:10], a)
    with pytest.raises(xtir.XtirEvaluationError, match=r'block.load on %A in block "g" \(.*\): index 0 is 10, outside \[0, 9\]'):
        f(a, b, np.array([16], dtype=np.int64))
    g.check()
    np.testing.assert_array_equal(b[10:], 0)  # loads out of range yield 0
    f(a, b, np.array([3], dtype=np.int64))  # the error was reported once


SPLIT_SCHEDULES = [
    "split{loop=i factors=-1,16},parallel{loop=i_0},vectorize{loop=i_1}",
    "split{loop=i factors=-1,7},split{loop=i_1 factors=-1,3},fuse{loops=i_0,i_1_0},parallel{loop=i_0_i_1_0_fused}",
    "split{loop=i factors=8,-1},reorder{loops=i_1,i_0},parallel{loop=i_1}",
]


@pytest.mark.parametrize("schedule", SPLIT_SCHEDULES)
@pytest.mark.parametrize("bounds_check", [False, True])
def test_predicated_schedules_stay_inside_their_buffers(schedule: str, bounds_check: bool) -> None:
    """Non-dividing splits, fused and reordered, are shown in bounds from their predicates
    (and pass the run-time checks)."""
    text = """
    func.func @main(%A: memref<1000xf32>, %B: memref<1000xf32>, %C: memref<1000xf32>) {
      block.for %i = 0 to 1000 "i" {
        block.block "C"(%vi = spatial(1000, %i)) {
          %a = block.load %A[%vi] : memref<1000xf32>
          %b = block.load %B[%vi] : memref<1000xf32>
          %s = arith.addf %a, %b : f32
          block.store %s, %C[%vi] : memref<1000xf32>
        }
      }
      func.return
    }
    """
    f = xtir.build(xtir.transform(xtir.parse(text), schedule), bounds_check=bounds_check)
    g = Guarded()
    a, b, c = g.array(rand(1000)), g.array(rand(1000)), g.nan(1000)
    f(a, b, c)
    g.check()
    np.testing.assert_array_equal(c, a + b)


HUGE_SPLIT = """
func.func @main(%C: memref<32x32xf32>) {
  block.for %i0 = 0 to 2 "i0_0" {
    block.for %i1 = 0 to 2147483648 "i0_1" {
      block.for %j0 = 0 to 2 "j0" {
        block.block "tile"(%vi0 = spatial(2, %i0 * 2147483648 + %i1), %vj0 = spatial(2, %j0)) where(%i0 * 2147483648 + %i1 < 2) {
          block.for %i = 0 to 16 "i" {
            block.for %j = 0 to 16 "j" {
              block.block "zero"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
                %zero = arith.constant 0.000000e+00 : f32
                block.store %zero, %C[%vi0 * 16 + %vi, %vj0 * 16 + %vj] : memref<32x32xf32>
              }
            }
          }
        }
      }
    }
  }
  func.return
}
"""


def test_index_a_multiple_of_the_predicate_is_shown_in_bounds() -> None:
    """Found by the fuzzer (a split by 2^31 of a blockized matmul): inlined, the index is
    (i0 * 2^31 + i1) * 16 + i under the guard i0 * 2^31 + i1 < 2, too many points to try."""
    xtir.build(xtir.parse(HUGE_SPLIT))


def test_cache_moved_under_a_parallel_loop_gets_one_per_iteration() -> None:
    """Found by the fuzzer: parallel i, then a cache of B computed at k_0 under it, with a split
    by factor 1 (`k_0 * 7 + k_1 + k_2`). compact-buffers did not see that each k_0 iteration
    writes the part of B_global it reads (the loop k_2 of one iteration is the constant 0),
    left the cache shared by the threads, and the build refused the race."""
    sch = xtir.Schedule(xtir.transform(
        xtir.parse((ROOT / "examples" / "matmul.mlir").read_text().replace("1024", "8")),
        "parallel{loop=i},split{loop=k factors=-1,7,1},cache-read{block=matmul index=1 scope=global},"
        "compute-at{block=B_global loop=k_0}",
    ))
    f = xtir.build(sch.mod)
    g = Guarded()
    a, b, c = g.array(rand(8, 8)), g.array(rand(8, 8)), g.nan(8, 8)
    f(a, b, c)
    g.check()
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-5)
