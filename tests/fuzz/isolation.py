"""Fuzz cases in a child process, so that a dead process is a finding and not the end of the run.

Building or calling compiled code can take the whole process down today (an LLVM assertion,
SIGSEGV in compiled code, heap corruption that `free()` finds later). `Worker` runs cases in a
child (`python -m tests.fuzz.isolation`), talking over its stdin/stdout in length-prefixed
pickles; the child reports each stage it starts (primitive, build, call, evaluate, ...) with
the calls accepted so far, so when it dies the parent knows where: a `crash-process` failure
with the signal, the stage, the calls and the tail of the child's stderr (LLVM's assertion
text). A child that runs past its time is killed: a `hang`. The next request starts a new child.

`minimize_in_child` drops calls while a fresh child still dies the same way; a failure that
does not recur alone was caused by state an earlier case left in the process (the message
names the cases the child ran before).

After cases that may leave the process broken (odd names, crashes caught as exceptions) the
child builds and calls a small unrelated program, the *canary*: a process that dies there died
of the case before (`stage canary`).

`threads` mode: several threads build (the same programs among them, so that builds of one
module overlap) and call compiled functions at once, then the canary.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import random
import select
import signal
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fuzz import schedules  # noqa: E402
from tests.fuzz.oracles import compare  # noqa: E402
from tests.fuzz.schedules import Call, Failure, Stats  # noqa: E402

CANARY_FAMILIES = frozenset({"names", "types", "layouts", "returns", "stack"})
CASE_TIMEOUT_S = 240.0


def in_child(code: str, timeout: float = 300) -> None:
    """Run `code` in a fresh Python (in the repository); it must exit 0. A dead child fails the test
    (for regression tests of what took the process down)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env, capture_output=True,
                       timeout=timeout, text=True)
    how = signal.Signals(-p.returncode).name if p.returncode < 0 else f"exit status {p.returncode}"
    assert p.returncode == 0, f"the child ended with {how}\n{p.stderr[-3000:]}"


# Framing ---------------------------------------------------------------------------------------


