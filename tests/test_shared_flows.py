"""Data passed between threads through a shared buffer inside one body of a loop bound to them (IR
bound by hand, or changed after bind checked it): lower-to-gpu refuses it (lowering/thread_races.py,
check_shared_flows), where it used to build kernels whose numbers differ from the loop run serially
(xtir.evaluate); the neighbours it keeps (a flow between two loops bound to the thread, ordered by a
barrier; a thread's own elements; a fetch bound again inside; a store run once for the virtual
threads, then read) still build and match."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import xtir
import xtir.lowering.to_gpu as to_gpu

REFUSED = Path(__file__).resolve().parent / "filecheck/lowering/to_gpu_shared_flow_invalid.mlir"


def _refused_cases() -> dict[str, str]:
    """The functions of the lit test of the refusals, by name."""
    cases = {}
    for text in REFUSED.read_text().split("// -----"):
        name = re.search(r"func\.func @(\w+)", text)
        assert name is not None
        cases[name.group(1)] = text
    return cases


CASES = _refused_cases()


def _inputs(module: xtir.ModuleOp, func: str) -> list[np.ndarray]:
    f = next(op for op in module.walk() if op.name == "func.func" and op.sym_name.data == func)
    rng = np.random.default_rng(0)
    return [rng.integers(1, 9, a.type.get_shape()).astype(np.float32) for a in f.body.block.args]


def _evaluated_and_built(text: str, func: str = "main") -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The arrays after the serial evaluator, and after the build on cuda-cpu."""
    arrays = _inputs(xtir.parse(text), func)
    expected, actual = [a.copy() for a in arrays], [a.copy() for a in arrays]
    xtir.evaluate(xtir.parse(text), *expected, func=func)
    xtir.build(xtir.parse(text), target="cuda-cpu", entry=func, racecheck=True)(*actual)
    return expected, actual


@pytest.mark.parametrize("name", CASES)
def test_a_flow_in_one_body_is_refused(name: str) -> None:
    with pytest.raises(xtir.XtirError, match="shared buffer X .* in one body of loop"):
        xtir.build(xtir.parse(CASES[name]), target="cuda-cpu", entry=name)


@pytest.mark.parametrize("name", CASES)
def test_a_flow_in_one_body_computed_wrong_numbers_unchecked(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the refusal prevents: built without the check, the kernel's numbers are not those of
    the loop run serially (the race detector, off here, would see some of them; not those between
    the virtual threads of a thread, which run in one emulated thread)."""
    monkeypatch.setattr(to_gpu, "check_shared_flows", lambda *args: None)
    arrays = _inputs(xtir.parse(CASES[name]), name)
    expected, actual = [a.copy() for a in arrays], [a.copy() for a in arrays]
    xtir.evaluate(xtir.parse(CASES[name]), *expected, func=name)
    xtir.build(xtir.parse(CASES[name]), target="cuda-cpu", entry=name)(*actual)
    assert not all(np.array_equal(got, want) for got, want in zip(actual, expected))


FETCH_THEN_READ_IN_K = """func.func @main(%A: memref<4x8xf32>, %H: memref<4x8xf32>) {
  %X = block.alloc : memref<8xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %k = 0 to 4 "k" {
      block.for %f = 0 to 8 "f" bind("threadIdx.x") {
        block.block "F"(%vk = spatial(4, %k), %vf = spatial(8, %f)) {
          %a = block.load %A[%vk, %vf] : memref<4x8xf32>
          block.store %a, %X[%vf] : memref<8xf32, "shared">
        }
      }
      block.for %t = 0 to 8 "t" bind("threadIdx.x") {
        block.block "R"(%vk = spatial(4, %k), %vt = spatial(8, %t)) {
          %x = block.load %X[7 - %vt] : memref<8xf32, "shared">
          %y = block.load %X[(%vt + 1) mod 8] : memref<8xf32, "shared">
          %s = arith.addf %x, %y : f32
          block.store %s, %H[%vk, %vt] : memref<4x8xf32>
        }
      }
    }
  }
  func.return
}"""
"""A fetch loop, then a loop reading other threads' elements, then the next k overwriting them:
two loops bound to threadIdx.x, ordered by barriers (before the reads, at the top of k)."""

OWN_ELEMENTS_IN_ONE_BODY = """func.func @main(%A: memref<8xf32>, %H: memref<8xf32>) {
  %X = block.alloc : memref<8xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 8 "t" bind("threadIdx.x") {
      block.block "F"(%vt = spatial(8, %t)) {
        %a = block.load %A[%vt] : memref<8xf32>
        block.store %a, %X[%vt] : memref<8xf32, "shared">
      }
      block.block "R"(%vt = spatial(8, %t)) {
        %x = block.load %X[%vt] : memref<8xf32, "shared">
        %s = arith.addf %x, %x : f32
        block.store %s, %X[%vt] : memref<8xf32, "shared">
      }
    }
    block.for %t = 0 to 8 "t" bind("threadIdx.x") {
      block.block "H"(%vt = spatial(8, %t)) {
        %x = block.load %X[7 - %vt] : memref<8xf32, "shared">
        block.store %x, %H[%vt] : memref<8xf32>
      }
    }
  }
  func.return
}"""
"""Each thread stores, reads and stores again its own element in one body, then another loop
bound to the thread reads the others'."""

