"""legalize-tensor and default-schedule keep a graph's numbers: each graph op, fused
operators (fuse-ops), hoisted constants, and whole models, against the graph run by the
reference evaluator (the tensor interpreter, the ops' numpy semantics), through the
evaluator on the block level and the JIT, unscheduled and with the default schedule."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

import xtir
from xtir.interpreters.block import numpy_dtype
from xtir.model import compile_model
from xtir.passes.default_schedule import default_schedule
from xtir.passes.legalize_tensor import hoisted_constants

RNG = np.random.default_rng(0)


def graph(params: str, body: str, result: str) -> ModuleOp:
    return xtir.parse(f"func.func @main({params}) -> {result} {{\n{body}\n}}")


def random_inputs(g: ModuleOp) -> list[np.ndarray]:
    main = next(f for f in g.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main")
    arrays = []
    for t in main.function_type.inputs.data:
        assert isinstance(t, TensorType)
        arrays.append(RNG.standard_normal(t.get_shape()).astype(numpy_dtype(t.element_type)))
    return arrays


def expected(g: ModuleOp, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(r) for r in xtir.evaluate(g, *inputs)]


def outputs_of(g: ModuleOp) -> list[np.ndarray]:
    main = next(f for f in g.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main")
    # a 0-d result's buffer is one element (legalize-tensor's block_shape)
    return [np.full(tuple(t.get_shape()) or (1,), np.nan, numpy_dtype(t.element_type))
            for t in main.function_type.outputs.data]


def check_legalized(g: ModuleOp, evaluator: bool = True) -> None:
    inputs = random_inputs(g)
    reference = expected(g, inputs)
    constants = list(hoisted_constants(g)["main"].values())
    legal = xtir.transform(g, "legalize-tensor")
    runs = [("JIT", xtir.build(legal)), ("default schedule", xtir.build(xtir.transform(legal, "default-schedule")))]
    if evaluator:
        runs.append(("evaluator", lambda *a: xtir.evaluate(legal, *a)))
    for what, run in runs:
        outs = outputs_of(g)
        run(*inputs, *constants, *outs)
        for got, want in zip(outs, reference):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=what)


ACTIVATIONS = {
    "sigmoid": ("sigmoid", ""),
    "tanh": ("tanh", ""),
    "silu": ("silu", ""),
    "gelu": ("gelu", ""),
    "gelu_tanh": ("gelu", 'approximate "tanh"'),
    "leaky_relu": ("leaky_relu", "negative_slope 0.2"),
}

OPS = {
    "matmul": ("%a: tensor<3x5xf32>, %b: tensor<5x4xf32>",
               "%r = tensor.matmul %a, %b : tensor<3x5xf32>, tensor<5x4xf32> -> tensor<3x4xf32>", "tensor<3x4xf32>"),
    "dense": ("%a: tensor<3x5xf32>, %b: tensor<4x5xf32>",
              "%r = tensor.dense %a, %b : tensor<3x5xf32>, tensor<4x5xf32> -> tensor<3x4xf32>", "tensor<3x4xf32>"),
    "add": ("%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>",
            "%r = tensor.add %a, %b : tensor<2x3x4xf32>, tensor<3x1xf32> -> tensor<2x3x4xf32>", "tensor<2x3x4xf32>"),
    "subtract": ("%a: tensor<3x4xf32>, %b: tensor<4xf32>",
                 "%r = tensor.subtract %a, %b : tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xf32>", "tensor<3x4xf32>"),
    "multiply": ("%a: tensor<1x4xf32>, %b: tensor<3x1xf32>",
                 "%r = tensor.multiply %a, %b : tensor<1x4xf32>, tensor<3x1xf32> -> tensor<3x4xf32>", "tensor<3x4xf32>"),
    "divide": ("%a: tensor<3x4xf32>, %b: tensor<3x4xf32>",
               "%r = tensor.divide %a, %b : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>", "tensor<3x4xf32>"),
    "relu": ("%a: tensor<3x4xf32>", "%r = tensor.relu %a : tensor<3x4xf32> -> tensor<3x4xf32>", "tensor<3x4xf32>"),
    "ewise_fma": ("%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>",
                  "%r = tensor.ewise_fma %a, %b, %c : tensor<3x4xf32>, tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xf32>",
                  "tensor<3x4xf32>"),
    "bias_add": ("%a: tensor<2x3x4xf32>, %b: tensor<4xf32>",
                 "%r = tensor.bias_add %a, %b axis 2 : tensor<2x3x4xf32>, tensor<4xf32> -> tensor<2x3x4xf32>",
                 "tensor<2x3x4xf32>"),
    "reshape": ("%a: tensor<2x3x4xf32>", "%r = tensor.reshape %a shape [4, 6] : tensor<2x3x4xf32> -> tensor<4x6xf32>",
                "tensor<4x6xf32>"),
    "flatten": ("%a: tensor<2x3x4xf32>", "%r = tensor.flatten %a : tensor<2x3x4xf32> -> tensor<2x12xf32>",
                "tensor<2x12xf32>"),
    "transpose": ("%a: tensor<2x3x4xf32>",
                  "%r = tensor.transpose %a permutation [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>",
                  "tensor<4x2x3xf32>"),
    "conv2d": ("%a: tensor<2x3x7x6xf32>, %b: tensor<4x3x3x2xf32>",
               "%r = tensor.conv2d %a, %b strides [2, 1] padding [1, 0, 2, 1] dilation [1, 2] "
               ": tensor<2x3x7x6xf32>, tensor<4x3x3x2xf32> -> tensor<2x4x4x5xf32>", "tensor<2x4x4x5xf32>"),
    "max_pool2d": ("%a: tensor<2x3x7x6xf32>",
                   "%r = tensor.max_pool2d %a kernel [3, 3] strides [2, 2] padding [1, 1, 1, 1] "
                   ": tensor<2x3x7x6xf32> -> tensor<2x3x4x3xf32>", "tensor<2x3x4x3xf32>"),
    "softmax": ("%a: tensor<3x5xf32>", "%r = tensor.softmax %a axis 1 : tensor<3x5xf32> -> tensor<3x5xf32>",
                "tensor<3x5xf32>"),
    "softmax_f16": ("%a: tensor<3x5xf16>", "%r = tensor.softmax %a axis 0 : tensor<3x5xf16> -> tensor<3x5xf16>",
                    "tensor<3x5xf16>"),
    **{f"{name}_{t}": (f"%a: tensor<3x17x{t}>", f"%r = tensor.{op} %a {attrs} : tensor<3x17x{t}> -> tensor<3x17x{t}>",
                       f"tensor<3x17x{t}>")
       for name, (op, attrs) in ACTIVATIONS.items() for t in ("f32", "f16", "f64")},
    "greater": ("%a: tensor<3x4xf32>, %b: tensor<4xf32>",
                "%r = tensor.greater %a, %b : tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xi1>", "tensor<3x4xi1>"),
    "where": ("%c: tensor<3x1xi1>, %a: tensor<3x4xf32>, %b: tensor<4xf32>",
              "%r = tensor.where %c, %a, %b : tensor<3x1xi1>, tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xf32>",
              "tensor<3x4xf32>"),
    **{f"{op}_{t}": (f"%a: tensor<3x5x{t}>", f"%r = tensor.{op} %a : tensor<3x5x{t}> -> tensor<3x5x{t}>",
                     f"tensor<3x5x{t}>")
       for op in ("negative", "abs", "exp", "log", "sqrt", "rsqrt") for t in ("f32", "f16")},
    "clip": ("%a: tensor<3x5xf16>", "%r = tensor.clip %a min -0.5 : f64 max 0.25 : f64 : tensor<3x5xf16> -> tensor<3x5xf16>",
             "tensor<3x5xf16>"),
    "astype": ("%a: tensor<3x5xf64>", "%r = tensor.astype %a : tensor<3x5xf64> -> tensor<3x5xf16>", "tensor<3x5xf16>"),
    **{f"{op}_{t}": (f"%a: tensor<4x3x5x{t}>",
                     f"%r = tensor.{op} %a axes [0, 2] keepdims : tensor<4x3x5x{t}> -> tensor<1x3x1x{t}>",
                     f"tensor<1x3x1x{t}>")
       for op in ("sum", "mean", "max") for t in ("f32", "f16")},
    "sum_all": ("%a: tensor<4x3xf32>", "%r = tensor.sum %a axes [0, 1] : tensor<4x3xf32> -> tensor<f32>", "tensor<f32>"),
    "flip": ("%a: tensor<2x3x4xf32>", "%r = tensor.flip %a axes [0, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>",
             "tensor<2x3x4xf32>"),
    "strided_slice": ("%a: tensor<5x9xf32>",
                      "%r = tensor.strided_slice %a begin [1, 2] end [5, 9] strides [2, 3] : tensor<5x9xf32> -> tensor<2x3xf32>",
                      "tensor<2x3xf32>"),
}


@pytest.mark.parametrize("op", OPS)
def test_each_op(op):
    params, body, result = OPS[op]
    check_legalized(graph(params, f"{body}\nfunc.return %r : {result}", result))


def test_libm_calls_compile_without_a_vectorizer_warning():
    """A tanh and an erf (libm calls) in a fused dense epilogue and an elementwise block: LLVM
    warned that it did not vectorize the loops default-schedule had marked vectorized."""
    g = graph("%x: tensor<4x16xf32>, %w: tensor<32x16xf32>", """
      %h = tensor.dense %x, %w : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
      %t = tensor.tanh %h : tensor<4x32xf32> -> tensor<4x32xf32>
      %g = tensor.gelu %t : tensor<4x32xf32> -> tensor<4x32xf32>
      func.return %g : tensor<4x32xf32>""", "tensor<4x32xf32>")
    fused = xtir.transform(g, "fuse-ops")
    for module in (g, fused):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile_model(module)
    check_legalized(fused)


def test_fused_operators_of_fuse_ops():
    """dense + bias + relu, and the diamond of fuse-ops' test (a dense read twice, elementwise
    paths meeting again), each one block function."""
    g = graph("%x: tensor<4x8xf32>, %w: tensor<6x8xf32>, %b: tensor<6xf32>", """
      %h = tensor.dense %x, %w : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
      %hb = tensor.add %h, %b : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
      %r = tensor.relu %hb : tensor<4x6xf32> -> tensor<4x6xf32>
      %m = tensor.multiply %hb, %hb : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
      %s = tensor.add %r, %m : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
      func.return %s : tensor<4x6xf32>""", "tensor<4x6xf32>")
    fused = xtir.transform(g, "fuse-ops")
    legal = xtir.transform(fused, "legalize-tensor")
    names = [f.sym_name.data for f in legal.ops if isinstance(f, func.FuncOp)]
    assert names == ["fused_dense_add_relu_multiply_add", "main"]
    check_legalized(fused)


def test_constants_are_hoisted_and_a_dense_weight_transposed():
    w = RNG.standard_normal((4, 3)).astype(np.float32)
    dense = f"dense<{w.tolist()}> : tensor<4x3xf32>"
    g = graph("%x: tensor<2x3xf32>", f"""
      %w = arith.constant {dense}
      %b = arith.constant dense<[0.5, -0.5, 1.0, 0.0]> : tensor<4xf32>
      %y = tensor.dense %x, %w : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
      %z = tensor.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
      %t = tensor.multiply %w, %w : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
      func.return %z, %t : tensor<2x4xf32>, tensor<4x3xf32>""", "(tensor<2x4xf32>, tensor<4x3xf32>)")
    constants = hoisted_constants(g)["main"]
    assert list(constants) == ["w", "b"]
    np.testing.assert_array_equal(constants["w"], w)  # read by a multiply too: not transposed
    check_legalized(g)
    only_dense = graph("%x: tensor<2x3xf32>", f"""
      %w = arith.constant {dense}
      %y = tensor.dense %x, %w : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
      func.return %y : tensor<2x4xf32>""", "tensor<2x4xf32>")
    np.testing.assert_array_equal(hoisted_constants(only_dense)["main"]["w"], w.T)
    check_legalized(only_dense)
    check_legalized(xtir.transform(only_dense, "fuse-ops"))


def cnn_graph(batch: int) -> ModuleOp:
    return graph(f"%x: tensor<{batch}x1x12x12xf32>, %w1: tensor<4x1x3x3xf32>, %b1: tensor<4xf32>, "
                 "%w2: tensor<8x4x3x3xf32>, %b2: tensor<8xf32>, %w3: tensor<10x32xf32>, %b3: tensor<10xf32>", f"""
      %c1 = tensor.conv2d %x, %w1 padding [1, 1, 1, 1]
          : tensor<{batch}x1x12x12xf32>, tensor<4x1x3x3xf32> -> tensor<{batch}x4x12x12xf32>
      %a1 = tensor.bias_add %c1, %b1 : tensor<{batch}x4x12x12xf32>, tensor<4xf32> -> tensor<{batch}x4x12x12xf32>
      %r1 = tensor.relu %a1 : tensor<{batch}x4x12x12xf32> -> tensor<{batch}x4x12x12xf32>
      %p1 = tensor.max_pool2d %r1 kernel [2, 2] strides [2, 2] : tensor<{batch}x4x12x12xf32> -> tensor<{batch}x4x6x6xf32>
      %c2 = tensor.conv2d %p1, %w2 : tensor<{batch}x4x6x6xf32>, tensor<8x4x3x3xf32> -> tensor<{batch}x8x4x4xf32>
      %a2 = tensor.bias_add %c2, %b2 : tensor<{batch}x8x4x4xf32>, tensor<8xf32> -> tensor<{batch}x8x4x4xf32>
      %r2 = tensor.relu %a2 : tensor<{batch}x8x4x4xf32> -> tensor<{batch}x8x4x4xf32>
      %p2 = tensor.max_pool2d %r2 kernel [2, 2] strides [2, 2] : tensor<{batch}x8x4x4xf32> -> tensor<{batch}x8x2x2xf32>
      %f = tensor.flatten %p2 : tensor<{batch}x8x2x2xf32> -> tensor<{batch}x32xf32>
      %d = tensor.dense %f, %w3 : tensor<{batch}x32xf32>, tensor<10x32xf32> -> tensor<{batch}x10xf32>
      %o = tensor.add %d, %b3 : tensor<{batch}x10xf32>, tensor<10xf32> -> tensor<{batch}x10xf32>
      %s = tensor.softmax %o axis 1 : tensor<{batch}x10xf32> -> tensor<{batch}x10xf32>
      func.return %s : tensor<{batch}x10xf32>""", f"tensor<{batch}x10xf32>")


@pytest.mark.parametrize("batch", [1, 3])
def test_cnn_fused(batch):
    check_legalized(xtir.transform(cnn_graph(batch), "fuse-ops"), evaluator=batch == 1)


def test_compile_model_mlp():
    g = graph("%x: tensor<5x16xf32>, %w0: tensor<8x16xf32>, %b0: tensor<8xf32>, %w1: tensor<3x8xf32>", """
      %h = tensor.dense %x, %w0 : tensor<5x16xf32>, tensor<8x16xf32> -> tensor<5x8xf32>
      %hb = tensor.add %h, %b0 : tensor<5x8xf32>, tensor<8xf32> -> tensor<5x8xf32>
      %r = tensor.relu %hb : tensor<5x8xf32> -> tensor<5x8xf32>
      %y = tensor.dense %r, %w1 : tensor<5x8xf32>, tensor<3x8xf32> -> tensor<5x3xf32>
      func.return %y : tensor<5x3xf32>""", "tensor<5x3xf32>")
    inputs = random_inputs(g)
    model = compile_model(xtir.transform(g, "fuse-ops"))
    np.testing.assert_allclose(model(*inputs), expected(g, inputs)[0], rtol=1e-4, atol=1e-5)
    out = np.empty((5, 3), np.float32)
    model.run(*inputs, out)
    np.testing.assert_allclose(out, expected(g, inputs)[0], rtol=1e-4, atol=1e-5)
    with pytest.raises(xtir.XtirError, match=r"input 0 must be a float32 array of shape \(5, 16\), got float64"):
        model(inputs[0].astype(np.float64), *inputs[1:])
    with pytest.raises(xtir.XtirError, match="output 0 must be a writeable array of its own"):
        model.run(*inputs, inputs[0].reshape(-1)[:15].reshape(5, 3))  # a view of the input


def test_default_schedule_of_a_batch_1_dense_inlines_the_epilogue():
    """At batch 1 the bias reads the dense's output at the axis (not at 0, which would keep
    the epilogue out of the write-back: topi's broadcasting indexed equal size-1 dimensions
    by 0)."""
    g = xtir.transform(graph("%x: tensor<1x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>", """
      %h = tensor.dense %x, %w : tensor<1x64xf32>, tensor<128x64xf32> -> tensor<1x128xf32>
      %hb = tensor.add %h, %b : tensor<1x128xf32>, tensor<128xf32> -> tensor<1x128xf32>
      %r = tensor.relu %hb : tensor<1x128xf32> -> tensor<1x128xf32>
      func.return %r : tensor<1x128xf32>""", "tensor<1x128xf32>"), "fuse-ops,legalize-tensor")
    assert "reverse-compute-inline{block=T_relu" in default_schedule(g, "fused_dense_add_relu")


def relu(a):
    return np.maximum(a, 0)


FUSED = {  # graph (after the pipeline, each fused group one function), its numpy formula
    "dense_add_relu": ("fuse-ops", "%x: tensor<6x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>", """
      %h = tensor.dense %x, %w : tensor<6x16xf32>, tensor<8x16xf32> -> tensor<6x8xf32>
      %hb = tensor.add %h, %b : tensor<6x8xf32>, tensor<8xf32> -> tensor<6x8xf32>
      %r = tensor.relu %hb : tensor<6x8xf32> -> tensor<6x8xf32>""", "tensor<6x8xf32>",
                       lambda x, w, b: relu(x @ w.T + b)),
    "matmul_ewise_fma": ("fuse-ewise-fma,fuse-ops", "%a: tensor<5x7xf32>, %b: tensor<7x4xf32>, %s: tensor<5x4xf32>", """
      %m = tensor.matmul %a, %b : tensor<5x7xf32>, tensor<7x4xf32> -> tensor<5x4xf32>
      %p = tensor.multiply %m, %s : tensor<5x4xf32>, tensor<5x4xf32> -> tensor<5x4xf32>
      %r = tensor.add %p, %s : tensor<5x4xf32>, tensor<5x4xf32> -> tensor<5x4xf32>""", "tensor<5x4xf32>",
                            lambda a, b, s: (a @ b) * s + s),
    "conv2d_bias_add_relu": ("fuse-ops", "%x: tensor<2x3x6x6xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>", """
      %c = tensor.conv2d %x, %w padding [1, 1, 1, 1] : tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
      %cb = tensor.bias_add %c, %b : tensor<2x4x6x6xf32>, tensor<4xf32> -> tensor<2x4x6x6xf32>
      %r = tensor.relu %cb : tensor<2x4x6x6xf32> -> tensor<2x4x6x6xf32>""", "tensor<2x4x6x6xf32>",
                             lambda x, w, b: relu(numpy_conv3x3_pad1(x, w) + b[:, None, None])),
    "transpose_reshape_relu": ("fuse-ops", "%x: tensor<2x3x4xf32>", """
      %t = tensor.transpose %x permutation [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
      %s = tensor.reshape %t shape [3, 8] : tensor<3x2x4xf32> -> tensor<3x8xf32>
      %r = tensor.relu %s : tensor<3x8xf32> -> tensor<3x8xf32>""", "tensor<3x8xf32>",
                               lambda x: relu(x.transpose(1, 0, 2).reshape(3, 8))),
}


def numpy_conv3x3_pad1(x, w):
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    h, wd = x.shape[2:]
    out = np.zeros((x.shape[0], w.shape[0], h, wd), np.float64)
    for dy in range(3):
        for dx in range(3):
            out += np.einsum("nchw,oc->nohw", padded[:, :, dy:dy + h, dx:dx + wd], w[:, :, dy, dx])
    return out


@pytest.mark.parametrize("pattern", FUSED)
def test_fused_pattern_against_numpy(pattern):
    """Each fused pattern is one block function, and computes its numpy formula (unscheduled
    and with the default schedule)."""
    pipeline, params, body, result, formula = FUSED[pattern]
    g = xtir.transform(graph(params, f"{body}\nfunc.return %r : {result}", result), pipeline)
    legal = xtir.transform(g, "legalize-tensor")
    assert [f.sym_name.data for f in legal.ops] == [f"fused_{pattern}", "main"]
    inputs = random_inputs(g)
    want = formula(*(a.astype(np.float64) for a in inputs))
    for module in (legal, xtir.transform(legal, "default-schedule")):
        out = outputs_of(g)
        xtir.build(module)(*inputs, *out)
        np.testing.assert_allclose(out[0], want, rtol=1e-4, atol=1e-5)
