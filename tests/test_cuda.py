"""The CUDA C emitter and its two runners: every GPU example compiles with nvcc without a warning,
runs correctly in the cuda-cpu emulation (seed 002's four schedules against numpy), a missing
barrier makes the emulation give wrong numbers, and an integer division or shift the kernels must
not do is reported as the llvm target reports it. Target "cuda" itself runs only where a GPU is."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import gpu

import xtir
from xtir.build import cuda_program, lower_to_gpu
from xtir.errors import XtirError, XtirEvaluationError

ROOT = Path(__file__).resolve().parent.parent
CUDA_LIT = ROOT / "tests" / "filecheck" / "cuda"


def _load_seed_gpu():
    spec = importlib.util.spec_from_file_location("seed_gpu", ROOT / "examples" / "seed_gpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


seed_gpu = _load_seed_gpu()
SIZES = {"vector_add": 1024, "window_sum": 1024, "gemm_local": 128, "gemm_shared": 128, "gemm_hand": 128}
SEEDS = {name: (*seed_gpu.SCHEDULES[name], SIZES[name], lambda n, name=name: seed_gpu.inputs(name, n, np.random.default_rng(0)))
         for name in SIZES}
seed_module = seed_gpu.scheduled


def _run(module: xtir.ModuleOp, inputs: tuple[list[np.ndarray], np.ndarray]) -> float:
    arrays, expected = inputs
    xtir.build(module, target="cuda-cpu")(*arrays)
    return float(np.max(np.abs(arrays[-1] - expected)))


@pytest.mark.parametrize("name", SEEDS)
def test_seed_002_runs_in_the_emulation(name: str) -> None:
    example, pipeline, n, data = SEEDS[name]
    assert _run(seed_module(example, pipeline, n), data(n)) < 1e-3


@pytest.mark.parametrize("m_n_k", [(64, 64, 62), (72, 1000, 21)], ids=str)
@pytest.mark.parametrize("name", ["gemm_local", "gemm_shared", "gemm_shared_decomposed", "gemm_hand"])
def test_gemm_with_a_partial_k_tile_runs_in_the_emulation(name: str, m_n_k: tuple[int, int, int]) -> None:
    """k not a multiple of its tile (4 or 8): the reduction's tail predicate passes decompose-reduction
    and reorder, the fetches of the last k tile stop at k, and the results are numpy's."""
    pipeline = seed_gpu.blocking_with_shared(8, 8, 8, decompose=True) if name.endswith("decomposed") else SEEDS[name][1]
    arrays, expected = seed_gpu.gemm_inputs(*m_n_k, np.random.default_rng(0))
    xtir.build(seed_gpu.scheduled_gemm(pipeline, *m_n_k), target="cuda-cpu")(*arrays)
    assert float(np.max(np.abs(arrays[-1] - expected))) < 1e-3


def _without_barrier(module: xtir.ModuleOp, which: int) -> xtir.ModuleOp:
    lowered = lower_to_gpu(module)
    barrier = [op for op in lowered.walk() if isinstance(op, gpu.BarrierOp)][which]
    barrier.detach()
    barrier.erase()
    return lowered


@pytest.mark.parametrize(("name", "which"), [("window_sum", 0), ("gemm_shared", 0), ("gemm_shared", 1)])
def test_a_missing_barrier_gives_wrong_numbers(name: str, which: int) -> None:
    """The window sum reads its neighbours' fetches (read after write); the shared GEMM also
    refetches a tile other threads still read (write after read). Without the barrier the
    emulation's thread order makes both go wrong every time."""
    example, pipeline, n, data = SEEDS[name]
    module = seed_module(example, pipeline, n)
    assert _run(module, data(n)) < 1e-3
    assert _run(_without_barrier(module, which), data(n)) > 1e-1


def test_callable_exposes_source_and_launches() -> None:
    f = xtir.build(seed_module(*SEEDS["gemm_local"][:2]), target="cuda-cpu")
    assert '__launch_bounds__(64) main_kernel' in f.cuda_source
    (launch,) = f.launches
    assert (launch.grid, launch.block, launch.args) == ((16, 16, 1), (8, 8, 1), (0, 1, 2))
    assert f.launch_description.startswith("main_kernel<<<dim3(16, 16, 1), dim3(8, 8, 1)>>>(A, B, C);")


