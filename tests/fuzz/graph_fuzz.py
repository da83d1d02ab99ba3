"""Graph-level fuzzing: random small PyTorch models imported with xtir.frontend.from_torch,
compiled with xtir.model.compile_model, and compared with torch.

A case is a seed, an element type (float32 or float16), from_torch's weights= (constants or
parameters), a target (llvm, or for GPU_FRACTION of the cases cuda-cpu with racecheck, whose models
have at most 4 steps) and a variant: the graph passes applied before compiling (none, or
GRAPH_PIPELINE) and compile_model's schedule ("default" or None, the unscheduled loop nests;
cuda-cpu always "default"; with "default", for EXTRA_FRACTION of the cases, random primitives of
tests/fuzz/schedules.py's Generator on each block function after it, refusals skipped). The seed
draws a model as a list of steps over the values computed so far (the inputs first): nn.Linear (of
1-d inputs too), ReLU (module, function, method), sigmoid, tanh, SiLU, GELU (erf or tanh) and
leaky_relu (as module, function or method where torch has them), add/sub/mul/div (operator, torch
function or method) with a value of the same shape, a constant of a broadcast shape (a buffer, some
dimensions 1, maybe an extra leading one) or a Python number on either side, reshape/view/flatten,
transpose/permute/t/T, softmax, conv2d (module or function, stride, padding, dilation, 'same'),
max_pool2d, 2-d matmul (`@`, torch.matmul, torch.mm) with a constant or another value, slicing
(x[...] with ints, steps, negative bounds, None and Ellipsis; narrow; a piece of chunk or split, or
the difference of two pieces of one shape), torch.where of a comparison (an operator or torch
function, > >= < <= == !=) with values, Python numbers or constants on each side, sum / mean / amax
/ max(dim)'s values over a dim, dims or all (keepdim or not), neg / abs / clamp / hardtanh / relu6
and exp / log / sqrt / rsqrt of well-conditioned arguments, flip, casts (float16 and float64 round
trips, bools) and integer floor / trunc division of an input made integers; now and then something
the importer does not map (float floor division, max(dim)'s indices, grouped convolution,
ceil_mode), which it must refuse. The model returns the values no step uses (the last three of
them), so that no step is dead code.

Outcomes (Outcome.kind): `ok`; `refused` (an XtirError: the importer, a pass or the build
says what it cannot do, a legal outcome, counted by `refusal_key`); `skipped` (torch itself
cannot run the model, e.g. a float16 kernel missing on the CPU); and the failures: `wrong`
(the numbers of the reference evaluator on the graph, or of the compiled model, differ from
torch's in float64, or an output element is left unwritten: on llvm outputs are NaN-filled before
the call), `crash` (any other exception, a
traceback), `invalid-ir` (a refusal by the verifier, of IR a pass made).

tests/fuzz/test_graph_fuzz.py runs a few seeds; tests/fuzz/run_graph_long.py runs them for
minutes and prints the outcomes and the refusals grouped by message.
"""

from __future__ import annotations

import math
import random
import re
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import xtir
from tests.fuzz.gpu_fuzz import INVALID_IR
from xtir.errors import XtirError

GRAPH_PIPELINE = "fold-constants,fuse-ewise-fma,dce,fuse-ops"
VARIANTS = ((None, "default"), (None, None), (GRAPH_PIPELINE, "default"), (GRAPH_PIPELINE, None))
"""(graph passes, compile_model schedule) pairs; a case runs one of them."""
TOLERANCE = {"float32": 1e-4, "float16": 2e-2}
"""Allowed error relative to the largest magnitude of the float64 reference (float16 rounds every step)."""
MAX_ELEMENTS = 4096
"""The most elements of any value: small models, so that a case takes a second or two."""


