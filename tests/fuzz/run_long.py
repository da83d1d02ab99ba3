"""The long fuzzing profile: random schedules of fixed and generated programs, threads, malformed input.

    .venv/bin/python tests/fuzz/run_long.py --seconds 600 --seed 1000

For about --seconds, seeds --seed, --seed + 1, ...: each seed schedules every fixed fuzz
program and one generated program of each family (tests/fuzz/gen_programs.py:
`gen.<family>.<seed>`), all in a child process (tests/fuzz/isolation.py), so that a case
that kills the process is a `crash-process` finding; every --threads-every seeds a threads
round builds and calls programs from several threads at once. --malformed-share of the
time goes to malformed input for xtir-opt and `xtir-run --check` (tests/fuzz/ir_mutation.py).

Prints the counts (cases per family and per template, schedules, accepted / rejected
primitive calls, builds, guard-zone checks, comparisons with numpy and the evaluator,
failures by kind), when each class of failure was first seen (known bugs by their id in
schedules.KNOWN_BUGS, e.g. `17.1` for item 1 of issue 17), and each new failure, minimized,
with a Python reproducer and its xtir-opt pipeline. Exit status: 0 when there was no new
failure, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz import gen_programs, ir_mutation, isolation, schedules  # noqa: E402

# threads rounds build and call programs of these families: pipelines, odd names (non-ASCII, runtime
# symbols), several functions per module, every element type
THREAD_FAMILIES = ("pipeline", "names", "functions", "types", "hunt")


class FirstSeen:
    """When each class of failure (a known bug's id, else `new <kind>`) showed up first."""

    def __init__(self, start: float):
        self.start = start
        self.first: dict[str, tuple[float, str]] = {}
        self.count: Counter = Counter()

    def add(self, failures: list[schedules.Failure]) -> None:
        for f in failures:
            key = f.known or f"new {f.kind}"
            self.count[key] += 1
            self.first.setdefault(key, (time.monotonic() - self.start, f"{f.program} seed {f.seed}"))

    def report(self) -> str:
        lines = ["failure classes, first seen (s after start), count, first case:"]
        for key, (seconds, case) in sorted(self.first.items(), key=lambda kv: kv[1][0]):
            lines.append(f"  {key:36s} {seconds:7.0f} s  x{self.count[key]:<5d} {case}")
        return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="time budget (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--max-steps", type=int, default=10, help="most primitives per schedule (default 10)")
    parser.add_argument("--programs", help="comma-separated fixed program names (default: all; 'none': none)")
    parser.add_argument("--families", help="comma-separated generated families (default: all; 'none': none)")
    parser.add_argument("--evaluate", action="store_true", help="also run the reference evaluator on every case")
    parser.add_argument("--threads-every", type=int, default=5, help="a threads round every N seeds (0: none)")
    parser.add_argument("--malformed-share", type=float, default=0.1, help="share of the time for malformed input")
    parser.add_argument("--no-minimize", action="store_true", help="print failures as found, not minimized")
    parser.add_argument("--show", type=int, default=20, help="most new failures to print (default 20)")
    args = parser.parse_args(argv)

    names = _choose(args.programs, list(schedules.programs()), "programs", parser)
    families = _choose(args.families, list(gen_programs.FAMILIES), "families", parser)

    start = time.monotonic()
    schedule_deadline = start + args.seconds * (1 - args.malformed_share)
    stats = schedules.Stats()
    per_family: dict[str, schedules.Stats] = defaultdict(schedules.Stats)
    seen = FirstSeen(start)
    worker = isolation.Worker()
    seed = args.seed
    last_note = start
    evaluate = True if args.evaluate else None
    try:
        while time.monotonic() < schedule_deadline:
            targets = names + [f"gen.{fam}.{seed}" for fam in families]
            for name in targets:
                if time.monotonic() > schedule_deadline:
                    break
                case = schedules.Stats()
                seen.add(isolation.run_case(worker, name, seed, case, args.max_steps, evaluate,
                                            minimize=not args.no_minimize))
                stats.merge(case)
                per_family[schedules.find_program(name).family].merge(case)
            if args.threads_every and (seed - args.seed) % args.threads_every == 0 and time.monotonic() < schedule_deadline:
                programs = [f"gen.{fam}.{1_000_000 + seed}" for fam in THREAD_FAMILIES]
                seen.add(isolation.run_threads(worker, programs, seed, stats))
            seed += 1
            if time.monotonic() - last_note > 30:
                last_note = time.monotonic()
                print(f"... {time.monotonic() - start:.0f} s: {stats.schedules} cases, seeds {args.seed}..{seed - 1}, "
                      f"{len(stats.failures)} failures ({len(stats.new_failures)} new), "
                      f"{worker.started} child processes", file=sys.stderr, flush=True)
        malformed = ir_mutation.MalformedStats()
        deadline = start + args.seconds
        mseed = args.seed
        while time.monotonic() < deadline:
            ok, answer = worker.request(("malformed", list(range(mseed, mseed + 20)), deadline), "malformed")
            if ok:
                malformed.merge(answer)
            mseed += 20
    finally:
        worker.close()

    print(f"# xtir fuzzing: {time.monotonic() - start:.0f} s, schedule seeds {args.seed}..{seed - 1}, "
          f"malformed seeds {args.seed}..{mseed - 1}, {worker.started} child processes\n")
    print(stats.report())
    print()
    print(family_table(per_family))
    print()
    print(malformed.report())
    print()
    print(seen.report())
    for bug_id in sorted({b for b, _ in ir_mutation.KNOWN_MALFORMED}):
        print(f"  {bug_id:36s} (malformed input) {malformed.known} known hits in {malformed.cases} inputs")
    return _show_new(stats, malformed, args)


