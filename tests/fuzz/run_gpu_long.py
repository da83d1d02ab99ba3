"""The long GPU fuzzing profile (tests/fuzz/gpu_fuzz.py): random programs and GPU schedules through
target "cuda-cpu" with the race detector, compared with numpy.

    .venv/bin/python tests/fuzz/run_gpu_long.py --seconds 1200 --seed 0

Cases run in a child process (a case that kills it is a `crash-process` failure, one that runs
past --case-seconds a `hang`). Prints the outcomes by kind and by program, the refusals by their
first words, and each failure, minimised, with a Python reproducer. Exit status: 0 when no case
failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as CaseTimeout
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.gpu_fuzz import (  # noqa: E402
    Case,
    Outcome,
    minimize,
    random_case,
    refusal_key,
    reproducer,
    run_case,
)


def run_isolated(pool: ProcessPoolExecutor, case: Any, seconds: float, run: Callable[[Any], Any] = run_case,
                 outcome_type: Callable[[str, str], Any] = Outcome) -> tuple[Any, ProcessPoolExecutor]:
    """`run(case)`'s outcome from the child, and the pool to use next (a fresh one after a dead child);
    a dead child or one past `seconds` is an `outcome_type` of kind crash-process or hang."""
    future = pool.submit(run, case)
    try:
        return future.result(timeout=seconds), pool
    except BrokenProcessPool:
        outcome = outcome_type("crash-process", "the child process died")
    except CaseTimeout:
        outcome = outcome_type("hang", f"past {seconds} s")
        for process in list(pool._processes.values()):  # noqa: SLF001 - the stuck child is ours to end
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    return outcome, ProcessPoolExecutor(max_workers=1)


def campaign_parser(doc: str) -> argparse.ArgumentParser:
    """The options of a campaign of isolated cases: --seconds, --seed, --case-seconds."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="time budget (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--case-seconds", type=float, default=120.0, help="a case's time limit (default 120)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = campaign_parser(__doc__)
    parser.add_argument("--no-minimize", action="store_true", help="report failures as found")
    args = parser.parse_args(argv)
    start = time.monotonic()
    outcomes: Counter = Counter()
    by_program: Counter = Counter()
    refusals: Counter = Counter()
    failures: list[tuple[Case, Outcome]] = []
    pool = ProcessPoolExecutor(max_workers=1)
    seed = args.seed
    while time.monotonic() - start < args.seconds:
        case = random_case(seed)
        outcome, pool = run_isolated(pool, case, args.case_seconds)
        outcomes[outcome.kind] += 1
        by_program[case.program.name, "space" if case.space else "drawn", outcome.kind] += 1
        if outcome.kind == "refused":
            refusals[refusal_key(outcome)] += 1
        if outcome.failed:
            print(f"seed {seed}: {outcome.kind}: {case.describe()}\n  {outcome.detail[:2000]}", flush=True)
            failures.append((case, outcome))
        seed += 1
    pool.shutdown()
    print(f"\n{seed - args.seed} cases (seeds {args.seed}..{seed - 1}) in {time.monotonic() - start:.0f} s: "
          + ", ".join(f"{k} {n}" for k, n in outcomes.most_common()))
    print("by program, schedule, outcome:")
    for (program, schedule, kind), n in sorted(by_program.items()):
        print(f"  {program:12s} {schedule:9s} {kind:14s} {n}")
    print("refusals:")
    for words, n in refusals.most_common(12):
        print(f"  {n:5d}  {words}")
    for case, outcome in failures:
        if not args.no_minimize and outcome.kind in ("wrong", "race", "crash", "invalid-ir", "compile"):
            case, outcome = minimize(case, outcome)
        print(f"\nFAILURE {outcome.kind}: {case.describe()}\n  {outcome.detail[:3000]}\n  {reproducer(case)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