# Models ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One operation of a model: `op` with its operand indices into the values so far and its
    options; `how` picks the spelling (a module, a torch function, a tensor method, an operator)."""

    op: str
    operands: tuple[int, ...]
    options: tuple[tuple[str, Any], ...] = ()
    how: str = ""

    def describe(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options if not k.startswith("_"))
        args = ", ".join(f"v{k}" for k in self.operands)
        return f"{self.op}[{self.how}]({args}{', ' if opts and args else ''}{opts})"


def _torch():
    import torch

    return torch


def _make_model_class():
    torch = _torch()
    nn, F = torch.nn, torch.nn.functional

    class FuzzModel(nn.Module):
        """Runs `steps` over the inputs; modules and constants are attributes `m<k>` / `c<k>`."""

        def __init__(self, steps: Sequence[Step], outputs: Sequence[int]):
            super().__init__()
            self.steps = list(steps)
            self.outputs = list(outputs)

        def forward(self, x0):
            return self._run([x0])

        def _run(self, values):
            for k, step in enumerate(self.steps):
                values.append(self._step(k, step, [values[i] for i in step.operands]))
            results = tuple(values[i] for i in self.outputs)
            return results[0] if len(results) == 1 else results

        def _step(self, k: int, step: Step, args: list):  # noqa: C901 - one branch per operation
            o = dict(step.options)
            how = step.how
            if step.op in ("linear", "conv2d", "maxpool") and how == "module":
                return getattr(self, f"m{k}")(args[0])
            if step.op == "relu":
                return {"module": lambda x: getattr(self, f"m{k}")(x), "F": F.relu, "torch": torch.relu,
                        "method": lambda x: x.relu()}[how](args[0])
            if step.op == "binary":
                return self._binary(k, step, args, o)
            if step.op == "reshape":
                x, shape = args[0], o["shape"]
                return {"reshape": lambda: x.reshape(shape), "view": lambda: x.view(*shape),
                        "torch": lambda: torch.reshape(x, shape)}[how]()
            if step.op == "flatten":
                x = args[0]
                if how == "module":
                    return getattr(self, f"m{k}")(x)
                return torch.flatten(x, o["start"], o["end"]) if how == "torch" else x.flatten(o["start"], o["end"])
            if step.op == "transpose":
                x = args[0]
                if how == "permute":
                    return x.permute(*o["perm"])
                if how == "torch":
                    return torch.transpose(x, o["a"], o["b"])
                if how == "t":
                    return x.t()
                if how == "T":
                    return x.T
                return x.transpose(o["a"], o["b"])
            if step.op == "softmax":
                x, dim = args[0], o["dim"]
                return {"module": lambda: getattr(self, f"m{k}")(x), "F": lambda: F.softmax(x, dim=dim),
                        "torch": lambda: torch.softmax(x, dim), "method": lambda: x.softmax(dim)}[how]()
            if step.op == "conv2d":
                bias = getattr(self, f"c{k}b") if o["bias"] else None
                return F.conv2d(args[0], getattr(self, f"c{k}"), bias, o["stride"], o["padding"], o["dilation"])
            if step.op == "maxpool":
                return F.max_pool2d(args[0], o["kernel"], o["stride"], o["padding"])
            if step.op == "linear":
                bias = getattr(self, f"c{k}b") if o["bias"] else None
                return F.linear(args[0], getattr(self, f"c{k}"), bias)
            if step.op == "activation":
                return self._activation(k, step, args[0], o)
            if step.op == "slice":
                return self._slice(step, args[0], o)
            if step.op == "where":
                return self._where(k, step, args, o)
            if step.op == "unmapped":
                x = args[0]
                return {"floordiv": lambda: x // 2, "max_indices": lambda: x.max(-1)[1].to(x.dtype),
                        "groups": lambda: F.conv2d(x, getattr(self, f"c{k}"), groups=x.shape[1]),
                        "ceil_mode": lambda: F.max_pool2d(x, 2, ceil_mode=True)}[how]()
            if step.op == "reduce":
                return self._reduce(step, args[0], o)
            if step.op == "unary":
                return self._unary(step, args[0], o)
            if step.op == "flip":
                return torch.flip(args[0], o["dims"]) if how == "torch" else args[0].flip(*o["dims"])
            if step.op == "cast":
                return self._cast(step, args[0], o)
            if step.op == "matmul":
                a = args[0]
                b = args[1] if len(args) > 1 else getattr(self, f"c{k}")
                if o.get("transpose_b"):
                    b = b.t()
                return {"@": lambda: a @ b, "torch": lambda: torch.matmul(a, b), "mm": lambda: torch.mm(a, b)}[how]()
            raise AssertionError(step.op)

        def _reduce(self, step: Step, x, o: dict):
            fn, dim, keep = o["fn"], o["dim"], o["keepdim"]
            if fn == "max":  # x.max(dim): the values, by [0] or .values
                result = torch.max(x, dim, keep) if step.how == "torch" else x.max(dim, keep)
                return result[0] if o["pick"] == "index" else result.values
            if dim is None:
                return getattr(torch, fn)(x) if step.how == "torch" else getattr(x, fn)()
            return getattr(torch, fn)(x, dim, keep) if step.how == "torch" else getattr(x, fn)(dim, keepdim=keep)

        def _unary(self, step: Step, x, o: dict):
            import operator

            fn, how = o["fn"], step.how
            if fn == "neg":
                return {"op": operator.neg, "torch": torch.neg, "method": lambda v: v.neg()}[how](x)
            if fn == "abs":
                return {"op": abs, "torch": torch.abs, "method": lambda v: v.abs()}[how](x)
            if fn == "clamp":
                lo, hi = o["bounds"]
                return torch.clamp(x, lo, hi) if how == "torch" else x.clamp(min=lo, max=hi)
            if fn == "hardtanh":
                return F.hardtanh(x, *o["bounds"])
            if fn == "relu6":
                return F.relu6(x)
            # the float functions of well-conditioned arguments (the reference is torch in float64)
            f = getattr(torch, fn) if how == "torch" else lambda v: getattr(v, fn)()
            return {"exp": lambda: f(x.clamp(-3, 3)), "log": lambda: f(x.abs() + 1), "sqrt": lambda: f(x.abs() + 1),
                    "rsqrt": lambda: f(x * x + 1)}[fn]()

        def _cast(self, step: Step, x, o: dict):
            how = step.how
            if how == "half":  # a float16 round trip (exact in a float16 model)
                return x.half().to(x.dtype)
            if how == "double":
                return x.double().type_as(x)
            if how == "bool":
                return (x > 0).to(x.dtype) * x + x.bool().float().to(x.dtype)
            # integer division of an input's (exact) values made integers: floor or trunc, by a
            # number or by a tensor of nonzero integers
            xi = (x * 4).to(torch.int32)
            divisor = o["divisor"] if isinstance(o["divisor"], int) else (x.abs() * 2).int() + 1
            if how == "floordiv":
                q = xi // divisor
            elif how == "floor_divide":
                q = torch.floor_divide(xi, divisor)
            else:
                q = torch.div(xi, divisor, rounding_mode="trunc")
            return q.to(x.dtype)

        def _activation(self, k: int, step: Step, x, o: dict):
            name, how = o["fn"], step.how
            if how == "module":
                return getattr(self, f"m{k}")(x)
            if name == "gelu":
                return F.gelu(x, approximate=o["approximate"])
            if name == "leaky_relu":
                return F.leaky_relu(x, o["slope"]) if "slope" in o else F.leaky_relu(x)
            if how == "method":
                return getattr(x, name)()
            return getattr(torch if how == "torch" else F, name)(x)

        def _slice(self, step: Step, x, o: dict):
            how = step.how
            if how == "getitem":
                return x[o["index"]]
            if how == "narrow":
                return x.narrow(o["dim"], o["start"], o["length"]) if o["method"] else torch.narrow(
                    x, o["dim"], o["start"], o["length"])
            if how == "chunk":
                pieces = x.chunk(o["n"], o["dim"]) if o["method"] else torch.chunk(x, o["n"], o["dim"])
            else:
                pieces = x.split(o["n"], o["dim"]) if o["method"] else torch.split(x, o["n"], o["dim"])
            picked = [pieces[i] for i in o["pick"]]
            return picked[0] if len(picked) == 1 else picked[0] - picked[1]

        def _where(self, k: int, step: Step, args: list, o: dict):
            import operator

            def side(spec):
                kind, what = spec
                return args[what] if kind == "value" else what if kind == "scalar" else getattr(self, f"c{k}{what}")

            compare = getattr(operator, o["cmp"]) if step.how == "op" else getattr(torch, o["cmp"])
            a, b = side(o["lhs"]), side(o["rhs"])
            condition = compare(b, a) if o["flip"] else compare(a, b)
            return torch.where(condition, side(o["then"]), side(o["else"]))

        def _binary(self, k: int, step: Step, args: list, o: dict):
            import operator

            name = o["fn"]
            if "scalar" in o:
                other = o["scalar"]
            elif len(args) > 1:
                other = args[1]
            else:
                other = getattr(self, f"c{k}")
            a, b = (other, args[0]) if o["swap"] else (args[0], other)
            if how := step.how:
                if how == "torch":
                    return getattr(torch, name)(a, b)
                if how == "method" and not isinstance(a, int | float):
                    return getattr(a, name)(b)
            return {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}[name](a, b)

    class FuzzModel2(FuzzModel):
        def forward(self, x0, x1):
            return self._run([x0, x1])

    return FuzzModel, FuzzModel2


@dataclass
class Case:
    seed: int
    dtype: str = "float32"
    variant: int = 0
    """An index into VARIANTS."""
    weights: str = "constants"
    """from_torch's weights=: constants in the graph (hoisted by legalize-tensor) or parameters."""
    target: str = "llvm"
    """compile_model's target: "llvm", or "cuda-cpu" with racecheck (a kernel build per graph
    function: its models are drawn with fewer steps, see `draw_model`)."""
    extra: int = 0
    """With the default schedule: at most this many random primitives (tests/fuzz/schedules.py's
    Generator) on each block function after it (a refused one is skipped)."""

    @property
    def pipeline(self) -> str | None:
        return VARIANTS[self.variant][0]

    @property
    def schedule(self) -> str | None:
        return VARIANTS[self.variant][1]

    def describe(self) -> str:
        return (f"graph seed {self.seed} {self.dtype} passes={self.pipeline} schedule={self.schedule} "
                f"weights={self.weights} target={self.target} extra={self.extra}")

    @property
    def small(self) -> bool:
        return self.target != "llvm"


