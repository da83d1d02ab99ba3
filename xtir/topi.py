"""Operator definitions in `xtir.te` (TVM's topi): one function per tensor-dialect op.

    x = te.placeholder((64, 784), name="x"); w = te.placeholder((128, 784), name="w")
    y = topi.relu(topi.dense(x, w))
    f = te.create_func([x, w, y], name="dense_relu")

Each returns the output tensor; intermediate stages (a padding, softmax's maximum) are
tensors of their own. Names follow TVM's topi (`T_dense`, `pad_temp`, `conv2d_nchw`,
`pool_max`, `T_softmax_*`); a float16 dense, matmul or conv2d multiplies and sums in float32
and is cast back in a stage of its own (`T_dense_cast`, `T_matmul_cast`, `conv2d_nchw_cast`),
as torch does. Shapes are checked here with errors naming both shapes, as the tensor
dialect's verifiers do.
"""

from __future__ import annotations

import builtins
import functools
import math
from collections.abc import Sequence

from xtir import te
from xtir.dialects.tensor import GELU_APPROXIMATIONS, slice_extent
from xtir.te import TeError, TeExpr, Tensor

Scalar = int | float
Operand = Tensor | Scalar


def _text(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape))


def _require(cond: bool, op: str, message: str) -> None:
    if not cond:
        raise TeError(f"topi.{op}: {message}")


# Contractions -------------------------------------------------------------------------------


def _summed(shape: Sequence[int], factors, axes, name: str, dtype: str) -> Tensor:  # noqa: ANN001 - te lambdas
    """The stage `name` summing the product of the two `factors(*indices)` over `axes`. A
    float16 sum multiplies and accumulates in float32 and is cast back in a stage
    `{name}_cast`, as torch and numpy do: 2048 products summed in float16 are off by percents."""
    if dtype != "float16":
        return te.compute(shape, _around(factors, lambda a, b: te.sum(a * b, axis=axes)), name=name)
    wide = te.compute(shape, _around(factors, lambda a, b: te.sum(a.astype("float32") * b.astype("float32"), axis=axes)),
                      name=name)
    return te.compute(shape, lambda *i: wide(*i).astype("float16"), name=f"{name}_cast")


def _around(factors, combine):  # noqa: ANN001, ANN202 - te lambdas
    """combine(*factors(...)), with the parameters of `factors` (te.compute names the loops after them)."""
    @functools.wraps(factors)
    def body(*indices: TeExpr) -> TeExpr:
        return combine(*factors(*indices))

    return body


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """a[M, K] · b[K, N]."""
    _require(a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0], "matmul",
             f"shapes {_text(a.shape)} and {_text(b.shape)} do not multiply")
    k = te.reduce_axis(a.shape[1], "k")
    return _summed((a.shape[0], b.shape[1]), lambda i, j: (a[i, k], b[k, j]), k, "T_matmul", a.dtype)


def dense(x: Tensor, w: Tensor) -> Tensor:
    """x[M, K] · w[N, K]ᵀ (a linear layer without bias)."""
    _require(x.ndim == 2 and w.ndim == 2 and x.shape[1] == w.shape[1], "dense",
             f"shapes {_text(x.shape)} and {_text(w.shape)}ᵀ do not multiply")
    k = te.reduce_axis(x.shape[1], "k")
    return _summed((x.shape[0], w.shape[0]), lambda i, j: (x[i, k], w[j, k]), k, "T_dense", x.dtype)


# Elementwise with broadcasting ----------------------------------------------------------------


def broadcast_shape(op: str, *shapes: Sequence[int]) -> tuple[int, ...]:
    rank = builtins.max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    result = []
    for dims in zip(*padded):
        sizes = {d for d in dims if d != 1}
        _require(len(sizes) <= 1, op, f"shapes {' and '.join(_text(s) for s in shapes)} do not broadcast")
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def _broadcast_read(t: Operand, shape: Sequence[int], idx: Sequence[TeExpr]) -> TeExpr | Scalar:
    """`t` at the output index `idx`: dimensions aligned at the right, broadcast ones at 0."""
    if not isinstance(t, Tensor):
        return t
    offset = len(shape) - t.ndim
    return t(*(0 if d == 1 and shape[offset + k] != 1 else idx[offset + k] for k, d in enumerate(t.shape)))


