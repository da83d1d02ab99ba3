"""The evaluator's vectorized loop nests against its scalar interpreter, bit for bit.

`xtir.evaluate` runs a loop nest around a block as numpy array operations where that
keeps the sequential results (xtir/interpreters/vectorized.py); `vectorize=False` runs
every block instance in the scalar interpreter. Both must leave the same bits in every
buffer (NaN equal to NaN) and raise the same errors (the same text, the buffers as the
instances before the failing one left them), on every function of examples/, the seed
schedules, the fuzzers' programs (fixed, and of every generator family) under random
schedules, and nests written to defeat the vectorizer (recurrences, in-place updates,
predicates, backward reductions, aliased arguments, run-time errors).
"""

from __future__ import annotations

import random
import re
import sys
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from xdsl.dialects.func import FuncOp

import xtir
import xtir.dialects.bounds as bounds
from xtir import XtirError, XtirWarning
from xtir.interpreters import vectorized

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))
from seed_tensorize import schedule as seed_tensorize  # noqa: E402

from tests.conftest import scaled_example  # noqa: E402
from tests.fuzz import gen_programs  # noqa: E402
from tests.fuzz.schedules import Generator, Program, _handles, generated, iterations, new_schedule, programs  # noqa: E402
from tests.test_compute_at_numerics import SEEDS, random_arguments  # noqa: E402
from tests.test_lowering_numerics import SEED_ACCEL  # noqa: E402

SCALAR_ITERATION_LIMIT = 20_000  # loop iterations of a scheduled program run in the scalar interpreter here


def random_schedule(prog: Program, seed: int, max_steps: int = 8):
    """`prog` under the fuzzer's random schedule `seed` (refused primitives skipped)."""
    r = random.Random(f"{prog.name}:{seed}")
    family = gen_programs.FAMILIES.get(prog.family)
    gen = Generator(r, stale_prob=0.0, misuse_prob=0.0, boost=family.primitive_weights if family else None)
    sch = new_schedule(prog)
    budget = r.randint(1, max_steps)
    while budget > 0 or gen.pending:
        budget -= not gen.pending
        try:
            call = gen.next_call(sch)
            if call is None:
                continue
            result = call.apply(sch)
        except XtirError:
            continue
        gen._remember(list(_handles(result)))
        gen.accepted(call, result)
    return sch.mod


def outcome(module, arrays: list[np.ndarray], func: str = "main", vectorize: bool = True):
    """The buffers after the call, what it returned, and the error it raised (as text)."""
    arrays = [a.copy() for a in arrays]
    try:
        return arrays, xtir.evaluate(module, *arrays, func=func, vectorize=vectorize), None
    except XtirError as e:
        return arrays, None, str(e)


def assert_same(module, arrays: list[np.ndarray], func: str = "main") -> None:
    (fast, fast_returned, fast_error) = outcome(module, arrays, func)
    (slow, slow_returned, slow_error) = outcome(module, arrays, func, vectorize=False)
    assert fast_error == slow_error
    for k, (f, s) in enumerate(zip(fast, slow)):
        assert f.dtype == s.dtype
        assert np.array_equal(f, s, equal_nan=f.dtype.kind in "fc"), f"argument {k}: {np.argwhere(f != s)[:4]}"
    assert repr(fast_returned) == repr(slow_returned)


def check_program(prog: Program, seed: int) -> None:
    try:
        module = random_schedule(prog, seed) if seed else prog.module
    except XtirError:
        return  # the program itself is refused
    if iterations(module) > SCALAR_ITERATION_LIMIT:
        pytest.skip("too many iterations for the scalar interpreter")
    assert_same(module, list(prog.arguments(np.random.default_rng(seed))), prog.entry or "main")


# The fuzzers' programs under random schedules -------------------------------------------------------

