"""Generated programs, the quick (CI) profile: fixed seeds of every family, in a child process.

Programs from tests/fuzz/gen_programs.py (templates with in-place updates, loop-carried
dependences, backward / strided / modular bindings, predicates, partial writers, pipelines,
several functions, odd names, integer and half types, layouts, stack pressure, returned values)
get random schedules (tests/fuzz/schedules.py) and are checked against their template's own
reference: outputs NaN- or sentinel-filled before the call, guard zones around every argument,
the reference evaluator (and again with parallel loops run backwards), every exception that is
not an XtirError a crash. All of it runs in a child process (tests/fuzz/isolation.py), so a case
that kills the process is a `crash-process` failure, followed by one threads round. Failures
matching schedules.KNOWN_BUGS are counted, not failed on (their reproducers are strict xfails in
test_known_bugs.py). The long profile is `python tests/fuzz/run_long.py --seconds N --seed S`, or
`XTIR_FUZZ_SECONDS=N pytest tests/fuzz/test_fuzz_generated.py -k long -s` (XTIR_FUZZ_SEED: the first seed).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest

import xtir

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.fuzz import gen_programs, isolation, run_long, schedules  # noqa: E402
from tests.fuzz.oracles import GuardedArguments, compare, evaluate_reordered  # noqa: E402
from tests.fuzz.schedules import Failure, Stats  # noqa: E402

# One or two programs of each family, chosen to be quick and to meet known bugs (17.1, 17.7, 17.8,
# 17.15, 17.17, 17.20, 17.21, new:eval-int-minmax) as of this writing. The `stack` family takes
# seconds per build: the long profile and test_known_bugs.py::test_17_12 cover it.
QUICK_CASES = ("gen.pipeline.2", "gen.bindings.1", "gen.inplace.4", "gen.partial.1", "gen.partial.5", "gen.functions.2",
               "gen.names.1", "gen.types.0", "gen.types.1", "gen.types.2", "gen.types.3", "gen.layouts.0",
               "gen.returns.4", "gen.hunt.0", "gen.hunt.1")
THREAD_PROGRAMS = ["gen.pipeline.1000000", "gen.pipeline.1000001", "gen.names.1000000", "gen.functions.1000000"]


@pytest.fixture(scope="module")
def generated_stats() -> Stats:
    stats = Stats()
    worker = isolation.Worker()
    try:
        for name in QUICK_CASES:
            isolation.run_case(worker, name, int(name.rsplit(".", 1)[1]), stats, max_steps=6)
        isolation.run_threads(worker, THREAD_PROGRAMS, 0, stats)
    finally:
        worker.close()
    print("\n" + stats.report())
    return stats


def _details(failures: list[Failure]) -> str:
    parts = []
    for f in failures[:3]:
        small = f.minimized or f
        parts.append(f"{small.summary()}\n{small.message[-2000:]}\nreproducer:\n{small.reproducer()}")
    return "\n\n".join(parts)


def test_no_new_crashes(generated_stats: Stats) -> None:
    crashes = [f for f in generated_stats.new_failures if f.kind.startswith("crash") or f.kind == "hang"]
    assert not crashes, _details(crashes)


def test_no_new_wrong_results(generated_stats: Stats) -> None:
    wrong = [f for f in generated_stats.new_failures if f.kind.startswith("mismatch") or f.kind in ("race", "memory-unsafe")]
    assert not wrong, _details(wrong)


def test_no_new_other_failures(generated_stats: Stats) -> None:
    other = [f for f in generated_stats.new_failures if f.kind.startswith(("refusal", "trace", "print", "name"))]
    assert not other, _details(other)


def test_every_family_is_generated_and_checked(generated_stats: Stats) -> None:
    assert set(generated_stats.programs) == set(gen_programs.FAMILIES) - {"stack"}
    assert generated_stats.schedules == len(QUICK_CASES)
    assert generated_stats.thread_rounds == 1
    assert generated_stats.thread_calls >= 2 * len(THREAD_PROGRAMS)
    assert generated_stats.memory_checked > 0
    assert generated_stats.compared > 0
    assert generated_stats.evaluated > 0


# The generator and its reference ------------------------------------------------------------------------


def test_generation_is_deterministic() -> None:
    for family in set(gen_programs.FAMILIES) - {"stack"}:
        a = gen_programs.generate(f"gen.{family}.3").text
        gen_programs.generate.cache_clear()
        assert gen_programs.generate(f"gen.{family}.3").text == a


@pytest.mark.parametrize("family", sorted(set(gen_programs.FAMILIES) - {"stack", "names", "types", "layouts"}))
def test_unscheduled_programs_match_their_reference(family: str) -> None:
    """The generated text and the template's reference agree before any schedule (the evaluator
    and the JIT), so a later mismatch is the schedule's or the compiler's doing."""
    for seed in range(2):
        prog = schedules.find_program(f"gen.{family}.{seed}")
        if not prog.defined or prog.returns:
            continue
        for how in ("jit", "evaluate"):
            args = prog.arguments(np.random.default_rng(seed))
            before = [a.copy() for a in args]
            if how == "jit":
                xtir.build(prog.module, entry=prog.entry)(*args)
            else:
                xtir.evaluate(prog.module, *args, func=prog.entry or "main")
            diff = compare(args, before, prog.outputs, prog.expected(before), *prog.tolerance)
            assert diff is None, f"{prog.name} ({how}): {diff}\n{prog.text}"
            assert not args.violations()


def test_reference_runs_the_init_where_the_bindings_put_it() -> None:
    """`reduce(6, 5 - %k)`: the init runs when %vk is 0, the last iteration (TVM's semantics)."""
    g = gen_programs
    loops = [g.Loop("i", "i", 4), g.Loop("k", "k", 6)]
    vi, vk = g.IterVar("vi", "spatial", 4, g.var("i")), g.IterVar("vk", "reduce", 6, 5 - g.var("k"))
    acc = g.binop("add", g.load("C", g.var("vi")), g.load("A", g.var("vi"), g.var("vk")))
    stage = g.Stage("rowsum", "R", loops, [vi, vk], [g.Store("C", (g.var("vi"),), acc)],
                    init=[g.Store("C", (g.var("vi"),), g.const(0.0))])
    f = g.Function("main", [g.Buffer("A", (4, 6), "f32", "in"), g.Buffer("C", (4,), "f32", "out")], [], [stage], "f32")
    a, c = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32), np.zeros(4, np.float32)
    g.run_reference(f, [a, c])
    np.testing.assert_array_equal(c, a[:, 0])
    c2 = np.zeros(4, np.float32)
    xtir.evaluate(xtir.parse(g.function_text(f)), a, c2)
    np.testing.assert_array_equal(c2, c)


