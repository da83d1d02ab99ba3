"""What the fuzzers check a call against, besides numpy's numbers.

- `GuardedArguments`: each argument is the middle of a larger buffer whose guard zones (before
  and after it, at least as large as the array) hold a NaN (floats) or 0x5A-like (integers) pattern,
  another one for each argument; a
  compiled function that writes outside its arguments changes them (`violations()`), and one that
  reads outside them reads NaN or huge integers into its results.
- `compare`: outputs against the expected arrays (NaN where nothing may be written), with a
  tolerance for floats and exactly for integers; every other argument must be unchanged, bit
  for bit.
- `evaluate_reordered`: the reference evaluator with every `parallel` and `vectorized` loop run
  backwards. Such a loop promises that its iterations are independent; if running them in
  another order changes the results, they are not (a race in the compiled code, which runs them
  at once, even where a particular run happens to come out right).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any
from unittest import mock

import numpy as np
from xdsl.interpreter import Interpreter, PythonValues, impl, register_impls

import xtir
from xtir.dialects import block
from xtir.interpreters.block import BlockFunctions
from xtir.passes.loop_kind import check_marked_loops

GUARD_MIN_BYTES = 256
_NAN_PATTERNS = {2: b"\xa5\x7d", 4: b"\xa5\xa5\xa5\x7f", 8: b"\xa5\xa5\xa5\xa5\xa5\xa5\xf4\x7f"}


def _pattern(dtype: np.dtype, nbytes: int, k: int) -> bytes:
    """NaNs (floats) or 0x5A bytes (integers), different for each argument `k` (in the low byte), so
    that copying one argument's guard zone into another's shows."""
    unit = bytearray(_NAN_PATTERNS.get(dtype.itemsize, b"\x5a") if dtype.kind == "f" else b"\x5a")
    unit[0] ^= (k * 37 + 1) & 0x3F
    return (bytes(unit) * (nbytes // len(unit) + 1))[:nbytes]


class GuardedArguments(list):
    """numpy arrays (C-contiguous views) in the middle of guarded buffers."""

    def __init__(self, arrays: Sequence[np.ndarray]):
        self._guards: list[tuple[np.ndarray, int, int, bytes]] = []
        views = []
        for k, a in enumerate(arrays):
            n = a.nbytes
            g = max(GUARD_MIN_BYTES, -(-n // 64) * 64)  # multiples of 64 bytes keep the view aligned
            backing = np.empty(g + n + g, np.uint8)
            pattern = _pattern(a.dtype, g, k)
            backing[:g] = np.frombuffer(pattern, np.uint8)
            backing[g + n :] = np.frombuffer(pattern, np.uint8)
            view = backing[g : g + n].view(a.dtype).reshape(a.shape)
            view[...] = a
            views.append(view)
            self._guards.append((backing, g, n, pattern))
        super().__init__(views)

    def violations(self) -> list[str]:
        """The arguments whose guard zones changed, with where."""
        found = []
        for k, (backing, g, n, pattern) in enumerate(self._guards):
            for side, zone in (("before", backing[:g]), ("after", backing[g + n :])):
                changed = np.flatnonzero(zone != np.frombuffer(pattern, np.uint8))
                if changed.size:
                    offset = (g - changed[-1]) if side == "before" else changed[0] + 1
                    found.append(f"argument {k}: {changed.size} guard bytes {side} it changed "
                                 f"(the nearest {offset} bytes {side} the array)")
        return found


def _close(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    if got.dtype.kind in "iub":
        return got == want
    return np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


def compare(arrays: Sequence[np.ndarray], before: Sequence[np.ndarray], outputs: Sequence[int],
            expected: Sequence[np.ndarray], rtol: float, atol: float) -> str | None:
    """What differs: an output from its expected array, or any other argument from before the call."""
    wanted = dict(zip(outputs, expected))
    for k, got in enumerate(arrays):
        want = wanted.get(k)
        if want is None:
            if got.tobytes() != before[k].tobytes():
                bad = np.argwhere(~_close(got, before[k], 0.0, 0.0))
                where = tuple(int(i) for i in bad[0]) if bad.size else ()
                return f"input {k} was written; first at {where}"
            continue
        ok = _close(got, np.asarray(want, got.dtype), rtol, atol)
        if not ok.all():
            where = tuple(int(i) for i in np.argwhere(~ok)[0])
            return (f"output {k}: {int((~ok).sum())} of {got.size} elements differ; first at {where}: "
                    f"got {got[where]!r}, expected {want[where]!r}")
    return None


@register_impls
class _ReversedParallelLoops(BlockFunctions):
    """block.for runs parallel and vectorized loops from their last iteration to their first."""

    @impl(block.ForOp)
    def run_for(self, interpreter: Interpreter, op: block.ForOp, args: PythonValues) -> PythonValues:
        order = range(op.extent - 1, -1, -1) if op.kind in ("parallel", "vectorized") else range(op.extent)
        for i in order:
            interpreter.run_ssacfg_region(op.body, (i,), op.label)
        return ()


def has_parallel_loops(module: Any) -> bool:
    return any(isinstance(op, block.ForOp) and op.kind in ("parallel", "vectorized") for op in module.walk())


def marked_loops_independent(module: Any) -> bool:
    """Whether xtir's own check (the build's for parallel loops, vectorize's for vectorized ones)
    finds the iterations of every marked loop independent. Where it does not, the build refuses
    the parallel loop and a vectorized one runs in order (LLVM keeps its dependences), so running
    the loop backwards tells nothing about compiled code: a loop marked by hand in the input."""
    try:
        for f in module.ops:
            check_marked_loops(f)
    except xtir.XtirError:
        return False
    return True


@contextlib.contextmanager
def _reversed_parallel_loops() -> Iterator[None]:
    with mock.patch("xtir.evaluate.BlockFunctions", _ReversedParallelLoops):
        yield


def evaluate_reordered(module: Any, arrays: Sequence[np.ndarray], func: str = "main") -> tuple[Any, ...]:
    """xtir.evaluate with parallel and vectorized loops run backwards (not thread-safe)."""
    with _reversed_parallel_loops():
        return xtir.evaluate(module, *arrays, func=func)
