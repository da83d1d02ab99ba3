"""Graph-level fuzzing, short: a few random PyTorch models (tests/fuzz/graph_fuzz.py) imported with
from_torch, compiled with compile_model and compared with torch; the long run is
tests/fuzz/run_graph_long.py."""

from __future__ import annotations

import pytest

import xtir

pytest.importorskip("torch", reason="PyTorch is not installed (pip install 'xtir[torch]')")

from tests.fuzz import graph_fuzz  # noqa: E402
from tests.fuzz.graph_fuzz import Case, random_case, run_case  # noqa: E402

SEEDS = [72, 307, 7, 60]
"""Both element types, all four variants, weights as constants and as parameters, conv2d, max_pool2d,
matmul, softmax, broadcasting, activations, slices and comparisons feeding torch.where, reductions,
unary functions and clamps, flip, casts and integer division."""
GPU_SEED = 17
"""A model compiled for cuda-cpu with racecheck: two inputs, softmax, tanh, add, a piece of a split."""


@pytest.mark.parametrize("seed", SEEDS)
def test_random_models_match_torch(seed: int) -> None:
    case = random_case(seed)
    outcome = run_case(case)
    assert not outcome.failed, f"{case.describe()}: {outcome.kind}: {outcome.detail}\n{graph_fuzz.describe_model(seed)}"


def test_the_short_run_covers_both_types_all_variants_both_weights_and_the_main_operations() -> None:
    cases = [random_case(seed) for seed in SEEDS]
    assert {c.dtype for c in cases} == {"float32", "float16"}
    assert {c.variant for c in cases} == set(range(len(graph_fuzz.VARIANTS)))
    assert {c.weights for c in cases} == {"constants", "params"}
    ops = {step.op for seed in SEEDS for step in graph_fuzz.draw_model(seed).steps}
    assert {"conv2d", "maxpool", "matmul", "linear", "binary", "softmax", "activation", "slice", "where", "reduce",
            "unary", "flip", "cast"} <= ops
    assert {c.target for c in cases} == {"llvm"}


def test_every_seed_draws_a_model_torch_can_index() -> None:
    """The sampler's own bugs end a campaign: seed 1231 drew an index after `...` for the
    leading dimensions instead of the trailing ones (an IndexError)."""
    for seed in range(1300):
        graph_fuzz.draw_model(seed, random_case(seed).small)


def test_a_model_compiled_for_cuda_cpu_with_racecheck_matches_torch() -> None:
    case = random_case(GPU_SEED)
    assert case.target == "cuda-cpu"
    outcome = run_case(case)
    model = graph_fuzz.describe_model(GPU_SEED, small=True)
    assert outcome.kind == "ok", f"{case.describe()}: {outcome.kind}: {outcome.detail}\n{model}"


EXTRA_SEEDS = [9, 80]
"""Random primitives after the default schedule: llvm (9, at most 4 a function) and cuda-cpu (80: a split of a
max's init loop; split and fuse of a thread loop are refused, as TVM refuses them)."""


@pytest.mark.parametrize("seed", EXTRA_SEEDS)
def test_primitives_after_the_default_schedule_keep_the_numbers(seed: int) -> None:
    from xtir.frontend import from_torch

    case = random_case(seed)
    assert case.extra and case.schedule == "default"
    outcome = run_case(case)
    assert outcome.kind == "ok", f"{case.describe()}: {outcome.kind}: {outcome.detail}"
    model, inputs, _ = graph_fuzz.make_model(seed, case.dtype, case.small)
    imported = from_torch(model, tuple(inputs), weights=case.weights)
    graph = imported[0] if case.weights == "params" else imported
    passes = f"{case.pipeline}," if case.pipeline else ""
    default = "default-gpu-schedule" if case.target != "llvm" else "default-schedule"
    traces: list[str] = []
    graph_fuzz.extra_primitives(xtir.transform(graph, f"{passes}legalize-tensor,{default}"), case, traces)
    assert traces, "no primitive was applied after the default schedule"


def test_a_wrong_number_is_reported(monkeypatch) -> None:
    """The oracle can fail: a compiled model off by one ulp of the tolerance is `wrong`."""
    monkeypatch.setitem(graph_fuzz.TOLERANCE, "float32", 0.0)
    monkeypatch.setitem(graph_fuzz.TOLERANCE, "float16", 0.0)
    outcomes = [run_case(Case(seed, "float32", 0)) for seed in (1, 5)]
    assert any(o.kind == "wrong" for o in outcomes), outcomes
