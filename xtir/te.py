"""`xtir.te`: tensor expressions, TVM's `te`, building block-dialect functions.

    A = te.placeholder((M, K), "float32", "A")
    B = te.placeholder((N, K), "float32", "B")
    k = te.reduce_axis(K, "k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    f = te.create_func([A, B, C], name="main")     # func.func @main(%A, %B, %C) over memrefs

A compute is a stage: one block named after it, inside one loop per axis (named after the
lambda's parameters, then the reduce axes), with spatial and reduce iteration variables
and, for a reduction, an init (TVM's `te.create_prim_func`). Arguments are placeholders
and the outputs (destination passing); other stages write `block.alloc` buffers.

Expressions are Python objects with the usual operators; `==` builds an equality (as in
TVM), so they have no truth value: use `te.if_then_else`, `te.all`, `te.any`; a compute of a
condition is a tensor of "bool" (i1 buffers), read back as a condition. Indices are
affine in the axes (`i * 2 + k`, `i // 4`, `i % 4`). A misuse (a shape or index count that
does not match, an axis of another stage, a reduce axis not reduced over, a float or
data-dependent index, an access outside its tensor) is an XtirError naming the stage.
"""

from __future__ import annotations

import builtins
import contextlib
import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xtir.errors import XtirError

if TYPE_CHECKING:
    from xdsl.dialects import func

FLOATS = ("float16", "float32", "float64")
INTS = ("int8", "int16", "int32", "int64")
INDEX = "index"
"""The type of axes and index arithmetic (64-bit, like the block dialect's indices)."""
BOOL = "bool"


class TeError(XtirError):
    """A misuse of the tensor-expression builder."""


_STAGES: list[str] = []
"""The computes whose lambdas are running (errors name the innermost)."""


def _fail(message: str) -> TeError:
    where = f'te.compute "{_STAGES[-1]}": ' if _STAGES else "te: "
    return TeError(where + message)


@contextlib.contextmanager
def _stage(name: str) -> Iterator[None]:
    _STAGES.append(name)
    try:
        yield
    finally:
        _STAGES.pop()


def _is_integer(dtype: str) -> bool:
    return dtype in INTS or dtype == INDEX


# Expressions ------------------------------------------------------------------------------


class TeExpr:
    """An expression of a stage; subclasses are the node kinds."""

    dtype: str

    def __add__(self, other: object) -> TeExpr:
        return _binary("+", self, other)

    def __radd__(self, other: object) -> TeExpr:
        return _binary("+", other, self)

    def __sub__(self, other: object) -> TeExpr:
        return _binary("-", self, other)

    def __rsub__(self, other: object) -> TeExpr:
        return _binary("-", other, self)

    def __mul__(self, other: object) -> TeExpr:
        return _binary("*", self, other)

    def __rmul__(self, other: object) -> TeExpr:
        return _binary("*", other, self)

    def __truediv__(self, other: object) -> TeExpr:
        return _binary("/", self, other)

    def __rtruediv__(self, other: object) -> TeExpr:
        return _binary("/", other, self)

    def __floordiv__(self, other: object) -> TeExpr:
        return _binary("//", self, other)

    def __rfloordiv__(self, other: object) -> TeExpr:
        return _binary("//", other, self)

    def __mod__(self, other: object) -> TeExpr:
        return _binary("%", self, other)

    def __rmod__(self, other: object) -> TeExpr:
        return _binary("%", other, self)

    def __neg__(self) -> TeExpr:
        return _binary("-", 0, self)

    def __lt__(self, other: object) -> TeExpr:
        return _compare("<", self, other)

    def __le__(self, other: object) -> TeExpr:
        return _compare("<=", self, other)

    def __gt__(self, other: object) -> TeExpr:
        return _compare(">", self, other)

    def __ge__(self, other: object) -> TeExpr:
        return _compare(">=", self, other)

    def __eq__(self, other: object) -> TeExpr:  # type: ignore[override]
        return _compare("==", self, other)

    def __ne__(self, other: object) -> TeExpr:  # type: ignore[override]
        return _compare("!=", self, other)

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise _fail(f"the expression {self} has no truth value; use te.if_then_else, te.all or te.any")

    def astype(self, dtype: str) -> TeExpr:
        return cast(self, dtype)

    def children(self) -> tuple[TeExpr, ...]:
        return ()

    def __str__(self) -> str:
        return show(self)

    __repr__ = __str__


