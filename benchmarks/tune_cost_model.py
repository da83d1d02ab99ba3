"""Does the cost model make the search measure fewer candidates? The same float32 matmul
(C = A·Bᵀ) tuned with cost_model="none" and "xgb" from the same seeds, in one process.

Run: python benchmarks/tune_cost_model.py [--n N] [--trials T] [--seeds S]

Prints, per run, the best GFLOP/s after half and all of the trials, and how many trials it
took to reach 90 % of the best any run found. Timings are only comparable on a quiet
machine: a loaded one makes a candidate's measurement, hence the model's training data, noisy.
"""

from __future__ import annotations

import argparse
import time

from tune_matmul import matmul_text

import xtir
from xtir.tune import search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    text = matmul_text(args.n, True)
    histories: dict[tuple[str, int], list[float]] = {}
    seconds: dict[tuple[str, int], float] = {}
    for seed in range(args.seeds):
        for model in ("none", "xgb"):
            start = time.perf_counter()
            histories[model, seed] = search(xtir.parse(text), trials=args.trials, seed=seed, cost_model=model).history
            seconds[model, seed] = time.perf_counter() - start
    goal = 0.9 * max(max(h) for h in histories.values())
    half = args.trials // 2
    print(f"n={args.n}, {args.trials} trials; goal: 90 % of the best found, {goal:.1f} GFLOP/s\n")
    print(f"| cost model | seed | best @{half} | best @{args.trials} | trials to goal | seconds |")
    print("|---|---|---|---|---|---|")
    for (model, seed), history in histories.items():
        reached = next((str(k + 1) for k, v in enumerate(history) if v >= goal), "-")
        took = seconds[model, seed]
        print(f"| {model} | {seed} | {history[half - 1]:.1f} | {history[-1]:.1f} | {reached} | {took:.0f} |")


if __name__ == "__main__":
    main()
