"""Import a PyTorch model through torch.fx into a tensor-dialect graph function (seed 003's from_fx).

    module = from_torch(model, (x,))                              # weights as constants
    module, weights = from_torch(model, (x,), weights="params")   # weights as parameters

`torch.fx.symbolic_trace` gives the model's graph of modules, functions and methods;
each node maps to graph ops (nn.Linear to dense + add, nn.Conv2d to conv2d + bias_add,
...). The example inputs fix every shape: the graph is static, `x.size(0)` is a number,
and torch's own shape propagation over them (fx's ShapeProp) checks the shape and dtype
of every value the import produces, so that a mapping that disagrees with torch is an
error instead of a wrong model. Anything without a mapping is an `XtirImportError`
naming the fx node, its target and what is mapped.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from xtir.dialects import tensor
from xtir.errors import XtirImportError
from xtir.interpreters.block import numpy_dtype
from xtir.interpreters.tensor import dense_from_numpy, dense_to_numpy


def _import_torch():
    try:
        import torch
        import torch.fx
        from torch.fx.passes.shape_prop import ShapeProp
    except ImportError:
        raise XtirImportError("from_torch needs PyTorch: pip install 'xtir[torch]'") from None
    return torch, ShapeProp


def from_torch(model, example_inputs, weights: str = "constants", func_name: str = "main"):
    """A module with one graph function `func_name` computing `model` on inputs shaped like
    `example_inputs` (a tensor or a tuple of tensors).

    weights="constants": parameters and buffers become `arith.constant`s; returns the module.
    weights="params": they become trailing function parameters, in order of first use;
    returns (module, [numpy arrays to pass for them])."""
    torch, shape_prop = _import_torch()
    if weights not in ("constants", "params"):
        raise XtirImportError(f"from_torch: weights must be 'constants' or 'params', got {weights!r}")
    inputs = (example_inputs,) if isinstance(example_inputs, torch.Tensor) else tuple(example_inputs)
    if not all(isinstance(x, torch.Tensor) for x in inputs):
        raise XtirImportError("from_torch: example_inputs must be a tensor or a sequence of tensors")
    try:
        graph_module = torch.fx.symbolic_trace(model)
    except Exception as e:  # fx raises TraceError, TypeError, NotImplementedError, ... on dynamic code
        raise XtirImportError(f"from_torch: torch.fx cannot trace the model: {type(e).__name__}: {e}") from None
    try:
        with torch.no_grad():
            shape_prop(graph_module).propagate(*inputs)
    except Exception as e:  # whatever the model raises on these inputs
        cause = e.__cause__ or e
        raise XtirImportError(
            f"from_torch: the model fails on the example inputs: {type(cause).__name__}: {cause}"
        ) from None
    importer = _Importer(torch, graph_module, inputs, as_params=weights == "params")
    module = importer.run(func_name)
    return (module, importer.param_arrays) if weights == "params" else module


_DTYPES = {
    "float32": f32,
    "float64": f64,
    "float16": f16,
    "int64": i64,
    "int32": i32,
    "int16": i16,
    "int8": i8,
    "bool": i1,
}


def element_type_of(dtype) -> Attribute | None:
    """The xDSL element type of a torch dtype, or None."""
    return _DTYPES.get(str(dtype).removeprefix("torch."))


_FLOAT_FUNCTIONS = {"exp": tensor.ExpOp, "log": tensor.LogOp, "sqrt": tensor.SqrtOp, "rsqrt": tensor.RsqrtOp}
"""torch functions (and tensor methods) of float tensors; an integer tensor is made float32 first, as torch does."""

_CAST_METHODS = {"float": f32, "half": f16, "double": f64, "int": i32, "long": i64, "short": i16, "char": i8, "bool": i1}


_NUMPY_KEYWORDS = {"axis": "dim", "keepdims": "keepdim"}
"""numpy's names that torch accepts for a native function's dim and keepdim (`x.sum(axis=1)`)."""


class _MaxWithIndices:
    """`x.max(dim)`: the values (an fx getitem 0 or `.values`); the indices (argmax) have no mapping."""

    def __init__(self, values: SSAValue):
        self.values = values

    def select(self, index, used: bool):
        """The values for index 0; the indices only where nothing reads them (`values, _ =
        x.max(dim)` makes an fx getitem 1 with no users)."""
        if index in (0, -2):
            return self.values
        if not used:
            return None
        raise _Unsupported("the indices of max(dim) (argmax); mapped: its values, [0] or .values")


def _name_hint(name: str, fallback: str = "v") -> str:
    """An SSA name from a torch name (`0.weight` -> `_0.weight`, `relu_1` -> `relu`).

    xDSL drops a trailing `_<digits>` from names (it numbers repeated names itself), which
    would leave fx's `_0` empty: such a name becomes `fallback`."""
    hint = re.sub(r"_\d+$", "", re.sub(r"[^A-Za-z0-9_$.-]", "_", name))
    if not hint:
        return fallback
    return hint if not hint[0].isdigit() else "_" + hint


def _flattened(value: Any) -> list[Any]:
    return [v for item in value for v in _flattened(item)] if isinstance(value, tuple | list) else [value]


class _Unsupported(Exception):
    """Raised by a mapping for what it cannot import; the importer names the node."""


def _pair(value) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