def _elementwise(op: str, name: str, fn, *operands: Operand) -> Tensor:  # noqa: ANN001 - fn combines the reads
    tensors = [t for t in operands if isinstance(t, Tensor)]
    _require(bool(tensors), op, "needs at least one tensor operand")
    shape = broadcast_shape(op, *(t.shape for t in tensors))
    return te.compute(shape, lambda *i: fn(*(_broadcast_read(t, shape, i) for t in operands)), name=name)


def add(a: Operand, b: Operand) -> Tensor:
    return _elementwise("add", "T_add", lambda x, y: x + y, a, b)


def subtract(a: Operand, b: Operand) -> Tensor:
    return _elementwise("subtract", "T_subtract", lambda x, y: x - y, a, b)


def multiply(a: Operand, b: Operand) -> Tensor:
    return _elementwise("multiply", "T_multiply", lambda x, y: x * y, a, b)


def divide(a: Operand, b: Operand) -> Tensor:
    return _elementwise("divide", "T_divide", lambda x, y: x / y, a, b)


def greater(a: Operand, b: Operand) -> Tensor:
    return _elementwise("greater", "T_greater", lambda x, y: x > y, a, b)


def greater_equal(a: Operand, b: Operand) -> Tensor:
    return _elementwise("greater_equal", "T_greater_equal", lambda x, y: x >= y, a, b)


def less(a: Operand, b: Operand) -> Tensor:
    return _elementwise("less", "T_less", lambda x, y: x < y, a, b)


def less_equal(a: Operand, b: Operand) -> Tensor:
    return _elementwise("less_equal", "T_less_equal", lambda x, y: x <= y, a, b)


def equal(a: Operand, b: Operand) -> Tensor:
    return _elementwise("equal", "T_equal", lambda x, y: x == y, a, b)


def not_equal(a: Operand, b: Operand) -> Tensor:
    return _elementwise("not_equal", "T_not_equal", lambda x, y: x != y, a, b)


def where(condition: Tensor, a: Operand, b: Operand) -> Tensor:
    """a where the bool tensor `condition` holds, else b (broadcast together)."""
    _require(condition.dtype == te.BOOL, "where", f"the condition holds {condition.dtype}, not bool")
    return _elementwise("where", "T_where", te.if_then_else, condition, a, b)


def ewise_fma(a: Operand, b: Operand, c: Operand) -> Tensor:
    """a * b + c (seed 003's fused multiply-add)."""
    return _elementwise("ewise_fma", "T_ewise_fma", lambda x, y, z: x * y + z, a, b, c)


def _integer_division(op: str, a: Operand, b: Operand) -> None:
    dtypes = {t.dtype for t in (a, b) if isinstance(t, Tensor)}
    _require(dtypes <= set(te.INTS), op, f"takes integer tensors, got {', '.join(sorted(dtypes))}")