GPU_FRACTION = 0.15
"""The fraction of cases compiled for cuda-cpu (with racecheck; slow: a kernel build per function)."""


EXTRA_FRACTION = 0.4
"""The fraction of default-scheduled cases with random primitives applied after the default schedule."""


def random_case(seed: int) -> Case:
    r = random.Random(seed * 7919 + 1)
    dtype = "float16" if r.random() < 0.25 else "float32"
    variant = r.randrange(len(VARIANTS))
    weights = "params" if r.random() < 0.25 else "constants"
    target = "cuda-cpu" if r.random() < GPU_FRACTION else "llvm"
    if target != "llvm":  # the default GPU schedule: the unscheduled loop nests have no thread binding
        variant &= ~1
    later = random.Random(f"graph:{seed}:later")  # drawn apart: r draws what it drew before this dimension
    extra = later.randint(1, 4) if VARIANTS[variant][1] == "default" and later.random() < EXTRA_FRACTION else 0
    return Case(seed, dtype, variant, weights, target, extra)


GPU_EXTRA_PRIMITIVES = {"split": 3.0, "reorder": 2.0, "fuse": 1.0, "unroll": 2.0, "vectorize": 1.0, "cache_read": 1.5,
                        "cache_write": 1.0, "decompose_reduction": 1.0, "compute_at": 1.0, "reverse_compute_at": 1.0,
                        "storage_align": 0.5, "set_scope": 0.5, "double_buffer": 0.3, "bind": 0.5,
                        "compute_inline": 0.5, "reverse_compute_inline": 0.5}
"""The primitives drawn after default-gpu-schedule (no parallel, no CPU intrinsics: tensorize)."""


def extra_primitives(module: Any, case: Case, traces: list[str] | None = None) -> Any:
    """`module` after up to `case.extra` random primitives on each block function (drawn per function
    from the case's seed; a primitive refused with an XtirError is skipped, anything else raised is
    the case's crash); each function's trace of accepted ones is added to `traces`."""
    from tests.fuzz.schedules import PRIMITIVES, Generator

    functions = [f.sym_name.data for f in module.body.block.ops if hasattr(f, "sym_name") and f.sym_name.data != "main"]
    boost = {"bind": 0.0}  # a thread binding is the cuda target's, refused by llvm
    if case.target != "llvm":
        boost = {p: GPU_EXTRA_PRIMITIVES.get(p, 0.0) / w for p, w in PRIMITIVES.items()}
    for name in functions:
        r = random.Random(f"graph:{case.seed}:{name}")
        sch = xtir.Schedule(module, func_name=name, seed=case.seed)
        gen = Generator(r, stale_prob=0.0, misuse_prob=0.0, boost=boost, later=random.Random(f"graph:{case.seed}:{name}:later"))
        for _ in range(r.randint(0, case.extra)):
            try:
                call = gen.next_call(sch)
                if call is not None:
                    gen.accepted(call, call.apply(sch))
            except XtirError:
                continue
        if sch.trace and traces is not None:
            traces.append(f"@{name}: {sch.trace}")
        module = sch.mod
    return module


