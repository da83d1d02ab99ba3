"""Numerics of the graph-level tensor ops in the reference evaluator, against references
written independently of it (explicit loops for the windowed ops), and their Python
constructors' shape inference."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

import xtir
from xtir.dialects import tensor

RNG = np.random.default_rng(0)


def run(op_text: str, *arrays: np.ndarray) -> np.ndarray:
    """Evaluate one op, written with operands %a, %b, %c and result %y, on `arrays`."""
    params = ", ".join(f"%{n}: tensor<{'x'.join(map(str, a.shape))}x{_elt(a)}>" for n, a in zip("abc", arrays))
    result_type = op_text.rsplit("-> ", 1)[1]
    text = f"func.func @main({params}) -> {result_type} {{\n  %y = {op_text}\n  func.return %y : {result_type}\n}}"
    (y,) = xtir.evaluate(xtir.parse(text), *arrays)
    return y


def _elt(a: np.ndarray) -> str:
    return {"float32": "f32", "int32": "i32", "float64": "f64"}[a.dtype.name]


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def conv2d_loops(x, w, strides, padding, dilation):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    top, left, bottom, right = padding
    oh = (h + top + bottom - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd + left + right - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, o, oh, ow), np.float64)
    for b, f, i, j, ci, p, q in np.ndindex(n, o, oh, ow, c, kh, kw):
        r, s = i * strides[0] + p * dilation[0] - top, j * strides[1] + q * dilation[1] - left
        if 0 <= r < h and 0 <= s < wd:
            y[b, f, i, j] += x[b, ci, r, s] * w[f, ci, p, q]
    return y


def max_pool_loops(x, kernel, strides, padding):
    n, c, h, w = x.shape
    top, left, bottom, right = padding
    oh = (h + top + bottom - kernel[0]) // strides[0] + 1
    ow = (w + left + right - kernel[1]) // strides[1] + 1
    y = np.full((n, c, oh, ow), -np.inf, np.float64)
    for b, ch, i, j, p, q in np.ndindex(n, c, oh, ow, *kernel):
        r, s = i * strides[0] + p - top, j * strides[1] + q - left
        if 0 <= r < h and 0 <= s < w:
            y[b, ch, i, j] = max(y[b, ch, i, j], x[b, ch, r, s])
    return y


@pytest.mark.parametrize(
    "attrs, strides, padding, dilation, out",
    [
        ("", (1, 1), (0, 0, 0, 0), (1, 1), "2x4x4x5"),
        ("padding [1, 1, 1, 1]", (1, 1), (1, 1, 1, 1), (1, 1), "2x4x6x7"),
        ("strides [2, 1] padding [0, 2, 1, 0]", (2, 1), (0, 2, 1, 0), (1, 1), "2x4x3x7"),
        ("padding [2, 1, 2, 1] dilation [2, 1]", (1, 1), (2, 1, 2, 1), (2, 1), "2x4x6x7"),
    ],
)
def test_conv2d(attrs, strides, padding, dilation, out):
    x, w = rand(2, 3, 6, 7), rand(4, 3, 3, 3)
    y = run(f"tensor.conv2d %a, %b {attrs} : tensor<2x3x6x7xf32>, tensor<4x3x3x3xf32> -> tensor<{out}xf32>", x, w)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, conv2d_loops(x, w, strides, padding, dilation), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "attrs, kernel, strides, padding, out",
    [
        ("kernel [2, 2] strides [2, 2]", (2, 2), (2, 2), (0, 0, 0, 0), "1x2x3x3"),
        ("kernel [3, 3] strides [1, 1] padding [1, 1, 1, 1]", (3, 3), (1, 1), (1, 1, 1, 1), "1x2x6x7"),
        ("kernel [3, 2] strides [2, 3] padding [2, 0, 0, 1]", (3, 2), (2, 3), (2, 0, 0, 1), "1x2x3x3"),
    ],
)
def test_max_pool2d(attrs, kernel, strides, padding, out):
    x = -np.abs(rand(1, 2, 6, 7))  # all negative: zero padding would win, the -inf padding must not
    y = run(f"tensor.max_pool2d %a {attrs} : tensor<1x2x6x7xf32> -> tensor<{out}xf32>", x)
    np.testing.assert_array_equal(y, max_pool_loops(x, kernel, strides, padding).astype(np.float32))


def test_max_pool2d_integers():
    x = RNG.integers(-100, -1, (1, 1, 4, 4), dtype=np.int32)
    op = "tensor.max_pool2d %a kernel [3, 3] strides [2, 2] padding [1, 1, 1, 1]"
    y = run(f"{op} : tensor<1x1x4x4xi32> -> tensor<1x1x2x2xi32>", x)
    np.testing.assert_array_equal(y, max_pool_loops(x, (3, 3), (2, 2), (1, 1, 1, 1)))


@pytest.mark.parametrize("axis", [0, 1])
def test_softmax(axis):
    x = rand(3, 5) * 50  # large values: the max must be subtracted first
    y = run(f"tensor.softmax %a axis {axis} : tensor<3x5xf32> -> tensor<3x5xf32>", x)
    expected = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
    np.testing.assert_allclose(y, expected / expected.sum(axis=axis, keepdims=True), rtol=1e-5, atol=1e-7)
    assert y.dtype == np.float32


@pytest.mark.parametrize(
    "op, fn",
    [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply), ("divide", np.divide)],
)
def test_binary_broadcasting(op, fn):
    a, b = rand(4, 1), rand(3)
    y = run(f"tensor.{op} %a, %b : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>", a, b)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, fn(a.astype(np.float64), b), rtol=1e-6)


def test_integer_ops_keep_their_type():
    a, b = RNG.integers(-5, 5, (2, 3), dtype=np.int32), RNG.integers(-5, 5, (3,), dtype=np.int32)
    y = run("tensor.add %a, %b : tensor<2x3xi32>, tensor<3xi32> -> tensor<2x3xi32>", a, b)
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, a + b)


def test_relu_ewise_fma_bias_add():
    x, b = rand(2, 4, 3), rand(4)
    np.testing.assert_array_equal(run("tensor.relu %a : tensor<2x4x3xf32> -> tensor<2x4x3xf32>", x), np.where(x > 0, x, 0))
    y = run("tensor.bias_add %a, %b : tensor<2x4x3xf32>, tensor<4xf32> -> tensor<2x4x3xf32>", x, b)
    np.testing.assert_array_equal(y, x + b[None, :, None])
    b3 = rand(3)
    y = run("tensor.bias_add %a, %b axis 2 : tensor<2x4x3xf32>, tensor<3xf32> -> tensor<2x4x3xf32>", x, b3)
    np.testing.assert_array_equal(y, x + b3)
    c = rand(4, 1)
    y = run("tensor.ewise_fma %a, %b, %c : tensor<2x4x3xf32>, tensor<3xf32>, tensor<4x1xf32> -> tensor<2x4x3xf32>", x, b3, c)
    np.testing.assert_allclose(y, x * b3 + c, rtol=1e-6)


def test_matmul_dense():
    x, w = rand(3, 4), rand(5, 4)
    np.testing.assert_allclose(
        run("tensor.dense %a, %b : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<3x5xf32>", x, w), x @ w.T, rtol=1e-5
    )
    np.testing.assert_allclose(
        run("tensor.matmul %a, %b : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>", x, w.T.copy()), x @ w.T, rtol=1e-5
    )


def test_shape_ops():
    x = rand(2, 3, 4)
    np.testing.assert_array_equal(
        run("tensor.transpose %a permutation [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>", x), x.transpose(2, 0, 1)
    )
    np.testing.assert_array_equal(
        run("tensor.reshape %a shape [4, 6] : tensor<2x3x4xf32> -> tensor<4x6xf32>", x), x.reshape(4, 6)
    )
    np.testing.assert_array_equal(run("tensor.flatten %a : tensor<2x3x4xf32> -> tensor<2x12xf32>", x), x.reshape(2, 12))
    np.testing.assert_array_equal(
        run("tensor.flatten %a start_dim 0 : tensor<2x3x4xf32> -> tensor<24xf32>", x), x.reshape(24)
    )


def test_dense_constant_weights():
    text = """
    func.func @main(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
      %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
      %y = tensor.matmul %x, %w : tensor<1x2xf32>, tensor<2x2xf32> -> tensor<1x2xf32>
      func.return %y : tensor<1x2xf32>
    }"""
    (y,) = xtir.evaluate(xtir.parse(text), np.array([[1.0, 1.0]], np.float32))
    np.testing.assert_array_equal(y, [[4.0, 6.0]])


def _args(*shapes):
    block = Block(arg_types=[TensorType(f32, s) for s in shapes])
    return block, block.args


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda a: tensor.AddOp(a[0], a[2]), (4, 8)),
        (lambda a: tensor.EwiseFmaOp(a[0], a[2], a[0]), (4, 8)),
        (lambda a: tensor.DenseOp(a[0], a[1]), (4, 16)),
        (lambda a: tensor.BiasAddOp(a[0], a[2], axis=1), (4, 8)),
        (lambda a: tensor.TransposeOp(a[0], [1, 0]), (8, 4)),
        (lambda a: tensor.ReshapeOp(a[0], [2, 16]), (2, 16)),
        (lambda a: tensor.FlattenOp(a[3]), (2, 48)),
        (lambda a: tensor.Conv2dOp(a[3], a[4], padding=(1, 1, 1, 1), strides=(2, 2)), (2, 5, 2, 2)),
        (lambda a: tensor.MaxPool2dOp(a[3], (2, 2), (2, 2)), (2, 3, 2, 2)),
        (lambda a: tensor.SoftmaxOp(a[0], 1), (4, 8)),
    ],
)
def test_constructors_infer_the_result(make, expected):
    block, args = _args((4, 8), (16, 8), (8,), (2, 3, 4, 4), (5, 3, 3, 3))
    op = make(args)
    block.add_op(op)
    op.verify()
    assert tuple(op.results[0].type.get_shape()) == expected


def test_constructor_refuses_bad_shapes():
    _, args = _args((4, 8), (16, 4))
    with pytest.raises(VerifyException, match="reduction extents differ: lhs 4x8 has 8, rhs 16x4 has 4"):
        tensor.DenseOp(args[0], args[1])
    with pytest.raises(VerifyException, match="4-d NCHW input and a 4-d OIHW weight, got 4x8 and 16x4"):
        tensor.Conv2dOp(args[0], args[1])


def test_graph_module_round_trips_through_the_evaluator():
    """A whole graph function built with the constructors evaluates like numpy."""
    block, (x, w, b) = _args((2, 8), (4, 8), (4,))
    ops = [tensor.DenseOp(x, w)]
    ops.append(tensor.AddOp(ops[-1].result, b))
    ops.append(tensor.ReluOp(ops[-1].result))
    block.add_ops([*ops, func.ReturnOp(ops[-1].result)])
    f = func.FuncOp("main", ([a.type for a in block.args], [ops[-1].result.type]), Region(block))
    module = ModuleOp([f])
    module.verify()
    xs, ws, bs = rand(2, 8), rand(4, 8), rand(4)
    (y,) = xtir.evaluate(module, xs, ws, bs)
    np.testing.assert_allclose(y, np.maximum(xs @ ws.T + bs, 0), rtol=1e-5, atol=1e-6)
