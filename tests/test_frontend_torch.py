"""xtir.frontend.from_torch: PyTorch models imported through torch.fx compute what torch
computes (reference evaluator vs the model's own forward), before and after the graph
passes; what has no mapping is an XtirImportError naming the fx node and its target."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import xtir
from xtir.frontend import from_torch, torch_fx
from xtir.model import compile_model

GRAPH_PIPELINE = "fold-constants,fuse-ewise-fma,dce,fuse-ops"


def test_without_torch_the_import_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    with pytest.raises(xtir.XtirImportError, match=r"from_torch needs PyTorch: pip install 'xtir\[torch\]'"):
        from_torch(object(), ())


torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install 'xtir[torch]')")
nn = torch.nn
F = torch.nn.functional


def leaves(value) -> list:
    """The tensors of a model's result in order (a tuple may hold tuples: x.chunk(2) among them)."""
    return [t for item in value for t in leaves(item)] if isinstance(value, tuple | list) else [value]


def run_both(model, *inputs, weights="constants", pipeline=None, rtol=1e-5, atol=1e-6):
    """Import, optionally transform, evaluate, and compare with torch; returns the module."""
    model = model.eval()
    imported = from_torch(model, inputs, weights=weights)
    module, params = imported if weights == "params" else (imported, [])
    if pipeline:
        module = xtir.transform(module, pipeline)
    with torch.no_grad():
        expected = leaves(model(*inputs))
    got = xtir.evaluate(module, *(x.numpy() for x in inputs), *params)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e.numpy(), rtol=rtol, atol=atol)
    return module


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))


