"""Differential schedule fuzzing: random schedules through `xtir.Schedule`, checked numerically.

A fuzz case is a program (matmul, matmul + bias, conv2d + bias/ReLU, the window sum and
the tiled matmul of nested blocks, all small) and a seed. The seed drives a sequence of
primitives (split with dividing and non-dividing factors, reorder, fuse, blockize,
cache_read, cache_write, compute_at, reverse_compute_at, decompose_reduction, parallel,
vectorize, unroll, compute_inline, reverse_compute_inline, tensorize with the built-in
intrinsics, ...) whose arguments are chosen from the schedule's current state: blocks from
the module, loops with `get_loops`, targets of compute_at from `get_consumers` /
`get_producers`, cache indices from the block's read and write regions; now and then a
stale handle (a loop or block that no longer exists), an invalid factor or a wrong handle
type, which must be refused. Now and then a step is a sampling instruction (sample_perfect_tile,
sample_categorical, sample_compute_location; sometimes with TVM's `decision=`, now and then an
invalid one) followed by the split or compute-at that uses what it returned, and cache_write gets
`consumer_blocks`. These later dimensions draw from a stream of their own (`Generator.later`).

Checks, each a bug when it fails (FAILURE_KINDS):
- a primitive either succeeds or raises `xtir.XtirPassError` with a message; any other
  exception is a crash;
- a refused primitive leaves `sch.mod` and `sch.trace` unchanged;
- `xtir.transform(original, sch.trace)` replays to the same IR as `sch.mod`, and the
  printed `sch.mod` parses back to the same IR;
- the sampled decisions, given back (`Schedule(decisions=...)`) or as `decision=` on each
  sampling call, give the same decisions, trace and IR (decision_replay_error);
- `xtir.build` succeeds or raises `XtirError` (a refusal by the CPU backend, e.g. a race
  on a scratch buffer under a parallel loop, is counted, not a bug; "LLVM rejected the
  generated IR" is a bug); the compiled function's outputs (NaN-filled before the call,
  so unwritten elements show) match numpy; for the small programs the reference evaluator
  on the scheduled IR is checked too (so a mismatch tells a pass bug from a codegen bug).

Guard, so that one case cannot take minutes: schedules of more than JIT_ITERATION_LIMIT
loop iterations (huge split factors) are built but not run.

Every failure keeps the calls that led to it: `minimize` drops calls while the failure
persists, `classify` matches the minimized failure against KNOWN_BUGS, and
`Failure.reproducer()` prints a self-contained Python reproducer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import random
import re
import signal
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from math import isqrt
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import xtir
from tests.fuzz import gen_programs
from tests.fuzz.oracles import GuardedArguments, compare, evaluate_reordered, has_parallel_loops, marked_loops_independent
from xtir import BlockRV, LoopRV, Schedule, XtirError, XtirPassError
from xtir.dialects.block import REDUCE, BlockOp, ForOp, buffer_name
from xtir.passes.analysis.navigation import all_blocks, all_loops
from xtir.passes.analysis.regions import read_regions, write_regions
from xtir.tune.sampling import loads

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"

# Programs -----------------------------------------------------------------------------------


def scaled_text(path: Path, sizes: dict[int, int]) -> str:
    """The file's text with whole integer tokens replaced (`1024 -> 16`), as benchmarks/matmul.py does."""
    text = path.read_text()
    if not sizes:
        return text
    pattern = re.compile(r"(?<!\d)(" + "|".join(str(k) for k in sorted(sizes, reverse=True)) + r")(?!\d)")
    return pattern.sub(lambda m: str(sizes[int(m.group(1))]), text)


