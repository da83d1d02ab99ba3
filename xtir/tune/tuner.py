"""`xtir.tune`: search a space of schedules, measuring each candidate for real.

The first candidates are random samples of the space (after the best ones of the database,
when it knows the workload); then each candidate is, mostly, a mutation of one of the best
measured so far (one decision changed to another of its options, the others kept) and
sometimes a fresh sample. A mutation tried before is skipped before the space is applied (the
space's schedule primitives cost far more than the search). Candidates share schedule states
through a StateCache: a mutation resumes after the primitives it has in common with one
applied before, mostly its parent. A candidate the space cannot schedule, that does not
build, or whose results differ from the unscheduled program's (computed once, on random
inputs) is counted as failed and skipped. A pipeline measured
before (in this run, or in the database) is not measured again. When EXHAUSTED trials in a
row draw nothing new (a small space, all of it measured), the search stops early
(`TuneResult.exhausted`) rather than count those trials as failures.

Measuring builds a candidate once, checks its results, and times it; one SLOW times slower
than the best so far is timed once, not repeated. On target "cuda" its arguments are copied to
the device once, and back once for the check: the timings are of its launches, by CUDA events.
At the end the RECHECK best candidates are timed again, in turns, and the fastest of that
second look is the result: the best of many noisy timings is most often one timed on a quiet
moment. The result is the fastest of those and of the database's records (timed again in
their own run).

Baselines: the schedules a tuned one must beat are timed in the same process, in turns with
the RECHECK best (so that the machine's load weighs on them alike): on "llvm" the unscheduled
function and default-schedule's, on a GPU target default-gpu-schedule's (an unscheduled
function has no kernel). `TuneResult.baselines` holds their latencies, `versus_baselines()`
says the best as x each; when a baseline is faster than the best candidate the result says so
(`slower_than`; `tune` warns, xtir-tune prints it): on a loaded machine a short search can end
far slower than the default schedule.

With a cost model (`cost_model="xgb"`, the default where XGBoost is installed) the evolution
measures only what the model ranks best: each trial draws more candidates into a pool of
drawn, unmeasured ones (2 to DRAWS_PER_TRIAL: as many as take about as long as measuring one),
and measures the pool's best predicted (now and then,
EXPLORE of the trials, a random one, so that the model also learns where it is wrong). The
model learns from every candidate measured in this run (features.py: loop-nest features).
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp

from xtir.build import GPU_TARGETS, build
from xtir.dialects.tensor import is_graph_function
from xtir.errors import XtirError, expect_module
from xtir.passes.analysis.navigation import all_blocks, select_function
from xtir.schedule import Schedule
from xtir.tune.cost_model import CostModel, make_cost_model
from xtir.tune.database import Database, Record, workload_key
from xtir.tune.features import function_features
from xtir.tune.sampling import loads, mutate
from xtir.tune.spaces import default_space
from xtir.tune.spaces_gpu import gpu_space
from xtir.tune.state_cache import StateCache
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
MUTATIONS = 50
"""Mutations tried per draw to find decisions not tried yet (cheap: no schedule is applied)."""
DRAWS_PER_TRIAL = 4
"""With a cost model: the most candidates added to the ranked pool per trial (at least 2, so that it grows)."""
SLOW = 2.0
"""A candidate whose first timing is this many times the best latency is not timed again."""
RECHECK = 4
"""How many of the best candidates are timed again at the end."""
POOL_LIMIT = 64
"""With a cost model: the most drawn, unmeasured candidates kept for ranking (the newest)."""
EXPLORE = 0.1
"""With a cost model: the share of trials that measure a random pooled candidate instead of the best ranked."""
EXHAUSTED = 3
"""Trials in a row that draw no new candidate (and no failing one) before the search stops."""
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
    exhausted: bool = False
    """Whether the search stopped early: EXHAUSTED trials in a row drew nothing new."""
    first_failure: str = ""
    """Why the first failed candidate failed (the space refused it, it did not build, or it computed wrong numbers)."""
    baselines: dict[str, float] = field(default_factory=dict)
    """Seconds of one call of each baseline ("unscheduled", "default-schedule", "default-gpu-schedule"), timed in
    the search's process."""

    @property
    def slower_than(self) -> str | None:
        """The fastest baseline when it is faster than the best candidate (keep it instead), else None."""
        if not self.baselines:
            return None
        name = min(self.baselines, key=self.baselines.__getitem__)
        return name if self.baselines[name] < self.best_latency else None

    def versus_baselines(self) -> str:
        """The best candidate as x each baseline (x > 1: faster), and a warning when one is faster."""
        if not self.baselines or not math.isfinite(self.best_latency):
            return "no baseline timed"
        text = ", ".join(f"{t / self.best_latency:.2f}x as fast as {name} ({t * 1e3:.3f} ms)"
                         for name, t in self.baselines.items())
        if (name := self.slower_than) is not None:
            text += f"; SLOWER than {name}: keep `{_BASELINES_PIPELINE[name] or '(no schedule)'}`"
        return text

    def failed(self) -> str:
        """The failures counted, and the first one's reason."""
        return f"{self.failures} failed" + (f"; the first: {self.first_failure}" if self.first_failure else "")


