"""exp, erf and tanh in vectorized loops on the CPU (lowering/vector_math.py): their accuracy
against torch and against the correctly rounded value, special values, loops that are not
vectorized (remainders, one element, f16), and that LLVM vectorizes the loops."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import xtir
from xtir.lowering.jit import host_vector_variants

torch = pytest.importorskip("torch")

OPS = ["exp", "erf", "tanh"]
INLINE = ["exp", "erf"]  # computed in double precision; tanh calls libmvec
SPECIAL = [
    np.nan,
    np.inf,
    -np.inf,
    0.0,
    -0.0,
    1.0,
    -1.0,
    88.72283,
    88.72284,
    -87.33654,
    -103.27893,
    -103.97208,
    -104.0,
    3.9192,
    3.92,
    -3.92,
    4.0,
    9.0,
    -9.0,
    9.1,
    1e-45,
    -1e-45,
    1e-40,
    1.17549435e-38,
    3.4028235e38,
]


def unary(op: str, t: str, n: int) -> xtir.ModuleOp:
    return xtir.parse(f"""func.func @main(%A: memref<{n}x{t}>, %R: memref<{n}x{t}>) {{
  block.for %i = 0 to {n} "i" {{
    block.block "B"(%vi = spatial({n}, %i)) {{
      %a = block.load %A[%vi] : memref<{n}x{t}>
      %r = math.{op} %a : {t}
      block.store %r, %R[%vi] : memref<{n}x{t}>
    }}
  }}
  func.return
}}""")


def compiled(op: str, x: np.ndarray) -> np.ndarray:
    t = {np.float32: "f32", np.float16: "f16"}[x.dtype.type]
    result = np.empty_like(x)
    xtir.build(unary(op, t, x.size))(x, result)
    return result


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between a and b, elementwise (0 for two nans, huge for one)."""
    signed = {np.float32: np.int32, np.float16: np.int16}[a.dtype.type]
    mask = np.iinfo(signed).max

    def ordered(v: np.ndarray) -> np.ndarray:
        i = v.view(signed).astype(np.int64)
        return np.where(i < 0, -(i & mask), i)

    d = np.abs(ordered(a) - ordered(b))
    d[np.isnan(a) & np.isnan(b)] = 0
    d[np.isnan(a) != np.isnan(b)] = 1 << 40
    return d


def sweep() -> np.ndarray:
    """Every 4099th float32 (the whole range, denormals, ±inf, nans), 10^6 uniform in [-12, 12]
    and the special points, in an odd count (a remainder after the vector loop)."""
    bits = np.arange(0, 1 << 32, 4099, dtype=np.uint64).astype(np.uint32).view(np.float32)
    uniform = np.random.default_rng(0).uniform(-12, 12, 10**6).astype(np.float32)
    return np.concatenate([bits, uniform, np.float32(SPECIAL)])


def torch_of(op: str, x: np.ndarray, dtype=None) -> np.ndarray:
    value = torch.from_numpy(x)
    return getattr(torch, op)(value if dtype is None else value.to(dtype)).to(value.dtype).numpy()


@pytest.mark.parametrize("op", OPS)
def test_float32_within_two_ulps_of_torch(op: str) -> None:
    """The bound the frontend's tests promise, over the whole float range. Measured over
    6·10^7 points (every 211th float32 and 2·10^7 uniform in [-12, 12], both signs): 1 ulp for each."""
    x = sweep()
    got = compiled(op, x)
    off = ulps(got, torch_of(op, x))
    assert off.max() <= 2, f"{op}({x[off.argmax()]!r}) = {got[off.argmax()]!r}, torch: {torch_of(op, x)[off.argmax()]!r}"


@pytest.mark.parametrize("op", INLINE)
def test_inline_float32_within_one_ulp_of_correctly_rounded(op: str) -> None:
    """exp and erf in double precision, rounded once: the correctly rounded float32 (torch in
    float64, rounded) but within ~1e-13 relative of a rounding boundary."""
    x = sweep()
    got = compiled(op, x)
    off = ulps(got, torch_of(op, x, torch.float64))
    assert off.max() <= 1
    assert np.count_nonzero(off) <= 1e-4 * x.size