@dataclass(frozen=True)
class Program:
    """A fuzz target: IR text, the shapes of its arguments, which are outputs, and numpy's answer.

    Generated programs (tests/fuzz/gen_programs.py) also say the element types, the function
    to schedule and call, which outputs hold data before the call, whether the template's
    semantics are defined (an undefined program must be refused or stay memory-safe), what
    the function returns, and what they contain (`tags`, for classifying failures)."""

    name: str
    text: str
    shapes: tuple[tuple[int, ...], ...]
    outputs: tuple[int, ...]
    reference: Callable[[list[np.ndarray]], list[np.ndarray]]
    cheap: bool = False  # small enough for the reference evaluator on every case
    entry: str | None = None  # the function scheduled, built and called (None: main)
    make_arguments: Callable[[np.random.Generator], list[np.ndarray]] | None = None
    defined: bool = True
    runnable: bool = True  # False: bf16 or a parameter layout, which the call refuses: built, never called
    returns: tuple[Any, ...] = ()  # the values the entry returns
    tags: frozenset[str] = frozenset()
    tolerance: tuple[float, float] = (1e-4, 1e-3)

    @functools.cached_property
    def module(self) -> ModuleOp:
        return xtir.parse(self.text, f"<fuzz program {self.name}>")

    @property
    def family(self) -> str:
        return self.name.split(".")[1] if self.name.startswith("gen.") else "fixed"

    def arguments(self, rng: np.random.Generator) -> GuardedArguments:
        """Inputs drawn from N(0, 1); outputs filled with NaN, so an element never written shows;
        each array in the middle of a buffer with guard zones (oracles.GuardedArguments)."""
        if self.make_arguments is not None:
            return GuardedArguments(self.make_arguments(rng))
        arrays = []
        for k, shape in enumerate(self.shapes):
            if k in self.outputs:
                arrays.append(np.full(shape, np.nan, dtype=np.float32))
            else:
                arrays.append(rng.standard_normal(shape, dtype=np.float32))
        return GuardedArguments(arrays)

    def expected(self, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        return self.reference(list(arrays))


def matmul(n: int) -> Program:
    return Program(
        f"matmul{n}",
        scaled_text(EXAMPLES / "matmul.mlir", {1024: n}),
        ((n, n),) * 3,
        (2,),
        lambda a: [a[0] @ a[1].T],
        cheap=n <= 8,
    )


def matmul_bias(n: int) -> Program:
    return Program(
        f"matmul_bias{n}",
        scaled_text(EXAMPLES / "matmul_bias.mlir", {1024: n}),
        ((n, n),) * 4,
        (3,),
        lambda a: [a[0] @ a[1].T + a[2]],
        cheap=n <= 8,
    )


def window_sum(n: int) -> Program:
    return Program(
        f"window_sum{n}",
        scaled_text(EXAMPLES / "window_sum.mlir", {1024: n, 1026: n + 2}),
        ((n + 2,), (n,)),
        (1,),
        lambda a: [a[0][:-2] + a[0][1:-1] + a[0][2:]],
        cheap=True,
    )


def matmul_block(tiles: int) -> Program:
    """examples/matmul_block.mlir (16x16 tiles, as nested blocks) with `tiles` tiles per dimension."""
    n = 16 * tiles
    return Program(
        f"matmul_block{n}",
        scaled_text(EXAMPLES / "matmul_block.mlir", {1024: n, 64: tiles}),
        ((n, n),) * 3,
        (2,),
        lambda a: [a[0] @ a[1].T],
    )


def conv2d_reference(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    inp, w, bias = arrays[0], arrays[1], arrays[2]
    f, _, kr, ks = w.shape
    oh, ow = inp.shape[2] - kr + 1, inp.shape[3] - ks + 1
    out = np.zeros((inp.shape[0], f, oh, ow), dtype=np.float64)
    for r in range(kr):
        for s in range(ks):
            out += np.einsum("ncyx,fc->nfyx", inp[:, :, r : r + oh, s : s + ow].astype(np.float64), w[:, :, r, s])
    return [np.maximum(out + bias[None, :, None, None], 0).astype(np.float32)]


def conv2d() -> Program:
    return Program(
        "conv2d",
        (PROGRAMS_DIR / "conv2d.mlir").read_text(),
        ((2, 3, 6, 6), (4, 3, 3, 3), (4,), (2, 4, 4, 4)),
        (3,),
        conv2d_reference,
    )


@functools.cache
def programs() -> dict[str, Program]:
    progs = [matmul(8), matmul(16), matmul(24), matmul(30), matmul_bias(8), matmul_bias(12), matmul_bias(20),
             window_sum(10), window_sum(16), window_sum(33), conv2d(), matmul_block(2)]
    return {p.name: p for p in progs}


EVALUATOR_PROGRAM_LIMIT = 20_000  # loop-body executions of a generated program run by the evaluator


@functools.cache
def generated(name: str) -> Program:
    """The generated program `gen.<family>.<seed>` as a fuzz target (its reference: the template's)."""
    g = gen_programs.generate(name)
    params = g.entry.params
    outputs = tuple(k for k, b in enumerate(params) if b.role in ("out", "inout"))

    def reference(arrays: list[np.ndarray]) -> list[np.ndarray]:
        after, _ = g.expected(arrays)
        return [after[k] for k in outputs]

    dtypes = {b.dtype for b in params} | {g.entry.dtype}
    half = "f16" in dtypes
    returns = ()
    if g.entry.returns is not None:
        returns = (g.expected(g.arguments(np.random.default_rng(0)))[1],)
    work = sum(math.prod(lp.extent for lp in st.loops) for st in g.entry.stages)
    return Program(
        name,
        g.text,
        tuple(b.shape for b in params),
        outputs,
        reference,
        cheap=work <= EVALUATOR_PROGRAM_LIMIT,
        entry=g.entry.name,
        make_arguments=g.arguments,
        defined=g.defined,
        # bf16, f80, ... have no numpy dtype; parameters with their own layout are refused by build and evaluate alike
        runnable=dtypes <= set(gen_programs.DTYPES) and "layout" not in g.tags,
        returns=returns,
        tags=g.tags,
        tolerance=(2e-2, 1e-1) if half else (1e-4, 1e-3),
    )


def find_program(name: str) -> Program:
    """A fixed program by name, or a generated one (`gen.<family>.<seed>`)."""
    return generated(name) if name.startswith("gen.") else programs()[name]


# Calls: one primitive with literal handles (replayable, printable) ----------------------------

PRIMITIVES: dict[str, float] = {
    "split": 4.0,
    "reorder": 3.0,
    "fuse": 2.0,
    "blockize": 1.0,
    "cache_read": 2.0,
    "cache_write": 1.5,
    "compute_at": 2.5,
    "reverse_compute_at": 2.5,
    "decompose_reduction": 1.5,
    "parallel": 1.5,
    "vectorize": 1.0,
    "unroll": 1.0,
    "compute_inline": 0.5,
    "reverse_compute_inline": 0.5,
    "bind": 1.0,
    "fuse_reduction_epilogue": 0.7,
    "storage_align": 0.6,
    "transform_layout": 0.6,
    "double_buffer": 0.3,
    "pad_einsum": 2.0,
    "set_scope": 0.6,
    "tensorize": 0.5,
}
SAMPLE_PROB = 0.07
"""How often a step is a sampling instruction (sample_perfect_tile, ...) and the primitive using it."""
THREAD_AXES = ("blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y", "vthread.x")
SCOPES = ("global", "local", "shared", "global.A_reg", "global.B_reg", "global.accumulator")


def _literal(value: Any) -> str:
    if isinstance(value, LoopRV):
        return f"LoopRV({value.name!r}, {value.block!r})" if value.block is not None else f"LoopRV({value.name!r})"
    if isinstance(value, BlockRV):
        return f"BlockRV({value.name!r})"
    if isinstance(value, list | tuple):
        inner = ", ".join(_literal(v) for v in value)
        return f"[{inner}]"
    return repr(value)


def _by_name(value: Any) -> Any:
    if isinstance(value, LoopRV | BlockRV):
        return dataclasses.replace(value, id=None)
    if isinstance(value, list | tuple):
        return type(value)(_by_name(v) for v in value)
    return value


@dataclass(frozen=True)
class Call:
    method: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()

    def apply(self, sch: Schedule, by_name: bool = False) -> Any:
        """Apply to `sch`; `by_name`: with the handles as the reproducer writes them, by name (a
        handle's id is its schedule's: in a fresh schedule it may denote another loop or block)."""
        args, kwargs = self.args, dict(self.kwargs)
        if by_name:
            args, kwargs = _by_name(args), {k: _by_name(v) for k, v in kwargs.items()}
        return getattr(sch, self.method)(*args, **kwargs)

    def source(self) -> str:
        parts = [_literal(a) for a in self.args] + [f"{k}={_literal(v)}" for k, v in self.kwargs]
        return f"sch.{self.method}({', '.join(parts)})"

    def literal(self) -> str:
        """The Call itself as Python."""
        kwargs = ", ".join(f"({k!r}, {_literal(v)})" for k, v in self.kwargs)
        return f"Call({self.method!r}, ({''.join(_literal(a) + ', ' for a in self.args)}), ({kwargs}{',' if kwargs else ''}))"


def _handles(result: Any) -> Iterator[LoopRV | BlockRV]:
    if isinstance(result, LoopRV | BlockRV):
        yield result
    elif isinstance(result, list | tuple):
        for r in result:
            yield from _handles(r)


# Failures -----------------------------------------------------------------------------------

FAILURE_KINDS = (
    "crash-parse",  # parsing the (generated) program raised something other than XtirError
    "crash-query",  # get_block / get_loops / ... raised something other than XtirError
    "crash-primitive",  # a primitive raised something other than XtirError
    "refusal-changed-state",  # a refused primitive changed sch.mod or sch.trace
    "refusal-not-diagnosed",  # a primitive was refused with an XtirError that is no XtirPassError, or no message
    "trace-replay",  # xtir.transform(original, sch.trace) fails or differs from sch.mod
    "trace-replay-names",  # ... is the same IR as sch.mod but prints other SSA value names
    "decision-replay",  # the sampled decisions, replayed (decisions= or decision=), give another schedule
    "print-roundtrip",  # str(sch.mod) does not parse back to the same IR
    "name-growth",  # a loop or block name grew past NAME_LIMIT characters
    "build-invalid-llvm",  # xtir.build refused the schedule because LLVM rejected, crashed on or broke the IR it generated
    "crash-build",  # xtir.build raised something other than XtirError
    "crash-run",  # calling the compiled function raised something other than XtirError
    "crash-eval",  # the reference evaluator raised something other than XtirError
    "crash-process",  # the process died (a signal: LLVM assertion, SIGSEGV, heap corruption found by free)
    "memory-unsafe",  # the compiled function wrote outside its arguments (a guard zone changed)
    "mismatch-jit",  # the compiled function's outputs differ from numpy (or a returned value was dropped)
    "mismatch-eval",  # the reference evaluator on the scheduled IR differs from numpy (or refused it)
    "race",  # results change when parallel / vectorized loops run in another order
    "hang",  # a case ran past its time limit
)

NOT_MINIMIZED_HERE = ("hang", "crash-parse", "crash-process")  # the last one by tests/fuzz/isolation.py

FAILING_LAST = ("crash-primitive", "refusal-changed-state", "refusal-not-diagnosed")


@dataclass
class Failure:
    kind: str
    program: str
    seed: int
    calls: list[Call]  # accepted calls; for the kinds in FAILING_LAST the failing call last
    trace: str  # the pipeline of the accepted calls
    message: str
    known: str | None = None  # the id of a known bug it matches
    minimized: Failure | None = None  # the same failure with fewer calls (see classify)
    mode: str = "schedule"  # or "threads" (tests/fuzz/isolation.py: concurrent builds and calls)

    def reproducer(self) -> str:
        if self.mode == "threads":
            return THREADS_REPRODUCER.format(program=self.program)
        prog = find_program(self.program)
        entry = f", func_name={prog.entry!r}" if prog.entry else ""
        lines = [
            "import numpy as np, xtir",
            "from xtir import BlockRV, LoopRV",
            "from tests.fuzz.schedules import find_program",
            f"prog = find_program({self.program!r})",
            f"sch = xtir.Schedule(prog.module{entry})",
            *(c.source() for c in self.calls),
        ]
        rtol, atol = prog.tolerance
        check = [
            "assert not args.violations(), args.violations()",
            "for k, want in zip(prog.outputs, expected):",
            f"    np.testing.assert_allclose(args[k], want, rtol={rtol}, atol={atol})",
        ]
        if self.kind in ("mismatch-jit", "crash-build", "crash-run", "build-invalid-llvm", "memory-unsafe",
                         "crash-process"):
            build_entry = f", entry={prog.entry!r}" if prog.entry else ""
            lines += [
                "args = prog.arguments(np.random.default_rng(0))",
                "expected = prog.expected(args)" if prog.defined else "expected = []  # undefined: memory safety only",
                f"xtir.build(sch.mod{build_entry})(*args)",
                *check,
            ]
        elif self.kind in ("mismatch-eval", "crash-eval", "race"):
            evaluate = "evaluate_reordered(sch.mod, args" if self.kind == "race" else "xtir.evaluate(sch.mod, *args"
            if self.kind == "race":
                lines.append("from tests.fuzz.oracles import evaluate_reordered")
            lines += [
                "args = prog.arguments(np.random.default_rng(0))",
                "expected = prog.expected(args)",
                f"{evaluate}, func={(prog.entry or 'main')!r})",
                *check[1:],
            ]
        elif self.kind == "decision-replay":
            calls = ", ".join(c.literal() for c in self.calls)
            lines += ["from tests.fuzz.schedules import Call, decision_replay_error",
                      f"print(decision_replay_error(prog, [{calls}]))"]
        elif self.kind == "print-roundtrip":
            lines.append("assert str(xtir.parse(str(sch.mod))) == str(sch.mod)")
        elif self.kind in ("trace-replay", "trace-replay-names"):
            lines.append("assert str(xtir.transform(prog.module, sch.trace)) == str(sch.mod)")
        elif self.kind == "crash-parse":
            lines[4:] = ["xtir.parse(prog.text)"]
        elif self.kind == "name-growth":
            lines.append("print(max(len(n) for n in re.findall(r'\"[^\"]*\"', str(sch.mod))))")
        return "\n".join(lines)

    def pipeline(self) -> str:
        """The accepted calls as an `xtir-opt -p` pipeline."""
        return self.trace

    def summary(self) -> str:
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        tag = f" [known: {self.known}]" if self.known else ""
        return f"{self.kind} on {self.program} (seed {self.seed}){tag}: {first[:300]}"


THREADS_REPRODUCER = """import numpy as np, xtir
from concurrent.futures import ThreadPoolExecutor
from tests.fuzz.schedules import find_program
prog = find_program({program!r})
with ThreadPoolExecutor(4) as pool:  # in a child process: it may abort
    compiled = list(pool.map(lambda _: xtir.build(prog.module, entry=prog.entry), range(4)))
del compiled
xtir.build(find_program('gen.pipeline.1').module)  # an unrelated build afterwards"""


# Known bugs: a failure matching one is counted as known, not new (see test_fuzz_quick.py) --------

KnownBug = tuple[str, Callable[[Failure], bool]]


# Open bugs, each with a strict xfail reproducer in test_known_bugs.py (it turns XPASS, a test
# failure, when the bug is fixed: then drop the mark and the entry), as (id, matcher of a Failure).
# Ids `17.N` are the items of issue 17; `new:...` are classes these fuzzers found that the issue does
# not list. Judged on the minimized failure, first match wins. None is open.
KNOWN_BUGS: list[KnownBug] = []


def classify(failure: Failure, minimized: bool = True) -> Failure:
    """Mark the failure with the known bug it is, judged on its minimized calls (`minimized=False`:
    on its calls as they are). The minimized failure is kept as `failure.minimized`."""
    subject = failure
    if minimized and failure.kind not in NOT_MINIMIZED_HERE:
        try:
            subject = failure.minimized = minimize(failure)
        except Exception:  # the failure did not replay: judge it as it is
            subject = failure
    for bug_id, matches in KNOWN_BUGS:
        with contextlib.suppress(Exception):
            if matches(subject):
                failure.known = bug_id
                break
    return failure


# Statistics ----------------------------------------------------------------------------------


@dataclass
class Stats:
    schedules: int = 0
    steps: int = 0
    accepted: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)
    reject_reasons: Counter = field(default_factory=Counter)
    query_rejected: int = 0
    programs: Counter = field(default_factory=Counter)  # cases per program family
    templates: Counter = field(default_factory=Counter)  # generated programs per template / binding / option
    parse_rejected: Counter = field(default_factory=Counter)  # generated programs xtir.parse refused, per family
    undefined: int = 0  # cases of programs whose template semantics are undefined
    built: int = 0
    build_rejected: int = 0
    not_run: int = 0
    slow_cases: list[tuple[float, str, int, str]] = field(default_factory=list)
    build_reasons: Counter = field(default_factory=Counter)
    call_rejected: Counter = field(default_factory=Counter)  # calls refused with an XtirError, by reason
    memory_checked: int = 0  # calls whose guard zones were checked
    compared: int = 0
    evaluated: int = 0
    eval_rejected: int = 0  # evaluator refusals (XtirError) of undefined programs
    race_checked: int = 0  # evaluations with parallel / vectorized loops reversed
    thread_rounds: int = 0  # threads mode: rounds of concurrent builds and calls
    thread_calls: int = 0  # threads mode: calls of built functions made while other threads built or called
    variants: Counter = field(default_factory=Counter)  # accepted calls with consumer_blocks, decision=, ...
    decisions_replayed: int = 0  # cases whose sampled decisions were replayed (decision_replay_error)
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, kind: str) -> int:
        return sum(1 for f in self.failures if f.kind == kind)

    @property
    def new_failures(self) -> list[Failure]:
        return [f for f in self.failures if f.known is None]

    def merge(self, other: Stats) -> None:
        for f in dataclasses.fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def report(self, top: int = 12) -> str:
        lines = [
            f"schedules tried: {self.schedules}   primitive calls: {self.steps}   "
            f"accepted: {sum(self.accepted.values())}   rejected (XtirError): {sum(self.rejected.values())}   "
            f"queries refused: {self.query_rejected}",
            f"built: {self.built}   build refused (XtirError): {self.build_rejected}   "
            f"not run (> {JIT_ITERATION_LIMIT} iterations): {self.not_run}   "
            f"calls refused (XtirError): {sum(self.call_rejected.values())}   "
            f"guard zones checked: {self.memory_checked}",
            f"compared with numpy: {self.compared}   also through the reference evaluator: {self.evaluated}   "
            f"with parallel loops reversed: {self.race_checked}   evaluator refusals of undefined programs: "
            f"{self.eval_rejected}   thread rounds: {self.thread_rounds} ({self.thread_calls} calls)",
        ]
        if self.programs:
            lines.append("cases per program family (xtir.parse refusals in brackets): " + ", ".join(
                f"{fam} {n} [{self.parse_rejected[fam]}]" for fam, n in sorted(self.programs.items())))
            lines.append(f"cases of undefined programs (must be refused or stay memory-safe): {self.undefined}")
        if self.templates:
            lines.append("generated programs containing (templates t-, bindings bind- / reduce-, options):")
            items = sorted(self.templates.items())
            for k in range(0, len(items), 6):
                lines.append("  " + "   ".join(f"{t} {n}" for t, n in items[k : k + 6]))
        if self.variants or self.decisions_replayed:
            lines.append("accepted with: " + ", ".join(f"{k} {n}" for k, n in sorted(self.variants.items()))
                         + f"   cases whose sampled decisions were replayed: {self.decisions_replayed}")
        lines.append("per primitive (accepted / rejected):")
        for prim in sorted(set(self.accepted) | set(self.rejected)):
            lines.append(f"  {prim:24s} {self.accepted[prim]:6d} / {self.rejected[prim]:6d}")
        if known := Counter(f.known for f in self.failures if f.known):
            lines.append("known bugs seen: " + ", ".join(f"{k} x{n}" for k, n in sorted(known.items())))
        lines.append("failures by kind (must all be 0; known bugs in brackets):")
        for kind in FAILURE_KINDS:
            fs = [f for f in self.failures if f.kind == kind]
            known = sum(1 for f in fs if f.known)
            lines.append(f"  {kind:24s} {len(fs) - known:6d}   [{known} known]")
        for title, counter in (("top rejection reasons", self.reject_reasons), ("build refusals", self.build_reasons),
                               ("call refusals", self.call_rejected)):
            if counter:
                lines.append(f"{title} (of {len(counter)} kinds):")
                for why, n in counter.most_common(top):
                    lines.append(f"  {n:6d}  {why}")
        for seconds, program, seed, trace in sorted(self.slow_cases, reverse=True)[:5]:
            lines.append(f"slow case: {seconds:.1f} s {program} seed {seed}: {trace}")
        lines.append(f"time: {self.seconds:.1f} s")
        return "\n".join(lines)