def test_reference_refuses_accesses_outside() -> None:
    with pytest.raises(gen_programs.Undefined):
        gen_programs.run_reference(_copy_function(11), [np.zeros(10, np.float32), np.zeros(10, np.float32)])
    gen_programs.run_reference(_copy_function(10), [np.zeros(10, np.float32), np.zeros(10, np.float32)])


def _copy_function(bound: int) -> gen_programs.Function:
    g = gen_programs
    loop = g.Loop("e", "e", 16)
    v = g.IterVar("v", "spatial", 10, g.var("e"))
    stage = g.Stage("map", "P", [loop], [v], [g.Store("C", (g.var("v"),), g.load("A", g.var("v")))],
                    predicate=[(g.var("e"), bound)])
    return g.Function("main", [g.Buffer("A", (10,), "f32", "in"), g.Buffer("C", (10,), "f32", "out")], [], [stage], "f32")


# The oracles and the child process: they must see planted bugs ---------------------------------------------


def test_guard_zones_see_a_write_past_an_argument() -> None:
    args = GuardedArguments([np.zeros(4, np.float32), np.zeros((2, 3), np.int32)])
    assert args.violations() == []
    assert args[0].flags.c_contiguous and args[1].flags.aligned
    base = args[1].ctypes.data
    np.ctypeslib.as_array((np.ctypeslib.ctypes.c_int32 * 8).from_address(base))[6] = 1  # one past the end
    assert args.violations() and "argument 1" in args.violations()[0]


def test_guard_zones_differ_between_arguments() -> None:
    """A compiled function copying one argument's guard zone into another's (an out-of-bounds
    read stored out of bounds) must show."""
    args = GuardedArguments([np.zeros(4, np.float32), np.zeros(4, np.float32)])
    after = [(np.ctypeslib.ctypes.c_uint8 * 4).from_address(a.ctypes.data + a.nbytes) for a in args]
    assert bytes(after[0]) != bytes(after[1])


def test_compare_sees_a_written_input_and_unwritten_output() -> None:
    before = [np.ones(3, np.float32), np.full(3, np.nan, np.float32)]
    assert compare([before[0].copy(), np.ones(3, np.float32)], before, [1], [np.ones(3, np.float32)], 1e-6, 1e-6) is None
    assert "input 0" in compare([np.zeros(3, np.float32), np.ones(3, np.float32)], before, [1], [np.ones(3)], 1e-6, 1e-6)
    assert "output 1" in compare([before[0].copy(), before[1].copy()], before, [1], [np.ones(3)], 1e-6, 1e-6)


def test_reversed_evaluation_runs_parallel_loops_backwards() -> None:
    text = """func.func @main(%U: memref<5xf32>) {
  block.for %i = 0 to 4 "i" parallel {
    block.block "B"(%v = spatial(4, %i)) {
      %x = block.load %U[%v] : memref<5xf32>
      block.store %x, %U[%v + 1] : memref<5xf32>
    }
  }
  func.return
}"""
    try:
        module = xtir.parse(text)
    except xtir.XtirError:
        pytest.skip("the verifier refuses this race (issue 17, item 5, fixed)")
    u = np.arange(5, dtype=np.float32)
    evaluate_reordered(module, [u])
    np.testing.assert_array_equal(u, [0, 0, 1, 2, 3])  # backwards: each reads the old value


def test_a_dead_child_is_a_crash_with_its_signal() -> None:
    worker = isolation.Worker(timeout_s=60)
    try:
        ok, death = worker.request(("selftest", "signal", signal.SIGSEGV), "planted")
        assert not ok and death.how == "crash-process" and death.signal == "SIGSEGV" and death.stage == "selftest"
        ok, answer = worker.request(("selftest", "sleep", 0), "after")  # a new child answers
        assert ok and answer == "slept" and worker.started == 2
    finally:
        worker.close()


def test_a_child_past_its_time_is_a_hang() -> None:
    worker = isolation.Worker(timeout_s=2)
    try:
        ok, death = worker.request(("selftest", "sleep", 60), "planted")
        assert not ok and death.how == "hang"
    finally:
        worker.close()


@pytest.mark.skipif("XTIR_FUZZ_SECONDS" not in os.environ, reason="the long profile: set XTIR_FUZZ_SECONDS")
def test_long_fuzz_run() -> None:
    """Every fuzzer for XTIR_FUZZ_SECONDS seconds (tests/fuzz/run_long.py); no new failure."""
    seconds, seed = os.environ["XTIR_FUZZ_SECONDS"], os.environ.get("XTIR_FUZZ_SEED", "0")
    assert run_long.main(["--seconds", seconds, "--seed", seed]) == 0