def _send(stream: Any, message: object) -> None:
    data = pickle.dumps(message)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _read_exactly(fd: int, n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


# The parent side -------------------------------------------------------------------------------------


@dataclass
class Death:
    """How a child ended a request without answering."""

    how: str  # "crash-process" or "hang"
    signal: str  # SIGSEGV, SIGABRT, exit 3, ...
    stage: str
    calls: list[Call]
    stderr: str
    history: list[str] = field(default_factory=list)  # the requests the child served before

    def message(self) -> str:
        before = f"; earlier in this process: {', '.join(self.history[-4:])}" if self.history else ""
        tail = self.stderr.strip()[-1500:]
        return f"{self.signal} during {self.stage}{before}\n{tail}"


class Worker:
    """A child process serving fuzz requests; restarted after it dies."""

    def __init__(self, timeout_s: float = CASE_TIMEOUT_S):
        self.timeout_s = timeout_s
        self.proc: subprocess.Popen | None = None
        self.stderr: Any = None
        self.history: list[str] = []
        self.started = 0

    def _start(self) -> None:
        self.stderr = tempfile.TemporaryFile()
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.fuzz.isolation"], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        self.history = []
        self.started += 1

    def request(self, message: tuple, label: str) -> tuple[bool, Any]:
        """(True, the child's answer) or (False, Death)."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        offset = self.stderr.seek(0, os.SEEK_END)
        stage, calls = "start", []
        try:
            _send(self.proc.stdin, message)
        except BrokenPipeError:
            return False, self._death("crash-process", stage, calls, offset)
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout_s
        while True:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return False, self._death("hang", stage, calls, offset)
            header = _read_exactly(fd, 8)
            data = header and _read_exactly(fd, struct.unpack("<Q", header)[0])
            if not data:
                return False, self._death("crash-process", stage, calls, offset)
            kind, payload = pickle.loads(data)
            if kind == "progress":
                stage, calls = payload
                continue
            self.history.append(label)
            return True, payload

    def _death(self, how: str, stage: str, calls: list[Call], offset: int) -> Death:
        assert self.proc is not None
        if how == "hang":
            self.proc.kill()  # the child this worker started, by its own handle
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        name = signal.Signals(-code).name if code < 0 else f"exit status {code}"
        self.stderr.seek(offset)
        text = self.stderr.read().decode(errors="replace")
        death = Death(how, name if how != "hang" else f"no answer in {self.timeout_s:.0f} s", stage, list(calls),
                      text, list(self.history))
        self.proc = None
        return death

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(BrokenPipeError, OSError):
                _send(self.proc.stdin, ("quit",))
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def run_case(worker: Worker, name: str, seed: int, stats: Stats, max_steps: int = 8,
             evaluate: bool | None = None, minimize: bool = True) -> list[Failure]:
    """schedules.run_case in the worker's child; a dead child is a crash-process (or hang) failure."""
    ok, answer = worker.request(("case", name, seed, max_steps, evaluate), f"{name} seed {seed}")
    if ok:
        stats.merge(answer)
        if any(f.kind.startswith("crash") for f in answer.failures):
            worker.close()  # an exception may have left the process broken: not the next case's fault
        return answer.failures
    death: Death = answer
    failure = Failure(death.how, name, seed, death.calls, "", death.message())
    if minimize and death.how == "crash-process":
        failure.minimized = minimize_in_child(worker, failure, death)
    schedules.classify(failure, minimized=False)
    if failure.minimized is not None and failure.minimized.known:
        failure.known = failure.minimized.known
    stats.schedules += 1
    stats.programs[schedules.find_program(name).family] += 1
    stats.failures.append(failure)
    return [failure]


def _same_death(a: Death, b: Death) -> bool:
    return a.how == b.how and a.signal == b.signal


def minimize_in_child(worker: Worker, failure: Failure, death: Death) -> Failure | None:
    """The failure with fewer calls that still kills a fresh child the same way; None when the
    failure does not recur alone (an earlier case broke the process)."""
    worker.close()

    def dies(calls: list[Call]) -> Death | None:
        worker.close()  # each try in a fresh process
        ok, answer = worker.request(("replay", failure.program, calls), "replay")
        return None if ok else answer

    first = dies(failure.calls)
    if first is None or not _same_death(first, death):
        return None
    calls, last = list(failure.calls), first
    chunk = len(calls)  # first without any call: the program alone often dies the same way
    while chunk >= 1:
        changed, k = False, 0
        while k < len(calls):
            d = dies(calls[:k] + calls[k + chunk :])
            if d is not None and _same_death(d, death):
                calls, last, changed = calls[:k] + calls[k + chunk :], d, True
            else:
                k += 1
        if not changed:
            chunk //= 2
    worker.close()
    small = Failure(failure.kind, failure.program, failure.seed, calls, "", last.message())
    return schedules.classify(small, minimized=False)


def run_threads(worker: Worker, names: Sequence[str], seed: int, stats: Stats, threads: int = 4) -> list[Failure]:
    """Threads mode in the worker's child: a dead child is a crash-process failure of `threads`."""
    label = f"threads seed {seed}"
    ok, answer = worker.request(("threads", list(names), seed, threads), label)
    worker.close()  # what the threads broke must not show in the next case
    if ok:
        stats.merge(answer)
        return answer.failures
    death: Death = answer
    failure = Failure(death.how, names[0], seed, [], "", f"threads mode ({threads} threads building and calling "
                      f"{', '.join(names)} at once): {death.message()}", mode="threads")
    schedules.classify(failure, minimized=False)
    stats.thread_rounds += 1
    stats.failures.append(failure)
    return [failure]


# The child side ----------------------------------------------------------------------------------------


def _canary(seed: int) -> None:
    """Build (never cached: the constant is new) and call a small program."""
    import numpy as np

    import xtir

    scale = 1.0 + seed % 997 / 1000.0
    text = f"""func.func @main(%A: memref<8xf32>, %B: memref<8xf32>) {{
  block.for %i = 0 to 8 "i" {{
    block.block "canary"(%vi = spatial(8, %i)) {{
      %a = block.load %A[%vi] : memref<8xf32>
      %c = arith.constant {scale:.6e} : f32
      %b = arith.mulf %a, %c : f32
      block.store %b, %B[%vi] : memref<8xf32>
    }}
  }}
  func.return
}}
"""
    a, b = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    xtir.build(xtir.parse(text))(a, b)
    np.testing.assert_allclose(b, a * np.float32(scale), rtol=1e-6)


def _serve_case(name: str, seed: int, max_steps: int, evaluate: bool | None) -> Stats:
    stats = Stats()
    prog = schedules.find_program(name)
    result = schedules.run_case(prog, seed, stats, max_steps=max_steps, evaluate=evaluate)
    if prog.family in CANARY_FAMILIES or any(f.kind.startswith("crash") for f in result.failures):
        schedules.progress("canary", result.calls)
        _canary(seed)
    return stats


def _serve_replay(name: str, calls: list[Call]) -> str:
    """Apply the calls and check the schedule (the evaluator included); what happened."""
    prog = schedules.find_program(name)
    sch = schedules.new_schedule(prog)
    for call in calls:
        schedules.progress("primitive", [call])
        try:
            call.apply(sch)
        except Exception as e:  # a refused or crashing variant is another case
            return f"call refused: {type(e).__name__}"
    schedules.check_schedule(prog, sch, 0, Stats(), lambda k, m: None, evaluate=prog.cheap)
    schedules.progress("canary", calls)
    _canary(1)
    return "survived"


def _serve_threads(names: list[str], seed: int, threads: int) -> Stats:
    """Build `names` from `threads` threads at once (each program by two threads), then call each
    built function from `threads` threads at once, each on its own arguments."""
    import numpy as np

    import xtir
    from xtir import XtirError

    stats = Stats()
    progs = []
    for name in names:
        prog = schedules.find_program(name)
        try:
            prog.module  # noqa: B018
        except XtirError:
            continue
        progs.append(prog)
    work = [p for p in progs for _ in range(2)]
    random.Random(seed).shuffle(work)
    lock = threading.Lock()
    built: dict[str, tuple[Any, Any]] = {}

    def fail(prog: Any, kind: str, message: str) -> None:
        with lock:
            stats.failures.append(Failure(kind, prog.name, seed, [], "", f"threads mode: {message}", mode="threads"))

    def build(prog: Any) -> None:
        try:
            compiled = xtir.build(prog.module, entry=prog.entry) if prog.entry else xtir.build(prog.module)
        except XtirError:
            return
        except Exception as e:
            fail(prog, "crash-build", schedules._exception_text(e))
            return
        with lock:
            built[prog.name] = (prog, compiled)
        call(prog, compiled, 0)

    def call(prog: Any, compiled: Any, k: int) -> None:
        arrays = prog.arguments(np.random.default_rng(seed + k))
        before = [a.copy() for a in arrays]
        try:
            compiled(*arrays)
        except XtirError:
            return
        except Exception as e:
            fail(prog, "crash-run", schedules._exception_text(e))
            return
        with lock:
            stats.thread_calls += 1
        if violations := arrays.violations():
            fail(prog, "memory-unsafe", "; ".join(violations))
        elif prog.defined and prog.runnable:
            diff = compare(arrays, before, prog.outputs, prog.expected(before), *prog.tolerance)
            if diff is not None:
                fail(prog, "mismatch-jit", diff)

    schedules.progress("threads", [])
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(build, work))
        # one compiled function called by every thread at once
        calls = [(prog, compiled, k) for prog, compiled in built.values() for k in range(1, threads + 1)]
        list(pool.map(lambda c: call(*c), calls))
    schedules.progress("canary", [])
    for k in range(3):  # a freed TargetMachine may survive one build
        _canary(seed * 3 + k)
    stats.thread_rounds += 1
    for f in stats.failures:
        schedules.classify(f, minimized=False)
    return stats