_HEADLINE = re.compile(r"An error occurred in the schedule primitive '[^']*'\.$")
_LOCATION = re.compile(r"^(?:[^\n]*?:\d+:\d+: )?error: ")


def reason(error: BaseException) -> str:
    """A diagnostic's first line without location and names, to group rejections."""
    lines = [line for line in str(error).strip().splitlines() if not _HEADLINE.match(line)]
    text = lines[0] if lines else type(error).__name__
    text = _LOCATION.sub("", text)
    text = re.sub(r'"[^"]*"', '"_"', text)
    text = re.sub(r"\d+", "N", text)
    return text[:140]


# The generator --------------------------------------------------------------------------------


class CaseTimeout(BaseException):
    """A case ran past its time; a BaseException, so that `except Exception` in the code
    under test (xtir-opt's main) does not swallow it."""


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise CaseTimeout in Python code running past `seconds` (main thread, POSIX; else no limit)."""
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return
    try:
        old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(CaseTimeout()))
    except ValueError:  # not the main thread
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _divisors(n: int) -> list[int]:
    """The divisors of n, ascending; in O(sqrt n) (extents reach 2^33: trial division up to n hung)."""
    small = [d for d in range(1, isqrt(n) + 1) if n % d == 0]
    return small + [n // d for d in reversed(small) if d * d != n]


def _blocks(sch: Schedule) -> list[BlockOp]:
    """The blocks of the scheduled function (a graph model's module has one function per operation,
    whose block and loop names repeat)."""
    function = next(f for f in sch.mod.body.block.ops if isinstance(f, func.FuncOp) and f.sym_name.data == sch.func_name)
    return list(all_blocks(function))


def _block_names(sch: Schedule) -> list[str]:
    return [b.label for b in _blocks(sch)]


def _block_op(sch: Schedule, name: str) -> BlockOp:
    return next(b for b in _blocks(sch) if b.label == name)


class Generator:
    """Chooses the next primitive call from the schedule's current state."""

    def __init__(self, r: random.Random, stale_prob: float = 0.06, misuse_prob: float = 0.02,
                 boost: dict[str, float] | None = None, later: random.Random | None = None,
                 sample_prob: float = SAMPLE_PROB):
        self.r = r
        # the dimensions added after r's: drawn from their own stream, so that r draws what it drew
        # before for a seed until one of them is taken
        self.later = later or random.Random(0)
        self.sample_prob = sample_prob
        self.weights = {p: w * (boost or {}).get(p, 1.0) for p, w in PRIMITIVES.items()}
        self.stale_prob = stale_prob
        self.misuse_prob = misuse_prob
        self.pool: list[LoopRV | BlockRV] = []  # every handle seen so far (some now stale)
        self.pending: list[Callable[[Schedule], Call | None]] = []  # follow-ups of accepted calls
        self.rounds = 0  # split-and-fuse rounds still planned
        self.categorical_loop: LoopRV | None = None  # the loop a sample_categorical's factor splits

    def _remember(self, handles: Sequence[LoopRV | BlockRV]) -> None:
        self.pool.extend(handles)
        del self.pool[:-200]

    def _stale(self, kind: type) -> Any | None:
        candidates = [h for h in self.pool if isinstance(h, kind)]
        if candidates and self.r.random() < self.stale_prob:
            return self.r.choice(candidates)
        return None

    def block(self, sch: Schedule, names: list[str] | None = None) -> BlockRV:
        if (stale := self._stale(BlockRV)) is not None:
            return stale
        rv = sch.get_block(self.r.choice(names or _block_names(sch)))
        if names is None and self.r.random() < 0.15:  # sometimes a child of a loop or block of it
            loops = sch.get_loops(rv)
            parent: BlockRV | LoopRV = self.r.choice(loops) if loops and self.r.random() < 0.7 else rv
            children = sch.get_child_blocks(parent)
            self._remember(children)
            if children:
                rv = self.r.choice(children)
        self._remember([rv])
        return rv

    def loops_of(self, sch: Schedule, block: BlockRV) -> list[LoopRV]:
        loops = sch.get_loops(block)
        self._remember(loops)
        return loops

    def loop(self, sch: Schedule, block: BlockRV | None = None) -> LoopRV | None:
        if (stale := self._stale(LoopRV)) is not None:
            return stale
        loops = self.loops_of(sch, block or self.block(sch))
        return self.r.choice(loops) if loops else None

    def factors(self, extent: int) -> list[int | None]:
        r = self.r
        parts = r.choice((2, 2, 2, 3))
        candidates = sorted({1, 2, 3, 4, 5, 7, 8, 16, extent, extent + 1, *_divisors(extent)})
        fs: list[int | None] = [r.choice(candidates) for _ in range(parts)]
        mode = r.random()
        if mode < 0.8:
            fs[r.randrange(parts)] = None
        elif mode < 0.9:
            pass  # all explicit: refused when the product is below the extent, else a predicate
        else:  # invalid on purpose: must be refused
            bad = r.choice(("zero", "negative", "two_none", "one_factor", "huge", "bool"))
            if bad == "huge":
                fs[r.randrange(parts)] = r.choice((2**31, 2**63, 2**64, 10**20))
            elif bad == "bool":
                fs[r.randrange(parts)] = r.choice((True, False))
            elif bad == "zero":
                fs[r.randrange(parts)] = 0
            elif bad == "negative":
                fs[r.randrange(parts)] = -r.choice((2, 3))
            elif bad == "two_none":
                fs[0] = fs[1] = None
            else:
                fs = [None]
        return fs

    def misuse(self, sch: Schedule) -> Call:
        """A call with a wrong argument type or value: must raise XtirError."""
        r = self.r
        block = self.block(sch)
        choice = r.randrange(6)
        if choice == 0:
            return Call("split", (block, [None, 2]))
        if choice == 1:
            return Call("compute_at", (LoopRV("no_such_loop"), LoopRV("no_such_loop")))
        if choice == 2:
            return Call("split", (LoopRV("no_such_loop"), [None, 2.5]))
        if choice == 3:
            return Call("cache_read", (block, r.choice((-1, 99)), "global"))
        if choice == 4:
            return Call("fuse", ())
        return Call("reorder", (LoopRV(""),))

    def next_call(self, sch: Schedule) -> Call | None:
        r = self.r
        if self.pending:
            return self.pending.pop(0)(sch)
        names = _block_names(sch)
        if not names:
            return None
        if r.random() < self.misuse_prob:
            return self.misuse(sch)
        if self.later.random() < self.sample_prob:
            return self._sample_call(sch)
        prim = r.choices(list(self.weights), weights=list(self.weights.values()))[0]
        if prim == "split":
            block = self.block(sch)
            loops = self.loops_of(sch, block)
            if not loops:
                return None
            loop = self._stale(LoopRV) or r.choice(loops)
            extent = self._extent(sch, loop)
            return Call("split", (loop,), (("factors", self.factors(extent)),))
        if prim in ("reorder", "fuse"):
            block = self.block(sch)
            loops = self.loops_of(sch, block)
            if len(loops) < 2:
                return None
            if prim == "reorder":
                chosen = r.sample(loops, r.randint(2, len(loops)))
            elif r.random() < 0.85:
                start = r.randrange(len(loops) - 1)
                chosen = loops[start : start + r.choice((2, 2, 3))]
            else:
                chosen = r.sample(loops, 2)  # maybe not consecutive, maybe out of order
            if r.random() < 0.08:
                other = self.loop(sch)
                if other is not None:
                    chosen.insert(r.randrange(len(chosen) + 1), other)
            return Call(prim, tuple(chosen))
        if prim in ("blockize", "parallel", "vectorize", "unroll"):
            loop = self.loop(sch)
            return Call(prim, (loop,)) if loop is not None else None
        if prim in ("cache_read", "cache_write"):
            for_consumers = prim == "cache_write" and self.later.random() < 0.35
            block = self._producer(sch, names) if for_consumers else self.block(sch)
            op = _block_op(sch, block.name) if block.name in names else None
            n = len(read_regions(op) if prim == "cache_read" else write_regions(op)) if op is not None else 1
            index = r.randrange(n) if n and r.random() < 0.93 else r.choice((n, -1))
            scope = r.choice(SCOPES)
            if prim == "cache_read":
                if r.random() < 0.15:
                    consumers = r.sample(names, r.randint(1, min(2, len(names))))
                    return Call(prim, (block, index, scope), (("consumer_blocks", [BlockRV(c) for c in consumers]),))
                return Call(prim, (block, index, scope))
            if for_consumers:
                return Call(prim, (block, index, scope), (("consumer_blocks", self._cache_write_consumers(sch, block)),))
            return Call(prim, (block, index, scope))
        if prim in ("compute_at", "reverse_compute_at"):
            related_of = sch.get_consumers if prim == "compute_at" else sch.get_producers
            if r.random() < 0.8:  # mostly a block that has consumers (producers) to compute at
                with contextlib.suppress(XtirError):
                    names = [n for n in names if related_of(sch.get_block(n))] or names
            block = self.block(sch, names)
            loop: LoopRV | None = None
            if r.random() < 0.8 and block.name in names:
                related = sch.get_consumers(block) if prim == "compute_at" else sch.get_producers(block)
                self._remember(related)
                if related:
                    own = set(self.loops_of(sch, block))
                    loops = [lp for lp in self.loops_of(sch, r.choice(related)) if lp not in own]
                    loop = r.choice(loops) if loops else None
            if loop is None:
                loop = self.loop(sch)
            if loop is None:
                return None
            kwargs = (("preserve_unit_loops", True),) if r.random() < 0.3 else ()
            return Call(prim, (block, loop), kwargs)
        if prim == "decompose_reduction":
            reductions = [b.label for b in _blocks(sch) if REDUCE in b.kinds or b.init is not None]
            block = self.block(sch, reductions if reductions and r.random() < 0.9 else names)
            loop = self.loop(sch, block) if block.name in names else self.loop(sch)
            return Call(prim, (block, loop)) if loop is not None else None
        if prim in ("compute_inline", "reverse_compute_inline"):
            related_of = sch.get_consumers if prim == "compute_inline" else sch.get_producers
            if r.random() < 0.8:  # mostly a block with a consumer (producer) to inline into
                with contextlib.suppress(XtirError):
                    names = [n for n in names if related_of(sch.get_block(n))] or names
            return Call(prim, (self.block(sch, names),))
        if prim == "bind":
            loop = self.loop(sch)
            return Call(prim, (loop, r.choice(THREAD_AXES))) if loop is not None else None
        if prim == "fuse_reduction_epilogue":
            reductions = [b.label for b in _blocks(sch) if b.init is not None]
            block = self.block(sch, reductions if reductions and r.random() < 0.9 else names)
            consumers = sch.get_consumers(block) if block.name in names else []
            epilogue = r.choice(consumers) if consumers and r.random() < 0.9 else self.block(sch)
            return Call(prim, (block, epilogue))
        if prim in ("storage_align", "transform_layout", "double_buffer"):
            return self._layout_call(sch, prim, names)
        if prim == "pad_einsum":
            return self._pad_call(sch, names)
        if prim == "tensorize":
            return self._tensorize_call(sch, names)
        if prim == "set_scope":
            block = self.block(sch)
            return Call(prim, (block, 0 if r.random() < 0.95 else 1, r.choice(SCOPES)))
        raise AssertionError(prim)

    def _producer(self, sch: Schedule, names: list[str]) -> BlockRV:
        """Mostly a block with consumers (to cache_write for them), else any."""
        producers = names
        if self.later.random() < 0.9:
            with contextlib.suppress(XtirError):
                producers = [n for n in names if sch.get_consumers(sch.get_block(n))] or names
        return sch.get_block(self.later.choice(producers))

    def _cache_write_consumers(self, sch: Schedule, block: BlockRV) -> list[BlockRV]:
        """consumer_blocks for cache_write: mostly some of the block's consumers (in program order or
        not), now and then any block (which must be refused unless it reads the buffer after B)."""
        r = self.later
        consumers: list[BlockRV] = []
        with contextlib.suppress(XtirError):
            consumers = sch.get_consumers(block)
        if not consumers or r.random() < 0.15:
            return [sch.get_block(r.choice(_block_names(sch)))]
        chosen = r.sample(consumers, r.randint(1, len(consumers)))
        return chosen if r.random() < 0.3 else sorted(chosen, key=consumers.index)

    def _sample_call(self, sch: Schedule) -> Call | None:
        """A sampling instruction (its result used by the follow-up `accepted` plans: the split by
        the tile, the compute-at at the location), now and then with TVM's `decision=`: mostly a
        valid one, sometimes one that must be refused."""
        r = self.later
        kind = r.choice(("sample_perfect_tile", "sample_perfect_tile", "sample_categorical", "sample_compute_location"))
        if kind == "sample_compute_location":
            block = self.block(sch)
            loops: list[LoopRV] = []
            with contextlib.suppress(XtirError):
                consumers = sch.get_consumers(block)
                loops = sch.get_loops(consumers[0]) if consumers else []
            kwargs = (("decision", r.randint(-1, len(loops) - 1 + (r.random() < 0.1))),) if r.random() < 0.4 else ()
            return Call(kind, (block,), kwargs)
        loop = self.loop(sch)
        if loop is None:
            return None
        extent = self._extent(sch, loop)
        if kind == "sample_categorical":
            candidates = sorted({1, 2, 4, extent, *_divisors(extent)[:4]})
            kwargs = (("decision", r.randrange(len(candidates) + (r.random() < 0.1))),) if r.random() < 0.4 else ()
            self.categorical_loop = loop
            return Call(kind, (candidates,), kwargs)
        n = r.choice((2, 2, 3, 4))
        innermost = r.choice((1, 4, 16, 64))
        kwargs: tuple[tuple[str, Any], ...] = (("max_innermost_factor", innermost),)
        if r.random() < 0.4:
            kwargs += (("decision", self._tiling(extent, n, innermost)),)
        return Call(kind, (loop, n), kwargs)

    def _tiling(self, extent: int, n: int, innermost: int) -> list[int]:
        """A decision for sample_perfect_tile: n factors of `extent`, the innermost at most `innermost`;
        one time in ten a wrong one (product, length or innermost factor)."""
        r = self.later
        inner = r.choice([d for d in _divisors(extent) if d <= innermost])
        factors, rest = [inner], extent // inner
        for _ in range(n - 2):
            factors.append(r.choice(_divisors(rest)))
            rest //= factors[-1]
        tiling = [rest, *reversed(factors)]
        if r.random() < 0.1:
            bad = r.choice(("product", "length", "innermost"))
            if bad == "product":
                tiling[0] += 1
            elif bad == "length":
                tiling.append(1)
            else:
                tiling[-1] = innermost + 1
        return tiling

    def _pad_call(self, sch: Schedule, names: list[str]) -> Call:
        """pad_einsum, mostly of a reduction, mostly to paddings its extents are no multiples of."""
        r = self.r
        reductions = [b.label for b in _blocks(sch) if REDUCE in b.kinds]
        block = self.block(sch, reductions if reductions and r.random() < 0.9 else names)
        extents = _block_op(sch, block.name).extents if block.name in names else [8]
        padding = [r.choice((1, 2, 4, 8, 16, extent + 1)) for extent in extents]
        if r.random() < 0.05:  # invalid on purpose: a zero, or one factor too few
            padding = padding[1:] if r.random() < 0.5 else [0, *padding[1:]]
        return Call("pad_einsum", (block, padding))

    def _tensorize_call(self, sch: Schedule, names: list[str]) -> Call | None:
        """tensorize with a built-in intrinsic, mostly dma_copy16 of a cache block (16x16 copies are
        what the 16-sized programs' cache blocks are) and tmm16 / fill_zero16 of a reduction; the
        target is the block or, blockized first, one of its loops."""
        r = self.r
        cached = [n for n in names if "_" in n]
        reductions = [b.label for b in _blocks(sch) if REDUCE in b.kinds or b.init is not None]
        intrin = r.choice(("dma_copy16", "dma_copy16", "tmm16", "fill_zero16"))
        pool = cached if intrin == "dma_copy16" else reductions
        block = self.block(sch, pool if pool and r.random() < 0.9 else names)
        loops = self.loops_of(sch, block) if block.name in names else []
        if not loops or r.random() < 0.15:
            return Call("tensorize", (block, intrin))
        # mostly the outermost loop: its subtree, blockized, is the whole 16x16 tile
        return Call("tensorize", (loops[0] if r.random() < 0.7 else r.choice(loops), intrin))

    def _tensorize_outer(self, sch: Schedule, block: BlockRV, intrin: str) -> Call | None:
        loops = self.loops_of(sch, block)
        return Call("tensorize", (loops[0], intrin)) if loops else None

    def _layout_call(self, sch: Schedule, prim: str, names: list[str]) -> Call | None:
        """A layout primitive, mostly on a cache block (the buffers it allocates are what these
        primitives may change): pad a written buffer's stride, permute a buffer's dimensions,
        double-buffer a fetched tile."""
        r = self.r
        cached = [n for n in names if "_" in n]
        block = self.block(sch, cached if cached and r.random() < 0.8 else names)
        if prim == "double_buffer":
            return Call(prim, (block,))
        op = _block_op(sch, block.name) if block.name in names else None
        kind = "write" if prim == "storage_align" or r.random() < 0.6 else "read"
        regions = (write_regions(op) if kind == "write" else read_regions(op)) if op is not None else []
        if not regions:
            return Call(prim, (block, 0, 0, 4, 1)) if prim == "storage_align" else None
        index = r.randrange(len(regions))
        rank = len(regions[index].ranges)
        if prim == "storage_align":
            return Call(prim, (block, index, r.randrange(-rank, rank), r.choice((2, 4, 8, 32)), r.choice((0, 1, 3))))
        permutation = list(range(rank))
        r.shuffle(permutation)
        return Call(prim, (block, (kind, index), permutation))

    # Follow-ups: the moves TVM schedules make in pairs, planned when the first is accepted.

    def accepted(self, call: Call, result: Any) -> None:
        """Plan what usually follows `call`: a cache block moved next to its user (compute_at under a
        consumer's loop, reverse_compute_at under a producer's), and split loops fused again (in
        rounds, which is what makes generated names grow)."""
        r = self.r
        if call.method.startswith("sample_"):
            self._use_sample(call, result)
            return
        if call.method == "cache_read" and isinstance(result, BlockRV) and r.random() < 0.6:
            self.pending.append(lambda sch: self._move_next_to(sch, result, "compute_at"))
        elif call.method == "cache_write" and isinstance(result, BlockRV) and r.random() < 0.6:
            self.pending.append(lambda sch: self._move_next_to(sch, result, "reverse_compute_at"))
        elif call.method in ("cache_read", "cache_write") and isinstance(result, BlockRV) and r.random() < 0.3:
            self.pending.append(lambda sch: self._tensorize_outer(sch, result, "dma_copy16"))
        elif call.method == "decompose_reduction" and isinstance(result, BlockRV) and r.random() < 0.5:
            # the accelerator's matmul: the init as fill_zero16, the update as tmm16
            self.pending.append(lambda sch: self._tensorize_outer(sch, result, "fill_zero16"))
            self.pending.append(lambda sch: Call("tensorize", (call.args[1], "tmm16")))
        elif call.method == "split" and isinstance(result, list) and len(result) >= 2 and (
                self.rounds > 0 or r.random() < 0.15):
            self.pending.append(lambda sch: Call("fuse", tuple(result[:2])))
        elif call.method == "split" and isinstance(result, list) and result and r.random() < 0.4:
            self.pending.append(lambda sch: self._inline_next_to(sch, result[0]))
        elif call.method == "pad_einsum":
            self._plan_unpad(call.args[0])
        elif call.method == "fuse" and isinstance(result, LoopRV) and (self.rounds > 0 or r.random() < 0.15):
            self.rounds = self.rounds - 1 if self.rounds > 0 else r.randint(3, 6)
            if self.rounds:
                self.pending.append(lambda sch: Call("split", (result,), (("factors", [None, r.choice((1, 2, 3))]),)))

    def _use_sample(self, call: Call, result: Any) -> None:
        """The split by a sampled tile or factor, the compute-at at a sampled location (TVM's
        sample-then-apply), with the sampled values as literals."""
        if call.method == "sample_perfect_tile":
            self.pending.append(lambda sch: Call("split", (call.args[0],), (("factors", list(result)),)))
        elif call.method == "sample_categorical" and self.categorical_loop is not None:
            loop = self.categorical_loop
            self.pending.append(lambda sch: Call("split", (loop,), (("factors", [None, result]),)))
        elif call.method == "sample_compute_location" and isinstance(result, LoopRV):
            self.pending.append(lambda sch: Call("compute_at", (call.args[0], result)))

    def _plan_unpad(self, padded: BlockRV) -> None:
        """What follows pad_einsum in TVM's schedules: maybe a cache read and a cache write of the
        padded block, then the pads inlined into their readers and the crop into its writer
        (if_then_else bodies through compute-inline and reverse-compute-inline)."""
        r = self.r
        if r.random() < 0.5:
            self.pending.append(lambda sch: Call("cache_read", (padded, r.randrange(2), r.choice(SCOPES))))
        if r.random() < 0.6:
            self.pending.append(lambda sch: Call("cache_write", (padded, 0, r.choice(SCOPES))))
        self.pending.append(lambda sch: self._unpad_call(sch, "compute_inline"))
        self.pending.append(lambda sch: self._unpad_call(sch, "reverse_compute_inline"))

    def _unpad_call(self, sch: Schedule, prim: str) -> Call | None:
        """Inline one of pad_einsum's copies: an input's pad (compute_inline) or the output's crop,
        the `_pad` block writing a buffer not named `_pad` (reverse_compute_inline)."""
        pads = [b for b in _blocks(sch) if b.label.endswith("_pad")]
        crops = [b.label for b in pads if not all(buffer_name(w.buffer).endswith("_pad") for w in write_regions(b))]
        chosen = crops if prim == "reverse_compute_inline" else [b.label for b in pads if b.label not in crops]
        return Call(prim, (BlockRV(self.r.choice(chosen)),)) if chosen else None

    def _inline_next_to(self, sch: Schedule, loop: LoopRV) -> Call | None:
        """Inline a consumer into a block under `loop` (or the block into its consumer)."""
        blocks = sch.get_child_blocks(loop)
        if not blocks:
            return None
        block = self.r.choice(blocks)
        consumers = sch.get_consumers(block)
        if consumers and self.r.random() < 0.7:
            return Call("reverse_compute_inline", (self.r.choice(consumers),))
        return Call("compute_inline", (block,))

    def _move_next_to(self, sch: Schedule, block: BlockRV, prim: str) -> Call | None:
        related = sch.get_consumers(block) if prim == "compute_at" else sch.get_producers(block)
        if not related:
            return None
        loops = self.loops_of(sch, self.r.choice(related))
        if not loops:
            return None
        kwargs = (("preserve_unit_loops", True),) if self.r.random() < 0.3 else ()
        return Call(prim, (block, self.r.choice(loops)), kwargs)

    def _extent(self, sch: Schedule, loop: LoopRV) -> int:
        with contextlib.suppress(XtirError):
            op = sch.get(loop)
            if isinstance(op, ForOp):
                return op.extent
        return 8


