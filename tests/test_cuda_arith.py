"""arith ops of the CUDA emitter that the llvm target also compiles: the cuda-cpu emulation of the
emitted CUDA C gives the llvm target's numbers (floor / ceiling divisions by constants of either
sign, which take the unchecked helpers, and bit casts)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import xtir
from tests.test_cuda import THREADS
from xtir.build import cuda_program

N = 64


def _elementwise(ty: str, out_ty: str, body: list[str]) -> xtir.ModuleOp:
    """C[i, k] = the k-th result of `body` (on %a = A[i]), its results named %r0, %r1, ..."""
    results = sum(1 for line in body if line.startswith("%r"))
    stores = [f"block.store %r{k}, %C[%vi, {k}] : memref<{N}x{results}x{out_ty}>" for k in range(results)]
    lines = "\n          ".join(body + stores)
    return xtir.parse(f"""func.func @main(%A: memref<{N}x{ty}>, %C: memref<{N}x{results}x{out_ty}>) {{
      block.for %i = 0 to {N} "i" {{
        block.block "C"(%vi = spatial({N}, %i)) {{
          %a = block.load %A[%vi] : memref<{N}x{ty}>
          {lines}
        }}
      }}
      func.return
    }}""")


def _both_targets(module: xtir.ModuleOp, a: np.ndarray, out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    on_cpu, emulated = out.copy(), out.copy()
    xtir.build(module)(a, on_cpu)
    f = xtir.build(xtir.transform(module, THREADS), target="cuda-cpu")
    f(a, emulated)
    return on_cpu, emulated


def _rounded_divisions(ty: str) -> xtir.ModuleOp:
    body = []
    for k, (op, d) in enumerate((op, d) for op in ("floordivsi", "ceildivsi", "ceildivui") for d in (3, -3, 1, 7, -1)):
        body += [f"%d{k} = arith.constant {d} : {ty}", f"%r{k} = arith.{op} %a, %d{k} : {ty}"]
    return _elementwise(ty, ty, body)


@pytest.mark.parametrize("ty", ["i8", "i32", "i64"])
def test_rounded_divisions_by_constants_match_the_llvm_target(ty: str) -> None:
    dtype = np.dtype(ty.replace("i", "int"))
    module = _rounded_divisions(ty)
    info = np.iinfo(dtype)
    a = np.random.default_rng(1).integers(info.min + 1, info.max, N).astype(dtype)
    a[:6] = (0, 1, -1, 5, -5, info.max)
    on_cpu, emulated = _both_targets(module, a, np.zeros((N, 15), dtype))
    assert "xtir_ceildivu<" in xtir.build(xtir.transform(module, THREADS), target="cuda-cpu").cuda_source
    np.testing.assert_array_equal(emulated, on_cpu)


@pytest.mark.parametrize(("ty", "out_ty", "dtype", "out_dtype"), [
    ("i32", "f32", np.int32, np.float32), ("f32", "i32", np.float32, np.int32),
    ("i64", "f64", np.int64, np.float64), ("f64", "i64", np.float64, np.int64),
])
def test_bitcast_matches_the_llvm_target(ty: str, out_ty: str, dtype: type, out_dtype: type) -> None:
    module = _elementwise(ty, out_ty, [f"%r0 = arith.bitcast %a : {ty} to {out_ty}"])
    a = np.random.default_rng(2).standard_normal(N).astype(dtype) if dtype in (np.float32, np.float64) \
        else np.arange(N, dtype=dtype) * 12345
    on_cpu, emulated = _both_targets(module, a, np.zeros((N, 1), out_dtype))
    np.testing.assert_array_equal(emulated.view(dtype), a[:, None].view(dtype))
    np.testing.assert_array_equal(emulated.view(dtype), on_cpu.view(dtype))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the emitted CUDA C is not compiled")
def test_divisions_and_bitcasts_compile_with_nvcc_without_warnings(tmp_path: Path) -> None:
    bitcasts = _elementwise("i64", "f64", ["%r0 = arith.bitcast %a : i64 to f64"])
    for k, module in enumerate([*(_rounded_divisions(ty) for ty in ("i8", "i32", "i64")), bitcasts]):
        path = tmp_path / f"k{k}.cu"
        path.write_text(cuda_program(xtir.transform(module, THREADS)).source)
        done = subprocess.run(["nvcc", "-arch=sm_90", "-Werror", "all-warnings", "-c", str(path), "-o", f"{path}.o"],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0 and not done.stderr.strip(), done.stderr