FIXED = ["matmul8", "matmul_bias8", "matmul_bias12", "window_sum10", "window_sum33", "conv2d"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name", FIXED)
def test_fixed_programs_under_random_schedules(name: str, seed: int) -> None:
    check_program(programs()[name], seed)


GENERATED = [f"gen.{family}.{k}" for family in sorted(gen_programs.FAMILIES) for k in range(3)]


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("name", GENERATED)
def test_generated_programs_under_random_schedules(name: str, seed: int) -> None:
    prog = generated(name)
    if not prog.runnable:
        pytest.skip("an element type numpy lacks")
    check_program(prog, seed)


# The examples and the seed schedules -----------------------------------------------------------------

EXAMPLES = {
    # example: sizes substituted (tests/conftest.py), small enough for the scalar interpreter
    "matmul": {"1024": "16"},
    "matmul_block": {"1024": "8", "64": "2", "16": "4"},
    "matmul_bias": {"1024": "12"},
    "gpu_matmul": {"1024": "16"},
    "vector_add": {},
    "window_sum": {},
    "tmm16_intrin": {},
}


def functions(module) -> list[str]:
    return [op.sym_name.data for op in module.ops if isinstance(op, FuncOp)]


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_examples(example: str) -> None:
    module = scaled_example(example, EXAMPLES[example])
    for name in functions(module):
        assert_same(module, random_arguments(module, name, 0), name)


def seed_schedules() -> dict[str, tuple[str, dict[str, str], str]]:
    """The seed schedules the other numerical tests run: (example, sizes, pipeline) by name."""
    schedules = {name: (example, sizes, pipeline) for name, (example, sizes, pipeline, _) in SEEDS.items()}
    schedules["seed001_tensorize"] = ("matmul", {"1024": "32"}, SEED_ACCEL)
    schedules["seed004_fused_epilogue"] = ("matmul_bias", {"1024": "16"}, "fuse-reduction-epilogue{block=matmul epilogue=add}")
    return schedules


@pytest.mark.parametrize("name", sorted(seed_schedules()))
def test_seed_schedules(name: str) -> None:
    example, sizes, pipeline = seed_schedules()[name]
    module = xtir.transform(scaled_example(example, sizes), pipeline)
    assert_same(module, random_arguments(module, "main", 0))


def test_seed001_schedule_api() -> None:
    """examples/seed_tensorize.py's Schedule calls (accel.tmm16 in the nest)."""
    module = seed_tensorize(scaled_example("matmul", {"1024": "32"})).mod
    assert_same(module, random_arguments(module, "main", 0))


# Nests the vectorizer must not reorder ---------------------------------------------------------------


def elementwise(body: str, params: str, loops: str = '"i" 16', iters: str = "%vi = spatial(16, %i)",
                where: str = "") -> xtir.ModuleOp:
    """One block in a nest: `loops` as `"name" extent` pairs, variables %i, %j, %k by position."""
    names = re.findall(r'"(\w+)" (\d+)', loops)
    opening = "".join(f'block.for %{n} = 0 to {e} "{n}" {{\n' for n, e in names)
    return xtir.parse(f"""func.func @main({params}) {{
{opening}block.block "B"({iters}){where} {{
{body}
}}
{"}" * len(names)}
func.return
}}""")


def test_recurrence_runs_in_order() -> None:
    """U[i + 1] = U[i] + 1: each instance reads what the previous one wrote."""
    module = elementwise("""%u = block.load %U[%vi] : memref<17xf32>
        %one = arith.constant 1.0 : f32
        %s = arith.addf %u, %one : f32
        block.store %s, %U[%vi + 1] : memref<17xf32>""", "%U: memref<17xf32>")
    u = np.zeros(17, np.float32)
    xtir.evaluate(module, u)
    np.testing.assert_array_equal(u, np.arange(17, dtype=np.float32))
    assert_same(module, [np.zeros(17, np.float32)])


def test_recurrence_along_one_loop_vectorizes_the_other() -> None:
    """U[i + 1, j] = U[i, j] * 2 + V[j]: the rows depend on each other, the columns do not."""
    module = elementwise("""%u = block.load %U[%vi, %vj] : memref<9x8xf32>
        %v = block.load %V[%vj] : memref<8xf32>
        %two = arith.constant 2.0 : f32
        %p = arith.mulf %u, %two : f32
        %s = arith.addf %p, %v : f32
        block.store %s, %U[%vi + 1, %vj] : memref<9x8xf32>""", "%U: memref<9x8xf32>, %V: memref<8xf32>",
                         '"i" 8 "j" 8', "%vi = spatial(8, %i), %vj = spatial(8, %j)")
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((9, 8), dtype=np.float32), rng.standard_normal(8, dtype=np.float32)]
    assert_same(module, arrays)
    steps = count_steps(module, arrays)
    assert steps == {"B": 8}, steps  # a step per row, the columns as lanes