# Running one case ----------------------------------------------------------------------------

SLOW_CASE_S = 10.0


_SSA_NAME = re.compile(r"%[A-Za-z_$.][\w$.-]*|%\d+")


def normalize_ssa_names(text: str) -> str:
    """SSA value names renamed %0, %1, ... in order of first appearance (names carry no meaning)."""
    names: dict[str, str] = {}
    return _SSA_NAME.sub(lambda m: names.setdefault(m.group(0), f"%{len(names)}"), text)


def _exception_text(e: BaseException) -> str:
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-6:])
    return f"{type(e).__name__}: {e}\n{tb}"


@dataclass
class CaseResult:
    failures: list[Failure]
    calls: list[Call]
    trace: str


Progress = Callable[[str, Sequence["Call"]], None]
PROGRESS: Progress | None = None
"""Told what a case is about to do (a stage name and the accepted calls so far), so that a parent
process can say where its child died (tests/fuzz/isolation.py sets it in the child)."""


def progress(stage: str, calls: Sequence[Call] = ()) -> None:
    if PROGRESS is not None:
        PROGRESS(stage, list(calls))


def start_schedule(prog: Program, stats: Stats, fail: Callable[[str, str], None]) -> Schedule | None:
    """A schedule of the program's entry function; None when parsing the program or choosing the
    function was refused (an XtirError, counted) or crashed (a failure)."""
    progress("parse")
    result = None
    for kind, make in (("crash-parse", lambda: prog.module), ("crash-query", lambda: new_schedule(prog))):
        try:
            result = make()
        except XtirError:
            stats.parse_rejected[prog.family] += 1
            return None
        except CaseTimeout:
            raise
        except Exception as e:
            fail(kind, _exception_text(e))
            return None
    return result