@pytest.mark.parametrize("op", OPS)
def test_special_values_as_torch(op: str) -> None:
    """nan, ±inf, ±0, the saturation points and denormals: torch's results, bit for bit."""
    x = np.float32(SPECIAL * 3)  # also in the vector loop
    got, expected = compiled(op, x), torch_of(op, x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    ok = ~np.isnan(expected)
    assert (ulps(got, expected)[ok] <= 1).all()
    exact = np.isin(x, np.float32([np.inf, -np.inf, 0.0, 1e-45, 4.0, 9.0, -9.0]))  # -0.0 too
    np.testing.assert_array_equal(got[exact].view(np.int32), expected[exact].view(np.int32))


@pytest.mark.parametrize("op", INLINE)
def test_inline_results_do_not_depend_on_the_position(op: str) -> None:
    """An element gives the same bits in the vector loop, in its remainder and alone."""
    x = sweep()[:100_003]
    whole = compiled(op, x)
    for size in (1, 7, 17):
        for start in (0, 50_000):
            np.testing.assert_array_equal(
                compiled(op, x[start : start + size]).view(np.int32), whole[start : start + size].view(np.int32)
            )


@pytest.mark.parametrize("size", [1, 5, 15, 17, 33, 1001])
def test_tanh_remainders_within_two_ulps(size: int) -> None:
    """tanh's loop remainder calls the scalar tanhf: both within 2 ulps of torch."""
    x = np.random.default_rng(size).uniform(-10, 10, size).astype(np.float32)
    assert ulps(compiled("tanh", x), torch_of("tanh", x)).max() <= 2


def test_tanh_within_two_ulps_in_the_vector_body_and_in_the_remainder() -> None:
    """libmvec's tanhf (the vector body) and tanhf (the remainder, or a loop shorter than a
    vector) differ on a third or more of the inputs in [-10, 10] (up to 3 ulps): an element's bits depend on where
    it falls in the loop, within 2 ulps of torch both ways."""
    x = np.random.default_rng(1).uniform(-10, 10, 7 * 3000).astype(np.float32)
    in_vectors = compiled("tanh", x)
    short = xtir.build(unary("tanh", "f32", 7))  # shorter than any libmvec variant: all tanhf
    assert not re.search(r"call <\d+ x float> @_ZGV", short.optimized_llvm_ir)
    alone = np.empty_like(x)
    for start in range(0, x.size, 7):
        short(x[start : start + 7], alone[start : start + 7])
    expected = torch_of("tanh", x)
    assert ulps(in_vectors, expected).max() <= 2
    assert ulps(alone, expected).max() <= 2


@pytest.mark.parametrize("op", INLINE)
def test_float16_every_value_correctly_rounded(op: str) -> None:
    """All 65536 float16 values: the double rounded once to float16 (through float32 rounded to
    odd), the correctly rounded result, as the evaluator computes it. The reference rounds once
    in numpy: torch's float64 to float16 goes through float32 (4 values 1 ulp off), and its
    float16 erf is up to 5 ulps off below 1e-6."""
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    got = compiled(op, x)
    with np.errstate(over="ignore"):
        exact = torch_of(op, x.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(exact))
    ok = ~np.isnan(exact)
    np.testing.assert_array_equal(got[ok].view(np.int16), exact[ok].view(np.int16))
    evaluated = np.empty_like(x)
    xtir.evaluate(unary(op, "f16", x.size), x, evaluated)
    np.testing.assert_array_equal(got[ok].view(np.int16), evaluated[ok].view(np.int16))


@pytest.mark.parametrize("op", INLINE)
def test_inline_loops_vectorize(op: str) -> None:
    """LLVM widens the double-precision arithmetic (the scalar build would call expf / erff)."""
    ir = xtir.build(unary(op, "f32", 1024)).optimized_llvm_ir
    assert re.search(r"call <\d+ x double> @llvm\.fmuladd\.v\d+f64", ir)
    assert not re.search(r"call (float|<\d+ x float>) @(expf|erff|llvm\.exp)", ir)


@pytest.mark.parametrize("op", INLINE)
def test_inline_code_calls_nothing_without_fma(op: str) -> None:
    """On a CPU without FMA the multiply-adds stay instructions (llvm.fma became a call to
    libm's software fma per lane there: 7 times slower than the scalar build)."""
    import llvmlite.binding as llvm

    from xtir.lowering import llvm_worker

    llvm_worker.initialize()
    machine = llvm.Target.from_default_triple().create_target_machine(cpu="x86-64", features="", opt=2)
    assembly = machine.emit_assembly(llvm.parse_assembly(xtir.build(unary(op, "f32", 1024)).llvm_ir))
    assert not re.findall(r"\bcall\w*\s+\S+", assembly)


@pytest.mark.skipif(not host_vector_variants(), reason="libmvec has no tanhf variant for this CPU (needs AVX2, glibc 2.35)")
def test_tanh_loop_calls_libmvec() -> None:
    ir = xtir.build(unary("tanh", "f32", 1024)).optimized_llvm_ir
    lanes = 16 if "_ZGVeN16v_tanhf" in host_vector_variants() else 8
    assert re.search(rf"call <{lanes} x float> @_ZGV[de]N{lanes}v_tanhf\(", ir)


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler for the stand-in libmvec")
def test_tanh_without_libmvec_variants_calls_tanhf(tmp_path: Path) -> None:
    """glibc 2.22 to 2.34 have a libmvec.so.1 without the tanhf variants: tanh is then the
    scalar tanhf, where it named a variant the process lacks (the build failed)."""
    stub = tmp_path / "stub.c"
    stub.write_text("typedef float v16 __attribute__((vector_size(64)));\nv16 _ZGVeN16v_expf(v16 x) { return x; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", tmp_path / "libmvec.so.1", stub], check=True)
    script = textwrap.dedent("""
        import numpy as np, xtir
        from xtir.lowering.jit import host_vector_variants
        from tests.test_vector_math import unary
        x = np.linspace(-3, 3, 1024, dtype=np.float32)
        r = np.empty_like(x)
        module = xtir.build(unary("tanh", "f32", x.size))
        module(x, r)
        assert not host_vector_variants(), host_vector_variants()
        assert "tanhf" in module.optimized_llvm_ir and "_ZGV" not in module.optimized_llvm_ir
        print(np.abs(r - np.tanh(x)).max())
    """)
    env = {**os.environ, "LD_LIBRARY_PATH": f"{tmp_path}:{os.environ.get('LD_LIBRARY_PATH', '')}"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=Path(__file__).parent.parent
    )
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) < 1e-6