@dataclass
class Drawn:
    """A drawn model: its steps, the shapes of its values, the constants to make."""

    r: random.Random
    shapes: list[tuple[int, ...]]
    steps: list[Step] = field(default_factory=list)
    constants: dict[str, tuple[tuple[int, ...], str]] = field(default_factory=dict)
    """Attribute name -> (shape, kind): `weight` (small), `divisor` (away from zero), `value`."""
    modules: dict[str, Any] = field(default_factory=dict)
    """Attribute name -> a function making the torch module."""

    def add(self, step: Step, shape: tuple[int, ...]) -> None:
        self.steps.append(step)
        self.shapes.append(shape)


def _small_shape(r: random.Random, rank: int) -> tuple[int, ...]:
    while True:
        shape = tuple(r.choice((1, 2, 3, 4, 5, 6, 8)) for _ in range(rank))
        if math.prod(shape) <= 192:
            return shape


def _input_shape(r: random.Random) -> tuple[int, ...]:
    kind = r.random()
    if r.random() < 0.3:  # odd extents past the default schedule's tiles and vector widths
        if kind < 0.4:
            return (r.randint(1, 2), r.randint(3, 8), r.randint(9, 19), r.randint(9, 19))
        return (r.randint(1, 37), r.randint(17, 99))
    if kind < 0.35:
        return (r.randint(1, 4), r.randint(3, 5), r.randint(4, 8), r.randint(4, 8))
    if kind < 0.75:
        return (r.randint(1, 6), r.randint(2, 24))
    return _small_shape(r, r.choice((1, 3)))


def _factorize(r: random.Random, n: int) -> tuple[int, ...]:
    """A random shape of n elements, 1 to 4 dimensions."""
    dims = []
    rest = n
    for _ in range(r.randint(0, 3)):
        divisors = [d for d in range(2, rest + 1) if rest % d == 0]
        if not divisors:
            break
        d = r.choice(divisors)
        dims.append(d)
        rest //= d
    dims.append(rest)
    r.shuffle(dims)
    return tuple(dims)