@dataclass(eq=False, repr=False)
class Const(TeExpr):
    value: int | float
    dtype: str


@dataclass(eq=False, repr=False)
class Axis(TeExpr):
    """An iteration axis (TVM's IterVar): spatial (a compute's lambda parameter) or reduce,
    ranging over [start, start + extent)."""

    name: str
    extent: int
    kind: str
    start: int = 0
    dtype: str = INDEX


@dataclass(eq=False, repr=False)
class Load(TeExpr):
    tensor: Tensor
    indices: tuple[TeExpr, ...]
    dtype: str = ""

    def __post_init__(self) -> None:
        self.dtype = self.tensor.dtype

    def children(self) -> tuple[TeExpr, ...]:
        return self.indices


@dataclass(eq=False, repr=False)
class Binary(TeExpr):
    """`+ - * / // %` and `max`, `min`: operands of one dtype (`//`, `%` are floor division)."""

    op: str
    a: TeExpr
    b: TeExpr
    dtype: str = ""

    def __post_init__(self) -> None:
        self.dtype = self.a.dtype

    def children(self) -> tuple[TeExpr, ...]:
        return (self.a, self.b)


@dataclass(eq=False, repr=False)
class Compare(TeExpr):
    op: str
    a: TeExpr
    b: TeExpr
    dtype: str = BOOL

    def children(self) -> tuple[TeExpr, ...]:
        return (self.a, self.b)


@dataclass(eq=False, repr=False)
class Logical(TeExpr):
    """`and` / `or` of conditions, `not` of one."""

    op: str
    args: tuple[TeExpr, ...]
    dtype: str = BOOL

    def children(self) -> tuple[TeExpr, ...]:
        return self.args


@dataclass(eq=False, repr=False)
class Select(TeExpr):
    """TVM's if_then_else: only the chosen branch is evaluated (its loads may leave their
    tensor where the condition does not hold, as a padding stage's do)."""

    cond: TeExpr
    then: TeExpr
    otherwise: TeExpr
    dtype: str = ""

    def __post_init__(self) -> None:
        self.dtype = self.then.dtype

    def children(self) -> tuple[TeExpr, ...]:
        return (self.cond, self.then, self.otherwise)


@dataclass(eq=False, repr=False)
class Call(TeExpr):
    """A float math function of one argument: exp, log, sqrt, tanh, erf, abs."""

    fn: str
    arg: TeExpr
    dtype: str = ""

    def __post_init__(self) -> None:
        self.dtype = self.arg.dtype

    def children(self) -> tuple[TeExpr, ...]:
        return (self.arg,)


@dataclass(eq=False, repr=False)
class Cast(TeExpr):
    value: TeExpr
    dtype: str

    def children(self) -> tuple[TeExpr, ...]:
        return (self.value,)


@dataclass(eq=False, repr=False)
class Reduce(TeExpr):
    """`combiner` (sum, max, min) of `source` over `axes`: the whole body of a reduction stage."""

    combiner: str
    source: TeExpr
    axes: tuple[Axis, ...]
    dtype: str = ""

    def __post_init__(self) -> None:
        self.dtype = self.source.dtype

    def children(self) -> tuple[TeExpr, ...]:
        return (self.source,)


