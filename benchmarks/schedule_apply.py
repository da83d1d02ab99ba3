"""Seconds to apply one sampled schedule of the tuning spaces (what a tuning trial's draws cost):
`default_space` and `gpu_space` on the 1024³ matmuls of benchmarks/tune_matmul.py, the same
seeds each run. A sample the space refuses counts with the time it took to refuse.

Run: python benchmarks/schedule_apply.py [--samples N] [--base DIR] [--rounds R]

With --base DIR (a checkout of another commit, e.g. `git archive BASE | tar -x -C DIR`), the
same measurement runs alternately on DIR's sources and on this checkout's, R rounds each, in
child processes started one after the other (so that both see the same load on a shared
machine), and prints the ratio of the mean times.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"xtir": "xtir", "xtir.dialects": "dialects", "xtir.lowering": "lowering", "xtir.passes": "passes"}
SPACES = [("default_space", "abt"), ("default_space", "ab"), ("gpu_space", "abt"), ("gpu_space", "ab")]


def measure(samples: int) -> dict[str, list[float]]:
    """Seconds per sample, per (space, workload)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from tune_matmul import matmul_text

    import xtir
    from xtir.errors import XtirError
    from xtir.schedule import Schedule
    from xtir.tune.spaces import default_space
    from xtir.tune.spaces_gpu import gpu_space

    spaces = {"default_space": default_space, "gpu_space": gpu_space}
    result = {}
    for space, workload in SPACES:
        mod = xtir.parse(matmul_text(1024, workload == "abt"))
        seconds = []
        for seed in range(samples):
            start = time.perf_counter()
            try:
                spaces[space](Schedule(mod, seed=seed))
            except XtirError:
                pass
            seconds.append(time.perf_counter() - start)
        result[f"{space} {workload}"] = seconds
    return result


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
    for key in runs["this"]:
        base, this = runs["base"][key], runs["this"][key]
        print(f"| {key} | {statistics.mean(base):.3f}, {max(base):.2f} | {statistics.mean(this):.3f}, "
              f"{max(this):.2f} | {statistics.mean(base) / statistics.mean(this):.1f}x |")


if __name__ == "__main__":
    main()
