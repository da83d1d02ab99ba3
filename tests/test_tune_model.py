"""xtir.tune's learned cost model, its loop-nest features, and the database's structural workload key."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import xtir
from xtir.errors import XtirError
from xtir.tune import default_space, search, tuner
from xtir.tune.cost_model import XGBModel, make_cost_model
from xtir.tune.database import workload_hash
from xtir.tune.features import BLOCK_FEATURES, function_features

ROOT = Path(__file__).resolve().parents[1]
MATMUL = (ROOT / "examples" / "matmul.mlir").read_text()


def matmul(n: int = 32, text: str = MATMUL):
    return xtir.parse(re.sub(r"(?<!\d)1024(?!\d)", str(n), text))


def sampled(seed: int, n: int = 32) -> xtir.Schedule:
    sch = xtir.Schedule(matmul(n), seed=seed)
    default_space(sch)
    return sch


def naive(order: str = "ijk", n: int = 32) -> xtir.ModuleOp:
    sch = xtir.Schedule(matmul(n))
    loops = dict(zip("ijk", sch.get_loops(sch.get_block("matmul"))))
    sch.reorder(*[loops[c] for c in order])
    return sch.mod


def feature(vector: np.ndarray, name: str, block: int = 0) -> float:
    return float(vector[block * len(BLOCK_FEATURES) + BLOCK_FEATURES.index(name)])


# features -----------------------------------------------------------------------


def test_features_are_deterministic_and_tell_schedules_apart() -> None:
    assert np.array_equal(function_features(sampled(3).mod), function_features(sampled(3).mod))
    schedules = {sampled(seed).trace: function_features(sampled(seed).mod) for seed in range(5)}
    distinct = {v.tobytes() for v in schedules.values()}
    assert len(distinct) == len(schedules) > 1
    assert not np.array_equal(function_features(naive("ijk")), function_features(naive("ikj")))


def test_features_see_vectorization_strides_and_the_local_accumulator() -> None:
    plain = function_features(naive("ijk"))
    assert feature(plain, "vector_width") == 0 and feature(plain, "local_bytes") == 0
    # C[i, j] += A[i, k] * B[j, k] with k innermost: C is stride 0, A and B stride 1
    assert (feature(plain, "stride0"), feature(plain, "stride1"), feature(plain, "strided")) == (3, 2, 0)
    swapped = function_features(naive("ikj"))  # j innermost: A stride 0, C (init, load, store) stride 1, B stride n
    assert (feature(swapped, "stride0"), feature(swapped, "stride1"), feature(swapped, "strided")) == (1, 3, 1)
    tiled = function_features(sampled(0).mod)
    assert feature(tiled, "vector_width") >= 2 and feature(tiled, "local_bytes") > 0


def test_features_see_how_long_the_inner_reduce_loop_runs() -> None:
    """The k tile: how long the register tile accumulates before it is stored and loaded again."""
    def k_split(inner: int) -> np.ndarray:
        sch = xtir.Schedule(matmul(32))
        i, j, k = sch.get_loops(sch.get_block("matmul"))
        sch.split(k, [None, inner])
        return function_features(sch.mod)

    whole = feature(function_features(naive("ijk")), "inner_reduce")
    assert feature(k_split(4), "inner_reduce") < feature(k_split(16), "inner_reduce") < whole


# the cost model -----------------------------------------------------------------


def test_the_model_ranks_a_naive_nest_below_a_tiled_vectorized_one() -> None:
    pytest.importorskip("xgboost")
    model = XGBModel(seed=0)
    # what measurement says on any CPU: the tiled, vectorized schedules run several times faster
    model.update([function_features(naive("ijk")), function_features(naive("jik"))], [1.0, 1.2])
    model.update([function_features(sampled(seed).mod) for seed in range(4)], [8.0, 11.0, 9.0, 10.0])
    held_out = model.predict([function_features(naive("ikj")), function_features(sampled(7).mod)])
    assert held_out[0] < held_out[1]


class _Greedy:
    """A stand-in model that scores by the vector width, and notes whether the search measured
    the best scored candidate of each ranking."""

    def __init__(self) -> None:
        self.ranked: list[np.ndarray] | None = None
        self.picked_best: list[bool] = []

    @staticmethod
    def score(v: np.ndarray) -> float:
        return feature(v, "vector_width") + 0.01 * feature(v, "unrolled")

    def predict(self, features):
        self.ranked = list(features)
        return np.array([self.score(v) for v in features])

    def update(self, features, gflops) -> None:
        if self.ranked is not None:
            best = max(self.score(v) for v in self.ranked)
            self.picked_best.append(self.score(features[0]) == best)
            self.ranked = None


def test_the_search_measures_the_best_ranked_candidate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tuner, "RANDOM_START", 2)
    monkeypatch.setattr(tuner, "EXPLORE", 0.0)
    model = _Greedy()
    result = search(matmul(16), trials=6, seed=1, cost_model=model)
    assert result.best is not None
    assert len(model.picked_best) >= 3 and all(model.picked_best)


def test_the_search_with_xgboost_finds_a_correct_schedule(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("xgboost")
    monkeypatch.setattr(tuner, "RANDOM_START", 3)
    sch = xtir.tune(matmul(16), trials=6, seed=0, progress=False, cost_model="xgb")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 16, 16), dtype=np.float32)
    c = np.zeros((16, 16), np.float32)
    xtir.build(sch.mod)(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)


def test_without_xgboost_the_search_goes_on_without_a_model(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "xgboost", None)  # `import xgboost` raises ImportError
    monkeypatch.setattr(tuner, "RANDOM_START", 2)
    assert make_cost_model("xgb") is None
    assert capsys.readouterr().err.count("\n") == 1
    result = search(matmul(16), trials=4, seed=0, cost_model="xgb")
    assert result.best is not None and result.measured == 4
    assert "xgboost is not installed" in capsys.readouterr().err


def test_an_unknown_cost_model_is_refused() -> None:
    with pytest.raises(XtirError, match="unknown cost model 'gbm'"):
        make_cost_model("gbm")


# the workload key ---------------------------------------------------------------


def _renamed(text: str) -> str:
    """The same function: another name, other SSA names, other whitespace and comments."""
    text = text.replace("func.func @main", "func.func @gemm").replace("%vi", "%row").replace("%vk", "%red")
    text = text.replace("%ab", "%product").replace("%i ", "%ii ").replace("%i)", "%ii)")
    return "// renamed\n" + re.sub(r"\n\s+", "\n    ", text)


def test_the_workload_hash_is_structural() -> None:
    renamed = matmul(text=_renamed(MATMUL))
    assert str(renamed) != str(matmul())
    assert workload_hash(renamed, None) == workload_hash(matmul(), None)
    assert workload_hash(matmul(48), None) != workload_hash(matmul(), None)
    transposed = matmul(text=MATMUL.replace("%B[%vj, %vk]", "%B[%vk, %vj]"))
    assert workload_hash(transposed, None) != workload_hash(matmul(), None)


def test_a_renamed_function_reuses_the_database_and_another_shape_does_not(tmp_path: Path) -> None:
    db = str(tmp_path / "tune.db")
    first = search(matmul(16), trials=3, seed=0, database=db, cost_model="none")
    again = search(matmul(16, _renamed(MATMUL)), trials=3, seed=0, database=db, cost_model="none")
    assert first.measured == 3 and again.measured == 0
    other = search(matmul(8), trials=3, seed=0, database=db, cost_model="none")
    assert other.measured == 3


class _Recording:
    def __init__(self) -> None:
        self.updates: list[list[float]] = []

    def predict(self, features):
        return np.zeros(len(features))

    def update(self, features, gflops) -> None:
        self.updates.append(list(gflops))


def test_the_model_first_learns_the_database_records(tmp_path: Path) -> None:
    db = str(tmp_path / "tune.db")
    first = search(matmul(16), trials=3, seed=0, database=db, cost_model="none")
    model = _Recording()
    search(matmul(16), trials=0, database=db, cost_model=model)
    assert len(model.updates) == 1 and len(model.updates[0]) == first.measured
    assert max(model.updates[0]) == pytest.approx(first.flops / first.best_latency / 1e9)  # as rechecked at the end