def _broadcast_shape(r: random.Random, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts with `shape` to `shape` (or one more leading dimension)."""
    other = [d if r.random() < 0.6 else 1 for d in shape]
    if other and r.random() < 0.3:
        other = other[r.randint(1, len(other)):]  # fewer dimensions: the trailing ones
    if r.random() < 0.1 and math.prod(shape) * 2 <= MAX_ELEMENTS:
        other = [2, *[d for d in shape]]
    return tuple(other)


def _conv_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]] | None:
    r = d.r
    n, c, h, w = shape
    out = r.randint(1, 6)
    kernel = r.choice((1, 2, 3))
    dilation = 1 if r.random() < 0.8 else 2
    stride = 1 if r.random() < 0.6 else 2
    span = dilation * (kernel - 1)
    if stride == 1 and r.random() < 0.25:
        padding: Any = r.choice(("same", "valid"))
        pads = (span // 2, span - span // 2) if padding == "same" else (0, 0)
    else:
        padding = r.randint(0, kernel // 2 + 1)
        pads = (padding, padding)
    oh, ow = ((x + sum(pads) - span - 1) // stride + 1 for x in (h, w))
    if oh < 1 or ow < 1 or n * out * oh * ow > MAX_ELEMENTS:
        return None
    bias = r.random() < 0.7
    how = r.choice(("module", "F"))
    if how == "module":
        d.modules[f"m{k}"] = lambda nn: nn.Conv2d(c, out, kernel, stride, padding, dilation, bias=bias)
    else:
        d.constants[f"c{k}"] = ((out, c, kernel, kernel), "weight")
        if bias:
            d.constants[f"c{k}b"] = ((out,), "weight")
    options = (("stride", stride), ("padding", padding), ("dilation", dilation), ("bias", bias))
    return Step("conv2d", (v,), options, how), (n, out, oh, ow)


def _pool_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]] | None:
    r = d.r
    n, c, h, w = shape
    kernel = r.choice((1, 2, 3))
    stride = r.choice((1, 2, kernel))
    padding = r.randint(0, kernel // 2)
    oh, ow = ((x + 2 * padding - kernel) // stride + 1 for x in (h, w))
    if oh < 1 or ow < 1:
        return None
    how = r.choice(("module", "F"))
    if how == "module":
        d.modules[f"m{k}"] = lambda nn: nn.MaxPool2d(kernel, stride, padding)
    return Step("maxpool", (v,), (("kernel", kernel), ("stride", stride), ("padding", padding)), how), (n, c, oh, ow)


def _binary_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]]:
    r = d.r
    fn = r.choice(("add", "sub", "mul", "div", "add", "mul"))
    swap = r.random() < 0.3
    how = r.choice(("op", "op", "torch", "method"))
    choice = r.random()
    same = [i for i, s in enumerate(d.shapes) if s == shape and i != v]
    if choice < 0.3:
        scalar = r.choice((2, -1, 0.5, 3.0, -1.5)) if fn != "div" or not swap else 2.0
        if fn == "div" and swap:
            return Step("binary", (v,), (("fn", "mul"), ("swap", True), ("scalar", scalar)), "op"), shape
        return Step("binary", (v,), (("fn", fn), ("swap", swap), ("scalar", scalar)), how), shape
    if choice < 0.55 and same and fn != "div":
        return Step("binary", (v, r.choice(same)), (("fn", fn), ("swap", swap)), how), shape
    other = _broadcast_shape(r, shape)
    d.constants[f"c{k}"] = (other, "divisor" if fn == "div" else "value")
    result = tuple(np.broadcast_shapes(shape, other))
    if swap and fn == "div":
        swap = False
    return Step("binary", (v,), (("fn", fn), ("swap", swap)), how if how != "method" or not swap else "op"), result


def _shape_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]] | None:
    r = d.r
    op = r.choice(("reshape", "flatten", "transpose"))
    rank = len(shape)
    if op == "reshape":
        new = _factorize(r, math.prod(shape))
        how = r.choice(("reshape", "view", "torch"))
        spelled = list(new)
        if r.random() < 0.3:
            spelled[r.randrange(len(spelled))] = -1
        return Step("reshape", (v,), (("shape", tuple(spelled)),), how), new
    if op == "flatten" and rank >= 2:
        start = r.randrange(rank - 1)
        end = r.choice((-1, rank - 1, r.randrange(start, rank)))
        stop = end % rank
        new = (*shape[:start], math.prod(shape[start : stop + 1]), *shape[stop + 1 :])
        how = r.choice(("module", "torch", "method"))
        if how == "module":
            d.modules[f"m{k}"] = lambda nn: nn.Flatten(start, end)
        return Step("flatten", (v,), (("start", start), ("end", end)), how), new
    if op == "transpose" and rank >= 2:
        if rank == 2 and r.random() < 0.4:
            return Step("transpose", (v,), (), r.choice(("t", "T"))), (shape[1], shape[0])
        if r.random() < 0.4:
            perm = list(range(rank))
            r.shuffle(perm)
            return Step("transpose", (v,), (("perm", tuple(perm)),), "permute"), tuple(shape[p] for p in perm)
        a, b = r.sample(range(-rank, rank), 2)
        if a % rank == b % rank:
            return None
        new = list(shape)
        new[a], new[b] = new[b], new[a]
        return Step("transpose", (v,), (("a", a), ("b", b)), r.choice(("method", "torch"))), tuple(new)
    return None

ACTIVATIONS = {"sigmoid": ("module", "F", "torch", "method"), "tanh": ("module", "F", "torch", "method"),
               "silu": ("module", "F"), "gelu": ("module", "F"), "leaky_relu": ("module", "F")}
"""Each activation and the spellings torch has for it."""
ACTIVATION_MODULES = {"sigmoid": "Sigmoid", "tanh": "Tanh", "silu": "SiLU", "gelu": "GELU", "leaky_relu": "LeakyReLU"}


def _activation_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]]:
    r = d.r
    name = r.choice(tuple(ACTIVATIONS))
    how = r.choice(ACTIVATIONS[name])
    options: list[tuple[str, Any]] = [("fn", name)]
    args: tuple[Any, ...] = ()
    if name == "gelu":
        options.append(("approximate", r.choice(("none", "tanh"))))
        args = (dict(options)["approximate"],)
    if name == "leaky_relu" and r.random() < 0.6:
        options.append(("slope", r.choice((0.2, -0.5, 1.5))))
        args = (dict(options)["slope"],)
    if how == "module":
        module = ACTIVATION_MODULES[name]
        d.modules[f"m{k}"] = lambda nn: getattr(nn, module)(*args)
    return Step("activation", (v,), tuple(options), how), shape


def _slice_bound(r: random.Random, n: int) -> int | None:
    return r.choice((None, r.randint(-n, n), r.randint(0, n), -1))


def _index(r: random.Random, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """A basic index of `shape`: ints (maybe negative), slices with steps and negative bounds, `...`, None."""
    index: list[Any] = []
    count = r.randint(1, len(shape))
    dims = shape[:count]
    if r.random() < 0.3:  # an Ellipsis standing for the leading dimensions: index the last ones
        dims = shape[len(shape) - count:]
        index.append(Ellipsis)
    for n in dims:
        if r.random() < 0.15:
            index.append(None)
        kind = r.random()
        if kind < 0.2:
            index.append(r.randint(-n, n - 1))
        else:
            index.append(slice(_slice_bound(r, n), _slice_bound(r, n), r.choice((None, 1, 2, 3))))
    if r.random() < 0.1:
        index.append(None)
    return tuple(index)


def _pieces(n: int, how: str, parts: Any) -> list[int]:
    """The sizes torch.chunk(n, parts) or torch.split(n, parts) cuts a dimension of n into."""
    if how == "chunk":
        size = -(-n // parts)
        return [min(size, n - k) for k in range(0, n, size)]
    if isinstance(parts, int):
        return [min(parts, n - k) for k in range(0, n, parts)]
    return list(parts)


def _slice_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]] | None:
    """x[index], narrow, or pieces of chunk/split (one of them, or the difference of two of one shape)."""
    r = d.r
    how = r.choice(("getitem", "getitem", "narrow", "chunk", "split"))
    if how == "getitem":
        index = _index(r, shape)
        result = np.empty(shape)[index].shape
        if not result or 0 in result:
            return None
        return Step("slice", (v,), (("index", index),), how), result
    dim = r.randrange(-len(shape), len(shape))
    n = shape[dim]
    method = r.random() < 0.5
    if how == "narrow":
        length = r.randint(1, n)
        start = r.randint(0, n - length) - (n if r.random() < 0.3 else 0)  # torch counts a negative start from the end
        new = list(shape)
        new[dim] = length
        return Step("slice", (v,), (("dim", dim), ("start", start), ("length", length), ("method", method)), how), tuple(new)
    if how == "chunk":
        parts: Any = r.randint(1, max(1, n))
    elif r.random() < 0.5 or n < 2:
        parts = r.randint(1, n)
    else:
        cut = sorted(r.sample(range(1, n), r.randint(1, min(3, n - 1))))
        parts = [b - a for a, b in zip([0, *cut], [*cut, n])]
    sizes = _pieces(n, how, parts)
    first = r.randrange(len(sizes))
    pair = [i for i, s in enumerate(sizes) if s == sizes[first] and i != first]
    pick = (first, r.choice(pair)) if pair and r.random() < 0.5 else (first,)
    new = list(shape)
    new[dim] = sizes[first]
    options = (("n", parts), ("dim", dim), ("method", method), ("pick", pick))
    return Step("slice", (v,), options, how), tuple(new)


def _where_side(d: Drawn, k: int, name: str, shape: tuple[int, ...], v: int) -> tuple[str, Any]:
    """An operand of a comparison or of torch.where: the value v, another value of its shape, a
    Python number or a constant of a broadcast shape (attribute c<k><name>)."""
    r = d.r
    same = [i for i, s in enumerate(d.shapes) if s == shape and i != v]
    choice = r.random()
    if choice < 0.35:
        return ("scalar", r.choice((0, 0.5, -1.0, 2, 0.0)))
    if choice < 0.6 and same:
        return ("value", r.choice(same))
    if choice < 0.8:
        d.constants[f"c{k}{name}"] = (_broadcast_shape(r, shape), "value")
        return ("constant", name)
    return ("value", v)


def _where_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]] | None:
    """torch.where(v <cmp> rhs, then, else): a comparison (operator or torch function, maybe with the
    operands swapped) feeding where, each side a value, a Python number or a constant."""
    r = d.r
    cmp = r.choice(("gt", "ge", "lt", "le", "eq", "ne"))
    how = r.choice(("op", "torch"))
    rhs = _where_side(d, k, "r", shape, v)
    then, other = _where_side(d, k, "t", shape, v), _where_side(d, k, "e", shape, v)
    if then[0] == "scalar" and other[0] == "scalar":
        other = ("value", v)
    flip = how == "op" and r.random() < 0.3
    sides = [("value", v), rhs, then, other]
    operands = sorted({what for kind, what in sides if kind == "value"})
    renumber = {i: operands.index(i) for i in operands}  # the step's operands are its args
    sides = [(kind, renumber[what]) if kind == "value" else (kind, what) for kind, what in sides]
    shapes = [d.shapes[i] for i in operands] + [d.constants[f"c{k}{what}"][0] for kind, what in sides if kind == "constant"]
    options = (("cmp", cmp), ("lhs", sides[0]), ("rhs", sides[1]), ("then", sides[2]), ("else", sides[3]), ("flip", flip))
    return Step("where", tuple(operands), options, how), tuple(np.broadcast_shapes(*shapes))


def _reduce_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]]:
    """sum, mean, amax over a dim, some dims or all (kept or dropped), or x.max(dim)'s values."""
    r = d.r
    rank = len(shape)
    fn = r.choice(("sum", "mean", "amax", "max"))
    keep = r.random() < 0.4
    if fn == "max":
        dim: Any = r.randrange(-rank, rank)
    else:
        dim = r.choice((r.randrange(-rank, rank), tuple(sorted(r.sample(range(rank), r.randint(1, rank)))), None))
    dims = set(range(rank)) if dim is None else {x % rank for x in (dim if isinstance(dim, tuple) else (dim,))}
    if dim is None and fn == "amax" or dim is None and keep:
        keep = False  # x.amax() and x.sum() have no keepdim
    out = tuple(1 if i in dims else n for i, n in enumerate(shape) if keep or i not in dims)
    options = (("fn", fn), ("dim", dim), ("keepdim", keep), ("pick", r.choice(("index", "values"))))
    return Step("reduce", (v,), options, r.choice(("torch", "method"))), out


UNARY = {"neg": ("op", "torch", "method"), "abs": ("op", "torch", "method"), "clamp": ("torch", "method"),
         "hardtanh": ("F",), "relu6": ("F",), "exp": ("torch", "method"), "log": ("torch", "method"),
         "sqrt": ("torch", "method"), "rsqrt": ("torch", "method")}


def _unary_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]]:
    r = d.r
    fn = r.choice(tuple(UNARY))
    bounds = r.choice(((-0.5, 0.5), (None, 0.25), (0.0, None), (1.0, -1.0)))
    if fn == "hardtanh":
        bounds = r.choice(((-1.0, 1.0), (-2.0, 0.5)))
    return Step("unary", (v,), (("fn", fn), ("bounds", bounds)), r.choice(UNARY[fn])), shape


