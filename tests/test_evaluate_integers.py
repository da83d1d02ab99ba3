"""Integer arithmetic: the reference evaluator computes what the compiled code computes.

Both wrap in two's complement at the type's width. Where LLVM leaves a result undefined
(division by zero, the smallest value divided by -1, a shift by the width or more, a
broken `overflow<nsw>` promise) the evaluator stops with an XtirEvaluationError; those
cases never reach the JIT here (an x86 division by zero traps).
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xtir
from xtir.verify_numerics import NumericsChecker

ROOT = Path(__file__).resolve().parent.parent
DTYPES = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
          "f16": np.float16, "f32": np.float32, "f64": np.float64}

WRAPPING = ["addi", "subi", "muli", "andi", "ori", "xori", "maxsi", "minsi", "maxui", "minui"]
DIVISIONS = ["divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi", "ceildivui"]
SHIFTS = ["shli", "shrsi", "shrui"]
PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


def elementwise(inputs: list[str], outputs: list[str], body: list[str]) -> str:
    """`@main(inputs..., outputs...)` over N elements: loads `%a`, `%b`, ... from the inputs,
    runs `body` (which defines `%r0`, `%r1`, ...), stores them to the outputs."""
    n = "{n}"
    params = [f"%in{k}: memref<{n}x{t}>" for k, t in enumerate(inputs)]
    params += [f"%out{k}: memref<{n}x{t}>" for k, t in enumerate(outputs)]
    loads = [f"%{chr(97 + k)} = block.load %in{k}[%vi] : memref<{n}x{t}>" for k, t in enumerate(inputs)]
    stores = [f"block.store %r{k}, %out{k}[%vi] : memref<{n}x{t}>" for k, t in enumerate(outputs)]
    lines = "\n".join("        " + line for line in loads + body + stores)
    return f"""builtin.module {{
  func.func @main({", ".join(params)}) {{
    block.for %i = 0 to {n} "i" {{
      block.block "B"(%vi = spatial({n}, %i)) {{
{lines}
      }}
    }}
    func.return
  }}
}}"""


def run_both(text: str, inputs: list[np.ndarray], outputs: list[str]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The output buffers after the evaluator and after the JIT, on the same inputs."""
    n = len(inputs[0])
    module = xtir.parse(text.replace("{n}", str(n)))
    results = []
    for run in (xtir.evaluate, lambda m, *a: xtir.build(m)(*a)):
        outs = [np.zeros(n, DTYPES[t]) for t in outputs]
        run(module, *[a.copy() for a in inputs], *outs)
        results.append(outs)
    return results[0], results[1]