def walk(expr: TeExpr) -> Iterator[TeExpr]:
    """`expr` and every expression under it, parents first."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children()))


_PRECEDENCE = {"||": 1, "&&": 2, "<": 3, "<=": 3, ">": 3, ">=": 3, "==": 3, "!=": 3, "+": 4, "-": 4,
               "*": 5, "/": 5, "//": 5, "%": 5}


def show(expr: TeExpr, outer: int = 0) -> str:
    """TVM-like text of an expression, for diagnostics."""
    match expr:
        case Const(value=v):
            return repr(v)
        case Axis(name=n):
            return n
        case Load(tensor=t, indices=idx):
            return f"{t.name}[{', '.join(show(i) for i in idx)}]"
        case Binary(op=op, a=a, b=b) | Compare(op=op, a=a, b=b) if op in _PRECEDENCE:
            p = _PRECEDENCE[op]
            text = f"{show(a, p)} {op} {show(b, p + 1)}"
            return f"({text})" if p < outer else text
        case Binary(op=op, a=a, b=b):
            return f"{op}({show(a)}, {show(b)})"
        case Logical(op="not", args=(a,)):
            return f"!{show(a, 9)}"
        case Logical(op=op, args=args):
            p = _PRECEDENCE["&&" if op == "and" else "||"]
            text = f" {'&&' if op == 'and' else '||'} ".join(show(a, p + 1) for a in args)
            return f"({text})" if p < outer else text
        case Select(cond=c, then=t, otherwise=o):
            return f"if_then_else({show(c)}, {show(t)}, {show(o)})"
        case Call(fn=fn, arg=a):
            return f"{fn}({show(a)})"
        case Cast(value=v, dtype=d):
            return f"{d}({show(v)})"
        case Reduce(combiner=c, source=s, axes=axes):
            return f"{c}({show(s)}, axis=[{', '.join(a.name for a in axes)}])"
    return type(expr).__name__


# Typing -----------------------------------------------------------------------------------


def const(value: int | float, dtype: str = "float32") -> Const:
    """A constant of `dtype` (TVM's tvm.tir.const)."""
    _check_dtype(dtype)
    if dtype in FLOATS:
        return Const(float(value), dtype)
    if isinstance(value, float) and not value.is_integer():
        raise _fail(f"the constant {value} is not a {dtype}")
    return Const(int(value), dtype)


def _check_dtype(dtype: object) -> None:
    if dtype not in (*FLOATS, *INTS, INDEX):
        raise _fail(f"unknown dtype {dtype!r}; expected one of {', '.join((*FLOATS, *INTS))}")


def _check_stored_dtype(dtype: object) -> None:
    """What a tensor holds: a number type, or bool (conditions: a comparison's results)."""
    if dtype != BOOL:
        _check_dtype(dtype)


def _as_expr(value: object, like: TeExpr | None, what: str) -> TeExpr:
    """`value` as an expression; a Python number takes the type of the expression it meets."""
    if isinstance(value, TeExpr):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(f"{what}: expected a te expression or a number, got {type(value).__name__}")
    if like is None or like.dtype == BOOL:
        return Const(value, "float32" if isinstance(value, float) else "int32")
    if isinstance(value, float) and like.dtype not in FLOATS:
        raise _fail(f"{what}: the float {value} meets the {like.dtype} expression {like}; cast one of them")
    return const(value, like.dtype)


def _unify(a: object, b: object, what: str) -> tuple[TeExpr, TeExpr]:
    x = _as_expr(a, b if isinstance(b, TeExpr) else None, what)
    y = _as_expr(b, x, what)
    if x.dtype != y.dtype:
        raise _fail(f"{what}: operands of types {x.dtype} and {y.dtype} ({x} and {y}); cast one with te.cast")
    return x, y


def _binary(op: str, a: object, b: object) -> TeExpr:
    x, y = _unify(a, b, f"'{op}'")
    if x.dtype == BOOL:
        raise _fail(f"'{op}' on conditions ({x}, {y}); use te.all / te.any, or cast them")
    if op == "/" and x.dtype not in FLOATS:
        raise _fail(f"'/' on {x.dtype} operands ({x} / {y}); use // for integer division")
    if op in ("//", "%") and x.dtype in FLOATS:
        raise _fail(f"'{op}' on {x.dtype} operands ({x} {op} {y}); it is defined for integers")
    return Binary(op, x, y)


def _compare(op: str, a: object, b: object) -> TeExpr:
    x, y = _unify(a, b, f"'{op}'")
    # conditions are i1, where true reads as -1 when signed: only (in)equality means one thing
    if x.dtype == BOOL and op not in ("==", "!="):
        raise _fail(f"'{op}' between conditions ({x}, {y}); only == and != compare conditions")
    return Compare(op, x, y)


def _condition(cond: object, what: str) -> TeExpr:
    if not isinstance(cond, TeExpr) or cond.dtype != BOOL:
        raise _fail(f"{what} expects a condition (a comparison), got {cond}")
    return cond


def cast(value: object, dtype: str) -> TeExpr:
    """`value` converted to `dtype` (floats truncate toward zero when made integers)."""
    _check_dtype(dtype)
    x = _as_expr(value, None, "te.cast")
    if x.dtype == BOOL:
        raise _fail(f"te.cast of the condition {x}; use te.if_then_else(cond, 1, 0)")
    return x if x.dtype == dtype else Cast(x, dtype)


def if_then_else(cond: object, then: object, otherwise: object) -> TeExpr:
    """`then` where `cond` holds, else `otherwise`; only the chosen one is evaluated."""
    c = _condition(cond, "te.if_then_else")
    t, o = _unify(then, otherwise, "te.if_then_else")
    return Select(c, t, o)


select = if_then_else


def all(*conds: object) -> TeExpr:  # noqa: A001 - TVM's name
    """The conjunction of conditions (TVM's te.all)."""
    if not conds:
        raise _fail("te.all of no condition")
    checked = tuple(_condition(c, "te.all") for c in conds)
    return checked[0] if len(checked) == 1 else Logical("and", checked)


def any(*conds: object) -> TeExpr:  # noqa: A001 - TVM's name
    """The disjunction of conditions (TVM's te.any)."""
    if not conds:
        raise _fail("te.any of no condition")
    checked = tuple(_condition(c, "te.any") for c in conds)
    return checked[0] if len(checked) == 1 else Logical("or", checked)


def logical_not(cond: object) -> TeExpr:
    return Logical("not", (_condition(cond, "te.logical_not"),))


def _math(fn: str, value: object) -> TeExpr:
    x = _as_expr(value, None, f"te.{fn}")
    if x.dtype not in FLOATS:
        raise _fail(f"te.{fn} of the {x.dtype} expression {x}; it takes floats")
    return Call(fn, x)


def exp(x: object) -> TeExpr:
    return _math("exp", x)


def log(x: object) -> TeExpr:
    return _math("log", x)


def sqrt(x: object) -> TeExpr:
    return _math("sqrt", x)


def tanh(x: object) -> TeExpr:
    return _math("tanh", x)


def erf(x: object) -> TeExpr:
    """The error function (on the CPU libm's erff / erf, which LLVM has no intrinsic for)."""
    return _math("erf", x)


def abs(x: object) -> TeExpr:  # noqa: A001 - TVM's name
    return _math("abs", x)


def sigmoid(x: object) -> TeExpr:
    e = _math("exp", -_as_expr(x, None, "te.sigmoid"))
    return 1.0 / (1.0 + e)


# Reductions -------------------------------------------------------------------------------


def reduce_axis(dom: int | tuple[int, int], name: str = "k") -> Axis:
    """A reduction axis over range(dom) or range(lo, hi) (TVM's te.reduce_axis)."""
    lo, hi = (0, dom) if isinstance(dom, int) else tuple(dom)
    if not builtins.all(isinstance(v, int) and not isinstance(v, bool) for v in (lo, hi)) or hi <= lo:
        raise _fail(f"te.reduce_axis {name!r}: expected an extent > 0 or a range (lo, hi) with lo < hi, got {dom!r}")
    return Axis(_checked_name(name, "axis"), hi - lo, "reduce", lo)


def _axes(axis: object, what: str) -> tuple[Axis, ...]:
    axes = tuple(axis) if isinstance(axis, list | tuple) else (axis,)
    if not axes or not builtins.all(isinstance(a, Axis) and a.kind == "reduce" for a in axes):
        raise _fail(f"{what}: axis= takes reduce axes (te.reduce_axis), got {axis!r}")
    if len({id(a) for a in axes}) != len(axes):
        raise _fail(f"{what}: an axis is listed twice in axis=[{', '.join(a.name for a in axes)}]")
    return axes


def sum(expr: object, axis: object) -> TeExpr:  # noqa: A001 - TVM's name
    """The sum of `expr` over the reduce axes `axis` (te.sum)."""
    source = _as_expr(expr, None, "te.sum")
    return Reduce("sum", source, _axes(axis, "te.sum"))


def _max_min(combiner: str, a: object, b: object, axis: object) -> TeExpr:
    reduces = axis is not None or isinstance(b, Axis) or (isinstance(b, list | tuple))
    if reduces:
        return Reduce(combiner, _as_expr(a, None, f"te.{combiner}"), _axes(axis if axis is not None else b, f"te.{combiner}"))
    if b is None:
        raise _fail(f"te.{combiner} takes two expressions, or one and axis=")
    return _binary(combiner, a, b)


def max(a: object, b: object = None, axis: object = None) -> TeExpr:  # noqa: A001 - TVM's name
    """te.max(x, axis=k) reduces; te.max(a, b) is elementwise."""
    return _max_min("max", a, b, axis)


def min(a: object, b: object = None, axis: object = None) -> TeExpr:  # noqa: A001 - TVM's name
    """te.min(x, axis=k) reduces; te.min(a, b) is elementwise."""
    return _max_min("min", a, b, axis)


# Tensors and stages -----------------------------------------------------------------------


@dataclass(eq=False)
class ComputeOp:
    """How a compute stage's elements are computed: `body` over `axes`."""

    axes: tuple[Axis, ...]
    body: TeExpr

    @property
    def reduce_axes(self) -> tuple[Axis, ...]:
        return self.body.axes if isinstance(self.body, Reduce) else ()


@dataclass(eq=False)
class Tensor:
    """A placeholder (op None) or the output of a compute stage."""

    shape: tuple[int, ...]
    dtype: str
    name: str
    op: ComputeOp | None = field(default=None, repr=False)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __getitem__(self, key: object) -> TeExpr:
        return self(*(key if isinstance(key, tuple) else (key,)))

    def __call__(self, *indices: object) -> TeExpr:
        if len(indices) != self.ndim:
            raise _fail(f"{self.name} has {self.ndim} dimensions ({_shape_text(self.shape)}), indexed with "
                        f"{len(indices)} indices")
        return Load(self, tuple(_index(self, k, i) for k, i in enumerate(indices)))

    def __bool__(self) -> bool:
        return True


def _shape_text(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape)) or "scalar"


