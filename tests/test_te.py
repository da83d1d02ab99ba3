"""xtir.te: what create_func prints (matmul, relu, a padding), that it is the hand-written
examples/matmul.mlir, numbers through the reference evaluator and the JIT, and the
builder's refusals (each an XtirError naming the stage)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir import te

ROOT = Path(__file__).resolve().parent.parent


def module(args: list[te.Tensor], name: str = "main") -> ModuleOp:
    return ModuleOp([te.create_func(args, name=name)])


def matmul(n: int, name: str = "matmul") -> list[te.Tensor]:
    a = te.placeholder((n, n), "float32", "A")
    b = te.placeholder((n, n), "float32", "B")
    k = te.reduce_axis(n, "k")
    return [a, b, te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[j, k], axis=k), name=name)]


MATMUL_TEXT = """\
builtin.module {
  func.func @main(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
    block.for %i = 0 to 8 "i" {
      block.for %j = 0 to 8 "j" {
        block.for %k = 0 to 8 "k" {
          block.block "C"(%vi = spatial(8, %i), %vj = spatial(8, %j), %vk = reduce(8, %k)) {
            block.init {
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : memref<8x8xf32>
            }
            %c = block.load %C[%vi, %vj] : memref<8x8xf32>
            %a = block.load %A[%vi, %vk] : memref<8x8xf32>
            %b = block.load %B[%vj, %vk] : memref<8x8xf32>
            %0 = arith.mulf %a, %b : f32
            %1 = arith.addf %c, %0 : f32
            block.store %1, %C[%vi, %vj] : memref<8x8xf32>
          }
        }
      }
    }
    func.return
  }
}"""


def test_matmul_prints_like_the_hand_written_example():
    assert str(module(matmul(8, "C"))) == MATMUL_TEXT


def test_matmul_is_examples_matmul():
    """Up to SSA names, the builder's matmul is the hand-written example (block "matmul")."""
    example = xtir.parse_file(ROOT / "examples" / "matmul.mlir")
    built = module(matmul(1024))
    assert built.is_structurally_equivalent(example)


RELU_TEXT = """\
builtin.module {
  func.func @relu(%X: memref<4x16xf32>, %Y: memref<4x16xf32>) {
    block.for %i = 0 to 4 "i" {
      block.for %j = 0 to 16 "j" {
        block.block "Y"(%vi = spatial(4, %i), %vj = spatial(16, %j)) {
          %x = block.load %X[%vi, %vj] : memref<4x16xf32>
          %0 = arith.constant 0.000000e+00 : f32
          %1 = arith.maximumf %x, %0 : f32
          block.store %1, %Y[%vi, %vj] : memref<4x16xf32>
        }
      }
    }
    func.return
  }
}"""


def test_relu_prints():
    x = te.placeholder((4, 16), "float32", "X")
    y = te.compute((4, 16), lambda i, j: te.max(x[i, j], 0.0), name="Y")
    assert str(module([x, y], "relu")) == RELU_TEXT


def test_intermediate_stage_is_an_allocated_buffer_and_names_are_made_unique():
    x = te.placeholder((8,), "float32", "x")
    t = te.compute((8,), lambda i: x[i] * 2.0, name="T")
    u = te.compute((8,), lambda i: t[i] + 1.0, name="T")
    text = str(module([x, u]))
    assert "%T_1 = block.alloc : memref<8xf32>" in text
    assert 'block.block "T"(' in text and 'block.block "T_1"(' in text


def test_padding_is_guarded_by_index_conditions():
    """A padding reads its input under scf.if on `e < c` conditions of the indices, which
    lower-blocks reads as facts: the build shows the guarded load in bounds."""
    x = te.placeholder((6,), "float32", "x")
    p = te.compute((8,), lambda i: te.if_then_else(te.all(i >= 1, i < 7), x[i - 1], 0.0), name="pad")
    m = module([x, p])
    text = str(m)
    assert re.search(r"arith.cmpi slt, %\d+, %\d+ : index", text) and "scf.if" in text
    a = np.arange(6, dtype=np.float32) + 1
    out = np.zeros(8, np.float32)
    xtir.build(m)(a, out)
    np.testing.assert_array_equal(out, np.pad(a, 1))


def test_if_then_else_with_safe_branches_is_a_select():
    x = te.placeholder((8,), "float32", "x")
    y = te.compute((8,), lambda i: te.if_then_else(x[i] > 0.0, x[i], x[i] * 0.1), name="leaky")
    text = str(module([x, y]))
    assert "arith.select" in text and "scf.if" not in text
    assert text.count("block.load") == 1  # x[i] is loaded once