def extremes(t: str) -> list[int]:
    bits = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}[t]
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return [0, 1, -1, 2, -2, 7, -7, low, low + 1, high, high - 1, low // 3, high // 3]


def pairs(t: str) -> tuple[np.ndarray, np.ndarray]:
    values = extremes(t)
    a, b = zip(*[(x, y) for x in values for y in values])
    return np.array(a, DTYPES[t]), np.array(b, DTYPES[t])


def assert_same(evaluated: list[np.ndarray], compiled: list[np.ndarray], names: list[str], a, b) -> None:
    for name, e, c in zip(names, evaluated, compiled):
        bad = np.flatnonzero(e != c)
        assert not bad.size, f"{name}: evaluator {e[bad[:4]]} != JIT {c[bad[:4]]} on {a[bad[:4]]}, {b[bad[:4]]}"


@pytest.mark.parametrize("t", ["i8", "i16", "i32", "i64"])
def test_binary_ops_wrap_like_the_jit(t: str) -> None:
    """Every integer binary op and comparison, on all pairs of extreme values (the
    evaluator raised OverflowError from NumPy 2 on any negative i32)."""
    a, b = pairs(t)
    bits = np.iinfo(DTYPES[t]).bits
    low = np.iinfo(DTYPES[t]).min
    # defined divisions only: no 0 divisor, no smallest / -1; shifts by less than the width
    divisor = np.where((b == 0) | ((a == low) & (b == -1)), 3, b).astype(DTYPES[t])
    amount = (b.astype(np.int64) % bits).astype(DTYPES[t])
    body = [f"%r{k} = arith.{op} %a, %b : {t}" for k, op in enumerate(WRAPPING)]
    body += [f"%r{len(body) + k} = arith.{op} %a, %c : {t}" for k, op in enumerate(DIVISIONS)]
    body += [f"%r{len(body) + k} = arith.{op} %a, %d : {t}" for k, op in enumerate(SHIFTS)]
    body += [f"%r{len(body) + k} = arith.cmpi {p}, %a, %b : {t}" for k, p in enumerate(PREDICATES)]
    outputs = [t] * (len(WRAPPING) + len(DIVISIONS) + len(SHIFTS)) + ["i1"] * len(PREDICATES)
    evaluated, compiled = run_both(elementwise([t] * 4, outputs, body), [a, b, divisor, amount], outputs)
    assert_same(evaluated, compiled, WRAPPING + DIVISIONS + SHIFTS + PREDICATES, a, b)
    high = np.iinfo(DTYPES[t]).max
    wrapped = evaluated[0][(a == high) & (b == 1)]
    assert wrapped.tolist() == [low]  # MAX + 1 is MIN


def test_i1_arithmetic_like_the_jit() -> None:
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    ops = ["addi", "subi", "muli", "andi", "ori", "xori", "maxsi", "minsi", "maxui", "minui"]
    body = [f"%r{k} = arith.{op} %a, %b : i1" for k, op in enumerate(ops)]
    body += [f"%r{len(ops) + k} = arith.cmpi {p}, %a, %b : i1" for k, p in enumerate(PREDICATES)]
    body += [f"%r{len(body)} = arith.extsi %a : i1 to i32", f"%r{len(body) + 1} = arith.extui %a : i1 to i32",
             f"%r{len(body) + 2} = arith.sitofp %a : i1 to f32"]
    outputs = ["i1"] * len(body[:-3]) + ["i32", "i32", "f32"]
    evaluated, compiled = run_both(elementwise(["i1", "i1"], outputs, body), [a, b], outputs)
    assert_same(evaluated, compiled, [*ops, *PREDICATES, "extsi", "extui", "sitofp"], a, b)
    assert evaluated[-3].tolist() == [0, 0, -1, -1]  # i1 true is -1 read as signed
    assert evaluated[-1].tolist() == [0.0, 0.0, -1.0, -1.0]


CASTS = [
    ("extsi", "i8", "i32", [0, -1, 127, -128]),
    ("extui", "i8", "i64", [0, -1, 127, -128]),
    ("trunci", "i64", "i8", [255, 128, -129, 2**40 + 3]),
    ("trunci", "i32", "i1", [3, 2, -1, 0]),
    ("index_cast", "i32", "index", [-1, 2**31 - 1]),
    ("sitofp", "i64", "f32", [2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**63 - 1, -(2**63)]),  # no double rounding
    ("sitofp", "i32", "f16", [65519, 65520, -65520, 2049, 2051]),
    ("uitofp", "i32", "f32", [-1, -5, 7, 2**31]),
    ("uitofp", "i16", "f16", [-1, 2049]),
    ("fptosi", "f32", "i32", [float("nan"), 3e9, -3e9, -2.7, 2.7, float("inf")]),  # saturating, as the JIT
    ("fptoui", "f32", "i32", [float("nan"), 3e9, 5e9, -2.7, 2.7]),
    ("fptosi", "f64", "i8", [200.0, -200.0, 1.5, -0.5]),
    ("fptoui", "f16", "i8", [200.0, 300.0, -1.5, 65504.0]),
    ("bitcast", "i32", "f32", [1065353216, -1, 0]),
    ("bitcast", "f32", "i32", [1.0, -2.5, float("inf")]),
    ("bitcast", "f16", "i16", [1.0, -2.5, 65504.0]),
    ("bitcast", "i64", "f64", [-1, 1 << 62]),
]


@pytest.mark.parametrize(("op", "source", "target", "values"), CASTS, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASTS])
def test_casts_like_the_jit(op: str, source: str, target: str, values: list) -> None:
    body = [f"%r0 = arith.{op} %a : {source} to {target}"]
    stored = "i64" if target == "index" else target
    if target == "index":
        body = [f"%x = arith.{op} %a : {source} to index", "%r0 = arith.index_cast %x : index to i64"]
    a = np.array(values).astype(DTYPES[source]) if source.startswith("f") else \
        np.array([v % (1 << np.iinfo(DTYPES[source]).bits) for v in values], dtype=np.uint64).astype(DTYPES[source])
    (evaluated,), (compiled,) = run_both(elementwise([source], [stored], body), [a], [stored])
    np.testing.assert_array_equal(evaluated, compiled)


