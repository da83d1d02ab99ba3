"""xtir.build for the llvm target: JIT numerics against numpy, argument checks, the cache."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import xtir
from xtir.build import lower_to_llvm
from xtir.lowering.jit import CompiledFunction

ROOT = Path(__file__).resolve().parent.parent
HAS_LOWER_BLOCKS = (ROOT / "lowering" / "blocks_to_scf.py").exists()
HAS_LOWER_ACCEL = (ROOT / "lowering" / "accel_to_scf.py").exists()
rng = np.random.default_rng(0)


def rand(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def small_matmul(n: int):
    text = (ROOT / "examples" / "matmul.mlir").read_text()
    return xtir.parse(re.sub(r"(?<!\d)1024(?!\d)", str(n), text))


VADD = """
func.func @main(%A: memref<1000xf32>, %B: memref<1000xf32>, %C: memref<1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c1000 step %c1 {
    %a = memref.load %A[%i] : memref<1000xf32>
    %b = memref.load %B[%i] : memref<1000xf32>
    %s = arith.addf %a, %b : f32
    memref.store %s, %C[%i] : memref<1000xf32>
  } {xtir.loop_name = "i"}
  func.return
}
"""


def matmul(n: int, i_kind: str | None = None, k_kind: str | None = None) -> str:
    """C = A · Bᵀ with the reduction in an iter_arg."""

    def kind(k: str | None) -> str:
        return f', xtir.loop_kind = "{k}"' if k else ""

    return f"""
func.func @main(%A: memref<{n}x{n}xf32>, %B: memref<{n}x{n}xf32>, %C: memref<{n}x{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant {n} : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %cn step %c1 {{
    scf.for %j = %c0 to %cn step %c1 {{
      %sum = scf.for %k = %c0 to %cn step %c1 iter_args(%acc = %zero) -> (f32) {{
        %a = memref.load %A[%i, %k] : memref<{n}x{n}xf32>
        %b = memref.load %B[%j, %k] : memref<{n}x{n}xf32>
        %p = arith.mulf %a, %b : f32
        %t = arith.addf %acc, %p : f32
        scf.yield %t : f32
      }} {{xtir.loop_name = "k"{kind(k_kind)}}}
      memref.store %sum, %C[%i, %j] : memref<{n}x{n}xf32>
    }} {{xtir.loop_name = "j"}}
  }} {{xtir.loop_name = "i"{kind(i_kind)}}}
  func.return
}}
"""


def test_vector_add() -> None:
    f = xtir.build(xtir.parse(VADD))
    a, b, c = rand(1000), rand(1000), np.zeros(1000, np.float32)
    assert f(a, b, c) is None
    np.testing.assert_array_equal(c, a + b)
    assert f.compile_seconds > 0
    assert "getelementptr inbounds" in f.llvm_ir and "noalias" in f.llvm_ir
    assert "ptrtoint" not in f.llvm_ir


def test_matmul_iter_args() -> None:
    f = xtir.build(xtir.parse(matmul(48)))
    a, b, c = rand(48, 48), rand(48, 48), np.zeros((48, 48), np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-4)


def test_parallel_matmul() -> None:
    f = xtir.build(xtir.parse(matmul(67, i_kind="parallel")))  # 67 rows do not split evenly
    assert '@"GOMP_parallel"' in f.llvm_ir
    a, b, c = rand(67, 67), rand(67, 67), np.zeros((67, 67), np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-4)


def test_parallel_loop_with_dynamic_bound_and_fewer_iterations_than_threads() -> None:
    # the bound is a value computed at run time (captured), and there is a single iteration
    text = """
func.func @main(%N: memref<1xi32>, %A: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n32 = memref.load %N[%c0] : memref<1xi32>
  %n = arith.index_cast %n32 : i32 to index
  %v = arith.constant 2.5 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %A[%i] : memref<8xf32>
  } {xtir.loop_name = "i_0", xtir.loop_kind = "parallel"}
  func.return
}
"""
    f = xtir.build(xtir.parse(text))
    for n in (0, 1, 5, 8):
        a = np.zeros(8, np.float32)
        f(np.array([n], np.int32), a)
        np.testing.assert_array_equal(a, np.where(np.arange(8) < n, 2.5, 0).astype(np.float32))


def test_vectorized_reduction_and_unrolled_loop() -> None:
    # 4 rows of C unrolled, the reduction over k vectorized (which lets LLVM reassociate it)
    text = """
