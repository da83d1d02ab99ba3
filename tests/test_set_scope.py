"""set-scope (TVM's set_scope) against numpy: the transpose of passes/set_scope.mlir on the CPU in
each scope, the Schedule method, and the matmul + ReLU whose intermediate C, computed under the
thread loops, is per thread ("local") or per thread block ("shared") through the cuda-cpu emulation
with the race detector; left in global memory, lower-to-gpu names the real problem."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xtir
from xtir.schedule import Schedule

LIT = Path(__file__).resolve().parent / "filecheck"

MATMUL_RELU = """
builtin.module {
  func.func @main(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %D: memref<64x64xf32>) {
    %C = block.alloc : memref<64x64xf32>
    block.for %i = 0 to 64 "i" {
      block.for %j = 0 to 64 "j" {
        block.for %k = 0 to 64 "k" {
          block.block "C"(%vi = spatial(64, %i), %vj = spatial(64, %j), %vk = reduce(64, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<64x64xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<64x64xf32>
            %a = block.load %A[%vi, %vk] : memref<64x64xf32>
            %b = block.load %B[%vk, %vj] : memref<64x64xf32>
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : memref<64x64xf32>
          }
        }
      }
    }
    block.for %i2 = 0 to 64 "i2" {
      block.for %j2 = 0 to 64 "j2" {
        block.block "D"(%vi = spatial(64, %i2), %vj = spatial(64, %j2)) {
          %c = block.load %C[%vi, %vj] : memref<64x64xf32>
          %zero = arith.constant 0.000000e+00 : f32
          %r = arith.maximumf %c, %zero : f32
          block.store %r, %D[%vi, %vj] : memref<64x64xf32>
        }
      }
    }
    func.return
  }
}
"""


def _transpose() -> xtir.ModuleOp:
    text = (LIT / "passes/set_scope.mlir").read_text()
    return xtir.parse(text[text.index("\nbuiltin.module") + 1 :])


@pytest.mark.parametrize("scope", [None, "local", "shared", "global.A_reg"])
def test_transpose_through_the_intermediate_on_the_cpu(scope: str | None) -> None:
    module = _transpose()
    if scope is not None:
        module = xtir.transform(module, f'set-scope{{block=B index=0 scope="{scope}"}}')
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    c = np.full_like(a, np.nan)
    xtir.build(module)(a, c)
    np.testing.assert_array_equal(c, a.T)


def test_schedule_method_mirrors_tvm() -> None:
    """`set_scope(block, buffer_index, storage_scope)`, the buffer by index or name; the refusals
    raise XtirPassError naming the pass."""
    sch = Schedule(_transpose())
    sch.set_scope(sch.get_block("B"), 0, "local")
    assert sch.mod.is_structurally_equivalent(xtir.transform(_transpose(), 'set-scope{block=B index=0 scope="local"}'))
    by_name = Schedule(_transpose())
    by_name.set_scope(by_name.get_block("B"), "B", "local")
    assert by_name.mod.is_structurally_equivalent(sch.mod)
    with pytest.raises(xtir.XtirPassError, match=r'set-scope: .*the storage scope "test_scope" is invalid'):
        sch.set_scope(sch.get_block("B"), 0, "test_scope")
    with pytest.raises(xtir.XtirPassError, match=r'C, written by block "C", is not allocated in the function'):
        sch.set_scope(sch.get_block("C"), 0, "local")


def _matmul_relu_per_thread(scope: str | None) -> xtir.ModuleOp:
    """The matmul's i and j split into blocks and threads of 8, the ReLU computed under the thread
    loops (reverse-compute-at), C given `scope` (None: left global)."""
    sch = Schedule(xtir.parse(MATMUL_RELU))
    i, j, k = sch.get_loops(sch.get_block("C"))
    i0, i1 = sch.split(i, [None, 8])
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(i0, j0, i1, j1, k)
    for loop, tag in ((i0, "blockIdx.x"), (j0, "blockIdx.y"), (i1, "threadIdx.x"), (j1, "threadIdx.y")):
        sch.bind(loop, tag)
    sch.reverse_compute_at(sch.get_block("D"), j1)
    if scope is not None:
        sch.set_scope(sch.get_block("C"), 0, scope)
    return sch.mod


@pytest.mark.parametrize("scope", ["local", "shared"])
def test_matmul_relu_intermediate_under_the_thread_loops(scope: str) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((64, 64), dtype=np.float32), rng.standard_normal((64, 64), dtype=np.float32)
    d = np.full((64, 64), np.nan, np.float32)
    xtir.build(_matmul_relu_per_thread(scope), target="cuda-cpu", racecheck=True)(a, b, d)
    np.testing.assert_allclose(d, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


def test_global_intermediate_is_refused_as_what_it_is() -> None:
    """Not "a reduction over i_0 bound to blockIdx.x": the reduction is over the serial k."""
    with pytest.raises(xtir.XtirError, match=r"C is a global intermediate written by every thread .*set-scope") as caught:
        xtir.build(_matmul_relu_per_thread(None), target="cuda-cpu")
    assert "reduces over" not in str(caught.value)


def test_double_buffered_tile_stays_shared() -> None:
    """lower-to-gpu doubles shared tiles only: a double-buffered tile keeps its scope."""
    text = (LIT / "passes/double_buffer.mlir").read_text()
    module = xtir.transform(xtir.parse(text[text.index("\nbuiltin.module") + 1 :]), "double-buffer{block=A_shared}")
    with pytest.raises(xtir.XtirPassError, match=r'A_shared is double-buffered; .* not to scope "local"'):
        xtir.transform(module, 'set-scope{block=A_shared index=0 scope="local"}')
    shared = xtir.transform(module, 'set-scope{block=A_shared index=0 scope="shared"}')
    assert shared.is_structurally_equivalent(module)
