"""Differential schedule fuzzing: random schedules through `xtir.Schedule`, checked numerically.

A fuzz case is a program (matmul, matmul + bias, conv2d + bias/ReLU, the window sum and
the tiled matmul of nested blocks, all small) and a seed. The seed drives a sequence of
primitives (split with dividing and non-dividing factors, reorder, fuse, blockize,
cache_read, cache_write, compute_at, reverse_compute_at, decompose_reduction, parallel,
vectorize, unroll, compute_inline, reverse_compute_inline) whose arguments are chosen from
the schedule's current state: blocks from the module, loops with `get_loops`, targets of
compute_at from `get_consumers` / `get_producers`, cache indices from the block's read and
write regions; now and then a stale handle (a loop or block that no longer exists), an
invalid factor or a wrong handle type, which must be refused.

Checks, each a bug when it fails (FAILURE_KINDS):
- a primitive either succeeds or raises `xtir.XtirPassError` with a message; any other
  exception is a crash;
- a refused primitive leaves `sch.mod` and `sch.trace` unchanged;
- `xtir.transform(original, sch.trace)` replays to the same IR as `sch.mod`, and the
  printed `sch.mod` parses back to the same IR;
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
import functools
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
from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir import BlockRV, LoopRV, Schedule, XtirError, XtirPassError
from xtir.dialects.block import REDUCE, BlockOp, ForOp
from xtir.passes.analysis.navigation import all_blocks, all_loops
from xtir.passes.analysis.regions import read_regions, write_regions

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
    """A fuzz target: IR text, the shapes of its arguments, which are outputs, and numpy's answer."""

    name: str
    text: str
    shapes: tuple[tuple[int, ...], ...]
    outputs: tuple[int, ...]
    reference: Callable[[list[np.ndarray]], list[np.ndarray]]
    cheap: bool = False  # small enough for the reference evaluator on every case

    @functools.cached_property
    def module(self) -> ModuleOp:
        return xtir.parse(self.text, f"<fuzz program {self.name}>")

    def arguments(self, rng: np.random.Generator) -> list[np.ndarray]:
        """Inputs drawn from N(0, 1); outputs filled with NaN, so an element never written shows."""
        arrays = []
        for k, shape in enumerate(self.shapes):
            if k in self.outputs:
                arrays.append(np.full(shape, np.nan, dtype=np.float32))
            else:
                arrays.append(rng.standard_normal(shape, dtype=np.float32))
        return arrays

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
}
SCOPES = ("global", "local", "shared", "global.A_reg")


def _literal(value: Any) -> str:
    if isinstance(value, LoopRV):
        return f"LoopRV({value.name!r}, {value.block!r})" if value.block is not None else f"LoopRV({value.name!r})"
    if isinstance(value, BlockRV):
        return f"BlockRV({value.name!r})"
    if isinstance(value, list | tuple):
        inner = ", ".join(_literal(v) for v in value)
        return f"[{inner}]"
    return repr(value)


@dataclass(frozen=True)
class Call:
    method: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()

    def apply(self, sch: Schedule) -> Any:
        return getattr(sch, self.method)(*self.args, **dict(self.kwargs))

    def source(self) -> str:
        parts = [_literal(a) for a in self.args] + [f"{k}={_literal(v)}" for k, v in self.kwargs]
        return f"sch.{self.method}({', '.join(parts)})"


def _handles(result: Any) -> Iterator[LoopRV | BlockRV]:
    if isinstance(result, LoopRV | BlockRV):
        yield result
    elif isinstance(result, list | tuple):
        for r in result:
            yield from _handles(r)


# Failures -----------------------------------------------------------------------------------

