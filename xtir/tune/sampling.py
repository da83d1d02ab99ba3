"""The random decisions of a stochastic schedule (TVM MetaSchedule's sampling instructions).

A `Sampler` makes every decision a schedule samples and records it as a `Decision`. Given the
decisions of an earlier run (`replay`), it makes the same ones again, in order, where each is
still valid for what is asked; a decision left out (None) or no longer valid is sampled anew
from the sampler's own random stream. That is both a replay (every decision given) and a
mutation (some left out). A replayed value that no decision is (a bool, a float) is refused.
Decisions are plain data: `dumps`/`loads` write them as JSON.

Each decision also records its `options`, every value it could have taken: `mutate` changes
one decision to another of them, so that a mutation is known before the schedule is applied
(the search skips one it has tried) and never gives back its parent.
"""

from __future__ import annotations

import json
import math
import numbers
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from xtir.errors import XtirPassError

PERFECT_TILE = "perfect_tile"
CATEGORICAL = "categorical"
COMPUTE_LOCATION = "compute_location"


@dataclass(frozen=True)
class Decision:
    """One sampled decision: what was asked (`kind`, `subject`, `options`) and the answer `value`.

    perfect_tile: value is the factors, outermost first; categorical: the index of the
    candidate; compute_location: the index of the loop among the loops above the first consumer,
    -1 for none (where it is), -2 for inlined."""

    kind: str
    subject: str
    value: Any
    options: tuple[Any, ...] = ()
    """Every valid value (empty when there are more than OPTIONS_MAX)."""


OPTIONS_MAX = 4096
"""The most options a decision records (a perfect tile of many loops into many factors has more)."""


SAMPLED_EXTENT_MAX = 2**40
"""The largest extent sample_perfect_tile tiles: its divisors are found by trial division up to its
square root (2^20 steps here; a loop split by 2^31 had the fuzzer wait minutes for all of them)."""


