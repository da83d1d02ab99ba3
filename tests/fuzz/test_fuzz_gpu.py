"""GPU fuzzing, short: a few random programs and GPU schedules (tests/fuzz/gpu_fuzz.py) through
"cuda-cpu" with the race detector, against numpy; and the cases the long run
(tests/fuzz/run_gpu_long.py) found, minimised, as regression tests."""

from __future__ import annotations

import pytest

from tests.fuzz import gpu_fuzz
from tests.fuzz.gpu_fuzz import Case, Outcome, Program, random_case, run_case, steps_of
from xtir.errors import XtirError

SEEDS = [*range(7, 15), 19, 21, 23, 36, 123, 1014]
"""Cover the six programs, both schedule kinds, a vthread level, pad-einsum and set-scope; a shared
accumulator under virtual threads (123) and rowsum's vthread level (1014)."""


@pytest.mark.parametrize("seed", SEEDS)
def test_random_gpu_schedules_match_numpy_without_races(seed: int) -> None:
    case = random_case(seed)
    outcome = run_case(case)
    assert not outcome.failed, f"{case.describe()}: {outcome.kind}: {outcome.detail}"


def test_the_short_run_covers_each_program_and_both_schedule_kinds() -> None:
    cases = [random_case(seed) for seed in SEEDS]
    assert {c.program.name for c in cases} == set(gpu_fuzz.TEMPLATES)
    assert {c.space for c in cases} == {True, False}
    traces = [_trace(c) for c in cases if not c.space]
    for words in ("vthread", "pad-einsum", "set-scope", "cache-write{block=C index=0 scope=shared}"):
        assert any(words in trace for trace in traces), words
    assert any(c.program.name == "rowsum" and "vthread" in _trace(c) for c in cases)


def _trace(case: Case) -> str:
    try:
        return gpu_fuzz.scheduled(case)[1]
    except XtirError:  # a refused schedule: no trace
        return ""


NESTED_DOUBLE_BUFFERS = steps_of(
    'cache-write{block=C index=0 scope=local},split{loop=i factors=-1,2,2},split{loop=j factors=-1,2,2},'
    'split{loop=k factors=-1,4},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},bind{loop=i_0 thread="blockIdx.x"},'
    'fuse{loops=i_1,j_1},reverse-compute-at{block=C_local loop=i_1_j_1_fused},'
    'bind{loop=i_1_j_1_fused thread="threadIdx.x"},cache-read{block=C index=0 scope=shared},'
    'compute-at{block=A_shared loop=k_0},fuse{loops="A_shared/ax0","A_shared/ax1"},'
    'split{loop=ax0_ax1_fused factors=-1,4},bind{loop=ax0_ax1_fused_1 thread="threadIdx.x"},'
    'cache-read{block=C index=1 scope=shared},compute-at{block=B_shared loop=k_1},'
    'split{loop="B_shared/ax0" factors=-1,4,4},bind{loop=ax0_1 thread="threadIdx.x"},'
    "double-buffer{block=A_shared},double-buffer{block=B_shared}")


@pytest.mark.parametrize("sizes", [(3, 3, 8), (8, 8, 16)])
def test_double_buffers_pipelined_in_nested_loops(sizes: tuple[int, int, int]) -> None:
    """A_shared double-buffered over k_0, B_shared over k_1 inside it (fuzz seed 14): lower-to-gpu
    pipelined k_0 first, and its epilogue's copy of k_1 indexed B_shared with the half of the
    original k_1 (`used before it is defined`). Inner pipelines now go first."""
    outcome = run_case(Case(Program("matmul", sizes), 14, steps=NESTED_DOUBLE_BUFFERS))
    assert outcome.kind == "ok", outcome.detail


def test_steps_of_splits_a_pipeline_between_steps_only() -> None:
    assert steps_of('split{loop=i factors=-1,4},fuse{loops="A/ax0","A/ax1"},unroll{loop=k}') == (
        "split{loop=i factors=-1,4}", 'fuse{loops="A/ax0","A/ax1"}', "unroll{loop=k}")


def test_minimize_drops_steps_and_shrinks_sizes_while_the_failure_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails_with_unroll_at_16(case: Case) -> Outcome:
        bad = "unroll{loop=k}" in case.steps and case.program.sizes[0] >= 16
        return Outcome("wrong" if bad else "ok")

    monkeypatch.setattr(gpu_fuzz, "run_case", fails_with_unroll_at_16)
    case = Case(Program("window", (100,)), 0, steps=("split{loop=i factors=-1,4}", "unroll{loop=k}", "unroll{loop=j}"))
    smaller, outcome = gpu_fuzz.minimize(case, Outcome("wrong"))
    assert outcome.kind == "wrong"
    assert smaller.steps == ("unroll{loop=k}",) and smaller.program.sizes == (16,)


def test_gpu_space_leaves_a_one_element_tile_in_global_memory() -> None:
    """matmul 32x56x31, gpu_space seed 1055 (fuzz seed 1055): one row of A per thread block, k tiles
    of 1, so A's tile is one element; _cooperative_fetch found no loop to split (IndexError)."""
    outcome = run_case(Case(Program("matmul", (32, 56, 31)), 1055, space=True))
    assert outcome.kind == "ok", outcome.detail


def test_emitted_code_the_host_compiler_rejects_is_a_failure_not_a_refusal() -> None:
    outcome = gpu_fuzz._build_refusal("the host C++ compiler rejected the emulated CUDA C of 'main':\nkernel.cu:3: error")
    assert outcome.kind == "compile" and outcome.failed
    assert gpu_fuzz._build_refusal("error: 'op' lower-to-gpu: too many threads").kind == "refused"


ONE_THREAD_LOCAL = steps_of(
    "split{loop=i factors=1,8},split{loop=i_0 factors=1,1},split{loop=j factors=24,2},"
    "reorder{loops=i_0_0,i_0_1,j_0,j_1,i_1},cache-write{block=B index=0 scope=local},"
    'reverse-compute-at{block=B_local loop=i_0_1},bind{loop=i_0_0 thread="blockIdx.x"},'
    'bind{loop=i_0_1 thread="threadIdx.x"}')


def test_a_local_buffer_outside_a_thread_loop_of_one_thread_is_not_shared() -> None:
    """rowsum 8x48, gpu_space seed 720000: threadIdx.x of extent 1 (i_0_1), so compact-buffers
    allocates B_local outside that unit loop; lower-to-gpu refused it as shared by the loop's threads (there
    is one: TVM builds it)."""
    outcome = run_case(Case(Program("rowsum", (8, 48)), 720000, steps=ONE_THREAD_LOCAL))
    assert outcome.kind == "ok", outcome.detail
