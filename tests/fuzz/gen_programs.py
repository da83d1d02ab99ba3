"""Random block programs for the fuzzers, built from templates, each with its own reference.

A generated program is a module of one or more functions; a function is a sequence of
*stages*, each one block in its own loop nest, over parameters and scratch buffers:

- maps (`O[v] = f(A[v], B[v], bias[vj], ...)`, ReLU as `max(x, 0)`), reductions with an init
  (matmul `T[i, j] += A[i, k] * B[j, k]`, row sums, an init that reads a bias), windows
  (`O[v] = S[v] + S[v + 1] + S[v + 2]`), in-place updates (`U[v] = U[v] * 0.5 + T[v]`),
  loop-carried recurrences (`U[N - v] = U[N - v - 1] + 1`, `U[v + 1] = U[v] * c + T[v]`),
  partial writers (one column, a predicated part, every other element) of buffers that
  other stages also write; chains of them through intermediates (matmul -> bias -> ReLU);
- iteration variables bound through identity, backward (`5 - %k`), split (`%o * 4 + %i`
  under `where`), fused (`%f floordiv 4`, `%f mod 4`), strided (`%i * 2`), shifted and
  modular (`%i mod 6` over 8 iterations) bindings; some `where` predicates do not keep
  the bindings in their domains (the program is then undefined: xtir must refuse it or
  stay memory-safe);
- per family: several functions per module, odd names (non-ASCII, runtime symbols such as
  `free` or `GOMP_parallel`, spaces, `/`, `{`) for functions, loops and blocks, integer
  (i8/i32/i64, overflowing values) and half (f16, bf16) element types, non-identity memref
  layouts, dozens of large scratch buffers, functions that return values, loops written
  `parallel` in the input.

The reference is the template's own semantics run in Python/numpy, not xtir: loops in
order, a block only where its predicate holds, its init when every reduce variable is 0,
loads and stores checked against the buffers (an access or binding outside them makes
the program undefined); stages without dependences between their instances run as
whole-array numpy code. `generate(name)` rebuilds a program from its name
(`gen.<family>.<seed>`), so failures replay from the name alone.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from xtir.lowering import runtime_errors

# Index expressions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Ix:
    """An index expression over variables named by Python identifiers: `op` is var, cst, +, -, *,
    floordiv or mod; `*`, floordiv and mod take a constant right operand."""

    op: str
    args: tuple

    def __add__(self, other: Ix | int) -> Ix:
        return Ix("+", (self, _ix(other)))

    def __sub__(self, other: Ix | int) -> Ix:
        return Ix("-", (self, _ix(other)))

    def __rsub__(self, other: int) -> Ix:
        return Ix("-", (_ix(other), self))

    def __mul__(self, k: int) -> Ix:
        return Ix("*", (self, k))

    def floordiv(self, k: int) -> Ix:
        return Ix("floordiv", (self, k))

    def mod(self, k: int) -> Ix:
        return Ix("mod", (self, k))

    def ir(self, ssa: dict[str, str]) -> str:
        """xtir syntax; compound operands are parenthesized."""
        if self.op == "var":
            return "%" + ssa[self.args[0]]
        if self.op == "cst":
            return str(self.args[0])
        a, b = self.args
        left = a.ir(ssa) if a.op in ("var", "cst") else f"({a.ir(ssa)})"
        if self.op in ("*", "floordiv", "mod"):
            return f"{left} {self.op} {b}"
        right = b.ir(ssa) if b.op in ("var", "cst") else f"({b.ir(ssa)})"
        return f"{left} {self.op} {right}"

    def py(self) -> str:
        """Python syntax, floor semantics for floordiv and mod (as xtir defines them)."""
        if self.op == "var":
            return self.args[0]
        if self.op == "cst":
            return f"({self.args[0]})"
        a, b = self.args
        op = {"+": "+", "-": "-", "*": "*", "floordiv": "//", "mod": "%"}[self.op]
        return f"({a.py()} {op} {b if isinstance(b, int) else b.py()})"


def var(name: str) -> Ix:
    return Ix("var", (name,))


def _ix(value: Ix | int) -> Ix:
    return value if isinstance(value, Ix) else Ix("cst", (value,))


# Scalar values ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Val:
    """A scalar: `load` (buffer, indices over iteration variables), `const` (value) or a binary
    op (add, sub, mul, max, min, div; and, or, xor and the DIVISIONS on integers) of two values."""

    op: str
    args: tuple


def load(buffer: str, *index: Ix) -> Val:
    return Val("load", (buffer, tuple(index)))


def const(value: float) -> Val:
    return Val("const", (value,))


def binop(op: str, a: Val, b: Val) -> Val:
    return Val(op, (a, b))


@dataclass(frozen=True)
class Store:
    buffer: str
    index: tuple[Ix, ...]
    value: Val


@dataclass(frozen=True)
class IterVar:
    name: str  # a Python identifier, also the SSA name
    kind: str  # "spatial" | "reduce"
    extent: int
    binding: Ix  # over loop variables


@dataclass(frozen=True)
class Loop:
    var: str  # a Python identifier, also the SSA name
    name: str  # the loop's name in the IR (the schedule handle)
    extent: int
    kind: str = ""  # "" (serial), "parallel", "vectorized", "unrolled"


@dataclass
class Stage:
    """One block in its own loop nest."""

    template: str
    block: str
    loops: list[Loop]
    ivars: list[IterVar]
    body: list[Store]
    init: list[Store] = field(default_factory=list)
    predicate: list[tuple[Ix, int]] = field(default_factory=list)  # each `expr < bound`, over loop variables

    def buffers_read(self) -> set[str]:
        found: set[str] = set()

        def walk(v: Val) -> None:
            if v.op == "load":
                found.add(v.args[0])
            elif v.op != "const":
                for a in v.args:
                    walk(a)

        for s in self.init + self.body:
            walk(s.value)
        return found

    def buffers_written(self) -> set[str]:
        return {s.buffer for s in self.init + self.body}


DTYPES = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
          "f64": np.float64}
FLOAT_OPS = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "max": "arith.maximumf",
             "min": "arith.minimumf", "div": "arith.divf"}
DIVISIONS = {"div": "arith.divsi", "rem": "arith.remsi", "floordiv": "arith.floordivsi", "ceildiv": "arith.ceildivsi",
             "udiv": "arith.divui", "urem": "arith.remui", "uceildiv": "arith.ceildivui"}
BITWISE = {"and": "arith.andi", "or": "arith.ori", "xor": "arith.xori"}
INT_OPS = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli", "max": "arith.maxsi", "min": "arith.minsi",
           **DIVISIONS, **BITWISE}


# Element types xtir parses but neither numpy nor the CPU backend has: the build must refuse them.
ODD_DTYPES = ("bf16", "f80", "f128", "complex<f32>")


def is_float(dtype: str) -> bool:
    return dtype in ("f16", "bf16", "f32", "f64", "f80", "f128")


@dataclass(frozen=True)
class Buffer:
    name: str  # SSA name without %
    shape: tuple[int, ...]
    dtype: str  # a key of DTYPES, or one of ODD_DTYPES
    role: str  # in, out (NaN- or sentinel-filled before a call), inout (data), scratch
    layout: str | None = None  # a memref layout such as `strided<[2]>`
    divisor: str = ""  # inputs that divide: "nonzero" (no 0, no -1: every division defined) or "zero" (all 0)

    def type(self) -> str:
        dims = "x".join(map(str, self.shape))
        layout = f", {self.layout}" if self.layout else ""
        return f"memref<{dims}x{self.dtype}{layout}>"


@dataclass
class Function:
    name: str
    params: list[Buffer]
    scratch: list[Buffer]
    stages: list[Stage]
    dtype: str
    returns: Val | None = None  # a value of constants the function returns

    def buffer(self, name: str) -> Buffer:
        return next(b for b in self.params + self.scratch if b.name == name)


# IR text -----------------------------------------------------------------------------------


_BARE_SYMBOL = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def string_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def symbol(name: str) -> str:
    return "@" + (name if _BARE_SYMBOL.match(name) else string_literal(name))


def _float_literal(value: float) -> str:
    return f"{value:.6e}"


class _Emitter:
    def __init__(self, f: Function):
        self.f = f
        self.lines: list[str] = []
        self.n = 0

    def value(self, v: Val, ssa: dict[str, str], indent: str) -> str:
        if v.op == "load":
            buf = self.f.buffer(v.args[0])
            index = ", ".join(e.ir(ssa) for e in v.args[1])
            name = self._fresh()
            self.lines.append(f"{indent}%{name} = block.load %{buf.name}[{index}] : {buf.type()}")
            return name
        if v.op == "const":
            name = self._fresh()
            literal = _float_literal(v.args[0]) if is_float(self.f.dtype) else str(int(v.args[0]))
            self.lines.append(f"{indent}%{name} = arith.constant {literal} : {self.f.dtype}")
            return name
        a, b = (self.value(x, ssa, indent) for x in v.args)
        name = self._fresh()
        op = (FLOAT_OPS if is_float(self.f.dtype) else INT_OPS)[v.op]
        self.lines.append(f"{indent}%{name} = {op} %{a}, %{b} : {self.f.dtype}")
        return name

    def store(self, s: Store, ssa: dict[str, str], indent: str) -> None:
        value = self.value(s.value, ssa, indent)
        buf = self.f.buffer(s.buffer)
        index = ", ".join(e.ir(ssa) for e in s.index)
        self.lines.append(f"{indent}block.store %{value}, %{buf.name}[{index}] : {buf.type()}")

    def _fresh(self) -> str:
        self.n += 1
        return f"x{self.n}"

    def stage(self, st: Stage, depth: int) -> None:
        ssa = {lp.var: lp.var for lp in st.loops} | {iv.name: iv.name for iv in st.ivars}
        for k, lp in enumerate(st.loops):
            kind = f" {lp.kind}" if lp.kind else ""
            self.lines.append(f"{'  ' * (depth + k)}block.for %{lp.var} = 0 to {lp.extent} {string_literal(lp.name)}{kind} {{")
        inner = "  " * (depth + len(st.loops))
        ivars = ", ".join(f"%{iv.name} = {iv.kind}({iv.extent}, {iv.binding.ir(ssa)})" for iv in st.ivars)
        where = ""
        if st.predicate:
            where = " where(" + ", ".join(f"{e.ir(ssa)} < {b}" for e, b in st.predicate) + ")"
        self.lines.append(f"{inner}block.block {string_literal(st.block)}({ivars}){where} {{")
        if st.init:
            self.lines.append(f"{inner}  block.init {{")
            for s in st.init:
                self.store(s, ssa, inner + "    ")
            self.lines.append(f"{inner}  }}")
        for s in st.body:
            self.store(s, ssa, inner + "  ")
        self.lines.append(f"{inner}}}")
        for k in reversed(range(len(st.loops))):
            self.lines.append(f"{'  ' * (depth + k)}}}")


def function_text(f: Function) -> str:
    e = _Emitter(f)
    params = ", ".join(f"%{b.name}: {b.type()}" for b in f.params)
    result = f" -> {f.dtype}" if f.returns is not None else ""
    e.lines.append(f"  func.func {symbol(f.name)}({params}){result} {{")
    for b in f.scratch:
        e.lines.append(f"    %{b.name} = block.alloc : {b.type()}")
    for st in f.stages:
        e.stage(st, 2)
    if f.returns is not None:
        value = e.value(f.returns, {}, "    ")
        e.lines.append(f"    func.return %{value} : {f.dtype}")
    else:
        e.lines.append("    func.return")
    e.lines.append("  }")
    return "\n".join(e.lines)


def module_text(functions: Sequence[Function], comment: str) -> str:
    body = "\n".join(function_text(f) for f in functions)
    return f"// {comment}\nbuiltin.module {{\n{body}\n}}\n"


# The reference --------------------------------------------------------------------------------


class Undefined(Exception):
    """The program accesses a buffer outside its shape or binds a variable outside its domain."""


class UndefinedRead(Exception):
    """The program reads scratch memory it never wrote (generation retries such programs)."""


class _Memory:
    """The arrays of one call, with a written-mask per scratch buffer when tracking."""

    def __init__(self, arrays: dict[str, np.ndarray], scratch: set[str], track: bool):
        self.arrays = arrays
        self.written = {n: np.zeros(arrays[n].shape, bool) for n in scratch} if track else {}

    def ld(self, name: str, index: tuple) -> object:
        array = self.arrays[name]
        _check_bounds(name, array.shape, index)
        if name in self.written and not self.written[name][index].all():
            raise UndefinedRead(name)
        return array[index]

    def st(self, name: str, index: tuple, value: object) -> None:
        array = self.arrays[name]
        _check_bounds(name, array.shape, index)
        array[index] = value
        if name in self.written:
            self.written[name][index] = True


def _check_bounds(name: str, shape: tuple[int, ...], index: tuple) -> None:
    for i, n in zip(index, shape):
        if (not 0 <= i < n) if isinstance(i, int) else (np.any(i < 0) or np.any(i >= n)):
            raise Undefined(f"access to {name}{list(shape)} at index {index}")


def _divide(op: str, a: object, b: object) -> object:
    """An integer division of DIVISIONS on scalars or arrays of one dtype, as arith defines it
    (signed ops truncate, floor or ceil; unsigned ops read the bits unsigned); Undefined where the
    divisor is 0, or -1 under the smallest value (the compiled code raises, the evaluator refuses)."""
    x, y = np.asarray(a), np.asarray(b)
    dtype = np.result_type(x, y)
    bits = dtype.itemsize * 8
    if np.any(y == 0):
        raise Undefined(f"{op}: division by zero")
    if not op.startswith("u") and np.any((x == np.iinfo(dtype).min) & (y == -1)):
        raise Undefined(f"{op}: a signed division that overflows")
    xs, ys = np.broadcast_arrays(x.astype(object), y.astype(object))
    if op.startswith("u"):
        xs, ys = xs % (1 << bits), ys % (1 << bits)
    exact = {"div": lambda p, q: abs(p) // abs(q) * (1 if (p < 0) == (q < 0) else -1),
             "rem": lambda p, q: p - abs(p) // abs(q) * (1 if (p < 0) == (q < 0) else -1) * q,
             "floordiv": lambda p, q: p // q, "ceildiv": lambda p, q: -(-p // q),
             "udiv": lambda p, q: p // q, "urem": lambda p, q: p % q, "uceildiv": lambda p, q: -(-p // q)}[op]
    wrapped = [(exact(p, q) + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1)) for p, q in zip(xs.ravel(), ys.ravel())]
    result = np.array(wrapped, dtype=dtype).reshape(xs.shape)
    return result[()] if result.ndim == 0 else result


def _value_py(v: Val, dtype: str) -> str:
    if v.op == "load":
        return f"ld({v.args[0]!r}, {_index_py(v.args[1])})"
    if v.op == "const":
        return f"CT({v.args[0]!r})"
    a, b = (_value_py(x, dtype) for x in v.args)
    if v.op in DIVISIONS and not is_float(dtype):
        return f"_divide({v.op!r}, {a}, {b})"
    if v.op in ("max", "min"):
        return f"np.{'maximum' if v.op == 'max' else 'minimum'}({a}, {b})"
    return f"({a} {dict(add='+', sub='-', mul='*', div='/', xor='^', **{'and': '&', 'or': '|'})[v.op]} {b})"


def _index_py(index: Sequence[Ix]) -> str:
    return f"({''.join(e.py() + ', ' for e in index)})"


def _store_py(s: Store, dtype: str) -> str:
    return f"st({s.buffer!r}, {_index_py(s.index)}, {_value_py(s.value, dtype)})"


def _domain_check(st: Stage) -> list[str]:
    return [f"if np.any({iv.name} < 0) or np.any({iv.name} >= {iv.extent}): "
            f"raise Undefined('{iv.name} outside [0, {iv.extent})')" for iv in st.ivars]


def _stage_scalar_source(st: Stage, dtype: str) -> str:
    """A Python function running the stage one iteration at a time, in loop order."""
    lines = ["def run(ld, st, CT):"]
    indent = "    "
    for lp in st.loops:
        lines.append(f"{indent}for {lp.var} in range({lp.extent}):")
        indent += "    "
    if st.predicate:
        cond = " and ".join(f"{e.py()} < {b}" for e, b in st.predicate)
        lines.append(f"{indent}if not ({cond}): continue")
    for iv in st.ivars:
        lines.append(f"{indent}{iv.name} = {iv.binding.py()}")
    lines += [indent + line for line in _domain_check(st)]
    if st.init:
        reduce_vars = [iv.name for iv in st.ivars if iv.kind == "reduce"]
        lines.append(f"{indent}if {' and '.join(f'{n} == 0' for n in reduce_vars) or 'True'}:")
        lines += [f"{indent}    {_store_py(s, dtype)}" for s in st.init]
    lines += [f"{indent}{_store_py(s, dtype)}" for s in st.body]
    if not st.loops:
        lines.append(f"{indent}pass")
    return "\n".join(lines)


def _stage_vector_source(st: Stage, dtype: str) -> str:
    """The same stage on whole arrays of iterations (only for stages whose instances are independent)."""
    lines = ["def run(ld, st, CT):"]
    extents = [lp.extent for lp in st.loops]
    lines.append(f"    grid = np.indices({tuple(extents)!r}).reshape({len(extents)}, -1)")
    for k, lp in enumerate(st.loops):
        lines.append(f"    {lp.var} = grid[{k}]")
    if st.predicate:
        cond = " & ".join(f"({e.py()} < {b})" for e, b in st.predicate)
        lines.append(f"    keep = {cond}")
        for lp in st.loops:
            lines.append(f"    {lp.var} = {lp.var}[keep]")
    for iv in st.ivars:
        lines.append(f"    {iv.name} = np.broadcast_to({iv.binding.py()}, {st.loops[0].var}.shape)")
    lines += ["    " + line for line in _domain_check(st)]
    for s in st.body:
        index = "".join(e.py() + ", " for e in s.index)
        lines.append(f"    if _duplicates(({index}), {st.loops[0].var}.shape): raise _Sequential()")
    for s in st.body:
        index = "".join(e.py() + ", " for e in s.index)
        lines.append(f"    st({s.buffer!r}, _full(({index}), {st.loops[0].var}.shape), {_value_py(s.value, dtype)})")
    return "\n".join(lines)


class _Sequential(Exception):
    """The whole-array form does not apply (two instances store to one element)."""


def _full(index: tuple, shape: tuple[int, ...]) -> tuple:
    return tuple(np.broadcast_to(i, shape) for i in index)


def _duplicates(index: tuple, shape: tuple[int, ...]) -> bool:
    flat = np.stack([np.broadcast_to(i, shape) for i in index]) if index else np.zeros((0,) + shape, int)
    return flat.shape[-1] != np.unique(flat, axis=-1).shape[-1] if flat.size else False


def _vectorizable(st: Stage) -> bool:
    return (
        bool(st.loops)
        and not st.init
        and all(iv.kind == "spatial" for iv in st.ivars)
        and not (st.buffers_read() & st.buffers_written())
        and len({s.buffer for s in st.body}) == len(st.body)
    )


@functools.cache
def _compiled(source: str) -> Callable:
    scope = {"np": np, "Undefined": Undefined, "_Sequential": _Sequential, "_full": _full, "_duplicates": _duplicates,
             "_divide": _divide}
    exec(compile(source, "<fuzz reference>", "exec"), scope)
    return scope["run"]


def run_reference(f: Function, arrays: Sequence[np.ndarray], track: bool = False) -> object:
    """Run `f` on `arrays` (one per parameter, written in place) by the template's semantics;
    the returned value, if the function returns one. Raises Undefined (and, when tracking,
    UndefinedRead)."""
    ctype = np.dtype(DTYPES.get(f.dtype, np.float32)).type
    memory = {b.name: a for b, a in zip(f.params, arrays)}
    for b in f.scratch:
        memory[b.name] = np.full(b.shape, np.nan if is_float(b.dtype) else 0, DTYPES.get(b.dtype, np.float32))
    mem = _Memory(memory, {b.name for b in f.scratch}, track)
    with np.errstate(all="ignore"):
        for st in f.stages:
            if _vectorizable(st):
                try:
                    _compiled(_stage_vector_source(st, f.dtype))(mem.ld, mem.st, ctype)
                    continue
                except _Sequential:
                    pass
            _compiled(_stage_scalar_source(st, f.dtype))(mem.ld, mem.st, ctype)
        if f.returns is not None:
            return eval(_value_py(f.returns, f.dtype), {"np": np, "CT": ctype, "ld": mem.ld, "_divide": _divide})  # noqa: S307
    return None


# Generation --------------------------------------------------------------------------------------

RUNTIME_NAMES = ("free", "malloc", "aligned_alloc", "GOMP_parallel", "omp_get_thread_num", "omp_get_num_threads",
                 "memcpy", "memset", "xtir_tmm16", "main_i_parallel", "abort", "printf", runtime_errors.SYMBOL)
"""Names the compiled code or its runtime uses; a generated function named so must work or be refused
(runtime_errors.SYMBOL is refused: the run-time error channel calls it)."""
NON_ASCII_NAMES = ("fé", "λ", "関数", "naïve", "ß")
ODD_CHARACTER_NAMES = ("a b", "a/b", "{", "}", "a,b", "x=1", "i\tj", "\"q\"", "back\\slash", "k-1", "é")

PARTIAL = frozenset({"strided", "shifted", "cut"})


@dataclass(frozen=True)
class Family:
    """What a family of generated programs uses (weights of templates and bindings, options)."""

    templates: dict[str, float]
    bindings: dict[str, float]
    reduce_bindings: dict[str, float]
    stages: tuple[int, int] = (1, 4)
    dtypes: tuple[str, ...] = ("f32",)
    functions: tuple[int, int] = (1, 1)
    odd_functions: float = 0.0  # probability that a function gets an odd name
    odd_labels: float = 0.0  # probability that a loop or block gets an odd name
    layouts: float = 0.0  # probability that a parameter has a non-identity layout
    returns: float = 0.0  # probability that the entry function returns a value
    loop_kinds: float = 0.0  # probability that a stage's outer loop is written parallel / vectorized
    stack: bool = False  # a long chain of large scratch buffers
    big: float = 0.0  # probability that a function starts with a map into a scratch buffer past 256 KiB (heap)
    odd_scratch: float = 0.0  # probability that a function allocates a scratch buffer of one of ODD_DTYPES
    primitive_weights: dict[str, float] = field(default_factory=dict)  # schedule primitives made more likely
    sizes: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16)


# Spatial bindings of a variable of domain d: `%l`, `d - 1 - %l`, `%o * f + %i` (with `where` when f
# does not divide d), `%f floordiv m` / `%f mod m` (two dimensions from one loop), `%l * 2` (every
# other element), `%l + 1` (all but the first), `%l mod d` over more than d iterations, `%o * f + %i`
# under a predicate that stops early, `%l` over more than d iterations under `where(%l < d)`, and a
# predicate that lets the binding leave the domain (undefined). Reduce bindings: identity, backward,
# split, strided (`%l * 2`, read at `floordiv 2`), modular (more iterations than the domain).
_PLAIN = {"identity": 8.0, "backward": 0.5, "split": 1.0, "fused": 0.5, "overhang": 0.5}
_ALL_BINDINGS = {"identity": 4.0, "backward": 2.0, "split": 2.0, "fused": 1.5, "strided": 1.0, "shifted": 0.7,
                 "modular": 1.0, "cut": 1.0, "overhang": 1.0, "bad": 0.4}
_PIPELINE_TEMPLATES = {"map": 2.0, "bias": 2.0, "relu": 2.0, "matmul": 3.0, "rowsum": 1.0, "copy_t": 0.5,
                       "window": 0.5, "inplace": 0.5, "reduce_update": 0.5, "guarded_pair": 0.5, "divide": 0.7,
                       "gather": 0.5}
# The schedule families run on integers too (wrapping values, divisions by data that may be 0) and f16.
_SCHEDULE_DTYPES = ("f32", "f32", "f32", "f32", "i8", "i32", "i64", "f16")

FAMILIES: dict[str, Family] = {
    # matmul -> bias -> ReLU and friends through intermediates, for caches, compute-at and inlining
    "pipeline": Family(_PIPELINE_TEMPLATES, _PLAIN, {"identity": 1.0}, stages=(2, 4), dtypes=_SCHEDULE_DTYPES,
                       primitive_weights={
        "cache_read": 2.0, "cache_write": 2.0, "compute_at": 1.5, "reverse_compute_at": 1.5, "compute_inline": 3.0,
        "reverse_compute_inline": 3.0, "fuse_reduction_epilogue": 3.0, "decompose_reduction": 2.0}),
    # backward, strided, modular, split and fused bindings of spatial and reduce variables
    "bindings": Family({"map": 2.0, "matmul": 3.0, "rowsum": 2.0, "bias": 1.0, "relu": 1.0, "window": 1.0,
                        "divide": 1.0, "gather": 1.0},
                       {**_ALL_BINDINGS, "bad": 0.0}, {"identity": 1.0, "backward": 2.0, "split": 1.0,
                                                        "strided": 1.0, "modular": 1.0}, stages=(1, 3),
                       dtypes=_SCHEDULE_DTYPES),
    # in-place updates and loop-carried dependences next to producers
    "inplace": Family({"inplace": 3.0, "carried": 3.0, "reduce_update": 2.0, "matmul": 1.5, "map": 1.0, "rowsum": 1.0,
                       "window": 0.5, "divide": 0.5},
                      _PLAIN, {"identity": 3.0, "backward": 1.0}, stages=(2, 4), loop_kinds=0.1, dtypes=_SCHEDULE_DTYPES,
                      primitive_weights={
                          "reverse_compute_at": 3.0, "compute_at": 2.0, "parallel": 2.0, "vectorize": 2.0}),
    # predicates, partial writers and two writers of one buffer (some predicates undefined)
    "partial": Family({"column": 3.0, "map": 2.0, "matmul": 1.5, "bias": 1.0, "inplace": 1.0, "relu": 1.0,
                       "guarded_pair": 2.0, "divide": 1.0},
                      {"identity": 3.0, "cut": 3.0, "strided": 1.5, "shifted": 1.0, "split": 2.0, "overhang": 2.0,
                       "bad": 0.8, "modular": 0.5}, {"identity": 3.0, "split": 1.0}, stages=(2, 4),
                      dtypes=_SCHEDULE_DTYPES, primitive_weights={
                          "cache_write": 3.0, "reverse_compute_inline": 6.0, "compute_inline": 3.0}),
    # several functions per module; the entry is any of them
    "functions": Family(_PIPELINE_TEMPLATES, _PLAIN, {"identity": 1.0}, stages=(1, 3), functions=(2, 4)),
    # odd names of functions, loops and blocks
    "names": Family({"map": 2.0, "matmul": 1.0, "relu": 1.0, "bias": 1.0}, _PLAIN, {"identity": 1.0},
                    stages=(1, 3), functions=(1, 2), odd_functions=0.6, odd_labels=0.05, loop_kinds=0.3, big=0.3),
    # integer (overflowing, divided) and half element types, and types without lowering (f80, complex)
    "types": Family({"map": 2.0, "matmul": 2.0, "rowsum": 1.0, "bias": 1.0, "relu": 1.0, "inplace": 1.0,
                     "divide": 1.5},
                    _PLAIN, {"identity": 2.0, "backward": 1.0}, stages=(1, 3),
                    dtypes=("i8", "i16", "i32", "i64", "f16", "bf16", "i32", "f16", "f80", "f128"), odd_scratch=0.15),
    # parameters with non-identity memref layouts
    "layouts": Family({"map": 2.0, "matmul": 1.0, "bias": 1.0, "copy_t": 1.0}, _PLAIN, {"identity": 1.0},
                      stages=(1, 2), layouts=0.6),
    # multi-stage programs of every element type under compute-at, caches and loop kinds (the
    # generator that hunted LLVM's crashes of issue 17 item 13, /work/notes/jitwork/hunt2.py)
    "hunt": Family({"map": 2.0, "bias": 1.0, "rowsum": 1.0, "inplace": 1.0, "gather": 1.0, "divide": 0.5,
                    "matmul": 1.0, "window": 0.5},
                   {"identity": 4.0, "backward": 1.5, "overhang": 0.5}, {"identity": 2.0, "backward": 0.5},
                   stages=(2, 4), dtypes=("f32", "f64", "f16", "i8", "i16", "i32", "i64"),
                   sizes=(1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 31, 32, 33), primitive_weights={
                       "compute_at": 6.0, "reverse_compute_at": 6.0, "cache_read": 2.0, "cache_write": 2.0,
                       "vectorize": 3.0, "parallel": 1.5, "unroll": 1.5, "blockize": 0.3}),
    # dozens of scratch buffers of up to 256 KiB each
    "stack": Family({"map": 1.0}, {"identity": 1.0}, {"identity": 1.0}, stack=True),
    # functions returning a value, with and without arguments
    "returns": Family({"map": 1.0, "matmul": 1.0}, _PLAIN, {"identity": 1.0}, stages=(0, 2), returns=1.0),
}


@dataclass
class Generated:
    """A generated module: its functions, the entry, and what it contains (for classifying)."""

    name: str
    functions: list[Function]
    entry: Function
    tags: frozenset[str]
    text: str

    @functools.cached_property
    def defined(self) -> bool:
        """Whether the entry's reference semantics are defined (no access or binding outside, no
        parameter with a layout of its own, no buffer of an element type numpy lacks: xtir refuses
        those, issue 17.8 and 17.17)."""
        buffers = self.entry.params + self.entry.scratch
        if any(b.layout for b in buffers) or any(b.dtype not in DTYPES for b in buffers):
            return False
        try:
            self.expected(self.arguments(np.random.default_rng(0)))
        except Undefined:
            return False
        return True

    def arguments(self, rng: np.random.Generator) -> list[np.ndarray]:
        return [argument_data(b, rng) for b in self.entry.params]

    def expected(self, arrays: Sequence[np.ndarray]) -> tuple[list[np.ndarray], object]:
        """The parameters after a call (copies) and the returned value."""
        copies = [np.array(a, copy=True) for a in arrays]
        value = run_reference(self.entry, copies)
        return copies, value


SENTINEL_BYTE = 0x5A


def argument_data(b: Buffer, rng: np.random.Generator) -> np.ndarray:
    """Inputs: floats from N(0, 1) (f16: U(-1, 1)), integers over the whole range of the type
    (i8) or a mix of small and near-extreme values; outputs: NaN, or the 0x5A.. sentinel."""
    if b.dtype not in DTYPES:
        return np.zeros(b.shape, np.uint16)  # numpy has no such dtype: the build or the call must refuse it
    dtype = np.dtype(DTYPES[b.dtype])
    if b.role == "out":
        if is_float(b.dtype):
            return np.full(b.shape, np.nan, dtype)
        return np.frombuffer(bytes([SENTINEL_BYTE]) * (dtype.itemsize * math.prod(b.shape)), dtype).reshape(b.shape).copy()
    if b.dtype == "f16":
        return rng.uniform(-1, 1, b.shape).astype(dtype)
    if is_float(b.dtype):
        return rng.standard_normal(b.shape).astype(dtype)
    if b.divisor == "zero":
        return np.zeros(b.shape, dtype)
    info = np.iinfo(dtype)
    if b.dtype == "i8":
        data = rng.integers(info.min, info.max, b.shape, endpoint=True).astype(dtype)
    else:
        small = rng.integers(-100, 100, b.shape)
        big = rng.integers(info.max - 1000, info.max, b.shape, endpoint=True)
        data = np.where(rng.random(b.shape) < 0.3, big, small).astype(dtype)
    if b.divisor == "nonzero":  # whatever the seed: the program's definedness is the template's
        data[(data == 0) | (data == -1)] = 3
    return data


class _FunctionGen:
    def __init__(self, r: random.Random, family: Family, dtype: str, name: str, odd_names: float):
        self.r = r
        self.fam = family
        self.dtype = dtype
        self.name = name
        self.odd = odd_names
        self.params: list[Buffer] = []
        self.scratch: list[Buffer] = []
        self.stages: list[Stage] = []
        self.full: dict[str, tuple[int, ...]] = {}  # buffers whose every element is defined
        self.last: str | None = None  # the buffer the last complete stage wrote
        self.tags: set[str] = set()
        self.n_stage = 0
        self.n_buf = 0
        self.n_loop = 0
        self.block_names: set[str] = set()

    # names and buffers

    def _odd(self, plain: str) -> str:
        if self.r.random() < self.odd:
            self.tags.add("odd-name")
            return self.r.choice(ODD_CHARACTER_NAMES + NON_ASCII_NAMES)
        return plain

    def _buffer_name(self, prefix: str) -> str:
        self.n_buf += 1
        return f"{prefix}{self.n_buf}"

    def param(self, shape: tuple[int, ...], role: str, divisor: str = "") -> str:
        layout = None
        if self.r.random() < self.fam.layouts:
            layout = self._layout(shape)
            self.tags.add("layout")
        prefix = "D" if divisor else {"in": "A", "out": "O", "inout": "U"}[role]
        b = Buffer(self._buffer_name(prefix), shape, self.dtype, role, layout, divisor)
        self.params.append(b)
        if role != "out":
            self.full[b.name] = shape
        return b.name

    def _layout(self, shape: tuple[int, ...]) -> str:
        r = self.r
        contiguous = [math.prod(shape[k + 1 :]) for k in range(len(shape))]
        style = r.choice(("strided", "offset", "transposed", "padded"))
        if style == "strided":
            strides = [s * r.choice((2, 3)) for s in contiguous]
            return f"strided<[{', '.join(map(str, strides))}]>"
        if style == "offset":
            return f"strided<[{', '.join(map(str, contiguous))}], offset: {r.choice((1, 2, 5))}>"
        if style == "transposed" and len(shape) == 2:
            return f"strided<[1, {shape[0]}]>"
        strides = [s + (r.choice((1, 3)) if k == 0 and len(shape) > 1 else 0) for k, s in enumerate(contiguous)]
        return f"strided<[{', '.join(map(str, strides))}], offset: ?>" if r.random() < 0.2 else \
            f"strided<[{', '.join(map(str, strides))}]>"

    def scratch_buffer(self, shape: tuple[int, ...]) -> str:
        b = Buffer(self._buffer_name("T"), shape, self.dtype, "scratch")
        self.scratch.append(b)
        return b.name

    def source(self, shape: tuple[int, ...]) -> str:
        """A defined buffer of this shape (mostly the last one written: stages chain), or a new input."""
        if self.last is not None and self.full.get(self.last) == shape and self.r.random() < 0.8:
            return self.last
        have = [n for n, s in self.full.items() if s == shape]
        if have and self.r.random() < 0.6:
            return self.r.choice(have)
        return self.param(shape, "in")

    def shape(self, ndim: int) -> tuple[int, ...]:
        """Mostly the shape of the last buffer written, so that the next stage can read it."""
        if self.last is not None and len(self.full[self.last]) == ndim and self.r.random() < 0.8:
            return self.full[self.last]
        return tuple(self.size() for _ in range(ndim))

    def target(self, shape: tuple[int, ...], last: bool) -> str:
        if last or self.r.random() < 0.3:
            return self.param(shape, "out")
        return self.scratch_buffer(shape)

    def defined_target(self, shape: tuple[int, ...]) -> str:
        """A buffer whose elements are all defined, to update in place: a written buffer or new data."""
        have = [n for n, s in self.full.items() if s == shape and self._writable(n)]
        if self.last in have and self.r.random() < 0.8:
            have.remove(self.last)  # mostly another buffer than the one the update reads
        if have and self.r.random() < 0.7:
            return self.r.choice(have)
        return self.param(shape, "inout")

    def _writable(self, name: str) -> bool:
        return any(b.name == name and b.role != "in" for b in self.params + self.scratch)

    def size(self) -> int:
        return self.r.choice(self.fam.sizes)

    # bindings

    def _loop(self, name: str, extent: int) -> Loop:
        self.n_loop += 1
        return Loop(f"l{self.n_loop}", self._odd(name), extent)

    def spatial(self, dims: Sequence[int], names: Sequence[str], allow_partial: bool,
                styles: dict[str, float] | None = None) -> tuple[list[Loop], list[IterVar], list[tuple[Ix, int]], bool]:
        """Loops, spatial iteration variables and predicate covering `dims` (bindings drawn from
        `styles`, else the family's); whether every element is written (False for partial bindings)."""
        r = self.r
        loops: list[Loop] = []
        ivars: list[IterVar] = []
        preds: list[tuple[Ix, int]] = []
        covers = True
        styles = dict(styles or self.fam.bindings)
        if not allow_partial:
            styles = {k: w for k, w in styles.items() if k not in PARTIAL and k != "bad"} or {"identity": 1.0}
        k = 0
        while k < len(dims):
            d, lname = dims[k], names[k]
            style = r.choices(list(styles), weights=list(styles.values()))[0]
            self.tags.add(f"bind-{style}")
            vname = f"v{self.n_stage}_{k}"
            if style == "fused" and k + 1 < len(dims):
                m = dims[k + 1]
                lp = self._loop(f"{lname}_{names[k + 1]}_fused", d * m)
                loops.append(lp)
                ivars.append(IterVar(vname, "spatial", d, var(lp.var).floordiv(m)))
                ivars.append(IterVar(f"v{self.n_stage}_{k + 1}", "spatial", m, var(lp.var).mod(m)))
                k += 2
                continue
            if style in ("split", "cut"):
                f = r.choice([x for x in (2, 3, 4, 8) if x <= max(d, 2)] or [2])
                outer, inner = self._loop(f"{lname}_0", -(-d // f)), self._loop(f"{lname}_1", f)
                loops += [outer, inner]
                expr = var(outer.var) * f + var(inner.var)
                bound = d
                if style == "cut" and d > 1:
                    bound = r.randrange(1, d)
                    covers = False
                if bound < outer.extent * f:
                    preds.append((expr, bound))
                ivars.append(IterVar(vname, "spatial", d, expr))
            elif style == "overhang":  # more iterations than the domain, the rest cut by `where`
                lp = self._loop(lname, d + r.randint(1, 6))
                loops.append(lp)
                preds.append((var(lp.var), d))
                ivars.append(IterVar(vname, "spatial", d, var(lp.var)))
            elif style == "bad":
                extra = r.randint(1, 3)
                lp = self._loop(lname, d + extra)
                loops.append(lp)
                expr = var(lp.var) if r.random() < 0.7 else var(lp.var) + 1
                preds.append((var(lp.var), d + r.randint(1, extra)))
                ivars.append(IterVar(vname, "spatial", d, expr))
                self.tags.add("undefined-predicate")
            else:  # identity, backward, strided, shifted, modular (and fused on the last dimension)
                extent = {"strided": -(-d // 2), "shifted": max(d - 1, 1), "modular": d + r.randint(1, 4)}.get(style, d)
                lp = self._loop(lname, extent)
                loops.append(lp)
                expr = {
                    "backward": (d - 1) - var(lp.var),
                    "strided": var(lp.var) * 2,
                    "shifted": var(lp.var) + 1 if d > 1 else var(lp.var),
                    "modular": var(lp.var).mod(d),
                }.get(style, var(lp.var))
                if style in ("strided", "shifted") and d > 1:
                    covers = False
                ivars.append(IterVar(vname, "spatial", d, expr))
            k += 1
        return loops, ivars, preds, covers

    def reduce(self, k: int, name: str) -> tuple[list[Loop], IterVar, list[tuple[Ix, int]], Callable[[Ix], Ix]]:
        """Loops and a reduce variable over [0, k); a map from the variable to the element reduced."""
        r = self.r
        styles = self.fam.reduce_bindings
        style = r.choices(list(styles), weights=list(styles.values()))[0]
        self.tags.add(f"reduce-{style}")
        vname = f"v{self.n_stage}_r"
        if style == "split" and k > 1:
            f = r.choice([x for x in (2, 3, 4) if x <= k])
            outer, inner = self._loop(f"{name}_0", -(-k // f)), self._loop(f"{name}_1", f)
            expr = var(outer.var) * f + var(inner.var)
            preds = [(expr, k)] if k % f else []
            return [outer, inner], IterVar(vname, "reduce", k, expr), preds, lambda v: v
        if style == "strided":
            lp = self._loop(name, k)
            return [lp], IterVar(vname, "reduce", 2 * k - 1, var(lp.var) * 2), [], lambda v: v.floordiv(2)
        if style == "modular":
            lp = self._loop(name, k + r.randint(1, k + 1))
            return [lp], IterVar(vname, "reduce", k, var(lp.var).mod(k)), [], lambda v: v
        lp = self._loop(name, k)
        expr = (k - 1) - var(lp.var) if style == "backward" else var(lp.var)
        return [lp], IterVar(vname, "reduce", k, expr), [], lambda v: v

    # values

    def constant(self) -> Val:
        r = self.r
        if is_float(self.dtype):
            if self.dtype == "f16" and r.random() < 0.25:
                self.tags.add("f16-overflow-constant")
                return const(r.choice((70000.0, -1e5, 65520.0)))
            return const(r.choice((0.5, 2.0, -1.0, 0.25, 1.5, 3.0)))
        info = np.iinfo(DTYPES[self.dtype])
        if r.random() < 0.3:
            self.tags.add("int-extreme-constant")
            return const(r.choice((int(info.max), int(info.min), int(info.max) - 1)))
        return const(r.choice((2, 3, -1, 7, 100)))

    def combine(self, values: list[Val]) -> Val:
        r = self.r
        value = values[0]
        # hunt2's operators too: float division, and the bitwise ones on integers
        ops = ("add", "add", "mul", "sub", "max", "min") + (("div",) if is_float(self.dtype) else ("and", "or", "xor"))
        for v in values[1:]:
            value = binop(r.choice(ops), value, v)
        if r.random() < 0.3:
            value = binop(r.choice(("mul", "add")), value, self.constant())
        return value

    # templates

    def stage(self, template: str, last: bool) -> None:
        self.n_stage += 1
        getattr(self, f"t_{template}")(last)

    def _block(self, plain: str) -> str:
        name = self._odd(f"{plain}{self.n_stage}" if self.n_stage > 1 else plain)
        if name in self.block_names:
            name += str(self.n_stage)
        self.block_names.add(name)
        return name

    def _add(self, st: Stage, written: str, covers: bool, loops_kind_ok: bool = True) -> None:
        if loops_kind_ok and st.loops and self.r.random() < self.fam.loop_kinds:
            first = st.loops[0]
            kind = self.r.choice(("parallel", "parallel", "vectorized", "unrolled"))
            st.loops[0] = Loop(first.var, first.name, first.extent, kind)
            self.tags.add(f"kind-{kind}")
        self.stages.append(st)
        self.tags.add(f"t-{st.template}")
        if covers:
            self.full[written] = self.buffer_shape(written)
            self.last = written
        elif not covers:
            self.tags.add("partial-writer")

    def buffer_shape(self, name: str) -> tuple[int, ...]:
        return next(b.shape for b in self.params + self.scratch if b.name == name)

    def _nd(self) -> tuple[int, ...]:
        """A shape of one or two dimensions, mostly the last written buffer's."""
        if self.last is not None and self.r.random() < 0.8:
            return self.full[self.last]
        return self.shape(2 if self.r.random() < 0.6 else 1)

    def t_map(self, last: bool) -> None:
        shape = self._nd()
        ins = [self.source(shape) for _ in range(self.r.randint(1, 2))]
        out = self.target(shape, last)
        self._elementwise("map", shape, ins, out, lambda loads: self.combine(loads))

    def t_relu(self, last: bool) -> None:
        shape = self._nd()
        src = self.source(shape)
        out = self.target(shape, last)
        zero = const(0.0) if is_float(self.dtype) else const(0)
        self._elementwise("relu", shape, [src], out, lambda loads: binop("max", loads[0], zero))

    def t_bias(self, last: bool) -> None:
        shape = self.shape(2)
        src = self.source(shape)
        bias = self.source((shape[1],))
        out = self.target(shape, last)
        self._elementwise("bias", shape, [src], out, lambda loads: binop("add", loads[0], load(bias, self._iv(1))),
                          )

    def t_divide(self, last: bool) -> None:
        """`O[v] = A[v] / D[v]` (an integer division of DIVISIONS), D an input that is nonzero, or all
        zero (the program is then undefined: the build raises after the call), or a constant divisor
        (0 now and then); float programs get a map instead."""
        if is_float(self.dtype):
            self.t_map(last)
            return
        r = self.r
        shape = self._nd()
        src = self.source(shape)
        op = r.choice(list(DIVISIONS))
        self.tags.add(f"int-{op}")
        if r.random() < 0.25:
            divisor = const(r.choice((0, 3, 7, 100)))
            self.tags.add("div-by-constant-zero" if divisor.args[0] == 0 else "div-by-constant")
            values: Callable[[list[Val]], Val] = lambda loads: binop(op, loads[0], divisor)  # noqa: E731
            ins = [src]
        else:
            zero = r.random() < 0.25
            self.tags.add("div-by-zero" if zero else "div")
            ins = [src, self.param(shape, "in", "zero" if zero else "nonzero")]
            values = lambda loads: binop(op, loads[0], loads[1])  # noqa: E731
        self._elementwise("divide", shape, ins, self.target(shape, last), values)

    def t_gather(self, last: bool) -> None:
        """`O[i, j] = A[i floordiv 2, j] op A[(i + 1) mod n, m - 1 - j]`: reads through floordiv, mod
        and reversed indices (hunt2's `shift` stage, which met LLVM's crashes of issue 17 item 13)."""
        n, m = self.shape(2)
        src = self.source((n, m))
        out = self.target((n, m), last)
        loops, ivars, preds, covers = self.spatial((n, m), ("i", "j"), self._observable(out))
        i, j = (var(iv.name) for iv in ivars)
        value = self.combine([load(src, i.floordiv(2), j), load(src, (i + 1).mod(n), Ix("cst", (m - 1,)) - j)])
        st = Stage("gather", self._block("gather"), loops, ivars, [Store(out, (i, j), value)], predicate=preds)
        self._add(st, out, covers)

    def t_copy_t(self, last: bool) -> None:
        n = self.shape(2)[0]
        src = self.source((n, n))
        out = self.target((n, n), last)
        loops, ivars, preds, covers = self.spatial((n, n), ("i", "j"), allow_partial=False)
        i, j = (var(iv.name) for iv in ivars)
        st = Stage("copy_t", self._block("T"), loops, ivars, [Store(out, (i, j), load(src, j, i))], predicate=preds)
        self._add(st, out, covers)

    def _iv(self, k: int) -> Ix:
        return var(f"v{self.n_stage}_{k}")

    def _elementwise(self, template: str, shape: tuple[int, ...], ins: list[str], out: str,
                     value: Callable[[list[Val]], Val], styles: dict[str, float] | None = None) -> None:
        partial_ok = self._observable(out)
        loops, ivars, preds, covers = self.spatial(shape, ("i", "j", "k")[: len(shape)], partial_ok, styles)
        index = tuple(var(iv.name) for iv in ivars)
        loads = [load(b, *index) for b in ins]
        st = Stage(template, self._block(template), loops, ivars, [Store(out, index, value(loads))], predicate=preds)
        self._add(st, out, covers)

    def _observable(self, name: str) -> bool:
        """A partial write is observable (and well defined) in parameters and defined buffers."""
        return any(b.name == name for b in self.params) or name in self.full

    def t_matmul(self, last: bool) -> None:
        r = self.r
        n, k = self.shape(2)
        m = self.size()
        if self.dtype == "f16":
            k = min(k, 6)
        a = self.source((n, k))
        transposed = r.random() < 0.7
        b = self.source((m, k) if transposed else (k, m))
        out = self.target((n, m), last)
        loops, ivars, preds, covers = self.spatial((n, m), ("i", "j"), self._observable(out))
        rloops, rv, rpreds, element = self.reduce(k, "k")
        vi, vj = (var(iv.name) for iv in ivars)
        vk = element(var(rv.name))
        product = binop("mul", load(a, vi, vk), load(b, vj, vk) if transposed else load(b, vk, vj))
        acc = binop("add", load(out, vi, vj), product)
        if r.random() < 0.25:  # an init that reads another buffer (a bias folded into the init)
            bias = self.source((m,))
            init_value = load(bias, vj)
            self.tags.add("init-reads")
        else:
            init_value = const(0.0) if is_float(self.dtype) else const(0)
        st = Stage("matmul", self._block("matmul"), loops + rloops, [*ivars, rv], [Store(out, (vi, vj), acc)],
                   init=[Store(out, (vi, vj), init_value)], predicate=preds + rpreds)
        self._add(st, out, covers)

    def t_rowsum(self, last: bool) -> None:
        n, k = self.shape(2)
        src = self.source((n, k))
        out = self.target((n,), last)
        loops, ivars, preds, covers = self.spatial((n,), ("i",), self._observable(out))
        rloops, rv, rpreds, element = self.reduce(k, "k")
        vi = var(ivars[0].name)
        op = self.r.choice(("add", "add", "max"))
        acc = binop(op, load(out, vi), load(src, vi, element(var(rv.name))))
        init = const(0.0) if is_float(self.dtype) else const(0)
        st = Stage("rowsum", self._block("rowsum"), loops + rloops, [*ivars, rv], [Store(out, (vi,), acc)],
                   init=[Store(out, (vi,), init)], predicate=preds + rpreds)
        self._add(st, out, covers)

    def t_window(self, last: bool) -> None:
        n = max(self.shape(1)[0] - 2, 1)
        src = self.source((n + 2,))
        out = self.target((n,), last)
        loops, ivars, preds, covers = self.spatial((n,), ("i",), self._observable(out))
        v = var(ivars[0].name)
        value = self.combine([load(src, v), load(src, v + 1), load(src, v + 2)])
        st = Stage("window", self._block("window"), loops, ivars, [Store(out, (v,), value)], predicate=preds)
        self._add(st, out, covers)

    def t_inplace(self, last: bool) -> None:
        shape = self._nd()
        self._update(self.defined_target(shape), self.source(shape), shape)

    def t_reduce_update(self, last: bool) -> None:
        """A reduction, then an in-place update of another buffer with its result (`U = U * 0.5 + T`)."""
        self.r.choice((self.t_matmul, self.t_rowsum))(False)
        produced = next(iter(self.stages[-1].buffers_written()))
        shape = self.buffer_shape(produced)
        self.n_stage += 1
        self._update(self.param(shape, "inout"), produced, shape)

    def _update(self, u: str, t: str, shape: tuple[int, ...]) -> None:
        loops, ivars, preds, _ = self.spatial(shape, ("i", "j")[: len(shape)], True)
        index = tuple(var(iv.name) for iv in ivars)
        half = const(0.5) if is_float(self.dtype) else const(3)
        value = binop("add", binop("mul", load(u, *index), half), load(t, *index))
        st = Stage("inplace", self._block("update"), loops, ivars, [Store(u, index, value)], predicate=preds)
        self._add(st, u, True)

    def t_carried(self, last: bool) -> None:
        n = self.shape(1)[0]
        u = self.defined_target((n + 1,))
        lp = self._loop("i", n)
        vi = IterVar(f"v{self.n_stage}_0", "spatial", n, var(lp.var))
        v = var(vi.name)
        one = const(1.0) if is_float(self.dtype) else const(1)
        if self.r.random() < 0.5:  # U[N - v] = U[N - v - 1] + 1
            body = Store(u, (n - v,), binop("add", load(u, (n - 1) - v), one))
        else:  # U[v + 1] = U[v] * c + T[v]
            t = self.source((n,))
            body = Store(u, (v + 1,), binop("add", binop("mul", load(u, v), self.constant()), load(t, v)))
        self._add(Stage("carried", self._block("carried"), [lp], [vi], [body]), u, True)

    def t_guarded_pair(self, last: bool) -> None:
        """A producer running more iterations than its domain, the rest cut by `where(%l < d)`, into a
        scratch buffer, and a plain consumer of it (what reverse-compute-inline merges)."""
        shape = self._nd()
        src, mid = self.source(shape), self.scratch_buffer(shape)
        self._elementwise("guarded", shape, [src], mid, self.combine, styles={"overhang": 1.0})
        self.n_stage += 1
        out = self.target(shape, last)
        self._elementwise("map", shape, [mid], out, self.combine, styles={"identity": 1.0})

    def t_column(self, last: bool) -> None:
        """Write one column of a buffer (a new output, or one already written)."""
        r = self.r
        n, m = self.size(), self.size()
        existing = [name for name, s in self.full.items() if len(s) == 2 and self._writable(name)]
        if existing and r.random() < 0.5:
            out = r.choice(existing)
            n, m = self.buffer_shape(out)
        else:
            out = self.param((n, m), "out")
        src = self.source((n,))
        loops, ivars, preds, _ = self.spatial((n,), ("i",), True)
        v = var(ivars[0].name)
        column = r.randrange(m)
        value = self.combine([load(src, v)])
        st = Stage("column", self._block("column"), loops, ivars, [Store(out, (v, Ix("cst", (column,))), value)],
                   predicate=preds)
        self._add(st, out, False)
        if r.random() < 0.6 and m > 1:  # a second writer of another column
            self.n_stage += 1
            other = (column + r.randrange(1, m)) % m
            loops, ivars, preds, _ = self.spatial((n,), ("i",), True)
            v = var(ivars[0].name)
            st = Stage("column", self._block("column"), loops, ivars,
                       [Store(out, (v, Ix("cst", (other,))), self.combine([load(src, v)]))], predicate=preds)
            self._add(st, out, False)

    def finish(self, returns: bool) -> Function:
        if not any(b.role in ("out", "inout") for b in self.params) and self.stages:
            # make the last result observable: copy it to an output
            last = next(iter(self.stages[-1].buffers_written()))
            shape = self.buffer_shape(last)
            self.n_stage += 1
            out = self.param(shape, "out")
            self._elementwise("map", shape, [last], out, lambda loads: loads[0])
        value = None
        if returns:
            value = self.combine([self.constant(), self.constant()])
            self.tags.add("returns" if self.params else "returns-no-args")
        return Function(self.name, self.params, self.scratch, self.stages, self.dtype, value)


def _stack_function(r: random.Random, name: str) -> tuple[Function, set[str]]:
    """A chain of `count` elementwise stages through scratch buffers of up to 256 KiB each."""
    count = r.randint(16, 64)
    n = r.choice((16384, 32768, 65000, 65000))
    gen = _FunctionGen(r, FAMILIES["stack"], "f32", name, 0.0)
    src = gen.param((n,), "in")
    for k in range(count):
        gen.n_stage += 1
        out = gen.param((n,), "out") if k == count - 1 else gen.scratch_buffer((n,))
        gen._elementwise("map", (n,), [src], out, lambda loads: binop("add", binop("mul", loads[0], const(0.5)),
                                                                         const(1.0)))
        src = out
    gen.tags.add("stack")
    gen.tags.add(f"stack-bytes-{count * n * 4 // 2**20}MiB")
    return gen.finish(False), gen.tags


def _function(r: random.Random, fam: Family, name: str, returns: bool) -> tuple[Function, set[str]]:
    dtype = r.choice(fam.dtypes)
    gen = _FunctionGen(r, fam, dtype, name, fam.odd_labels)
    templates = fam.templates
    count = 0 if returns and r.random() < 0.5 else r.randint(*fam.stages)
    if r.random() < fam.odd_scratch:
        odd = r.choice(ODD_DTYPES)
        gen.scratch.append(Buffer(gen._buffer_name("X"), (gen.size(),), odd, "scratch"))
        gen.tags.add(f"odd-scratch-{odd}")
    if r.random() < fam.big:
        gen.n_stage += 1
        n = 70000
        gen._elementwise("map", (n,), [gen.param((n,), "in")], gen.scratch_buffer((n,)), gen.combine)
        gen.tags.add("heap-scratch")
    for k in range(count):
        template = r.choices(list(templates), weights=list(templates.values()))[0]
        gen.stage(template, last=k == count - 1)
    f = gen.finish(returns)
    gen.tags.add(f"dtype-{dtype}")
    return f, gen.tags


def _function_name(r: random.Random, fam: Family, k: int) -> str:
    if r.random() < fam.odd_functions:
        return r.choice(RUNTIME_NAMES + NON_ASCII_NAMES + ODD_CHARACTER_NAMES)
    return "main" if k == 0 else f"f{k}"


def _generate_once(family: str, r: random.Random) -> tuple[list[Function], int, set[str]]:
    fam = FAMILIES[family]
    if fam.stack:
        f, tags = _stack_function(r, "main")
        return [f], 0, tags
    count = r.randint(*fam.functions)
    names: list[str] = []
    for k in range(count):
        name = _function_name(r, fam, k)
        while name in names:
            name += "_"
        names.append(name)
    entry = r.randrange(count)
    functions, tags = [], set()
    for k, name in enumerate(names):
        f, t = _function(r, fam, name, returns=k == entry and r.random() < fam.returns)
        functions.append(f)
        if k == entry:
            tags |= t
        if name in RUNTIME_NAMES:  # a name anywhere in the module can collide
            tags.add("runtime-name")
        if any(ord(c) > 127 for c in name):
            tags.add("non-ascii-name")
    if count > 1:
        tags.add("functions")
    return functions, entry, tags


@functools.cache
def generate(name: str) -> Generated:
    """The program `gen.<family>.<seed>`, the same for the same name."""
    _, family, seed = name.split(".")
    r = random.Random(f"{family}:{seed}")
    for _attempt in range(50):
        functions, entry, tags = _generate_once(family, r)
        undefined_read = False
        for f in functions:
            try:
                run_reference(f, [argument_data(b, np.random.default_rng(0)) for b in f.params], track=True)
            except UndefinedRead:
                undefined_read = True
            except Undefined:
                pass
        if not undefined_read:
            break
    else:
        raise AssertionError(f"{name}: every attempt read undefined scratch memory")
    text = module_text(functions, f"{name}: generated by tests/fuzz/gen_programs.py")
    return Generated(name, functions, functions[entry], frozenset(tags), text)


def program_names(family: str, seeds: Sequence[int] | range) -> list[str]:
    return [f"gen.{family}.{s}" for s in seeds]
