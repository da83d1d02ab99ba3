"""xtir.tune: sampling primitives, decision replay, the search, its database and CLI (small matmuls)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir import te, topi
from xtir.dialects.block import PARALLEL, UNROLLED, VECTORIZED, ForOp
from xtir.tune import default_space, search, tuner
from xtir.tune.cli import main as tune_main
from xtir.tune.database import Database, workload_key
from xtir.tune.sampling import PERFECT_TILE, loads, mutate, perfect_tilings
from xtir.tune.spaces import ACCUMULATORS_MIN, LANES, REGISTER_TILE_MAX

ROOT = Path(__file__).resolve().parents[1]


def matmul(n: int = 32, transposed: bool = True):
    text = re.sub(r"(?<!\d)1024(?!\d)", str(n), (ROOT / "examples" / "matmul.mlir").read_text())
    return xtir.parse(text if transposed else text.replace("%B[%vj, %vk]", "%B[%vk, %vj]"))


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


def test_sample_perfect_tile_of_a_huge_loop_is_quick_or_refused() -> None:
    """Found by the schedule fuzzer: after split(i, [2**31, None]) sampling a tile of i_0 tried each
    number up to 2^31 as a divisor (minutes). Divisors are now searched up to the square root, and
    extents past 2^40 refused (their square root is too many steps)."""
    sch = xtir.Schedule(matmul(48), seed=1)
    i, j, _ = sch.get_loops(sch.get_block("matmul"))
    huge, _ = sch.split(i, [2**31, None])
    factors = sch.sample_perfect_tile(huge, 3, max_innermost_factor=16)
    assert np.prod(factors) == 2**31 and factors[-1] <= 16
    sch.sample_perfect_tile(huge, 2, decision=[2**30, 2])
    huger, _ = sch.split(j, [2**41, None])
    with pytest.raises(xtir.XtirError, match=r"has extent 2199023255552, past 2\^40"):
        sch.sample_perfect_tile(huger, 2)


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
    original = sampled(5)
    values = loads(original.decision_trace())
    kept = sampled(seed=11, decisions=[*values[:-1], None])
    assert [d.value for d in kept.decisions][:-1] == values[:-1]
    tile = next(k for k, d in enumerate(original.decisions) if d.kind == PERFECT_TILE)
    wrong = sampled(seed=11, decisions=[*values[:tile], [7, 7, 7], *values[tile + 1:]])  # not a tiling: sampled anew
    assert wrong.decisions[tile].value != [7, 7, 7]
    assert np.prod(wrong.decisions[tile].value) == np.prod(values[tile])


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


def test_a_space_without_a_valid_candidate_says_why() -> None:
    def illegal(sch: xtir.Schedule) -> None:
        sch.parallel(sch.get_loops(sch.get_block("matmul"))[2])  # k, a reduction loop: refused

    with pytest.raises(xtir.XtirError, match=r'(?s)none of 2 candidates .* \(2 failed; the first: .*parallel: loop "k" '):
        xtir.tune(matmul(), trials=2, space=illegal, progress=False)


def test_xtir_tune_cli_tunes_and_prints_the_best(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "mm.mlir"
    source.write_text(str(matmul(16)))
    db = str(tmp_path / "tune.db")
    assert tune_main([str(source), "--trials", "2", "--seed", "0", "--db", db]) == 0
    tuned = capsys.readouterr().out.strip()
    assert tune_main([str(source), "--best", "--db", db]) == 0
    assert capsys.readouterr().out.strip() == tuned
    assert tune_main([str(source), "--best", "--db", str(tmp_path / "missing.db")]) == 1
    assert "no tuning database at" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()  # --best measures nothing and writes nothing



def test_xtir_tune_cli_mistakes_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing input, a database path that cannot be opened or is no database, an unwritable
    plot: each an error line, no traceback (the tuned pipeline is printed before the plot)."""
    source = tmp_path / "mm.mlir"
    source.write_text(str(matmul(16)))
    not_a_db = tmp_path / "notes.db"
    not_a_db.write_text("not sqlite")
    one_trial = ["--trials", "1", "--seed", "0"]
    for argv, message in [([str(tmp_path / "missing.mlir")], "No such file"),
                          ([str(source), "--db", str(tmp_path / "no" / "dir.db")], "tuning database"),
                          ([str(source), "--db", str(not_a_db)], "is not a database"),
                          ([str(source), "--plot", str(tmp_path / "no" / "p.png")], "no plot written"),
                          ([str(source), "--plot", str(tmp_path / "p.xyz")], "no plot written")]:
        assert tune_main([*argv, *one_trial]) == 1
        captured = capsys.readouterr()
        assert message in captured.err and "Traceback" not in captured.err
    assert "split" in captured.out  # the plot's failure comes after the result
    with pytest.raises(SystemExit):
        tune_main([str(source), "--trials", "0"])
    assert "positive number of trials" in capsys.readouterr().err
    with pytest.raises(xtir.XtirError, match="tuning database"):
        xtir.tune(matmul(16), trials=1, database=str(not_a_db))