func.func @main(%A: memref<4x256xf32>, %B: memref<256xf32>, %C: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %s = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (f32) {
      %a = memref.load %A[%i, %k] : memref<4x256xf32>
      %b = memref.load %B[%k] : memref<256xf32>
      %p = arith.mulf %a, %b : f32
      %q = arith.addf %acc, %p : f32
      scf.yield %q : f32
    } {xtir.loop_name = "k", xtir.loop_kind = "vectorized"}
    memref.store %s, %C[%i] : memref<4xf32>
  } {xtir.loop_name = "i", xtir.loop_kind = "unrolled"}
  func.return
}
"""
    lowered = str(lower_to_llvm(xtir.parse(text)))
    assert lowered.count("vectorize = true") == 4  # one k loop per unrolled row
    f = xtir.build(xtir.parse(text))
    assert f.llvm_ir.count('!"llvm.loop.vectorize.enable"') == 1
    assert re.search(r"<\d+ x float>", f.optimized_llvm_ir)
    a, b, c = rand(4, 256), rand(256), np.zeros(4, np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_big_unrolled_loop_is_left_to_llvm() -> None:
    text = VADD.replace('{xtir.loop_name = "i"}', '{xtir.loop_name = "i", xtir.loop_kind = "unrolled"}')
    f = xtir.build(xtir.parse(text))  # 1000 iterations: over the budget for unrolling in the IR
    assert re.search(r'!"llvm.loop.unroll.count", i32 \d+', f.llvm_ir)
    a, b, c = rand(1000), rand(1000), np.zeros(1000, np.float32)
    f(a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_nested_unrolls_stay_within_the_budget() -> None:
    """Found by the schedule fuzzer: unroll(i), unroll(j) over a split k loop of a 16x16 matmul
    asked LLVM for a full unroll of i around 16 copies of the k nest; its O3 then unrolled the
    k loops too and took ~100 s. Now i is unrolled by a count within the budget."""
    module = xtir.transform(small_matmul(16), "split{loop=k factors=-1,3},unroll{loop=i},unroll{loop=j}")
    f = xtir.build(module)
    counts = [int(c) for c in re.findall(r'!"llvm.loop.unroll.count", i32 (\d+)', f.llvm_ir)]
    assert counts and all(2 <= c < 16 for c in counts), f.llvm_ir[-2000:]
    assert "llvm.loop.unroll.full" not in f.llvm_ir
    a, b = rand(16, 16), rand(16, 16)
    c = np.full((16, 16), np.nan, np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)


def test_vectorized_elementwise_loop() -> None:
    text = """
func.func @main(%A: memref<16x64xf32>, %B: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %a = memref.load %A[%i, %j] : memref<16x64xf32>
      %r = arith.maximumf %a, %zero : f32
      memref.store %r, %B[%i, %j] : memref<16x64xf32>
    } {xtir.loop_name = "j", xtir.loop_kind = "vectorized"}
  } {xtir.loop_name = "i", xtir.loop_kind = "parallel"}
  func.return
}
"""
    f = xtir.build(xtir.parse(text))
    a, b = rand(16, 64), np.zeros((16, 64), np.float32)
    f(a, b)
    np.testing.assert_array_equal(b, np.maximum(a, 0))
    assert re.search(r"<\d+ x float>", f.optimized_llvm_ir)


def scratch_copy(n: int, scope: str, parallel: bool) -> str:
    """B = 2 * A through a per-row scratch buffer of n elements (allocated inside the loop)."""
    kind = ', xtir.loop_kind = "parallel"' if parallel else ""
    return f"""
