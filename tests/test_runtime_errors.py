"""The run-time error channel: what compiled code must not do it skips, and the call raises it.

Integer divisions by zero and MIN / -1 trapped (SIGFPE killed the process), shifts by the width
or more gave arbitrary values, and a NULL from aligned_alloc was dereferenced; the evaluator
refuses the first two, and now the built function raises the same message after the call
(lowering/arith_guards.py, lowering/runtime_errors.py). What crashed the process runs in a child.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import xtir

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.fuzz.isolation import in_child  # noqa: E402
from xtir.lowering.runtime_errors import Checked  # noqa: E402

OPS = ["divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi", "ceildivui", "shli", "shrsi", "shrui"]
N = 4


def program(t: str) -> str:
    """One block per op k: C[k, i] = A[i] op B[k, i]."""
    blocks = "".join(f"""
  block.for %i{k} = 0 to {N} "i{k}" {{
    block.block "{op}"(%v{k} = spatial({N}, %i{k})) {{
      %a = block.load %A[%v{k}] : memref<{N}x{t}>
      %b = block.load %B[{k}, %v{k}] : memref<{len(OPS)}x{N}x{t}>
      %r = arith.{op} %a, %b : {t}
      block.store %r, %C[{k}, %v{k}] : memref<{len(OPS)}x{N}x{t}>
    }}
  }}""" for k, op in enumerate(OPS))
    return (f"func.func @main(%A: memref<{N}x{t}>, %B: memref<{len(OPS)}x{N}x{t}>, "
            f"%C: memref<{len(OPS)}x{N}x{t}>) {{{blocks}\n  func.return\n}}")


def outcome(run, arrays):  # type: ignore[no-untyped-def]
    """The arrays after `run`, or the message of the XtirEvaluationError it raised."""
    copies = [a.copy() for a in arrays]
    try:
        run(*copies)
    except xtir.XtirEvaluationError as e:
        return str(e)
    return copies


def undefined_cases(t: str):  # type: ignore[no-untyped-def]
    """(op, (A, B)) where only that op meets an operand it must not compute with."""
    dtype = np.dtype(t.replace("i", "int"))
    bits = dtype.itemsize * 8
    lowest = np.iinfo(dtype).min
    for k, op in enumerate(OPS):
        shift = op.startswith("sh")
        bad = [bits, -1] if shift else [0] + ([-1] if "si" in op else [])
        for value in bad:
            a = np.array([5, lowest, -7, 3], dtype)
            b = np.ones((len(OPS), N), dtype)
            b[k, 1] = value
            yield op, (a, b)


def test_undefined_integer_ops_raise_the_evaluators_error_after_the_call() -> None:
    """Every guarded op on i8, i32, i64: the build raises what the evaluator raises after the
    call (the division used to kill the process with SIGFPE), once."""
    in_child("""
        import numpy as np, xtir
        from tests.test_runtime_errors import outcome, program, undefined_cases

        for t in ("i8", "i32", "i64"):
            module = xtir.parse(program(t))
            f = xtir.build(module)
            for op, (a, b) in undefined_cases(t):
                arrays = [a, b, np.zeros_like(b)]
                jit = outcome(f, arrays)
                evaluator = outcome(lambda *x: xtir.evaluate(module, *x), arrays)
                assert isinstance(jit, str) and jit == evaluator, (t, op, jit, evaluator)
                assert jit.startswith(f'block "{op}": ' + repr("arith." + op) + " on "), jit
            c = np.zeros_like(b)  # reported once: the next call is clean
            f(a, np.ones_like(b), c)
            assert (c[0] == a).all()
    """)


@pytest.mark.parametrize("t", ["i8", "i32", "i64"])
def test_defined_integer_ops_agree_with_the_evaluator(t: str) -> None:
    """The guards change no defined result: random operands (none undefined), wrapping values."""
    dtype = np.dtype(t.replace("i", "int"))
    bits = dtype.itemsize * 8
    rng = np.random.default_rng(bits)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, (len(OPS), N), dtype=dtype, endpoint=True)
    b[b == 0] = 3
    b[b == -1] = 5
    for k, op in enumerate(OPS):
        if op.startswith("sh"):
            b[k] = rng.integers(0, bits, N)
    module = xtir.parse(program(t))
    arrays = [a, b, np.zeros_like(b)]
    jit = outcome(xtir.build(module), arrays)
    evaluator = outcome(lambda *x: xtir.evaluate(module, *x), arrays)
    assert not isinstance(jit, str), jit
    for got, want in zip(jit, evaluator):
        np.testing.assert_array_equal(got, want)


def test_a_constant_divisor_needs_no_guard() -> None:
    """Index arithmetic (floordiv / mod by constants) and constant divisors keep the code free of reports."""
    text = """func.func @main(%A: memref<16xi32>, %B: memref<16xi32>) {
  block.for %i = 0 to 16 "i" {
    block.block "B"(%vi = spatial(16, %i)) {
      %a = block.load %A[%vi floordiv 4 * 4 + %vi mod 4] : memref<16xi32>
      %c3 = arith.constant 3 : i32
      %q = arith.divsi %a, %c3 : i32
      block.store %q, %B[%vi] : memref<16xi32>
    }
  }
  func.return
}"""
    f = xtir.build(xtir.parse(text))
    assert "xtir_runtime_error" not in f.llvm_ir
    assert not isinstance(f, Checked)


HUGE_SCRATCH = """func.func @main(%A: memref<4xf32>, %I: memref<2xindex>, %B: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.load %A[%c0] : memref<4xf32>
  %i = memref.load %I[%c0] : memref<2xindex>
  %j = memref.load %I[%c1] : memref<2xindex>
  %T = memref.alloca() : memref<8796093022208xf32>
  memref.store %x, %T[%i] : memref<8796093022208xf32>
  %y = memref.load %T[%j] : memref<8796093022208xf32>
  memref.store %y, %B[%c0] : memref<4xf32>
  func.return
}"""
"""A scratch buffer of 32 TiB, at indices LLVM cannot see (else it drops the buffer)."""


def test_a_scratch_buffer_the_heap_cannot_give_is_reported() -> None:
    """32 TiB of scratch: aligned_alloc returns NULL, which the code used to write through."""
    in_child(f"""
        import numpy as np, pytest, xtir
        f = xtir.build(xtir.parse({HUGE_SCRATCH!r}))
        a, b = np.ones(4, np.float32), np.zeros(4, np.float32)
        with pytest.raises(xtir.XtirEvaluationError, match="function 'main': the heap has no 35184372088832 bytes "
                           "for scratch buffer %T .aligned_alloc returned NULL.; nothing was computed"):
            f(a, np.zeros(2, np.int64), b)
        assert not b.any()
    """)


COPY = """func.func @NAME(%A: memref<4xi32>, %B: memref<4xi32>) {
  block.for %i = 0 to 4 "i" {
    block.block "copy"(%v = spatial(4, %i)) {
      %a = block.load %A[%v] : memref<4xi32>
      block.store %a, %B[%v] : memref<4xi32>
    }
  }
  func.return
}"""


@pytest.mark.parametrize("text, bounds_check", [
    (program("i32").replace("@main", "@xtir_runtime_error"), False),  # guarded divisions report
    (COPY.replace("@NAME", "@xtir_runtime_error"), True),  # run-time bounds checks report
    (COPY.replace("@NAME", "@xtir_runtime_error"), False),  # nothing reports: the name is reserved anyway
    (COPY.replace("@NAME", "@main") + "\nfunc.func private @xtir_runtime_error(index, index, index)", True),
])
def test_the_channels_symbol_is_reserved(text: str, bounds_check: bool) -> None:
    """A function of the module named like the channel took the reports' calls before mangle-symbols
    renamed it: llvmlite's TypeError escaped the build (or, with three index parameters, the user's
    function would have been called instead of the channel)."""
    with pytest.raises(xtir.XtirError, match='function name "xtir_runtime_error" is reserved'):
        xtir.build(xtir.parse(text), bounds_check=bounds_check)


def test_concurrent_calls_each_raise_their_own_errors() -> None:
    """The channel records reports by site, not by call: two threads calling one built function at
    once took each other's reports, so a call that divided by zero returned normally with the
    quotients by 1 (a wrong number) while a clean call raised its error. Calls of a function that
    reports are one at a time now."""
    n = 1 << 18
    text = program("i32").replace(f"{N}x", f"{n}x").replace(f"to {N} ", f"to {n} ").replace(f"spatial({N},", f"spatial({n},")
    f = xtir.build(xtir.parse(text))
    a = np.full(n, 7, np.int32)
    good = np.full((len(OPS), n), 2, np.int32)
    bad = good.copy()
    bad[0, n // 2] = 0  # divsi by zero
    rounds = 12
    start = threading.Barrier(2)
    outcomes: dict[str, list[bool]] = {"good": [], "bad": []}

    def call(name: str, b: np.ndarray) -> None:
        for _ in range(rounds):
            start.wait()
            try:
                f(a, b, np.zeros_like(b))
                outcomes[name].append(False)
            except xtir.XtirEvaluationError as e:
                outcomes[name].append("division by zero" in str(e))

    threads = [threading.Thread(target=call, args=item) for item in (("good", good), ("bad", bad))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes == {"good": [False] * rounds, "bad": [True] * rounds}