class SmallCNN(nn.Module):
    """Two conv + relu + pool, a linear head: the CNN of issue 15."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc(x)


@pytest.mark.parametrize("batch", [1, 4])
@pytest.mark.parametrize("weights", ["constants", "params"])
def test_sequential_mlp(batch, weights):
    x = torch.randn(batch, 784)
    module = run_both(mlp(), x, weights=weights)
    fused = run_both(mlp(), x, weights=weights, pipeline=GRAPH_PIPELINE)
    text = str(fused)
    assert text.count("func.call @fused_dense_add_relu(") == 1 and text.count("func.call @fused_dense_add(") == 1
    assert xtir.parse(str(module)).is_structurally_equivalent(module)  # prints and parses back (weights in hex)


def test_params_are_the_weights_in_order_of_use():
    model = mlp()
    module, params = from_torch(model, torch.randn(1, 784), weights="params")
    (main,) = module.ops
    names = [a.name_hint for a in main.body.block.args]
    assert names == ["input", "_0.weight", "_0.bias", "_2.weight", "_2.bias"]
    expected = [model[0].weight, model[0].bias, model[2].weight, model[2].bias]
    for p, w in zip(params, expected, strict=True):
        np.testing.assert_array_equal(p, w.detach().numpy())


def test_a_zero_dimensional_buffer_as_a_param_keeps_its_shape():
    """np.ascontiguousarray makes a 0-d array 1-d: the parameter no longer fit its tensor<f32>
    argument (found by the graph fuzzer, seed 1227 with weights='params')."""

    class AddScalarBuffer(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("c", torch.tensor(1.5))

        def forward(self, x):
            return x + self.c

    x = torch.randn(3)
    module, params = from_torch(AddScalarBuffer(), x, weights="params")
    assert [p.shape for p in params] == [()]
    (got,) = xtir.evaluate(module, x.numpy(), *params)
    np.testing.assert_allclose(got, x.numpy() + 1.5)


def test_small_cnn():
    x = torch.randn(2, 1, 28, 28)
    run_both(SmallCNN(), x, rtol=1e-4, atol=1e-5)
    fused = run_both(SmallCNN(), x, pipeline=GRAPH_PIPELINE, rtol=1e-4, atol=1e-5)
    assert str(fused).count("func.call @fused_conv2d_bias_add_relu") == 2


class _Lambda(nn.Module):
    def __init__(self, fn, weight=None):
        super().__init__()
        self.fn = fn
        self.w = None if weight is None else nn.Parameter(weight)


class _Lambda1(_Lambda):
    def forward(self, x):
        return self.fn(self, x)


class _Lambda2(_Lambda):
    def forward(self, x, y):
        return self.fn(self, x, y)


def Lambda(fn, weight=None):
    """A module computing fn(module, *inputs) (fx traces fixed arities only); module.w is `weight`."""
    return (_Lambda1 if fn.__code__.co_argcount == 2 else _Lambda2)(fn, weight)


def x23():
    return torch.randn(2, 3)


def x1288():
    return torch.randn(1, 2, 8, 8)


def _max_values_unpacked(m, x):
    values, _ = x.max(1)  # fx makes a getitem for the unused indices too
    v, i = torch.max(x, dim=-1, keepdim=True)
    return values, v


def int13():
    return torch.tensor([[-3, 2, 9]], dtype=torch.int32)


@pytest.mark.parametrize(
    "fn, inputs",
    [
        (lambda m, x: F.relu(x) + torch.relu(x) * x.relu(), [x23]),
        (lambda m, x, y: (x - y) / (y * y + 1.0) - 2 * x, [x23, x23]),
        (lambda m, x, y: torch.add(x, y).sub(y).mul(x).div(3.0), [x23, x23]),
        (lambda m, x: x @ m.w.T + torch.mm(x, m.w.t()), [x23]),
        (lambda m, x: torch.matmul(x.transpose(0, 1), x), [x23]),
        (lambda m, x: x.permute(1, 0).reshape(6).view(2, -1), [x23]),
        (lambda m, x: torch.permute(x, (2, 0, 3, 1)).flatten(), [x1288]),
        (lambda m, x: torch.flatten(x, 1, 2) + 0.5, [x1288]),
        (lambda m, x: x.view(x.size(0), x.size(1) * 8, -1), [x1288]),
        (lambda m, x: (torch.softmax(x, dim=0), F.softmax(x, dim=-1), x.softmax(1)), [x23]),
        (lambda m, x: F.max_pool2d(x, 3, stride=2, padding=1), [x1288]),
        (lambda m, x: F.max_pool2d(x, (2, 3)), [x1288]),
        (lambda m, x: F.linear(x, m.w, None), [x23]),
        # F.sigmoid / F.tanh call the methods: fx records them as x.sigmoid() / x.tanh()
        (lambda m, x: (torch.sigmoid(x), x.sigmoid(), F.sigmoid(x), torch.tanh(x), x.tanh(), F.tanh(x)), [x23]),
        (lambda m, x: (F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.leaky_relu(x), F.leaky_relu(x, 0.3)),
         [x23]),
        (lambda m, x: (x[:, 1:3], x[..., ::2], x[1], x[-1, ::2], x[None, :, 1:2], x[:, -2:], x[:]), [x23]),
        (lambda m, x: (x[0, 1, 2:7:3, ...], x[..., 1], x[:, :, None, 1:8:4, 2]), [x1288]),
        (lambda m, x: (x.narrow(1, 1, 2), torch.narrow(x, 0, -1, 1), torch.chunk(x, 2, 1)[1], x.chunk(3, dim=-1)[2]),
         [x23]),
        (lambda m, x: (torch.split(x, 2, dim=1)[1], x.split([1, 1], 0)[0]), [x23]),
        (lambda m, x, y: (x > y, x >= 0, torch.lt(x, y), y.le(x), x == y, torch.ne(x, 1.0), x.gt(y), torch.greater(x, 0)),
         [x23, lambda: torch.randn(3).round()]),
        (lambda m, x, y: (torch.where(x > 0, x, 0.1 * x), torch.where(y < x, 1.0, y), torch.where(x != 0, x, y)),
         [x23, lambda: torch.randn(3)]),
        (lambda m, x, y: ((x > 0) == (y > 0), (x > 0) != (y > 0), (x > 0) == True, torch.ne(y > 0, False)),  # noqa: E712
         [x23, lambda: torch.randn(3)]),
        (lambda m, x: x.chunk(3, -1), [x23]),  # returned pieces: a tuple value in the output tuple
        (lambda m, x: (torch.split(x, [1, 2], 1), x), [x23]),
        (_max_values_unpacked, [x23]),
        # numpy's keywords, which torch takes for dim and keepdim
        (lambda m, x: (x.sum(axis=1), x.mean(1, keepdims=True), torch.amax(x, axis=0), torch.sum(x, axis=0, keepdims=True),
                       x.max(axis=1).values), [x23]),
        # hardtanh and relu6 of an integer tensor are integers (the float defaults are integral)
        (lambda m, x: (F.relu6(x), F.hardtanh(x), F.hardtanh(x, -2.0, 2.0), F.hardtanh(x, -2, 2)), [int13]),
    ],
)
def test_function_and_method_mappings(fn, inputs):
    arrays = [make() for make in inputs]
    run_both(Lambda(fn, torch.randn(4, 3)), *arrays)


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize(
    "layer, shape",
    [
        (nn.Conv2d(2, 3, 3), (1, 2, 8, 8)),
        (nn.Conv2d(2, 3, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), bias=False), (1, 2, 9, 8)),
        (nn.Conv2d(2, 3, 4, padding="same"), (2, 2, 7, 7)),
        (nn.Conv2d(2, 3, 3, padding="valid", dilation=2), (1, 2, 8, 8)),
        (nn.MaxPool2d(3, stride=1, padding=1), (1, 2, 5, 5)),
        (nn.Flatten(0, 2), (2, 3, 4, 5)),
        (nn.Flatten(), (2, 3, 4, 5)),
        (nn.Linear(5, 3), (2, 4, 5)),
        (nn.Softmax(dim=1), (2, 3, 4)),
        (nn.Sequential(nn.Identity(), nn.Dropout(0.5), nn.ReLU(inplace=True)), (2, 3)),
        (nn.Linear(8, 4), (8,)),  # a 1-d input: one row, a 1-d result
        (nn.Linear(8, 4), (2, 3, 8)),  # (batch, seq, feature)
        (nn.Sequential(nn.Sigmoid(), nn.Tanh()), (2, 3)),
        (nn.Sequential(nn.GELU(), nn.GELU(approximate="tanh")), (2, 3)),
        (nn.Sequential(nn.LeakyReLU(0.2), nn.LeakyReLU(inplace=True), nn.SiLU(), nn.SiLU(inplace=True)), (2, 3)),
        (nn.Sequential(nn.Hardtanh(-2.0, 0.5), nn.ReLU6(inplace=True), nn.Hardtanh()), (2, 3)),
    ],
)
def test_module_mappings(layer, shape):
    torch.manual_seed(0)
    run_both(nn.Sequential(layer), torch.randn(*shape), rtol=1e-5, atol=1e-5)


def test_hardtanh_modules_of_an_integer_tensor_stay_integers():
    x = torch.tensor([[-9, -1, 0, 1, 4, 7]], dtype=torch.int64)
    run_both(nn.Sequential(nn.ReLU6(), nn.Hardtanh(), nn.Hardtanh(-2.0, 3.0)), x)


def _compiled_matches_torch(model, *inputs):
    model = model.eval()
    compiled = compile_model(xtir.transform(from_torch(model, inputs), GRAPH_PIPELINE))
    with torch.no_grad():
        expected = leaves(model(*inputs))
    got = compiled(*(x.numpy() for x in inputs))
    for g, e in zip(got if isinstance(got, tuple) else (got,), expected, strict=True):
        assert g.dtype == e.numpy().dtype
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "fn, inputs",
    [
        # Python numbers import as 0-d constants: x * 2, 1 / n
        (lambda m, x: (x @ m.w.T) * 2 - 1 / x.size(0), [lambda: torch.randn(3, 4)]),
        (lambda m, x: (1 - x, x * 2.5), [lambda: torch.randn(2, 5)]),
        (lambda m, x: x * 3, [lambda: torch.tensor(1.5)]),  # a 0-d input and result
        (lambda m, x: x.view(x.size(0), -1) + 7, [lambda: torch.randint(-9, 9, (2, 3, 2))]),
    ],
)
def test_compiled_scalars_match_torch(fn, inputs):
    torch.manual_seed(0)
    _compiled_matches_torch(Lambda(fn, torch.randn(5, 4)), *(make() for make in inputs))


@pytest.mark.parametrize("model, shape", [
    (Lambda(lambda m, a, b: a @ b), [(8, 2048), (2048, 8)]),
    (nn.Sequential(nn.Linear(2048, 8), nn.ReLU()), [(4, 2048)]),
    (nn.Sequential(nn.Conv2d(256, 4, 3, padding=1)), [(1, 256, 4, 4)]),
])
def test_compiled_float16_sums_accumulate_in_float32(model, shape):
    """2048 float16 products summed in float16 were 3% off torch (which accumulates in float32)."""
    torch.manual_seed(0)
    model = model.half().eval()
    inputs = [torch.rand(s).half() for s in shape]
    compiled = compile_model(xtir.transform(from_torch(model, inputs), GRAPH_PIPELINE))
    with torch.no_grad():
        exact = model.double()(*(x.double() for x in inputs)).numpy()
    got = compiled(*(x.numpy() for x in inputs))
    assert got.dtype == np.float16
    assert np.abs(got - exact).max() <= 2e-3 * np.abs(exact).max()


ACTIVATIONS = [nn.Sigmoid(), nn.Tanh(), nn.SiLU(), nn.GELU(), nn.GELU(approximate="tanh"), nn.LeakyReLU(0.2)]


@pytest.mark.parametrize("activation", ACTIVATIONS, ids=repr)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
def test_compiled_activations_match_torch(activation, dtype):
    """A linear layer, the activation (fused into it) and a slice, compiled, against torch:
    float32 within 2 ulps (GELU: 1e-6 absolute), float16 (computed in float32 and rounded once,
    as torch does) within 2 ulps."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 40), activation, Lambda(lambda m, x: x[:, 3::2])).to(dtype).eval()
    x = (4 * torch.randn(3, 16)).to(dtype)
    module = xtir.transform(from_torch(model, (x,)), GRAPH_PIPELINE)
    assert "func.call @fused_dense_add_" in str(module)
    with torch.no_grad():
        expected = model(x).numpy()
    got = compile_model(module)(x.numpy())
    assert got.dtype == expected.dtype
    eps = np.finfo(expected.dtype).eps
    # near GELU's zeros 1 + erf(x/√2) cancels: libm's erff and torch's erf differ there by up to 1e-6 absolute
    atol = 1e-6 if isinstance(activation, nn.GELU) and dtype == torch.float32 else 2 * eps
    np.testing.assert_allclose(got, expected, rtol=2 * eps, atol=atol)