func.func @main(%A: memref<8x{n}xf32>, %B: memref<8x{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cn = arith.constant {n} : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {{
    %row = memref.alloca() : memref<{n}xf32, "{scope}">
    scf.for %j = %c0 to %cn step %c1 {{
      %a = memref.load %A[%i, %j] : memref<8x{n}xf32>
      %d = arith.mulf %a, %two : f32
      memref.store %d, %row[%j] : memref<{n}xf32, "{scope}">
    }} {{xtir.loop_name = "j"}}
    scf.for %j = %c0 to %cn step %c1 {{
      %d = memref.load %row[%j] : memref<{n}xf32, "{scope}">
      memref.store %d, %B[%i, %j] : memref<8x{n}xf32>
    }} {{xtir.loop_name = "j"}}
  }} {{xtir.loop_name = "i"{kind}}}
  func.return
}}
"""


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
@pytest.mark.parametrize(("n", "scope"), [(64, "global.A_reg"), (100_000, "local")], ids=["stack", "heap"])
def test_alloca_scratch(n: int, scope: str, parallel: bool) -> None:
    f = xtir.build(xtir.parse(scratch_copy(n, scope, parallel)))
    assert ('@"aligned_alloc"' in f.llvm_ir) == (n * 4 > 256 * 1024)
    a, b = rand(8, n), np.zeros((8, n), np.float32)
    f(a, b)
    np.testing.assert_array_equal(b, 2 * a)


def hand_schedule(i_tile: int, j_tile: int) -> str:
    """The benchmark's hand CPU schedule (benchmarks/matmul.py) with other tile sizes."""
    return (
        f"split{{loop=i factors=-1,{i_tile}}},split{{loop=j factors=-1,{j_tile}}},reorder{{loops=j_0,i_0,k,i_1,j_1}},"
        'cache-read{block=matmul index=1 scope="global"},transform-layout{buffer=B_global permutation=1,0},'
        "compute-at{block=B_global loop=j_0},"
        'cache-write{block=matmul index=0 scope="local"},reverse-compute-at{block=C_local loop=i_0},'
        "decompose-reduction{block=matmul loop=k},vectorize{loop=j_1},unroll{loop=i_1},parallel{loop=j_0}"
    )


@pytest.mark.parametrize(("n", "i_tile", "j_tile"), [(100, 6, 32), (97, 12, 16), (64, 8, 32)])
def test_parallel_tiles_of_a_non_dividing_split(n: int, i_tile: int, j_tile: int) -> None:
    """The packed B panel and the C tile are written and read under the same edge predicates;
    compact-buffers gives each parallel iteration its own (they used to stay shared, and
    lower-blocks refused the schedule as a race)."""
    f = xtir.build(xtir.transform(small_matmul(n), hand_schedule(i_tile, j_tile)))
    sizes = sorted(int(m) for m in re.findall(r"alloca float, i64 (\d+)", f.llvm_ir))
    assert sizes == sorted([i_tile * j_tile, n * j_tile]), f.llvm_ir[:2000]
    a, b = rand(n, n), rand(n, n)
    c = np.full((n, n), np.nan, np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)


# Found in review: compact-buffers gave each iteration of o its own T although data flows
# between iterations: (1) the read of T at t = 0 is of what the previous o wrote (the write
# covers it only at a later t of the shared loop); (2) for odd o the write skips the element
# the read needs (whether it fills its box depends on o's parity, under a floordiv).
SHARED_LOOP_ORDER = """
func.func @main(%A: memref<3x4xf32>, %B: memref<3x4xf32>) {
  %T = block.alloc : memref<6xf32>
  block.for %o = 0 to 3 "o" {
    block.block "W0"(%vo = spatial(3, %o)) where(%o < 1) {
      %c = arith.constant 1.000000e+02 : f32
      block.store %c, %T[5 - %vo] : memref<6xf32>
      %d = arith.constant 2.000000e+02 : f32
      block.store %d, %T[4 - %vo] : memref<6xf32>
    }
    block.for %t = 0 to 4 "t" {
      block.block "P"(%vo = spatial(3, %o), %vt = spatial(4, %t)) {
        %x = block.load %A[%vo, %vt] : memref<3x4xf32>
        block.store %x, %T[2 - %vo + %vt] : memref<6xf32>
      }
      block.block "C"(%vo = spatial(3, %o), %vt = spatial(4, %t)) {
        %y = block.load %T[5 - %vo - %vt] : memref<6xf32>
        block.store %y, %B[%vo, %vt] : memref<3x4xf32>
      }
    }
  }
  func.return
}
"""