def run_both(m: ModuleOp, *arrays: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    evaluated = [a.copy() for a in arrays]
    xtir.evaluate(m, *evaluated)
    compiled = [a.copy() for a in arrays]
    xtir.build(m)(*compiled)
    return evaluated, compiled


def check(m: ModuleOp, expected: np.ndarray, *inputs: np.ndarray, rtol: float = 1e-5) -> None:
    out = np.zeros(expected.shape, expected.dtype)
    evaluated, compiled = run_both(m, *inputs, out)
    np.testing.assert_allclose(evaluated[-1], expected, rtol=rtol, atol=1e-5)
    np.testing.assert_allclose(compiled[-1], expected, rtol=rtol, atol=1e-5)


RNG = np.random.default_rng(0)


def test_matmul_numbers():
    a, b = RNG.standard_normal((2, 8, 8), dtype=np.float32)
    check(module(matmul(8)), a @ b.T, a, b)


def test_reduction_over_a_range_and_two_axes():
    x = te.placeholder((4, 10), "float32", "x")
    k = te.reduce_axis((2, 7), "k")
    m1 = te.reduce_axis(4, "m")
    y = te.compute((4,), lambda i: te.sum(x[i, k] * x[m1, k], axis=[k, m1]), name="y")
    a = RNG.standard_normal((4, 10), dtype=np.float32)
    check(module([x, y]), np.einsum("ik,mk->i", a[:, 2:7], a[:, 2:7]), a)


@pytest.mark.parametrize("combiner, reference", [(te.max, np.max), (te.min, np.min)])
def test_max_min_reductions(combiner, reference):
    x = te.placeholder((5, 7), "float32", "x")
    k = te.reduce_axis(7, "k")
    y = te.compute((5,), lambda i: combiner(x[i, k], axis=k), name="y")
    a = RNG.standard_normal((5, 7), dtype=np.float32)
    check(module([x, y]), reference(a, axis=1), a)


def test_integer_max_reduction_starts_at_the_smallest_integer():
    x = te.placeholder((3, 4), "int32", "x")
    k = te.reduce_axis(4, "k")
    y = te.compute((3,), lambda i: te.max(x[i, k], axis=k), name="y")
    a = -np.arange(12, dtype=np.int32).reshape(3, 4) - 5
    check(module([x, y]), a.max(axis=1), a)


def test_elementwise_math_casts_and_index_values():
    x = te.placeholder((6,), "float32", "x")
    y = te.compute((6,), lambda i: te.exp(x[i]) / (1.0 + te.sqrt(te.abs(x[i]))) + te.cast(i * 2, "float32")
                   - te.tanh(te.cast(te.cast(x[i], "int32"), "float32")), name="y")
    a = RNG.standard_normal(6).astype(np.float32)
    expected = np.exp(a) / (1 + np.sqrt(np.abs(a))) + 2 * np.arange(6) - np.tanh(a.astype(np.int32))
    check(module([x, y]), expected.astype(np.float32), a)


def test_bool_tensors_hold_conditions():
    """A compute of a comparison stores i1 (numpy bool); a bool placeholder is a condition."""
    x = te.placeholder((6,), "float32", "x")
    positive = te.compute((6,), lambda i: x[i] > 0.0, name="positive")
    c = te.placeholder((6,), "bool", "c")
    y = te.compute((6,), lambda i: te.if_then_else(c[i], x[i], -x[i]), name="y")
    assert "memref<6xi1>" in str(module([x, positive]))
    a = RNG.standard_normal(6).astype(np.float32)
    check(module([x, positive]), a > 0, a)
    check(module([x, c, y]), np.where(a > 0.5, a, -a), a, a > 0.5)


def test_conditions_compare_by_equality_only():
    """== / != of conditions is cmpi eq / ne on i1; ordered, true (-1 as a signed i1) < false."""
    x = te.placeholder((6,), "float32", "x")
    c = te.placeholder((6,), "bool", "c")
    same = te.compute((6,), lambda i: (x[i] > 0.0) == c[i], name="same")
    differ = te.compute((6,), lambda i: (x[i] > 0.0) != c[i], name="differ")
    a = RNG.standard_normal(6).astype(np.float32)
    b = RNG.standard_normal(6) > 0
    check(module([x, c, same]), (a > 0) == b, a, b)
    check(module([x, c, differ]), (a > 0) != b, a, b)
    with pytest.raises(xtir.XtirError, match=r"'<' between conditions \(c\[i\], x\[i\] > 0.0\); only == and != compare"):
        te.compute((6,), lambda i: c[i] < (x[i] > 0.0), name="less")


def test_floor_division_and_modulo_of_indices():
    x = te.placeholder((12,), "float32", "x")
    y = te.compute((3, 4), lambda i, j: x[(i * 4 + j) % 12] + te.cast((i * 4 + j) // 5, "float32"), name="y")
    a = RNG.standard_normal(12).astype(np.float32)
    expected = a.reshape(3, 4) + (np.arange(12) // 5).reshape(3, 4)
    check(module([x, y]), expected.astype(np.float32), a)


def test_inline_substitutes_an_elementwise_stage():
    x = te.placeholder((4, 4), "float32", "x")
    t = te.compute((4, 4), lambda i, j: x[j, i] * 2.0, name="t")
    y = te.compute((4, 4), lambda i, j: t[i, j] + 1.0, name="y")
    (inlined,) = te.inline([y], [t])
    m = module([x, inlined])
    assert 'block.block "t"' not in str(m) and "block.alloc" not in str(m)
    a = RNG.standard_normal((4, 4), dtype=np.float32)
    check(m, a.T * 2 + 1, a)


def test_inline_refuses_a_reduction():
    args = matmul(4)
    with pytest.raises(xtir.XtirError, match=r'te.inline: "matmul" is a reduction'):
        te.inline([args[2]], [args[2]])


# Misuse: an XtirError naming the stage -----------------------------------------------------


def refuses(pattern: str, build) -> None:  # noqa: ANN001 - a function making the misuse
    with pytest.raises(xtir.XtirError, match=pattern):
        build()


A = te.placeholder((4, 4), "float32", "A")


def test_index_count():
    refuses(r'te.compute "C": A has 2 dimensions \(4x4\), indexed with 1 indices',
            lambda: te.compute((4,), lambda i: A[i], name="C"))


def test_lambda_arity():
    refuses(r'te.compute "C": the shape has 2 dimensions but the function takes 1 arguments \(i\)',
            lambda: te.compute((4, 4), lambda i: A[i, i], name="C"))


def test_float_index():
    refuses(r'te.compute "C": index 0 of A is the float32 expression A\[i, i\]; indices are integers',
            lambda: te.compute((4,), lambda i: A[A[i, i], i], name="C"))


def test_data_dependent_index():
    idx = te.placeholder((4,), "int32", "idx")
    refuses(r'te.compute "C": index 0 of A reads a tensor \(idx\[i\]\)',
            lambda: te.compute((4,), lambda i: A[idx[i], i], name="C"))


def test_out_of_bounds_read():
    refuses(r'te.compute "C": A\[i \+ 1, i\] reads index 0 over \[1, 4\], outside A\'s dimension 0 of size 4',
            lambda: te.compute((4,), lambda i: A[i + 1, i], name="C"))


def test_unbound_reduce_axis():
    k = te.reduce_axis(4, "k")
    refuses(r'te.compute "C": the reduce axis k is used but not reduced over',
            lambda: te.compute((4,), lambda i: A[i, k], name="C"))


def test_axis_of_another_stage():
    first = {}
    te.compute((4,), lambda i: (first.update(i=i), A[i, i])[1], name="B")
    refuses(r'te.compute "C": the axis i belongs to another compute',
            lambda: te.compute((4,), lambda j: A[first["i"], j], name="C"))


def test_reduction_inside_an_expression():
    k = te.reduce_axis(4, "k")
    refuses(r'te.compute "C": the reduction sum\(A\[i, k\], axis=\[k\]\) is part of a larger expression',
            lambda: te.compute((4,), lambda i: te.sum(A[i, k], axis=k) + 1.0, name="C"))


def test_reduction_of_conditions():
    k = te.reduce_axis(4, "k")
    refuses(r'te.compute "C": the reduction sum\(A\[i, k\] > 0.0, axis=\[k\]\) is over conditions',
            lambda: te.compute((4,), lambda i: te.sum(A[i, k] > 0.0, axis=k), name="C"))


def test_mixed_types():
    refuses(r'te.compute "C": \'\+\': operands of types float32 and index',
            lambda: te.compute((4,), lambda i: A[i, i] + i, name="C"))


def test_float_literal_with_an_index():
    refuses(r"te.compute \"C\": '\*': the float 0.5 meets the index expression i",
            lambda: te.compute((4,), lambda i: A[i * 0.5, i], name="C"))


def test_non_affine_index():
    y = te.compute((4,), lambda i: A[(i * i) % 4, i], name="C")
    refuses(r'te.compute "C": the index i \* i is not affine', lambda: te.create_func([A, y]))


def test_expressions_have_no_truth_value():
    refuses(r"te.compute \"C\": the expression A\[i, i\] > 0.0 has no truth value",
            lambda: te.compute((4,), lambda i: A[i, i] if A[i, i] > 0.0 else 0.0, name="C"))


def test_bad_shape():
    refuses(r'te.compute "C": te.compute: the shape must be a tuple of positive integers, got \(4, 0\)',
            lambda: te.compute((4, 0), lambda i, j: A[i, j], name="C"))


def test_placeholder_missing_from_the_arguments():
    y = te.compute((4,), lambda i: A[i, i], name="C")
    refuses(r'te.compute "C": reads the placeholder A, which is not among the arguments', lambda: te.create_func([y]))


def test_no_output():
    refuses(r"te.create_func: no computed tensor among the arguments", lambda: te.create_func([A]))