@pytest.mark.parametrize("pipeline", ["", GRAPH_PIPELINE])
def test_compiled_where_and_comparisons_match_torch(pipeline):
    """torch.where(x > 0, x, 0.1 * x) and a returned bool tensor, unfused and fused (the
    comparison inlined into the where: no bool buffer)."""
    model = Lambda(lambda m, x: (torch.where(x > 0, x, 0.1 * x), x <= 0.5))
    x = torch.randn(5, 33)
    module = xtir.transform(from_torch(model, (x,)), pipeline) if pipeline else from_torch(model, (x,))
    got = compile_model(module)(x.numpy())
    expected = model(x)
    assert got[1].dtype == np.bool_
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e.numpy())


@pytest.mark.parametrize("fn", [
    lambda m, x, y: ((x > 0) == (y > 0), torch.where((x > 0) != True, x, y)),  # noqa: E712
    lambda m, x, y: (x.chunk(3, -1), torch.split(y, [4, 1], 0)),
], ids=["bool_equality", "returned_pieces"])
def test_compiled_bool_equality_and_returned_pieces_match_torch(fn):
    """Booleans compared by == / != (i1 cmpi eq / ne) and torch.chunk's / split's tuples
    returned as they are (flattened into the results)."""
    torch.manual_seed(0)
    _compiled_matches_torch(Lambda(fn), torch.randn(5, 7), torch.randn(5, 7))