def divisors(n: int) -> list[int]:
    """The divisors of n, ascending."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return small + [n // d for d in reversed(small) if d * d != n]


def perfect_tilings(extent: int, n: int, max_innermost_factor: int) -> list[list[int]]:
    """Every list of n factors of `extent`, outermost first, the innermost at most
    max_innermost_factor; empty when there are more than OPTIONS_MAX."""
    tilings = [[f] for f in divisors(extent) if f <= max_innermost_factor]
    for _ in range(n - 1):
        tilings = [[f, *t] for t in tilings for f in divisors(extent // math.prod(t))]
        if len(tilings) > OPTIONS_MAX:
            return []
    return [t for t in tilings if math.prod(t) == extent]


class Sampler:
    def __init__(self, seed: int | None = None, replay: Sequence[Any] | None = None):
        self._rng = random.Random(seed)
        self._replay = list(replay or ())
        self.decisions: list[Decision] = []

    def perfect_tile(self, subject: str, extent: int, n: int, max_innermost_factor: int,
                     decision: list[int] | None = None) -> list[int]:
        if n < 1 or extent < 1 or max_innermost_factor < 1:
            raise XtirPassError(f"sample_perfect_tile: loop '{subject}' of extent {extent} cannot be tiled into {n} "
                                f"with innermost factor at most {max_innermost_factor}")
        if extent > SAMPLED_EXTENT_MAX:
            raise XtirPassError(f"sample_perfect_tile: loop '{subject}' has extent {extent}, past 2^40, whose divisors "
                                "are not searched; split it with factors of your own")

        def valid(v: Any) -> bool:
            return (isinstance(v, list) and len(v) == n and all(isinstance(f, int) and f >= 1 for f in v)
                    and math.prod(v) == extent and v[-1] <= max_innermost_factor)

        def sample() -> list[int]:
            inner = self._rng.choice([d for d in divisors(extent) if d <= max_innermost_factor])
            factors, rest = [inner], extent // inner
            for _ in range(n - 2):
                factors.append(self._rng.choice(divisors(rest)))
                rest //= factors[-1]
            return [rest, *reversed(factors)] if n > 1 else [extent]

        return self._decide(PERFECT_TILE, subject, valid, sample, perfect_tilings(extent, n, max_innermost_factor),
                            decision)

    def categorical(self, subject: str, count: int, probs: Sequence[float] | None, decision: int | None = None) -> int:
        if count < 1 or (probs is not None and (len(probs) != count or min(probs) < 0 or sum(probs) <= 0)):
            raise XtirPassError(f"sample_categorical: {count} candidates need as many probabilities, "
                                f"non-negative and not all zero (got {list(probs or [])})")
        weights = list(probs) if probs is not None else [1.0] * count
        return self._decide(CATEGORICAL, subject, lambda v: isinstance(v, int) and 0 <= v < count and weights[v] > 0,
                            lambda: self._rng.choices(range(count), weights)[0], [k for k in range(count) if weights[k] > 0],
                            decision)

    def compute_location(self, subject: str, candidates: Sequence[int], decision: int | None = None) -> int:
        """One of the `candidates` (TVM's location indices: a loop's index, -1 to stay where it is,
        -2 to inline), each as likely."""
        return self._decide(COMPUTE_LOCATION, subject, lambda v: v in candidates, lambda: self._rng.choice(candidates),
                            list(candidates), decision)

    def _decide(self, kind: str, subject: str, valid, sample, options: list[Any], decision: Any = None) -> Any:
        """The replayed decision where valid, else a sample; `decision`, the caller's (TVM's
        `decision=`, checked by the caller), over both."""
        k = len(self.decisions)
        given = _checked(k, self._replay[k]) if k < len(self._replay) else None
        if decision is not None:
            value = decision
        else:
            value = given if given is not None and valid(given) else sample()
        self.decisions.append(Decision(kind, subject, value, tuple(options)))
        return value


def _is_int(value: Any) -> bool:
    """An int (numpy's included), not a bool: what an index or a factor is."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _checked(k: int, value: Any) -> Any:
    """The k-th replayed decision, with ints as Python ints. One of another kind (a tiling where an
    index is asked) is left to `valid`, which samples anew, since a mutation can change which
    decisions follow; but a value no decision takes (a bool, a float: 1.0 would index a list as
    1 does not) is refused, never taken as the int it equals. None (left out) stays None."""
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    if any(not _is_int(v) for v in items):
        raise XtirPassError(f"decision {k} of the replayed decisions is {value!r}: a decision is an int (an index) "
                            "or a list of ints (a perfect tile's factors)")
    return [int(v) for v in value] if isinstance(value, list) else int(value)


def dumps(decisions: Sequence[Decision], pipeline: str = "") -> str:
    """The decisions, and the concrete pipeline they gave, as JSON."""
    return json.dumps({"decisions": [asdict(d) for d in decisions], "pipeline": pipeline})


def loads(text: str) -> list[Any]:
    """The decision values of `dumps`'s JSON, as `Schedule(..., decisions=)` takes them."""
    return [d["value"] for d in _decision_dicts(text)]


def mutate(text: str, rng: random.Random) -> list[Any]:
    """The decision values of `dumps`'s JSON with one decision that has other options changed to
    one of them (for a trace written without options, left out: sampled anew); unchanged when
    no decision has another option."""
    decisions = _decision_dicts(text)
    values = [d["value"] for d in decisions]
    mutable = [k for k, d in enumerate(decisions) if len(d.get("options", ())) > 1 or "options" not in d]
    if mutable:
        k = rng.choice(mutable)
        others = [o for o in decisions[k].get("options", ()) if o != values[k]]
        values[k] = rng.choice(others) if others else None
    return values


def _decision_dicts(text: str) -> list[dict[str, Any]]:
    try:
        decisions = json.loads(text)["decisions"]
        if not all(isinstance(d, dict) and "value" in d for d in decisions):
            raise TypeError("a decision without a value")
        return decisions
    except (ValueError, KeyError, TypeError) as e:
        raise XtirPassError(f"not a decision trace (JSON from Schedule.decision_trace): {e}") from None
