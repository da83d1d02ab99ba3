"""f16 in the CUDA emitter: `__half` buffers and values (cuda_fp16.h), `+ - * /` and compares on
`__half`, math functions, min / max and conversions through float. The cuda-cpu emulation rounds
each operation to f16 as numpy does, so it gives numpy's f16 numbers exactly (the llvm target lets
a multiply and an add fuse, as nvcc may: equal up to that rounding); nvcc compiles it without a
warning and NVRTC (through cuda-python) finds cuda_fp16.h."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import xtir
from tests.test_cuda import THREADS, seed_gpu
from xtir.build import cuda_program

ROOT = Path(__file__).resolve().parent.parent
N = 256


ELEMENTWISE = f"""func.func @main(%A: memref<{N}xf16>, %B: memref<{N}xf16>, %W: memref<{N}xf64>, %I: memref<{N}xi32>,
                                  %D: memref<{N}x12xf16>, %E: memref<{N}x3xf32>, %J: memref<{N}x2xi16>) {{
  block.for %i = 0 to {N} "i" {{
    block.block "D"(%vi = spatial({N}, %i)) {{
      %a = block.load %A[%vi] : memref<{N}xf16>
      %b = block.load %B[%vi] : memref<{N}xf16>
      %w = block.load %W[%vi] : memref<{N}xf64>
      %n = block.load %I[%vi] : memref<{N}xi32>
      %third = arith.constant 0.333251953125 : f16
      %r0 = arith.addf %a, %b : f16
      %r1 = arith.subf %a, %third : f16
      %r2 = arith.mulf %a, %b : f16
      %r3 = arith.divf %a, %b : f16
      %r4 = math.exp %a : f16
      %r5 = arith.maximumf %a, %b : f16
      %lt = arith.cmpf olt, %a, %b : f16
      %r6 = arith.select %lt, %a, %b : f16
      %r7 = arith.negf %a : f16
      %r8 = arith.truncf %w : f64 to f16
      %r9 = arith.sitofp %n : i32 to f16
      %wide = arith.extf %a : f16 to f32
      %square = arith.mulf %wide, %wide : f32
      %r10 = arith.truncf %square : f32 to f16
      %inf = arith.constant 0x7C00 : f16
      %r11 = arith.minnumf %a, %inf : f16
      block.store %r0, %D[%vi, 0] : memref<{N}x12xf16>
      block.store %r1, %D[%vi, 1] : memref<{N}x12xf16>
      block.store %r2, %D[%vi, 2] : memref<{N}x12xf16>
      block.store %r3, %D[%vi, 3] : memref<{N}x12xf16>
      block.store %r4, %D[%vi, 4] : memref<{N}x12xf16>
      block.store %r5, %D[%vi, 5] : memref<{N}x12xf16>
      block.store %r6, %D[%vi, 6] : memref<{N}x12xf16>
      block.store %r7, %D[%vi, 7] : memref<{N}x12xf16>
      block.store %r8, %D[%vi, 8] : memref<{N}x12xf16>
      block.store %r9, %D[%vi, 9] : memref<{N}x12xf16>
      block.store %r10, %D[%vi, 10] : memref<{N}x12xf16>
      block.store %r11, %D[%vi, 11] : memref<{N}x12xf16>
      %e0 = arith.extf %a : f16 to f32
      %e1 = arith.fptosi %a : f16 to i32
      %e1f = arith.sitofp %e1 : i32 to f32
      %e2 = arith.extf %r3 : f16 to f32
      block.store %e0, %E[%vi, 0] : memref<{N}x3xf32>
      block.store %e1f, %E[%vi, 1] : memref<{N}x3xf32>
      block.store %e2, %E[%vi, 2] : memref<{N}x3xf32>
      %j0 = arith.bitcast %a : f16 to i16
      %j1 = arith.bitcast %j0 : i16 to f16
      %j1i = arith.bitcast %j1 : f16 to i16
      block.store %j0, %J[%vi, 0] : memref<{N}x2xi16>
      block.store %j1i, %J[%vi, 1] : memref<{N}x2xi16>
    }}
  }}
  func.return
}}"""


def _inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(N).astype(np.float16) * 4 for _ in range(2))
    w = rng.standard_normal(N) * 1000
    w[:3] = (65519.0, 65520.0, 1 / 3)  # the largest value rounding to 65504, the smallest to infinity
    n = rng.integers(-70000, 70000, N).astype(np.int32)
    return [a, b, w, n, np.zeros((N, 12), np.float16), np.zeros((N, 3), np.float32), np.zeros((N, 2), np.int16)]


def _numpy(a: np.ndarray, b: np.ndarray, w: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, ...]:
    with np.errstate(all="ignore"):
        quotient = a / b
        d = [a + b, a - np.float16(0.333251953125), a * b, quotient, np.exp(a), np.maximum(a, b), np.where(a < b, a, b),
             -a, w.astype(np.float16), n.astype(np.float16), (a.astype(np.float32) ** 2).astype(np.float16),
             np.fmin(a, np.float16(np.inf))]
    e = [a.astype(np.float32), np.trunc(a).astype(np.float32), quotient.astype(np.float32)]
    return np.stack(d, axis=1), np.stack(e, axis=1), np.stack([a.view(np.int16)] * 2, axis=1)


def test_f16_elementwise_gives_numpys_numbers() -> None:
    module = xtir.transform(xtir.parse(ELEMENTWISE), THREADS)
    arrays = _inputs()
    f = xtir.build(module, target="cuda-cpu")
    assert "#include <cuda_fp16.h>" in f.cuda_source and "const __half* __restrict__ A" in f.cuda_source
    f(*arrays)
    for got, expected in zip(arrays[4:], _numpy(*arrays[:4])):
        np.testing.assert_array_equal(got, expected)
    on_cpu = _inputs()
    xtir.build(xtir.parse(ELEMENTWISE))(*on_cpu)
    for got, expected in zip(arrays[4:], on_cpu[4:]):
        np.testing.assert_array_equal(got, expected)


def _gemm_f16(n: int, scheduled: bool = True) -> xtir.ModuleOp:
    """Seed 002's GEMM in f16, with its shared-memory blocking schedule."""
    example, pipeline = seed_gpu.SCHEDULES["gemm_shared"]
    module = xtir.parse((ROOT / "examples" / example).read_text().replace("1024", str(n)).replace("f32", "f16"))
    return xtir.transform(module, pipeline) if scheduled else module


