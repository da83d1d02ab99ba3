"""A learned cost model: gradient-boosted trees (XGBoost) over loop-nest features, trained online.

The search gives it every candidate it measured (features, GFLOP/s; a failed candidate 0) and
asks it to rank candidates not measured yet: it measures only the best ranked. As in
MetaSchedule, the model learns the throughput relative to the best measured so far, so its
scale does not drift as the search finds faster schedules. XGBoost is optional (the `tune`
extra); `make_cost_model` says so in one line and the search goes on without a model.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from xtir.errors import XtirError

MIN_TRAINING_POINTS = 4
"""Below this the model does not predict (all zeros): the ranking would be noise."""
ROUNDS = 60
"""Boosting rounds (trees) per training."""
COST_MODELS = ("xgb", "none")


class CostModel(Protocol):
    def update(self, features: Sequence[np.ndarray], gflops: Sequence[float]) -> None:
        """Add measured candidates and retrain."""
        ...

    def predict(self, features: Sequence[np.ndarray]) -> np.ndarray:
        """A score per candidate: higher is predicted faster."""
        ...


class XGBModel:
    def __init__(self, seed: int = 0):
        import xgboost

        self._xgboost = xgboost
        self._seed = seed
        self._x: list[np.ndarray] = []
        self._y: list[float] = []
        self._booster = None

    def update(self, features: Sequence[np.ndarray], gflops: Sequence[float]) -> None:
        self._x.extend(features)
        self._y.extend(gflops)
        if len(self._x) < MIN_TRAINING_POINTS:
            return
        best = max(self._y)
        target = np.array(self._y) / best if best > 0 else np.zeros(len(self._y))
        params = {"max_depth": 4, "eta": 0.2, "objective": "reg:squarederror", "nthread": 1, "seed": self._seed}
        self._booster = self._xgboost.train(params, self._xgboost.DMatrix(np.stack(self._x), label=target), ROUNDS)

    def predict(self, features: Sequence[np.ndarray]) -> np.ndarray:
        if self._booster is None or not features:
            return np.zeros(len(features))
        return self._booster.predict(self._xgboost.DMatrix(np.stack(features)))


def make_cost_model(choice: str | CostModel | None, seed: int | None = None) -> CostModel | None:
    """The model `xtir.tune(cost_model=...)` names: "xgb", "none" (None too), or a CostModel.
    "xgb" without XGBoost installed is None, after a one-line notice on stderr."""
    if choice is None or choice == "none":
        return None
    if not isinstance(choice, str):
        return choice
    if choice != "xgb":
        raise XtirError(f"xtir.tune: unknown cost model '{choice}'; choose one of {', '.join(COST_MODELS)}")
    try:
        return XGBModel(seed or 0)
    except ImportError:
        print("xtir.tune: xgboost is not installed (pip install 'xtir[tune]'): searching without a cost model",
              file=sys.stderr)
        return None
