"""`xtir.tune`: search a space of schedules, measuring each candidate for real.

The first candidates are random samples of the space (after the best ones of the database,
when it knows the workload); then each candidate is, mostly, a mutation of one of the best
measured so far (one decision sampled anew, the others kept) and sometimes a fresh sample.
A candidate the space cannot schedule, that does not build, or whose results differ from
the unscheduled program's (computed once, on random inputs) is counted as failed and skipped.
A pipeline measured before (in this run, or in the database) is not measured again.

With a cost model (`cost_model="xgb"`, the default where XGBoost is installed) the evolution
measures only what the model ranks best: each trial draws DRAWS_PER_TRIAL more candidates
into a pool of drawn, unmeasured ones, and measures the pool's best predicted (now and then,
EXPLORE of the trials, a random one, so that the model also learns where it is wrong). The
model learns from every candidate measured in this run (features.py: loop-nest features).
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp

from xtir.build import build
from xtir.errors import XtirError, expect_module
from xtir.passes.analysis.navigation import all_blocks, select_function
from xtir.schedule import Schedule
from xtir.tune.cost_model import CostModel, make_cost_model
from xtir.tune.database import Database, Record, workload_key
from xtir.tune.features import function_features
from xtir.tune.sampling import loads
from xtir.tune.spaces import default_space
from xtir.tune.spaces_gpu import gpu_space
from xtir.verify_numerics import compare, random_inputs

Space = Callable[[Schedule], None]
RANDOM_START = 8
"""Random candidates measured before the evolution starts."""
FRESH_SAMPLE = 0.2
"""The share of later candidates sampled afresh rather than mutated."""
PARENTS = 8
"""How many of the best measured candidates are mutated."""
ATTEMPTS = 20
"""Candidates drawn per trial to find a pipeline not measured yet."""
DRAWS_PER_TRIAL = 4
"""With a cost model: candidates added to the ranked pool per trial."""
POOL_LIMIT = 64
"""With a cost model: the most drawn, unmeasured candidates kept for ranking (the newest)."""
EXPLORE = 0.1
"""With a cost model: the share of trials that measure a random pooled candidate instead of the best ranked."""
WARM_START = 16
"""With a cost model: how many of the database's best records it learns from before the search."""
SPACES = {"llvm": default_space, "cuda": gpu_space, "cuda-cpu": gpu_space}
"""The default space of each target ("cuda-cpu" checks GPU schedules on the CPU; its times are not a GPU's)."""


@dataclass
class TuneResult:
    best: Schedule | None
    best_latency: float
    flops: int
    measured: int = 0
    failures: int = 0
    history: list[float] = field(default_factory=list)
    """The best GFLOP/s so far after each trial (0 before a first success)."""


def tune(mod: ModuleOp, target: str = "llvm", trials: int = 32, space: Space | None = None, seed: int | None = None,
         database: str | None = None, func_name: str | None = None, progress: bool = True,
         cost_model: str | CostModel | None = "xgb") -> Schedule:
    """The fastest schedule found in `trials` measured candidates; its `mod` is the scheduled module."""
    result = search(mod, target, trials, space, seed, database, func_name, progress, cost_model)
    if result.best is None:
        raise XtirError(f"xtir.tune: none of {trials} candidates built and computed the right results "
                        f"({result.failures} failed)")
    return result.best


def space_for(target: str) -> Space:
    if target not in SPACES:
        raise XtirError(f"xtir.tune: target '{target}' has no search space; tune for one of {', '.join(SPACES)}")
    return SPACES[target]