FAILURE_KINDS = (
    "crash-query",  # get_block / get_loops / ... raised something other than XtirError
    "crash-primitive",  # a primitive raised something other than XtirError
    "refusal-changed-state",  # a refused primitive changed sch.mod or sch.trace
    "refusal-not-diagnosed",  # a primitive was refused with an XtirError that is no XtirPassError, or no message
    "trace-replay",  # xtir.transform(original, sch.trace) fails or differs from sch.mod
    "trace-replay-names",  # ... is the same IR as sch.mod but prints other SSA value names
    "print-roundtrip",  # str(sch.mod) does not parse back to the same IR
    "build-invalid-llvm",  # xtir.build refused the schedule because LLVM rejected the IR it generated
    "crash-build",  # xtir.build raised something other than XtirError
    "crash-run",  # calling the compiled function raised
    "mismatch-jit",  # the compiled function's outputs differ from numpy
    "mismatch-eval",  # the reference evaluator on the scheduled IR differs from numpy
    "hang",  # a case ran past its time limit
)

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

    def reproducer(self) -> str:
        lines = [
            "import numpy as np, xtir",
            "from xtir import BlockRV, LoopRV",
            "from tests.fuzz.schedules import programs",
            f"prog = programs()[{self.program!r}]",
            "sch = xtir.Schedule(prog.module)",
            *(c.source() for c in self.calls),
        ]
        if self.kind in ("mismatch-jit", "crash-build", "crash-run", "build-invalid-llvm"):
            lines += [
                "args = prog.arguments(np.random.default_rng(0))",
                "xtir.build(sch.mod)(*args)",
                "for k, want in zip(prog.outputs, prog.expected(args)):",
                "    np.testing.assert_allclose(args[k], want, rtol=1e-4, atol=1e-3)",
            ]
        elif self.kind == "mismatch-eval":
            lines += [
                "args = prog.arguments(np.random.default_rng(0))",
                "xtir.evaluate(sch.mod, *args)",
                "for k, want in zip(prog.outputs, prog.expected(args)):",
                "    np.testing.assert_allclose(args[k], want, rtol=1e-4, atol=1e-3)",
            ]
        elif self.kind == "print-roundtrip":
            lines.append("assert str(xtir.parse(str(sch.mod))) == str(sch.mod)")
        elif self.kind in ("trace-replay", "trace-replay-names"):
            lines.append("assert str(xtir.transform(prog.module, sch.trace)) == str(sch.mod)")
        return "\n".join(lines)

    def pipeline(self) -> str:
        """The accepted calls as an `xtir-opt -p` pipeline."""
        return self.trace

    def summary(self) -> str:
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        tag = f" [known: {self.known}]" if self.known else ""
        return f"{self.kind} on {self.program} (seed {self.seed}){tag}: {first[:300]}"


# Known bugs: a failure matching one is counted as known, not new (see test_fuzz_quick.py) --------

KnownBug = tuple[str, Callable[[Failure], bool]]


# None open. A new one gets (id, matcher) here and a strict xfail with its reproducer in
# test_fuzz_quick.py, so it is counted (not failed on) until fixed.
KNOWN_BUGS: list[KnownBug] = []


def classify(failure: Failure, minimized: bool = True) -> Failure:
    """Mark the failure with the known bug it is, judged on its minimized calls (`minimized=False`:
    on its calls as they are). The minimized failure is kept as `failure.minimized`."""
    subject = failure
    if minimized and failure.kind != "hang":
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
    built: int = 0
    build_rejected: int = 0
    not_run: int = 0
    slow_cases: list[tuple[float, str, int, str]] = field(default_factory=list)
    build_reasons: Counter = field(default_factory=Counter)
    compared: int = 0
    evaluated: int = 0
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, kind: str) -> int:
        return sum(1 for f in self.failures if f.kind == kind)

    @property
    def new_failures(self) -> list[Failure]:
        return [f for f in self.failures if f.known is None]

    def merge(self, other: Stats) -> None:
        self.schedules += other.schedules
        self.steps += other.steps
        self.accepted += other.accepted
        self.rejected += other.rejected
        self.reject_reasons += other.reject_reasons
        self.query_rejected += other.query_rejected
        self.built += other.built
        self.build_rejected += other.build_rejected
        self.not_run += other.not_run
        self.slow_cases += other.slow_cases
        self.build_reasons += other.build_reasons
        self.compared += other.compared
        self.evaluated += other.evaluated
        self.failures += other.failures
        self.seconds += other.seconds

    def report(self, top: int = 12) -> str:
        lines = [
            f"schedules tried: {self.schedules}   primitive calls: {self.steps}   "
            f"accepted: {sum(self.accepted.values())}   rejected (XtirError): {sum(self.rejected.values())}   "
            f"queries refused: {self.query_rejected}",
            f"built: {self.built}   build refused (XtirError): {self.build_rejected}   "
            f"not run (> {JIT_ITERATION_LIMIT} iterations): "
            f"{self.not_run}   "
            f"compared with numpy: {self.compared}   also through the reference evaluator: {self.evaluated}",
            "per primitive (accepted / rejected):",
        ]
        for prim in sorted(set(self.accepted) | set(self.rejected)):
            lines.append(f"  {prim:24s} {self.accepted[prim]:6d} / {self.rejected[prim]:6d}")
        lines.append("failures by kind (must all be 0; known bugs in brackets):")
        for kind in FAILURE_KINDS:
            fs = [f for f in self.failures if f.kind == kind]
            known = sum(1 for f in fs if f.known)
            lines.append(f"  {kind:24s} {len(fs) - known:6d}   [{known} known]")
        if self.reject_reasons:
            lines.append(f"top rejection reasons (of {len(self.reject_reasons)} kinds):")
            for reason, n in self.reject_reasons.most_common(top):
                lines.append(f"  {n:6d}  {reason}")
        if self.build_reasons:
            lines.append("build refusals:")
            for reason, n in self.build_reasons.most_common(top):
                lines.append(f"  {n:6d}  {reason}")
        for seconds, program, seed, trace in sorted(self.slow_cases, reverse=True)[:5]:
            lines.append(f"slow case: {seconds:.1f} s {program} seed {seed}: {trace}")
        lines.append(f"time: {self.seconds:.1f} s")
        return "\n".join(lines)


