"""Differential schedule fuzzing, the quick (CI) profile: fixed seeds over every fuzz program.

Random schedules through `xtir.Schedule` (tests/fuzz/schedules.py), each compiled with
`xtir.build` and compared with numpy. A primitive must succeed or raise XtirError;
crashes and mismatches must be 0. Failures that match a known bug (schedules.KNOWN_BUGS,
empty today) are counted, not failed on: a known bug gets a strict xfail with its minimal
reproducer, which flips to XPASS when the bug is fixed (then drop the mark and the entry in
KNOWN_BUGS). The bugs this fuzzer found are fixed; their reproducers stay below as tests.
The long profile is `python tests/fuzz/run_long.py --seconds N --seed S`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import xtir
from xtir import BlockRV, LoopRV

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.fuzz import schedules  # noqa: E402
from tests.fuzz.schedules import (  # noqa: E402
    PRIMITIVES,
    Call,
    Failure,
    Stats,
    check_schedule,
    fuzz,
    minimize,
    normalize_ssa_names,
    programs,
    run_case,
)

QUICK_SEEDS = range(12)  # 16 before the generated programs (test_fuzz_generated.py) joined the quick profile


@pytest.fixture(scope="module")
def quick_stats() -> Stats:
    stats = fuzz(QUICK_SEEDS, max_steps=8)
    print("\n" + stats.report())
    return stats


def _details(failures: list[Failure]) -> str:
    parts = []
    for f in failures[:3]:
        try:
            f = f.minimized or minimize(f)
        except Exception as e:  # keep the unminimized case
            parts.append(f"(minimizing failed: {e})")
        parts.append(f"{f.summary()}\n{f.message[-2000:]}\nreproducer:\n{f.reproducer()}\npipeline: {f.trace}")
    return "\n\n".join(parts)


def test_no_crashes(quick_stats: Stats) -> None:
    crashes = [f for f in quick_stats.new_failures if f.kind.startswith("crash") or f.kind == "hang"]
    assert not crashes, _details(crashes)


def test_no_mismatches(quick_stats: Stats) -> None:
    mismatches = [f for f in quick_stats.new_failures if f.kind.startswith("mismatch")]
    assert not mismatches, _details(mismatches)


def test_refusals_change_nothing_and_traces_replay(quick_stats: Stats) -> None:
    other = [f for f in quick_stats.new_failures if f.kind.startswith(("refusal", "trace", "decision"))]
    assert not other, _details(other)


def test_the_fuzzer_exercises_every_primitive(quick_stats: Stats) -> None:
    assert quick_stats.schedules == len(QUICK_SEEDS) * len(programs())
    assert quick_stats.compared >= quick_stats.schedules // 2
    assert quick_stats.evaluated > 0
    assert sum(quick_stats.rejected.values()) > 0
    often = [p for p in PRIMITIVES if PRIMITIVES[p] >= 1.0]
    assert not [p for p in often if quick_stats.accepted[p] == 0], quick_stats.report()


def test_the_fuzzer_samples_replays_decisions_and_caches_for_consumers(quick_stats: Stats) -> None:
    """The session-8 API reached by the quick profile: sampling instructions (with and without
    `decision=`), whose decisions are replayed (test_refusals_change_nothing_and_traces_replay
    fails on a decision-replay failure), and cache_write with consumer_blocks accepted."""
    for method in ("sample_perfect_tile", "sample_categorical", "sample_compute_location"):
        assert quick_stats.accepted[method] > 0, quick_stats.report()
    assert quick_stats.decisions_replayed > 0
    for variant in ("sample_perfect_tile(decision=)", "cache_write(consumer_blocks=)"):
        assert quick_stats.variants[variant] > 0, quick_stats.report()


def test_a_case_is_the_same_for_the_same_seed() -> None:
    """The seed fixes everything, the dimensions drawn from the generator's later stream included."""
    prog = programs()["matmul_bias12"]
    first, second = (run_case(prog, 5, Stats(), max_steps=10, evaluate=False) for _ in range(2))
    assert [c.source() for c in first.calls] == [c.source() for c in second.calls]
    assert first.trace == second.trace