UNDEFINED = [
    ("divsi", 7, 0, "division by zero"),
    ("remui", 7, 0, "division by zero"),
    ("ceildivsi", 7, 0, "division by zero"),
    ("divsi", -(2**31), -1, "a signed division that overflows"),
    ("remsi", -(2**31), -1, "a signed division that overflows"),
    ("floordivsi", -(2**31), -1, "a signed division that overflows"),
    ("shli", 1, 32, "a shift by 32 (not less than the width, 32)"),
    ("shrsi", 1, -1, "a shift by 4294967295"),
    ("shrui", 1, 40, "a shift by 40"),
    ("addi", 2**31 - 1, 1, "a signed overflow in an op marked nsw"),
    ("muli", -1, 2, "an unsigned overflow in an op marked nuw"),
]


@pytest.mark.parametrize(("op", "lhs", "rhs", "why"), UNDEFINED, ids=[f"{u[0]}-{u[2]}" for u in UNDEFINED])
def test_undefined_results_stop_the_evaluator(op: str, lhs: int, rhs: int, why: str) -> None:
    """No number to agree on: the evaluator says so, naming the block and the op (the JIT
    is not run: a division by zero traps)."""
    flags = " overflow<nsw>" if "nsw" in why else " overflow<nuw>" if "nuw" in why else ""
    text = elementwise(["i32", "i32"], ["i32"], [f"%r0 = arith.{op} %a, %b{flags} : i32"]).replace("{n}", "1")
    module = xtir.parse(text)
    with pytest.raises(xtir.XtirEvaluationError) as info:
        xtir.evaluate(module, np.array([lhs], np.int32), np.array([rhs], np.int32), np.zeros(1, np.int32))
    message = info.value.message
    assert message.startswith(f'block "B": \'arith.{op}\' on ') and why in message, message
    assert message.endswith("which is undefined in compiled code"), message


def test_integer_constants_wrap_to_their_type() -> None:
    """`arith.constant 4294967295 : i32` is -1, as in compiled code."""
    body = ["%k = arith.constant 4294967295 : i32", "%r0 = arith.addi %a, %k : i32"]
    a = np.array([0, -(2**31), 5], np.int32)
    (evaluated,), (compiled,) = run_both(elementwise(["i32"], ["i32"], body), [a], ["i32"])
    assert evaluated.tolist() == compiled.tolist() == [-1, 2**31 - 1, 4]


def test_computed_integers_round_once_to_float() -> None:
    """An i64 computed by the program (a Python int in the evaluator) converts to f32 with
    one rounding, as LLVM's sitofp: through a double it would land one step lower."""
    body = [f"%k = arith.constant {2**60 + 2**36 + 1} : i64", "%x = arith.addi %a, %k : i64",
            "%r0 = arith.sitofp %x : i64 to f32"]
    a = np.array([0, -1], np.int64)  # above the midpoint between two floats, then on it
    (evaluated,), (compiled,) = run_both(elementwise(["i64"], ["f32"], body), [a], ["f32"])
    assert evaluated.tolist() == compiled.tolist() == [float(2**60 + 2**37), float(2**60)]


INT_PROGRAM = elementwise(
    ["i32", "i32"], ["i32"],
    ["%m = arith.muli %a, %b : i32", "%big = arith.constant 2147483647 : i32", "%r0 = arith.addi %m, %big : i32"],
).replace("{n}", "16")


