"""Minimal reproducers of the open bugs the fuzzers classify (schedules.KNOWN_BUGS), strict xfails.

One test per KNOWN_BUGS id (`17.N`: item N of issue 17; `new:...`: classes the fuzzers found
beyond the issue). Each asserts what a fix must give (a refusal with an XtirError is always an
acceptable answer); it fails today, so it is marked xfail(strict=True) and turns XPASS, a
failure, once the fix lands: then remove the mark here and the entry in KNOWN_BUGS. Cases that
can take the process down (an LLVM assertion, SIGSEGV) run in a child Python.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import xtir
from xtir import BlockRV, LoopRV, XtirError

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.fuzz import ir_mutation, schedules  # noqa: E402
from tests.fuzz.isolation import in_child  # noqa: E402
from tests.fuzz.oracles import GuardedArguments, evaluate_reordered  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def known(bug_id: str, why: str) -> pytest.MarkDecorator:
    assert bug_id in dict(schedules.KNOWN_BUGS) or bug_id in dict(ir_mutation.KNOWN_MALFORMED), bug_id
    return pytest.mark.xfail(strict=True, reason=f"{bug_id}: {why}")


def schedule_or_refuse(text: str, *steps: str) -> xtir.Schedule | None:
    """The schedule after `steps` (Python statements on `sch`), or None when one was refused."""
    sch = xtir.Schedule(xtir.parse(text))
    try:
        for step in steps:
            exec(step, {"sch": sch, "BlockRV": BlockRV, "LoopRV": LoopRV})  # noqa: S102
    except XtirError:
        return None
    return sch


def run_both(module: object, arrays: list[np.ndarray]) -> list[list[np.ndarray]]:
    """The arrays after a compiled call and after the reference evaluator (each on its own copy)."""
    results = []
    for how in ("jit", "evaluate"):
        copies = [a.copy() for a in arrays]
        xtir.build(module)(*copies) if how == "jit" else xtir.evaluate(module, *copies)
        results.append(copies)
    return results


def evaluated(text: str, arrays: list[np.ndarray]) -> list[np.ndarray]:
    copies = [a.copy() for a in arrays]
    xtir.evaluate(xtir.parse(text), *copies)
    return copies


RNG = np.random.default_rng(17)


# Silent wrong results --------------------------------------------------------------------------------

PARTIAL_WRITER = """func.func @main(%A: memref<128xf32>, %B: memref<128xf32>) {
  block.for %i = 0 to 16 "i" {
    block.for %j = 0 to 8 "j" {
      block.block "B"(%v = spatial(128, %i * 8 + %j)) where(%i * 8 + %j < 120) {
        %a = block.load %A[%v] : memref<128xf32>
        %c = arith.constant 2.0 : f32
        %b = arith.mulf %a, %c : f32
        block.store %b, %B[%v] : memref<128xf32>
      }
    }
  }
  func.return
}"""


def test_17_1_cache_write_of_a_partial_writer() -> None:
    sch = schedule_or_refuse(PARTIAL_WRITER, "sch.cache_write(BlockRV('B'), 0, 'global')")
    if sch is None:
        return
    a = RNG.standard_normal(128).astype(np.float32)
    for got in run_both(sch.mod, [a, np.full(128, 7.0, np.float32)]):
        np.testing.assert_allclose(got[1][:120], 2 * a[:120], rtol=1e-6)
        np.testing.assert_array_equal(got[1][120:], 7.0)  # never written by the program


BACKWARD_REDUCE = """func.func @main(%A: memref<4x6xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 6 "k" {
      block.block "R"(%vi = spatial(4, %i), %vk = reduce(6, 5 - %k)) {
        block.init {
          %z = arith.constant 0.0 : f32
          block.store %z, %C[%vi] : memref<4xf32>
        }
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x6xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}"""


def _same_as_unscheduled(text: str, *steps: str, shapes: tuple[tuple[int, ...], ...]) -> None:
    sch = schedule_or_refuse(text, *steps)
    if sch is None:
        return
    arrays = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    want = evaluated(text, arrays)
    for got in run_both(sch.mod, arrays):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_17_2_decompose_reduction_of_a_backward_binding() -> None:
    _same_as_unscheduled(BACKWARD_REDUCE, "sch.decompose_reduction(BlockRV('R'), LoopRV('k'))", shapes=((4, 6), (4,)))


@pytest.mark.parametrize("binding", ["5 - %k", "(%k + 3) mod 6"])
def test_new_compute_at_of_a_backward_reduce_binding(binding: str) -> None:
    """new:reduce-order: compute-at rebinds the reduce variable forwards from new loops, so an init
    that ran at the last (or a middle) step ran first; refused now (init_first.py)."""
    _same_as_unscheduled(BACKWARD_REDUCE.replace("5 - %k", binding), "sch.cache_write(BlockRV('R'), 0, 'global')",
                         "sch.compute_at(BlockRV('R'), LoopRV('ax0'))", shapes=((4, 6), (4,)))


def test_17_3_decompose_reduction_above_what_the_init_reads() -> None:
    prog = schedules.programs()["matmul_bias8"]
    sch = schedule_or_refuse(
        prog.text,
        "sch.fuse_reduction_epilogue(BlockRV('matmul'), BlockRV('add'))",
        "sch.cache_read(BlockRV('matmul'), 0, 'local')",
        "sch.compute_at(BlockRV('C_local'), LoopRV('k'))",
        "sch.decompose_reduction(BlockRV('matmul'), LoopRV('i'))",
    )
    if sch is None:
        return
    args = prog.arguments(np.random.default_rng(0))
    want = prog.expected(args)[0]
    for got in run_both(sch.mod, list(args)):
        np.testing.assert_allclose(got[3], want, rtol=1e-4, atol=1e-3)


IN_PLACE_CONSUMER = """func.func @main(%A: memref<4x6xf32>, %U: memref<4xf32>) {
  %T = block.alloc : memref<4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 6 "k" {
      block.block "R"(%vi = spatial(4, %i), %vk = reduce(6, %k)) {
        block.init {
          %z = arith.constant 0.0 : f32
          block.store %z, %T[%vi] : memref<4xf32>
        }
        %t = block.load %T[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x6xf32>
        %s = arith.addf %t, %a : f32
        block.store %s, %T[%vi] : memref<4xf32>
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.block "update"(%vi = spatial(4, %i)) {
      %u = block.load %U[%vi] : memref<4xf32>
      %h = arith.constant 0.5 : f32
      %m = arith.mulf %u, %h : f32
      %t = block.load %T[%vi] : memref<4xf32>
      %s = arith.addf %m, %t : f32
      block.store %s, %U[%vi] : memref<4xf32>
    }
  }
  func.return
}"""


def test_17_4_reverse_compute_at_of_an_in_place_update() -> None:
    _same_as_unscheduled(IN_PLACE_CONSUMER, "sch.reverse_compute_at(BlockRV('update'), LoopRV('k', 'R'))",
                         shapes=((4, 6), (4,)))


CARRIED = """func.func @main(%U: memref<9xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "carried"(%v = spatial(8, %i)) {
      %x = block.load %U[7 - %v] : memref<9xf32>
      %one = arith.constant 1.0 : f32
      %y = arith.addf %x, %one : f32
      block.store %y, %U[8 - %v] : memref<9xf32>
    }
  }
  func.return
}"""


def test_17_5_parallel_loop_carried_dependence() -> None:
    try:
        sch = schedule_or_refuse(CARRIED, "sch.parallel(LoopRV('i'))")
    except XtirError:  # the verifier refusing the block is a fix too
        return
    if sch is None:
        return
    u = RNG.standard_normal(9).astype(np.float32)
    want = evaluated(CARRIED, [u])[0]
    reordered = u.copy()
    evaluate_reordered(sch.mod, [reordered])  # a parallel loop's iterations may run in any order
    np.testing.assert_allclose(reordered, want)


PREDICATED_PRODUCER = """func.func @main(%A: memref<10xf32>, %C: memref<10xf32>) {
  %T = block.alloc : memref<10xf32>
  block.for %e = 0 to 16 "e" {
    block.block "P"(%v = spatial(10, %e)) where(%e < 10) {
      %a = block.load %A[%v] : memref<10xf32>
      %c = arith.constant 2.0 : f32
      %b = arith.mulf %a, %c : f32
      block.store %b, %T[%v] : memref<10xf32>
    }
  }
  block.for %i = 0 to 10 "i" {
    block.block "Q"(%v = spatial(10, %i)) {
      %t = block.load %T[%v] : memref<10xf32>
      %c = arith.constant 1.0 : f32
      %b = arith.addf %t, %c : f32
      block.store %b, %C[%v] : memref<10xf32>
    }
  }
  func.return
}"""


def _memory_safe_and_right(module: object, arrays: list[np.ndarray], want: list[np.ndarray] | None) -> None:
    guarded = GuardedArguments(arrays)
    try:
        xtir.build(module)(*guarded)
    except XtirError:
        return
    assert not guarded.violations(), guarded.violations()
    for got, w in zip(guarded, want or []):
        np.testing.assert_allclose(got, w, rtol=1e-6)


def test_17_6_reverse_compute_inline_keeps_every_conjunct() -> None:
    sch = schedule_or_refuse(PREDICATED_PRODUCER, "sch.split(LoopRV('e'), [None, 5])",
                             "sch.reverse_compute_inline(BlockRV('Q'))")
    if sch is None:
        return
    a = RNG.standard_normal(10).astype(np.float32)
    _memory_safe_and_right(sch.mod, [a, np.full(10, np.nan, np.float32)], [a, 2 * a + 1])


def test_17_7_predicate_outside_the_domain() -> None:
    text = """func.func @main(%A: memref<10xf32>, %C: memref<10xf32>) {
  block.for %e = 0 to 16 "e" {
    block.block "P"(%v = spatial(10, %e)) where(%e < 13) {
      %a = block.load %A[%v] : memref<10xf32>
      block.store %a, %C[%v] : memref<10xf32>
    }
  }
  func.return
}"""
    try:
        module = xtir.parse(text)
    except XtirError:
        return
    a = RNG.standard_normal(10).astype(np.float32)
    _memory_safe_and_right(module, [a, np.full(10, np.nan, np.float32)], None)


# Memory safety and process crashes ------------------------------------------------------------------------

STRIDED = """func.func @main(%A: memref<4xf32, strided<[2]>>, %B: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%v = spatial(4, %i)) {
      %a = block.load %A[%v] : memref<4xf32, strided<[2]>>
      block.store %a, %B[%v] : memref<4xf32>
      block.store %a, %A[%v] : memref<4xf32, strided<[2]>>
    }
  }
  func.return
}"""


def test_17_8_non_identity_layout() -> None:
    try:
        module = xtir.parse(STRIDED)
    except XtirError:
        return
    a = RNG.standard_normal(4).astype(np.float32)
    _memory_safe_and_right(module, [a, np.full(4, np.nan, np.float32)], [a, a])


def test_17_9_builds_from_threads() -> None:
    in_child("""
        import gc, threading
        import numpy as np, xtir
        from tests.fuzz.schedules import programs
        module = programs()["matmul8"].module
        barrier = threading.Barrier(4)
        def build():
            barrier.wait()
            xtir.build(module)
        threads = [threading.Thread(target=build) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        gc.collect()
        prog = programs()["window_sum10"]
        args = prog.arguments(np.random.default_rng(0))
        xtir.build(prog.module)(*args)
    """)


def _canary_after(code: str) -> str:
    return code + """
prog = programs()["window_sum16"]
args = prog.arguments(np.random.default_rng(0))
xtir.build(prog.module)(*args)
np.testing.assert_allclose(args[1], prog.expected(args)[0], rtol=1e-5)
"""


def test_17_10_non_ascii_function_name() -> None:
    in_child(_canary_after(textwrap.dedent("""
        import numpy as np, xtir
        from tests.fuzz.schedules import programs
        text = programs()["window_sum10"].text.replace("@main", '@"fé"')
        try:
            xtir.build(xtir.parse(text))
        except xtir.XtirError:
            pass
    """)))


def test_17_11_runtime_symbol_names() -> None:
    in_child(_canary_after(textwrap.dedent("""
        import numpy as np, xtir
        from xtir import LoopRV
        from tests.fuzz.schedules import programs
        big = programs()["window_sum10"].text.replace("1024", "70000").replace("1026", "70002")
        for name in ("free", "aligned_alloc", "GOMP_parallel", "omp_get_thread_num"):
            for parallel in (False, True):
                text = programs()["matmul_bias8"].text.replace("@main", "@" + name)
                try:
                    sch = xtir.Schedule(xtir.parse(text))
                    if parallel:
                        sch.parallel(LoopRV("i", "add"))
                    prog = programs()["matmul_bias8"]
                    args = prog.arguments(np.random.default_rng(0))
                    xtir.build(sch.mod)(*args)
                except xtir.XtirError:
                    continue
                np.testing.assert_allclose(args[3], prog.expected(args)[0], rtol=1e-4, atol=1e-3)
    """)))


def test_17_12_many_scratch_buffers() -> None:
    in_child("""
        import numpy as np, xtir
        from tests.fuzz.gen_programs import Function, Buffer, Stage, Store, Loop, IterVar, var, load, const, binop
        from tests.fuzz.gen_programs import function_text, run_reference
        n, count = 60000, 40
        params = [Buffer("A", (n,), "f32", "in"), Buffer("B", (n,), "f32", "out")]
        scratch = [Buffer(f"T{k}", (n,), "f32", "scratch") for k in range(count)]
        names = ["A"] + [b.name for b in scratch] + ["B"]
        stages = []
        for k in range(count + 1):
            loop = Loop(f"l{k}", "i", n)
            iv = IterVar(f"v{k}", "spatial", n, var(loop.var))
            value = binop("add", load(names[k], var(iv.name)), const(1.0))
            stages.append(Stage("map", f"S{k}", [loop], [iv], [Store(names[k + 1], (var(iv.name),), value)]))
        f = Function("main", params, scratch, stages, "f32")
        a, b = np.zeros(n, np.float32), np.zeros(n, np.float32)
        xtir.build(xtir.parse(function_text(f)))(a, b)
        np.testing.assert_array_equal(b, count + 1)
    """)


# Other exceptions that escape as non-XtirError ------------------------------------------------------------

INT_ADD = """func.func @main(%A: memref<4xi32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%v = spatial(4, %i)) {
      %a = block.load %A[%v] : memref<4xi32>
      %b = arith.addi %a, %a : i32
      block.store %b, %A[%v] : memref<4xi32>
    }
  }
  func.return
}"""


def test_17_15_evaluator_integer_overflow_wraps() -> None:
    a = np.array([2**31 - 1, -(2**31), 5, -7], np.int32)
    got = evaluated(INT_ADD, [a])[0]
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got, a + a)


def test_17_16_f16_constant_out_of_range() -> None:
    text = "func.func @main() {\n  %c = arith.constant 70000.0 : f16\n  func.return\n}\n"
    try:
        xtir.parse(text)
    except XtirError:
        pass


def test_17_17_bf16_buffer() -> None:
    text = INT_ADD.replace("i32", "bf16").replace("addi", "addf")
    try:
        xtir.build(xtir.parse(text))
    except XtirError:
        pass


@pytest.mark.parametrize("name", ["a b", "a/b", "ß"])
def test_17_18_odd_loop_names(name: str) -> None:
    try:
        sch = xtir.Schedule(xtir.parse(INT_ADD.replace('"i"', f'"{name}"')))
        sch.split(LoopRV(name), [None, 2])
    except XtirError:
        pass


def test_17_19_xtir_run_bad_numpy_line() -> None:
    text = ir_mutation.run_check_texts()["window_sum.mlir"]
    text, _ = ir_mutation.mutate_numpy_line(text.replace("A[2:]", "Q"), _FirstChoice())
    outcome = ir_mutation.run_opt(text.encode(), ("--check",), tool="xtir-run")
    assert ir_mutation.check(outcome) is None, outcome.stdout + outcome.stderr


class _FirstChoice:
    """A random.Random stand-in choosing the first mutation (`+ Q`, an unknown name)."""

    def choice(self, seq: list) -> object:
        return seq[0]


def test_17_20_generated_names_stay_short() -> None:
    sch = xtir.Schedule(schedules.programs()["matmul8"].module)
    loop = sch.fuse(LoopRV("i"), LoopRV("j"))
    for _ in range(6):
        loop = sch.fuse(*sch.split(loop, [None, 2]))
    assert max(len(lp.name) for lp in sch.get_loops(BlockRV("matmul"))) <= schedules.NAME_LIMIT


def test_17_21_returned_value_without_arguments() -> None:
    text = "func.func @main() -> f32 {\n  %c = arith.constant 1.5 : f32\n  func.return %c : f32\n}\n"
    with pytest.raises(XtirError):
        xtir.build(xtir.parse(text))


# Classes the fuzzers found beyond issue 17 ---------------------------------------------------------------


def test_new_printed_negated_mod_parses_back() -> None:
    text = """func.func @main(%U: memref<2x3xf32>) {
  block.for %i = 0 to 2 "i" {
    block.for %j = 0 to 3 "j" {
      block.block "B"(%vi = spatial(2, %i), %vj = spatial(3, 2 - %j)) {
        %u = block.load %U[%vi, %vj] : memref<2x3xf32>
        block.store %u, %U[%vi, %vj] : memref<2x3xf32>
      }
    }
  }
  func.return
}"""
    sch = xtir.Schedule(xtir.parse(text))
    sch.fuse(LoopRV("i"), LoopRV("j"))
    assert xtir.parse(str(sch.mod)).is_structurally_equivalent(sch.mod)


def test_new_printed_non_ascii_block_name_parses_back() -> None:
    module = xtir.parse(INT_ADD.replace('"B"', '"ß"'))
    assert xtir.parse(str(module)).is_structurally_equivalent(module)


def test_new_evaluator_integer_max() -> None:
    a = np.array([3, -4, 0, 9], np.int32)
    got = evaluated(INT_ADD.replace("arith.addi %a, %a", "arith.maxsi %a, %a"), [a])[0]
    np.testing.assert_array_equal(got, a)


PARTIAL_CONSUMER = """func.func @main(%A: memref<4x6xf32>, %O: memref<4x6xf32>) {
  %T = block.alloc : memref<4x6xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 6 "j" {
      block.block "P"(%vi = spatial(4, %i), %vj = spatial(6, %j)) {
        %a = block.load %A[%vi, %vj] : memref<4x6xf32>
        block.store %a, %T[%vi, %vj] : memref<4x6xf32>
      }
    }
  }
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 6 "j" {
      block.block "C"(%vi = spatial(4, %i), %vj = spatial(6, %j)) where(%j < 3) {
        %t = block.load %T[%vi, %vj] : memref<4x6xf32>
        block.store %t, %O[%vi, %vj] : memref<4x6xf32>
      }
    }
  }
  func.return
}"""


def test_new_reverse_compute_at_keeps_the_consumers_predicate() -> None:
    _same_as_unscheduled(PARTIAL_CONSUMER, "sch.reverse_compute_at(BlockRV('C'), LoopRV('i', 'P'))",
                         shapes=((4, 6), (4, 6)))


def test_every_known_bug_has_a_reproducer() -> None:
    ids = {bug_id for bug_id, _ in schedules.KNOWN_BUGS} | {bug_id for bug_id, _ in ir_mutation.KNOWN_MALFORMED}
    reasons = {mark.kwargs["reason"].split(": ", 1)[0] for test in globals().values()
               for mark in getattr(test, "pytestmark", []) if mark.name == "xfail"}
    assert ids <= reasons, f"known bugs without a reproducer here: {sorted(ids - reasons)}"


GUARDED_SHARED_ACCUMULATOR = (
    "cache-write{block=C index=0 scope=shared},split{loop=i factors=-1,1,2,1},split{loop=j factors=-1,1,2,1},"
    "reorder{loops=i_0,j_0,i_1,j_1,i_2,j_2,k,i_3,j_3},fuse{loops=i_2,j_2},"
    'reverse-compute-at{block=C_shared loop=i_2_j_2_fused},bind{loop=i_0 thread="blockIdx.x"},'
    'bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_2_j_2_fused thread="threadIdx.x"}')


@pytest.mark.parametrize("sizes", [(3, 3, 2), (5, 7, 3), (4, 4, 2)])
def test_guarded_shared_accumulator_builds(sizes: tuple[int, int, int]) -> None:
    """GPU fuzzer (seed 57, a shared accumulator under vthreads; shrunk), fixed: C_shared[i, j] += A * B
    by the thread owning (i, j), written back by the same thread under its reverse-compute-at. On a
    3x3 matmul tiled 2x2 the guards `i < 3`, `j < 3` (on the thread index, no barrier point inside)
    made lower-to-gpu refuse it ("threads exchange data through shared buffer C_shared ... the code
    between runs under a condition on the thread index"), yet no thread touches an element another
    does. Built for cuda-cpu and run with racecheck, its output is compared with numpy's
    (run_case); 5x7 has partial tiles along both axes, 4x4 none."""
    from tests.fuzz.gpu_fuzz import Case, Program, run_case, steps_of

    outcome = run_case(Case(Program("matmul", sizes), 0, steps=steps_of(GUARDED_SHARED_ACCUMULATOR)))
    assert outcome.kind == "ok", outcome.detail
