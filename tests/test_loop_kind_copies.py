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
