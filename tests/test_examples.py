"""The example programs in examples/: they parse, round-trip (custom and generic form)
and compute what their TVM sources compute, checked against numpy on small sizes.

The evaluator is an interpreter, so the 1024-sized examples run on scaled copies made
by `scaled_example` (tests/conftest.py), which substitutes size tokens exactly.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

import xtir

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
EXPECTED_EXAMPLES = {"matmul", "matmul_block", "vector_add", "window_sum", "gpu_matmul", "tmm16_intrin", "matmul_bias", "mlp"}
RTOL, ATOL = 1e-5, 1e-5
EVAL_BUDGET_S = 2.0  # per evaluation; the scaled sizes below are chosen to stay well under


def print_module(module: ModuleOp, generic: bool) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    return stream.getvalue()


def rand(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32)


def nans(*shape: int) -> np.ndarray:
    """An output buffer whose every element must be written (NaN would survive otherwise)."""
    return np.full(shape, np.nan, dtype=np.float32)


def timed_evaluate(module: ModuleOp, *arrays: np.ndarray, func: str = "main") -> float:
    start = time.perf_counter()
    xtir.evaluate(module, *arrays, func=func)
    elapsed = time.perf_counter() - start
    # generous: the check catches a scaled size left at 1024, not a slow machine
    assert elapsed < 5 * EVAL_BUDGET_S, f"evaluation took {elapsed:.2f} s; shrink the scaled sizes"
    return elapsed


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240601)


# Parsing and round trips ------------------------------------------------------------


def test_all_examples_present() -> None:
    assert EXPECTED_EXAMPLES <= {p.stem for p in EXAMPLES}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_starts_with_comment(path: Path) -> None:
    first = path.read_text().lstrip().splitlines()[0]
    assert first.startswith("//"), f"{path.name} should start with a comment saying what it is"
    assert "seed" in path.read_text().split("builtin.module")[0]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_custom_roundtrip(path: Path) -> None:
    module = xtir.parse_file(path)
    text = print_module(module, generic=False)
    again = print_module(xtir.parse(text, f"{path.name} (printed)"), generic=False)
    assert again == text


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_generic_roundtrip(path: Path) -> None:
    module = xtir.parse_file(path)
    generic = print_module(module, generic=True)
    reparsed = xtir.parse(generic, f"{path.name} (generic)")
    assert print_module(reparsed, generic=True) == generic
    # and the generic form carries everything the custom form shows
    assert print_module(reparsed, generic=False) == print_module(module, generic=False)


def _canonical(text: str) -> str:
    """Text without comment lines, blank lines and the `_N` suffixes the printer adds to reused names."""
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("//")]
    return re.sub(r"(%[A-Za-z_][\w.$-]*?)_\d+\b", r"\1", "\n".join(lines))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_is_in_printed_form(path: Path) -> None:
    """The source is what the printer writes, up to comments and SSA-name uniquing."""
    printed = print_module(xtir.parse_file(path), generic=False)
    assert _canonical(printed) == _canonical(path.read_text())


# The size substitution helper -------------------------------------------------------


def test_substitute_sizes_is_exact(substitute) -> None:
    text = (
        '%x = block.load %A1024[%v1024 * 64 + 1024, 10240, 11024, 1024] : memref<1024x64x1024xf32, "g.1024">\n'
        "%c = arith.constant 1.024e+64 : f64 // 1024 in a comment\n"
        '%d = arith.constant 64.0 : f32\nblock.for %i = 0 to 64 "64"\n%e = arith.constant 1024 : i64'
    )
    new, counts = substitute(text, {"1024": "32", "64": "2"})
    assert new == (
        '%x = block.load %A1024[%v1024 * 2 + 32, 10240, 11024, 32] : memref<32x2x32xf32, "g.1024">\n'
        "%c = arith.constant 1.024e+64 : f64 // 1024 in a comment\n"
        '%d = arith.constant 64.0 : f32\nblock.for %i = 0 to 2 "64"\n%e = arith.constant 32 : i64'
    )
    assert counts == {"1024": 5, "64": 3}


def test_substitute_sizes_does_not_chain(substitute) -> None:
    new, _ = substitute("memref<1024x64xf32> 1024 64", {"1024": "64", "64": "2"})
    assert new == "memref<64x2xf32> 64 2"


def test_scaled_example_keeps_the_rest(scaled_text, substitute) -> None:
    """Only sizes change: block names, comments, f32 and the tile size 16 stay."""
    original = (ROOT / "examples" / "matmul_block.mlir").read_text()
    small = scaled_text("matmul_block", {"1024": "32", "64": "2"})
    assert "1024" not in small.split("builtin.module", 1)[1]
    assert '"tmm-16x16"' in small and small.count("16") == original.count("16")
    # neither 32 nor 2 occurs as a token in the original, so the substitution inverts exactly
    back, _ = substitute(small, {"32": "1024", "2": "64"})
    assert back == original


def test_scaled_example_rejects_unknown_sizes(scaled) -> None:
    with pytest.raises(ValueError, match="no size token 999"):
        scaled("matmul", {"999": "2"})


# Evaluation against numpy -----------------------------------------------------------

TIMINGS: dict[str, float] = {}


def test_eval_matmul(scaled, rng) -> None:
    n = 24
    module = scaled("matmul", {"1024": str(n)})
    a, b, c = rand(rng, n, n), rand(rng, n, n), nans(n, n)
    TIMINGS["matmul"] = timed_evaluate(module, a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=RTOL, atol=ATOL)


def test_eval_matmul_block(scaled, rng) -> None:
    # 2x2x2 tiles of 16: the init runs once per C tile, before the first k tile only
    module = scaled("matmul_block", {"1024": "32", "64": "2"})
    a, b, c = rand(rng, 32, 32), rand(rng, 32, 32), nans(32, 32)
    TIMINGS["matmul_block"] = timed_evaluate(module, a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=RTOL, atol=ATOL)


def test_eval_vector_add(scaled, rng) -> None:
    module = scaled("vector_add", {"1024": "64"})
    a, b, c = rand(rng, 64), rand(rng, 64), nans(64)
    TIMINGS["vector_add"] = timed_evaluate(module, a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_eval_vector_add_full_size(rng) -> None:
    """1-D examples are cheap enough to run at their real size."""
    module = xtir.parse_file(ROOT / "examples" / "vector_add.mlir")
    a, b, c = rand(rng, 1024), rand(rng, 1024), nans(1024)
    TIMINGS["vector_add (1024)"] = timed_evaluate(module, a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_eval_window_sum(scaled, rng) -> None:
    module = scaled("window_sum", {"1024": "64", "1026": "66"})
    a, b = rand(rng, 66), nans(64)
    TIMINGS["window_sum"] = timed_evaluate(module, a, b)
    np.testing.assert_allclose(b, a[:-2] + a[1:-1] + a[2:], rtol=RTOL, atol=ATOL)


def test_eval_window_sum_full_size(rng) -> None:
    module = xtir.parse_file(ROOT / "examples" / "window_sum.mlir")
    a, b = rand(rng, 1026), nans(1024)
    TIMINGS["window_sum (1024)"] = timed_evaluate(module, a, b)
    np.testing.assert_allclose(b, a[:-2] + a[1:-1] + a[2:], rtol=RTOL, atol=ATOL)


def test_eval_gpu_matmul(scaled, rng) -> None:
    n = 24
    module = scaled("gpu_matmul", {"1024": str(n)})
    a, b, c = rand(rng, n, n), rand(rng, n, n), nans(n, n)
    TIMINGS["gpu_matmul"] = timed_evaluate(module, a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=RTOL, atol=ATOL)
    assert not np.allclose(c, a @ b.T, rtol=RTOL, atol=ATOL)  # B is not transposed here


def test_eval_tmm16_desc_matches_impl(rng) -> None:
    module = xtir.parse_file(ROOT / "examples" / "tmm16_intrin.mlir")
    a, b, c0 = rand(rng, 16, 16), rand(rng, 16, 16), rand(rng, 16, 16)
    c_desc, c_impl = c0.copy(), c0.copy()
    TIMINGS["tmm16_desc"] = timed_evaluate(module, a, b, c_desc, func="tmm16_desc")
    TIMINGS["tmm16_impl"] = timed_evaluate(module, a, b, c_impl, func="tmm16_impl")
    expected = c0 + a @ b.T  # no init: both accumulate into C
    np.testing.assert_allclose(c_desc, expected, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(c_impl, expected, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(c_desc, c_impl, rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(a, a.copy())  # inputs untouched (sanity)


def test_eval_matmul_bias(scaled, rng) -> None:
    # 16 is the size of TVM's reference printout (fre_bias_0_before)
    module = scaled("matmul_bias", {"1024": "16"})
    a, b, c, d = rand(rng, 16, 16), rand(rng, 16, 16), rand(rng, 16, 16), nans(16, 16)
    c_before = c.copy()
    TIMINGS["matmul_bias"] = timed_evaluate(module, a, b, c, d)
    np.testing.assert_allclose(d, a @ b.T + c, rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(c, c_before)  # C is only read


def test_eval_matmul_bias_non_square_scaling(scaled, rng) -> None:
    module = scaled("matmul_bias", {"1024": "20"})
    a, b, c, d = rand(rng, 20, 20), rand(rng, 20, 20), rand(rng, 20, 20), nans(20, 20)
    timed_evaluate(module, a, b, c, d)
    np.testing.assert_allclose(d, a @ b.T + c, rtol=RTOL, atol=ATOL)


def test_report_timings() -> None:
    """Not a check: prints the evaluation times (run with -s to see them)."""
    for name, seconds in TIMINGS.items():
        print(f"evaluate {name}: {seconds * 1000:.0f} ms")


# Evaluator errors -------------------------------------------------------------------

MATMUL_16 = {"1024": "16"}


def test_evaluate_rejects_wrong_shape(scaled) -> None:
    module = scaled("matmul", MATMUL_16)
    a, b, c = np.zeros((16, 16), np.float32), np.zeros((16, 8), np.float32), np.zeros((16, 16), np.float32)
    with pytest.raises(xtir.XtirEvaluationError, match=r"argument 1 \(%B\)") as info:
        xtir.evaluate(module, a, b, c)
    assert "(16, 16)" in str(info.value) and "(16, 8)" in str(info.value)


def test_evaluate_rejects_wrong_dtype(scaled) -> None:
    module = scaled("matmul", MATMUL_16)
    a, b, c = np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float64)
    with pytest.raises(xtir.XtirEvaluationError, match=r"argument 2 \(%C\)") as info:
        xtir.evaluate(module, a, b, c)
    assert "float32" in str(info.value) and "float64" in str(info.value)


def test_evaluate_rejects_non_arrays_and_wrong_count(scaled) -> None:
    module = scaled("vector_add", {"1024": "8"})
    a = np.zeros(8, np.float32)
    with pytest.raises(xtir.XtirEvaluationError, match=r"argument 0 \(%A\) must be a numpy array, got list"):
        xtir.evaluate(module, [0.0] * 8, a, a.copy())
    with pytest.raises(xtir.XtirEvaluationError, match="takes 3 arguments, got 2"):
        xtir.evaluate(module, a, a.copy())
    with pytest.raises(xtir.XtirEvaluationError, match="no function named 'nope'"):
        xtir.evaluate(module, a, a.copy(), a.copy(), func="nope")


def test_evaluate_rejects_read_only_output(scaled) -> None:
    module = scaled("vector_add", {"1024": "8"})
    c = np.zeros(8, np.float32)
    c.flags.writeable = False
    with pytest.raises(xtir.XtirEvaluationError, match=r"argument 2 \(%C\) must be writeable"):
        xtir.evaluate(module, np.zeros(8, np.float32), np.zeros(8, np.float32), c)


OUT_OF_BOUNDS_LOAD = """
builtin.module {
  func.func @main(%A: memref<4xf32>, %B: memref<5xf32>) {
    block.for %i = 0 to 5 "i" {
      block.block "copy"(%vi = spatial(5, %i)) {
        %a = block.load %A[%vi] : memref<4xf32>
        block.store %a, %B[%vi] : memref<5xf32>
      }
    }
    func.return
  }
}
"""

OUT_OF_BOUNDS_STORE = """
builtin.module {
  func.func @main(%A: memref<4xf32>, %B: memref<4xf32>) {
    block.for %i = 0 to 4 "i" {
      block.block "shift"(%vi = spatial(4, %i)) {
        %a = block.load %A[%vi] : memref<4xf32>
        block.store %a, %B[%vi + 1] : memref<4xf32>
      }
    }
    func.return
  }
}
"""

OUT_OF_BOUNDS_TILE = """
builtin.module {
  func.func @main(%C: memref<16x32xf32, "global.accumulator">) {
    block.for %j = 0 to 3 "j" {
      accel.fill_zero %C[0 : 16, %j * 16 : 16] : memref<16x32xf32, "global.accumulator">
    }
    func.return
  }
}
"""


@pytest.mark.parametrize(
    "text,message",
    [
        (OUT_OF_BOUNDS_LOAD, r"block.load on %A: index 0 ranges over \[0, 4\], outside the dimension's \[0, 3\]"),
        (OUT_OF_BOUNDS_STORE, r"block.store on %B: index 0 ranges over \[1, 4\]"),
        (OUT_OF_BOUNDS_TILE, r"accel.fill_zero on %C: index 1 ranges over \[0, 47\]"),
    ],
    ids=["load", "store", "accel_tile"],
)
def test_out_of_bounds_access_is_refused_statically(text: str, message: str) -> None:
    with pytest.raises(xtir.XtirVerifyError, match=message):
        xtir.parse(text)


def test_out_of_bounds_in_scaled_window_sum(scaled) -> None:
    """A window over an input one element too short reads past its end."""
    with pytest.raises(xtir.XtirVerifyError, match=r"index 0 ranges over \[2, 9\], outside the dimension's \[0, 8\]"):
        scaled("window_sum", {"1024": "8", "1026": "9"})


def guarded(text: str, block: str, bound: int) -> str:
    """`text` with `block` under `scf.if (%i < bound)` written by hand: the verifier leaves
    accesses under an scf.if to lower-blocks (and the evaluator checks them)."""
    guard = f"      %bound = arith.constant {bound} : index\n      %in = arith.cmpi slt, %i, %bound : index\n"
    body = re.compile(rf'(      block.block "{block}".*?\n      \}}\n)', re.DOTALL)
    return body.sub(lambda m: f"{guard}      scf.if %in {{\n{m.group(1)}      }}\n", text)


def test_out_of_bounds_load_at_run_time() -> None:
    module = xtir.parse(guarded(OUT_OF_BOUNDS_LOAD, "copy", 5))
    with pytest.raises(xtir.XtirEvaluationError, match="out of bounds") as info:
        xtir.evaluate(module, np.zeros(4, np.float32), np.zeros(5, np.float32))
    assert "block.load from A" in str(info.value) and "[4]" in str(info.value)


def test_out_of_bounds_store_at_run_time() -> None:
    module = xtir.parse(guarded(OUT_OF_BOUNDS_STORE, "shift", 4))
    with pytest.raises(xtir.XtirEvaluationError, match="out of bounds") as info:
        xtir.evaluate(module, np.zeros(4, np.float32), np.zeros(4, np.float32))
    assert "block.store to B" in str(info.value)


def test_seed_tensorize_script_and_pipeline_agree() -> None:
    """examples/seed_tensorize.py (Schedule API) and .sh (xtir-opt) give the same IR, with
    accel.tmm16 inside the k_0 loop, and the script's result matches numpy."""
    script = subprocess.run([sys.executable, str(ROOT / "examples" / "seed_tensorize.py"), "32"],
                            capture_output=True, text=True)
    assert script.returncode == 0, script.stderr
    assert "max |C - A·Bᵀ|" in script.stdout
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    pipeline = subprocess.run(["sh", str(ROOT / "examples" / "seed_tensorize.sh")], capture_output=True, text=True,
                              env=env)
    assert pipeline.returncode == 0, pipeline.stderr
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import seed_tensorize
    finally:
        sys.path.pop(0)
    sch = seed_tensorize.schedule(xtir.parse_file(ROOT / "examples" / "matmul.mlir"))
    assert str(sch.mod).strip() == pipeline.stdout.strip()
    k_0 = pipeline.stdout[pipeline.stdout.index('"k_0"'):]
    assert "accel.tmm16" in k_0[: k_0.index('"C_global.accumulator"')]


def test_mlp_script_matches_torch() -> None:
    """examples/mlp.py (needs torch): the imported MLP, at batch 1 and 64, matches torch."""
    pytest.importorskip("torch", reason="PyTorch is not installed (pip install 'xtir[torch]')")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "mlp.py")], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("matches torch") == 2
    assert "@fused_dense_add_relu" in result.stdout