def test_in_place_shift_reads_before_the_next_write() -> None:
    """A[i] = A[i + 1]: vectorized it would still be right, but a later lane writes what an
    earlier one read, so the check must keep the order (or prove it); both give the shift."""
    module = elementwise("""%a = block.load %A[%vi + 1] : memref<17xf32>
        block.store %a, %A[%vi] : memref<17xf32>""", "%A: memref<17xf32>")
    a = np.arange(17, dtype=np.float32)
    xtir.evaluate(module, a)
    np.testing.assert_array_equal(a[:16], np.arange(1, 17, dtype=np.float32))
    assert_same(module, [np.arange(17, dtype=np.float32)])


def test_backward_reduction_keeps_its_order_and_init() -> None:
    """S[i] = sum over k of A[i, 15 - k], accumulated from k = 15 down: the init runs where the
    reduce variable is 0 (the last iteration of k), after which the sum continues."""
    module = elementwise("""block.init {
          %zero = arith.constant 0.0 : f32
          block.store %zero, %S[%vi] : memref<8xf32>
        }
        %s = block.load %S[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x16xf32>
        %t = arith.addf %s, %a : f32
        block.store %t, %S[%vi] : memref<8xf32>""", "%A: memref<8x16xf32>, %S: memref<8xf32>",
                         '"i" 8 "k" 16', "%vi = spatial(8, %i), %vk = reduce(16, 15 - %k)")
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((8, 16), dtype=np.float32), rng.standard_normal(8, dtype=np.float32)]
    assert_same(module, arrays)


def test_predicate_of_a_non_dividing_split() -> None:
    module = elementwise("""%a = block.load %A[%vi] : memref<13xf32>
        %b = arith.negf %a : f32
        block.store %b, %B[%vi] : memref<13xf32>""", "%A: memref<13xf32>, %B: memref<13xf32>",
                         '"i_0" 4 "i_1" 4', "%vi = spatial(13, %i_0 * 4 + %i_1)", " where (%i_0 * 4 + %i_1 < 13)")
    a = np.arange(13, dtype=np.float32)
    assert_same(module, [a, np.full(13, np.nan, np.float32)])


def test_aliased_arguments_run_in_order() -> None:
    """The same array as input and output: B[i] = A[i + 1] reads what earlier instances wrote."""
    module = elementwise("""%a = block.load %A[%vi + 1] : memref<17xf32>
        %one = arith.constant 1.0 : f32
        %s = arith.addf %a, %one : f32
        block.store %s, %B[%vi + 2] : memref<17xf32>""", "%A: memref<17xf32>, %B: memref<17xf32>",
                         '"i" 15', "%vi = spatial(15, %i)")
    a = np.zeros(17, np.float32)
    xtir.evaluate(module, a, a)
    expected = np.zeros(17, np.float32)
    for i in range(15):
        expected[i + 2] = expected[i + 1] + 1
    np.testing.assert_array_equal(a, expected)


# Numbers: NaN, signed zeros, integer wrap, narrow types --------------------------------------------


def test_nan_and_signed_zeros() -> None:
    module = elementwise("""%a = block.load %A[%vi] : memref<16xf32>
        %b = block.load %B[%vi] : memref<16xf32>
        %mx = arith.maximumf %a, %b : f32
        %mn = arith.minimumf %a, %b : f32
        %fx = arith.maxnumf %a, %b : f32
        %s = arith.addf %mx, %mn : f32
        %t = arith.subf %s, %fx : f32
        %c = arith.cmpf une, %t, %a : f32
        %r = arith.select %c, %mx, %t : f32
        block.store %r, %C[%vi] : memref<16xf32>
        block.store %mn, %D[%vi] : memref<16xf32>""",
                         "%A: memref<16xf32>, %B: memref<16xf32>, %C: memref<16xf32>, %D: memref<16xf32>")
    a = np.array([0.0, -0.0, np.nan, 1, -1, np.inf, -np.inf, 0.0] * 2, np.float32)
    b = np.array([-0.0, 0.0, 1, np.nan, np.nan, -np.inf, 3, 0.0] * 2, np.float32)
    assert_same(module, [a, b, np.zeros(16, np.float32), np.zeros(16, np.float32)])
    d = np.zeros(16, np.float32)
    xtir.evaluate(module, a, b, np.zeros(16, np.float32), d)
    assert np.signbit(d[0]) and np.signbit(d[1])  # minimumf of +0 and -0 is -0