def new_schedule(prog: Program, seed: int = 0, decisions: Sequence[Any] | None = None) -> Schedule:
    """A schedule of the program's entry; its sampling instructions draw from `seed` (a case's
    schedule is the same each time), or replay `decisions`."""
    return Schedule(prog.module, func_name=prog.entry, seed=seed, decisions=decisions)


def decision_replay_error(prog: Program, calls: Sequence[Call]) -> str | None:
    """What differs when the sampled decisions of `calls` are made again: once given back to the
    schedule (`Schedule(decisions=...)`, as the tuner replays a trace), once as TVM's `decision=`
    on each sampling call; both with another seed. Then the decisions, the trace and the IR must
    be the sampled ones. None when they are, or when `calls` sample nothing."""
    sampled = new_schedule(prog)
    try:
        for call in calls:
            call.apply(sampled, by_name=True)
    except XtirError:  # by name the calls are another schedule (see Call.apply): nothing to compare
        return None
    values = [d.value for d in sampled.decisions]
    if not values:
        return None
    if loads(sampled.decision_trace()) != values:
        return f"decision_trace() reads back as {loads(sampled.decision_trace())}, the decisions were {values}"
    given = iter(values)
    as_arguments = [dataclasses.replace(c, kwargs=(*[kv for kv in c.kwargs if kv[0] != "decision"], ("decision", next(given))))
                    if c.method.startswith("sample_") else c for c in calls]
    for how, sch, replayed_calls in (("decisions=", new_schedule(prog, 1, values), calls),
                                     ("decision= on each call", new_schedule(prog, 1), as_arguments)):
        try:
            for call in replayed_calls:
                call.apply(sch, by_name=True)
        except XtirError as e:
            return f"replaying the decisions {values} ({how}) refused {call.source()}: {e}"
        if (got := [d.value for d in sch.decisions]) != values:
            return f"replaying the decisions {values} ({how}) sampled {got}"
        if sch.trace != sampled.trace or str(sch.mod) != str(sampled.mod):
            return f"replaying the decisions {values} ({how}) gave another schedule: {sch.trace} vs {sampled.trace}"
    return None