def family_table(per_family: dict[str, schedules.Stats]) -> str:
    """Per program family: cases, primitive calls, builds, numerical comparisons and failures."""
    head = ("family", "cases", "parse-refused", "prims ok/refused", "built", "build-refused", "compared",
            "evaluated", "race-checked", "mismatches", "crashes", "other", "known")
    rows = [head]
    for fam, st in sorted(per_family.items()):
        new = st.new_failures
        mismatches = sum(1 for f in new if f.kind.startswith("mismatch") or f.kind in ("race", "memory-unsafe"))
        crashes = sum(1 for f in new if f.kind.startswith("crash") or f.kind == "hang")
        rows.append((fam, st.schedules, sum(st.parse_rejected.values()),
                     f"{sum(st.accepted.values())}/{sum(st.rejected.values())}", st.built, st.build_rejected,
                     st.compared, st.evaluated, st.race_checked, mismatches, crashes, len(new) - mismatches - crashes,
                     len(st.failures) - len(new)))
    widths = [max(len(str(r[k])) for r in rows) for k in range(len(head))]
    return "per family:\n" + "\n".join("  " + "  ".join(str(v).rjust(w) for v, w in zip(r, widths)) for r in rows)


def _choose(option: str | None, known: list[str], what: str, parser: argparse.ArgumentParser) -> list[str]:
    if option is None:
        return known
    if option == "none":
        return []
    chosen = option.split(",")
    if unknown := [n for n in chosen if n not in known]:
        parser.error(f"unknown {what} {unknown}; known: {', '.join(known)}")
    return chosen


def _show_new(stats: schedules.Stats, malformed: ir_mutation.MalformedStats, args: argparse.Namespace) -> int:
    new = stats.new_failures
    seen: set[tuple[str, str, str]] = set()
    shown = 0
    for failure in new:
        if shown >= args.show:
            print(f"\n... and {len(new) - shown} more new failures")
            break
        if not args.no_minimize and failure.kind not in schedules.NOT_MINIMIZED_HERE:
            try:
                failure = failure.minimized or schedules.minimize(failure)
            except Exception as e:  # keep the unminimized case
                print(f"(minimizing failed: {type(e).__name__}: {e})")
        elif failure.minimized is not None:
            failure = failure.minimized
        key = (failure.kind, failure.program, failure.trace or str(failure.calls))
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