def tune(mod: ModuleOp, target: str = "llvm", trials: int = 32, space: Space | None = None, seed: int | None = None,
         database: str | None = None, func_name: str | None = None, progress: bool = True,
         cost_model: str | CostModel | None = "xgb") -> Schedule:
    """The fastest schedule found in `trials` measured candidates; its `mod` is the scheduled module."""
    result = search(mod, target, trials, space, seed, database, func_name, progress, cost_model)
    if result.best is None:
        raise XtirError(f"xtir.tune: none of {trials} candidates built and computed the right results "
                        f"({result.failed()})")
    if result.slower_than is not None:
        warnings.warn(f"xtir.tune: the best of {trials} trials is {result.versus_baselines()}", stacklevel=2)
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
    name = _tunable(mod, func_name).sym_name.data
    measurer = _Measurer(mod, name, target)
    model = make_cost_model(cost_model, seed)
    db = Database(database) if database else None
    workload = workload_key(mod, name, space.__qualname__)
    known = {r.pipeline: r for r in db.records(workload, target)} if db else {}
    rng = random.Random(seed)
    drawer = _Drawer(mod, func_name, space, rng, known.values())
    result = TuneResult(None, math.inf, measurer.flops)
    earlier = sorted(known.values(), key=lambda r: r.latency)
    pool = earlier  # the measured candidates, fastest first
    ranked = _RankedPool(model, name) if model else None
    if model:
        _warm_start(model, mod, func_name, space, pool[:WARM_START], measurer.flops, drawer.cache)
    measured: list[Record] = []
    bar = _Progress(trials, progress)
    stale = 0  # trials in a row that drew nothing new
    for trial in range(trials):
        parents = pool if trial >= RANDOM_START else []
        failed = drawer.failures
        features = None  # the candidate's, when the model ranked it
        if ranked and parents:
            candidate, features = ranked.best(partial(drawer.draw, parents), known, rng,
                                              drawer.draws(measurer.mean_seconds())) or (None, None)
        else:
            candidate = drawer.draw(parents, known)
        new = candidate is not None and candidate.trace not in known
        draw_failed = drawer.failures > failed
        # a random start's single sample may repeat one; a search from parents drew ATTEMPTS
        stale = 0 if new or draw_failed else stale + bool(parents)
        if stale >= EXHAUSTED:
            result.exhausted = True
            bar.stop(f"the space has no untried candidate left ({len(known)} known)")
            break
        if candidate is None and draw_failed:
            result.failures += 1
            result.first_failure = result.first_failure or drawer.first_error
        elif new:
            try:
                latency = measurer.measure(candidate.mod, pool[0].latency if pool else math.inf)
            except XtirError as e:
                result.failures += 1
                result.first_failure = result.first_failure or str(e)
                known[candidate.trace] = Record(candidate.decision_trace(), candidate.trace, math.inf)
            else:
                record = Record(candidate.decision_trace(), candidate.trace, latency)
                known[record.pipeline] = record
                measured.append(record)
                pool = sorted([*pool, record], key=lambda r: r.latency)
                if db:
                    db.add(workload, target, record)
            if model:
                features = function_features(candidate.mod, name) if features is None else features
                model.update([features], [_gflops(result.flops, known[candidate.trace].latency)])
            result.measured += 1
        result.history.append(_gflops(result.flops, pool[0].latency) if pool else 0.0)
        bar.update(result.history[-1], result.failures)
    bar.close()
    baselines = _baselines(mod, name, target)
    rechecked, result.baselines = _recheck(mod, func_name, space, measurer,
                                           sorted(measured, key=lambda r: r.latency)[:RECHECK], drawer.cache, baselines)
    for record, _ in rechecked:
        if db:
            db.add(workload, target, record)
    # the best of what was timed twice and of the database's (timed twice in their run)
    eligible = [*[r for r, _ in rechecked], *earlier] if rechecked else pool
    if eligible:
        best = min(eligible, key=lambda r: r.latency)
        schedules = {r.pipeline: sch for r, sch in rechecked}
        result.best = schedules.get(best.pipeline) or _replay(mod, func_name, space, best, drawer.cache)
        result.best.detach()  # the search's cache ends with it
        result.best_latency = best.latency
    if db:
        db.close()
    return result