PARITY_FILL = """
func.func @main(%A: memref<3x4xf32>, %B: memref<3x4xf32>) {
  %T = block.alloc : memref<5xf32>
  block.for %o = 0 to 3 "o" {
    block.for %t = 0 to 2 "t" {
      block.block "W"(%vo = spatial(3, %o), %vt = spatial(2, %t)) {
        %x = block.load %A[%vo, %vt] : memref<3x4xf32>
        block.store %x, %T[3 - %vo + (%vt + 1 - %vo mod 2) floordiv 2] : memref<5xf32>
      }
    }
    block.block "R"(%vo = spatial(3, %o)) {
      %y = block.load %T[4 - %vo] : memref<5xf32>
      block.store %y, %B[%vo, 0] : memref<3x4xf32>
    }
  }
  func.return
}
"""


@pytest.mark.parametrize("text", [SHARED_LOOP_ORDER, PARITY_FILL], ids=["shared_loop_order", "parity_fill"])
def test_scratch_shared_between_iterations_stays_shared(text: str) -> None:
    module = xtir.parse(text)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    want, got = np.zeros((3, 4), np.float32), np.zeros((3, 4), np.float32)
    xtir.evaluate(module, a, want)
    xtir.build(module)(a, got)
    np.testing.assert_array_equal(got, want)


def test_loop_llvm_cannot_vectorize_is_a_warning(capfd: pytest.CaptureFixture[str]) -> None:
    """A loop-carried dependence (B[i + 1] from B[i]): LLVM refuses the forced vectorization.
    Its message used to go to the process's stderr; it is an XtirWarning naming the loop."""
    text = """
func.func @main(%B: memref<64xf32>) {
  block.for %i = 0 to 63 "i" vectorized {
    block.block "rec"(%vi = spatial(63, %i)) {
      %b = block.load %B[%vi] : memref<64xf32>
      %c = arith.addf %b, %b : f32
      block.store %c, %B[%vi + 1] : memref<64xf32>
    }
  }
  func.return
}
"""
    with pytest.warns(xtir.XtirWarning, match='LLVM did not vectorize loop "i", marked vectorized: '):
        f = xtir.build(xtir.parse(text))
    assert capfd.readouterr().err == ""
    b = rand(64)
    want = b.copy()
    for i in range(63):
        want[i + 1] = want[i] + want[i]
    f(b)
    np.testing.assert_array_equal(b, want)


def test_builds_in_threads_keep_the_process_stderr() -> None:
    """LLVM's messages are captured by pointing fd 2 at a file around the optimizer; threads
    building at once used to restore each other's capture file as the process's stderr."""
    import os
    import threading

    def same_file(a: os.stat_result, b: os.stat_result) -> bool:
        return (a.st_ino, a.st_dev) == (b.st_ino, b.st_dev)

    before = os.fstat(2)
    results: dict[int, np.ndarray] = {}

    def work(n: int) -> None:
        a, b = rand(n, n), rand(n, n)
        c = np.zeros((n, n), np.float32)
        xtir.build(xtir.parse(matmul(n)))(a, b, c)
        results[n] = np.abs(c - a @ b.T).max()

    for trial in range(4):
        threads = [threading.Thread(target=work, args=(9 + 3 * trial + 20 * k,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert same_file(os.fstat(2), before), f"fd 2 replaced after trial {trial}"
    assert len(results) == 12 and max(results.values()) < 1e-3


def test_build_without_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    """sys.stderr is None when Python starts with fd 2 closed (or under pythonw); build used to
    fail flushing it."""
    monkeypatch.setattr("sys.stderr", None)
    f = xtir.build(xtir.parse(matmul(5)))
    a, b, c = rand(5, 5), rand(5, 5), np.zeros((5, 5), np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-5)


def test_build_with_fd_2_closed() -> None:
    """The same in a process started with fd 2 closed (`python ... 2>&-`)."""
    import os
    import subprocess
    import sys

    vector_add = ROOT / "examples" / "vector_add.mlir"
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); import xtir; "
            f"xtir.build(xtir.parse_file({str(vector_add)!r})); print('ok')")
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(2), timeout=300)
    assert (done.returncode, done.stdout.strip()) == (0, "ok")


