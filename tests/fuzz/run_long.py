"""The long fuzzing profile: random schedules and malformed inputs for a given time.

    .venv/bin/python tests/fuzz/run_long.py --seconds 600 --seed 1000

Runs seeds --seed, --seed + 1, ... over every fuzz program (tests/fuzz/schedules.py) for
about --seconds, giving --malformed-share of the time to malformed-input fuzzing of
xtir-opt (tests/fuzz/ir_mutation.py), then prints the counts: schedules tried,
primitives accepted / rejected, builds, comparisons, failures by kind (crashes and
mismatches must be 0), and each new failure (one not matching schedules.KNOWN_BUGS),
minimized, with a Python reproducer and its xtir-opt pipeline. Exit status: 0 when
there was no new failure, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz import ir_mutation, schedules  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="time budget (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--max-steps", type=int, default=10, help="most primitives per schedule (default 10)")
    parser.add_argument("--programs", help="comma-separated program names (default: all)")
    parser.add_argument("--evaluate", action="store_true", help="also run the reference evaluator on every case")
    parser.add_argument("--malformed-share", type=float, default=0.2, help="share of the time for malformed input")
    parser.add_argument("--no-minimize", action="store_true", help="print failures as found, not minimized")
    parser.add_argument("--show", type=int, default=20, help="most new failures to print (default 20)")
    args = parser.parse_args(argv)

    names = args.programs.split(",") if args.programs else list(schedules.programs())
    unknown = [n for n in names if n not in schedules.programs()]
    if unknown:
        parser.error(f"unknown programs {unknown}; known: {', '.join(schedules.programs())}")

    start = time.monotonic()
    schedule_deadline = start + args.seconds * (1 - args.malformed_share)
    stats = schedules.Stats()
    seed = args.seed
    last_note = start
    while time.monotonic() < schedule_deadline:
        schedules.fuzz([seed], names, args.max_steps, True if args.evaluate else None, schedule_deadline, stats)
        seed += 1
        if time.monotonic() - last_note > 30:
            last_note = time.monotonic()
            print(f"... {stats.schedules} schedules, seeds {args.seed}..{seed - 1}, "
                  f"{len(stats.failures)} failures ({len(stats.new_failures)} new)", file=sys.stderr, flush=True)

    malformed = ir_mutation.MalformedStats()
    deadline = start + args.seconds
    mseed = args.seed
    while time.monotonic() < deadline:
        ir_mutation.fuzz_malformed(range(mseed, mseed + 50), malformed, deadline=deadline)
        mseed += 50

    print(f"# xtir fuzzing: {time.monotonic() - start:.0f} s, schedule seeds {args.seed}..{seed - 1}, "
          f"malformed seeds {args.seed}..{args.seed + malformed.cases - 1}\n")
    print(stats.report())
    print()
    print(malformed.report())
    known = sorted({f.known for f in stats.failures if f.known})
    if known:
        print(f"\nknown bugs seen: {', '.join(f'{k} x{sum(1 for f in stats.failures if f.known == k)}' for k in known)}")

    new = stats.new_failures
    seen: set[tuple[str, str, str]] = set()
    shown = 0
    for failure in new:
        if shown >= args.show:
            print(f"\n... and {len(new) - shown} more new failures")
            break
        if not args.no_minimize:
            try:
                failure = failure.minimized or schedules.minimize(failure)
            except Exception as e:  # keep the unminimized case
                print(f"(minimizing failed: {type(e).__name__}: {e})")
        key = (failure.kind, failure.program, failure.trace)
        if key in seen:
            continue
        seen.add(key)
        shown += 1
        print(f"\n=== {failure.summary()}\n{failure.message.strip()[-3000:]}\n--- reproducer:\n{failure.reproducer()}")
        print(f"--- pipeline: {failure.trace or '(none)'}")
    for why, data, pargs, label, outcome in malformed.failures[: args.show]:
        print(f"\n=== malformed input {label} {' '.join(pargs)}: {why}\n{data[:800]!r}\n--- stderr:\n{outcome.stderr[-2000:]}")
    return 1 if new or malformed.failures else 0


if __name__ == "__main__":
    sys.exit(main())
