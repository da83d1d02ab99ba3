"""The random decisions of a stochastic schedule (TVM MetaSchedule's sampling instructions).

A `Sampler` makes every decision a schedule samples and records it as a `Decision`. Given the
decisions of an earlier run (`replay`), it makes the same ones again, in order, where each is
still valid for what is asked; a decision left out (None) or no longer valid is sampled anew
from the sampler's own random stream. That is both a replay (every decision given) and a
mutation (some left out). Decisions are plain data: `dumps`/`loads` write them as JSON.
"""

from __future__ import annotations

import json
import math
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
    candidate; compute_location: the index of the loop among the candidates, -1 for none."""

    kind: str
    subject: str
    value: Any


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


class Sampler:
    def __init__(self, seed: int | None = None, replay: Sequence[Any] | None = None):
        self._rng = random.Random(seed)
        self._replay = list(replay or ())
        self.decisions: list[Decision] = []

    def perfect_tile(self, subject: str, extent: int, n: int, max_innermost_factor: int) -> list[int]:
        if n < 1 or extent < 1 or max_innermost_factor < 1:
            raise XtirPassError(f"sample_perfect_tile: loop '{subject}' of extent {extent} cannot be tiled into {n} "
                                f"with innermost factor at most {max_innermost_factor}")

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

        return self._decide(PERFECT_TILE, subject, valid, sample)

    def categorical(self, subject: str, count: int, probs: Sequence[float] | None) -> int:
        if count < 1 or (probs is not None and (len(probs) != count or min(probs) < 0 or sum(probs) <= 0)):
            raise XtirPassError(f"sample_categorical: {count} candidates need as many probabilities, "
                                f"non-negative and not all zero (got {list(probs or [])})")
        weights = list(probs) if probs is not None else [1.0] * count
        return self._decide(CATEGORICAL, subject, lambda v: isinstance(v, int) and 0 <= v < count and weights[v] > 0,
                            lambda: self._rng.choices(range(count), weights)[0])

    def compute_location(self, subject: str, count: int) -> int:
        """An index among `count` candidate loops, or -1: stay where it is."""
        return self._decide(COMPUTE_LOCATION, subject, lambda v: isinstance(v, int) and -1 <= v < count,
                            lambda: self._rng.randrange(-1, count))

    def _decide(self, kind: str, subject: str, valid, sample) -> Any:
        k = len(self.decisions)
        given = self._replay[k] if k < len(self._replay) else None
        value = given if given is not None and valid(given) else sample()
        self.decisions.append(Decision(kind, subject, value))
        return value


def dumps(decisions: Sequence[Decision], pipeline: str = "") -> str:
    """The decisions, and the concrete pipeline they gave, as JSON."""
    return json.dumps({"decisions": [asdict(d) for d in decisions], "pipeline": pipeline})


def loads(text: str) -> list[Any]:
    """The decision values of `dumps`'s JSON, as `Schedule(..., decisions=)` takes them."""
    try:
        return [d["value"] for d in json.loads(text)["decisions"]]
    except (ValueError, KeyError, TypeError) as e:
        raise XtirPassError(f"not a decision trace (JSON from Schedule.decision_trace): {e}") from None
