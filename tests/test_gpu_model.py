"""Whole graph models on the GPU path: default-gpu-schedule and compile_model(target="cuda-cpu"),
checked against torch with the emulation's race detector on every kernel; each kernel a model
makes compiles with nvcc -Werror (skipped without nvcc)."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import xtir
from xtir import te
from xtir.errors import XtirError, XtirWarning
from xtir.model import GpuModel, compile_model
from xtir.passes.default_gpu_schedule import PER_OUTPUT, TILED, Tiles, schedule_report

torch = pytest.importorskip("torch")
nn = torch.nn

from tests.test_frontend_torch import SmallCNN, mlp  # noqa: E402  (after torch: they need it)
from xtir.frontend import from_torch  # noqa: E402

GRAPH_PASSES = "fold-constants,fuse-ewise-fma,dce,fuse-ops"


def graph_of(model, example):
    return xtir.transform(from_torch(model.eval(), (example,)), GRAPH_PASSES)


def check_against_torch(model, example, racecheck: bool = True) -> GpuModel:
    compiled = compile_model(graph_of(model, example), target="cuda-cpu", racecheck=racecheck)
    assert isinstance(compiled, GpuModel)
    got = compiled(example.numpy())
    np.testing.assert_allclose(got, model(example).detach().numpy(), rtol=1e-4, atol=1e-4)
    return compiled


@pytest.mark.parametrize("batch", [1, 3])
def test_the_torch_mlp_runs_on_cuda_cpu(batch: int) -> None:
    """Each dense + bias (+ relu) one tiled kernel: x and w tiles in shared memory."""
    compiled = check_against_torch(mlp(), torch.randn(batch, 784))
    assert [k.name for k in compiled.kernels] == ["fused_dense_add_relu", "fused_dense_add"]
    assert all(len(k.launches) == 1 and k.launches[0].shared_bytes > 0 for k in compiled.kernels)


def test_a_small_cnn_runs_on_cuda_cpu() -> None:
    """The conv2d's padding is inlined into its shared fetch (one kernel a conv); pools and head too."""
    torch.manual_seed(1)
    compiled = check_against_torch(SmallCNN().eval(), torch.randn(1, 1, 28, 28))
    convs = [k for k in compiled.kernels if k.name.startswith("fused_conv2d")]
    assert len(convs) == 2 and all(len(k.launches) == 1 for k in convs)


def test_intermediates_between_kernels_are_the_models_buffers() -> None:
    """softmax's row maxima and sums pass between its kernels: the model allocates them."""
    torch.manual_seed(2)
    compiled = check_against_torch(nn.Sequential(nn.Linear(37, 11), nn.Softmax(dim=-1)), torch.randn(5, 37))
    softmax = next(k for k in compiled.kernels if k.name == "softmax")
    assert len(softmax.launches) == 3
    assert [a.name_hint for a in softmax.signature.body.block.args][-2:] == ["T_softmax_maxelem", "T_softmax_expsum"]


def test_the_report_says_why_softmax_is_not_tiled() -> None:
    """softmax's reductions read the rows three blocks read: the shared fetch (cache-read) would
    redirect every reader, so one thread per output, and the report says so (was: compute-at's
    message about linear_shared, a buffer the user never wrote)."""
    graph = graph_of(nn.Sequential(nn.Linear(37, 11), nn.Softmax(dim=-1)), torch.randn(5, 37))
    report = {c.block: c for c in schedule_report(xtir.transform(graph, "legalize-tensor"))}
    maxelem = report["T_softmax_maxelem"]
    assert maxelem.schedule == PER_OUTPUT
    assert ("its input linear is also read by block(s) T_softmax_expsum, T_softmax_norm, and the fetch of an input to "
            "shared memory (cache-read) redirects every reader of it") in maxelem.detail


@pytest.mark.parametrize(("batch", "features"), [(17, (29, 13)), (7, (1009, 257)), (7, (31, 131))])
def test_sizes_no_tile_divides(batch: int, features: tuple[int, int]) -> None:
    """Prime extents above the thread tile (16 of 256 threads in two loops): the thread tile is
    guarded instead of falling to one thread a block."""
    torch.manual_seed(3)
    compiled = check_against_torch(nn.Sequential(nn.Linear(*features), nn.ReLU()), torch.randn(batch, features[0]))
    # unguarded, a prime extent's thread factor is 1: 7 or 13 threads a block
    assert all(launch.block[0] >= 64 for k in compiled.kernels for launch in k.launches)