_LOCATION = re.compile(r"^(?:[^\n]*?:\d+:\d+: )?error: ")


def reason(error: BaseException) -> str:
    """A diagnostic's first line without location and names, to group rejections."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
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


def _block_names(sch: Schedule) -> list[str]:
    return [b.label for b in all_blocks(sch.mod)]


def _block_op(sch: Schedule, name: str) -> BlockOp:
    return next(b for b in all_blocks(sch.mod) if b.label == name)


class Generator:
    """Chooses the next primitive call from the schedule's current state."""

    def __init__(self, r: random.Random, stale_prob: float = 0.06, misuse_prob: float = 0.02):
        self.r = r
        self.stale_prob = stale_prob
        self.misuse_prob = misuse_prob
        self.pool: list[LoopRV | BlockRV] = []  # every handle seen so far (some now stale)

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
        if r.random() < self.misuse_prob:
            return self.misuse(sch)
        prim = r.choices(list(PRIMITIVES), weights=list(PRIMITIVES.values()))[0]
        names = _block_names(sch)
        if not names:
            return None
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
            block = self.block(sch)
            op = _block_op(sch, block.name) if block.name in names else None
            n = len(read_regions(op) if prim == "cache_read" else write_regions(op)) if op is not None else 1
            index = r.randrange(n) if n and r.random() < 0.93 else r.choice((n, -1))
            scope = r.choice(SCOPES)
            if prim == "cache_read":
                if r.random() < 0.15:
                    consumers = r.sample(names, r.randint(1, min(2, len(names))))
                    return Call(prim, (block, index, scope), (("consumer_blocks", [BlockRV(c) for c in consumers]),))
                return Call(prim, (block, index, scope))
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
            reductions = [b.label for b in all_blocks(sch.mod) if REDUCE in b.kinds or b.init is not None]
            block = self.block(sch, reductions if reductions and r.random() < 0.9 else names)
            loop = self.loop(sch, block) if block.name in names else self.loop(sch)
            return Call(prim, (block, loop)) if loop is not None else None
        if prim in ("compute_inline", "reverse_compute_inline"):
            return Call(prim, (self.block(sch),))
        raise AssertionError(prim)

    def _extent(self, sch: Schedule, loop: LoopRV) -> int:
        for lp in all_loops(sch.mod):
            if lp.label == loop.name:
                return lp.extent
        return 8


# Running one case ----------------------------------------------------------------------------

RTOL, ATOL = 1e-4, 1e-3
SLOW_CASE_S = 10.0


def _compare(prog: Program, arrays: list[np.ndarray], expected: list[np.ndarray]) -> str | None:
    for k, want in zip(prog.outputs, expected):
        got = arrays[k]
        if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
            bad = ~np.isclose(got, want, rtol=RTOL, atol=ATOL)
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            return (
                f"output {k}: {int(bad.sum())} of {got.size} elements differ; first at {where}: "
                f"got {got[where]!r}, expected {want[where]!r}"
            )
    return None


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
    gen = Generator(r)
    sch = Schedule(prog.module)
    calls: list[Call] = []
    failures: list[Failure] = []

    def fail(kind: str, message: str, extra: Call | None = None) -> None:
        failure = Failure(kind, prog.name, seed, [*calls, *([extra] if extra else [])], sch.trace, message)
        failures.append(failure)

    def schedule() -> bool:
        """Apply random primitives; False when the case ended in a failure."""
        for _ in range(r.randint(1, max_steps)):
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
            calls.append(call)
            gen._remember(list(_handles(result)))
        return True

    try:
        with time_limit(time_limit_s):
            if schedule():
                check_schedule(prog, sch, seed, stats, fail, evaluate)
    except CaseTimeout:
        fail("hang", f"the case ran past {time_limit_s} s")
    for failure in failures:
        classify(failure)
    stats.schedules += 1
    stats.failures += failures
    seconds = time.perf_counter() - start
    stats.seconds += seconds
    if seconds > SLOW_CASE_S:
        stats.slow_cases.append((seconds, prog.name, seed, sch.trace))
    return CaseResult(failures, calls, sch.trace)


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