def _shifted_copy(shift: int) -> xtir.ModuleOp:
    """B[i] = A[i + shift], split by 32 x 4 with the 4 vectorized."""
    text = f"""builtin.module {{
      func.func @main(%A: memref<1028xf32>, %B: memref<1024xf32>) {{
        block.for %i = 0 to 1024 "i" {{
          block.block "B"(%vi = spatial(1024, %i)) {{
            %a = block.load %A[%vi + {shift}] : memref<1028xf32>
            block.store %a, %B[%vi] : memref<1024xf32>
          }}
        }}
        func.return
      }}
    }}"""
    return xtir.transform(xtir.parse(text), 'split{loop=i factors=-1,32,4},bind{loop=i_0 thread="blockIdx.x"},'
                          'bind{loop=i_1 thread="threadIdx.x"},vectorize{loop=i_2}')


@pytest.mark.parametrize(("shift", "float4"), [(0, True), (4, True), (1, False), (2, False)])
def test_float4_only_where_provably_aligned(shift: int, float4: bool) -> None:
    """A[i + 1] starts 4 bytes past a 16-byte boundary: the vectorized loop stays scalar (unrolled)."""
    source = cuda_program(_shifted_copy(shift)).source
    assert ("*(float4*)(B + v) = *(const float4*)(A + " in source) == float4
    assert ("#pragma unroll" in source) != float4
    a, b = np.arange(1028, dtype=np.float32), np.zeros(1024, np.float32)
    xtir.build(_shifted_copy(shift), target="cuda-cpu")(a, b)
    np.testing.assert_array_equal(b, a[shift:shift + 1024])


def test_float4_in_the_shared_gemm_fetch() -> None:
    source = cuda_program(seed_module(*SEEDS["gemm_shared"][:2])).source
    assert source.count("*(float4*)(") == 2


def test_unbound_loops_are_refused() -> None:
    module = xtir.parse((ROOT / "examples" / "window_sum.mlir").read_text())
    with pytest.raises(XtirError, match="loop 'i' is not bound to a GPU thread axis"):
        xtir.build(module, target="cuda-cpu")


def _gpu_available() -> str | None:
    """Why target "cuda" cannot run here, or None."""
    try:
        from xtir.lowering.cuda_function import import_cupy

        import_cupy()
    except XtirError as e:
        return str(e)
    return None


@pytest.mark.skipif(_gpu_available() is None, reason="a GPU is usable here")
def test_cuda_target_without_gpu_says_so() -> None:
    with pytest.raises(XtirError, match="CuPy|GPU"):
        xtir.build(seed_module(*SEEDS["vector_add"][:2]), target="cuda")


@pytest.mark.skipif(_gpu_available() is not None, reason=f"no GPU: {_gpu_available()}")
@pytest.mark.parametrize("name", SEEDS)
def test_seed_002_runs_on_the_gpu(name: str) -> None:
    import cupy

    example, pipeline, n, data = SEEDS[name]
    f = xtir.build(seed_module(example, pipeline, n), target="cuda")
    arrays, expected = data(n)
    f(*arrays)  # numpy arrays: copied there and back
    assert np.max(np.abs(arrays[-1] - expected)) < 1e-3
    device = [cupy.asarray(a) for a in data(n)[0]]
    f(*device)  # device arrays: in place
    assert float(cupy.max(cupy.abs(device[-1] - cupy.asarray(expected)))) < 1e-3


def _gpu_examples() -> dict[str, str]:
    sources = {p.stem: xtir.parse(p.read_text()) for p in sorted(CUDA_LIT.glob("*.mlir")) if "gpu.launch_func" in p.read_text()}
    named = {f"lit/{k}": cuda_program(m).source for k, m in sources.items()}
    named |= {f"seed/{k}": cuda_program(seed_module(e, p)).source for k, (e, p, _, _) in SEEDS.items()}
    named |= {f"seed/{k}_1000": cuda_program(seed_module(e, p, 1000)).source for k, (e, p, _, _) in SEEDS.items()
              if k.startswith("gemm")}  # partial tiles at the edges
    named |= {f"seed/{k}_k60": cuda_program(seed_gpu.scheduled_gemm(p, 128, 128, 60)).source
              for k, (_, p, _, _) in SEEDS.items() if k.startswith("gemm")}  # a partial last k tile
    named |= {f"checked/{t}": cuda_program(_on_threads(_integer_ops(t))).source for t in INTEGER_TYPES}
    return named