def test_verify_numerics_runs_integer_programs() -> None:
    """Random integer inputs include negatives, which NumPy 2 overflowed in xDSL's arith."""
    module = xtir.parse(INT_PROGRAM)
    checker = NumericsChecker(module)
    checker.check(xtir.transform(module, "split{loop=i factors=-1,4}"), "split")


def test_xtir_run_checks_integer_programs(tmp_path: Path) -> None:
    path = tmp_path / "ints.mlir"
    path.write_text(INT_PROGRAM)
    tool = Path(sys.executable).parent / "xtir-run"
    result = subprocess.run([str(tool), str(path), "--check", "-p", "split{loop=i factors=-1,4}"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "ok max_abs_err=0 (against the reference evaluator)" in result.stdout


def test_float_arithmetic_is_ieee_whatever_numpy_error_state() -> None:
    """Under np.seterr(all="raise") the evaluator raised FloatingPointError on 1/0; compiled
    code gives inf and nan, and so does the evaluator."""
    body = ["%z = arith.constant 0.000000e+00 : f32", "%q = arith.divf %a, %z : f32", "%r0 = arith.mulf %q, %z : f32",
            "%big = arith.constant 3.000000e+38 : f32", "%r1 = arith.mulf %big, %big : f32"]
    a = np.array([1, 0], np.float32)
    with np.errstate(all="raise"):
        evaluated, compiled = run_both(elementwise(["f32"], ["f32", "f32"], body), [a], ["f32", "f32"])
    np.testing.assert_array_equal(evaluated[0], compiled[0])  # nan where nan
    assert np.isnan(evaluated[0]).all() and np.isinf(evaluated[1]).all()


def random_integer_program(r: random.Random, t: str, n_ops: int) -> list[str]:
    """A chain of random integer ops and casts over %a, %b and constants; the last value is %r0."""
    ops = WRAPPING + DIVISIONS + SHIFTS
    values = ["%a", "%b"]
    body = []
    bits = np.iinfo(DTYPES[t]).bits
    for k in range(n_ops):
        name = f"%v{k}"
        choice = r.random()
        if choice < 0.15:
            body.append(f"{name} = arith.constant {r.choice(extremes(t))} : {t}")
        elif choice < 0.25:
            wide = "i64" if bits < 64 else "i32"
            cast, back = ("extsi", "trunci") if bits < 64 else ("trunci", "extsi")
            body.append(f"{name}_w = arith.{r.choice([cast, 'extui'] if bits < 64 else [cast])} "
                        f"{r.choice(values)} : {t} to {wide}")
            body.append(f"{name} = arith.{back} {name}_w : {wide} to {t}")
        else:
            body.append(f"{name} = arith.{r.choice(ops)} {r.choice(values)}, {r.choice(values)} : {t}")
        values.append(name)
    body.append(f"%r0 = arith.addi {values[-1]}, {r.choice(values)} : {t}")
    return body


@pytest.mark.parametrize("seed", range(12))
def test_random_integer_programs_agree_with_the_jit(seed: int) -> None:
    """Random chains of every integer op on extreme values: the evaluator and the JIT give the
    same numbers, or the evaluator names an undefined result (and the JIT, which could trap on
    it, is not run on that element)."""
    r = random.Random(seed)
    t = r.choice(["i8", "i16", "i32", "i64"])
    body = random_integer_program(r, t, 8)
    module = xtir.parse(elementwise([t, t], [t], body).replace("{n}", "1"))
    compiled_fn = xtir.build(module)
    for _ in range(16):  # one element per call: an undefined element must not hide the others
        a, b = (np.array([r.choice(extremes(t))], DTYPES[t]) for _ in range(2))
        evaluated, compiled = np.zeros(1, DTYPES[t]), np.zeros(1, DTYPES[t])
        try:
            xtir.evaluate(module, a.copy(), b.copy(), evaluated)
        except xtir.XtirEvaluationError as e:
            assert "undefined in compiled code" in e.message, e.message
            continue
        compiled_fn(a.copy(), b.copy(), compiled)
        assert evaluated[0] == compiled[0], f"{body} on {a[0]}, {b[0]}: evaluator {evaluated[0]}, JIT {compiled[0]}"
