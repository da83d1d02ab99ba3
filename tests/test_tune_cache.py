"""Schedule states cached by trace prefix (xtir/tune/state_cache.py): a schedule that resumes
from cached states ends in the same module, trace and decisions as one applied from scratch,
and no cached state is ever modified, by the schedules or by whoever holds their modules."""

from __future__ import annotations

import random

import pytest
from xdsl.dialects.builtin import ModuleOp, StringAttr

import xtir
from tests.test_tune import conv2d, matmul, workload
from tests.test_tune_gpu import gemm
from xtir.dialects.block import ForOp
from xtir.errors import XtirError
from xtir.tune import default_space, gpu_space
from xtir.tune.sampling import dumps, mutate
from xtir.tune.state_cache import StateCache

SAMPLES = 6
MUTATIONS = 4
WORKLOADS = {
    "cpu A·Bᵀ": (lambda: matmul(64), default_space),
    "cpu A·B": (lambda: matmul(64, transposed=False), default_space),
    "gpu": (lambda: gemm(64), gpu_space),
    "conv2d": (lambda: conv2d(channels=4, size=14, filters=32)[0], default_space),
    "window sum": (lambda: workload("window_sum")[0], default_space),
}


def applied(mod: ModuleOp, space, cache: StateCache | None, seed: int, decisions=None) -> tuple[str, ...]:
    """What a schedule made: its module, trace and decisions, or the refusal."""
    sch = xtir.Schedule(mod, seed=seed, decisions=decisions, cache=cache)
    try:
        space(sch)
    except XtirError as e:
        return ("refused", str(e))
    return str(sch.mod), str(sch.trace), dumps(sch.decisions)


def tamper(mod: ModuleOp) -> None:
    """Change a module the way a careless holder might: rename its loops."""
    for op in mod.walk():
        if isinstance(op, ForOp):
            op.properties["name"] = StringAttr(f"{op.label}_tampered")


def checked_cache(capacity: int) -> tuple[StateCache, dict[int, str]]:
    """A cache that remembers each state's text when stored (to show none is modified later)."""
    cache, stored = StateCache(capacity), {}
    put = cache.put

    def remembering_put(key, state) -> None:
        stored[id(state)] = str(state.module)
        put(key, state)

    cache.put = remembering_put  # type: ignore[method-assign]
    return cache, stored


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_cached_and_uncached_schedules_make_the_same_modules(name: str) -> None:
    """Samples, then mutations of them (which share a prefix with their parent), each applied with
    a cache (small, so that states are also dropped) and without; the holder of each cached
    schedule's module tampers with it, which must reach no later schedule."""
    make, space = WORKLOADS[name]
    mod = make()
    cache, stored = checked_cache(capacity=24)
    rng = random.Random(0)
    parents = []
    for seed in range(SAMPLES):
        expected = applied(mod, space, None, seed)
        sch = xtir.Schedule(mod, seed=seed, cache=cache)
        try:
            space(sch)
        except XtirError as e:
            assert expected == ("refused", str(e))
            continue
        assert (str(sch.mod), str(sch.trace), dumps(sch.decisions)) == expected
        tamper(sch.mod)
        parents.append(sch.decision_trace())
    assert parents, "every sample was refused"
    for k in range(SAMPLES * MUTATIONS):
        decisions = mutate(parents[k % len(parents)], rng)
        assert applied(mod, space, cache, k, decisions) == applied(mod, space, None, k, decisions)
    assert cache.hits > 0
    assert all(str(state.module) == stored[id(state)] for _, state in cache.items())


def test_a_schedule_resumed_from_the_cache_hands_out_its_own_copy() -> None:
    """sch.mod of a schedule on a cached state is a copy: changing it changes neither the cache
    nor another schedule resumed from it."""
    mod, cache = matmul(64), StateCache()

    def split_and_reorder(cache: StateCache | None, tampered: bool = False) -> str:
        sch = xtir.Schedule(mod, cache=cache)
        i, _, _ = sch.get_loops(sch.get_block("matmul"))
        i0, i1 = sch.split(i, [None, 8])
        if tampered:
            tamper(sch.mod)
        sch.reorder(i1, i0)
        if tampered:
            tamper(sch.mod)
        return str(sch.mod)

    split_and_reorder(cache, tampered=True)
    split_and_reorder(cache, tampered=True)
    assert split_and_reorder(cache) == split_and_reorder(None)
    assert cache.hits == 2  # the split, twice (after its module was handed out, a schedule stores nothing)
    assert "tampered" not in "".join(str(state.module) for _, state in cache.items())


def test_handles_resumed_from_the_cache_denote_the_same_loops() -> None:
    """A handle made before a cached primitive denotes its loop's successor in the cached state,
    and one the primitive replaced is consumed, naming it, as without the cache."""
    mod, cache = matmul(64), StateCache()
    for expect_hit in (False, True):
        sch = xtir.Schedule(mod, cache=cache)
        block = sch.get_block("matmul")
        i, j, k = sch.get_loops(block)
        sch.split(i, [None, 8])
        assert cache.hits == expect_hit
        assert sch.get(j).label == "j" and sch.get(k).label == "k"
        with pytest.raises(XtirError, match=r"split\{loop=i factors=-1,8\} \(primitive 1 of the schedule\)"):
            sch.get(i)


def test_the_cache_keeps_at_most_its_capacity() -> None:
    mod, cache = matmul(64), StateCache(capacity=3)
    sch = xtir.Schedule(mod, cache=cache)
    i, j, k = sch.get_loops(sch.get_block("matmul"))
    for loop in (i, j, k):
        sch.split(loop, [None, 4])
    sch.reorder(*sch.get_loops(sch.get_block("matmul"))[::-1])
    assert len(cache) == 3
    assert [len(key) for key, _ in cache.items()] == [3, 4, 5]  # the module, then the pipeline so far


def test_numerics_checked_schedules_do_not_use_the_cache() -> None:
    mod, cache = matmul(32), StateCache()
    for _ in range(2):
        sch = xtir.Schedule(mod, verify_numerics=True, cache=cache)
        i, _, _ = sch.get_loops(sch.get_block("matmul"))
        sch.split(i, [None, 4])
    assert len(cache) == 0 and cache.hits == 0
