"""xtir.tune: sampling primitives, decision replay, the search, its database and CLI (small matmuls)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import xtir
from xtir.tune import default_space, search
from xtir.tune.cli import main as tune_main
from xtir.tune.sampling import loads

ROOT = Path(__file__).resolve().parents[1]


def matmul(n: int = 32):
    return xtir.parse(re.sub(r"(?<!\d)1024(?!\d)", str(n), (ROOT / "examples" / "matmul.mlir").read_text()))


def sampled(seed: int | None = None, decisions=None) -> xtir.Schedule:
    sch = xtir.Schedule(matmul(), seed=seed, decisions=decisions)
    default_space(sch)
    return sch


def test_a_seed_makes_the_schedule_reproducible() -> None:
    assert sampled(3).trace == sampled(3).trace
    assert sampled(3).decisions == sampled(3).decisions
    assert len({sampled(seed).trace for seed in range(6)}) > 1


def test_sample_perfect_tile_gives_split_factors() -> None:
    sch = xtir.Schedule(matmul(48), seed=1)
    i, _, _ = sch.get_loops(sch.get_block("matmul"))
    for _ in range(20):
        factors = sch.sample_perfect_tile(i, 3, max_innermost_factor=4)
        assert len(factors) == 3 and np.prod(factors) == 48 and factors[-1] <= 4
    sch.split(i, factors)


def test_sample_categorical_and_compute_location() -> None:
    sch = xtir.Schedule(xtir.parse((ROOT / "examples" / "matmul_bias.mlir").read_text()), seed=0)
    picks = {sch.sample_categorical(["a", "b", "c"], [0.0, 1.0, 1.0]) for _ in range(30)}
    assert picks == {"b", "c"}
    first = sch.get_child_blocks(sch.get_loops(sch.get_block("matmul"))[0]) or [sch.get_block("matmul")]
    location = sch.sample_compute_location(first[0])
    assert location is None or isinstance(location, xtir.LoopRV)


def test_a_decision_trace_replays_exactly() -> None:
    original = sampled(5)
    replayed = sampled(decisions=loads(original.decision_trace()))
    assert replayed.trace == original.trace
    assert xtir.transform(matmul(), original.trace).__str__() == str(original.mod)


def test_a_replay_resamples_the_decisions_left_out_or_no_longer_valid() -> None:
    values = loads(sampled(5).decision_trace())
    kept = sampled(seed=11, decisions=[None, *values[1:]])
    assert [d.value for d in kept.decisions][1:] == values[1:]
    wrong = sampled(seed=11, decisions=[[7, 7, 7, 7], *values[1:]])  # not a tiling of 32: sampled anew
    assert np.prod(wrong.decisions[0].value) == 32


def test_a_short_tuning_run_finds_a_correct_schedule() -> None:
    mod = matmul()
    sch = xtir.tune(mod, trials=3, seed=0, progress=False)
    assert sch.trace
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 32, 32), dtype=np.float32)
    c = np.zeros((32, 32), np.float32)
    xtir.build(sch.mod)(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)


def test_a_second_run_reuses_the_database(tmp_path: Path) -> None:
    db = str(tmp_path / "tune.db")
    first = search(matmul(), trials=4, seed=0, database=db)
    second = search(matmul(), trials=4, seed=0, database=db)
    assert first.measured == 4 and second.measured < first.measured
    assert second.best_latency <= first.best_latency


def test_a_failed_candidate_does_not_stop_the_search() -> None:
    def sometimes_illegal(sch: xtir.Schedule) -> None:
        default_space(sch)
        if sch.sample_categorical([True, False]):
            sch.compute_inline(sch.get_block("matmul_update"))  # a reduction: refused

    result = search(matmul(), trials=6, seed=2, space=sometimes_illegal)
    assert result.failures > 0 and result.best is not None
    assert len(result.history) == 6


def test_xtir_tune_cli_tunes_and_prints_the_best(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "mm.mlir"
    source.write_text(str(matmul(16)))
    db = str(tmp_path / "tune.db")
    assert tune_main([str(source), "--trials", "2", "--seed", "0", "--db", db]) == 0
    tuned = capsys.readouterr().out.strip()
    assert tune_main([str(source), "--best", "--db", db]) == 0
    assert capsys.readouterr().out.strip() == tuned
    assert tune_main([str(source), "--best", "--db", str(tmp_path / "empty.db")]) == 1