def widen(result: str, ext: str, value: str, t: str) -> str:
    """`value` extended to i64 (an i64 through i32 and back: extension needs a narrower type)."""
    if t != "i64":
        return f"{result} = arith.{ext} {value} : {t} to i64"
    return f"{result}_32 = arith.trunci {value} : i64 to i32\n{result} = arith.{ext} {result}_32 : i32 to i64"


@pytest.mark.parametrize("t", ["i1", "i8", "i32", "i64"])
def test_integer_ops_wrap_as_in_the_scalar_interpreter(t: str) -> None:
    dtype = {"i1": np.bool_, "i8": np.int8, "i32": np.int32, "i64": np.int64}[t]
    module = elementwise(f"""%a = block.load %A[%vi] : memref<64x{t}>
        %b = block.load %B[%vi] : memref<64x{t}>
        %s = arith.addi %a, %b : {t}
        %p = arith.muli %s, %b : {t}
        %d = arith.subi %p, %a : {t}
        %x = arith.xori %d, %b : {t}
        %m = arith.maxui %x, %a : {t}
        %n = arith.minsi %m, %s : {t}
        %c = arith.cmpi ult, %n, %b : {t}
        {widen("%w", "extsi", "%n", t)}
        {widen("%u", "extui", "%m", t)}
        %f = arith.sitofp %n : {t} to f32
        %g = arith.uitofp %m : {t} to f16
        %q = arith.select %c, %w, %u : i64
        block.store %q, %Q[%vi] : memref<64xi64>
        block.store %f, %F[%vi] : memref<64xf32>
        block.store %g, %G[%vi] : memref<64xf16>""",
                         f"%A: memref<64x{t}>, %B: memref<64x{t}>, %Q: memref<64xi64>, %F: memref<64xf32>, "
                         "%G: memref<64xf16>", '"i" 64', "%vi = spatial(64, %i)")
    rng = np.random.default_rng(2)
    if dtype == np.bool_:
        a, b = rng.integers(0, 2, 64).astype(bool), rng.integers(0, 2, 64).astype(bool)
    else:
        info = np.iinfo(dtype)
        edges = np.array([info.min, info.max, 0, 1, -1, info.min + 1, info.max - 1], dtype)
        a = np.concatenate([edges, rng.integers(info.min, info.max, 57, dtype=dtype, endpoint=True)])
        b = np.roll(a, 3)
    assert_same(module, [a, b, np.zeros(64, np.int64), np.zeros(64, np.float32), np.zeros(64, np.float16)])


def test_float_to_integer_saturates() -> None:
    module = elementwise("""%a = block.load %A[%vi] : memref<16xf64>
        %s = arith.fptosi %a : f64 to i64
        %u = arith.fptoui %a : f64 to i8
        %h = arith.truncf %a : f64 to f16
        %e = arith.extf %h : f16 to f32
        %bits = arith.bitcast %e : f32 to i32
        block.store %s, %S[%vi] : memref<16xi64>
        block.store %u, %U[%vi] : memref<16xi8>
        block.store %bits, %E[%vi] : memref<16xi32>""",
                         "%A: memref<16xf64>, %S: memref<16xi64>, %U: memref<16xi8>, %E: memref<16xi32>")
    a = np.array([np.nan, np.inf, -np.inf, 2.0**63, -2.0**63, 2.0**63 - 1024, 255.9, 256, -0.5, -1, 1e300,
                  65504, 65520, 1e-8, 3.5, -3.5], np.float64)
    assert_same(module, [a, np.zeros(16, np.int64), np.zeros(16, np.int8), np.zeros(16, np.int32)])


# math.* ops: the same bits on both paths, and what compiled code computes ---------------------------

UNARY = ["sqrt", "absf", "floor", "ceil", "trunc", "round", "roundeven", "exp", "exp2", "expm1", "log", "log2",
         "log10", "log1p", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "erf"]
BINARY = ["powf", "atan2", "copysign"]
EXACT = {"sqrt", "absf", "floor", "ceil", "trunc", "round", "roundeven", "copysign", "fma"}