def floor_divide(a: Operand, b: Operand) -> Tensor:
    """a // b on integers, rounded toward -inf (a zero divisor is a run-time error of the built code)."""
    _integer_division("floor_divide", a, b)
    return _elementwise("floor_divide", "T_floor_divide", lambda x, y: x // y, a, b)


def trunc_divide(a: Operand, b: Operand) -> Tensor:
    """a / b on integers, rounded toward zero: the floor quotient, one more where a remainder
    is left and the operands' signs differ."""
    _integer_division("trunc_divide", a, b)

    def quotient(x: TeExpr, y: TeExpr) -> TeExpr:
        q = x // y
        inexact = te.all(q * y != x, (x < 0) != (y < 0))
        return te.if_then_else(inexact, q + 1, q)

    return _elementwise("trunc_divide", "T_trunc_divide", quotient, a, b)


def relu(x: Tensor) -> Tensor:
    return te.compute(x.shape, lambda *i: te.max(x(*i), te.const(0, x.dtype)), name="T_relu")


# Activations -----------------------------------------------------------------------------------


def _float_elementwise(x: Tensor, op: str, fn) -> Tensor:  # noqa: ANN001 - fn maps an element
    """The stage `T_{op}`: fn of each element; a float16 element computed in float32 and rounded
    once, as torch's CPU kernels do (and as LLVM has no float16 tanh or erf to call)."""
    _require(x.dtype in te.FLOATS, op, f"takes floating-point tensors, got {x.dtype}")
    name = f"T_{op}"
    if x.dtype != "float16":
        return te.compute(x.shape, lambda *i: fn(x(*i)), name=name)
    return te.compute(x.shape, lambda *i: fn(x(*i).astype("float32")).astype("float16"), name=name)


def sigmoid(x: Tensor) -> Tensor:
    return _float_elementwise(x, "sigmoid", te.sigmoid)


def tanh(x: Tensor) -> Tensor:
    return _float_elementwise(x, "tanh", te.tanh)


def silu(x: Tensor) -> Tensor:
    """x * sigmoid(x)."""
    return _float_elementwise(x, "silu", lambda v: v * te.sigmoid(v))


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """0.5 x (1 + erf(x / √2)), or with approximate="tanh" 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))."""
    _require(approximate in GELU_APPROXIMATIONS, "gelu",
             f"approximate must be one of {', '.join(map(repr, GELU_APPROXIMATIONS))}, got {approximate!r}")
    if approximate == "tanh":
        def phi(v: TeExpr) -> TeExpr:
            return 1.0 + te.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * (v * v * v)))
    else:
        def phi(v: TeExpr) -> TeExpr:
            return 1.0 + te.erf(v * (1 / math.sqrt(2)))
    return _float_elementwise(x, "gelu", lambda v: 0.5 * v * phi(v))


def leaky_relu(x: Tensor, alpha: float = 0.01) -> Tensor:
    """x where x > 0, else alpha * x."""
    return _float_elementwise(x, "leaky_relu", lambda v: te.if_then_else(v > 0.0, v, v * alpha))


def exp(x: Tensor) -> Tensor:
    return _float_elementwise(x, "exp", te.exp)


def log(x: Tensor) -> Tensor:
    return _float_elementwise(x, "log", te.log)


def sqrt(x: Tensor) -> Tensor:
    return _float_elementwise(x, "sqrt", te.sqrt)


def rsqrt(x: Tensor) -> Tensor:
    """1 / sqrt(x), rounded twice as torch's kernel does."""
    return _float_elementwise(x, "rsqrt", lambda v: 1.0 / te.sqrt(v))


def _number(x: Tensor, op: str) -> None:
    _require(x.dtype != te.BOOL, op, "takes numbers, not bool")


def negative(x: Tensor) -> Tensor:
    """-x as x * -1: a float's 0 becomes -0, as torch's negation does (0 - x would give +0)."""
    _number(x, "negative")
    return te.compute(x.shape, lambda *i: x(*i) * -1, name="T_negative")


def abs(x: Tensor) -> Tensor:  # noqa: A001 - TVM's name
    _number(x, "abs")
    if x.dtype in te.FLOATS:
        return te.compute(x.shape, lambda *i: te.abs(x(*i)), name="T_abs")
    return te.compute(x.shape, lambda *i: te.if_then_else(x(*i) < 0, x(*i) * -1, x(*i)), name="T_abs")


def clip(x: Tensor, a_min: Scalar | None = None, a_max: Scalar | None = None) -> Tensor:
    """x limited to [a_min, a_max] (a bound None is none) as torch.clamp's std::max, then std::min:
    x < a_min ? a_min : x, so that -0.0 against a bound 0.0 stays -0.0 (IEEE maximum gives
    +0.0), a NaN stays NaN, and with a_min > a_max every element is a_max."""
    _number(x, "clip")

    def element(*i: TeExpr) -> TeExpr:
        v = x(*i)
        if a_min is not None:
            low = te.const(a_min, x.dtype)
            v = te.if_then_else(v < low, low, v)
        if a_max is not None:
            high = te.const(a_max, x.dtype)
            v = te.if_then_else(v > high, high, v)
        return v

    return te.compute(x.shape, element, name="T_clip")


