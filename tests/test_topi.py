"""xtir.topi: every operator definition against numpy, through the reference evaluator and
the JIT (te.create_func, unscheduled), and the shape errors naming both shapes."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir import te, topi

RNG = np.random.default_rng(0)


def check(inputs: list[te.Tensor], out: te.Tensor, expected: np.ndarray, arrays: list[np.ndarray]) -> None:
    m = ModuleOp([te.create_func([*inputs, out], name="main")])
    assert out.shape == expected.shape
    for run in (lambda *a: xtir.evaluate(m, *a), xtir.build(m)):
        result = np.full(out.shape, np.nan, np.float32)
        run(*arrays, result)
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)


def tensors(*shapes: tuple[int, ...]) -> tuple[list[te.Tensor], list[np.ndarray]]:
    names = "xyzw"
    return ([te.placeholder(s, "float32", names[k]) for k, s in enumerate(shapes)],
            [RNG.standard_normal(s).astype(np.float32) for s in shapes])


def test_matmul():
    (a, b), (x, y) = tensors((3, 5), (5, 4))
    check([a, b], topi.matmul(a, b), x @ y, [x, y])


def test_dense():
    (a, b), (x, y) = tensors((3, 5), (4, 5))
    check([a, b], topi.dense(a, b), x @ y.T, [x, y])


@pytest.mark.parametrize("op, fn", [(topi.add, np.add), (topi.subtract, np.subtract), (topi.multiply, np.multiply),
                                    (topi.divide, np.divide)])
@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((1, 4), (1, 4))])
def test_broadcasting_binary(op, fn, shapes):
    (a, b), (x, y) = tensors(*shapes)
    check([a, b], op(a, b), fn(x, y), [x, y])


def test_binary_with_a_scalar():
    (a,), (x,) = tensors((3, 4))
    check([a], topi.multiply(a, 2.5), x * 2.5, [x])


def test_relu():
    (a,), (x,) = tensors((3, 4))
    check([a], topi.relu(a), np.maximum(x, 0), [x])


def test_ewise_fma():
    (a, b, c), (x, y, z) = tensors((3, 4), (3, 4), (4,))
    check([a, b, c], topi.ewise_fma(a, b, c), x * y + z, [x, y, z])


@pytest.mark.parametrize("axis", [1, -1])
def test_bias_add(axis):
    (a, b), (x, y) = tensors((2, 3, 4), (3 if axis == 1 else 4,))
    expected = x + (y[:, None] if axis == 1 else y)
    check([a, b], topi.bias_add(a, b, axis=axis), expected, [x, y])


@pytest.mark.parametrize("source, target", [((2, 3, 4), (6, 4)), ((2, 3, 4), (4, 6)), ((1, 2, 5, 5), (1, 50)),
                                            ((6,), (2, 1, 3)), ((4, 6), (-1, 8))])
def test_reshape(source, target):
    (a,), (x,) = tensors(source)
    check([a], topi.reshape(a, target), x.reshape(target), [x])


def test_flatten():
    (a,), (x,) = tensors((2, 3, 2, 2))
    check([a], topi.flatten(a), x.reshape(2, 12), [x])


@pytest.mark.parametrize("axes", [None, (0, 2, 1), (2, 0, 1)])
def test_transpose(axes):
    (a,), (x,) = tensors((2, 3, 4))
    check([a], topi.transpose(a, axes), np.transpose(x, axes), [x])


def test_pad():
    (a,), (x,) = tensors((3, 4))
    check([a], topi.pad(a, (1, 0), (2, 3), -1.0), np.pad(x, ((1, 2), (0, 3)), constant_values=-1), [x])


def conv2d_reference(x: np.ndarray, w: np.ndarray, stride: tuple[int, int], padding: tuple[int, int, int, int],
                     dilation: tuple[int, int]) -> np.ndarray:
    t, lft, b, r = padding
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (lft, r)))
    n, c, h, wd = xp.shape
    f, _, kh, kw = w.shape
    oh = (h - (kh - 1) * dilation[0] - 1) // stride[0] + 1
    ow = (wd - (kw - 1) * dilation[1] - 1) // stride[1] + 1
    out = np.zeros((n, f, oh, ow), np.float64)
    for ry in range(kh):
        for rx in range(kw):
            ys, xs = ry * dilation[0], rx * dilation[1]
            window = xp[:, :, ys: ys + stride[0] * (oh - 1) + 1: stride[0], xs: xs + stride[1] * (ow - 1) + 1: stride[1]]
            out += np.einsum("nchw,fc->nfhw", window, w[:, :, ry, rx])
    return out.astype(np.float32)


@pytest.mark.parametrize("stride, padding, dilation", [
    ((1, 1), (0, 0, 0, 0), (1, 1)),
    ((1, 1), (1, 1, 1, 1), (1, 1)),
    ((2, 1), (1, 0, 2, 1), (1, 2)),
])
def test_conv2d_nchw(stride, padding, dilation):
    (a, b), (x, w) = tensors((2, 3, 7, 6), (4, 3, 3, 2))
    out = topi.conv2d_nchw(a, b, stride, padding, dilation)
    check([a, b], out, conv2d_reference(x, w, stride, padding, dilation), [x, w])


def max_pool_reference(x: np.ndarray, kernel: int, stride: int, pad: int) -> np.ndarray:
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=-np.inf)
    oh = (xp.shape[2] - kernel) // stride + 1
    ow = (xp.shape[3] - kernel) // stride + 1
    windows = [xp[:, :, ry: ry + stride * (oh - 1) + 1: stride, rx: rx + stride * (ow - 1) + 1: stride]
               for ry in range(kernel) for rx in range(kernel)]
    return np.max(windows, axis=0)


@pytest.mark.parametrize("kernel, stride, pad", [(2, 2, 0), (3, 2, 1), (3, 1, 1)])
def test_max_pool2d(kernel, stride, pad):
    (a,), (x,) = tensors((2, 3, 7, 6))
    check([a], topi.max_pool2d(a, kernel, stride, pad), max_pool_reference(x, kernel, stride, pad), [x])


@pytest.mark.parametrize("shape, axis", [((3, 5), -1), ((3, 5), 0), ((2, 3, 4), 1), ((6,), 0)])
def test_softmax(shape, axis):
    (a,), (x,) = tensors(shape)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    check([a], topi.softmax(a, axis), e / e.sum(axis=axis, keepdims=True), [x])


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf)(x.astype(np.float64))


@pytest.mark.parametrize("make, fn", [
    (topi.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    (topi.tanh, np.tanh),
    (topi.silu, lambda x: x / (1 + np.exp(-x))),
    (topi.gelu, lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    (lambda a: topi.gelu(a, "tanh"), lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))),
    (lambda a: topi.leaky_relu(a, 0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
])
def test_activations(make, fn):
    """Against float64 numpy (erf and tanh are libm's erff and tanhf in the JIT)."""
    (a,), (x,) = tensors((3, 37))
    x *= 4
    check([a], make(a), fn(x.astype(np.float64)), [x])


def test_float16_activations_compute_in_float32():
    a = te.placeholder((4, 8), "float16", "x")
    text = str(ModuleOp([te.create_func([a, topi.gelu(a)])]))
    assert "arith.extf" in text and re.search(r"math.erf %\d+ : f32", text) and "arith.truncf" in text


@pytest.mark.parametrize("begin, end, strides", [((0, 1), (3, 9), (1, 3)), ((2, 0), (3, 9), (5, 1)), ((0, 0), (3, 9), (1, 1))])
def test_strided_slice(begin, end, strides):
    (a,), (x,) = tensors((3, 9))
    check([a], topi.strided_slice(a, begin, end, strides), x[tuple(map(slice, begin, end, strides))], [x])


@pytest.mark.parametrize("op, fn", [(topi.greater, np.greater), (topi.greater_equal, np.greater_equal),
                                    (topi.less, np.less), (topi.less_equal, np.less_equal),
                                    (topi.equal, np.equal), (topi.not_equal, np.not_equal)])
def test_comparisons_make_bool_tensors(op, fn):
    (a, b), (x, y) = tensors((3, 4), (4,))
    y[1] = x[0, 1]  # one equal pair
    out = op(a, b)
    assert out.dtype == "bool"
    m = ModuleOp([te.create_func([a, b, out], name="main")])
    for run in (lambda *z: xtir.evaluate(m, *z), xtir.build(m)):
        result = np.zeros((3, 4), bool)
        run(x, y, result)
        np.testing.assert_array_equal(result, fn(x, y))


def test_where_broadcasts_condition_and_branches():
    (a, b), (x, y) = tensors((3, 4), (4,))
    c = topi.greater(a, 0.0)
    check([a, b], topi.where(c, a, topi.multiply(b, 0.5)), np.where(x > 0, x, 0.5 * y), [x, y])


def test_softmax_in_float16_sums_in_float32():
    a = te.placeholder((2, 8), "float16", "x")
    text = str(ModuleOp([te.create_func([a, topi.softmax(a)])]))
    assert "%T_softmax_expsum = block.alloc : memref<2xf32>" in text and "arith.truncf" in text


def test_softmax_stages_are_tvms():
    (a,), _ = tensors((3, 5))
    text = str(ModuleOp([te.create_func([a, topi.softmax(a)])]))
    for stage in ("T_softmax_maxelem", "T_softmax_exp", "T_softmax_expsum", "T_softmax_norm"):
        assert f'block.block "{stage}"' in text


@pytest.mark.parametrize("make, message", [
    (lambda: topi.matmul(te.placeholder((3, 4)), te.placeholder((5, 6))), r"topi.matmul: shapes 3x4 and 5x6 do not multiply"),
    (lambda: topi.dense(te.placeholder((3, 4)), te.placeholder((5, 6))), r"topi.dense: shapes 3x4 and 5x6ᵀ do not multiply"),
    (lambda: topi.add(te.placeholder((3, 4)), te.placeholder((5,))), r"topi.add: shapes 3x4 and 5 do not broadcast"),
    (lambda: topi.bias_add(te.placeholder((3, 4)), te.placeholder((3,)), axis=1),
     r"topi.bias_add: the bias 3 does not match dimension 1 of 3x4"),
    (lambda: topi.reshape(te.placeholder((3, 4)), (5, 2)), r"topi.reshape: cannot reshape 3x4 to 5x2"),
    (lambda: topi.transpose(te.placeholder((3, 4)), (0, 0)), r"topi.transpose: \[0, 0\] is not a permutation"),
    (lambda: topi.conv2d_nchw(te.placeholder((1, 3, 4, 4)), te.placeholder((2, 2, 3, 3))),
     r"topi.conv2d_nchw: input 1x3x4x4 and weight 2x2x3x3 do not match"),
    (lambda: topi.conv2d_nchw(te.placeholder((1, 3, 2, 2)), te.placeholder((2, 3, 3, 3))),
     r"topi.conv2d_nchw: the window of 3 does not fit in 2 padded by 0"),
    (lambda: topi.softmax(te.placeholder((3, 4)), 2), r"topi.softmax: axis 2 is outside the 2 dimensions of 3x4"),
    (lambda: topi.sigmoid(te.placeholder((3, 4), "int32")), r"topi.sigmoid: takes floating-point tensors, got int32"),
    (lambda: topi.where(te.placeholder((3, 4)), 1.0, 0.0), r"topi.where: the condition holds float32, not bool"),
    (lambda: topi.gelu(te.placeholder((3, 4)), "fast"), r"topi.gelu: approximate must be one of 'none', 'tanh', got 'fast'"),
    (lambda: topi.strided_slice(te.placeholder((3, 4)), (0, 2), (3, 2), (1, 1)),
     r"topi.strided_slice: \[0, 2\]:\[3, 2\]:\[1, 1\] is no non-empty slice of each dimension of 3x4"),
])
def test_shape_errors(make, message):
    with pytest.raises(xtir.XtirError, match=message):
        make()