def run_case(
    prog: Program,
    seed: int,
    stats: Stats,
    max_steps: int = 8,
    evaluate: bool | None = None,
    time_limit_s: float | None = 120.0,
) -> CaseResult:
    """One random schedule of `prog` from `seed`, checked; failures are added to `stats`.

    `evaluate`: also run the reference evaluator on the scheduled IR (default: for cheap programs).
    """
    start = time.perf_counter()
    r = random.Random(f"{prog.name}:{seed}")
    family = gen_programs.FAMILIES.get(prog.family)
    gen = Generator(r, boost=family.primitive_weights if family else None, later=random.Random(f"{prog.name}:{seed}:later"))
    calls: list[Call] = []
    failures: list[Failure] = []
    sch: Schedule | None = None

    def fail(kind: str, message: str, extra: Call | None = None) -> None:
        trace = sch.trace if sch is not None else ""
        failure = Failure(kind, prog.name, seed, [*calls, *([extra] if extra else [])], trace, message)
        failures.append(failure)

    def schedule() -> bool:
        """Apply random primitives (follow-ups planned by the generator come on top); False when the
        case ended in a failure."""
        assert sch is not None
        budget = r.randint(1, max_steps)
        while budget > 0 or gen.pending:
            budget -= not gen.pending
            try:
                call = gen.next_call(sch)
            except XtirError:
                stats.query_rejected += 1
                continue
            except CaseTimeout:
                raise
            except Exception as e:  # a crash is what we look for
                fail("crash-query", _exception_text(e))
                return False
            if call is None:
                continue
            stats.steps += 1
            progress("primitive", [*calls, call])
            before, before_trace = str(sch.mod), sch.trace
            try:
                result = call.apply(sch)
            except XtirError as e:
                stats.rejected[call.method] += 1
                stats.reject_reasons[f"{call.method}: {reason(e)}"] += 1
                if str(sch.mod) != before or sch.trace != before_trace:
                    fail("refusal-changed-state", f"{type(e).__name__}: {e}", call)
                    return False
                if not isinstance(e, XtirPassError) or not str(e).strip():
                    fail("refusal-not-diagnosed", f"{type(e).__name__} (not an XtirPassError with a message): {e}", call)
                    return False
                continue
            except CaseTimeout:
                raise
            except Exception as e:
                stats.rejected[call.method] += 1
                fail("crash-primitive", _exception_text(e), call)
                return False
            stats.accepted[call.method] += 1
            stats.variants.update(f"{call.method}({k}=)" for k, _ in call.kwargs if k in ("consumer_blocks", "decision"))
            calls.append(call)
            gen._remember(list(_handles(result)))
            gen.accepted(call, result)
            if (long := _long_name(sch.mod)) is not None:  # each further step would only be slower
                fail("name-growth", long)
                return False
        return True

    stats.programs[prog.family] += 1
    if prog.name.startswith("gen."):
        stats.templates.update(prog.tags)
        stats.undefined += not prog.defined
    try:
        with time_limit(time_limit_s):
            sch = start_schedule(prog, stats, fail)
            if sch is not None and schedule():
                progress("check", calls)
                _check_decisions(prog, calls, stats, fail)
                check_schedule(prog, sch, seed, stats, fail, evaluate)
    except CaseTimeout:
        fail("hang", f"the case ran past {time_limit_s} s")
    progress("classify", calls)
    for failure in failures:
        classify(failure)
    stats.schedules += 1
    stats.failures += failures
    seconds = time.perf_counter() - start
    stats.seconds += seconds
    if seconds > SLOW_CASE_S:
        stats.slow_cases.append((seconds, prog.name, seed, sch.trace if sch is not None else ""))
    return CaseResult(failures, calls, sch.trace if sch is not None else "")