def test_f16_gemm_with_shared_tiles_accumulates_in_f16() -> None:
    """C is f16, so the sum is rounded to f16 at each step, in k's order: numpy's per-operation
    f16 loop exactly; the llvm target fuses each multiply-add (one rounding), so it is close."""
    n = 128
    module = _gemm_f16(n)
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((n, n)).astype(np.float16) for _ in range(2))
    c = np.full((n, n), np.nan, np.float16)
    f = xtir.build(module, target="cuda-cpu")
    assert "__shared__ __align__(16) __half A_shared[512];" in f.cuda_source
    assert "float4" not in f.cuda_source  # 4 halves are not a float4
    f(a, b, c)
    expected = np.zeros((n, n), np.float16)
    for k in range(n):
        expected = expected + a[:, k:k + 1] * b[k:k + 1, :]
    np.testing.assert_array_equal(c, expected)
    on_cpu = np.full((n, n), np.nan, np.float16)
    xtir.build(_gemm_f16(n, scheduled=False))(a, b, on_cpu)
    np.testing.assert_allclose(on_cpu.astype(np.float32), c.astype(np.float32), rtol=0.02, atol=0.1)


def _sources() -> dict[str, str]:
    return {"elementwise": cuda_program(xtir.transform(xtir.parse(ELEMENTWISE), THREADS)).source,
            "gemm": cuda_program(_gemm_f16(128)).source}


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the emitted CUDA C is not compiled")
@pytest.mark.parametrize("name", ["elementwise", "gemm"])
def test_f16_compiles_with_nvcc_without_warnings(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.cu"
    path.write_text(_sources()[name])
    done = subprocess.run(["nvcc", "-arch=sm_90", "-Werror", "all-warnings", "-c", str(path), "-o", f"{path}.o"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr


def test_f16_compiles_with_nvrtc() -> None:
    """NVRTC has no include path of its own: the CUDA headers' folder is found for it."""
    from xtir.lowering.cuda_function import nvrtc_compile

    try:
        image = nvrtc_compile(_sources()["gemm"], "sm_90")
    except (ImportError, RuntimeError) as e:  # cuda-python not installed, or libnvrtc not found
        pytest.skip(f"cuda-python's NVRTC is not usable here (pip install 'xtir[nvrtc]'): {e}")
    assert image.startswith(b"\x7fELF")


@pytest.mark.parametrize("runtime", ["cuda-python", "cupy"])
def test_f16_on_the_gpu_gives_the_emulations_numbers(runtime: str) -> None:
    """NVRTC through both runtimes finds cuda_fp16.h; the GPU's math functions may round the
    last f16 bit otherwise than the host's."""
    from tests.test_cuda_python import NO_GPU

    if NO_GPU is not None:
        pytest.skip(f"no GPU: {NO_GPU}")
    if runtime == "cupy":
        pytest.importorskip("cupy")
    module = xtir.transform(xtir.parse(ELEMENTWISE), THREADS)
    on_gpu, emulated = _inputs(), _inputs()
    xtir.build(module, target="cuda", runtime=runtime)(*on_gpu)
    xtir.build(module, target="cuda-cpu")(*emulated)
    for got, expected in zip(on_gpu[4:], emulated[4:]):
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=2e-3)