def _flip_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]]:
    r = d.r
    dims = tuple(r.sample(range(-len(shape), 0), r.randint(1, len(shape))))
    return Step("flip", (v,), (("dims", dims),), r.choice(("torch", "method"))), shape


def _cast_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]]:
    """A float16 or float64 round trip, a bool cast; an integer division only of an input (its
    values are the reference's exactly: a computed value made an integer could land either side)."""
    r = d.r
    inputs = len(d.shapes) - len(d.steps)
    how = r.choice(("half", "double", "bool", "floordiv", "floor_divide", "trunc"))
    if how in ("floordiv", "floor_divide", "trunc"):
        v = r.randrange(inputs)
        shape = d.shapes[v]
    divisor = r.choice((3, -2, 5, "tensor"))
    return Step("cast", (v,), (("divisor", divisor),), how), shape


def _unmapped_step(d: Drawn, k: int, v: int, shape: tuple[int, ...]) -> tuple[Step, tuple[int, ...]]:
    """What the importer has no mapping for, which it must refuse naming the node: floor division
    of floats, max(dim)'s indices, grouped convolution, max_pool2d's ceil_mode."""
    r = d.r
    kinds = ["floordiv", "max_indices"] + (["groups", "ceil_mode"] if len(shape) == 4 else [])
    how = r.choice(kinds)
    if how == "max_indices":
        return Step("unmapped", (v,), (), how), shape[:-1]
    if how == "groups":
        d.constants[f"c{k}"] = ((shape[1], 1, 1, 1), "weight")
    if how == "ceil_mode":
        return Step("unmapped", (v,), (), how), (*shape[:2], *(-(-x // 2) for x in shape[2:]))
    return Step("unmapped", (v,), (), how), shape


def _step(d: Drawn, k: int) -> tuple[Step, tuple[int, ...]] | None:  # noqa: C901 - one branch per operation
    r = d.r
    # mostly the latest value, so that the model is a chain with some branches
    v = len(d.shapes) - 1 if r.random() < 0.75 else r.randrange(len(d.shapes))
    shape = d.shapes[v]
    rank = len(shape)
    op = r.choices(("linear", "relu", "binary", "shape", "softmax", "conv2d", "maxpool", "matmul", "unmapped",
                    "activation", "slice", "where", "reduce", "unary", "flip", "cast"),
                   (2, 1.5, 3, 2.5, 1, 1.5, 1, 1.5, 0.1, 2, 2, 1.5, 1.5, 2, 0.7, 1))[0]
    if op == "activation":
        return _activation_step(d, k, v, shape)
    if op == "reduce" and rank >= 1:
        return _reduce_step(d, k, v, shape)
    if op == "unary":
        return _unary_step(d, k, v, shape)
    if op == "flip" and rank >= 1:
        return _flip_step(d, k, v, shape)
    if op == "cast":
        return _cast_step(d, k, v, shape)
    if op == "slice" and rank >= 1:
        return _slice_step(d, k, v, shape)
    if op == "where" and rank >= 1:
        return _where_step(d, k, v, shape)
    if op == "linear" and rank >= 1:
        out = r.randint(1, 12)
        if math.prod(shape[:-1]) * out > MAX_ELEMENTS:
            return None
        bias = r.random() < 0.7
        how = r.choice(("module", "F"))
        if how == "module":
            d.modules[f"m{k}"] = lambda nn: nn.Linear(shape[-1], out, bias=bias)
        else:
            d.constants[f"c{k}"] = ((out, shape[-1]), "weight")
            if bias:
                d.constants[f"c{k}b"] = ((out,), "weight")
        return Step("linear", (v,), (("bias", bias),), how), (*shape[:-1], out)
    if op == "relu":
        how = r.choice(("module", "F", "torch", "method"))
        if how == "module":
            d.modules[f"m{k}"] = lambda nn: nn.ReLU()
        return Step("relu", (v,), (), how), shape
    if op == "binary":
        return _binary_step(d, k, v, shape)
    if op == "shape":
        return _shape_step(d, k, v, shape)
    if op == "unmapped" and rank >= 1:
        return _unmapped_step(d, k, v, shape)
    if op == "softmax" and rank >= 1:
        dim = r.randrange(-rank, rank)
        how = r.choice(("module", "F", "torch", "method"))
        if how == "module":
            d.modules[f"m{k}"] = lambda nn: nn.Softmax(dim)
        return Step("softmax", (v,), (("dim", dim),), how), shape
    if op == "conv2d" and rank == 4:
        return _conv_step(d, k, v, shape)
    if op == "maxpool" and rank == 4:
        return _pool_step(d, k, v, shape)
    if op == "matmul" and rank == 2:
        how = r.choice(("@", "torch", "mm"))
        m, n = shape
        partners = [i for i, s in enumerate(d.shapes) if len(s) == 2 and s[0] == n]
        if partners and r.random() < 0.4:
            other = r.choice(partners)
            return Step("matmul", (v, other), (), how), (m, d.shapes[other][1])
        same = [i for i, s in enumerate(d.shapes) if s == shape]
        if r.random() < 0.3 and m * m <= MAX_ELEMENTS:  # x @ y.t() of a value of the same shape
            return Step("matmul", (v, r.choice(same)), (("transpose_b", True),), how), (m, m)
        out = r.randint(1, 10)
        if m * out > MAX_ELEMENTS:
            return None
        transposed = r.random() < 0.3
        d.constants[f"c{k}"] = ((out, n) if transposed else (n, out), "weight")
        return Step("matmul", (v,), (("transpose_b", transposed),), how), (m, out)
    return None


def draw_model(seed: int, small: bool = False) -> Drawn:
    """The steps, shapes and constants of the model of `seed` (torch objects are made by
    `make_model`); a `small` one has at most 4 steps."""
    r = random.Random(seed)
    first = _input_shape(r)
    shapes = [first]
    if r.random() < 0.3:  # a second input, of the first one's shape or a broadcast of it
        shapes.append(first if r.random() < 0.6 else _broadcast_shape(r, first))
    d = Drawn(r, shapes)
    target = r.randint(1, 4 if small else 10)
    attempts = 0
    while len(d.steps) < target and attempts < 60:
        attempts += 1
        drawn = _step(d, len(d.steps))
        if drawn is not None and math.prod(drawn[1]) <= MAX_ELEMENTS:
            d.add(*drawn)
    return d


def make_model(seed: int, dtype: str, small: bool = False) -> tuple[Any, list[Any], Drawn]:
    """The torch model of `seed`, in eval mode and `dtype`, with its example inputs."""
    torch = _torch()
    d = draw_model(seed, small)
    torch.manual_seed(seed)
    n_inputs = len(d.shapes) - len(d.steps)
    used = {i for step in d.steps for i in step.operands}
    # every value no later step uses, so that no step is dead code
    outputs = [i for i in range(n_inputs, len(d.shapes)) if i not in used][-3:] or [len(d.shapes) - 1]
    model = _make_model_class()[n_inputs - 1](d.steps, outputs)
    for name, make in d.modules.items():
        if make is not None:
            setattr(model, name, make(torch.nn))
    for name, (shape, kind) in d.constants.items():
        if kind == "divisor":  # magnitudes in [0.5, 2], either sign
            t = (torch.rand(shape) * 1.5 + 0.5) * (torch.randint(0, 2, shape) * 2 - 1)
        elif kind == "weight":
            t = torch.randn(shape) / math.sqrt(max(1, shape[-1]))
        else:
            t = torch.randn(shape)
        model.register_buffer(name, t)
    inputs = [torch.randn(s) for s in d.shapes[:n_inputs]]
    dt = getattr(torch, dtype)
    return model.eval().to(dt), [x.to(dt) for x in inputs], d


def describe_model(seed: int, small: bool = False) -> str:
    d = draw_model(seed, small)
    n_inputs = len(d.shapes) - len(d.steps)
    lines = [f"v{i} = input {d.shapes[i]}" for i in range(n_inputs)]
    lines += [f"v{n_inputs + k} = {s.describe()}  # {d.shapes[n_inputs + k]}" for k, s in enumerate(d.steps)]
    return "; ".join(lines)


# Running a case -------------------------------------------------------------------------------

@dataclass
class Outcome:
    kind: str
    """ok, refused, skipped, wrong, crash, invalid-ir."""
    detail: str = ""
    stage: str = ""

    @property
    def failed(self) -> bool:
        return self.kind not in ("ok", "refused", "skipped")


def refusal_key(outcome: Outcome) -> str:
    """What a refusal says, numbers, quoted names and types aside (to group refusals)."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"|tensor<[^>]*>|memref<[^>]*>|\d+", "_", outcome.detail)
    return f"{outcome.stage}: {text}"[:110]


def _refusal(stage: str, e: XtirError) -> Outcome:
    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    kind = "invalid-ir" if any(w in str(e) for w in INVALID_IR) else "refused"
    return Outcome(kind, first, stage)


def reference(model: Any, inputs: Sequence[Any]) -> list[np.ndarray] | None:
    """torch's answer in float64 (None when torch cannot run the model in its own dtype)."""
    torch = _torch()
    with torch.no_grad():
        try:
            model(*inputs)
        except (RuntimeError, NotImplementedError):
            return None
        import copy

        exact = copy.deepcopy(model).double()(*(x.double() for x in inputs))
    exact = exact if isinstance(exact, tuple) else (exact,)
    return [e.numpy() for e in exact]


def compare(got: Sequence[np.ndarray], expected: Sequence[np.ndarray], dtype: str) -> str | None:
    """Why `got` is not torch's answer, or None."""
    if len(got) != len(expected):
        return f"{len(got)} results, torch gives {len(expected)}"
    for k, (g, e) in enumerate(zip(got, expected)):
        if g.shape != e.shape or g.dtype != np.dtype(dtype):
            return f"result {k}: {g.dtype} {g.shape}, torch gives {dtype} {e.shape}"
        scale = max(1.0, float(np.abs(e).max(initial=0.0)))
        err = np.abs(g.astype(np.float64) - e)
        if not np.all(err <= TOLERANCE[dtype] * scale):
            bad = np.argwhere(~(err <= TOLERANCE[dtype] * scale))
            first = tuple(int(i) for i in bad[0])
            return (f"result {k}: {len(bad)} of {g.size} elements differ (max error {np.nanmax(err):.3g}, "
                    f"NaN {int(np.isnan(g).sum())}); at {first}: got {g[first]}, torch {e[first]}")
    return None


def run_case(case: Case) -> Outcome:
    """Import, transform and compile the case's model, run it and compare with torch."""
    from xtir.frontend import from_torch

    model, inputs, _ = make_model(case.seed, case.dtype, case.small)
    expected = reference(model, inputs)
    if expected is None:
        return Outcome("skipped", f"torch cannot run the model in {case.dtype} on the CPU", "torch")
    stage = "import"
    traces: list[str] = []  # the primitives applied after the default schedule, per function
    try:
        imported = from_torch(model, tuple(inputs), weights=case.weights)
        graph, params = imported if case.weights == "params" else (imported, [])
        if case.pipeline:
            stage = "passes"
            graph = xtir.transform(graph, case.pipeline)
        arrays = [*(x.numpy() for x in inputs), *params]
        stage = "evaluate"
        evaluated = list(xtir.evaluate(graph, *arrays))
        stage = "compile"
        outputs = _compile_and_run(graph, case, arrays, traces)
    except XtirError as e:
        outcome = _refusal(stage, e)
        outcome.detail += _applied(traces) if outcome.failed else ""
        return outcome
    except Exception:  # noqa: BLE001 - a traceback is the finding
        return Outcome("crash", traceback.format_exc(limit=-4) + _applied(traces), stage)
    for who, got in (("evaluator", evaluated), ("compiled model", outputs)):
        if why := compare(got, expected, case.dtype):
            return Outcome("wrong", f"{who}: {why}" + _applied(traces), who)
    return Outcome("ok")


def _applied(traces: list[str]) -> str:
    return "".join(f"\n  after the default schedule {t}" for t in traces)


def _compile_and_run(graph: Any, case: Case, arrays: list[np.ndarray], traces: list[str]) -> list[np.ndarray]:
    """The compiled model's outputs (on llvm NaN-filled before the call, so that an element left
    unwritten is wrong; a GPU model allocates its own)."""
    from xtir.model import compile_model

    schedule: Any = case.schedule
    if case.extra:
        default = "default-gpu-schedule" if case.target != "llvm" else "default-schedule"
        schedule = lambda module: extra_primitives(xtir.transform(module, default), case, traces)  # noqa: E731
    if case.target == "llvm":
        compiled = compile_model(graph, schedule=schedule)
        outputs = [np.full(shape, np.nan, dtype) for shape, dtype in compiled.outputs]
        compiled.run(*arrays, *outputs)
        return outputs
    results = compile_model(graph, schedule=schedule, target=case.target, racecheck=True)(*arrays)
    return list(results) if isinstance(results, tuple) else [results]


def reproducer(case: Case) -> str:
    call = f"Case({case.seed}, {case.dtype!r}, {case.variant}, {case.weights!r}, {case.target!r}, {case.extra})"
    return (f"from tests.fuzz.graph_fuzz import Case, run_case; print(run_case({call}))  "
            f"# {describe_model(case.seed, case.small)}")
