"""legalize-tensor: graph functions over tensors become block functions called by a host
function over memrefs (TVM's LegalizeOps / call_te, and FuseTIR for fused operators).

    func.func @main(%x: tensor<1x784xf32>, %w: tensor<128x784xf32>) -> tensor<1x128xf32> {
      %y = tensor.dense %x, %w : ...
      %z = tensor.relu %y : ...
      func.return %z : tensor<1x128xf32>
    }

becomes

    func.func @dense(%x: memref<1x784xf32>, %w: memref<128x784xf32>, %T_dense: memref<1x128xf32>) {...}
    func.func @relu(%y: memref<1x128xf32>, %T_relu: memref<1x128xf32>) {...}
    func.func @main(%x: memref<1x784xf32>, %w: memref<128x784xf32>, %out: memref<1x128xf32>) {
      %y = block.alloc : memref<1x128xf32>
      func.call @dense(%x, %w, %y) : (...) -> ()
      func.call @relu(%y, %out) : (...) -> ()
      func.return
    }

- Each graph op becomes one block function built from its `xtir.topi` definition, named
  after the op (`@dense`, `@dense_1` for another shape); ops that build the same function
  share it.
- A call of a fused operator (a `func.func` marked `xtir.primitive`, made by fuse-ops)
  becomes ONE block function of the same name: its ops' definitions composed, each
  elementwise intermediate read only by elementwise stages inlined into them (a dense +
  bias + relu is two blocks: the reduction into a scratch buffer, and the epilogue).
- The host function keeps the graph function's name and inputs, then takes the results as
  output buffers (destination passing: the producer of a result writes it directly; a
  result that is an input, a constant or returned twice is copied by a `@copy` function).
  Intermediates are `block.alloc` buffers of the host function (on the stack up to 256 KiB,
  else on the heap, freed when the function returns).
- Constant weights (`arith.constant dense<...> : tensor<...>`) are hoisted to parameters,
  after the inputs and before the outputs, named after the constant's SSA name; the caller
  passes the arrays, which `hoisted_constants(graph_module)` reads off the graph, in that
  order (xtir.model.compile_model does both). Weights stay numpy arrays: no copy into the
  compiled code, no megabytes of constants in the IR or the LLVM module.
- A 0-d tensor (a Python number in an imported model: `x * 2`) is a one-element buffer,
  which broadcasts as the 0-d tensor does; a 0-d input or result has the same memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xtir import te, topi
from xtir.dialects.block import AllocOp
from xtir.errors import LoweringError, XtirError
from xtir.passes.utils import same_function
from xtir.te_emit import ELEMENT_TYPES

PRIMITIVE = "xtir.primitive"
NAME = "legalize-tensor"

_DTYPES = {str(t): name for name, t in ELEMENT_TYPES.items() if name != te.INDEX}


# Operator definitions by op name ---------------------------------------------------------------


def _ints(op: Operation, name: str, default: Sequence[int] | int | None = None) -> list[int] | int:
    """An integer or integer-array property (or attribute) of `op`."""
    attr = op.properties.get(name, op.attributes.get(name))
    if attr is None:
        if default is None:
            raise LoweringError(op, f"{op.name} has no '{name}' property")
        return default if isinstance(default, int) else list(default)
    if isinstance(attr, DenseArrayBase):
        return list(attr.get_values())  # type: ignore[arg-type]
    if isinstance(attr, ArrayAttr):
        return [a.value.data for a in attr.data if isinstance(a, IntegerAttr)]
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    raise LoweringError(op, f"{op.name}: property '{name}' is {attr}, not integers")


def _int(op: Operation, name: str, default: int) -> int:
    value = _ints(op, name, default)
    return value if isinstance(value, int) else value[0]


Definition = Callable[[Operation, list[te.Tensor]], te.Tensor]

_OPERANDS_ONLY = ("matmul", "dense", "add", "subtract", "multiply", "divide", "floor_divide", "trunc_divide", "relu",
                  "negative", "abs", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "silu", "greater",
                  "greater_equal", "less", "less_equal", "equal", "not_equal", "where", "ewise_fma")
"""The ops whose topi definition has their name and takes their operands alone."""


def _of_operands(definition: Callable[..., te.Tensor]) -> Definition:
    return lambda op, a: definition(*a)


def _reduction(definition: Callable[..., te.Tensor]) -> Definition:
    return lambda op, a: definition(a[0], _ints(op, "axes"), keepdims=op.properties.get("keepdims") is not None)


DEFINITIONS: dict[str, Definition] = {
    **{f"tensor.{name}": _of_operands(getattr(topi, name)) for name in _OPERANDS_ONLY},
    "tensor.gelu": lambda op, a: topi.gelu(*a, approximate=op.approximate.data),  # type: ignore[attr-defined]
    "tensor.leaky_relu": lambda op, a: topi.leaky_relu(
        *a, alpha=op.negative_slope.value.data),  # type: ignore[attr-defined]
    "tensor.strided_slice": lambda op, a: topi.strided_slice(
        a[0], _ints(op, "begin"), _ints(op, "end"), _ints(op, "strides")),  # type: ignore[arg-type]
    "tensor.bias_add": lambda op, a: topi.bias_add(*a, axis=_int(op, "axis", 1)),
    "tensor.reshape": lambda op, a: topi.reshape(a[0], _result_shape(op)),
    "tensor.flatten": lambda op, a: topi.reshape(a[0], _result_shape(op)),
    "tensor.transpose": lambda op, a: topi.transpose(a[0], _ints(op, "permutation")),  # type: ignore[arg-type]
    "tensor.conv2d": lambda op, a: topi.conv2d_nchw(
        *a, strides=_ints(op, "strides", (1, 1)), padding=_ints(op, "padding", (0, 0)),  # type: ignore[arg-type]
        dilation=_ints(op, "dilation", (1, 1))),  # type: ignore[arg-type]
    "tensor.max_pool2d": lambda op, a: topi.max_pool2d(
        a[0], _ints(op, "kernel"), strides=_ints(op, "strides", _ints(op, "kernel")),  # type: ignore[arg-type]
        padding=_ints(op, "padding", (0, 0))),  # type: ignore[arg-type]
    "tensor.softmax": lambda op, a: topi.softmax(a[0], axis=_int(op, "axis", -1)),
    "tensor.clip": lambda op, a: topi.clip(a[0], *op.bounds()),  # type: ignore[attr-defined]
    "tensor.astype": lambda op, a: topi.astype(a[0], _dtype(op, op.results[0].type)),
    **{f"tensor.{name}": _reduction(getattr(topi, name)) for name in ("sum", "mean", "max")},
    "tensor.flip": lambda op, a: topi.flip(a[0], _ints(op, "axes")),  # type: ignore[arg-type]
}
"""The topi definition of each graph op (seed 003's op_map), from its operands' tensors."""


def block_shape(t: TensorType) -> tuple[int, ...]:
    """The shape of `t`'s buffer: a 0-d tensor (a Python number in an imported model) is
    one element, which broadcasts against any other operand as the 0-d tensor does."""
    return tuple(t.get_shape()) or (1,)


def _result_shape(op: Operation) -> tuple[int, ...]:
    t = op.results[0].type
    assert isinstance(t, TensorType)
    return block_shape(t)


def _short_name(op: Operation) -> str:
    return op.name.removeprefix("tensor.")


# Types -----------------------------------------------------------------------------------------


def _dtype(at: Operation, t: Attribute) -> str:
    if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
        raise LoweringError(at, f"expected a statically shaped tensor, got {t}")
    name = _DTYPES.get(str(t.element_type))
    if name is None:
        raise LoweringError(at, f"element type {t.element_type} has no block-level equivalent")
    return name


def _memref(at: Operation, t: Attribute) -> MemRefType:
    _dtype(at, t)
    assert isinstance(t, TensorType)
    return MemRefType(t.element_type, block_shape(t))


def _names(n: int) -> list[str]:
    return [chr(ord("A") + k) if n <= 26 else f"p{k}" for k in range(n)]


# Block functions -----------------------------------------------------------------------------


def _define(op: Operation, inputs: list[te.Tensor], transposed: set[int]) -> te.Tensor:
    """The op's topi definition; a dense whose weight is in `transposed` (ids of placeholders
    holding Wᵀ) is the matmul x · Wᵀ."""
    definition = DEFINITIONS.get(op.name)
    if op.name == "tensor.dense" and id(inputs[1]) in transposed:
        definition = DEFINITIONS["tensor.matmul"]
    if definition is None:
        known = ", ".join(sorted(DEFINITIONS))
        raise LoweringError(op, f"no block-level definition for '{op.name}' (defined: {known})")
    try:
        out = definition(op, inputs)
    except XtirError as e:
        raise LoweringError(op, str(e)) from None
    if out.shape != _result_shape(op) or out.dtype != _dtype(op, op.results[0].type):
        raise LoweringError(op, f"the definition computes {out.dtype} {out.shape}, the op promises {op.results[0].type}")
    return out


def _inputs(at: Operation, values: Sequence[SSAValue], transposed: set[int]) -> list[te.Tensor]:
    """Placeholders for `values` (those at the positions `transposed` with their dimensions swapped)."""
    inputs = []
    for k, (v, name) in enumerate(zip(values, _names(len(values)))):
        assert isinstance(v.type, TensorType)
        shape = block_shape(v.type)
        inputs.append(te.placeholder(shape[::-1] if k in transposed else shape, _dtype(at, v.type), v.name_hint or name))
    return inputs


def op_function(op: Operation, name: str, transposed: set[int] = frozenset()) -> func.FuncOp:  # type: ignore[assignment]
    """One graph op as a block function (operands, then the result buffer)."""
    inputs = _inputs(op, op.operands, transposed)
    out = _define(op, inputs, {id(inputs[k]) for k in transposed})
    return te.create_func([*inputs, out], name=name)


def fused_function(primitive: func.FuncOp, transposed: set[int] = frozenset()) -> func.FuncOp:  # type: ignore[assignment]
    """A fused operator's ops composed into one block function (TVM's FuseTIR)."""
    block = primitive.body.block
    inputs = _inputs(primitive, block.args, transposed)
    values: dict[SSAValue, te.Tensor] = dict(zip(block.args, inputs))
    swapped = {id(inputs[k]) for k in transposed}
    out: te.Tensor | None = None
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            if len(op.arguments) != 1 or op.arguments[0] not in values:
                raise LoweringError(op, "a fused operator returns one value computed in it")
            out = values[op.arguments[0]]
            continue
        if any(v not in values for v in op.operands) or len(op.results) != 1:
            raise LoweringError(op, f"'{op.name}' in a fused operator must be a graph op of its values")
        values[op.results[0]] = _define(op, [values[v] for v in op.operands], swapped)
    if out is None or out.op is None:
        raise LoweringError(primitive, f"fused operator @{primitive.sym_name.data} computes nothing")
    (out,) = te.inline([out], _inlinable(out))
    return te.create_func([*inputs, out], name=primitive.sym_name.data)


def _inlinable(out: te.Tensor) -> list[te.Tensor]:
    """The intermediate stages without reduction whose readers are all without reduction."""
    readers: dict[int, list[te.Tensor]] = {}
    stages: dict[int, te.Tensor] = {}
    pending = [out]
    while pending:
        t = pending.pop()
        if t.op is None or id(t) in stages:
            continue
        stages[id(t)] = t
        for node in te.walk(t.op.body):
            if isinstance(node, te.Load):
                readers.setdefault(id(node.tensor), []).append(t)
                pending.append(node.tensor)
    return [t for k, t in stages.items() if t is not out and not t.op.reduce_axes  # type: ignore[union-attr]
            and all(not r.op.reduce_axes for r in readers.get(k, []))]  # type: ignore[union-attr]


def copy_function(t: TensorType, name: str) -> func.FuncOp:
    src = te.placeholder(block_shape(t), _DTYPES[str(t.element_type)], "src")
    return te.create_func([src, te.compute(src.shape, lambda *i: src(*i), name="T_copy")], name=name)


# Constants -------------------------------------------------------------------------------------


def _is_dense_weight(value: SSAValue, primitives: dict[str, func.FuncOp]) -> bool:
    """Whether every use of `value` is as the weight of a dense, directly or in a fused operator."""
    for use in value.uses:
        user = use.operation
        if isinstance(user, func.CallOp) and (p := primitives.get(user.callee.root_reference.data)) is not None:
            if not _is_dense_weight(p.body.block.args[use.index], {}):
                return False
        elif not (user.name == "tensor.dense" and use.index == 1):
            return False
    return bool(value.uses)


def _constants(f: func.FuncOp, primitives: dict[str, func.FuncOp]) -> dict[str, tuple[SSAValue, np.ndarray, bool]]:
    """The tensor constants of a graph function by parameter name: value, array as hoisted
    (transposed when it is only a dense's weight), and whether it was transposed."""
    found: dict[str, tuple[SSAValue, np.ndarray, bool]] = {}
    for op in f.body.block.ops:
        if not (isinstance(op, arith.ConstantOp) and isinstance(op.result.type, TensorType)):
            continue
        if not isinstance(op.value, DenseIntOrFPElementsAttr):
            raise LoweringError(op, f"a tensor constant must be a dense attribute, got {op.value.name}")
        base = op.result.name_hint or "const"
        name, k = base, 0
        while name in found:
            k += 1
            name = f"{base}_{k}"
        t = op.result.type
        array = np.array(op.value.get_values(), dtype=_DTYPES[str(t.element_type)]).reshape(block_shape(t))
        swap = array.ndim == 2 and _is_dense_weight(op.result, primitives)
        found[name] = (op.result, np.ascontiguousarray(array.T) if swap else array, swap)
    return found


def hoisted_constants(module: ModuleOp) -> dict[str, dict[str, np.ndarray]]:
    """The arrays legalize-tensor hoists to parameters, per graph function, in parameter order
    (a dense's constant weight W as Wᵀ)."""
    primitives = _primitives(module)
    return {f.sym_name.data: {name: array for name, (_, array, _) in _constants(f, primitives).items()}
            for f in module.ops if isinstance(f, func.FuncOp) and _is_graph_function(f)}


# The host function ---------------------------------------------------------------------------


@dataclass
class _Functions:
    """The block functions made so far; a function equal to one made before is shared."""

    module: ModuleOp
    made: list[tuple[str, func.FuncOp]] = field(default_factory=list)

    def add(self, f: func.FuncOp, base: str) -> str:
        for name, other in self.made:
            f.sym_name = other.sym_name  # equal up to the name
            if same_function(f, other):
                return name
        taken = {op.sym_name.data for op in self.module.ops if isinstance(op, func.FuncOp) and PRIMITIVE not in op.attributes}
        taken |= {name for name, _ in self.made}
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        f.sym_name = StringAttr(name)
        self.made.append((name, f))
        return name


def _primitives(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp) and PRIMITIVE in f.attributes}


