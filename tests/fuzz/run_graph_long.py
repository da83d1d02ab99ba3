"""The long graph-level fuzzing profile (tests/fuzz/graph_fuzz.py): random PyTorch models imported
with from_torch, compiled with compile_model (for llvm or, in a fraction of cases, cuda-cpu with
racecheck; default schedule or none, graph passes or none) and compared with torch in float64.

    .venv/bin/python tests/fuzz/run_graph_long.py --seconds 900 --seed 0

Cases run in a child process (a case that kills it is a `crash-process` failure, one that runs
past --case-seconds a `hang`). Prints the outcomes by kind, by element type and variant, the
refusals grouped by message, and each failure with a one-line reproducer. Exit status: 0 when no
case failed, 1 otherwise.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.graph_fuzz import Case, Outcome, random_case, refusal_key, reproducer, run_case  # noqa: E402
from tests.fuzz.run_gpu_long import campaign_parser, run_isolated  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = campaign_parser(__doc__).parse_args(argv)
    start = time.monotonic()
    outcomes: Counter = Counter()
    by_variant: Counter = Counter()
    refusals: Counter = Counter()
    failures: list[tuple[Case, Outcome]] = []
    pool = ProcessPoolExecutor(max_workers=1)
    seed = args.seed
    while time.monotonic() - start < args.seconds:
        case = random_case(seed)
        outcome, pool = run_isolated(pool, case, args.case_seconds, run_case, Outcome)
        outcomes[outcome.kind] += 1
        by_variant[case.target, case.dtype, str(case.pipeline is not None), str(case.schedule), outcome.kind] += 1
        if outcome.kind == "refused":
            refusals[refusal_key(outcome)] += 1
        if outcome.failed:
            print(f"seed {seed}: {outcome.kind}: {case.describe()}\n  {outcome.detail[:2000]}", flush=True)
            failures.append((case, outcome))
        seed += 1
    pool.shutdown()
    print(f"\n{seed - args.seed} cases (seeds {args.seed}..{seed - 1}) in {time.monotonic() - start:.0f} s: "
          + ", ".join(f"{k} {n}" for k, n in outcomes.most_common()))
    print("by target, dtype, graph passes, schedule, outcome:")
    for (target, dtype, passes, schedule, kind), n in sorted(by_variant.items()):
        print(f"  {target:8s} {dtype:8s} passes={passes:5s} schedule={schedule:8s} {kind:14s} {n}")
    print("refusals by message:")
    for words, n in refusals.most_common(20):
        print(f"  {n:5d}  {words}")
    for case, outcome in failures:
        print(f"\nFAILURE {outcome.kind} ({outcome.stage}): {case.describe()}\n  {outcome.detail[:3000]}\n  {reproducer(case)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