def matmul_graph(m: int, k: int, n: int) -> xtir.ModuleOp:
    return xtir.parse(f"""func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %c = tensor.matmul %a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32> -> tensor<{m}x{n}xf32>
  func.return %c : tensor<{m}x{n}xf32>
}}""")


@pytest.mark.parametrize(("m", "k", "n", "tiles"), [(37, 97, 53, "i 13x3 padded, j 9x6 padded, k 8 padded"),
                                                    (1, 997, 13, "i 1x1, j 13x1, k 8 padded"),
                                                    (67, 31, 128, "i 14x5 padded, j 16x8, k 8 padded")])
def test_a_matmul_no_tile_divides_is_padded_to_whole_tiles(m: int, k: int, n: int, tiles: str) -> None:
    """A prime k is tiled by 8 (was: by its largest divisor, 1), odd spatial sizes by full
    tiles: pad-einsum pads the loops, the padding zeros in the shared tiles. cuda-cpu with the
    race detector against float64 numpy."""
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
    compiled = compile_model(matmul_graph(m, k, n), target="cuda-cpu", racecheck=True)
    np.testing.assert_allclose(compiled(a, b), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    [choice] = compiled.schedule_report
    assert (choice.function, choice.block, choice.schedule, choice.detail) == ("matmul", "T_matmul", TILED, tiles)


def test_an_odd_linear_layer_keeps_its_epilogue_in_the_padded_write_back() -> None:
    torch.manual_seed(9)
    compiled = check_against_torch(nn.Sequential(nn.Linear(97, 53), nn.ReLU()), torch.randn(37, 97))
    [kernel] = compiled.kernels
    assert kernel.name == "fused_dense_add_relu" and len(kernel.launches) == 1
    [choice] = compiled.schedule_report
    assert choice.detail == "i 13x3 padded, j 9x6 padded, k 8 padded"


def test_a_loop_no_input_reads_is_padded_and_keeps_its_epilogue() -> None:
    """C[i, j] = sum(A[j, k] * B[j, k]) over i < 17: pad-einsum pads i (9 x 2) though no input is
    padded; the report says "padded" and relu(C) + 2 is inlined into the write-back (was:
    "guarded", the epilogue a kernel of its own)."""
    a_, b_ = te.placeholder((16, 96), "float32", "A"), te.placeholder((16, 96), "float32", "B")
    r = te.reduce_axis(96, "k")
    c = te.compute((17, 16), lambda i, j: te.sum(a_[j, r] * b_[j, r], axis=r), name="C")
    d = te.compute((17, 16), lambda i, j: te.max(c[i, j], te.const(0.0)) + 2.0, name="D")
    module = xtir.transform(xtir.ModuleOp([te.create_func([a_, b_, d], name="main")]), "legalize-tensor")
    report = schedule_report(module)
    assert [(c.block, c.schedule, c.detail) for c in report] == [("C", TILED, "i 9x2 padded, j 16x1, k 8")]
    rng = np.random.default_rng(13)
    a, b = rng.standard_normal((16, 96), dtype=np.float32), rng.standard_normal((16, 96), dtype=np.float32)
    got = np.full((17, 16), np.nan, np.float32)
    f = xtir.build(module, target="cuda-cpu", racecheck=True)
    f(a, b, got)
    assert len(f.launches) == 1
    row = (a.astype(np.float64) * b).sum(axis=1)
    np.testing.assert_allclose(got, np.broadcast_to(np.maximum(row, 0) + 2, (17, 16)), rtol=1e-4, atol=1e-4)


def test_an_f16_linear_layer_is_padded() -> None:
    """An f16 dense sums extf(x) * extf(w) in f32: pad-einsum takes a widened load (a widened zero
    is zero), so k and j are padded to whole tiles (was: refused, the last tiles guarded)."""
    torch.manual_seed(14)
    model, x = nn.Linear(97, 17).half().eval(), torch.randn(7, 97).half()
    compiled = compile_model(graph_of(model, x), target="cuda-cpu", racecheck=True)
    [choice] = compiled.schedule_report
    assert (choice.schedule, choice.detail) == (TILED, "i 7x1, j 9x2 padded, k 8 padded")
    got = compiled(x.numpy())
    w, bias = (p.detach().numpy().astype(np.float64) for p in (model.weight, model.bias))
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, x.numpy().astype(np.float64) @ w.T + bias, rtol=2e-3, atol=2e-3)