JIT_ITERATION_LIMIT = 20_000_000
EVALUATOR_ITERATION_LIMIT = 200_000


def iterations(module: ModuleOp) -> int:
    """How many loop-body executions the module makes (each loop: its extent times its ancestors')."""
    total = 0
    for loop in all_loops(module):
        count = loop.extent
        parent = loop.parent_op()
        while parent is not None:
            if isinstance(parent, ForOp):
                count *= parent.extent
            parent = parent.parent_op()
        total += count
    return total


NAME_LIMIT = 256
"""Generated loop and block names stay below this many characters (TVM keeps them short); names
that double with every fuse of split loops reach megabytes of IR in a few rounds."""


def _long_name(module: ModuleOp) -> str | None:
    for op in [*all_loops(module), *all_blocks(module)]:
        if len(op.label) > NAME_LIMIT:
            return f"{type(op).__name__} name of {len(op.label)} characters: {op.label[:80]}..."
    return None


# xtir.build's messages for IR that LLVM refused, crashed on (issue 17 item 13: the worker process
# turns an abort into an XtirError) or optimized into invalid IR, and for IR xtir could not write
LLVM_FAILURES = ("LLVM rejected", "LLVM crashed", "LLVM's optimizer produced invalid IR", "cannot write the program as LLVM IR",
                 "is missing from the machine code", "which is defined nowhere in this process")


def _build(module: ModuleOp, stats: Stats, fail: Callable[[str, str], None], entry: str | None = None) -> Any:
    progress("build")
    try:
        return xtir.build(module, entry=entry) if entry else xtir.build(module)
    except XtirError as e:
        if any(m in str(e) for m in LLVM_FAILURES):  # the compiler's bug (or LLVM's), not the user's
            fail("build-invalid-llvm", str(e))
            return None
        stats.build_rejected += 1
        stats.build_reasons[reason(e)] += 1
    except CaseTimeout:
        raise
    except Exception as e:
        fail("crash-build", _exception_text(e))
    return None


def _returned(prog: Program, got: Any, who: str) -> str | None:
    """What is wrong with the values a call returned (compiled functions return None)."""
    values = tuple(got) if isinstance(got, tuple | list) else (() if got is None else (got,))
    if not prog.returns:
        return None
    if len(values) != len(prog.returns):
        return f"{who} returned {values!r}; the function returns {prog.returns!r}"
    for g, w in zip(values, prog.returns):
        if not np.isclose(float(g), float(w), rtol=prog.tolerance[0], atol=prog.tolerance[1], equal_nan=True):
            return f"{who} returned {values!r}; the function returns {prog.returns!r}"
    return None


def check_schedule(
    prog: Program,
    sch: Schedule,
    seed: int,
    stats: Stats,
    fail: Callable[[str, str], None],
    evaluate: bool | None = None,
    only: str | None = None,
) -> None:
    """Replay the trace, compile, run and compare with numpy (and the reference evaluator).

    `only` restricts the checks to one part (CHECK_PART), as replaying a failure needs."""
    if only in (None, "static"):
        _check_static(prog, sch, fail)
        if only == "static" or _long_name(sch.mod) is not None:
            return
    work = iterations(sch.mod)
    if only in (None, "jit"):
        compiled = _build(sch.mod, stats, fail, prog.entry)
        if compiled is not None and (work > JIT_ITERATION_LIMIT or not prog.runnable):
            # huge split factors make huge (mostly predicated-off) loop nests: compiled, not run
            stats.built += 1
            stats.not_run += 1
            compiled = None
        if compiled is not None:
            stats.built += 1
            _check_call(prog, seed, stats, fail, compiled)
    if (only == "eval" or (only is None and (evaluate if evaluate is not None else prog.cheap))) and (
            work <= EVALUATOR_ITERATION_LIMIT and prog.runnable):
        _check_evaluation(prog, sch, seed, stats, fail)


CHECK_PART = {
    "trace-replay": "static", "trace-replay-names": "static", "print-roundtrip": "static", "name-growth": "static",
    "build-invalid-llvm": "jit", "crash-build": "jit", "crash-run": "jit", "memory-unsafe": "jit", "mismatch-jit": "jit",
    "mismatch-eval": "eval", "crash-eval": "eval", "race": "eval",
}