def math_module(t: str) -> xtir.ModuleOp:
    ops = [f"%u{k} = math.{name} %a : {t}" for k, name in enumerate(UNARY)]
    ops += [f"%b{k} = math.{name} %a, %b : {t}" for k, name in enumerate(BINARY)]
    ops.append(f"%f = math.fma %a, %b, %c : {t}")
    results = [f"%u{k}" for k in range(len(UNARY))] + [f"%b{k}" for k in range(len(BINARY))] + ["%f"]
    stores = [f"block.store {r}, %R[%vi, {k}] : memref<64x{len(results)}x{t}>" for k, r in enumerate(results)]
    loads = [f"%{x} = block.load %{x.upper()}[%vi] : memref<64x{t}>" for x in "abc"]
    return elementwise("\n".join(loads + ops + stores),
                       f"%A: memref<64x{t}>, %B: memref<64x{t}>, %C: memref<64x{t}>, %R: memref<64x{len(results)}x{t}>",
                       '"i" 64', "%vi = spatial(64, %i)")


def math_inputs(dtype: type) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    special = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-30, 88.0, -100.0, 3.0]
    a = np.concatenate([special, rng.uniform(-6, 6, 48)]).astype(dtype)
    with np.errstate(over="ignore"):  # 1e20 is inf in f16, as intended
        b = np.concatenate([rng.uniform(-3, 3, 56), [0.0, -0.0, 2.0, 0.5, np.inf, np.nan, -1.0, 1e20]]).astype(dtype)
    c = rng.standard_normal(64).astype(dtype)
    return [a, b, c, np.zeros((64, len(UNARY) + len(BINARY) + 1), dtype)]


@pytest.mark.parametrize("t", ["f16", "f32", "f64"])
def test_math_ops_same_on_both_paths(t: str) -> None:
    dtype = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]
    assert_same(math_module(t), math_inputs(dtype))


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_math_ops_match_compiled_code(t: str) -> None:
    """Exact ops bit for bit (fma fused: one rounding), the others within 2 ulp of libm."""
    dtype = {"f32": np.float32, "f64": np.float64}[t]
    module = math_module(t)
    evaluated, compiled = math_inputs(dtype), math_inputs(dtype)
    xtir.evaluate(module, *evaluated)
    xtir.build(module)(*compiled)
    names = UNARY + BINARY + ["fma"]
    for k, name in enumerate(names):
        e, c = evaluated[3][:, k], compiled[3][:, k]
        same_nan = np.isnan(e) == np.isnan(c)
        assert same_nan.all(), f"math.{name}: NaN at {np.flatnonzero(~same_nan)}"
        ok = ~np.isnan(e)
        if name in EXACT:
            np.testing.assert_array_equal(e[ok], c[ok], err_msg=f"math.{name}")
        else:
            np.testing.assert_array_max_ulp(e[ok], c[ok], maxulp=2)


def test_fma_rounds_once() -> None:
    """a * b + c with a product that needs more than the type's bits: one rounding."""
    a = np.float32(1 + 2**-23)
    module = math_module("f32")
    arrays = math_inputs(np.float32)
    arrays[0][:] = a
    arrays[1][:] = a
    arrays[2][:] = np.float32(-(1 + 2**-22))
    xtir.evaluate(module, *arrays)
    assert arrays[3][0, -1] == np.float32(2**-46)  # separately rounded: 0


# Run-time checks: the same error, at the first failing instance in sequential order -------------------


def unverifiable(text: str) -> xtir.ModuleOp:
    """Parse with the verifier's enumeration limit lowered, so that bindings and indices it would
    refuse at parse time reach the evaluator (as on programs too large to enumerate)."""
    with mock.patch.object(bounds, "ENUMERATION_LIMIT", 4):
        return xtir.parse(text)


RUNTIME_ERRORS = {
    "binding": ("%vi = spatial(7, %i), %vj = spatial(8, %j)", "%vi, %vj", "%vi, %vj"),
    "load": ("%vi = spatial(8, %i), %vj = spatial(8, %j)", "%vi, %vj + %vi floordiv 6", "%vi, %vj"),
    "store": ("%vi = spatial(8, %i), %vj = spatial(8, %j)", "%vi, %vj", "%vi + %vj floordiv 4, %vj"),
}