def test_a_folded_bool_constant_round_trips():
    """m.w > 0 folds to an i1 constant: stored as xDSL stores one (true is -1), so it prints,
    parses back to the same attribute, and is hoisted as the right booleans."""
    torch.manual_seed(0)
    model = Lambda(lambda m, x: torch.where(m.w > 0, x, 0.0), torch.tensor([1.0, -1.0, 2.0]))
    x = torch.randn(2, 3)
    module = run_both(model, x, pipeline="fold-constants")
    assert "arith.constant dense<[true, false, true]> : tensor<3xi1>" in str(module)
    assert xtir.parse(str(module)).is_structurally_equivalent(module)
    with torch.no_grad():
        np.testing.assert_array_equal(compile_model(module)(x.numpy()), model(x).numpy())


def test_compiled_float16_softmax_sums_in_float32():
    """2048 float16 exponentials summed in float16 were off torch by percents."""
    torch.manual_seed(0)
    model = Lambda(lambda m, x: F.softmax(x, dim=-1))
    x = torch.randn(4, 2048).half()
    with torch.no_grad():
        expected = model(x).numpy()
    got = compile_model(from_torch(model, (x,)))(x.numpy())
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, expected, rtol=np.finfo(np.float16).eps, atol=1e-7)


def test_shape_ops_on_weights_fold_away():
    module = run_both(Lambda(lambda m, x: x @ m.w.T, torch.randn(4, 3)), torch.randn(2, 3), pipeline="fold-constants")
    text = str(module)
    assert "tensor.transpose" not in text and "tensor.matmul" in text


def _refused(model, inputs, match):
    with pytest.raises(xtir.XtirImportError, match=match):
        from_torch(model.eval(), inputs)


@pytest.mark.filterwarnings("ignore:Implicit dimension choice for softmax")
@pytest.mark.parametrize(
    "model, match",
    [
        (nn.Sequential(nn.Linear(3, 3), nn.ELU()), r"fx node '_1' \(call_module ELU '1'\): no mapping for the module "
                                                    r"type ELU; mapped module types: Conv2d, Dropout, .*, Tanh$"),
        (Lambda(lambda m, x: x.cumsum(0)), r"fx node 'cumsum' \(call_method cumsum\): no mapping for this tensor "
                                           r"method; mapped: abs, add, amax, .*, view$"),
        (Lambda(lambda m, x: torch.cos(x)), r"fx node 'cos' \(call_function torch.cos\): no mapping for this function; "
                                            r"mapped: getattr, operator.abs, .*functional.leaky_relu, .*torch.where$"),
        (Lambda(lambda m, x: x[[0, 1]]), r"fx node 'getitem' .*: indexing a tensor with a list \(advanced indexing; "
                                         r"mapped: ints, slices, \.\.\. and None\)"),
        (Lambda(lambda m, x: x[True]), r"fx node 'getitem' .*: indexing a tensor with a bool \(advanced indexing"),
        (Lambda(lambda m, x: torch.where(x > 0, 1.0, 0.0)), r"fx node 'where' .*: torch.where of two Python numbers"),
        (Lambda(lambda m, x: x[:, 2:1]), r"fx node 'getitem' .*: the empty slice 2:1 of dimension 1 of size 3 \(graph "
                                         r"tensors have at least one element\)"),
        (Lambda(lambda m, x: x.split([3, 0], 1)[0]), r"fx node 'split' .*: a split of dimension 1 into \[3, 0\]"),
        (Lambda(lambda m, x: torch.add(x, x, alpha=2)), r"fx node 'add' .*: alpha=2"),
        (Lambda(lambda m, x: F.softmax(x)), r"softmax without dim"),
        (Lambda(lambda m, x: x.mT), r"fx node 'getattr_1' \(call_function getattr\): the tensor attribute 'mT'"),
        (Lambda(lambda m, x: x + "a"), r"the model fails on the example inputs: TypeError: unsupported operand"),
    ],
)
def test_unsupported_is_named(model, match):
    _refused(model, (torch.randn(2, 3),), match)


