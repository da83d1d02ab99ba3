"""Schedule states cached by trace prefix, so that a tuning candidate resumes where another left off.

A mutation changes one decision of a candidate and applies the space again: every primitive
before the first one the change alters is the same, with the same arguments, and gives the
same module. `Schedule(mod, cache=StateCache())` looks each primitive up by the module it
started from and the pipeline text of every primitive so far (`sch.trace` and the new one):
the state after them depends on nothing else. A hit adopts the cached state instead of
running, verifying and cloning; a miss runs the primitive and stores what it made.

A cached state is shared by every schedule that resumes from it, so it is never modified: a
Schedule modifies only a copy of its state (each primitive runs on a clone), and hands out its
module (`sch.mod`) only after copying a shared one; from then on it stores nothing in the cache,
as whoever holds the module might modify it. (`sch.get`'s ops, which the spaces read between
primitives, are the shared state's: they are read, never modified.) The cache holds at most
`capacity` states; the least recently used are dropped.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

CAPACITY = 256
"""States kept by default (a scheduled matmul is some 40 ops, tens of KB; a state per primitive of
the candidates of a few trials)."""


@dataclass
class CachedState:
    """The state after a primitive: the module (never modified), what the primitive returned
    (ops of that module), and where each loop and block of the state before it went:
    `successors` maps its position in the state before (walk order) to its op in `module`
    (absent: the primitive removed or replaced it)."""

    module: ModuleOp
    result: Any
    successors: dict[int, Operation]
    _positions: dict[int, int] | None = field(default=None, repr=False)

    def positions(self) -> dict[int, int]:
        """Each op of `module` (its id) to its position in walk order."""
        if self._positions is None:
            self._positions = positions(self.module)
        return self._positions


def positions(module: ModuleOp) -> dict[int, int]:
    return {id(op): k for k, op in enumerate(module.walk())}


class StateCache:
    """An LRU of schedule states keyed by (the module scheduled, the pipeline so far)."""

    def __init__(self, capacity: int = CAPACITY):
        self.capacity = capacity
        self._states: OrderedDict[tuple[str, ...], CachedState] = OrderedDict()
        self._origins: dict[str, str] = {}
        self.hits = 0
        self.misses = 0

    def origin(self, module: ModuleOp) -> str:
        """The key part naming the module a schedule starts from (its text, interned)."""
        text = str(module)
        return self._origins.setdefault(text, text)

    def get(self, key: tuple[str, ...]) -> CachedState | None:
        state = self._states.get(key)
        if state is None:
            self.misses += 1
            return None
        self.hits += 1
        self._states.move_to_end(key)
        return state

    def put(self, key: tuple[str, ...], state: CachedState) -> None:
        self._states[key] = state
        self._states.move_to_end(key)
        while len(self._states) > self.capacity:
            self._states.popitem(last=False)

    def __len__(self) -> int:
        return len(self._states)

    def items(self) -> list[tuple[tuple[str, ...], CachedState]]:
        return list(self._states.items())