def nvcc_complaints(source: str, path: Path) -> str:
    """What `nvcc -Werror all-warnings` says compiling `source` (written to `path`); empty when clean."""
    path.write_text(source)
    done = subprocess.run(["nvcc", "-arch=sm_90", "-Werror", "all-warnings", "-c", str(path), "-o", f"{path}.o"],
                          capture_output=True, text=True, check=False)
    return f"{done.stdout}{done.stderr}" if done.returncode or done.stderr.strip() else ""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the emitted CUDA C is not compiled")
def test_every_gpu_example_compiles_with_nvcc_without_warnings(tmp_path: Path) -> None:
    failures = [f"{name}:\n{said}" for name, source in _gpu_examples().items()
                if (said := nvcc_complaints(source, tmp_path / (name.replace("/", "_") + ".cu")))]
    assert not failures, "\n".join(failures)


def _ptxas(source: str, path: Path) -> tuple[str, str]:
    """The PTX of `source` and ptxas's report on it (registers, spills)."""
    path.write_text(source)
    ptx = path.with_suffix(".ptx")
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", str(path), "-o", str(ptx)], check=True, capture_output=True)
    done = subprocess.run(["ptxas", "-arch=sm_90", "-v", str(ptx), "-o", str(path.with_suffix(".o"))],
                          capture_output=True, text=True, check=True)
    return ptx.read_text(), done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the emitted CUDA C is not compiled")
@pytest.mark.parametrize("transpose_a", [True, False])
def test_hand_gemm_reads_shared_fragments_as_float4(tmp_path: Path, transpose_a: bool) -> None:
    """The hand GEMM's inner loop (each thread: 8 values of A and 8 of B per k, 64 FMAs) reads both
    fragments from shared memory as float4 and no float alone, within 128 registers and no spill:
    A's tile k-major (its 8 rows at one k are adjacent) or row-major (nvcc joins the unrolled k)."""
    pipeline = seed_gpu.hand_gemm(transpose_a=transpose_a)
    ptx, report = _ptxas(cuda_program(seed_module("gpu_matmul.mlir", pipeline)).source, tmp_path / "hand.cu")
    fma, v4, scalar = (len(re.findall(rf"\b{op}\s", ptx)) for op in (r"fma\.rn\.f32", r"ld\.shared\.v4\.f32", r"ld\.shared\.f32"))
    assert fma == 2 * 8 * 64 and v4 * 16 == fma and scalar == 0  # the loop body and the epilogue
    assert "0 bytes spill stores, 0 bytes spill loads" in report
    assert int(re.search(r"Used (\d+) registers", report)[1]) <= 128


SWAP = """builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "main_kernels"}> ({
    "gpu.func"() <{function_type = (memref<64xf32>, memref<64xf32>) -> (), kernel}> ({
    ^bb0(%A: memref<64xf32>, %B: memref<64xf32>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> {xtir.loop_names = ["i"]} : () -> index
      %old = memref.load %A[%t] : memref<64xf32>
      %b = memref.load %B[%t] : memref<64xf32>
      memref.store %b, %A[%t] : memref<64xf32>
      memref.store %old, %B[%t] : memref<64xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "main_kernel"} : () -> ()
  }) : () -> ()
  func.func @main(%A: memref<64xf32>, %B: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    "gpu.launch_func"(%c1, %c1, %c1, %c64, %c1, %c1, %A, %B) <{kernel = @main_kernels::@main_kernel,
      operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}>
      : (index, index, index, index, index, index, memref<64xf32>, memref<64xf32>) -> ()
    func.return
  }
}"""