def test_unsupported_layers_are_named():
    _refused(nn.Sequential(nn.Conv2d(4, 4, 3, groups=2)), (torch.randn(1, 4, 6, 6),), r"grouped convolution \(groups=2\)")
    _refused(nn.Sequential(nn.MaxPool2d(2, ceil_mode=True)), (torch.randn(1, 1, 5, 5),), "ceil_mode")
    _refused(nn.Sequential(nn.Conv2d(1, 1, 3, padding_mode="reflect")), (torch.randn(1, 1, 5, 5),), "padding_mode 'reflect'")
    _refused(Lambda(lambda m, x, y: torch.matmul(x, y)), (torch.randn(2, 3), torch.randn(1, 3, 2)), r"matmul of 2x3 and 1x3x2")


def test_dropout_in_training_mode_is_refused():
    model = nn.Sequential(nn.Dropout(0.5)).train()
    with pytest.raises(xtir.XtirImportError, match=r"dropout in training mode \(call model.eval\(\) first\)"):
        from_torch(model, (torch.randn(2, 3),))


def test_in_place_relu_of_a_shared_value_is_refused():
    def fn(m, x):
        y = x * 2
        return F.relu(y, inplace=True) + y  # torch adds the relu'd y twice

    _refused(Lambda(fn), (torch.randn(2, 3),), "an in-place relu of a value that other nodes also use")

    def leaky(m, x):
        y = x * 2
        return F.leaky_relu(y, inplace=True) + y

    _refused(Lambda(leaky), (torch.randn(2, 3),), "an in-place leaky_relu of a value that other nodes also use")


def test_torch_disagreeing_with_the_import_is_an_error(monkeypatch):
    """A mapping that gets a shape wrong (here x.t() made the identity) is caught against torch."""
    monkeypatch.setattr(torch_fx._Importer, "_t", lambda self, x: x)
    match = r"fx node 't' \(call_method t\) imports as tensor<2x3xf32> but torch computes 3x2 of torch.float32"
    _refused(Lambda(lambda m, x: x.t()), (torch.randn(2, 3),), match)


INT32 = torch.arange(-3, 3, dtype=torch.int32).reshape(2, 3)


@pytest.mark.parametrize("fn, x, match", [
    # torch compares and computes in float: 0.5 made an int32 would turn x < 0.5 into x < 0
    (lambda m, x: x < 0.5, INT32, r"fx node 'lt' .*: the float 0.5 with a tensor of i32 \(torch computes in a float"),
    (lambda m, x: x == 16777216.0, INT32, r"fx node 'eq' .*: the float 16777216.0 with a tensor of i32"),
    (lambda m, x: x * 1.5, INT32, r"fx node 'mul' .*: the float 1.5 with a tensor of i32"),
    (lambda m, x: x > float("-inf"), INT32, r"fx node 'gt' .*: the float -inf with a tensor of i32"),
    (lambda m, x: x < 200, INT32.to(torch.int8), r"fx node 'lt' .*: the number 200 outside the range of i8"),
    (lambda m, x: x + 2**40, INT32, r"fx node 'add' .*: the number 1099511627776 outside the range of i32"),
    (lambda m, x: (x > 0) == 1, INT32, r"fx node 'eq' .*: the number 1 with a bool tensor"),
    (lambda m, x: (x > 0) < (x > 1), INT32, r"fx node 'lt' .*: tensor.less orders numbers; i1 \(booleans\) compare "
                                            r"only by equal and not_equal"),
    (lambda m, x: (x > 0) + (x > 1), INT32, r"fx node 'add' .*: tensor.add takes numbers, not i1 \(booleans\)"),
    (lambda m, x: (x > 0) * (x > 1), INT32, r"fx node 'mul' .*: tensor.multiply takes numbers, not i1"),
])
def test_numbers_and_booleans_torch_promotes_are_refused(fn, x, match):
    _refused(Lambda(fn), (x,), match)


def test_mixed_element_types_are_named_by_node():
    x, y = torch.randn(2, 3), torch.randn(2, 3).double()
    _refused(Lambda(lambda m, x, y: torch.where(x > 0, x, y)), (x, y),
             r"fx node 'where' \(call_function torch.where\): tensor.where mixes element types f32, f64")
    _refused(Lambda(lambda m, x, y: x < y), (x, y),
             r"fx node 'lt' \(call_function operator.lt\): tensor.less compares different element types f32, f64")