def astype(x: Tensor, dtype: str) -> Tensor:
    """Each element as `dtype`, converted as torch converts: a float16 from float64 or from an
    integer goes through float32 (c10::Half is made from a float); a bool is 0 or 1; a
    number becomes the bool x != 0."""
    def element(*i: TeExpr) -> TeExpr:
        v = x(*i)
        if x.dtype == te.BOOL:
            return te.if_then_else(v, te.const(1, dtype), te.const(0, dtype))
        if dtype == te.BOOL:
            return v != 0
        if dtype == "float16" and x.dtype != "float32":
            v = v.astype("float32")
        return v.astype(dtype)

    if dtype != te.BOOL:
        te.cast(0, dtype)  # checks the name
    return te.compute(x.shape, element, name="T_cast")


def bias_add(x: Tensor, bias: Tensor, axis: int = 1) -> Tensor:
    """x + bias along `axis` (relax.nn.bias_add; negative axes count from the end)."""
    ax = axis + x.ndim if axis < 0 else axis
    _require(0 <= ax < x.ndim, "bias_add", f"axis {axis} is outside the {x.ndim} dimensions of {_text(x.shape)}")
    _require(bias.ndim == 1 and bias.shape[0] == x.shape[ax], "bias_add",
             f"the bias {_text(bias.shape)} does not match dimension {ax} of {_text(x.shape)}")
    return te.compute(x.shape, lambda *i: x(*i) + bias[i[ax]], name="T_add")


# Layout ---------------------------------------------------------------------------------------


def _strides(shape: Sequence[int]) -> list[int]:
    return [math.prod(shape[k + 1:]) for k in range(len(shape))]