def _is_graph_function(f: func.FuncOp) -> bool:
    types = (*f.function_type.inputs.data, *f.function_type.outputs.data)
    return PRIMITIVE not in f.attributes and bool(f.body.blocks) and (
        any(isinstance(t, TensorType) for t in types) or any(op.name in DEFINITIONS for op in f.walk()))


def _host(f: func.FuncOp, functions: _Functions, primitives: dict[str, func.FuncOp]) -> func.FuncOp:
    """The graph function `f` as a host function over memrefs calling block functions."""
    graph = f.body.block
    ret = graph.last_op
    if not isinstance(ret, func.ReturnOp):
        raise LoweringError(f, "a graph function ends with func.return")
    constants = _constants(f, primitives)
    transposed = {value for value, _, swap in constants.values() if swap}
    outputs = list(ret.arguments)
    types = [_memref(f, a.type) for a in graph.args]
    types += [MemRefType(_element(value), array.shape) for value, array, _ in constants.values()]
    types += [_memref(ret, v.type) for v in outputs]
    body = Block(arg_types=types)
    params = iter(body.args)
    buffers: dict[SSAValue, SSAValue] = {}
    for old in graph.args:
        buffers[old] = next(params)
        buffers[old].name_hint = old.name_hint
    for name, (value, _, _) in constants.items():
        buffers[value] = next(params)
        buffers[value].name_hint = name
    destinations: dict[SSAValue, SSAValue] = {}
    out_params = list(params)
    for k, (value, param) in enumerate(zip(outputs, out_params)):
        param.name_hint = "out" if len(outputs) == 1 else f"out{k}"
        if value not in buffers and value not in destinations:
            destinations[value] = param
    allocs: list[Operation] = []
    calls: list[Operation] = []
    for op in graph.ops:
        if op is ret or (isinstance(op, arith.ConstantOp) and op.result in buffers):
            continue
        swapped = {k for k, v in enumerate(op.operands) if v in transposed}
        callee = _callee(op, functions, primitives, swapped)
        for result in op.results:
            if result in destinations:
                buffers[result] = destinations[result]
            else:
                allocs.append(alloc := AllocOp(_memref(op, result.type), result.name_hint or callee))
                buffers[result] = alloc.buffer
        calls.append(func.CallOp(callee, [buffers[v] for v in (*op.operands, *op.results)], []))
    for value, param in zip(outputs, out_params):
        if destinations.get(value) is not param:  # an input, a constant, or a value returned twice
            name = functions.add(copy_function(value.type, "copy"), "copy")  # type: ignore[arg-type]
            calls.append(func.CallOp(name, [buffers[value], param], []))
    body.add_ops([*allocs, *calls, func.ReturnOp()])
    return func.FuncOp(f.sym_name.data, FunctionType.from_lists(types, []), Region(body))