def _check_decisions(prog: Program, calls: Sequence[Call], stats: Stats, fail: Callable[[str, str], None]) -> None:
    if not any(c.method.startswith("sample_") for c in calls):
        return
    stats.decisions_replayed += 1
    try:
        why = decision_replay_error(prog, calls)
    except CaseTimeout:
        raise
    except Exception as e:  # XtirError included: every call was accepted once
        why = f"replaying the calls raised {_exception_text(e)}"
    if why is not None:
        fail("decision-replay", why)


def _check_static(prog: Program, sch: Schedule, fail: Callable[[str, str], None]) -> None:
    """The trace replays to the same IR, the printed IR parses back to it, names stay short."""
    if sch.trace:
        try:
            replayed = xtir.transform(prog.module, sch.trace)
        except CaseTimeout:
            raise
        except Exception as e:  # XtirError included: the same trace was accepted once
            fail("trace-replay", f"replaying the trace raised {_exception_text(e)}")
        else:
            if str(replayed) != str(sch.mod):
                if not replayed.is_structurally_equivalent(sch.mod):
                    fail("trace-replay", "xtir.transform(original, sch.trace) is not the IR of sch.mod")
                else:
                    fail("trace-replay-names", "xtir.transform(original, sch.trace) prints other SSA value names than sch.mod")

    # The printed IR parses back to the same IR.
    try:
        reparsed = xtir.parse(str(sch.mod), "<printed sch.mod>")
    except CaseTimeout:
        raise
    except Exception as e:
        fail("print-roundtrip", f"the printed sch.mod does not parse: {_exception_text(e)}")
    else:
        if not reparsed.is_structurally_equivalent(sch.mod):
            fail("print-roundtrip", "the printed sch.mod parses to different IR")
    if (long := _long_name(sch.mod)) is not None:
        fail("name-growth", long)


def _check_call(prog: Program, seed: int, stats: Stats, fail: Callable[[str, str], None], compiled: Any) -> None:
    """Call on guarded arguments: memory safety always, the numbers when the program is defined."""
    arrays = prog.arguments(np.random.default_rng(seed))
    before = [a.copy() for a in arrays]
    expected = prog.expected(before) if prog.defined else None
    progress("call")
    try:
        got = compiled(*arrays)
    except XtirError as e:
        stats.call_rejected[reason(e)] += 1
        return
    except CaseTimeout:
        raise
    except Exception as e:
        fail("crash-run", _exception_text(e))
        return
    stats.memory_checked += 1
    if violations := arrays.violations():
        fail("memory-unsafe", "the compiled function wrote outside its arguments: " + "; ".join(violations))
        return
    if expected is None:
        return
    stats.compared += 1
    if (diff := compare(arrays, before, prog.outputs, expected, *prog.tolerance)) is not None:
        fail("mismatch-jit", diff)
    elif (wrong := _returned(prog, got, "the compiled function")) is not None:
        fail("mismatch-jit", wrong)


def _check_evaluation(prog: Program, sch: Schedule, seed: int, stats: Stats, fail: Callable[[str, str], None]) -> None:
    """The reference evaluator on the scheduled IR, and again with parallel loops reversed."""
    func = prog.entry or "main"
    runs = [("evaluate", lambda a: xtir.evaluate(sch.mod, *a, func=func))]
    if has_parallel_loops(sch.mod) and marked_loops_independent(sch.mod):
        runs.append(("reversed", lambda a: evaluate_reordered(sch.mod, a, func)))
    results = []
    for stage, run in runs:
        arrays = prog.arguments(np.random.default_rng(seed))
        before = [a.copy() for a in arrays]
        progress(stage)
        try:
            got = run(arrays)
        except XtirError as e:
            if prog.defined and stage == "evaluate":
                fail("mismatch-eval", f"the reference evaluator refused the scheduled IR: {e}")
            stats.eval_rejected += not prog.defined
            return
        except CaseTimeout:
            raise
        except Exception as e:
            fail("crash-eval", f"the reference evaluator raised {_exception_text(e)}")
            return
        results.append((stage, arrays, before, got))
    if not prog.defined:
        return
    expected = prog.expected(results[0][2])
    for stage, arrays, before, got in results:
        diff = compare(arrays, before, prog.outputs, expected, *prog.tolerance) or _returned(prog, got, "evaluate")
        if stage == "evaluate":
            stats.evaluated += 1
            if diff is not None:
                fail("mismatch-eval", diff)
                return
        else:
            stats.race_checked += 1
            if diff is not None:
                fail("race", f"with its parallel and vectorized loops run backwards, {diff}")


# Reproducing and minimizing ----------------------------------------------------------------------


def replay(prog: Program, calls: Sequence[Call], kind: str) -> str | None:
    """Replay `calls` in a fresh schedule; the failure message when `kind` of failure recurs, else None.

    For crash-primitive / refusal-changed-state the last call is the failing one; every call
    before it must be accepted (a variant where one is refused is not the same case).
    """
    if kind == "crash-parse":
        try:
            prog.module  # noqa: B018
        except XtirError:
            return None
        except Exception as e:
            return _exception_text(e)
        return None
    if kind == "decision-replay":
        try:
            return decision_replay_error(prog, calls)
        except XtirError:
            return None
    sch = new_schedule(prog)
    failing_last = kind in FAILING_LAST
    prefix = calls[:-1] if failing_last else calls
    try:
        for call in prefix:
            call.apply(sch, by_name=True)
    except XtirError:
        return None
    except Exception as e:
        return _exception_text(e) if kind == "crash-primitive" else None
    if failing_last:
        before, before_trace = str(sch.mod), sch.trace
        try:
            calls[-1].apply(sch, by_name=True)
        except XtirError as e:
            if kind == "refusal-changed-state" and (str(sch.mod) != before or sch.trace != before_trace):
                return str(e)
            if kind == "refusal-not-diagnosed" and (not isinstance(e, XtirPassError) or not str(e).strip()):
                return f"{type(e).__name__}: {e}"
            return None
        except Exception as e:
            return _exception_text(e) if kind == "crash-primitive" else None
        return None
    if kind == "name-growth":
        return _long_name(sch.mod)
    messages: list[tuple[str, str]] = []
    check_schedule(prog, sch, 0, Stats(), lambda k, m: messages.append((k, m)), only=CHECK_PART.get(kind))
    for k, m in messages:
        if k == kind:
            return m
    return None


def minimize(failure: Failure, same: Callable[[str], bool] | None = None) -> Failure:
    """Drop calls (one at a time, until none can go) while the same kind of failure recurs.

    `same(message)` can narrow "the same failure" (e.g. the same exception type).
    """
    prog = find_program(failure.program)
    calls = list(failure.calls)
    if same is None:
        first = failure.message.split(":", 1)[0]
        same = (lambda m: m.split(":", 1)[0] == first) if failure.kind.startswith("crash") else (lambda m: True)
    message = failure.message
    keep_last = failure.kind in FAILING_LAST
    chunk = max(1, len(calls) // 2)
    while chunk >= 1:  # drop runs of `chunk` calls, halving the run when none can go
        changed = False
        k = 0
        while k < len(calls) - (1 if keep_last else 0):
            candidate = calls[:k] + calls[k + chunk :]
            if keep_last and len(candidate) < len(calls) and candidate[-1:] != calls[-1:]:
                k += 1
                continue
            m = replay(prog, candidate, failure.kind)
            if m is not None and same(m):
                calls, message, changed = candidate, m, True
            else:
                k += 1
        if not changed:
            chunk //= 2
    trace = ""
    if failure.kind != "crash-parse":
        sch = new_schedule(prog)
        for call in calls[:-1] if failure.kind in FAILING_LAST else calls:
            call.apply(sch, by_name=True)
        trace = sch.trace
    return classify(Failure(failure.kind, failure.program, failure.seed, calls, trace, message), minimized=False)


# Driving many cases -----------------------------------------------------------------------------


def fuzz(
    seeds: Sequence[int],
    program_names: Sequence[str] | None = None,
    max_steps: int = 8,
    evaluate: bool | None = None,
    deadline: float | None = None,
    stats: Stats | None = None,
) -> Stats:
    """Run every program with every seed (until `deadline`, a time.monotonic() value)."""
    stats = stats or Stats()
    names = list(program_names or programs())
    for seed in seeds:
        for name in names:
            if deadline is not None and time.monotonic() > deadline:
                return stats
            run_case(find_program(name), seed, stats, max_steps=max_steps, evaluate=evaluate)
    return stats