def search(mod: ModuleOp, target: str = "llvm", trials: int = 32, space: Space | None = None, seed: int | None = None,
           database: str | None = None, func_name: str | None = None, progress: bool = False,
           cost_model: str | CostModel | None = "xgb") -> TuneResult:
    expect_module(mod, "xtir.tune")
    space = space or space_for(target)
    name = select_function(mod, func_name).sym_name.data
    measurer = _Measurer(mod, name, target)
    model = make_cost_model(cost_model, seed)
    db = Database(database) if database else None
    workload = workload_key(mod, name, space.__qualname__)
    known = {r.pipeline: r for r in db.records(workload, target)} if db else {}
    rng = random.Random(seed)
    result = TuneResult(None, math.inf, measurer.flops)
    pool = sorted(known.values(), key=lambda r: r.latency)  # the measured candidates, fastest first
    ranked = _RankedPool(model, name) if model else None
    if model:
        _warm_start(model, mod, func_name, space, pool[:WARM_START], measurer.flops)
    bar = _Progress(trials, progress)
    for trial in range(trials):
        parents = pool if trial >= RANDOM_START else []
        if ranked and parents:
            candidate = ranked.best(partial(_new_candidate, mod, func_name, space, rng, parents), known, rng)
        else:
            candidate = _new_candidate(mod, func_name, space, rng, parents, known)
        if candidate is None:
            result.failures += 1
        elif candidate.trace not in known:
            try:
                latency = measurer.measure(candidate.mod)
            except XtirError:
                result.failures += 1
                known[candidate.trace] = Record(candidate.decision_trace(), candidate.trace, math.inf)
            else:
                record = Record(candidate.decision_trace(), candidate.trace, latency)
                known[record.pipeline] = record
                pool = sorted([*pool, record], key=lambda r: r.latency)
                if db:
                    db.add(workload, target, record)
            if model:
                model.update([function_features(candidate.mod, name)], [_gflops(result.flops, known[candidate.trace].latency)])
            result.measured += 1
        result.history.append(_gflops(result.flops, pool[0].latency) if pool else 0.0)
        bar.update(result.history[-1], result.failures)
    bar.close()
    if pool:
        result.best, result.best_latency = _replay(mod, func_name, space, pool[0]), pool[0].latency
    if db:
        db.close()
    return result


class _RankedPool:
    """Drawn candidates not measured yet, ranked by the cost model."""

    def __init__(self, model: CostModel, func_name: str):
        self._model, self._name = model, func_name
        self._pool: dict[str, tuple[Schedule, np.ndarray]] = {}

    def best(self, draw: Callable[[Any], Schedule | None], known: dict[str, Record], rng: random.Random) -> Schedule | None:
        """The best ranked of the pool after DRAWS_PER_TRIAL more draws (taken out of the pool);
        None when the pool is empty (every draw failed)."""
        for _ in range(DRAWS_PER_TRIAL):
            sch = draw(known.keys() | self._pool.keys())
            if sch is not None and sch.trace not in known and sch.trace not in self._pool:
                self._pool[sch.trace] = (sch, function_features(sch.mod, self._name))
        for stale in list(self._pool)[:-POOL_LIMIT]:
            del self._pool[stale]
        if not self._pool:
            return None
        traces = list(self._pool)
        if rng.random() < EXPLORE:
            pick = rng.choice(traces)
        else:
            scores = self._model.predict([self._pool[t][1] for t in traces])
            pick = traces[int(np.argmax(scores))]
        return self._pool.pop(pick)[0]


def _warm_start(model: CostModel, mod: ModuleOp, func_name: str | None, space: Space, records: list[Record],
                flops: int) -> None:
    """Teach the model the database's records (replayed for their features; one the space no longer makes is left out)."""
    features, gflops = [], []
    for record in records:
        try:
            sch = _replay(mod, func_name, space, record)
        except XtirError:
            continue
        features.append(function_features(sch.mod, sch.func_name))
        gflops.append(_gflops(flops, record.latency))
    if features:
        model.update(features, gflops)