def _serve_malformed(seeds: list[int], deadline: float) -> Any:
    """Malformed input for xtir-opt, and broken numpy lines for `xtir-run --check` (which builds)."""
    from tests.fuzz import ir_mutation

    stats = ir_mutation.fuzz_malformed(seeds, deadline=deadline)
    return ir_mutation.fuzz_run_check(seeds[: max(1, len(seeds) // 5)], stats, deadline=deadline)


def serve() -> None:
    """The child: answer requests from stdin on a private copy of stdout (fd 1 goes to stderr)."""
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer

    def report(stage: str, calls: list[Call]) -> None:
        _send(protocol_out, ("progress", (stage, calls)))

    schedules.PROGRESS = report
    while True:
        header = requests.read(8)
        if len(header) < 8:
            return
        kind, *args = pickle.loads(requests.read(struct.unpack("<Q", header)[0]))
        if kind == "quit":
            return
        if kind == "case":
            answer: Any = _serve_case(*args)
        elif kind == "replay":
            answer = _serve_replay(*args)
        elif kind == "threads":
            answer = _serve_threads(*args)
        elif kind == "malformed":
            answer = _serve_malformed(*args)
        elif kind == "selftest":  # the harness's own tests: a child that dies, or hangs, on request
            schedules.progress("selftest", [])
            how, value = args
            if how == "signal":
                os.kill(os.getpid(), value)
            time.sleep(value)
            answer = "slept"
        else:
            raise ValueError(f"unknown request {kind!r}")
        _send(protocol_out, ("result", answer))


if __name__ == "__main__":
    serve()