@pytest.mark.parametrize("kind", sorted(RUNTIME_ERRORS))
def test_runtime_errors_as_the_scalar_interpreter_reports_them(kind: str) -> None:
    iters, load, store = RUNTIME_ERRORS[kind]
    module = unverifiable(f"""func.func @main(%A: memref<8x8xf32>, %C: memref<8x8xf32>) {{
  block.for %i = 0 to 8 "i" {{
    block.for %j = 0 to 8 "j" {{
      block.block "B"({iters}) where (%i * 8 + %j < 61) {{
        %a = block.load %A[{load}] : memref<8x8xf32>
        block.store %a, %C[{store}] : memref<8x8xf32>
      }}
    }}
  }}
  func.return
}}""")
    arrays = [np.ones((8, 8), np.float32), np.zeros((8, 8), np.float32)]
    with pytest.raises(xtir.XtirEvaluationError, match="outside its domain|out of bounds"):
        xtir.evaluate(module, *[a.copy() for a in arrays])
    assert_same(module, arrays)


# The fast path is taken, and a long run says so -------------------------------------------------------


def count_steps(module, arrays: list[np.ndarray]) -> dict[str, int]:
    """How many steps each block's nests took in one evaluation."""
    counts: dict[str, int] = {}
    step = vectorized._step

    def counting(nest, env, shape):
        counts[nest.block.label] = counts.get(nest.block.label, 0) + 1
        return step(nest, env, shape)

    with mock.patch.object(vectorized, "_step", counting):
        xtir.evaluate(module, *[a.copy() for a in arrays])
    return counts


def test_matmul_runs_a_step_per_reduction_iteration() -> None:
    """The spatial loops become lanes; the reduction loop stays in order, a step per k."""
    prog = programs()["matmul_bias20"]
    steps = count_steps(prog.module, list(prog.arguments(np.random.default_rng(0))))
    assert steps == {"matmul": 20, "add": 1}


def assert_warns_before_running(module, *arrays: np.ndarray, what: str) -> None:
    """The long-run warning, made an error, stops the evaluation before it starts (a run of
    hours would time the test out)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", XtirWarning)
        with pytest.raises(XtirWarning, match=rf"xtir.evaluate will take about \d+ s: {what}.*xtir.build"):
            xtir.evaluate(module, *arrays)


def test_long_recurrence_warns_before_it_starts() -> None:
    """A recurrence along i, repeated 10^5 times by r: a step per instance, 10^9 steps."""
    module = elementwise("""%u = block.load %U[%vi] : memref<10001xf32>
        block.store %u, %U[%vi + 1] : memref<10001xf32>""", "%U: memref<10001xf32>",
                         '"r" 100000 "i" 10000', "%vi = spatial(10000, %i)")
    assert_warns_before_running(module, np.zeros(10001, np.float32),
                                what='block "B" runs as 1,000,000,000 steps of 1 instances')


def test_long_scalar_nest_warns_before_it_starts() -> None:
    """Integer division has no vector form (it can stop the evaluator): 10^8 scalar instances."""
    module = elementwise("""%a = block.load %A[%vj] : memref<1000xi32>
        %three = arith.constant 3 : i32
        %q = arith.divsi %a, %three : i32
        block.store %q, %A[%vj] : memref<1000xi32>""", "%A: memref<1000xi32>",
                         '"i" 100000 "j" 1000', "%vi = spatial(100000, %i), %vj = spatial(1000, %j)")
    assert_warns_before_running(module, np.zeros(1000, np.int32),
                                what=r'block "B" runs in the scalar interpreter \(arith.divsi has no vector form\)')


def test_short_runs_do_not_warn() -> None:
    prog = programs()["matmul_bias20"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", XtirWarning)
        xtir.evaluate(prog.module, *prog.arguments(np.random.default_rng(0)))


@pytest.mark.parametrize("predicate, expected", [("where(%t < 1)", 10 + 1), ("where(3 - %t < 1)", 10 + 4), ("", 10 + 10)])
def test_a_store_into_a_0_d_buffer_under_a_predicate(predicate: str, expected: float) -> None:
    """The lanes where the predicate holds write the one element (one lane: run as arrays; more:
    they conflict, and the nest runs an instance at a time). It raised a numpy ValueError."""
    module = xtir.parse(f"""func.func @main(%A: memref<4xf32>, %X: memref<f32>) {{
  block.for %t = 0 to 4 "t" {{
    block.block "R"(%vt = spatial(4, %t)) {predicate} {{
      %a = block.load %A[%vt] : memref<4xf32>
      %x = block.load %X[] : memref<f32>
      %s = arith.addf %a, %x : f32
      block.store %s, %X[] : memref<f32>
    }}
  }}
  func.return
}}""")
    a, x = np.arange(1, 5, dtype=np.float32), np.full((), 10, np.float32)
    xtir.evaluate(module, a, x)
    assert x == expected