def _index(tensor: Tensor, k: int, value: object) -> TeExpr:
    if isinstance(value, TeExpr):
        if not _is_integer(value.dtype):
            raise _fail(f"index {k} of {tensor.name} is the {value.dtype} expression {value}; indices are integers")
        if builtins.any(isinstance(n, Load) for n in walk(value)):
            raise _fail(f"index {k} of {tensor.name} reads a tensor ({value}); data-dependent indices are not supported")
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Const(value, INDEX)
    raise _fail(f"index {k} of {tensor.name} is {value!r}; indices are integers or expressions of the axes")


def _checked_name(name: object, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise _fail(f"a {what} name must be a non-empty string, got {name!r}")
    return name


def _checked_shape(shape: object, what: str) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, int) else shape
    try:
        result = tuple(int(d) for d in dims if not isinstance(d, bool | float))  # type: ignore[union-attr]
        valid = len(result) == len(dims) and builtins.all(d > 0 for d in result)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        valid = False
    if not valid or not result:
        raise _fail(f"{what}: the shape must be a tuple of positive integers, got {shape!r}")
    return result


def placeholder(shape: Sequence[int] | int, dtype: str = "float32", name: str = "placeholder") -> Tensor:
    """An input tensor (TVM's te.placeholder); a bool one holds conditions (te.if_then_else's)."""
    _check_stored_dtype(dtype)
    if dtype == INDEX:
        raise _fail("a placeholder holds numbers; use int64 rather than index")
    return Tensor(_checked_shape(shape, f"te.placeholder {name!r}"), dtype, _checked_name(name, "tensor"))