def test_untraceable_models_are_refused():
    def fn(m, x):
        return x if x.sum() > 0 else -x  # data-dependent control flow

    _refused(Lambda(fn), (torch.randn(2, 3),), "torch.fx cannot trace the model")


def test_bad_arguments():
    with pytest.raises(xtir.XtirImportError, match="weights must be 'constants' or 'params', got 'both'"):
        from_torch(mlp(), torch.randn(1, 784), weights="both")
    with pytest.raises(xtir.XtirImportError, match="example_inputs must be a tensor or a sequence of tensors"):
        from_torch(mlp(), [np.zeros((1, 784), np.float32)])


# Reductions, unary functions, casts, integer division, flip --------------------------------------

TARGETS = ["llvm", "cuda-cpu"]


def _on_target(model, inputs, target, pipeline=GRAPH_PIPELINE):
    """The model compiled for `target` (after `pipeline`) run on `inputs`, and torch's results."""
    model = model.eval()
    module = from_torch(model, inputs)
    compiled = compile_model(xtir.transform(module, pipeline) if pipeline else module, target=target)
    got = compiled(*(x.numpy() for x in inputs))
    with torch.no_grad():
        expected = [e.numpy() for e in leaves(model(*inputs))]
    got = list(got) if isinstance(got, tuple) else [got]
    assert [g.dtype for g in got] == [e.dtype for e in expected]
    assert [g.shape for g in got] == [e.shape for e in expected]
    return got, expected


EXACT = [
    # each element is torch's to the bit: negation (-0.0 included), |x|, clamps, flips, max
    lambda m, x: (-x, torch.neg(x), x.neg(), torch.negative(x), x.abs(), torch.abs(x), abs(x)),
    lambda m, x: (x.clamp(-0.5, 0.75), torch.clamp(x, min=0.1), torch.clip(x, max=-0.2), x.clip(0.3, 0.2),
                  F.hardtanh(x), F.relu6(4 * x), F.hardtanh(x, -2.0, 0.5)),
    lambda m, x: (torch.flip(x, [0, 2]), x.flip(-1), x.flip(1, 0)),
    lambda m, x: (x.amax(1), torch.amax(x, (0, 2), keepdim=True), x.max(), x.max(1)[0], torch.max(x, -1, True).values,
                  torch.max(x, dim=0).values),
    lambda m, x: (x.half(), x.float(), x.to(torch.int32), (3 * x).int(), (300 * x).to(torch.int16), x.bool(),
                  (x > 0).to(x.dtype), (x > 0).long(), x.double().type_as(x), x.to(dtype=torch.float64)),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
@pytest.mark.parametrize("fn", EXACT, ids=["negative_abs", "clamps", "flip", "max", "casts"])
def test_compiled_exact_ops_match_torch_bitwise(fn, dtype, target):
    """The ops whose every element is exact (a cast rounds once, to nearest even; a float made an
    integer truncates toward zero), on both paths: equal to torch's to the bit."""
    torch.manual_seed(0)
    x = torch.randn(3, 5, 7).to(dtype)
    x[0, 0, :3] = torch.tensor([0.0, -0.0, 1e-3])
    got, expected = _on_target(Lambda(fn), (x,), target)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)
        if np.issubdtype(g.dtype, np.floating):
            np.testing.assert_array_equal(np.signbit(g), np.signbit(e))  # -x of 0.0 is -0.0


def test_compiled_float_to_float16_rounds_to_nearest_even():
    """float32 and float64 values halfway between float16 neighbours, and integers past 2048
    (float16 steps by 2 there): rounded as torch rounds them (float64 and integers through float32)."""
    halfway = np.float32(1 + 2**-11)  # between 1 and 1 + 2**-10: ties to even 1.0
    x = torch.tensor([halfway, 1 + 3 * 2**-11, -halfway, 65519.0, 65520.0, 1e-8, 2049.0, 2051.0])
    fn = Lambda(lambda m, x: (x.half(), x.double().half(), x.int().half(), (x + 2**-30).half()))
    for target in TARGETS:
        got, expected = _on_target(fn, (x,), target)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, e)


UNARY = [
    (lambda m, x: (x.exp(), torch.exp(x - 1)), 2),
    (lambda m, x: (x.abs().log(), torch.log(x)), 2),  # log of a negative is NaN, as torch's
    (lambda m, x: (torch.sqrt(x.abs()), x.sqrt()), 0),
    (lambda m, x: (x.abs().rsqrt(), torch.rsqrt(x * x + 1)), 2),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
@pytest.mark.parametrize("fn, ulps", UNARY, ids=["exp", "log", "sqrt", "rsqrt"])
def test_compiled_float_functions_match_torch(fn, ulps, dtype, target):
    """exp, log and rsqrt (1 / sqrt: two roundings) within 2 ulps of torch in float32 (libm
    and torch's vectorized kernels each round their own way), sqrt exact; float16 is
    computed in float32 and rounded once, as torch: within 1 float16 ulp."""
    torch.manual_seed(0)
    x = (3 * torch.randn(4, 33)).to(dtype)
    got, expected = _on_target(Lambda(fn), (x,), target)
    eps = np.finfo(np.float32).eps * ulps if dtype == torch.float32 else np.finfo(np.float16).eps
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=eps, atol=0)