def test_a_convolution_pad_einsum_refuses_is_guarded_instead() -> None:
    """11 input channels: the reduce loop over them is split by 6 (two steps, the second
    guarded), as pad-einsum does not take a convolution's window."""
    torch.manual_seed(10)
    compiled = check_against_torch(nn.Sequential(nn.Conv2d(11, 5, 3), nn.ReLU()), torch.randn(1, 11, 9, 9))
    [choice] = [c for c in compiled.schedule_report if c.schedule == TILED]
    assert "rc 6 guarded" in choice.detail, choice


@pytest.mark.parametrize(("m", "k", "n"), [(128, 1024, 10), (97, 997, 17)])
def test_a_dense_to_few_outputs_tiles(m: int, k: int, n: int) -> None:
    """nn.Linear(k, n): its fewest tiles make the whole output one thread block of no power of two
    threads (10 x 16 = 160), the fetch of x guarded. lower-to-gpu sizes the shared tile of x per k
    step, as for an unguarded fetch (it was sized over all of k, over 48 KiB, and the next candidate,
    thread factors powers of two, was taken): tiled, no warning, a few KiB of shared memory."""
    torch.manual_seed(11)
    with warnings.catch_warnings():
        warnings.simplefilter("error", XtirWarning)
        compiled = check_against_torch(nn.Linear(k, n), torch.randn(m, k))
    [choice] = compiled.schedule_report
    assert choice.schedule == TILED, choice
    [kernel] = compiled.kernels
    launch = kernel.launches[0]
    threads = math.prod(launch.block)
    assert threads & (threads - 1) != 0, "the fewest tiles lower themselves"
    assert 0 < launch.shared_bytes <= 8192


FALLBACK = """func.func @two_denses(%x: memref<16x16xf32>, %w: memref<16x16xf32>, %h: memref<16x16xf32>,
                        %y: memref<128x16xf32>, %v: memref<128x16xf32>, %g: memref<128x128xf32>) {
  block.for %i = 0 to 16 "i" {
    block.for %j = 0 to 16 "j" {
      block.for %k = 0 to 16 "k" {
        block.block "small"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %h[%vi, %vj] : memref<16x16xf32>
          }
          %acc = block.load %h[%vi, %vj] : memref<16x16xf32>
          %a = block.load %x[%vi, %vk] : memref<16x16xf32>
          %b = block.load %w[%vj, %vk] : memref<16x16xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          block.store %s, %h[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
  }
  block.for %i = 0 to 128 "i" {
    block.for %j = 0 to 128 "j" {
      block.for %k = 0 to 16 "k" {
        block.block "wide"(%vi = spatial(128, %i), %vj = spatial(128, %j), %vk = reduce(16, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %g[%vi, %vj] : memref<128x128xf32>
          }
          %acc = block.load %g[%vi, %vj] : memref<128x128xf32>
          %a = block.load %y[%vi, %vk] : memref<128x16xf32>
          %b = block.load %v[%vj, %vk] : memref<128x16xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          block.store %s, %g[%vi, %vj] : memref<128x128xf32>
        }
      }
    }
  }
  func.return
}"""