def _tunable(mod: ModuleOp, func_name: str | None) -> func.FuncOp:
    """The function to tune: one with blocks to schedule (not a graph function over tensors,
    nor legalize-tensor's host function, which only calls the block functions)."""
    f = select_function(mod, func_name)
    name = f.sym_name.data
    if is_graph_function(f):
        raise XtirError(f"xtir.tune: @{name} is a graph function (over tensors): legalize it "
                        "(`xtir-opt -p fuse-ops,legalize-tensor`) and tune its block functions one by one")
    if not all_blocks(f):
        callees = sorted({op.callee.root_reference.data for op in f.walk() if isinstance(op, func.CallOp)})
        hint = f": it calls {', '.join(callees)}; tune those" if callees else ""
        raise XtirError(f"xtir.tune: @{name} has no blocks to schedule{hint}")
    return f


_BASELINES_PIPELINE = {"unscheduled": "", "default-schedule": "default-schedule",
                       "default-gpu-schedule": "default-gpu-schedule"}
"""Each baseline as the xtir-opt pipeline that makes it from the unscheduled module."""


def _baselines(mod: ModuleOp, name: str, target: str) -> dict[str, ModuleOp]:
    """The schedules of function `name` a tuned one must beat on `target` (module docstring);
    one its pass refuses, or the same as another, is left out."""
    from xtir import transform

    labels = ["default-gpu-schedule"] if target in GPU_TARGETS else ["unscheduled", "default-schedule"]
    found: dict[str, ModuleOp] = {}
    for label in labels:
        pipeline = _BASELINES_PIPELINE[label]
        try:
            scheduled = transform(mod, pipeline) if pipeline else mod
        except XtirError:
            continue
        if str(select_function(scheduled, name)) not in {str(select_function(m, name)) for m in found.values()}:
            found[label] = scheduled
    return found


def _recheck(mod: ModuleOp, func_name: str | None, space: Space, measurer: _Measurer, records: list[Record],
             cache: StateCache, baselines: dict[str, ModuleOp]) -> tuple[list[tuple[Record, Schedule]], dict[str, float]]:
    """`records` (two or more) timed again in turns with the baselines, with their schedules
    (none when fewer, or one the space no longer makes: the baselines are then timed alone);
    and the baselines' latencies (one that fails to build or computes wrong is left out)."""
    try:
        schedules = [_replay(mod, func_name, space, r, cache) for r in records] if len(records) > 1 else []
    except XtirError:
        schedules = []
    best = min((r.latency for r in records), default=math.inf)
    timed, slow = {}, {}
    for label, module in baselines.items():
        try:
            first = measurer.measure(module, best)  # built and checked (a failure is the baseline's, not the search's)
        except XtirError:
            continue
        if first > SLOW * best:
            slow[label] = first  # timed once, as a slow candidate: far slower whatever the load
        else:
            timed[label] = module
    latencies = measurer.retime([*(sch.mod for sch in schedules), *timed.values()])
    rechecked = [(Record(r.decisions, r.pipeline, t), sch) for r, sch, t in zip(records, schedules, latencies)]
    latency = {**dict(zip(timed, latencies[len(schedules):])), **slow}
    return rechecked, {label: latency[label] for label in baselines if label in latency}


