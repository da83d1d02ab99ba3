"""compute-inline and reverse-compute-inline keep the program's results (reference evaluator,
before and after, against numpy), and a refused inline leaves the module as it was."""

from collections.abc import Callable

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.passes import ModulePass

import xtir
from xtir.passes.compute_inline import ComputeInlinePass
from xtir.passes.reverse_compute_inline import ReverseComputeInlinePass

# B = A * 2 (an intermediate), C = relu(B + D): the chain both primitives apply to.
CHAIN = """
func.func @main(%A: memref<7x5xf32>, %D: memref<7x5xf32>, %C: memref<7x5xf32>) {
  %B = block.alloc : memref<7x5xf32>
  block.for %i = 0 to 7 "i" {
    block.for %j = 0 to 5 "j" {
      block.block "B"(%vi = spatial(7, %i), %vj = spatial(5, %j)) {
        %a = block.load %A[%vi, %vj] : memref<7x5xf32>
        %two = arith.constant 2.000000e+00 : f32
        %b = arith.mulf %a, %two : f32
        block.store %b, %B[%vi, %vj] : memref<7x5xf32>
      }
    }
  }
  block.for %ci = 0 to 7 "ci" {
    block.for %cj = 0 to 5 "cj" {
      block.block "C"(%vi = spatial(7, %ci), %vj = spatial(5, %cj)) {
        %b = block.load %B[%vi, %vj] : memref<7x5xf32>
        %d = block.load %D[%vi, %vj] : memref<7x5xf32>
        %s = arith.addf %b, %d : f32
        %zero = arith.constant 0.000000e+00 : f32
        %c = arith.maximumf %s, %zero : f32
        block.store %c, %C[%vi, %vj] : memref<7x5xf32>
      }
    }
  }
  func.return
}
"""


def chain_reference(a: np.ndarray, d: np.ndarray) -> np.ndarray:
    return np.maximum(a * 2 + d, 0)


# B = A * A over 9x5; C[vj, vi] = B[vi, vj] - B[vi + 1, vj + 1] over 8x4: transposed and
# shifted reads, so compute-inline makes two copies of B at different indices.
WINDOW = """
func.func @main(%A: memref<9x5xf32>, %C: memref<4x8xf32>) {
  %B = block.alloc : memref<9x5xf32>
  block.for %i = 0 to 9 "i" {
    block.for %j = 0 to 5 "j" {
      block.block "B"(%vi = spatial(9, %i), %vj = spatial(5, %j)) {
        %a = block.load %A[%vi, %vj] : memref<9x5xf32>
        %b = arith.mulf %a, %a : f32
        block.store %b, %B[%vi, %vj] : memref<9x5xf32>
      }
    }
  }
  block.for %cj = 0 to 4 "cj" {
    block.for %ci = 0 to 8 "ci" {
      block.block "C"(%vj = spatial(4, %cj), %vi = spatial(8, %ci)) {
        %b0 = block.load %B[%vi, %vj] : memref<9x5xf32>
        %b1 = block.load %B[%vi + 1, %vj + 1] : memref<9x5xf32>
        %c = arith.subf %b0, %b1 : f32
        block.store %c, %C[%vj, %vi] : memref<4x8xf32>
      }
    }
  }
  func.return
}
"""


def window_reference(a: np.ndarray) -> np.ndarray:
    b = a * a
    return (b[:8, :4] - b[1:, 1:]).T


# X[vj, vi, vk] = -A[vi, vj, vk] over 6x4x3, Y[vk, vn, vm] = X[vm, vn, vk] + E[vn] over
# 2x6x4: the consumer reads part of X (2 of 3 in k) through a permutation, in another loop order.
PERMUTED = """
func.func @main(%A: memref<6x4x3xf32>, %E: memref<6xf32>, %Y: memref<2x6x4xf32>) {
  %X = block.alloc : memref<4x6x3xf32>
  block.for %i = 0 to 6 "i" {
    block.for %j = 0 to 4 "j" {
      block.for %k = 0 to 3 "k" {
        block.block "X"(%vi = spatial(6, %i), %vj = spatial(4, %j), %vk = spatial(3, %k)) {
          %a = block.load %A[%vi, %vj, %vk] : memref<6x4x3xf32>
          %x = arith.negf %a : f32
          block.store %x, %X[%vj, %vi, %vk] : memref<4x6x3xf32>
        }
      }
    }
  }
  block.for %yk = 0 to 2 "yk" {
    block.for %yn = 0 to 6 "yn" {
      block.for %ym = 0 to 4 "ym" {
        block.block "Y"(%vk = spatial(2, %yk), %vn = spatial(6, %yn), %vm = spatial(4, %ym)) {
          %x = block.load %X[%vm, %vn, %vk] : memref<4x6x3xf32>
          %e = block.load %E[%vn] : memref<6xf32>
          %y = arith.addf %x, %e : f32
          block.store %y, %Y[%vk, %vn, %vm] : memref<2x6x4xf32>
        }
      }
    }
  }
  func.return
}
"""