def test_harness_reports_a_decision_that_does_not_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Sampler that ignores the decisions given back (a planted bug) is a decision-replay failure."""
    from xtir.tune import sampling

    calls = [Call("sample_perfect_tile", (LoopRV("i"), 3), (("max_innermost_factor", 16),)),
             Call("split", (LoopRV("i"),), (("factors", [None, 2]),))]
    prog = programs()["matmul30"]
    assert schedules.decision_replay_error(prog, calls) is None
    real_init = sampling.Sampler.__init__
    monkeypatch.setattr(sampling.Sampler, "__init__", lambda self, seed=None, replay=None: real_init(self, seed))
    assert "(decisions=) sampled" in (schedules.decision_replay_error(prog, calls) or "")


def test_every_program_runs_unscheduled() -> None:
    for prog in programs().values():
        args = prog.arguments(np.random.default_rng(0))
        xtir.build(prog.module)(*args)
        for k, want in zip(prog.outputs, prog.expected(args)):
            np.testing.assert_allclose(args[k], want, rtol=1e-4, atol=1e-3, err_msg=prog.name)


# The harness itself: it must see planted bugs --------------------------------------------------------


def test_harness_reports_a_miscompile(monkeypatch: pytest.MonkeyPatch) -> None:
    real_build = xtir.build

    def miscompiling_build(module, *args, **kwargs):
        compiled = real_build(module, *args, **kwargs)
        unrolled = " unrolled " in str(module)
        return (lambda *arrays: None) if unrolled else compiled  # "forgets" to run unrolled code

    monkeypatch.setattr(xtir, "build", miscompiling_build)
    prog = programs()["matmul8"]
    sch = xtir.Schedule(prog.module)
    for call in (
        Call("split", (LoopRV("i"),), (("factors", [None, 3]),)),
        Call("unroll", (LoopRV("j"),)),
        Call("reorder", (LoopRV("j"), LoopRV("i_1"))),
    ):
        call.apply(sch)
    found: list[tuple[str, str]] = []
    check_schedule(prog, sch, 0, Stats(), lambda k, m: found.append((k, m)))
    assert [k for k, _ in found] == ["mismatch-jit"]
    failure = Failure("mismatch-jit", "matmul8", 0, [*map(_call_of, sch.trace.split("},"))], sch.trace, found[0][1])
    small = minimize(failure)
    assert [c.method for c in small.calls] == ["unroll"]


def _call_of(spec: str) -> Call:
    """The Calls of the planted-bug test, from their trace specs."""
    if spec.startswith("split"):
        return Call("split", (LoopRV("i"),), (("factors", [None, 3]),))
    if spec.startswith("unroll"):
        return Call("unroll", (LoopRV("j"),))
    return Call("reorder", (LoopRV("j"), LoopRV("i_1")))


def test_harness_reports_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_split(self, loop, factors):
        raise KeyError("planted")

    monkeypatch.setattr(xtir.Schedule, "split", broken_split)
    stats = Stats()
    for seed in range(6):
        run_case(programs()["window_sum10"], seed, stats, max_steps=4, evaluate=False)
    kinds = {f.kind for f in stats.failures}
    assert kinds == {"crash-primitive"}, stats.report()
    assert all("KeyError" in f.message for f in stats.failures)
    assert "sch.split(" in stats.failures[0].reproducer()


def test_an_illegal_choice_is_an_xtir_error() -> None:
    sch = xtir.Schedule(programs()["matmul8"].module)
    for call in (
        Call("split", (LoopRV("i"),), (("factors", [0, None]),)),
        Call("split", (LoopRV("i"),), (("factors", [None, None]),)),
        Call("split", (LoopRV("i"),), (("factors", [2, 2]),)),  # product below the extent
        Call("split", (BlockRV("matmul"),), (("factors", [None, 2]),)),
        Call("fuse", (LoopRV("i"), LoopRV("k"))),
        Call("reorder", (LoopRV("i"), LoopRV("i"))),
        Call("parallel", (LoopRV("k"),)),
        Call("compute_at", (BlockRV("matmul"), LoopRV("i"))),
        Call("cache_read", (BlockRV("matmul"), 7, "global")),
        Call("decompose_reduction", (BlockRV("matmul"), LoopRV("gone"))),
        Call("split", (LoopRV("gone"),), (("factors", [None, 2]),)),
    ):
        before = str(sch.mod)
        with pytest.raises(xtir.XtirError):
            call.apply(sch)
        assert str(sch.mod) == before and sch.trace == ""


def test_ssa_normalization() -> None:
    assert normalize_ssa_names("%a = f %b, %a") == normalize_ssa_names("%x = f %y, %x")
    assert normalize_ssa_names("%a = f %b, %a") != normalize_ssa_names("%x = f %x, %y")


# Known bugs: minimal reproducers, strict xfails -------------------------------------------------------


def _run_and_compare(prog_name: str, calls: list[Call], evaluate: bool = False) -> None:
    prog = programs()[prog_name]
    sch = xtir.Schedule(prog.module)
    for call in calls:
        call.apply(sch)
    args = prog.arguments(np.random.default_rng(0))
    if evaluate:
        xtir.evaluate(sch.mod, *args)
    else:
        xtir.build(sch.mod)(*args)
    for k, want in zip(prog.outputs, prog.expected(args)):
        np.testing.assert_allclose(args[k], want, rtol=1e-4, atol=1e-3)


def test_cache_write_after_decompose_reduction_is_refused() -> None:
    """Found by this fuzzer (it was accepted and miscompiled): decompose-reduction{block=matmul
    loop=i},cache-write{block=matmul_update index=0 scope=global}. matmul_init zeroes C, but
    matmul_update would accumulate into C_global, which nothing initializes. In the other order
    (the seed's) the init writes the cache and the result is right."""
    prog = programs()["matmul8"]
    sch = xtir.Schedule(prog.module)
    sch.decompose_reduction(BlockRV("matmul"), LoopRV("i"))
    with pytest.raises(xtir.XtirPassError, match='block "matmul_update" reads C without an init'):
        sch.cache_write(BlockRV("matmul_update"), 0, "global")
    _run_and_compare(
        "matmul8",
        [
            Call("cache_write", (BlockRV("matmul"), 0, "global")),
            Call("decompose_reduction", (BlockRV("matmul"), LoopRV("i"))),
        ],
    )


def test_cache_write_of_a_blockized_update_is_refused() -> None:
    sch = xtir.Schedule(programs()["matmul_bias12"].module)
    sch.blockize(LoopRV("j", "matmul"))
    sch.decompose_reduction(BlockRV("matmul_o"), LoopRV("i", "matmul_o"))
    with pytest.raises(xtir.XtirPassError, match="the cache temp_local would start uninitialized"):
        sch.cache_write(BlockRV("matmul"), 0, "local")


def test_reverse_compute_at_refuses_reading_ahead() -> None:
    """cache-read{block=B index=0 scope=global},reverse-compute-at{block=B loop=ax0} on the window sum:
    under ax0 only A_global[0..ax0] exist, yet B[ax0] reads A_global[ax0 + 1] and [ax0 + 2]. Found by
    this fuzzer (it was accepted and miscompiled); now refused."""
    sch = xtir.Schedule(programs()["window_sum10"].module)
    sch.cache_read(BlockRV("B"), 0, "global")
    with pytest.raises(xtir.XtirPassError, match="would read elements not produced yet"):
        sch.reverse_compute_at(BlockRV("B"), LoopRV("ax0"))


def test_trace_replay_prints_the_same() -> None:
    """README: `xtir.transform(original, sch.trace)` gives the same IR as `sch.mod`, names
    included. Found by this fuzzer: after these four primitives the SSA names differed (the
    variable of i_1_0_0 was hinted `i_1`, which clashes with the printer's second `%i`)."""
    prog = programs()["matmul8"]
    sch = xtir.Schedule(prog.module)
    sch.split(LoopRV("i"), factors=[None, 4])
    sch.split(LoopRV("i_1"), factors=[None, 3])
    sch.split(LoopRV("i_1_0"), factors=[2, None])
    sch.parallel(LoopRV("i_1_0_0"))
    replayed = xtir.transform(prog.module, sch.trace)
    assert str(replayed) == str(sch.mod)
    assert "%i100 = 0 to 2" in str(sch.mod)


def test_reorder_of_a_fused_spatial_and_reduce_loop_is_refused() -> None:
    """Found by this fuzzer (accepted, miscompiled): fuse{loops=j,k},split{loop=j_k_fused
    factors=-1,4},reorder{loops=j_k_fused_1,j_k_fused_0} on a 6x6 matmul. The block's init runs
    when vk == 0, the first iteration of each (i, j); after the reorder, steps with vk != 0 of the
    same (i, j) run before it and are wiped. Without an init (after decompose-reduction) the order
    of the steps does not matter, and the reorder is accepted."""
    from tests.fuzz.schedules import matmul

    prog = matmul(6)
    sch = xtir.Schedule(prog.module)
    sch.fuse(LoopRV("j"), LoopRV("k"))
    outer, inner = sch.split(LoopRV("j_k_fused"), [None, 4])
    with pytest.raises(xtir.XtirPassError, match='loop "j_k_fused_0" feeds both spatial variable %vj and reduce'):
        sch.reorder(inner, outer)
    sch.decompose_reduction(BlockRV("matmul"), LoopRV("i"))
    sch.reorder(inner, outer)
    args = prog.arguments(np.random.default_rng(0))
    xtir.build(sch.mod)(*args)
    np.testing.assert_allclose(args[2], prog.expected(args)[0], rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("how", ["split", "split_outer", "fuse"])
def test_known_extent_past_int64_is_refused(how: str) -> None:
    """split(i, [None, 2**64]) (or fusing loops whose extents multiply to 2^64) raised xDSL's
    VerifyException, and between 2^63 and 2^64 the message called the extent negative; both passes
    now refuse extents past int64 before changing anything."""
    sch = xtir.Schedule(programs()["matmul8"].module)
    with pytest.raises(xtir.XtirPassError, match="does not fit in 64 bits"):
        if how == "split":
            sch.split(LoopRV("i"), [None, 2**64])
        elif how == "split_outer":
            sch.split(LoopRV("i"), [2**64, None])
        else:
            sch.split(LoopRV("i"), [2**32, None])
            sch.split(LoopRV("j"), [2**32, None])
            sch.reorder(LoopRV("i_0"), LoopRV("j_0"), LoopRV("i_1"))
            sch.fuse(LoopRV("i_0"), LoopRV("j_0"))


def test_known_bool_split_factor() -> None:
    """split(i, [True, None]) was accepted (True is an int in Python; the pipeline `factors=true,-1`
    too) and stored as a bool: the IR printed `block.for %i0 = 0 to True`, which does not parse, and
    xtir.build failed with "LLVM rejected the generated IR". A bool factor is now refused."""
    prog = programs()["window_sum10"]
    sch = xtir.Schedule(prog.module)
    with pytest.raises(xtir.XtirPassError, match='factors of loop "i" must be integers, got true, -1'):
        sch.split(LoopRV("i"), [True, None])
    with pytest.raises(xtir.XtirPassError, match='factors of loop "i" must be integers, got true, -1'):
        xtir.transform(prog.module, "split{loop=i factors=true,-1}")


def test_decompose_reduction_over_a_recompute_loop_is_refused() -> None:
    """Found by this fuzzer (accepted, miscompiled): cache-write{block=matmul index=0
    scope=global},reverse-compute-at{block=C_global loop=k preserve_unit_loops=true},
    compute-at{block=matmul loop=ax1},decompose-reduction{block=matmul loop=j} on a 6x6 matmul.
    Loop k bound none of matmul's variables after that: the whole reduction was recomputed in each k
    iteration, harmless while the init ran each time; decomposed at j the init ran once and C was
    6 * A @ B.T. The schedule now stops at its second step: under k, matmul's reduction loop,
    C_global would copy partial sums (issue 17). The recompute loop itself stays refused: the
    blockized case below and tests/filecheck/passes/decompose_reduction_invalid.mlir."""
    from tests.fuzz.schedules import matmul

    sch = xtir.Schedule(matmul(6).module)
    sch.cache_write(BlockRV("matmul"), 0, "global")
    with pytest.raises(xtir.XtirPassError, match='loop "k" feeds reduce variable %vk of block "matmul"'):
        sch.reverse_compute_at(BlockRV("C_global"), LoopRV("k"), preserve_unit_loops=True)


def test_decompose_reduction_over_a_recompute_loop_blockized_is_refused() -> None:
    """compute-at{block=matmul loop="add/i"},blockize{loop=ax0},compute-at{block=matmul_o loop=j},
    decompose-reduction{block=matmul_o loop=j} on matmul_bias: matmul_o (a whole row of temp) is
    recomputed for each j of `add`; decomposed at j, its init would run once per i and the row be
    summed 8 times."""
    sch = xtir.Schedule(programs()["matmul_bias8"].module)
    sch.compute_at(BlockRV("matmul"), LoopRV("i", "add"))
    sch.blockize(LoopRV("ax0", "matmul"))
    sch.compute_at(BlockRV("matmul_o"), LoopRV("j", "add"))
    with pytest.raises(xtir.XtirPassError, match='loop "j" binds no variable of block "matmul_o"'):
        sch.decompose_reduction(BlockRV("matmul_o"), LoopRV("j", "matmul_o"))


def test_printed_ir_parses_back() -> None:
    """Found by this fuzzer: split{loop=i factors=3,4,-1},split{loop=i_1 factors=-1,7,16},
    split{loop=i_1_0 factors=-1,2} on the window sum named the variable of loop i_1_0_0 `i_1`, and
    the printer wrote the second variable hinted `i` as `%i_1` too: "SSA value %i_1 is already
    defined" on re-parsing."""
    prog = programs()["window_sum10"]
    module = xtir.transform(
        prog.module, "split{loop=i factors=3,4,-1},split{loop=i_1 factors=-1,7,16},split{loop=i_1_0 factors=-1,2}"
    )
    assert str(xtir.parse(str(module))) == str(module)


def test_parsed_names_cannot_clash_with_printed_ones() -> None:
    """A name such as `%x_1_0` keeps the hint `x_1` in xDSL (one `_<digits>` is dropped), which the
    printer would also give the second value hinted `x`; parsing stabilizes such hints."""
    text = """func.func @main(%x: memref<4xf32>, %x_1_0: memref<4xf32>, %x_5: memref<4xf32>) {
  func.return
}
"""
    module = xtir.parse(text)
    printed = str(module)
    assert "%x, %x1, %x_1" in printed.replace(": memref<4xf32>", ""), printed
    assert str(xtir.parse(printed)) == printed


def test_a_known_bug_is_classified_not_failed_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure matching a KNOWN_BUGS entry is marked with its id and left out of new_failures."""
    monkeypatch.setattr(schedules, "KNOWN_BUGS", [("planted", lambda f: f.kind == "mismatch-jit")])
    calls = [Call("split", (LoopRV("i"),), (("factors", [None, 2]),))]
    known = schedules.classify(Failure("mismatch-jit", "matmul8", 0, calls, "", ""), minimized=False)
    other = schedules.classify(Failure("crash-build", "matmul8", 0, calls, "", ""), minimized=False)
    assert (known.known, other.known) == ("planted", None)
    stats = Stats(failures=[known, other])
    assert stats.new_failures == [other]
    assert "[1 known]" in stats.report()


def test_strided_cache_write_back_stays_shared() -> None:
    """Found by this fuzzer (compiled and wrong, the evaluator right): after these primitives,
    iteration ax1_1 of the write-back writes columns ax1_1, +8, +16 of C_global_A_reg and reads
    columns ax1_1 .. +16; compact-buffers took the strided write for its whole box and gave
    each iteration its own buffer, so most reads saw nothing written."""
    prog = programs()["matmul24"]
    sch = xtir.Schedule(prog.module)
    sch.cache_write(BlockRV("matmul"), 0, "global")
    sch.split(LoopRV("ax1", "C_global"), factors=[None, 8])
    sch.cache_write(BlockRV("C_global"), 0, "global.A_reg")
    sch.reorder(LoopRV("ax1_1", "C_global"), LoopRV("ax0", "C_global"))
    sch.fuse(LoopRV("ax1_0", "C_global"), LoopRV("ax0", "C_global"))
    sch.reverse_compute_at(BlockRV("C_global.A_reg"), LoopRV("ax1_1", "C_global"))
    args = prog.arguments(np.random.default_rng(0))
    xtir.build(sch.mod)(*args)
    np.testing.assert_allclose(args[2], prog.expected(args)[0], rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(("name", "seed"), [("window_sum33", 31134), ("matmul30", 31104)])
def test_generator_is_fast_on_huge_extents(name: str, seed: int) -> None:
    """Both seeds split by 2^31 and then asked the generator for the divisors of a 2^32-ish
    extent: trial division up to n ran past the 120 s case limit ('hang' in a 30-minute run)."""
    stats = schedules.Stats()
    result = schedules.run_case(schedules.programs()[name], seed, stats, max_steps=10, time_limit_s=30.0)
    assert not result.failures, [f.message for f in result.failures]