def test_a_graph_module_says_which_function_to_tune(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A graph function, legalize-tensor's host function (no blocks: it calls the block
    functions) and a module of several functions without --func: an error saying what to tune."""
    graph = xtir.parse_file(str(ROOT / "examples" / "mlp.mlir"))
    with pytest.raises(xtir.XtirError, match=r"@main is a graph function \(over tensors\): legalize it"):
        xtir.tune(graph, trials=1)
    legal = tmp_path / "legal.mlir"
    legal.write_text(str(xtir.transform(graph, "fuse-ops,legalize-tensor")))
    for argv, message in [([], r"has 3 functions \(fused_dense_add_relu, fused_dense_add, main\); choose one with --func"),
                          (["--func", "main"], r"@main has no blocks to schedule: it calls fused_dense_add, "
                                               r"fused_dense_add_relu; tune those")]:
        assert tune_main([str(legal), "--trials", "1", *argv]) == 1
        err = capsys.readouterr().err
        assert re.search(message, err) and "Traceback" not in err, err


# The default space on the workloads of benchmarks/tune_matmul.py, small -----------------------


def conv2d(channels: int = 8, size: int = 10, filters: int = 16) -> tuple[ModuleOp, list[np.ndarray], np.ndarray]:
    """A padded 3x3 NCHW convolution, its inputs, and its result computed with numpy."""
    x = te.placeholder((1, channels, size, size), name="x")
    w = te.placeholder((filters, channels, 3, 3), name="w")
    y = topi.conv2d_nchw(x, w, padding=1)
    rng = np.random.default_rng(0)
    xs, ws = rng.standard_normal(x.shape, dtype=np.float32), rng.standard_normal(w.shape, dtype=np.float32)
    padded = np.pad(xs, ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))  # n c oh ow kh kw
    expected = np.einsum("nchwyx,fcyx->nfhw", windows, ws)
    return ModuleOp([te.create_func([x, w, y], "main")]), [xs, ws, np.empty(y.shape, np.float32)], expected


def workload(name: str) -> tuple[ModuleOp, list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(0)
    if name == "conv2d":
        return conv2d()
    if name == "window_sum":
        a = rng.standard_normal(1026, dtype=np.float32)
        return (xtir.parse((ROOT / "examples" / "window_sum.mlir").read_text()), [a, np.empty(1024, np.float32)],
                a[:-2] + a[1:-1] + a[2:])
    if name == "matmul_bias":
        a, b, c = rng.standard_normal((3, 64, 64), dtype=np.float32)
        text = re.sub(r"(?<!\d)1024(?!\d)", "64", (ROOT / "examples" / "matmul_bias.mlir").read_text())
        return xtir.parse(text), [a, b, c, np.empty((64, 64), np.float32)], a @ b.T + c
    a, b = rng.standard_normal((2, 64, 64), dtype=np.float32)
    transposed = name == "matmul A·Bᵀ"
    return matmul(64, transposed), [a, b, np.empty((64, 64), np.float32)], a @ (b.T if transposed else b)


@pytest.mark.parametrize("name", ["matmul A·Bᵀ", "matmul A·B", "matmul_bias", "conv2d", "window_sum"])
def test_the_default_space_schedules_each_workload_correctly(name: str) -> None:
    mod, arrays, expected = workload(name)
    for seed in range(3):
        sch = xtir.Schedule(mod, seed=seed)
        default_space(sch)
        got = [a.copy() for a in arrays]
        xtir.build(sch.mod)(*got)
        np.testing.assert_allclose(got[-1], expected, rtol=1e-3, atol=1e-3, err_msg=f"seed {seed}: {sch.trace}")


def loops_of(sch: xtir.Schedule, kind: str) -> list[ForOp]:
    return [op for op in sch.mod.walk() if isinstance(op, ForOp) and op.kind == kind]


def test_a_transposed_operand_is_always_packed_with_its_layout_permuted() -> None:
    """B in C = A·Bᵀ: unpacked, the loads along the vectorized j would be gathers."""
    for seed in range(6):
        trace = sampled(seed).trace
        assert "cache-read{block=matmul index=1 scope=global},transform-layout{buffer=B_global permutation=1,0}" in trace
    for seed in range(6):  # B in C = A·B is contiguous along j: packed or not, never permuted
        sch = xtir.Schedule(matmul(transposed=False), seed=seed)
        default_space(sch)
        assert "transform-layout" not in sch.trace


def test_the_packing_decision_of_a_contiguous_operand_replays() -> None:
    def schedule(decisions=None, seed=None) -> xtir.Schedule:
        sch = xtir.Schedule(matmul(64, transposed=False), seed=seed, decisions=decisions)
        default_space(sch)
        return sch

    packed = {seed: "cache-read" in schedule(seed=seed).trace for seed in range(8)}
    assert set(packed.values()) == {True, False}
    for seed in packed:
        original = schedule(seed=seed)
        assert schedule(decisions=loads(original.decision_trace())).trace == original.trace
    pack = next(k for k, d in enumerate(original.decisions) if d.subject == repr([True, False]))
    flipped = loads(original.decision_trace())
    flipped[pack] = 1 - flipped[pack]
    assert ("cache-read" in schedule(decisions=flipped).trace) != packed[seed]


def test_the_register_tile_fits_the_vector_registers() -> None:
    """The vectorized loop in whole vectors; the unrolled loops within REGISTER_TILE_MAX
    accumulators and, as 256 allows, at least ACCUMULATORS_MIN."""
    for seed in range(5):
        sch = xtir.Schedule(matmul(256), seed=seed)
        default_space(sch)
        (vector,) = loops_of(sch, VECTORIZED)
        assert vector.extent % LANES == 0
        rows = np.prod([lp.extent for lp in loops_of(sch, UNROLLED)])
        assert ACCUMULATORS_MIN <= rows * vector.extent // LANES <= REGISTER_TILE_MAX, sch.trace


def test_an_elementwise_parallel_loop_fuses_only_what_the_cores_need() -> None:
    """The padding of a 64-channel convolution: its parallel loop is i0 and i1 fused (64 jobs),
    not all its loops (each later primitive's dependence check enumerated all 64x58x58 points)."""
    mod = conv2d(channels=64, size=56, filters=16)[0]
    for seed in range(4):
        sch = xtir.Schedule(mod, seed=seed)
        default_space(sch)
        parallel = [lp.label for lp in loops_of(sch, PARALLEL) if lp.label.startswith("i0")]
        assert parallel in ([], ["i0_i1_fused"]), sch.trace


def test_a_pack_is_computed_once_per_panel_in_parallel() -> None:
    """With B packed, the rows' S0 loop is 1 (a pack computed under it would be redone for each
    of its iterations) and the columns' S0, the parallel loop, at least 2; and a transposed B
    is packed at the parallel loop or under it, not before the nest (a serial copy writing a
    row apart each element)."""
    for transposed in (True, False):
        for seed in range(16):
            sch = xtir.Schedule(matmul(256, transposed), seed=seed)
            default_space(sch)
            if "cache-read" not in sch.trace:
                continue
            rows = re.search(r"split\{loop=i_0 factors=(\d+),", sch.trace)
            assert rows and rows.group(1) == "1", sch.trace
            if transposed:
                assert "compute-at{block=B_global" in sch.trace, sch.trace
            (parallel,) = loops_of(sch, PARALLEL)
            assert parallel.extent >= 2, sch.trace  # the panels shared among the cores


def test_decisions_record_their_options_and_a_mutation_changes_one_to_another() -> None:
    sch = sampled(4)
    for d in sch.decisions:
        assert d.value in d.options
    for option in sch.decisions[3].options:  # every option replays as itself
        values = [d.value for d in sch.decisions]
        values[3] = option
        assert sampled(decisions=values).decisions[3].value == option
    parent = [d.value for d in sch.decisions]
    for seed in range(20):
        child = mutate(sch.decision_trace(), random.Random(seed))
        changed = [k for k, (a, b) in enumerate(zip(parent, child)) if a != b]
        assert len(changed) == 1 and len(sch.decisions[changed[0]].options) > 1
        assert child[changed[0]] in sch.decisions[changed[0]].options
    old = json.dumps({"decisions": [{"kind": "categorical", "subject": "[1, 2]", "value": 0}], "pipeline": ""})
    assert mutate(old, random.Random(0)) == [None]  # written without options: sampled anew


def test_perfect_tilings_are_every_valid_tiling() -> None:
    tilings = perfect_tilings(32, 3, 4)
    assert len({tuple(t) for t in tilings}) == len(tilings) == 15
    assert all(np.prod(t) == 32 and t[-1] <= 4 for t in tilings)
    assert perfect_tilings(12, 2, 4) == [[12, 1], [6, 2], [4, 3], [3, 4]]


def _tile_space(applied: list[list]):
    """Splits i and j of the matmul by sampled factors; records the decisions it is applied with."""
    def space(sch: xtir.Schedule) -> None:
        block = sch.get_block("matmul")
        i, j, _ = sch.get_loops(block)
        sch.split(i, [None, sch.sample_categorical([1, 2, 4])])
        sch.split(j, [None, sch.sample_categorical([1, 2, 4])])
        applied.append([d.value for d in sch.decisions])
    return space


def test_a_mutation_tried_before_is_not_applied_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each decision changes to another of its options, and the decisions tried are skipped
    before the space is applied (a resampled decision came back equal one time in three)."""
    monkeypatch.setattr(tuner, "RANDOM_START", 1)
    monkeypatch.setattr(tuner, "FRESH_SAMPLE", 0.0)
    applied: list[list] = []
    result = search(matmul(16), trials=7, seed=3, space=_tile_space(applied), cost_model="none")
    searched = applied[:result.measured]  # the rest replays the best candidates at the end
    assert result.measured == 7 and len(applied) == 7 + tuner.RECHECK
    assert len({tuple(v) for v in searched}) == len(searched)


def test_the_best_candidates_are_timed_again_and_the_fastest_then_wins(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    """The fastest of the first timings is often the luckiest: the RECHECK best are timed again, in turns."""
    rechecked: list[int] = []

    def retime(self, mods) -> list[float]:  # the last of them (the slowest at first) is now the fastest
        rechecked.append(len(mods))
        return [float(len(mods) - k) for k in range(len(mods))]

    monkeypatch.setattr(tuner._Measurer, "retime", retime)
    monkeypatch.setattr(tuner, "_baselines", lambda mod, name, target: {})  # timed with them: the baselines' test
    db = str(tmp_path / "tune.db")
    result = search(matmul(16), trials=6, seed=0, database=db, cost_model="none")
    assert rechecked == [tuner.RECHECK] and result.best_latency == 1.0
    records = Database(db).records(workload_key(matmul(16), None, "default_space"), "llvm")
    assert sorted(r.latency for r in records)[-4:] == [1.0, 2.0, 3.0, 4.0]  # the database keeps the second timings
    assert result.best.trace == next(r.pipeline for r in records if r.latency == 1.0)


def test_a_candidate_much_slower_than_the_best_is_timed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    timings: list[int] = []
    real = tuner._seconds
    monkeypatch.setattr(tuner, "_seconds", lambda f, arrays, number: timings.append(number) or real(f, arrays, number))
    measurer = tuner._Measurer(matmul(16), "main", "llvm")
    measurer.measure(matmul(16), best=1e-12)
    assert len(timings) == 1
    measurer.measure(matmul(16))
    assert len(timings) == 2 + 5


def test_draws_per_trial_follow_the_measuring_time() -> None:
    drawer = tuner._Drawer(matmul(16), None, default_space, random.Random(0), [])
    assert drawer.draws(1.0) == tuner.DRAWS_PER_TRIAL  # nothing drawn yet
    drawer._seconds = [0.5, 0.5]
    assert drawer.draws(1.0) == 2 and drawer.draws(1.5) == 3 and drawer.draws(10.0) == tuner.DRAWS_PER_TRIAL
    assert drawer.draws(0.1) == 2  # at least 2: the ranked pool grows


@pytest.mark.parametrize("cost_model", ["none", "xgb"])
def test_a_small_space_measured_whole_stops_the_search(cost_model: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Nine candidates, 30 trials: once all are measured, the search stops (EXHAUSTED trials
    drawing nothing new) instead of counting the trials left as failures."""
    if cost_model == "xgb":
        pytest.importorskip("xgboost")
    result = search(matmul(16), trials=30, seed=0, space=_tile_space([]), cost_model=cost_model, progress=True)
    assert result.measured == 9 and result.failures == 0 and result.exhausted
    assert len(result.history) < 30
    assert "tuning stopped after" in capsys.readouterr().err


def _fake_times(monkeypatch: pytest.MonkeyPatch, unscheduled: float, default: float, candidate: float) -> list[str]:
    """A measurer that times nothing: each module's latency is that of its kind (recognised by its
    text); returns the kinds `retime` was given, in order."""
    original = matmul(16)
    kinds = {str(original): "unscheduled", str(xtir.transform(original, "default-schedule")): "default-schedule"}
    latency = {"unscheduled": unscheduled, "default-schedule": default, "candidate": candidate}
    retimed: list[str] = []

    def measure(self, mod, best=float("inf")) -> float:
        return latency[kinds.get(str(mod), "candidate")]

    def retime(self, mods) -> list[float]:
        retimed.extend(kinds.get(str(m), "candidate") for m in mods)
        return [latency[kinds.get(str(m), "candidate")] for m in mods]

    monkeypatch.setattr(tuner._Measurer, "measure", measure)
    monkeypatch.setattr(tuner._Measurer, "retime", retime)
    return retimed


def test_the_baselines_are_timed_in_turns_with_the_best_and_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    retimed = _fake_times(monkeypatch, unscheduled=8.0, default=2.0, candidate=1.0)
    result = search(matmul(16), trials=6, seed=0, cost_model="none")
    assert retimed == ["candidate"] * tuner.RECHECK + ["default-schedule"]  # unscheduled: SLOW x the best, timed once
    assert result.baselines == {"unscheduled": 8.0, "default-schedule": 2.0}
    assert result.slower_than is None
    assert result.versus_baselines() == ("8.00x as fast as unscheduled (8000.000 ms), "
                                          "2.00x as fast as default-schedule (2000.000 ms)")


def test_a_best_slower_than_the_default_schedule_says_so(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """On a loaded machine the tuned dense + relu was 100x slower than unscheduled, and reported as the best."""
    _fake_times(monkeypatch, unscheduled=3.0, default=1.0, candidate=2.0)
    result = search(matmul(16), trials=6, seed=0, cost_model="none")
    assert result.slower_than == "default-schedule"
    assert result.versus_baselines().endswith("0.50x as fast as default-schedule (1000.000 ms); SLOWER than default-schedule: "
                                              "keep `default-schedule`")
    with pytest.warns(UserWarning, match="SLOWER than default-schedule"):
        tuner.tune(matmul(16), trials=6, seed=0, cost_model="none", progress=False)
    path = tmp_path / "matmul.mlir"
    path.write_text(str(matmul(16)))
    assert tune_main([str(path), "--trials", "6", "--seed", "0", "--cost-model", "none"]) == 0
    assert "SLOWER than default-schedule" in capsys.readouterr().err


def test_on_a_gpu_target_the_baseline_is_the_default_gpu_schedule() -> None:
    """An unscheduled function has no kernel to time there."""
    baselines = tuner._baselines(matmul(16), "main", "cuda-cpu")
    assert list(baselines) == ["default-gpu-schedule"]
    assert 'bind("threadIdx.x")' in str(baselines["default-gpu-schedule"])
    assert list(tuner._baselines(matmul(16), "main", "llvm")) == ["unscheduled", "default-schedule"]
