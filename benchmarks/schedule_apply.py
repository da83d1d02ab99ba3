"""Seconds to apply one sampled schedule of the tuning spaces (what a tuning trial's draws cost):
`default_space` and `gpu_space` on the 1024³ matmuls of benchmarks/tune_matmul.py, the same
seeds each run. A sample the space refuses counts with the time it took to refuse.

Then the tuner's other draw: a mutation (one decision of a sample changed, xtir.tune.sampling.mutate),
applied from scratch ("mutation") and with the samples' states cached by trace prefix, as the
tuner applies it ("mutation, cached": it resumes after the primitives it shares with its parent;
xtir/tune/state_cache.py). A base without the cache measures only the samples.

Run: python benchmarks/schedule_apply.py [--samples N] [--base DIR] [--rounds R]

With --base DIR (a checkout of another commit, e.g. `git archive BASE | tar -x -C DIR`), the
same measurement runs alternately on DIR's sources and on this checkout's, R rounds each, in
child processes started one after the other (so that both see the same load on a shared
machine), and prints the ratio of the mean times.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"xtir": "xtir", "xtir.dialects": "dialects", "xtir.lowering": "lowering", "xtir.passes": "passes"}
SPACES = [("default_space", "abt"), ("default_space", "ab"), ("gpu_space", "abt"), ("gpu_space", "ab")]


def measure(samples: int) -> dict[str, list[float]]:
    """Seconds per sample, per (space, workload)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from tune_matmul import matmul_text

    import xtir
    from xtir.tune.sampling import mutate
    from xtir.tune.spaces import default_space
    from xtir.tune.spaces_gpu import gpu_space

    try:
        from xtir.tune.state_cache import StateCache
    except ImportError:  # a base from before the cache
        StateCache = None

    spaces = {"default_space": default_space, "gpu_space": gpu_space}
    result = {}
    for space, workload in SPACES:
        mod = xtir.parse(matmul_text(1024, workload == "abt"))
        cache = StateCache() if StateCache else None
        applied = [_timed(mod, spaces[space], seed, cache=cache) for seed in range(samples)]
        result[f"{space} {workload}"] = [seconds for seconds, _ in applied]
        if cache is None:
            continue
        rng = random.Random(0)
        mutations = [mutate(sch.decision_trace(), rng) for _, sch in applied]
        result[f"{space} {workload}, mutation"] = [_timed(mod, spaces[space], k, m)[0] for k, m in enumerate(mutations)]
        result[f"{space} {workload}, mutation, cached"] = [_timed(mod, spaces[space], k, m, cache)[0]
                                                           for k, m in enumerate(mutations)]
    return result


def _timed(mod, space, seed: int, decisions=None, cache=None) -> tuple[float, Any]:
    """Seconds to apply `space` (refused or not), and the schedule."""
    from xtir.errors import XtirError
    from xtir.schedule import Schedule

    start = time.perf_counter()
    sch = Schedule(mod, seed=seed, decisions=decisions, **({"cache": cache} if cache is not None else {}))
    try:
        space(sch)
    except XtirError:
        pass
    return time.perf_counter() - start, sch


def _child(source: Path, samples: int) -> dict[str, list[float]]:
    """`measure` in a child process importing xtir from `source` (this checkout's editable install remapped)."""
    mapping = {name: str(source / path) for name, path in PACKAGES.items()}
    code = (
        "import sys, json\n"
        "for finder in sys.meta_path:\n"
        "    m = sys.modules.get(getattr(finder, '__module__', ''))\n"
        "    if m is not None and hasattr(m, 'MAPPING'):\n"
        f"        m.MAPPING.update({mapping!r})\n"
        f"sys.path.insert(0, {str(ROOT / 'benchmarks')!r})\n"
        "import schedule_apply\n"
        f"print(json.dumps(schedule_apply.measure({samples})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=source)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--base", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.base is None:
        for key, seconds in measure(args.samples).items():
            print(f"{key}: {statistics.mean(seconds):.3f} s a sample (max {max(seconds):.2f})")
        return
    runs: dict[str, dict[str, list[float]]] = {"base": {}, "this": {}}
    for _ in range(args.rounds):
        for label, source in (("base", args.base.resolve()), ("this", ROOT)):
            for key, seconds in _child(source, args.samples).items():
                runs[label].setdefault(key, []).extend(seconds)
    print("| space, workload | base s/sample (mean, max) | this s/sample (mean, max) | base / this |")
    print("|---|---|---|---|")
    for key, this in runs["this"].items():
        base = runs["base"].get(key)
        if base is None:  # a mutation row, which a base without the cache does not measure
            print(f"| {key} | | {statistics.mean(this):.3f}, {max(this):.2f} | |")
            continue
        print(f"| {key} | {statistics.mean(base):.3f}, {max(base):.2f} | {statistics.mean(this):.3f}, "
              f"{max(this):.2f} | {statistics.mean(base) / statistics.mean(this):.2f}x |")


if __name__ == "__main__":
    main()