def test_a_load_is_not_moved_past_a_store() -> None:
    """`old` is read before A[i] is overwritten: it must become a local, not be inlined into the
    last store (which would read the new value); `b` is used right away and is inlined."""
    module = xtir.parse(SWAP)
    source = cuda_program(module).source
    assert "const float old = A[i];" in source and "A[i] = B[i];" in source
    a, b = np.arange(64, dtype=np.float32), -np.arange(64, dtype=np.float32)
    xtir.build(module, target="cuda-cpu")(a, b)
    np.testing.assert_array_equal(a, -np.arange(64))
    np.testing.assert_array_equal(b, np.arange(64))


def test_float4_on_a_misaligned_numpy_array() -> None:
    """numpy only aligns to the element: the emulation stages such an argument in an aligned copy."""
    f = xtir.build(_shifted_copy(0), target="cuda-cpu")
    a = np.zeros(1029, np.float32)[1:]
    a[:] = np.arange(1028)
    b = np.zeros(1024, np.float32)[:]
    assert a.ctypes.data % 16 and f.program.aligned_params == {0, 1}
    f(a, b)
    np.testing.assert_array_equal(b, a[:1024])


INTEGER_OPS = ("divsi", "remsi", "divui", "remui", "floordivsi", "ceildivsi", "ceildivui", "shli", "shrsi", "shrui")
INTEGER_TYPES = {"i8": np.int8, "i32": np.int32, "i64": np.int64}
THREADS = 'split{loop=i factors=-1,32},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"}'


def _integer_ops(ty: str, ops: tuple[str, ...] = INTEGER_OPS, n: int = 64) -> xtir.ModuleOp:
    """C[i, k] = A[i] <ops[k]> B[i] for the divisions, A[i] <ops[k]> S[i] for the shifts."""
    lines = []
    for k, op in enumerate(ops):
        rhs = "%s" if op.startswith("sh") else "%b"
        lines += [f"%r{k} = arith.{op} %a, {rhs} : {ty}", f"block.store %r{k}, %C[%vi, {k}] : memref<{n}x{len(ops)}x{ty}>"]
    body = "\n      ".join(lines)
    return xtir.parse(f"""func.func @main(%A: memref<{n}x{ty}>, %B: memref<{n}x{ty}>, %S: memref<{n}x{ty}>,
                                         %C: memref<{n}x{len(ops)}x{ty}>) {{
      block.for %i = 0 to {n} "i" {{
        block.block "C"(%vi = spatial({n}, %i)) {{
          %a = block.load %A[%vi] : memref<{n}x{ty}>
          %b = block.load %B[%vi] : memref<{n}x{ty}>
          %s = block.load %S[%vi] : memref<{n}x{ty}>
          {body}
        }}
      }}
      func.return
    }}""")


def _on_threads(module: xtir.ModuleOp) -> xtir.ModuleOp:
    return xtir.transform(module, THREADS)


