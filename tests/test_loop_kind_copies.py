"""check_marked_loops lowers one copy of the function for the parallel loops and the vectorized
loops not nested with one another (passes/loop_kind.py `_as_checked`), not a copy per
vectorized loop: each loop must find the same conflict (or none) as it did on the copies of before
(one for the parallel loops, one per vectorized loop marked parallel alone)."""

from __future__ import annotations

import pytest

import xtir
from tests.test_tune import workload
from xtir.dialects.block import PARALLEL, VECTORIZED
from xtir.passes.analysis.dependences import carried_conflict, describe
from xtir.passes.analysis.navigation import all_loops, select_function
from xtir.passes.loop_kind import _as_built, _as_checked
from xtir.tune import default_space


def conflicts(copies, loops) -> list[str | None]:
    return [None if (c := carried_conflict(copy)) is None else describe(c, loop) for copy, loop in zip(copies, loops)]


@pytest.mark.parametrize("name", ["matmul A·Bᵀ", "matmul_bias", "conv2d", "window_sum"])
def test_loops_checked_on_one_copy_find_what_they_find_on_copies_of_their_own(name: str) -> None:
    mod = workload(name)[0]
    for seed in range(3):
        sch = xtir.Schedule(mod, seed=seed)
        default_space(sch)
        f = select_function(sch.mod, sch.func_name)
        parallel = [lp for lp in all_loops(f) if lp.kind == PARALLEL]
        vectorized = [lp for lp in all_loops(f) if lp.kind == VECTORIZED]
        own = _as_built(f, parallel) + [_as_built(f, [lp], made_parallel=[lp])[0] for lp in vectorized]
        loops = [*parallel, *vectorized]
        assert conflicts(_as_checked(f, parallel, vectorized), loops) == conflicts(own, loops)


# S's one element is written and read again in each iteration of j: compact-buffers moves it into
# the outermost parallel loop around its uses. Checked with i marked parallel too, S would sit in
# i, shared by j's iterations (a race j does not have); k carries a dependence any copy must find.
NESTED = """
func.func @main(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<5xf32>) {
  %S = block.alloc : memref<1xf32>
  block.for %i = 0 to 4 "i" vectorized {
    block.for %j = 0 to 4 "j" KIND {
      block.block "stage"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %a = block.load %A[%vi, %vj] : memref<4x4xf32>
        block.store %a, %S[0] : memref<1xf32>
      }
      block.block "use"(%vi = spatial(4, %i), %vj = spatial(4, %j)) {
        %s = block.load %S[0] : memref<1xf32>
        block.store %s, %B[%vi, %vj] : memref<4x4xf32>
      }
    }
  }
  block.for %k = 0 to 4 "k" vectorized {
    block.block "shift"(%vk = spatial(4, %k)) {
      %c = block.load %C[%vk] : memref<5xf32>
      block.store %c, %C[%vk + 1] : memref<5xf32>
    }
  }
  func.return
}
"""
SHIFT = 'block "shift" writes an element of C in iteration 0 of loop "k" that block "shift" reads in iteration 1'


@pytest.mark.parametrize("kind", [VECTORIZED, PARALLEL])
def test_a_vectorized_loop_around_a_marked_loop_is_checked_on_a_copy_of_its_own(kind: str) -> None:
    """j (vectorized, or parallel) nested in vectorized i must not share i's copy: there i would
    be parallel too and j would race on S."""
    f = select_function(xtir.parse(NESTED.replace("KIND", kind)), "main")
    parallel = [lp for lp in all_loops(f) if lp.kind == PARALLEL]
    vectorized = [lp for lp in all_loops(f) if lp.kind == VECTORIZED]
    loops = {lp.label: lp for lp in [*parallel, *vectorized]}
    found = dict(zip(loops, conflicts(_as_checked(f, parallel, vectorized), loops.values())))
    assert found == {"i": None, "j": None, "k": SHIFT}