def permuted_reference(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    return (-a[:, :, :2] + e[:, None, None]).transpose(2, 0, 1)


# B = A + A over 10 elements, C = B * B over the first 6: reverse-compute-inline must
# predicate the producer to C's domain (on top of a split's own predicate).
PARTIAL = """
func.func @main(%A: memref<10xf32>, %C: memref<6xf32>) {
  %B = block.alloc : memref<10xf32>
  block.for %i = 0 to 10 "i" {
    block.block "B"(%vi = spatial(10, %i)) {
      %a = block.load %A[%vi] : memref<10xf32>
      %b = arith.addf %a, %a : f32
      block.store %b, %B[%vi] : memref<10xf32>
    }
  }
  block.for %ci = 0 to 6 "ci" {
    block.block "C"(%vi = spatial(6, %ci)) {
      %b = block.load %B[%vi] : memref<10xf32>
      %c = arith.mulf %b, %b : f32
      block.store %c, %C[%vi] : memref<6xf32>
    }
  }
  func.return
}
"""


def partial_reference(a: np.ndarray) -> np.ndarray:
    return (a[:6] * 2) ** 2


Case = tuple[str, list[tuple[int, ...]], tuple[int, ...], Callable[..., np.ndarray], str]
"""program, input shapes, output shape, numpy reference, pipeline"""

CASES: dict[str, Case] = {
    "inline_chain": (CHAIN, [(7, 5), (7, 5)], (7, 5), chain_reference, "compute-inline{block=B}"),
    "inline_after_split_and_reorder": (
        CHAIN,
        [(7, 5), (7, 5)],
        (7, 5),
        chain_reference,
        "split{loop=ci factors=-1,3},reorder{loops=j,i},compute-inline{block=B}",
    ),
    "reverse_inline_chain": (CHAIN, [(7, 5), (7, 5)], (7, 5), chain_reference, "reverse-compute-inline{block=C}"),
    "reverse_inline_after_split": (
        CHAIN,
        [(7, 5), (7, 5)],
        (7, 5),
        chain_reference,
        "split{loop=i factors=-1,2},reverse-compute-inline{block=C},fuse{loops=i_1,j}",
    ),
    "inline_window": (WINDOW, [(9, 5)], (4, 8), window_reference, "compute-inline{block=B}"),
    "inline_permuted": (PERMUTED, [(6, 4, 3), (6,)], (2, 6, 4), permuted_reference, "compute-inline{block=X}"),
    "reverse_inline_permuted": (
        PERMUTED,
        [(6, 4, 3), (6,)],
        (2, 6, 4),
        permuted_reference,
        "reverse-compute-inline{block=Y}",
    ),
    "reverse_inline_partial": (PARTIAL, [(10,)], (6,), partial_reference, "reverse-compute-inline{block=C}"),
    "reverse_inline_partial_split": (
        PARTIAL,
        [(10,)],
        (6,),
        partial_reference,
        "split{loop=i factors=-1,4},reverse-compute-inline{block=C}",
    ),
    "inline_partial": (PARTIAL, [(10,)], (6,), partial_reference, "compute-inline{block=B}"),
}


def run(module, inputs: list[np.ndarray], output_shape: tuple[int, ...]) -> np.ndarray:
    out = np.full(output_shape, np.nan, dtype=np.float32)
    xtir.evaluate(module, *inputs, out)
    return out


@pytest.mark.parametrize("name", CASES)
def test_inline_keeps_results(name: str) -> None:
    text, input_shapes, output_shape, reference, pipeline = CASES[name]
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(shape, dtype=np.float32) for shape in input_shapes]
    module = xtir.parse(text)
    before = run(module, inputs, output_shape)
    np.testing.assert_allclose(before, reference(*inputs), rtol=1e-6, atol=1e-6)
    after = run(xtir.transform(module, pipeline), inputs, output_shape)
    np.testing.assert_allclose(after, before, rtol=1e-6, atol=1e-6)


def test_inline_removes_intermediate() -> None:
    text = str(xtir.transform(xtir.parse(CHAIN), "compute-inline{block=B}"))
    assert "block.alloc" not in text and '"B"' not in text


# B and C each alone in an outer block: both primitives pass every check but the last
# (removing the only block of a scope), so a refusal there must leave no trace.
LONE_BLOCKS = """
func.func @main(%A: memref<4xf32>, %C: memref<4xf32>) {
  %B = block.alloc : memref<4xf32>
  block.block "B_outer"() {
    block.for %i = 0 to 4 "i" {
      block.block "B"(%vi = spatial(4, %i)) {
        %a = block.load %A[%vi] : memref<4xf32>
        block.store %a, %B[%vi] : memref<4xf32>
      }
    }
  }
  block.block "C_outer"() {
    block.for %i = 0 to 4 "i" {
      block.block "C"(%vi = spatial(4, %i)) {
        %b = block.load %B[%vi] : memref<4xf32>
        block.store %b, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}
"""


@pytest.mark.parametrize(
    ("schedule_pass", "message"),
    [
        (ComputeInlinePass(block="B"), 'block "B" is the only block in the scope of block "B_outer"'),
        (ReverseComputeInlinePass(block="C"), 'block "C" is the only block in the scope of block "C_outer"'),
    ],
)
def test_refusal_leaves_module_untouched(schedule_pass: ModulePass, message: str) -> None:
    module = xtir.parse(LONE_BLOCKS)
    text = str(module)
    with pytest.raises(xtir.XtirPassError, match=message):
        schedule_pass.apply(Context(), module)
    assert str(module) == text
