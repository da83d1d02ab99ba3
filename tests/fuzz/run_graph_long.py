"""The long graph-level fuzzing profile (tests/fuzz/graph_fuzz.py): random PyTorch models imported
with from_torch, compiled with compile_model (default schedule or none, graph passes or none) and
compared with torch in float64.

    .venv/bin/python tests/fuzz/run_graph_long.py --seconds 900 --seed 0

Cases run in a child process (a case that kills it is a `crash-process` failure, one that runs
past --case-seconds a `hang`). Prints the outcomes by kind, by element type and variant, the
refusals grouped by message, and each failure with a one-line reproducer. Exit status: 0 when no
case failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as CaseTimeout
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.graph_fuzz import Case, Outcome, random_case, refusal_key, reproducer, run_case  # noqa: E402


def run_isolated(pool: ProcessPoolExecutor, case: Case, seconds: float) -> tuple[Outcome, ProcessPoolExecutor]:
    """`case`'s outcome from the child, and the pool to use next (a fresh one after a dead child)."""
    future = pool.submit(run_case, case)
    try:
        return future.result(timeout=seconds), pool
    except BrokenProcessPool:
        outcome = Outcome("crash-process", "the child process died")
    except CaseTimeout:
        outcome = Outcome("hang", f"past {seconds} s")
        for process in list(pool._processes.values()):  # noqa: SLF001 - the stuck child is ours to end
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    return outcome, ProcessPoolExecutor(max_workers=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="time budget (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--case-seconds", type=float, default=120.0, help="a case's time limit (default 120)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    outcomes: Counter = Counter()
    by_variant: Counter = Counter()
    refusals: Counter = Counter()
    failures: list[tuple[Case, Outcome]] = []
    pool = ProcessPoolExecutor(max_workers=1)
    seed = args.seed
    while time.monotonic() - start < args.seconds:
        case = random_case(seed)
        outcome, pool = run_isolated(pool, case, args.case_seconds)
        outcomes[outcome.kind] += 1
        by_variant[case.dtype, str(case.pipeline is not None), str(case.schedule), outcome.kind] += 1
        if outcome.kind == "refused":
            refusals[refusal_key(outcome)] += 1
        if outcome.failed:
            print(f"seed {seed}: {outcome.kind}: {case.describe()}\n  {outcome.detail[:2000]}", flush=True)
            failures.append((case, outcome))
        seed += 1
    pool.shutdown()
    print(f"\n{seed - args.seed} cases (seeds {args.seed}..{seed - 1}) in {time.monotonic() - start:.0f} s: "
          + ", ".join(f"{k} {n}" for k, n in outcomes.most_common()))
    print("by dtype, graph passes, schedule, outcome:")
    for (dtype, passes, schedule, kind), n in sorted(by_variant.items()):
        print(f"  {dtype:8s} passes={passes:5s} schedule={schedule:8s} {kind:14s} {n}")
    print("refusals by message:")
    for words, n in refusals.most_common(20):
        print(f"  {n:5d}  {words}")
    for case, outcome in failures:
        print(f"\nFAILURE {outcome.kind} ({outcome.stage}): {case.describe()}\n  {outcome.detail[:3000]}\n  {reproducer(case)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