def reshape(x: Tensor, shape: Sequence[int]) -> Tensor:
    """The same elements in row-major order under a new shape (-1 infers one dimension)."""
    dims = list(shape)
    if dims.count(-1) == 1:
        known = math.prod(d for d in dims if d != -1)
        dims[dims.index(-1)] = math.prod(x.shape) // known if known else 0
    _require(all(d > 0 for d in dims) and math.prod(dims) == math.prod(x.shape), "reshape",
             f"cannot reshape {_text(x.shape)} to {_text(shape)}")
    groups = _reshape_groups(x.shape, dims)

    def element(*i: TeExpr) -> TeExpr:
        source: list[TeExpr] = []
        for ins, outs in groups:  # each group's elements: flattened from the output, unflattened into the input
            out_shape, in_shape = [dims[k] for k in outs], [x.shape[k] for k in ins]
            flat = builtins.sum((i[k] * s for k, s, d in zip(outs, _strides(out_shape), out_shape) if d != 1),
                       te.const(0, te.INDEX))
            source += [(flat // s) % d if d != 1 else te.const(0, te.INDEX) for s, d in zip(_strides(in_shape), in_shape)]
        return x(*source)

    return te.compute(tuple(dims), element, name="T_reshape")


def _reshape_groups(src: Sequence[int], dst: Sequence[int]) -> list[tuple[list[int], list[int]]]:
    """The dimensions of `src` and `dst` in runs of equal products ((2, 3, 4) → (6, 4): [0, 1]
    with [0], then [2] with [1]), so that each output index reads a few input indices only."""
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(src) or j < len(dst):
        ins, outs, p, q = [], [], 1, 1
        if i < len(src):
            ins.append(i)
            p, i = p * src[i], i + 1
        if j < len(dst):
            outs.append(j)
            q, j = q * dst[j], j + 1
        while p != q:  # the totals are equal, so one side always has a dimension left
            if p < q:
                ins.append(i)
                p, i = p * src[i], i + 1
            else:
                outs.append(j)
                q, j = q * dst[j], j + 1
        groups.append((ins, outs))
    return groups


def flatten(x: Tensor, start_dim: int = 1) -> Tensor:
    """Dimensions from `start_dim` on folded into one (torch.flatten)."""
    start = start_dim + x.ndim if start_dim < 0 else start_dim
    _require(0 <= start < x.ndim, "flatten", f"start_dim {start_dim} is outside the dimensions of {_text(x.shape)}")
    return reshape(x, (*x.shape[:start], math.prod(x.shape[start:])))


def transpose(x: Tensor, axes: Sequence[int] | None = None) -> Tensor:
    """Dimensions permuted: output dimension k is input dimension axes[k] (reversed by default)."""
    perm = list(axes) if axes is not None else list(range(x.ndim))[::-1]
    _require(sorted(perm) == list(range(x.ndim)), "transpose", f"{perm} is not a permutation of {x.ndim} dimensions")

    def element(*i: TeExpr) -> TeExpr:
        source: list[TeExpr] = [i[0]] * x.ndim
        for out_dim, in_dim in enumerate(perm):
            source[in_dim] = i[out_dim]
        return x(*source)

    return te.compute(tuple(x.shape[p] for p in perm), element, name="T_transpose")


def pad(x: Tensor, before: Sequence[int], after: Sequence[int], value: Scalar = 0.0, name: str = "pad_temp") -> Tensor:
    """`x` surrounded by `value` (TVM's topi.nn.pad: one if_then_else stage)."""
    _require(len(before) == x.ndim and len(after) == x.ndim and min(*before, *after) >= 0, "pad",
             f"needs one non-negative padding per dimension of {_text(x.shape)}, got {list(before)} and {list(after)}")
    shape = tuple(d + b + a for d, b, a in zip(x.shape, before, after))

    def element(*i: TeExpr) -> TeExpr:
        inside = [c for v, b, a, d in zip(i, before, after, x.shape) for c in
                  ([v >= b] if b else []) + ([v < b + d] if a else [])]
        read = x(*(v - b for v, b in zip(i, before)))
        return te.if_then_else(te.all(*inside), read, te.const(value, x.dtype)) if inside else read

    return te.compute(shape, element, name=name)


def strided_slice(x: Tensor, begin: Sequence[int], end: Sequence[int], strides: Sequence[int]) -> Tensor:
    """x[begin[0]:end[0]:strides[0], ...], one non-empty slice with a positive stride per dimension."""
    triples = list(zip(begin, end, strides))
    _require(len(triples) == x.ndim == len(begin) == len(end) == len(strides)
             and all(s > 0 and 0 <= b < e <= n for (b, e, s), n in zip(triples, x.shape)), "strided_slice",
             f"{list(begin)}:{list(end)}:{list(strides)} is no non-empty slice of each dimension of {_text(x.shape)}")
    shape = tuple(slice_extent(b, e, s) for b, e, s in triples)
    return te.compute(shape, lambda *i: x(*(b + s * v for v, (b, _, s) in zip(i, triples))), name="T_strided_slice")


# Convolution and pooling -------------------------------------------------------------------------


def _pair(value: int | Sequence[int], what: str, op: str) -> tuple[int, int]:
    pair = (value, value) if isinstance(value, int) else tuple(value)
    _require(len(pair) == 2 and all(isinstance(v, int) for v in pair), op, f"{what} must be an int or a pair, got {value!r}")
    return pair  # type: ignore[return-value]


def _padding(padding: int | Sequence[int], op: str) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) from an int, a (vertical, horizontal) pair or four values."""
    p = (padding,) * 4 if isinstance(padding, int) else tuple(padding)
    if len(p) == 2:
        p = (p[0], p[1], p[0], p[1])
    _require(len(p) == 4 and all(isinstance(v, int) and v >= 0 for v in p), op,
             f"padding must be an int, a pair or (top, left, bottom, right), non-negative, got {padding!r}")
    return p  # type: ignore[return-value]


def _out_size(size: int, pad_total: int, kernel: int, stride: int, dilation: int, op: str) -> int:
    span = (kernel - 1) * dilation + 1
    _require(stride > 0 and dilation > 0, op, f"strides and dilations must be positive, got {stride} and {dilation}")
    _require(size + pad_total >= span, op, f"the window of {span} does not fit in {size} padded by {pad_total}")
    return (size + pad_total - span) // stride + 1


def _pad_spatial(x: Tensor, p: tuple[int, int, int, int], value: Scalar) -> Tensor:
    if not any(p):
        return x
    return pad(x, (0, 0, p[0], p[1]), (0, 0, p[2], p[3]), value)


def conv2d_nchw(x: Tensor, w: Tensor, strides: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                dilation: int | Sequence[int] = 1) -> Tensor:
    """x[N, C, H, W] ⋆ w[F, C, KH, KW] → [N, F, OH, OW] (no groups); the padding is its own stage."""
    _require(x.ndim == 4 and w.ndim == 4 and x.shape[1] == w.shape[1], "conv2d_nchw",
             f"input {_text(x.shape)} and weight {_text(w.shape)} do not match (NCHW and OIHW, same C)")
    (sh, sw), (dh, dw) = _pair(strides, "strides", "conv2d_nchw"), _pair(dilation, "dilation", "conv2d_nchw")
    p = _padding(padding, "conv2d_nchw")
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh = _out_size(h, p[0] + p[2], kh, sh, dh, "conv2d_nchw")
    ow = _out_size(wd, p[1] + p[3], kw, sw, dw, "conv2d_nchw")
    data = _pad_spatial(x, p, 0.0)
    rc, ry, rx = te.reduce_axis(c, "rc"), te.reduce_axis(kh, "ry"), te.reduce_axis(kw, "rx")
    return _summed((n, f, oh, ow),
                   lambda nn, ff, yy, xx: (data[nn, rc, yy * sh + ry * dh, xx * sw + rx * dw], w[ff, rc, ry, rx]),
                   [rc, ry, rx], "conv2d_nchw", x.dtype)


def max_pool2d(x: Tensor, kernel: int | Sequence[int], strides: int | Sequence[int] | None = None,
               padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1) -> Tensor:
    """The maximum over each window of x[N, C, H, W] (padding counts as -inf); strides default to the kernel."""
    _require(x.ndim == 4, "max_pool2d", f"takes an NCHW tensor, got {_text(x.shape)}")
    kh, kw = _pair(kernel, "kernel", "max_pool2d")
    sh, sw = _pair(strides if strides is not None else (kh, kw), "strides", "max_pool2d")
    dh, dw = _pair(dilation, "dilation", "max_pool2d")
    p = _padding(padding, "max_pool2d")
    n, c, h, wd = x.shape
    oh = _out_size(h, p[0] + p[2], kh, sh, dh, "max_pool2d")
    ow = _out_size(wd, p[1] + p[3], kw, sw, dw, "max_pool2d")
    data = _pad_spatial(x, p, -math.inf)
    ry, rx = te.reduce_axis(kh, "rv0"), te.reduce_axis(kw, "rv1")
    return te.compute(
        (n, c, oh, ow),
        lambda ax0, ax1, ax2, ax3: te.max(data[ax0, ax1, ax2 * sh + ry * dh, ax3 * sw + rx * dw], axis=[ry, rx]),
        name="pool_max",
    )


# Softmax ---------------------------------------------------------------------------------------


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """exp(x - max) / sum(exp(x - max)) along `axis`: four stages, as TVM's topi.nn.softmax."""
    ax = axis + x.ndim if axis < 0 else axis
    _require(0 <= ax < x.ndim, "softmax", f"axis {axis} is outside the {x.ndim} dimensions of {_text(x.shape)}")
    reduced = tuple(d for k, d in enumerate(x.shape) if k != ax)

    def with_axis(outer: Sequence[TeExpr], k: TeExpr) -> tuple[TeExpr, ...]:
        return (*outer[:ax], k, *outer[ax:])

    def outer_of(i: Sequence[TeExpr]) -> tuple[TeExpr, ...]:
        return (*i[:ax], *i[ax + 1:])

    # float16 exponentials and their sum are float32 (a float16 sum of 1000 terms is off by
    # percents), rounded once in the last stage, as torch computes a float16 softmax
    wide = "float32" if x.dtype == "float16" else x.dtype
    k1 = te.reduce_axis(x.shape[ax], "k")
    maxelem = te.compute(reduced or (1,), lambda *i: te.max(x(*with_axis(i if reduced else (), k1)), axis=k1),
                         name="T_softmax_maxelem")
    row = (lambda i: outer_of(i)) if reduced else (lambda i: (0,))  # noqa: E731 - the reduced tensor's index
    exps = te.compute(x.shape, lambda *i: te.exp(x(*i).astype(wide) - maxelem(*row(i)).astype(wide)),
                      name="T_softmax_exp")
    k2 = te.reduce_axis(x.shape[ax], "k")
    expsum = te.compute(reduced or (1,), lambda *i: te.sum(exps(*with_axis(i if reduced else (), k2)), axis=k2),
                        name="T_softmax_expsum")
    return te.compute(x.shape, lambda *i: (exps(*i) / expsum(*row(i))).astype(x.dtype), name="T_softmax_norm")


# Reductions ------------------------------------------------------------------------------------


def _reduction(x: Tensor, axes: Sequence[int], keepdims: bool, op: str):  # noqa: ANN202 - the indices function
    """The result shape, the reduce axes, and a function from the result's indices to x's
    (the reduce axes in place of `axes`)."""
    dims = sorted({a + x.ndim if a < 0 else a for a in axes})
    _require(bool(dims) and all(0 <= a < x.ndim for a in dims), op,
             f"axes {list(axes)} are no dimensions of {_text(x.shape)}")
    ks = {a: te.reduce_axis(x.shape[a], f"k{a}") for a in dims}
    kept = [d for d in range(x.ndim) if keepdims or d not in ks]
    shape = tuple(1 if d in ks else x.shape[d] for d in kept)

    def source(*i: TeExpr) -> tuple[TeExpr, ...]:
        at = dict(zip(kept, i))
        return tuple(ks[d] if d in ks else at[d] for d in range(x.ndim))

    return shape or (1,), list(ks.values()), source


def sum(x: Tensor, axes: Sequence[int], keepdims: bool = False) -> Tensor:  # noqa: A001 - TVM's name
    """The sum over `axes`; float16 adds in float32 and rounds in a stage `T_sum_cast`, as torch."""
    _number(x, "sum")
    shape, ks, source = _reduction(x, axes, keepdims, "sum")
    wide = "float32" if x.dtype == "float16" else x.dtype
    total = te.compute(shape, lambda *i: te.sum(x(*source(*i)).astype(wide), axis=ks), name="T_sum")
    if wide == x.dtype:
        return total
    return te.compute(shape, lambda *i: total(*i).astype(x.dtype), name="T_sum_cast")


def mean(x: Tensor, axes: Sequence[int], keepdims: bool = False) -> Tensor:
    """The sum over `axes` divided by the count (float16: both in float32, rounded once), as torch's CPU mean."""
    _require(x.dtype in te.FLOATS, "mean", f"takes floating-point tensors, got {x.dtype}")
    shape, ks, source = _reduction(x, axes, keepdims, "mean")
    wide = "float32" if x.dtype == "float16" else x.dtype
    total = te.compute(shape, lambda *i: te.sum(x(*source(*i)).astype(wide), axis=ks), name="T_sum")
    count = math.prod(k.extent for k in ks)
    return te.compute(shape, lambda *i: (total(*i) / float(count)).astype(x.dtype), name="T_mean")


def max(x: Tensor, axes: Sequence[int], keepdims: bool = False) -> Tensor:  # noqa: A001 - TVM's name
    """The largest element over `axes` (a NaN wins, as in torch.amax)."""
    _number(x, "max")
    shape, ks, source = _reduction(x, axes, keepdims, "max")
    return te.compute(shape, lambda *i: te.max(x(*source(*i)), axis=ks), name="T_max")


def flip(x: Tensor, axes: Sequence[int]) -> Tensor:
    """x with the dimensions `axes` reversed."""
    dims = {a + x.ndim if a < 0 else a for a in axes}
    _require(all(0 <= a < x.ndim for a in dims), "flip", f"axes {list(axes)} are no dimensions of {_text(x.shape)}")
    return te.compute(x.shape, lambda *i: x(*(x.shape[d] - 1 - v if d in dims else v for d, v in enumerate(i))),
                      name="T_flip")