FETCH_BOUND_AGAIN = """func.func @main(%A: memref<4x16xf32>, %B: memref<4x16xf32>) {
  %S = block.alloc : memref<16xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %t = 0 to 16 "t" bind("threadIdx.x") {
      block.for %o = 0 to 4 "o" {
        block.for %t2 = 0 to 16 "t2" bind("threadIdx.x") {
          block.block "S"(%vo = spatial(4, %o), %v = spatial(16, %t2)) {
            %a = block.load %A[%vo, %v] : memref<4x16xf32>
            block.store %a, %S[%v] : memref<16xf32, "shared">
          }
        }
        block.block "B"(%vo = spatial(4, %o), %v = spatial(16, %t)) {
          %s = block.load %S[15 - %v] : memref<16xf32, "shared">
          block.store %s, %B[%vo, %v] : memref<4x16xf32>
        }
      }
    }
  }
  func.return
}"""
"""A fetch loop bound to threadIdx.x again inside the loop bound to it that reads the tile: every
thread's run of the fetch stores the same tile, one store per thread on the GPU, a barrier after."""

ONCE_THEN_READ = """func.func @main(%A: memref<4xf32>, %H: memref<8xf32>) {
  %X = block.alloc : memref<4xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.block "F"(%vt = spatial(4, %t)) {
          %a = block.load %A[%vt] : memref<4xf32>
          block.store %a, %X[%vt] : memref<4xf32, "shared">
        }
      }
      block.for %t2 = 0 to 4 "t2" bind("threadIdx.x") {
        block.block "R"(%vt = spatial(4, %t2), %vu = spatial(2, %u)) {
          %x = block.load %X[3 - %vt] : memref<4xf32, "shared">
          %y = block.load %A[%vt] : memref<4xf32>
          %s = arith.addf %x, %y : f32
          block.store %s, %H[%vt * 2 + %vu] : memref<8xf32>
        }
      }
    }
  }
  func.return
}"""
"""A fetch that does not use the virtual thread (run once for both), then reads by every virtual
thread: the store is before the load in each virtual thread's run."""


ONCE_PER_K_THEN_READ = """func.func @main(%A: memref<4x4xf32>, %H: memref<2x4x4xf32>, %G: memref<2x4xf32>) {
  %X = block.alloc : memref<4x4xf32, "shared">
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.for %k = 0 to 4 "k" {
          block.for %f = 0 to 4 "f" bind("threadIdx.x") {
            block.block "F"(%vf = spatial(4, %f), %vk = spatial(4, %k)) {
              %a = block.load %A[%vf, %vk] : memref<4x4xf32>
              block.store %a, %X[%vf, %vk] : memref<4x4xf32, "shared">
            }
          }
          block.block "R"(%vu = spatial(2, %u), %vt = spatial(4, %t), %vk = spatial(4, %k)) {
            %x = block.load %X[3 - %vt, %vk] : memref<4x4xf32, "shared">
            block.store %x, %H[%vu, %vt, %vk] : memref<2x4x4xf32>
          }
        }
        block.block "G"(%vu = spatial(2, %u), %vt = spatial(4, %t)) {
          %x = block.load %X[%vt, 3] : memref<4x4xf32, "shared">
          block.store %x, %G[%vu, %vt] : memref<2x4xf32>
        }
      }
    }
  }
  func.return
}"""
"""A fetch without the virtual thread (run once for both) of column k at each k, read at the same k
after it, and the last column after the k loop: the store and the first load meet in one k only
(the fuzzer's matmul_bt, drawn seed 4: a shared tile sized over the kernel, its fetch cut by an
edge; refused at first)."""


@pytest.mark.parametrize(
    "text",
    [FETCH_THEN_READ_IN_K, OWN_ELEMENTS_IN_ONE_BODY, FETCH_BOUND_AGAIN, ONCE_THEN_READ, ONCE_PER_K_THEN_READ],
    ids=["fetch_then_read_in_k", "own_elements", "fetch_bound_again", "once_then_read", "once_per_k_then_read"],
)
def test_flows_barriers_order_build_and_match(text: str) -> None:
    expected, actual = _evaluated_and_built(text)
    for got, want in zip(actual, expected):
        np.testing.assert_array_equal(got, want)