class _Drawer:
    """Draws candidates from the space: samples, and mutations of the best measured ones whose
    decisions were not tried yet (in this run or the database's)."""

    def __init__(self, mod: ModuleOp, func_name: str | None, space: Space, rng: random.Random, records: Iterable[Record]):
        self._mod, self._func_name, self._space, self._rng = mod, func_name, space, rng
        self._tried = {_key(loads(r.decisions)) for r in records}
        self._seconds: list[float] = []
        self.cache = StateCache()
        """The schedule states of the candidates drawn, shared with every replay of this search."""
        self.failures = 0
        """Draws the space failed on."""
        self.first_error = ""
        """Why the space failed on the first of them."""

    def draw(self, parents: list[Record], known: Container[str]) -> Schedule | None:
        """A scheduled candidate; None when the space failed on it. Without parents (the random
        start) one sample, measured before or not (so that a run seeded as an earlier one finds
        its start in the database); with them, a mutation (or sometimes a fresh sample) whose
        pipeline is not in `known`, or the last drawn when ATTEMPTS draws found none new."""
        sch = None
        for _ in range(ATTEMPTS if parents else 1):
            mutation = bool(parents) and self._rng.random() >= FRESH_SAMPLE
            sch = self._apply(self._untried_mutation(parents) if mutation else None)
            if sch is None or sch.trace not in known:
                return sch
        return sch

    def draws(self, measuring_seconds: float) -> int:
        """Candidates to draw per trial: as many as take about as long as measuring one, 2 to DRAWS_PER_TRIAL."""
        if not self._seconds or not measuring_seconds:
            return DRAWS_PER_TRIAL
        return max(2, min(DRAWS_PER_TRIAL, round(measuring_seconds / statistics.fmean(self._seconds))))

    def _untried_mutation(self, parents: list[Record]) -> list[Any] | None:
        """A mutation of one of the PARENTS best not tried yet; None (sample afresh) when MUTATIONS found none."""
        for _ in range(MUTATIONS):
            values = mutate(self._rng.choice(parents[:PARENTS]).decisions, self._rng)
            if _key(values) not in self._tried:
                self._tried.add(_key(values))
                return values
        return None

    def _apply(self, decisions: list[Any] | None) -> Schedule | None:
        start = time.perf_counter()
        sch = Schedule(self._mod, self._func_name, seed=self._rng.randrange(1 << 31), decisions=decisions,
                       cache=self.cache)
        try:
            self._space(sch)
        except XtirError as e:
            self.failures += 1
            self.first_error = self.first_error or str(e)
            return None
        finally:
            self._seconds.append(time.perf_counter() - start)
        self._tried.add(_key([d.value for d in sch.decisions]))
        return sch


def _key(values: list[Any]) -> str:
    return json.dumps(values)


class _RankedPool:
    """Drawn candidates not measured yet, ranked by the cost model."""

    def __init__(self, model: CostModel, func_name: str):
        self._model, self._name = model, func_name
        self._pool: dict[str, tuple[Schedule, np.ndarray]] = {}

    def best(self, draw: Callable[[Any], Schedule | None], known: dict[str, Record], rng: random.Random,
             draws: int) -> tuple[Schedule, np.ndarray] | None:
        """The best ranked of the pool after `draws` more draws (taken out of the pool), with
        its features; None when the pool is empty (every draw failed)."""
        for _ in range(draws):
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
        return self._pool.pop(pick)


def _warm_start(model: CostModel, mod: ModuleOp, func_name: str | None, space: Space, records: list[Record],
                flops: int, cache: StateCache) -> None:
    """Teach the model the database's records (replayed for their features; one the space no longer makes is left out)."""
    features, gflops = [], []
    for record in records:
        try:
            sch = _replay(mod, func_name, space, record, cache)
        except XtirError:
            continue
        features.append(function_features(sch.mod, sch.func_name))
        gflops.append(_gflops(flops, record.latency))
    if features:
        model.update(features, gflops)


def _replay(mod: ModuleOp, name: str | None, space: Space, record: Record, cache: StateCache) -> Schedule:
    sch = Schedule(mod, name, decisions=loads(record.decisions), cache=cache)
    space(sch)
    return sch


def _gflops(flops: int, latency: float) -> float:
    return flops / latency / 1e9 if math.isfinite(latency) else 0.0