def _new_candidate(mod: ModuleOp, name: str | None, space: Space, rng: random.Random, pool: list[Record],
                   known: Container[str]) -> Schedule | None:
    """A scheduled candidate; None when the space failed on it. Without parents (the random
    start) one sample, measured before or not (so that a run seeded as an earlier one finds its
    start in the database); with them, a mutation (or sometimes a fresh sample) not measured
    yet, or the last drawn when ATTEMPTS draws found none new."""
    sch = None
    for _ in range(ATTEMPTS if pool else 1):
        decisions = None
        if pool and rng.random() >= FRESH_SAMPLE:
            decisions = _mutate(loads(rng.choice(pool[:PARENTS]).decisions), rng)
        sch = Schedule(mod, name, seed=rng.randrange(1 << 31), decisions=decisions)
        try:
            space(sch)
        except XtirError:
            return None
        if sch.trace not in known:
            return sch
    return sch


def _mutate(decisions: list[Any], rng: random.Random) -> list[Any]:
    """The decisions with one of them left to be sampled anew."""
    if decisions:
        decisions[rng.randrange(len(decisions))] = None
    return decisions


def _replay(mod: ModuleOp, name: str | None, space: Space, record: Record) -> Schedule:
    sch = Schedule(mod, name, decisions=loads(record.decisions))
    space(sch)
    return sch


def _gflops(flops: int, latency: float) -> float:
    return flops / latency / 1e9 if math.isfinite(latency) else 0.0


class _Measurer:
    """Builds and times candidates; checks each once against the unscheduled program (run on
    the CPU: a GPU target cannot run loops bound to no thread)."""

    def __init__(self, mod: ModuleOp, name: str, target: str, repeats: int = 5):
        self._name, self._target, self._repeats = name, target, repeats
        if target == "cuda":
            from xtir.lowering.cuda_function import import_cupy  # as xtir.build: the GPU runtime loads only for "cuda"

            import_cupy()  # no GPU: XtirError now, not every candidate failing
        function = select_function(mod, name)
        self.flops = _flop_count(mod, name)
        self._inputs = random_inputs(function, np.random.default_rng(0))
        self._expected = self._run(mod, "llvm")

    def _run(self, mod: ModuleOp, target: str) -> list[np.ndarray]:
        arrays = [a.copy() for a in self._inputs]
        build(mod, target, self._name)(*arrays)
        return arrays

    def measure(self, mod: ModuleOp) -> float:
        """The median seconds of one call (after a warm-up); XtirError when it is wrong."""
        got = self._run(mod, self._target)
        for k, (g, e) in enumerate(zip(got, self._expected)):
            ok, err = compare(g, e)
            if not ok:
                raise XtirError(f"candidate computes parameter {k} wrong (largest error {err:g})")
        f = build(mod, self._target, self._name)
        once = _seconds(f, got, 1)
        number = max(1, int(0.02 / max(once, 1e-9)))  # batches of at least 20 ms
        return float(np.median([_seconds(f, got, number) for _ in range(self._repeats)])) / number


def _seconds(f: Callable[..., Any], arrays: list[np.ndarray], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        f(*arrays)
    return time.perf_counter() - start


def _flop_count(mod: ModuleOp, name: str) -> int:
    """Arithmetic operations the function does: each block's arith ops (constants aside) times its domain."""
    total = 0
    for block in all_blocks(select_function(mod, name)):
        ops = sum(1 for op in block.body.walk() if op.name.startswith("arith.") and not isinstance(op, arith.ConstantOp))
        total += ops * math.prod(block.extents)
    return total


class _Progress:
    """tqdm's bar when tqdm is installed, else a line per trial on stderr."""

    def __init__(self, total: int, shown: bool):
        self._total, self._shown, self._done = total, shown, 0
        self._bar = None
        if shown:
            try:
                from tqdm import tqdm
            except ImportError:
                return
            self._bar = tqdm(total=total, desc="tuning", unit="trial")

    def update(self, best_gflops: float, failures: int) -> None:
        self._done += 1
        if self._bar is not None:
            self._bar.set_postfix_str(f"best {best_gflops:.1f} GFLOP/s, {failures} failed")
            self._bar.update()
        elif self._shown:
            print(f"trial {self._done}/{self._total}: best {best_gflops:.1f} GFLOP/s, {failures} failed",
                  file=sys.stderr)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
