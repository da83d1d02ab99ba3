"""The CUDA C emitter and its two runners: every GPU example compiles with nvcc without a warning,
runs correctly in the cuda-cpu emulation (seed 002's four schedules against numpy), and a missing
barrier makes the emulation give wrong numbers. Target "cuda" itself runs only where a GPU is."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import gpu

import xtir
from xtir.build import cuda_program, lower_to_gpu
from xtir.errors import XtirError

ROOT = Path(__file__).resolve().parent.parent
CUDA_LIT = ROOT / "tests" / "filecheck" / "cuda"


def _load_seed_gpu():
    spec = importlib.util.spec_from_file_location("seed_gpu", ROOT / "examples" / "seed_gpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


seed_gpu = _load_seed_gpu()
SIZES = {"vector_add": 1024, "window_sum": 1024, "gemm_local": 128, "gemm_shared": 128}
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
    return named


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the emitted CUDA C is not compiled")
def test_every_gpu_example_compiles_with_nvcc_without_warnings(tmp_path: Path) -> None:
    failures = []
    for name, source in _gpu_examples().items():
        path = tmp_path / (name.replace("/", "_") + ".cu")
        path.write_text(source)
        done = subprocess.run(["nvcc", "-arch=sm_90", "-Werror", "all-warnings", "-c", str(path), "-o", str(path) + ".o"],
                              capture_output=True, text=True, check=False)
        if done.returncode or done.stderr.strip():
            failures.append(f"{name}:\n{done.stdout}{done.stderr}")
    assert not failures, "\n".join(failures)


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