class _Importer:
    def __init__(self, torch, graph_module, inputs: Sequence[Any], as_params: bool):
        self.torch = torch
        self.gm = graph_module
        self.inputs = inputs
        self.as_params = as_params
        self.param_arrays: list[np.ndarray] = []
        self.block = Block()
        self.env: dict[Any, Any] = {}
        self.weights: dict[int, SSAValue] = {}
        self.named: set[SSAValue] = set()
        self.modules = dict(graph_module.named_modules())
        F = torch.nn.functional
        nn = torch.nn
        self.module_maps: dict[type, Callable[..., Any]] = {
            nn.Linear: self._nn_linear,
            nn.ReLU: lambda node, m, x: self._relu(node, x, m.inplace),
            nn.Conv2d: self._nn_conv2d,
            nn.MaxPool2d: lambda node, m, x: self._max_pool2d(
                x, m.kernel_size, m.stride, m.padding, m.dilation, m.ceil_mode, m.return_indices
            ),
            nn.Flatten: lambda node, m, x: self._flatten(x, m.start_dim, m.end_dim),
            nn.Softmax: lambda node, m, x: self._softmax(x, m.dim),
            nn.Identity: lambda node, m, x: x,
            nn.Sigmoid: lambda node, m, x: self.emit(tensor.SigmoidOp(x)),
            nn.Tanh: lambda node, m, x: self.emit(tensor.TanhOp(x)),
            nn.SiLU: lambda node, m, x: self._activation(node, tensor.SiluOp(x), m.inplace),
            nn.GELU: lambda node, m, x: self.emit(tensor.GeluOp(x, m.approximate)),
            nn.LeakyReLU: lambda node, m, x: self._activation(node, tensor.LeakyReluOp(x, m.negative_slope), m.inplace),
            nn.Dropout: self._nn_dropout,
            nn.Hardtanh: lambda node, m, x: self._hardtanh(node, x, m.min_val, m.max_val, m.inplace),
            nn.ReLU6: lambda node, m, x: self._hardtanh(node, x, 0.0, 6.0, m.inplace),
        }
        self.function_maps: dict[Any, Callable[..., Any]] = {
            F.relu: lambda node, x, inplace=False: self._relu(node, x, inplace),
            torch.relu: lambda node, x: self._relu(node, x, False),
            torch.sigmoid: lambda node, x: self.emit(tensor.SigmoidOp(x)),
            torch.tanh: lambda node, x: self.emit(tensor.TanhOp(x)),
            F.silu: lambda node, x, inplace=False: self._activation(node, tensor.SiluOp(x), inplace),
            F.gelu: lambda node, x, approximate="none": self.emit(tensor.GeluOp(x, approximate)),
            F.leaky_relu: lambda node, x, negative_slope=0.01, inplace=False: self._activation(
                node, tensor.LeakyReluOp(x, negative_slope), inplace
            ),
            torch.narrow: lambda node, x, dim, start, length: self._narrow(x, dim, start, length),
            torch.chunk: lambda node, x, chunks, dim=0: self._chunk(x, chunks, dim),
            torch.split: lambda node, x, split_size_or_sections, dim=0: self._split(x, split_size_or_sections, dim),
            F.linear: lambda node, x, w, b=None: self._linear(x, w, b),
            F.conv2d: lambda node, x, w, b=None, stride=1, padding=0, dilation=1, groups=1: self._conv2d(
                x, w, b, stride, padding, dilation, groups
            ),
            F.max_pool2d: self._f_max_pool2d,
            torch.flatten: lambda node, x, start_dim=0, end_dim=-1: self._flatten(x, start_dim, end_dim),
            F.softmax: lambda node, x, dim=None, _stacklevel=3, dtype=None: self._softmax(x, dim, dtype),
            torch.softmax: lambda node, x, dim, dtype=None: self._softmax(x, dim, dtype),
            operator.add: lambda node, a, b: self._binary(tensor.AddOp, operator.add, a, b),
            torch.add: lambda node, a, b, alpha=1: self._binary(tensor.AddOp, operator.add, a, b, alpha),
            operator.sub: lambda node, a, b: self._binary(tensor.SubtractOp, operator.sub, a, b),
            torch.sub: lambda node, a, b, alpha=1: self._binary(tensor.SubtractOp, operator.sub, a, b, alpha),
            operator.mul: lambda node, a, b: self._binary(tensor.MultiplyOp, operator.mul, a, b),
            torch.mul: lambda node, a, b: self._binary(tensor.MultiplyOp, operator.mul, a, b),
            operator.truediv: lambda node, a, b: self._binary(tensor.DivideOp, operator.truediv, a, b),
            torch.div: lambda node, a, b, rounding_mode=None: self._divide(a, b, rounding_mode),
            operator.floordiv: lambda node, a, b: self._divide(a, b, "floor"),
            torch.floor_divide: lambda node, a, b: self._divide(a, b, "floor"),
            **{f: lambda node, x: self._negative(x) for f in (operator.neg, torch.neg, torch.negative)},
            **{f: lambda node, x: self._unary(tensor.AbsOp, x) for f in (operator.abs, torch.abs)},
            **{getattr(torch, name): self._float_function(op_class) for name, op_class in _FLOAT_FUNCTIONS.items()},
            **{f: lambda node, x, min=None, max=None: self._clamp(node, x, min, max) for f in (torch.clamp, torch.clip)},
            F.hardtanh: lambda node, x, min_val=-1.0, max_val=1.0, inplace=False: self._hardtanh(
                node, x, min_val, max_val, inplace
            ),
            F.relu6: lambda node, x, inplace=False: self._hardtanh(node, x, 0.0, 6.0, inplace),
            torch.sum: lambda node, x, dim=None, keepdim=False, dtype=None: self._sum(x, dim, keepdim, dtype),
            torch.mean: lambda node, x, dim=None, keepdim=False, dtype=None: self._mean(x, dim, keepdim, dtype),
            torch.amax: lambda node, x, dim=(), keepdim=False: self._amax(x, dim, keepdim),
            torch.max: lambda node, x, dim=None, keepdim=False: self._max(x, dim, keepdim),
            torch.flip: lambda node, x, dims: self._flip(x, dims),
            **{f: self._comparison(op_class, python_op) for op_class, python_op, fns in self._comparisons()
               for f in fns},
            torch.where: lambda node, condition, a, b: self._where(condition, a, b),
            operator.matmul: lambda node, a, b: self._matmul(a, b),
            torch.matmul: lambda node, a, b: self._matmul(a, b),
            torch.mm: lambda node, a, b: self._matmul(a, b),
            torch.transpose: lambda node, x, dim0, dim1: self._transpose(x, dim0, dim1),
            torch.t: lambda node, x: self._t(x),
            torch.permute: lambda node, x, dims: self._permute(x, dims),
            torch.reshape: lambda node, x, shape: self._reshape(node, x),
            operator.getitem: self._getitem,
            getattr: self._getattr,
            F.dropout: lambda node, x, p=0.5, training=True, inplace=False: self._dropout(x, training),
        }
        self.method_maps: dict[str, Callable[..., Any]] = {
            "relu": lambda node, x: self._relu(node, x, False),
            "sigmoid": lambda node, x: self.emit(tensor.SigmoidOp(x)),
            "tanh": lambda node, x: self.emit(tensor.TanhOp(x)),
            "narrow": lambda node, x, dim, start, length: self._narrow(x, dim, start, length),
            "chunk": lambda node, x, chunks, dim=0: self._chunk(x, chunks, dim),
            "split": lambda node, x, split_size, dim=0: self._split(x, split_size, dim),
            "add": lambda node, a, b, alpha=1: self._binary(tensor.AddOp, operator.add, a, b, alpha),
            "sub": lambda node, a, b, alpha=1: self._binary(tensor.SubtractOp, operator.sub, a, b, alpha),
            "mul": lambda node, a, b: self._binary(tensor.MultiplyOp, operator.mul, a, b),
            "div": lambda node, a, b, rounding_mode=None: self._divide(a, b, rounding_mode),
            "matmul": lambda node, a, b: self._matmul(a, b),
            **{python_op.__name__: self._comparison(op_class, python_op) for op_class, python_op, _ in self._comparisons()},
            "flatten": lambda node, x, start_dim=0, end_dim=-1: self._flatten(x, start_dim, end_dim),
            "view": lambda node, x, *shape: self._reshape(node, x),
            "reshape": lambda node, x, *shape: self._reshape(node, x),
            "transpose": lambda node, x, dim0, dim1: self._transpose(x, dim0, dim1),
            "permute": lambda node, x, *dims: self._permute(x, dims),
            "t": lambda node, x: self._t(x),
            "softmax": lambda node, x, dim, dtype=None: self._softmax(x, dim, dtype),
            "size": lambda node, x, dim=None: self._size(x, dim),
            "floor_divide": lambda node, a, b: self._divide(a, b, "floor"),
            "neg": lambda node, x: self._negative(x),
            "negative": lambda node, x: self._negative(x),
            "abs": lambda node, x: self._unary(tensor.AbsOp, x),
            **{name: self._float_function(op_class) for name, op_class in _FLOAT_FUNCTIONS.items()},
            "clamp": lambda node, x, min=None, max=None: self._clamp(node, x, min, max),
            "clip": lambda node, x, min=None, max=None: self._clamp(node, x, min, max),
            "sum": lambda node, x, dim=None, keepdim=False, dtype=None: self._sum(x, dim, keepdim, dtype),
            "mean": lambda node, x, dim=None, keepdim=False, dtype=None: self._mean(x, dim, keepdim, dtype),
            "amax": lambda node, x, dim=(), keepdim=False: self._amax(x, dim, keepdim),
            "max": lambda node, x, dim=None, keepdim=False: self._max(x, dim, keepdim),
            "flip": lambda node, x, *dims: self._flip(x, dims[0] if len(dims) == 1 and isinstance(dims[0], Sequence) else dims),
            **{name: lambda node, x, dtype=dtype: self._astype(node, x, dtype) for name, dtype in _CAST_METHODS.items()},
            "to": self._to,
            "type": lambda node, x, dtype: self._astype(node, x, dtype),
            "type_as": lambda node, x, other: self._astype(node, x, other.type.element_type),
            "dim": lambda node, x: len(self._shape(x)),
        }

    # ---- driving the graph ----

    def run(self, func_name: str) -> ModuleOp:
        results: list[SSAValue] = []
        for node in self.gm.graph.nodes:
            if node.op == "output":
                results = self._outputs(node)
                break
            self.env[node] = self._import_node(node)
        self.block.add_op(func.ReturnOp(*results))
        arg_types = [a.type for a in self.block.args]
        f = func.FuncOp(func_name, (arg_types, [r.type for r in results]), Region(self.block))
        module = ModuleOp([f])
        try:
            module.verify()
        except VerifyException as e:
            raise XtirImportError(f"from_torch: the imported graph does not verify: {e}") from None
        return module

    def _import_node(self, node) -> Any:
        last = self.block.last_op
        try:
            value = self._convert(node)
            self._verify_after(last)
        except (_Unsupported, VerifyException) as e:
            raise XtirImportError(f"from_torch: cannot import fx node '{node.name}' ({self._describe(node)}): {e}") from None
        if isinstance(value, SSAValue):
            self._check_against_torch(node, value)
            if value not in self.named:  # not a weight, nor an input passed through (nn.Identity)
                value.name_hint = _name_hint(node.name, self._kind(node))
                self.named.add(value)
        return value

    def _verify_after(self, last: Operation | None) -> None:
        """Verify the ops a node added after `last`: a verifier error (mixed element types, ...)
        then names the node instead of surfacing in the whole graph's verification."""
        op = self.block.first_op if last is None else last.next_op
        while op is not None:
            op.verify()
            op = op.next_op

    def _convert(self, node) -> Any:
        if node.op == "placeholder":
            return self._placeholder(node)
        if node.op == "get_attr":
            return self._attribute(node.target)
        args = self.torch.fx.node.map_arg(node.args, lambda n: self.env[n])
        kwargs = self.torch.fx.node.map_arg(node.kwargs, lambda n: self.env[n])
        if node.op != "call_module":  # torch has run the call, so an alias it took names dim or keepdim
            kwargs = {_NUMPY_KEYWORDS.get(k, k): v for k, v in kwargs.items()}
        if node.op == "call_module":
            module = self.modules[node.target]
            mapping = self.module_maps.get(type(module))
            if mapping is None:
                mapped = sorted(t.__name__ for t in self.module_maps)
                raise _Unsupported(f"no mapping for the module type {type(module).__name__}; "
                                   f"mapped module types: {', '.join(mapped)}")
            return mapping(node, module, *args, **kwargs)
        is_function = node.op == "call_function"
        mapping = (self.function_maps if is_function else self.method_maps).get(node.target)
        if mapping is None:
            raise _Unsupported(f"no mapping for this {'function' if is_function else 'tensor method'}; "
                               f"mapped: {', '.join(self._mapped(is_function))}")
        try:
            return mapping(node, *args, **kwargs)
        except TypeError as e:  # arguments the mapping does not know (e.g. out=)
            reason = str(e).split("() ", 1)[-1]  # drop the mapping's own name (a lambda's)
            raise _Unsupported(f"unsupported arguments to {self._target_name(node)}: {reason}") from None

    def _target_name(self, node) -> str:
        """The torch function (torch.sum) or tensor method (Tensor.sum) a node calls."""
        if node.op == "call_function":
            return self.torch.fx.node._get_qualified_name(node.target).removeprefix("_")
        return f"Tensor.{node.target}"

    def _mapped(self, functions: bool) -> list[str]:
        """The functions (as fx names them) or tensor methods the importer maps, sorted."""
        if not functions:
            return sorted(self.method_maps)
        qualified = self.torch.fx.node._get_qualified_name
        return sorted({qualified(f).removeprefix("_") for f in self.function_maps})

    def _kind(self, node) -> str:
        """A name for what the node computes (fx names nn.Sequential's layers `_0`, `_1`, ...)."""
        target = type(self.modules[node.target]).__name__ if node.op == "call_module" else str(node.target)
        return _name_hint(target.rsplit(".", 1)[-1].lower())

    def _describe(self, node) -> str:
        if node.op == "call_module":
            return f"call_module {type(self.modules[node.target]).__name__} '{node.target}'"
        if node.op == "call_function":
            # torch.tanh, torch.nn.functional.relu, operator.add (fx's own names for targets)
            return f"call_function {self.torch.fx.node._get_qualified_name(node.target).removeprefix('_')}"
        return f"{node.op} {node.target}"

    def _check_against_torch(self, node, value: SSAValue) -> None:
        meta = node.meta.get("tensor_meta")
        if meta is None or not hasattr(meta, "shape"):
            raise _Unsupported("torch gives no tensor here")
        expected = tuple(meta.shape)
        got = tensor.shape_of(value.type)
        element = element_type_of(meta.dtype)
        if got != expected or element != value.type.element_type:
            raise XtirImportError(
                f"from_torch: fx node '{node.name}' ({self._describe(node)}) imports as "
                f"{value.type} but torch computes {tensor.fmt(expected)} of {meta.dtype}"
            )

    def _outputs(self, node) -> list[SSAValue]:
        flat: list[Any] = []
        # a node's value is a tuple where it is torch.chunk's or split's pieces
        self.torch.fx.node.map_arg(node.args[0], lambda n: flat.extend(_flattened(self.env[n])))
        if not flat or not all(isinstance(v, SSAValue) for v in flat):
            raise XtirImportError("from_torch: the model must return a tensor or a tuple of tensors")
        return flat

    # ---- values ----

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def _placeholder(self, node) -> SSAValue:
        k = len(self.block.args)
        if k >= len(self.inputs):
            raise _Unsupported(f"the model takes more inputs than the {len(self.inputs)} example inputs")
        arg = self.block.insert_arg(self._tensor_type(self.inputs[k]), k)
        return arg

    def _tensor_type(self, t) -> TensorType:
        element = element_type_of(t.dtype)
        if element is None:
            raise _Unsupported(f"tensors of {t.dtype} are not supported")
        return TensorType(element, tuple(t.shape))

    def _attribute(self, target: str) -> Any:
        value: Any = self.gm
        for part in target.split("."):
            value = getattr(value, part)
        if not isinstance(value, self.torch.Tensor):
            raise _Unsupported(f"attribute '{target}' is a {type(value).__name__}, not a tensor")
        return self.weight(value, target)

    def weight(self, t, name: str) -> SSAValue:
        """A parameter or buffer as a constant or a trailing parameter (once per tensor)."""
        if id(t) in self.weights:
            return self.weights[id(t)]
        t_type = self._tensor_type(t)
        array = t.detach().cpu().numpy()
        if self.as_params:
            value: SSAValue = self.block.insert_arg(t_type, len(self.block.args))
            self.param_arrays.append(np.require(array, requirements="C"))  # ascontiguousarray makes 0-d 1-d
        else:
            constant = arith.ConstantOp(dense_from_numpy(array, t_type.element_type))
            self.block.add_op(constant)
            value = constant.result
        value.name_hint = _name_hint(name)
        self.named.add(value)
        self.weights[id(t)] = value
        return value

    def _scalar(self, value: float | int, like: SSAValue) -> SSAValue:
        """A Python number as a 0-d constant of `like`'s element type."""
        if not isinstance(value, int | float):
            raise _Unsupported(f"an operand of type {type(value).__name__}")
        element = like.type.element_type
        dtype = numpy_dtype(element)
        if element == i1 and not isinstance(value, bool):
            raise _Unsupported(f"the number {value} with a bool tensor (torch promotes both to a number type)")
        if isinstance(value, float) and not np.issubdtype(dtype, np.floating):
            # torch promotes both to a float type (x < 0.5 compares in float): made an integer, it would differ
            raise _Unsupported(f"the float {value} with a tensor of {element} (torch computes in a float type)")
        if np.issubdtype(dtype, np.integer) and not np.iinfo(dtype).min <= value <= np.iinfo(dtype).max:
            raise _Unsupported(f"the number {value} outside the range of {element}, the type of the tensor it meets")
        return self.emit(arith.ConstantOp(dense_from_numpy(np.array(value, dtype), element)))

    def _tensors(self, a, b) -> tuple[SSAValue, SSAValue]:
        """`a` and `b`, at least one a tensor, with a Python number made a 0-d constant of the other's type."""
        a = a if isinstance(a, SSAValue) else self._scalar(a, b)
        return a, b if isinstance(b, SSAValue) else self._scalar(b, a)

    def _element(self, x: SSAValue) -> Attribute:
        self._shape(x)
        return x.type.element_type

    def _shape(self, x: SSAValue) -> tuple[int, ...]:
        if not isinstance(x, SSAValue):
            raise _Unsupported(f"expected a tensor, got {type(x).__name__}")
        return tensor.shape_of(x.type)

    def _axis(self, axis: int, x: SSAValue) -> int:
        rank = len(self._shape(x))
        if not -rank <= axis < rank:
            raise _Unsupported(f"dimension {axis} of a {rank}-d tensor")
        return axis % rank

    # ---- mappings ----

    def _nn_linear(self, node, m, x):
        w = self.weight(m.weight, f"{node.target}.weight")
        bias = None if m.bias is None else self.weight(m.bias, f"{node.target}.bias")
        return self._linear(x, w, bias)

    def _linear(self, x: SSAValue, w: SSAValue, b: SSAValue | None) -> SSAValue:
        """x·Wᵀ (+ b); leading dimensions of x are flattened around a 2-d dense (none: one row)."""
        shape = self._shape(x)
        if not shape:
            raise _Unsupported("linear of a 0-d input")
        # a 1-d input is one row (torch returns a 1-d result)
        flat = x if len(shape) == 2 else self.emit(tensor.ReshapeOp(x, (int(np.prod(shape[:-1])), shape[-1])))
        y = self.emit(tensor.DenseOp(flat, w))
        if b is not None:
            y = self.emit(tensor.AddOp(y, b))
        if len(shape) != 2:
            y = self.emit(tensor.ReshapeOp(y, (*shape[:-1], self._shape(w)[0])))
        return y

    def _relu(self, node, x: SSAValue, inplace: bool) -> SSAValue:
        return self._activation(node, tensor.ReluOp(x), inplace)

    def _activation(self, node, op: Operation, inplace: bool) -> SSAValue:
        if inplace and len(node.args[0].users) > 1:
            # value semantics cannot express that the other users see the activated tensor
            raise _Unsupported(f"an in-place {op.name.removeprefix('tensor.')} of a value that other nodes also use")
        return self.emit(op)

    def _nn_conv2d(self, node, m, x):
        if m.padding_mode != "zeros":
            raise _Unsupported(f"padding_mode '{m.padding_mode}'")
        w = self.weight(m.weight, f"{node.target}.weight")
        b = None if m.bias is None else self.weight(m.bias, f"{node.target}.bias")
        return self._conv2d(x, w, b, m.stride, m.padding, m.dilation, m.groups)

    def _conv2d(self, x, w, b, stride, padding, dilation, groups) -> SSAValue:
        if groups != 1:
            raise _Unsupported(f"grouped convolution (groups={groups})")
        dilation = _pair(dilation)
        if isinstance(padding, str):
            padding = self._string_padding(padding, self._shape(w)[2:], dilation)
        else:
            padding = (*_pair(padding), *_pair(padding))
        y = self.emit(tensor.Conv2dOp(x, w, _pair(stride), padding, dilation))
        return y if b is None else self.emit(tensor.BiasAddOp(y, b, axis=1))

    @staticmethod
    def _string_padding(padding: str, kernel: Sequence[int], dilation: tuple[int, int]) -> tuple[int, ...]:
        if padding == "valid":
            return (0, 0, 0, 0)
        if padding != "same":
            raise _Unsupported(f"padding '{padding}'")
        # torch pads (total // 2) before and the rest after
        total = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return (total[0] // 2, total[1] // 2, total[0] - total[0] // 2, total[1] - total[1] // 2)

    def _max_pool2d(self, x, kernel, stride, padding, dilation, ceil_mode, return_indices) -> SSAValue:
        if _pair(dilation) != (1, 1) or ceil_mode or return_indices:
            raise _Unsupported("max_pool2d with dilation, ceil_mode or return_indices")
        kernel = _pair(kernel)
        strides = kernel if stride is None or stride == [] else _pair(stride)
        pad = _pair(padding)
        return self.emit(tensor.MaxPool2dOp(x, kernel, strides, (*pad, *pad)))

    def _f_max_pool2d(self, node, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        return self._max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode, return_indices)

    def _flatten(self, x: SSAValue, start_dim: int, end_dim: int) -> SSAValue:
        shape = self._shape(x)
        if not shape:
            return self.emit(tensor.ReshapeOp(x, (1,)))
        start, end = self._axis(start_dim, x), self._axis(end_dim, x)
        if end == len(shape) - 1:
            return self.emit(tensor.FlattenOp(x, start))
        merged = (*shape[:start], int(np.prod(shape[start : end + 1])), *shape[end + 1 :])
        return self.emit(tensor.ReshapeOp(x, merged))

    def _reshape(self, node, x: SSAValue) -> SSAValue:
        # the target's -1 is what torch resolved it to: take the shape torch computed
        return self.emit(tensor.ReshapeOp(x, tuple(node.meta["tensor_meta"].shape)))

    def _softmax(self, x: SSAValue, dim, dtype=None) -> SSAValue:
        if dim is None or dtype is not None:
            raise _Unsupported("softmax without dim, or with a dtype")
        return self.emit(tensor.SoftmaxOp(x, self._axis(dim, x)))

    def _transpose(self, x: SSAValue, dim0: int, dim1: int) -> SSAValue:
        perm = list(range(len(self._shape(x))))
        a, b = self._axis(dim0, x), self._axis(dim1, x)
        perm[a], perm[b] = perm[b], perm[a]
        return self.emit(tensor.TransposeOp(x, perm))

    def _t(self, x: SSAValue) -> SSAValue:
        return x if len(self._shape(x)) < 2 else self._transpose(x, 0, 1)

    def _permute(self, x: SSAValue, dims) -> SSAValue:
        if len(dims) == 1 and isinstance(dims[0], Sequence):  # x.permute((1, 0)) as well as x.permute(1, 0)
            dims = dims[0]
        return self.emit(tensor.TransposeOp(x, [self._axis(d, x) for d in dims]))

    def _matmul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if len(self._shape(a)) != 2 or len(self._shape(b)) != 2:
            raise _Unsupported(
                f"matmul of {tensor.fmt(self._shape(a))} and {tensor.fmt(self._shape(b))} (tensor.matmul is 2-d)"
            )
        return self.emit(tensor.MatmulOp(a, b))

    def _binary(self, op_class: type, python_op, a, b, alpha=1):
        if not isinstance(a, SSAValue) and not isinstance(b, SSAValue):
            return python_op(a, b)  # shape arithmetic: x.size(0) * 2
        if alpha != 1:
            raise _Unsupported(f"alpha={alpha}")
        return self.emit(op_class(*self._tensors(a, b)))

    def _comparisons(self) -> list[tuple[type, Callable[[Any, Any], Any], tuple[Any, ...]]]:
        """Each comparison's op, Python operator (its name is the tensor method's) and torch functions."""
        torch = self.torch
        return [
            (tensor.GreaterOp, operator.gt, (operator.gt, torch.gt, torch.greater)),
            (tensor.GreaterEqualOp, operator.ge, (operator.ge, torch.ge, torch.greater_equal)),
            (tensor.LessOp, operator.lt, (operator.lt, torch.lt, torch.less)),
            (tensor.LessEqualOp, operator.le, (operator.le, torch.le, torch.less_equal)),
            (tensor.EqualOp, operator.eq, (operator.eq, torch.eq)),
            (tensor.NotEqualOp, operator.ne, (operator.ne, torch.ne, torch.not_equal)),
        ]

    def _comparison(self, op_class: type, python_op) -> Callable[..., Any]:
        return lambda node, a, b: self._binary(op_class, python_op, a, b)

    def _where(self, condition: SSAValue, a, b) -> SSAValue:
        if not isinstance(a, SSAValue) and not isinstance(b, SSAValue):
            raise _Unsupported("torch.where of two Python numbers (their tensors' type is torch's default dtype)")
        return self.emit(tensor.WhereOp(condition, *self._tensors(a, b)))

    def _divide(self, a, b, rounding_mode):
        if rounding_mode is None:
            return self._binary(tensor.DivideOp, operator.truediv, a, b)
        if rounding_mode not in ("floor", "trunc"):
            raise _Unsupported(f"rounding_mode '{rounding_mode}'")
        if not isinstance(a, SSAValue) and not isinstance(b, SSAValue):
            return a // b if rounding_mode == "floor" else int(a / b)  # shape arithmetic: x.size(0) // 2
        a, b = self._tensors(a, b)
        element = a.type.element_type
        if isinstance(element, AnyFloat):
            # torch rounds a float quotient through fmod (inf for a zero divisor): no lowering has that yet
            raise _Unsupported(f"{rounding_mode} division of {element} tensors (mapped: integer tensors)")
        # a zero divisor: torch raised on the example inputs; on others the built code raises
        op_class = tensor.FloorDivideOp if rounding_mode == "floor" else tensor.TruncDivideOp
        return self.emit(op_class(a, b))

    @staticmethod
    def _constant_array(value: SSAValue) -> np.ndarray | None:
        if isinstance(value.owner, arith.ConstantOp) and isinstance(value.owner.value, DenseIntOrFPElementsAttr):
            return dense_to_numpy(value.owner.value)
        return None

    def _unary(self, op_class: type, x) -> SSAValue:
        self._shape(x)
        if x.type.element_type == i1:
            raise _Unsupported(f"{op_class.name.removeprefix('tensor.')} of a bool tensor")
        return self.emit(op_class(x))

    def _negative(self, x):
        if not isinstance(x, SSAValue):
            return -x  # shape arithmetic
        return self._unary(tensor.NegativeOp, x)

    def _float_function(self, op_class: type) -> Callable[..., Any]:
        """exp, log, ...: an integer or bool tensor is made float32 first (torch's default dtype)."""

        def convert(node, x):
            self._shape(x)
            if not isinstance(x.type.element_type, AnyFloat):
                x = self.emit(tensor.AstypeOp(x, f32))
            return self.emit(op_class(x))

        return convert

    def _clamp(self, node, x, lo, hi, inplace: bool = False) -> SSAValue:
        element = x.type.element_type if isinstance(x, SSAValue) else None
        for bound in (lo, hi):
            if bound is not None and not isinstance(bound, int | float) or isinstance(bound, bool):
                raise _Unsupported(f"a clamp bound of type {type(bound).__name__} (mapped: Python numbers)")
            if isinstance(bound, float) and not isinstance(element, AnyFloat):
                raise _Unsupported(f"the float bound {bound} with a tensor of {element} (torch computes in a float type)")
        self._shape(x)
        if lo is None and hi is None:
            raise _Unsupported("a clamp without bounds")
        return self._activation(node, tensor.ClipOp(x, lo, hi), inplace)

    def _hardtanh(self, node, x, lo, hi, inplace: bool = False) -> SSAValue:
        """hardtanh and relu6 keep an integer tensor's type (clamp computes in float), so an
        integral float bound there, as the defaults -1.0, 1.0, 0.0 and 6.0, is that integer."""
        if isinstance(x, SSAValue) and not isinstance(self._element(x), AnyFloat):
            lo, hi = (int(b) if isinstance(b, float) and b.is_integer() else b for b in (lo, hi))
        return self._clamp(node, x, lo, hi, inplace)

    def _dims(self, x: SSAValue, dim) -> list[int]:
        """The dimensions a reduction names (an int, a sequence; None or () for all), sorted."""
        rank = len(self._shape(x))
        dims = range(rank) if dim is None or (isinstance(dim, Sequence) and not dim) else (
            [dim] if isinstance(dim, int) else dim)
        return sorted({self._axis(d, x) for d in dims})

    def _reduce(self, op_class: type, x: SSAValue, dim, keepdim: bool) -> SSAValue:
        axes = self._dims(x, dim)
        if not axes:  # a 0-d tensor reduces to itself
            return x
        return self.emit(op_class(x, axes, keepdim))

    def _sum(self, x: SSAValue, dim, keepdim: bool, dtype) -> SSAValue:
        if dtype is not None:
            raise _Unsupported(f"sum with dtype={dtype}")
        self._shape(x)
        if not isinstance(x.type.element_type, AnyFloat) and x.type.element_type != i64:
            x = self.emit(tensor.AstypeOp(x, i64))  # torch sums integers and booleans as int64
        return self._reduce(tensor.SumOp, x, dim, keepdim)

    def _mean(self, x: SSAValue, dim, keepdim: bool, dtype) -> SSAValue:
        if dtype is not None:
            raise _Unsupported(f"mean with dtype={dtype}")
        return self._reduce(tensor.MeanOp, x, dim, keepdim)

    def _amax(self, x: SSAValue, dim, keepdim: bool) -> SSAValue:
        self._shape(x)
        if x.type.element_type == i1:
            raise _Unsupported("amax of a bool tensor")
        return self._reduce(tensor.MaxOp, x, dim, keepdim)

    def _max(self, x: SSAValue, dim, keepdim: bool):
        if isinstance(dim, SSAValue):
            raise _Unsupported("torch.max of two tensors (the elementwise maximum)")
        if dim is None:
            return self._amax(x, None, False)
        return _MaxWithIndices(self._amax(x, dim, keepdim))

    def _flip(self, x: SSAValue, dims) -> SSAValue:
        axes = sorted({self._axis(d, x) for d in dims})
        return self.emit(tensor.FlipOp(x, axes)) if axes else x

    def _to(self, node, x, *args, **kwargs):
        """x.to(dtype) or x.to(other tensor); a device or other options have no mapping."""
        dtype = kwargs.pop("dtype", args[0] if args else None)
        if kwargs or len(args) > 1 or not isinstance(dtype, self.torch.dtype | SSAValue):
            raise _Unsupported("to() with a device, copy= or other options (mapped: to(dtype), to(tensor))")
        return self._astype(node, x, dtype.type.element_type if isinstance(dtype, SSAValue) else dtype)

    def _astype(self, node, x: SSAValue, dtype) -> SSAValue:
        element = dtype if isinstance(dtype, Attribute) else element_type_of(dtype)
        if element is None:
            raise _Unsupported(f"a conversion to {dtype} (mapped: {', '.join(_DTYPES)})")
        self._shape(x)
        if element == x.type.element_type:
            return x  # torch returns the tensor itself
        array = self._constant_array(x)
        if array is not None and isinstance(element, IntegerType) and element != i1 and np.issubdtype(array.dtype, np.floating):
            info = np.iinfo(numpy_dtype(element))
            inside = np.isfinite(array) & (array > info.min - 1) & (array < info.max + 1)
            if not inside.all():
                bad = array[~inside].flat[0]
                raise _Unsupported(f"the constant {bad} made {element}: outside its range, undefined in torch")
        return self.emit(tensor.AstypeOp(x, element))

    def _getitem(self, node, container, index):
        if isinstance(container, _MaxWithIndices):
            return container.select(index, used=bool(node.users))
        if isinstance(container, SSAValue):
            return self._index(container, index if isinstance(index, tuple) else (index,))
        return container[index]

    def _index(self, x: SSAValue, index: tuple) -> SSAValue:
        """x[index] for ints, slices, `...` and None (basic indexing): one strided_slice, then a
        reshape for the dimensions an int drops or None adds. torch has checked the index on
        the example inputs (its count, ranges, steps); what is left is what graph ops cannot hold."""
        for i in index:
            if not (i is None or i is Ellipsis or isinstance(i, int | slice)) or isinstance(i, bool):
                what = "a tensor" if isinstance(i, SSAValue) else f"a {type(i).__name__.removeprefix('immutable_')}"
                raise _Unsupported(f"indexing a tensor with {what} (advanced indexing; mapped: ints, slices, ... and None)")
        shape = self._shape(x)
        used = sum(1 for i in index if i is not None and i is not Ellipsis)
        at = index.index(Ellipsis) if Ellipsis in index else len(index)
        index = (*index[:at], *(slice(None),) * (len(shape) - used), *index[at + 1 :])
        triples: list[tuple[int, int, int]] = []
        result: list[int] = []
        dims = iter(enumerate(shape))
        for i in index:
            if i is None:
                result.append(1)
                continue
            d, n = next(dims)
            if isinstance(i, int):
                triples.append((i % n, i % n + 1, 1))
                continue
            start, stop, step = i.indices(n)
            if start >= stop:
                raise _Unsupported(f"the empty slice {start}:{stop} of dimension {d} of size {n} "
                                   "(graph tensors have at least one element)")
            triples.append((start, stop, step))
            result.append(tensor.slice_extent(start, stop, step))
        begin, end, strides = zip(*triples) if triples else ((), (), ())
        return self._sliced(x, begin, end, strides, tuple(result))

    def _sliced(self, x: SSAValue, begin, end, strides, result: tuple[int, ...]) -> SSAValue:
        """x[begin:end:strides] reshaped to `result`; an identity slice is no op."""
        y = x
        if (list(begin), list(end), list(strides)) != ([0] * len(begin), list(self._shape(x)), [1] * len(begin)):
            y = self.emit(tensor.StridedSliceOp(x, begin, end, strides))
        return y if self._shape(y) == result else self.emit(tensor.ReshapeOp(y, result))

    def _along(self, x: SSAValue, dim: int, start: int, stop: int) -> SSAValue:
        """x[..., start:stop, ...] in dimension `dim`."""
        shape = list(self._shape(x))
        begin, end = [0] * len(shape), list(shape)
        begin[dim], end[dim] = start, stop
        shape[dim] = stop - start
        return self._sliced(x, begin, end, [1] * len(shape), tuple(shape))

    def _narrow(self, x: SSAValue, dim: int, start: int, length: int) -> SSAValue:
        d = self._axis(dim, x)
        start %= self._shape(x)[d]  # torch has checked the range
        return self._along(x, d, start, start + length)

    def _chunk(self, x: SSAValue, chunks: int, dim: int) -> tuple[SSAValue, ...]:
        d = self._axis(dim, x)
        n = self._shape(x)[d]
        return self._split(x, -(-n // chunks), d)  # torch.chunk: pieces of ceil(n / chunks)

    def _split(self, x: SSAValue, sizes, dim: int) -> tuple[SSAValue, ...]:
        d = self._axis(dim, x)
        n = self._shape(x)[d]
        if isinstance(sizes, int):
            sizes = [min(sizes, n - k) for k in range(0, n, sizes)]
        if min(sizes) < 1:  # torch has checked that they add up to n
            raise _Unsupported(f"a split of dimension {d} into {list(sizes)} (graph tensors have at least one element)")
        bounds = np.cumsum([0, *sizes])
        return tuple(self._along(x, d, int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]))

    def _getattr(self, node, x, name: str):
        if isinstance(x, _MaxWithIndices):
            return x.select({"values": 0, "indices": 1}.get(name, 1), used=bool(node.users))
        if name == "T":  # all dimensions reversed (a transposed matrix)
            return self._permute(x, tuple(reversed(range(len(self._shape(x))))))
        if name == "shape":
            return self._size(x, None)
        if name == "dtype":  # x.to(y.dtype)
            return getattr(self.torch, next(k for k, t in _DTYPES.items() if t == self._element(x)))
        raise _Unsupported(f"the tensor attribute '{name}'")

    def _size(self, x: SSAValue, dim):
        shape = self._shape(x)
        return self.torch.Size(shape) if dim is None else shape[self._axis(dim, x)]

    def _nn_dropout(self, node, m, x):
        return self._dropout(x, m.training)

    def _dropout(self, x, training: bool):
        if training:
            raise _Unsupported("dropout in training mode (call model.eval() first)")
        return x