def test_integer_and_float_arithmetic() -> None:
    # floordiv/remainder of negative numbers, min/max, select, casts, comparisons
    text = """
func.func @main(%X: memref<64xi32>, %F: memref<64xf32>, %OI: memref<6x64xi64>, %OF: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %seven = arith.constant 7 : i64
  %half = arith.constant 0.5 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    %x32 = memref.load %X[%i] : memref<64xi32>
    %x = arith.extsi %x32 : i32 to i64
    %fd = arith.floordivsi %x, %seven : i64
    %cd = arith.ceildivsi %x, %seven : i64
    %r = arith.remsi %x, %seven : i64
    %mx = arith.maxsi %x, %seven : i64
    %neg = arith.cmpi slt, %x, %fd : i64
    %sel = arith.select %neg, %x, %r : i64
    memref.store %fd, %OI[%c0, %i] : memref<6x64xi64>
    memref.store %cd, %OI[%c1, %i] : memref<6x64xi64>
    memref.store %r, %OI[%c2, %i] : memref<6x64xi64>
    memref.store %mx, %OI[%c3, %i] : memref<6x64xi64>
    memref.store %sel, %OI[%c4, %i] : memref<6x64xi64>
    %f = memref.load %F[%i] : memref<64xf32>
    %t = arith.fptosi %f : f32 to i64
    memref.store %t, %OI[%c5, %i] : memref<6x64xi64>
    %xf = arith.sitofp %x32 : i32 to f32
    %m = arith.minnumf %f, %xf : f32
    %n = arith.negf %m : f32
    %d = arith.divf %n, %half : f32
    %h = arith.truncf %d : f32 to f16
    %e = arith.extf %h : f16 to f32
    %gt = arith.cmpf ogt, %f, %half : f32
    %s = arith.select %gt, %f, %half : f32
    %ff = arith.extf %f : f32 to f64
    %sq = arith.mulf %ff, %ff : f64
    %sqf = arith.truncf %sq : f64 to f32
    memref.store %d, %OF[%c0, %i] : memref<4x64xf32>
    memref.store %e, %OF[%c1, %i] : memref<4x64xf32>
    memref.store %s, %OF[%c2, %i] : memref<4x64xf32>
    memref.store %sqf, %OF[%c3, %i] : memref<4x64xf32>
  } {xtir.loop_name = "i"}
  func.return
}
"""
    f = xtir.build(xtir.parse(text))
    x = rng.integers(-50, 50, 64).astype(np.int32)
    fl = (rng.standard_normal(64) * 10).astype(np.float32)
    oi, of = np.zeros((6, 64), np.int64), np.zeros((4, 64), np.float32)
    f(x, fl, oi, of)
    x64 = x.astype(np.int64)
    fd = x64 // 7
    r = np.fmod(x64, 7)
    np.testing.assert_array_equal(oi[0], fd)
    np.testing.assert_array_equal(oi[1], -(-x64 // 7))
    np.testing.assert_array_equal(oi[2], r)
    np.testing.assert_array_equal(oi[3], np.maximum(x64, 7))
    np.testing.assert_array_equal(oi[4], np.where(x64 < fd, x64, r))
    np.testing.assert_array_equal(oi[5], np.trunc(fl).astype(np.int64))
    d = -np.minimum(fl, x.astype(np.float32)) / np.float32(0.5)
    np.testing.assert_array_equal(of[0], d)
    np.testing.assert_array_equal(of[1], d.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(of[2], np.where(fl > 0.5, fl, np.float32(0.5)))
    np.testing.assert_array_equal(of[3], (fl.astype(np.float64) ** 2).astype(np.float32))


# ----------------------------------------------------------------------------------------
# arguments, targets, the cache


@pytest.fixture(scope="module")
def vadd() -> CompiledFunction:
    return xtir.build(xtir.parse(VADD))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((np.zeros(1000, np.float32),) * 2, "takes 3 arguments, got 2"),
        (
            (np.zeros(1000, np.float32), np.zeros(1000, np.float32), np.zeros(999, np.float32)),
            r"argument 2 \(%C\) must be a float32 array of shape \(1000,\)",
        ),
        (
            (np.zeros(1000, np.float32), np.zeros(1000, np.float64), np.zeros(1000, np.float32)),
            r"argument 1 \(%B\) must be a float32 array",
        ),
        ((np.zeros(1000, np.float32), [0.0] * 1000, np.zeros(1000, np.float32)), "must be a numpy array, got list"),
        ((np.zeros(1000, np.float32), np.zeros(1000, np.float32), np.zeros(2000, np.float32)[::2]), "C-contiguous"),
    ],
    ids=["count", "shape", "dtype", "not-an-array", "strided"],
)
def test_argument_errors(vadd: CompiledFunction, args: tuple, message: str) -> None:
    with pytest.raises(xtir.XtirError, match=message):
        vadd(*args)


def test_overlapping_arguments_are_refused(vadd: CompiledFunction) -> None:
    a = np.zeros(1000, np.float32)
    with pytest.raises(xtir.XtirError, match="arguments 0 and 2 overlap"):
        vadd(a, np.zeros(1000, np.float32), a)


def test_read_only_output_is_refused(vadd: CompiledFunction) -> None:
    c = np.zeros(1000, np.float32)
    c.flags.writeable = False
    with pytest.raises(xtir.XtirError, match="writeable"):
        vadd(np.zeros(1000, np.float32), np.zeros(1000, np.float32), c)


def test_cache_hit_returns_the_compiled_function() -> None:
    first = xtir.build(xtir.parse(VADD))
    again = xtir.build(xtir.parse(VADD))  # a new module object with the same text
    assert again is first
    other = xtir.build(xtir.parse(VADD.replace("arith.addf", "arith.subf")))
    assert other is not first


def test_unknown_target_and_entry() -> None:
    module = xtir.parse(VADD)
    with pytest.raises(xtir.XtirError, match="unknown target 'rocm'; targets: llvm, cuda, cuda-cpu"):
        xtir.build(module, target="rocm")
    with pytest.raises(xtir.XtirError, match=r"no function named 'nope' in the module \(functions: main\)"):
        xtir.build(module, entry="nope")


def test_entry_selects_a_function() -> None:
    text = VADD + VADD.replace("@main", "@sub").replace("arith.addf", "arith.subf")
    f = xtir.build(xtir.parse(text), entry="sub")
    a, b, c = rand(1000), rand(1000), np.zeros(1000, np.float32)
    f(a, b, c)
    np.testing.assert_array_equal(c, a - b)


def test_thread_bound_loop_is_refused() -> None:
    text = VADD.replace(
        '{xtir.loop_name = "i"}', '{xtir.loop_name = "i_0", xtir.loop_kind = "thread_binding", xtir.thread = "threadIdx.x"}'
    )
    with pytest.raises(xtir.XtirPassError, match="loop i_0 is bound to threadIdx.x; build it for the cuda target"):
        xtir.build(xtir.parse(text))


def test_build_leaves_the_module_untouched() -> None:
    module = xtir.parse(matmul(8, i_kind="parallel"))
    before = str(module)
    xtir.build(module)
    assert str(module) == before


# ----------------------------------------------------------------------------------------
# block-level programs (need lower-blocks)


@pytest.mark.skipif(not HAS_LOWER_BLOCKS, reason="lowering/blocks_to_scf.py (lower-blocks) does not exist yet")
def test_block_level_matmul_example() -> None:
    text = (ROOT / "examples" / "matmul.mlir").read_text().replace("1024", "64")
    f = xtir.build(xtir.parse(text))
    a, b, c = rand(64, 64), rand(64, 64), np.zeros((64, 64), np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-4)


def seed_pipeline() -> str:
    script = (ROOT / "examples" / "seed_tensorize.sh").read_text()
    body = script.split("<<'END'\n", 1)[1].split("\nEND", 1)[0]
    return body.replace("\n", "")


@pytest.mark.skipif(not (HAS_LOWER_BLOCKS and HAS_LOWER_ACCEL), reason="lower-blocks / lower-accel (lowering/) do not exist yet")
@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
def test_seed_tensorize_pipeline(parallel: bool) -> None:
    text = (ROOT / "examples" / "matmul.mlir").read_text().replace("1024", "64")
    pipeline = seed_pipeline() + (",parallel{loop=i_0}" if parallel else "")
    f = xtir.build(xtir.transform(xtir.parse(text), pipeline))
    a, b, c = rand(64, 64), rand(64, 64), np.zeros((64, 64), np.float32)
    f(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-4)