def _build(module: ModuleOp, stats: Stats, fail: Callable[[str, str], None]) -> Any:
    try:
        return xtir.build(module)
    except XtirError as e:
        if "LLVM rejected" in str(e):  # the compiler made invalid LLVM IR: its bug, not the user's
            fail("build-invalid-llvm", str(e))
            return None
        stats.build_rejected += 1
        stats.build_reasons[reason(e)] += 1
    except CaseTimeout:
        raise
    except Exception as e:
        fail("crash-build", _exception_text(e))
    return None


def check_schedule(
    prog: Program,
    sch: Schedule,
    seed: int,
    stats: Stats,
    fail: Callable[[str, str], None],
    evaluate: bool | None = None,
) -> None:
    """Replay the trace, compile, run and compare with numpy (and the reference evaluator)."""
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

    compiled = _build(sch.mod, stats, fail)
    work = iterations(sch.mod)
    if compiled is not None and work > JIT_ITERATION_LIMIT:
        # huge split factors make huge (mostly predicated-off) loop nests: compiled, not run
        stats.built += 1
        stats.not_run += 1
        compiled = None
    if compiled is not None:
        stats.built += 1
        arrays = prog.arguments(np.random.default_rng(seed))
        expected = prog.expected(arrays)
        try:
            compiled(*arrays)
        except CaseTimeout:
            raise
        except Exception as e:
            fail("crash-run", _exception_text(e))
        else:
            stats.compared += 1
            if (diff := _compare(prog, arrays, expected)) is not None:
                fail("mismatch-jit", diff)

    if (evaluate if evaluate is not None else prog.cheap) and work <= EVALUATOR_ITERATION_LIMIT:
        arrays = prog.arguments(np.random.default_rng(seed))
        expected = prog.expected(arrays)
        try:
            xtir.evaluate(sch.mod, *arrays)
        except CaseTimeout:
            raise
        except Exception as e:
            fail("mismatch-eval", f"the reference evaluator failed on the scheduled IR: {_exception_text(e)}")
        else:
            stats.evaluated += 1
            if (diff := _compare(prog, arrays, expected)) is not None:
                fail("mismatch-eval", diff)


# Reproducing and minimizing ----------------------------------------------------------------------


def replay(prog: Program, calls: Sequence[Call], kind: str) -> str | None:
    """Replay `calls` in a fresh schedule; the failure message when `kind` of failure recurs, else None.

    For crash-primitive / refusal-changed-state the last call is the failing one; every call
    before it must be accepted (a variant where one is refused is not the same case).
    """
    sch = Schedule(prog.module)
    failing_last = kind in FAILING_LAST
    prefix = calls[:-1] if failing_last else calls
    try:
        for call in prefix:
            call.apply(sch)
    except XtirError:
        return None
    except Exception as e:
        return _exception_text(e) if kind == "crash-primitive" else None
    if failing_last:
        before, before_trace = str(sch.mod), sch.trace
        try:
            calls[-1].apply(sch)
        except XtirError as e:
            if kind == "refusal-changed-state" and (str(sch.mod) != before or sch.trace != before_trace):
                return str(e)
            if kind == "refusal-not-diagnosed" and (not isinstance(e, XtirPassError) or not str(e).strip()):
                return f"{type(e).__name__}: {e}"
            return None
        except Exception as e:
            return _exception_text(e) if kind == "crash-primitive" else None
        return None
    messages: list[tuple[str, str]] = []
    probe = Stats()
    check_schedule(prog, sch, 0, probe, lambda k, m: messages.append((k, m)), evaluate=kind == "mismatch-eval")
    for k, m in messages:
        if k == kind:
            return m
    return None


def minimize(failure: Failure, same: Callable[[str], bool] | None = None) -> Failure:
    """Drop calls (one at a time, until none can go) while the same kind of failure recurs.

    `same(message)` can narrow "the same failure" (e.g. the same exception type).
    """
    prog = programs()[failure.program]
    calls = list(failure.calls)
    if same is None:
        first = failure.message.split(":", 1)[0]
        same = (lambda m: m.split(":", 1)[0] == first) if failure.kind.startswith("crash") else (lambda m: True)
    message = failure.message
    changed = True
    while changed:
        changed = False
        for k in range(len(calls)):
            if failure.kind in FAILING_LAST and k == len(calls) - 1:
                continue
            candidate = calls[:k] + calls[k + 1 :]
            m = replay(prog, candidate, failure.kind)
            if m is not None and same(m):
                calls, message, changed = candidate, m, True
                break
    sch = Schedule(prog.module)
    prefix = calls[:-1] if failure.kind in FAILING_LAST else calls
    for call in prefix:
        call.apply(sch)
    return classify(Failure(failure.kind, failure.program, failure.seed, calls, sch.trace, message), minimized=False)


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
            run_case(programs()[name], seed, stats, max_steps=max_steps, evaluate=evaluate)
    return stats
