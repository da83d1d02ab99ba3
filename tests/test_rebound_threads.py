"""A loop bound to a thread axis inside a loop bound to it (IR bound by hand): lower-to-gpu refuses
it unless running it once equals running it for every outer iteration (lowering/rebound_threads.py),
where it used to build kernels whose numbers differ from the loop nest run serially
(xtir.evaluate); a cooperative fetch then reads of its tile after it still build and match."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import xtir
import xtir.lowering.to_gpu as to_gpu

LIT = Path(__file__).resolve().parent / "filecheck/lowering"


def _cases(name: str) -> dict[str, str]:
    """The functions of a lit test, by name."""
    cases = {}
    for text in (LIT / name).read_text().split("// -----"):
        found = re.search(r"func\.func @(\w+)", text)
        assert found is not None
        cases[found.group(1)] = text
    return cases


REFUSED = _cases("to_gpu_rebound_invalid.mlir")
KEPT = _cases("to_gpu_rebound.mlir")


def _inputs(module: xtir.ModuleOp, func: str) -> list[np.ndarray]:
    f = next(op for op in module.walk() if op.name == "func.func" and op.sym_name.data == func)
    rng = np.random.default_rng(0)
    return [rng.integers(1, 9, a.type.get_shape()).astype(np.float32) for a in f.body.block.args]


def _evaluated_and_built(text: str, func: str, racecheck: bool) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The arrays after the serial evaluator, and after the build on cuda-cpu."""
    arrays = _inputs(xtir.parse(text), func)
    expected, actual = [a.copy() for a in arrays], [a.copy() for a in arrays]
    xtir.evaluate(xtir.parse(text), *expected, func=func)
    xtir.build(xtir.parse(text), target="cuda-cpu", entry=func, racecheck=racecheck)(*actual)
    return expected, actual


@pytest.mark.parametrize("name", REFUSED)
def test_a_rebound_loop_that_differs_run_once_is_refused(name: str) -> None:
    with pytest.raises(xtir.XtirError, match=r'loop "t\d" is bound to threadIdx.x inside loop "t", bound to '):
        xtir.build(xtir.parse(REFUSED[name]), target="cuda-cpu", entry=name)


@pytest.mark.parametrize("name", REFUSED)
def test_a_rebound_loop_computed_wrong_numbers_unchecked(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the refusal prevents: built without the check (the race detector on), the kernel's
    numbers are not those of the loop nest run serially."""
    monkeypatch.setattr(to_gpu, "check_rebound_threads", lambda *args: None)
    expected, actual = _evaluated_and_built(REFUSED[name], name, racecheck=True)
    assert not all(np.array_equal(got, want) for got, want in zip(actual, expected))


@pytest.mark.parametrize("name", KEPT)
def test_a_cooperative_fetch_bound_again_matches_the_serial_nest(name: str) -> None:
    expected, actual = _evaluated_and_built(KEPT[name], name, racecheck=True)
    for got, want in zip(actual, expected):
        np.testing.assert_array_equal(got, want)