def _element(value: SSAValue) -> Attribute:
    assert isinstance(value.type, TensorType)
    return value.type.element_type


def _callee(op: Operation, functions: _Functions, primitives: dict[str, func.FuncOp], transposed: set[int]) -> str:
    """The block function computing `op`, made on first use."""
    if isinstance(op, func.CallOp):
        primitive = primitives.get(op.callee.root_reference.data)
        if primitive is None:
            raise LoweringError(op, f"@{op.callee.root_reference.data} is not a fused operator (xtir.primitive); "
                                "graph functions call fused operators only")
        return functions.add(fused_function(primitive, transposed), primitive.sym_name.data)
    if len(op.results) != 1 or not all(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
        raise LoweringError(op, f"'{op.name}' is not a graph op over tensors")
    return functions.add(op_function(op, _short_name(op), transposed), _short_name(op))


@dataclass(frozen=True)
class LegalizeTensorPass(ModulePass):
    """legalize-tensor: see the module docstring."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        primitives = _primitives(op)
        graphs = [f for f in op.ops if isinstance(f, func.FuncOp) and _is_graph_function(f)]
        if not graphs:
            return
        functions = _Functions(op)
        hosts = [(g, _host(g, functions, primitives)) for g in graphs]
        for primitive in primitives.values():
            Rewriter.erase_op(primitive)
        op.body.block.insert_ops_before([f for _, f in functions.made], graphs[0])
        for graph, host in hosts:
            Rewriter.replace_op(graph, host)