def _axis_names(fcompute: Callable[..., object], ndim: int, name: str) -> list[str]:
    """The lambda's parameter names; `lambda *i` gives i0, i1, ... (TVM's names)."""
    try:
        params = list(inspect.signature(fcompute).parameters.values())
    except (TypeError, ValueError):
        raise TeError(f'te.compute "{name}": expected a function of the {ndim} axes, got {fcompute!r}') from None
    if params and params[0].kind == inspect.Parameter.VAR_POSITIONAL:
        return [f"{params[0].name}{k}" for k in range(ndim)]
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) != ndim or len(positional) != len(params):
        raise TeError(f'te.compute "{name}": the shape has {ndim} dimensions but the function takes '
                      f"{len(params)} arguments ({', '.join(p.name for p in params)})")
    return [p.name for p in positional]


def compute(shape: Sequence[int] | int, fcompute: Callable[..., object], name: str = "compute") -> Tensor:
    """A stage computing each element of `shape` from its indices (TVM's te.compute)."""
    name = _checked_name(name, "compute")
    with _stage(name):
        dims = _checked_shape(shape, "te.compute")
        axes = tuple(Axis(n, d, "spatial") for n, d in zip(_axis_names(fcompute, len(dims), name), dims))
        body = _as_expr(fcompute(*axes), None, "the function's result")
        check_stage(axes, body)
    return Tensor(dims, body.dtype, name, ComputeOp(axes, body))