class _Measurer:
    """Builds and times candidates; checks each once against the unscheduled program (run on
    the CPU: a GPU target cannot run loops bound to no thread)."""

    def __init__(self, mod: ModuleOp, name: str, target: str, repeats: int = 5):
        self._name, self._target, self._repeats = name, target, repeats
        self._clock = _GpuClock() if target == "cuda" else _HostClock()
        function = select_function(mod, name)
        self.flops = _flop_count(mod, name)
        self._inputs = random_inputs(function, np.random.default_rng(0))
        self._expected = self._called(build(mod, "llvm", name), _HostClock())
        self._seconds: list[float] = []

    def _called(self, f: Callable[..., Any], clock: _HostClock | _GpuClock) -> list[Any]:
        """Fresh arguments for `f` (where `clock` times it), after one call of `f` on them."""
        arrays = clock.arguments(self._inputs)
        f(*arrays)
        return arrays

    def measure(self, mod: ModuleOp, best: float = math.inf) -> float:
        """The median seconds of one call (after a warm-up), or of the one call timed when that
        is SLOW times `best`; XtirError when it is wrong."""
        start = time.perf_counter()
        f = build(mod, self._target, self._name)
        arrays = self._called(f, self._clock)
        for k, (g, e) in enumerate(zip(self._clock.results(arrays), self._expected)):
            ok, err = compare(g, e)
            if not ok:
                raise XtirError(f"candidate computes parameter {k} wrong (largest error {err:g})")
        latency = once = self._clock.seconds(f, arrays, 1)
        if once <= SLOW * best:
            number = _batch(once)
            latency = statistics.median(self._clock.seconds(f, arrays, number) for _ in range(self._repeats)) / number
        self._seconds.append(time.perf_counter() - start)
        return latency

    def mean_seconds(self) -> float:
        """The mean time one measurement took (building it too); 0 before the first."""
        return statistics.fmean(self._seconds) if self._seconds else 0.0

    def retime(self, mods: list[ModuleOp]) -> list[float]:
        """The median seconds of one call of each (checked before), timed in turns, so that the
        machine's load weighs on each alike."""
        functions = [build(mod, self._target, self._name) for mod in mods]
        arrays = [self._called(f, self._clock) for f in functions]
        numbers = [_batch(self._clock.seconds(f, a, 1)) for f, a in zip(functions, arrays)]
        times: list[list[float]] = [[] for _ in functions]
        for _ in range(2 * self._repeats):
            for f, a, number, t in zip(functions, arrays, numbers, times):
                t.append(self._clock.seconds(f, a, number) / number)
        return [statistics.median(t) for t in times]


class _HostClock:
    """Targets "llvm" and "cuda-cpu": calls on numpy arrays, timed by the host's clock."""

    def arguments(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return [a.copy() for a in inputs]

    def results(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        return arrays

    def seconds(self, f: Callable[..., Any], arrays: list[np.ndarray], number: int) -> float:
        return _seconds(f, arrays, number)


class _GpuClock:
    """Target "cuda": the arguments are CuPy arrays, copied to the device once per candidate
    (a call on numpy arrays would copy them there and back each time, and the copies would
    outweigh most kernels), and a timing is what CUDA events read around the launches."""

    def __init__(self) -> None:
        from xtir.lowering.cuda_function import import_cupy  # as xtir.build: the GPU runtime loads only for "cuda"

        self._cupy = import_cupy()  # no GPU: XtirError now, not every candidate failing

    def arguments(self, inputs: list[np.ndarray]) -> list[Any]:
        return [self._cupy.asarray(a) for a in inputs]

    def results(self, arrays: list[Any]) -> list[np.ndarray]:
        """The arguments copied back to the host, for the check."""
        with self._kernel_faults():
            return [a.get() for a in arrays]

    def seconds(self, f: Callable[..., Any], arrays: list[Any], number: int) -> float:
        """Seconds from an event before the first of `number` calls to one after the last, on
        CuPy's current stream (a call on CuPy arrays runs there, and returns once queued: the
        host queues the next launch while the GPU runs one)."""
        start, stop = self._cupy.cuda.Event(), self._cupy.cuda.Event()
        start.record()
        for _ in range(number):
            f(*arrays)
        stop.record()
        with self._kernel_faults():
            stop.synchronize()
        return self._cupy.cuda.get_elapsed_time(start, stop) / 1e3

    @contextlib.contextmanager
    def _kernel_faults(self) -> Iterator[None]:
        """A fault of the kernels waited for (CuPy's error, raised where the host waits) as the
        candidate's XtirError, as a call on numpy arrays raises it."""
        try:
            yield
        except (self._cupy.cuda.driver.CUDADriverError, self._cupy.cuda.runtime.CUDARuntimeError) as e:
            raise XtirError(f"candidate failed on the GPU: {e}") from None


def _batch(once: float) -> int:
    """Calls per timing, for batches of at least 20 ms."""
    return max(1, int(0.02 / max(once, 1e-9)))


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
        self._stopped = ""
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

    def stop(self, why: str) -> None:
        """The search ends before its trials: `close` says why."""
        self._stopped = why

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        if self._shown and self._stopped:
            print(f"tuning stopped after {self._done} of {self._total} trials: {self._stopped}", file=sys.stderr)