def _c_semantics(op: str, a: int, b: int, bits: int) -> int:
    """What C (and LLVM) give for `a op b` on `bits`-bit integers: division truncates, results wrap."""
    ua, ub = a % (1 << bits), b % (1 << bits)
    if op.startswith("sh"):
        value = {"shli": a << b, "shrsi": a >> b, "shrui": ua >> b}[op]
    else:
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        value = {"divsi": quotient, "remsi": a - b * quotient, "divui": ua // ub, "remui": ua % ub,
                 "floordivsi": a // b, "ceildivsi": -(-a // b), "ceildivui": -(-ua // ub)}[op]
    value %= 1 << bits
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


@pytest.mark.parametrize("ty", INTEGER_TYPES)
def test_checked_integer_ops_compute_what_c_does(ty: str) -> None:
    """Through their checking helpers (the divisor and the amount are data), every division and
    shift gives C's numbers, also on the operands next to the undefined ones (MIN / 2, 7 / -1)."""
    dtype = INTEGER_TYPES[ty]
    bits, lowest = np.iinfo(dtype).bits, int(np.iinfo(dtype).min)
    rng = np.random.default_rng(0)
    a = rng.integers(lowest, -lowest, 64).astype(dtype)
    b = rng.integers(1, 100, 64).astype(dtype) * rng.choice([-1, 1], 64).astype(dtype)
    a[:4], b[:4] = (lowest, 7, lowest, -7), (2, -1, 1, -1)
    s = rng.integers(0, bits, 64).astype(dtype)
    out = np.zeros((64, len(INTEGER_OPS)), dtype)
    f = xtir.build(_on_threads(_integer_ops(ty)), target="cuda-cpu")
    assert "xtir_div<" in f.cuda_source
    f(a, b, s, out)
    expected = [[_c_semantics(op, int(x), int(s_ if op.startswith("sh") else y), bits) for op in INTEGER_OPS]
                for x, y, s_ in zip(a, b, s)]
    np.testing.assert_array_equal(out, np.array(expected, dtype))


_CALL_IN_A_CHILD = """
import json, sys
import numpy as np
import xtir
from xtir.errors import XtirEvaluationError

job = json.load(sys.stdin)
f = xtir.build(xtir.parse(job["module"]), target="cuda-cpu")
arrays = [np.array(v, dtype=job["dtype"]) for v in job["arrays"]]
try:
    f(*arrays)
    print("no error")
except XtirEvaluationError as e:
    print(e)
"""


def _report_in_a_child(module: xtir.ModuleOp, arrays: list[np.ndarray]) -> str:
    """What calling the cuda-cpu build of `module` raises, run in a child process: code that traps
    (SIGFPE) kills its process, which must not be pytest's."""
    job = {"module": str(module), "dtype": str(arrays[0].dtype), "arrays": [a.tolist() for a in arrays]}
    done = subprocess.run([sys.executable, "-c", _CALL_IN_A_CHILD], input=json.dumps(job), capture_output=True,
                          text=True, check=False, timeout=300)
    assert done.returncode == 0, f"the call killed its process (status {done.returncode}):\n{done.stderr[-2000:]}"
    return done.stdout.strip()


@pytest.mark.parametrize(("op", "ty", "a", "b", "problem"), [
    ("divsi", "i32", 7, 0, "division by zero"),
    ("divsi", "i32", -2**31, -1, "a signed division that overflows"),
    ("divsi", "i8", -128, -1, "a signed division that overflows"),
    ("remsi", "i32", 7, 0, "division by zero"),
    ("divui", "i64", 7, 0, "division by zero"),
    ("ceildivui", "i32", 7, 0, "division by zero"),
    ("floordivsi", "i64", -2**63, -1, "a signed division that overflows"),
    ("shli", "i32", 7, 32, "a shift by 32 (not less than the width, 32)"),
    ("shrsi", "i32", 7, -1, "a shift by 4294967295 (not less than the width, 32)"),
])
def test_undefined_integer_op_is_reported_not_trapped(op: str, ty: str, a: int, b: int, problem: str) -> None:
    """One thread's operands are undefined for `op`: the call raises the llvm target's message for
    them, the process lives, and the other threads' results are there."""
    module = _integer_ops(ty, (op,), n=64)
    dtype = INTEGER_TYPES[ty]
    lhs, rhs = np.full(64, 9, dtype), np.full(64, 2, dtype)
    lhs[37], rhs[37] = a, b
    arrays = [lhs, rhs, rhs.copy(), np.zeros((64, 1), dtype)]
    message = f"block \"C\": 'arith.{op}' on {a}, {b}: {problem}, which is undefined in compiled code"
    assert _report_in_a_child(_on_threads(module), arrays) == message
    with pytest.raises(XtirEvaluationError) as cpu:
        xtir.build(module)(*arrays)
    assert str(cpu.value) == message


def test_error_channel_is_cleared_between_calls() -> None:
    """(A shift, not a division: before the channel, a division by zero here killed pytest.)"""
    f = xtir.build(_on_threads(_integer_ops("i32", ("shli",))), target="cuda-cpu")
    a, c = np.full(64, 3, np.int32), np.zeros((64, 1), np.int32)
    with pytest.raises(XtirEvaluationError, match="a shift by 40"):
        f(a, a.copy(), np.full(64, 40, np.int32), c)
    f(a, a.copy(), np.full(64, 2, np.int32), c)
    np.testing.assert_array_equal(c, 12)