def test_float_functions_of_integers_compute_in_float32():
    x = torch.arange(1, 7, dtype=torch.int32).reshape(2, 3)
    got, expected = _on_target(Lambda(lambda m, x: (x.sqrt(), torch.exp(x), (x > 2).log())), (x,), "llvm")
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=2 * np.finfo(np.float32).eps)


def _reductions(m, x):
    return (x.sum(1, keepdim=True), torch.sum(x), x.sum((0, 2)), x.mean(-1), torch.mean(x, (0, 1), True), x.mean())


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
def test_compiled_sums_and_means_match_torch(dtype, target):
    """sum and mean over some or all dimensions, kept or dropped: float32 within 1e-6 of the
    largest magnitude (the order of the additions differs), float16 summed in float32 and
    rounded once: within 1 float16 ulp."""
    torch.manual_seed(0)
    x = torch.randn(4, 6, 5).to(dtype)
    got, expected = _on_target(Lambda(_reductions), (x,), target)
    eps = 1e-6 if dtype == torch.float32 else np.finfo(np.float16).eps
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=eps, atol=eps * np.abs(e).max())


def test_compiled_float16_sum_and_mean_accumulate_in_float32():
    """4096 float16 values summed in float16 lose every addend below half a step of the total
    (0.25 at 1000); summed in float32 and rounded once, they are torch's to the bit here."""
    torch.manual_seed(0)
    x = torch.rand(2, 4096).half()
    for target in TARGETS:
        got, expected = _on_target(Lambda(lambda m, x: (x.sum(-1), x.mean(-1))), (x,), target)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_allclose(g, e, rtol=np.finfo(np.float16).eps, atol=0)


@pytest.mark.parametrize("target", TARGETS)
def test_compiled_integer_sums_are_int64_as_torch(target):
    """torch sums int32 and bool tensors as int64 (an int32 sum of these would wrap)."""
    x = torch.full((3, 4), 2**30, dtype=torch.int32)
    x[1] = -5
    got, expected = _on_target(Lambda(lambda m, x: (x.sum(0), torch.sum(x), (x > 0).sum(1), x.amax(0))), (x,), target)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)


def test_the_graph_evaluator_maximum_of_zeros_is_the_compiled_ones():
    """A maximum over +0.0 and -0.0 is +0.0 in the compiled code (IEEE maximum) and so in the
    graph evaluator (np.max's sign depends on the order); a maximum of -0.0s alone is -0.0."""
    z = torch.tensor([[0.0, -0.0], [-0.0, 0.0], [-0.0, -0.0], [-1.0, -0.0]])
    module = from_torch(Lambda(lambda m, x: x.amax(1)), (z,))
    evaluated = xtir.evaluate(module, z.numpy())[0]
    compiled = compile_model(module, target="llvm")(z.numpy())
    np.testing.assert_array_equal(np.signbit(evaluated), [False, False, True, True])
    np.testing.assert_array_equal(np.signbit(compiled), np.signbit(evaluated))


@pytest.mark.parametrize("target", TARGETS)
def test_int64_clamp_bounds_are_exact(target):
    """An int64 clamp's bounds above 2**53 are kept exactly (a bound rounded through a float
    gave 2**53 for torch's 2**53 + 1), on the graph evaluator and compiled."""
    x = torch.tensor([0, 2**53, 2**62, -(2**63)], dtype=torch.int64)
    model = Lambda(lambda m, x: (x.clamp(min=2**53 + 1), x.clamp(max=2**63 - 1), x.clamp(-(2**62) - 1, 2**62 + 1)))
    got, expected = _on_target(model, (x,), target, pipeline=None)
    evaluated = xtir.evaluate(from_torch(model, (x,)), x.numpy())
    for g, v, e in zip(got, evaluated, expected, strict=True):
        np.testing.assert_array_equal(g, e)
        np.testing.assert_array_equal(v, e)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8], ids=str)
def test_compiled_integer_floor_and_trunc_division_match_torch(dtype, target):
    """Floor division rounds toward -inf and trunc division toward zero for every sign
    combination (the smallest value divided by 1 included), as torch's."""
    low = torch.iinfo(dtype).min
    a = torch.tensor([7, -7, 7, -7, 6, -6, 0, low, low, 13], dtype=dtype)
    b = torch.tensor([2, 2, -2, -2, 3, -3, 5, 1, 7, -4], dtype=dtype)

    def fn(m, a, b):
        return (a // b, torch.floor_divide(a, b), a.div(b, rounding_mode="floor"), torch.div(a, b, rounding_mode="trunc"),
                a // 3, -7 // b, a.floor_divide(-2), torch.div(a, -3, rounding_mode="trunc"))

    got, expected = _on_target(Lambda(fn), (a, b), target)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)