def check_stage(axes: Sequence[Axis], body: TeExpr) -> None:
    """What a stage's body may be: see the module docstring."""
    if body.dtype == BOOL and isinstance(body, Reduce):
        raise _fail(f"the reduction {body} is over conditions; reduce numbers (te.if_then_else(cond, 1, 0))")
    reduce_axes = body.axes if isinstance(body, Reduce) else ()
    source = body.source if isinstance(body, Reduce) else body
    names = [a.name for a in (*axes, *reduce_axes)]
    if len(set(names)) != len(names):
        raise _fail(f"two axes share a name ({', '.join(names)}); name the reduce axes apart")
    mine = {id(a) for a in (*axes, *reduce_axes)}
    for node in walk(source):
        if isinstance(node, Reduce):
            raise _fail(f"the reduction {node} is part of a larger expression; a reduction must be a compute's whole "
                        "body (compute it in a stage of its own)")
        if isinstance(node, Axis) and id(node) not in mine:
            if node.kind == "reduce":
                raise _fail(f"the reduce axis {node.name} is used but not reduced over (pass axis={node.name} to the "
                            "reduction)")
            raise _fail(f"the axis {node.name} belongs to another compute")
    for load in _eager_loads(source):
        check_in_bounds(load)


def _eager_loads(expr: TeExpr) -> Iterator[Load]:
    """The loads evaluated wherever the stage runs: not under a branch of an if_then_else."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Load):
            yield node
        stack.extend([node.cond] if isinstance(node, Select) else node.children())


def check_in_bounds(load: Load) -> None:
    for k, (index, dim) in enumerate(zip(load.indices, load.tensor.shape)):
        span = index_bounds(index)
        if span is not None and (span[0] < 0 or span[1] >= dim):
            raise _fail(f"{load} reads index {k} over [{span[0]}, {span[1]}], outside {load.tensor.name}'s "
                        f"dimension {k} of size {dim}")


def index_bounds(expr: TeExpr) -> tuple[int, int] | None:
    """Inclusive range of an integer expression over its axes' ranges (None when unknown)."""
    match expr:
        case Const(value=v) if isinstance(v, int):
            return v, v
        case Axis(start=s, extent=n):
            return s, s + n - 1
        case Binary(op=op, a=a, b=b):
            x, y = index_bounds(a), index_bounds(b)
            if x is None or y is None:
                return None
            if op in ("+", "-", "*", "max", "min"):
                fn = {"+": lambda p, q: p + q, "-": lambda p, q: p - q, "*": lambda p, q: p * q,
                      "max": builtins.max, "min": builtins.min}[op]
                if op == "-":
                    return x[0] - y[1], x[1] - y[0]
                corners = [fn(p, q) for p in x for q in y]
                return builtins.min(corners), builtins.max(corners)
            if op in ("//", "%") and y[0] == y[1] and y[0] > 0:
                d = y[0]
                return (x[0] // d, x[1] // d) if op == "//" else (0, d - 1) if x[0] // d != x[1] // d else (x[0] % d, x[1] % d)
    return None


def inline(outputs: Sequence[Tensor], stages: Sequence[Tensor]) -> list[Tensor]:
    """`outputs` with each of `stages` substituted into the stages that read it (TVM's
    compute_inline, at the expression level): the stages are no longer computed on their own.
    A reduction cannot be inlined."""
    chosen = {id(s) for s in stages}
    for s in stages:
        if s.op is None or isinstance(s.op.body, Reduce):
            raise TeError(f'te.inline: "{s.name}" is {"a placeholder" if s.op is None else "a reduction"}; only '
                          "computes without reduction can be inlined")
    rebuilt: dict[int, Tensor] = {}

    def rebuild(t: Tensor) -> Tensor:
        if t.op is None:
            return t
        if id(t) not in rebuilt:
            body = _substitute(t.op.body, {}, lambda load: expand(load))
            rebuilt[id(t)] = t if body is t.op.body else Tensor(t.shape, t.dtype, t.name, ComputeOp(t.op.axes, body))
        return rebuilt[id(t)]

    def expand(load: Load) -> TeExpr:
        producer = rebuild(load.tensor)
        if id(load.tensor) not in chosen:
            return load if producer is load.tensor else Load(producer, load.indices)
        assert producer.op is not None
        return _substitute(producer.op.body, dict(zip(map(id, producer.op.axes), load.indices)), lambda ld: ld)

    return [rebuild(t) for t in outputs]


def _substitute(expr: TeExpr, axes: dict[int, TeExpr], on_load: Callable[[Load], TeExpr]) -> TeExpr:
    """`expr` with axes replaced and each load (its indices substituted first) passed to `on_load`."""
    match expr:
        case Axis():
            return axes.get(id(expr), expr)
        case Const():
            return expr
        case Load(tensor=t, indices=idx):
            new_idx = tuple(_substitute(i, axes, on_load) for i in idx)
            same = builtins.all(a is b for a, b in zip(new_idx, idx))
            return on_load(expr if same else Load(t, new_idx))
    children = expr.children()
    new = tuple(_substitute(c, axes, on_load) for c in children)
    if builtins.all(a is b for a, b in zip(new, children)):
        return expr
    return _rebuilt(expr, new)


def _rebuilt(expr: TeExpr, children: tuple[TeExpr, ...]) -> TeExpr:
    match expr:
        case Binary(op=op):
            return Binary(op, *children)
        case Compare(op=op):
            return Compare(op, *children)
        case Logical(op=op):
            return Logical(op, children)
        case Select():
            return Select(*children)
        case Call(fn=fn):
            return Call(fn, children[0])
        case Cast(dtype=d):
            return Cast(children[0], d)
        case Reduce(combiner=c, axes=axes):
            return Reduce(c, children[0], axes)
    raise AssertionError(f"no children to rebuild in {expr}")


def create_func(args: Sequence[Tensor], name: str = "main") -> func.FuncOp:
    """A block-dialect `func.func @name` over memrefs taking `args` (placeholders and the
    outputs, in this order), computing every stage the outputs need (te.create_prim_func)."""
    from xtir.te_emit import emit_func

    return emit_func(args, name)