def test_the_fallback_is_per_kernel_and_the_report_says_why() -> None:
    """Up to 4096 threads a block: "wide" (128 x 128) gets 64 x 64 threads with either candidate
    tiles, more than a block has, so it alone gets one thread per output, with a warning naming
    lower-to-gpu's reason; "small" (16 x 16 threads) keeps its tiled kernel, and the function
    built from both computes both."""
    module = xtir.parse(FALLBACK)
    with pytest.warns(XtirWarning, match='block "wide" of @two_denses gets one thread per output: its tiled kernel does '
                                         "not lower .*makes threadIdx.x 4096 threads wide"):
        report = {c.block: c for c in schedule_report(module, tiles=Tiles(threads=4096))}
    assert report["small"].schedule == TILED
    assert report["wide"].schedule == PER_OUTPUT and "4096 threads wide" in report["wide"].detail
    rng = np.random.default_rng(12)
    x, w, y, v = (rng.standard_normal(s, dtype=np.float32) for s in [(16, 16), (16, 16), (128, 16), (128, 16)])
    h, g = np.full((16, 16), np.nan, np.float32), np.full((128, 128), np.nan, np.float32)
    f = xtir.build(module, target="cuda-cpu", racecheck=True)
    f(x, w, h, y, v, g)
    np.testing.assert_allclose(h, x @ w.T, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(g, y @ v.T, rtol=1e-4, atol=1e-4)
    assert len(f.launches) == 2 and f.launches[0].shared_bytes > 0 == f.launches[1].shared_bytes


class Square(nn.Module):
    def forward(self, x):
        return x * x


class SelfMatmul(nn.Module):
    def forward(self, x):
        return torch.matmul(x, x)


class Add(nn.Module):
    def forward(self, x, y):
        return x + y


@pytest.mark.parametrize("model", [Square(), SelfMatmul()], ids=["x*x", "matmul(x,x)"])
def test_a_call_passing_one_buffer_twice_runs(model) -> None:
    """`x * x` calls @multiply(%x, %x, %out): the kernel is built with one parameter for both
    (a kernel refuses overlapping arguments)."""
    torch.manual_seed(5)
    compiled = check_against_torch(model, torch.randn(6, 6))
    assert len(compiled.kernels[0].signature.body.block.args) == 2


def test_the_same_array_as_two_inputs() -> None:
    """model(a, a) runs as the CPU model does (the GPU model copies the second input)."""
    a = np.random.default_rng(6).standard_normal((5, 7)).astype(np.float32)
    graph = xtir.transform(from_torch(Add().eval(), (torch.from_numpy(a), torch.from_numpy(a.copy()))), GRAPH_PASSES)
    on_gpu, on_cpu = compile_model(graph, target="cuda-cpu"), compile_model(graph)
    np.testing.assert_array_equal(on_gpu(a, a), a + a)
    np.testing.assert_array_equal(on_cpu(a, a), a + a)


def test_a_function_called_twice_is_built_once() -> None:
    torch.manual_seed(7)
    model = nn.Sequential(nn.Linear(9, 9), nn.ReLU(), nn.Linear(9, 9), nn.ReLU())
    compiled = check_against_torch(model, torch.randn(3, 9))
    assert [k.name for k in compiled.kernels] == ["fused_dense_add_relu"] * 2
    assert compiled.kernels[0] is compiled.kernels[1]


def test_the_constants_are_read_only() -> None:
    compiled = compile_model(graph_of(mlp(), torch.randn(1, 784)), target="cuda-cpu")
    assert compiled.constants and not any(a.flags.writeable for a in compiled.constants.values())


def test_a_cuda_cpu_model_says_it_takes_numpy() -> None:
    class DeviceArray:  # what a CuPy array shows the model: a shape and a dtype, not numpy
        shape, dtype = (1, 784), np.dtype(np.float32)

    compiled = compile_model(graph_of(mlp(), torch.randn(1, 784)), target="cuda-cpu")
    with pytest.raises(XtirError, match="input 0: target 'cuda-cpu' runs on the host and takes numpy arrays, got"):
        compiled(DeviceArray())


@pytest.mark.parametrize("function", ["matmul_then_total", "matmul_then_half_split"])
def test_a_refusal_after_a_tiled_reduction_names_the_scheduled_block(function: str) -> None:
    """The matmul is tiled on a copy of the schedule, which replaces it: the refused block is the
    one of that copy (its module has the matmul bound to threads), not of the module before."""
    from xtir.dialects.block import ForOp

    chunk = Path(__file__).parent / "filecheck/passes/default_gpu_schedule_invalid.mlir"
    text = next(c for c in chunk.read_text().split("// -----") if f"@{function}(" in c)
    with pytest.raises(XtirError) as refused:
        xtir.transform(xtir.parse(text), "default-gpu-schedule")
    scheduled = refused.value.op.get_toplevel_object()
    assert any(isinstance(op, ForOp) and op.kind == "thread_binding" for op in scheduled.walk())


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH: the models' CUDA C is not compiled")
def test_every_kernel_of_a_model_compiles_with_nvcc_without_warnings(tmp_path: Path) -> None:
    torch.manual_seed(4)
    models = [(mlp(), torch.randn(2, 784)), (SmallCNN(), torch.randn(1, 1, 28, 28)),
              (nn.Sequential(nn.Linear(37, 11), nn.Softmax(dim=-1)), torch.randn(5, 37)),
              (nn.Sequential(nn.Linear(97, 53), nn.ReLU()), torch.randn(37, 97)),  # padded to whole tiles
              (nn.Sequential(nn.Conv2d(11, 5, 3), nn.ReLU()), torch.randn(1, 11, 9, 9)),  # a guarded k tile
              (nn.Sequential(nn.Linear(784, 10), nn.ReLU(), nn.Linear(10, 10)), torch.randn(64, 784))]  # power-of-two threads
    failures = []
    for m, (model, example) in enumerate(models):
        for kernel in compile_model(graph_of(model, example), target="cuda-cpu", racecheck=False).kernels:
            path = tmp_path / f"{m}_{kernel.name}.cu"
            path.write_text(kernel.cuda_source)
            done = subprocess.run(["nvcc", "-arch=sm_90", "-Werror", "all-warnings", "-c", str(path), "-o", f"{path}.o"],
                                  capture_output=True, text=True, check=False)
            if done.returncode or done.stderr.strip():
                failures.append(f"{path.name}:\n{done.stdout}{done.stderr}")
    assert not failures, "\n".join(failures)


from tests.test_cuda import _gpu_available  # noqa: E402


@pytest.mark.skipif(_gpu_available() is None, reason="a GPU is usable here")
def test_target_cuda_without_a_gpu_says_so() -> None:
    with pytest.raises(XtirError, match="target 'cuda' (needs a CUDA GPU|runs kernels through CuPy)"):
        compile_model(graph_of(mlp(), torch.randn(1, 784)), target="cuda")


@pytest.mark.skipif(_gpu_available() is not None, reason=f"no GPU: {_gpu_available()}")
@pytest.mark.parametrize("batch", [1, 64])
def test_the_torch_mlp_runs_on_the_gpu(batch: int) -> None:
    """numpy in, numpy out; CuPy in, CuPy out (the intermediates and constants on the device)."""
    import cupy

    model, example = mlp().eval(), torch.randn(batch, 784)
    compiled = compile_model(graph_of(model, example), target="cuda")
    expected = model(example).detach().numpy()
    np.testing.assert_allclose(compiled(example.numpy()), expected, rtol=1e-4, atol=1e-4)
    on_device = compiled(cupy.asarray(example.numpy()))
    assert isinstance(on_device, cupy.ndarray)
    np.testing.assert_allclose(on_device.get(), expected, rtol=1e-4, atol=1e-4)


def test_a_model_input_of_the_wrong_shape_is_refused() -> None:
    compiled = compile_model(graph_of(mlp(), torch.randn(1, 784)), target="cuda-cpu")
    with pytest.raises(XtirError, match=r"input 0 must be a float32 array of shape \(1, 784\)"):
        compiled(np.zeros((2, 784), np.float32))


def test_racecheck_is_for_cuda_cpu() -> None:
    with pytest.raises(XtirError, match="racecheck=True is for target 'cuda-cpu'"):
        compile_model(graph_of(mlp(), torch.randn(1, 784)), racecheck=True)


def _ptx_tools():
    sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
    import gpu_default_ptx

    return gpu_default_ptx, gpu_default_ptx.tools()


@pytest.mark.skipif(isinstance(_ptx_tools()[1], str), reason="no nvcc, cuobjdump and nvdisasm: the SASS is not read")
def test_the_default_tiles_load_shared_memory_as_sparingly_as_the_hand_gemm(tmp_path: Path) -> None:
    """The evidence for the default tiles (benchmarks/gpu_default_ptx.py): on a padded 1000x997
    matmul, the main SASS loop does as many FFMAs per shared load as the hand GEMM's, without
    spilling."""
    ptx, (nvcc, cuobjdump) = _ptx_tools()
    from gemm_ptx import hand_gemm_source

    def ffma_per_lds(source: str, name: str) -> float:
        usage = ptx.ptxas(nvcc, source, "sm_90", tmp_path / f"{name}.cubin")
        assert usage.spill_stores == usage.spill_loads == 0
        loops = ptx.sass_loops(cuobjdump, tmp_path / f"{name}.cubin")
        return min(c["FFMA"] / c["LDS"] for c in loops)

    [(_, source, _, words)] = ptx.kernels("1000x997", ptx.TILES)
    assert "padded" in words
    assert ffma_per_lds(source, "default") >= ffma_per_lds(hand_gemm_source(1024), "hand")


@pytest.mark.skipif(isinstance(_ptx_tools()[1], str), reason="no nvcc, cuobjdump and nvdisasm: the SASS is not read")
def test_the_ptx_table_has_a_row_per_kernel_and_tile_choice(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    ptx, _ = _ptx_tools()
    monkeypatch.setattr(sys, "argv", ["gpu_default_ptx.py", "--cases", "1x13x997", "--local", "4", "8", "--no-hand"])
    ptx.main()
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 1x13x997 @matmul")]
    assert [row.split(" | ")[0] for row in rows] == ["| 1x13x997 @matmul (local 4, k 8)", "| 1x13x997 @matmul (local 8, k 8)"]
    assert all("k 8 padded" in row for row in rows)
