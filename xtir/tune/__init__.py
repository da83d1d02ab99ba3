"""Auto-tuning: stochastic schedules, search spaces, search with real measurement, a database.

`xtir.tune.tune(mod, ...)` (also `xtir.tune(...)`: the package is callable through the front
door's lazy name) returns the best Schedule found. The submodules load lazily: xtir.schedule
imports xtir.tune.sampling, which must not load the search (it imports xtir.schedule).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {"tune": "xtir.tune.tuner", "search": "xtir.tune.tuner", "TuneResult": "xtir.tune.tuner",
         "multi_level_tiling": "xtir.tune.spaces", "auto_inline": "xtir.tune.spaces",
         "default_space": "xtir.tune.spaces", "Database": "xtir.tune.database", "gpu_space": "xtir.tune.spaces_gpu",
         "function_features": "xtir.tune.features", "CostModel": "xtir.tune.cost_model"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'xtir.tune' has no attribute {name!r}")
    return getattr(import_module(_LAZY[name]), name)
