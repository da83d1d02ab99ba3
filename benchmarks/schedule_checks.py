"""What re-checking parallel and vectorized loops after each primitive costs (passes/loop_kind.py).

Run: python benchmarks/schedule_checks.py [--repeat R]

Applies the seed pipelines with the check and with it replaced by a no-op, in one process,
and prints the median time of each and their ratio: the seed tensorization (no marked
loops: the check only looks for them), the same with `parallel{loop=i_0}` before the
reorder (every later primitive re-checks i_0), and the GPU gemm of seed 002 (two
vectorized copy loops).
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path

import xtir
from xtir.passes import loop_kind

ROOT = Path(__file__).resolve().parent.parent
MATMUL_SEED = re.search(r"<<'END'\n(.*?)\nEND", (ROOT / "examples" / "seed_tensorize.sh").read_text(), re.S)


def pipelines() -> list[tuple[str, str, str]]:
    """(what, IR text, pipeline)."""
    assert MATMUL_SEED is not None
    seed = MATMUL_SEED.group(1).replace("\n", "")
    matmul = (ROOT / "examples" / "matmul.mlir").read_text()
    gemm = (ROOT / "tests" / "filecheck" / "passes" / "seed_gpu_gemm.mlir").read_text()
    gpu = re.findall(r"-p '([^']*)'", gemm)[1].replace(",test-block-regions", "")
    return [("seed tensorization", matmul, seed),
            ("seed tensorization, parallel i_0 first", matmul, seed.replace("reorder{", "parallel{loop=i_0},reorder{")),
            ("seed GPU gemm (2 vectorized loops)", gemm, gpu)]


def median_seconds(text: str, pipeline: str, repeat: int) -> float:
    module = xtir.parse(text)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        xtir.transform(module, pipeline)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    check = loop_kind.check_marked_loops
    print("| pipeline | without (ms) | with (ms) | ratio |\n| --- | ---: | ---: | ---: |")
    for what, text, pipeline in pipelines():
        median_seconds(text, pipeline, 1)  # warm caches (pass registry, imports)
        loop_kind.check_marked_loops = lambda *_: None
        off = median_seconds(text, pipeline, args.repeat)
        loop_kind.check_marked_loops = check
        on = median_seconds(text, pipeline, args.repeat)
        print(f"| {what} | {off * 1e3:.0f} | {on * 1e3:.0f} | {on / off:.2f} |")


if __name__ == "__main__":
    main()