@pytest.mark.filterwarnings("error::xtir.XtirWarning")
def test_a_compiled_integer_division_does_not_warn():
    """default-schedule leaves the checked division's loop unmarked: LLVM cannot vectorize its
    branch, and warned about every model with an integer //."""
    a = torch.randint(-50, 50, (8, 64), dtype=torch.int32)
    b = torch.randint(1, 9, (8, 64), dtype=torch.int32)
    got, expected = _on_target(Lambda(lambda m, a, b: a // b), (a, b), "llvm", pipeline=None)
    np.testing.assert_array_equal(got[0], expected[0])


@pytest.mark.parametrize("target", TARGETS)
def test_an_integer_division_by_zero_is_a_run_time_error(target):
    """torch raises ZeroDivisionError for an integer division by zero; the compiled model
    raises too (the division's guard), instead of trapping or giving a number. So does the
    smallest value divided by -1, which torch wraps to itself."""
    model = from_torch(Lambda(lambda m, a, b: a // b), (torch.ones(3, dtype=torch.int32),) * 2)
    compiled = compile_model(model, target=target)
    with pytest.raises(xtir.XtirEvaluationError, match=r"on 4, 0: division by zero"):
        compiled(np.array([1, 4, 2], np.int32), np.array([1, 0, 1], np.int32))
    low = np.iinfo(np.int32).min
    with pytest.raises(xtir.XtirEvaluationError, match=rf"on {low}, -1: a signed division that overflows"):
        compiled(np.array([low, 4, 2], np.int32), np.array([-1, 1, 1], np.int32))
    with pytest.raises(xtir.XtirEvaluationError, match=r"'tensor.floor_divide' on 4, 0: division by zero"):
        xtir.evaluate(model, np.array([1, 4, 2], np.int32), np.array([1, 0, 1], np.int32))


def test_a_0_d_result_runs_on_cuda_cpu():
    """A reduction over all dimensions returns a 0-d tensor: its buffer is one element,
    which the GPU model passed as the 0-d array (the kernel refused its shape)."""
    got, expected = _on_target(Lambda(lambda m, x: (x.sum(), x * 2)), (torch.tensor(1.5),), "cuda-cpu", pipeline=None)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("fn, x, match", [
    (lambda m, x: x // 2, torch.randn(2, 3), r"fx node 'floordiv' \(call_function operator.floordiv\): floor division "
                                             r"of f32 tensors \(mapped: integer tensors\)"),
    (lambda m, x: torch.div(x, 2.0, rounding_mode="trunc"), torch.randn(2, 3), r"trunc division of f32 tensors"),
    (lambda m, x: x // 0, INT32, r"the model fails on the example inputs: RuntimeError: ZeroDivisionError"),
    (lambda m, x: x.max(1)[1], torch.randn(2, 3), r"fx node 'getitem' .*: the indices of max\(dim\) \(argmax\)"),
    (lambda m, x: x.max(1).indices, torch.randn(2, 3), r"the indices of max\(dim\) \(argmax\)"),
    (lambda m, x: torch.max(x, x), torch.randn(2, 3), r"fx node 'max_1' .*: torch.max of two tensors"),
    (lambda m, x: x.sum(1, dtype=torch.float64), torch.randn(2, 3), r"sum with dtype=torch.float64"),
    (lambda m, x: torch.clamp(x, 0.0, out=None), torch.randn(2, 3), r"fx node 'clamp' .*: unsupported arguments to "
                                                                     r"torch.clamp: got an unexpected keyword argument 'out'$"),
    (lambda m, x: x.clamp(min=x), torch.randn(2, 3), r"fx node 'clamp' .*: a clamp bound of type BlockArgument "
                                                     r"\(mapped: Python numbers\)"),
    (lambda m, x: x.clamp(0.5), INT32, r"the float bound 0.5 with a tensor of i32 \(torch computes in a float type\)"),
    (lambda m, x: x.to("cpu"), torch.randn(2, 3), r"to\(\) with a device, copy= or other options"),
    (lambda m, x: m.w.int() + x, INT32, r"fx node 'int_1' .*: the constant 3000000000.0 made i32: outside its range, undefined "
                                        r"in torch"),
    (lambda m, x: -(x > 0), INT32, r"the model fails on the example inputs: RuntimeError: Negation, the `-` operator, "
                                   r"on a bool tensor is not supported"),
    # fx records x[::-1] as a getitem; torch itself refuses the step (torch.flip reverses a dimension)
    (lambda m, x: x[::-1], torch.randn(2, 3), r"the model fails on the example inputs: ValueError: step must be greater "
                                              r"than zero"),
])
def test_unsupported_variants_are_refused_by_name(fn, x, match):
    _refused(Lambda(fn, torch.tensor([1.0, 3e9, -2.0])), (x,), match)
