"""The hand GEMM's code quality without a GPU: ptxas registers and spills, and instruction counts of
its main loops in the PTX.

Run: python benchmarks/gemm_ptx.py [--n 1024 1000] [--arch sm_90] [--tile-k 8] [--phase-grid] [--pad]

For each size n (C = A·B, all n x n) the hand schedule of examples/seed_gpu.py is emitted as
CUDA C and compiled by `nvcc -ptx` and `ptxas -v`. A main loop is a PTX loop (a label and a
backward branch to it) with fma instructions and no loop inside; a kernel versioned on the edge
of the matrix has one per version. Per loop it prints the counts per k step (the loop runs
`tile_k` of them an iteration): global loads and shared loads/stores, scalar vs .v4, fma,
setp and branches. Needs nvcc and ptxas on PATH.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import seed_gpu  # noqa: E402

from xtir.build import cuda_program  # noqa: E402

KINDS = ("ld.global", "ld.global.v4", "ld.shared", "ld.shared.v4", "st.shared", "st.shared.v4", "fma", "setp", "bra",
         "predicated", "bar.sync")
INSTRUCTION = re.compile(r"^\s*(@!?%p\d+\s+)?([a-z][\w.:]*)")


def kinds(line: str) -> list[str]:
    """The KINDS a PTX line counts as: a load or store by space and width (scalar, or .v4 for
    four 32-bit lanes), fma.rn.f32, setp, bra, any predicated instruction, a barrier."""
    m = INSTRUCTION.match(line)
    if m is None:
        return []
    parts = m[2].split(".")
    found = ["predicated"] if m[1] else []
    if parts[0] in ("ld", "st") and len(parts) > 1 and parts[1] in ("global", "shared"):
        kind = f"{parts[0]}.{parts[1]}" + (".v4" if "v4" in parts else "")
        found += [kind] if kind in KINDS else []
    elif m[2].startswith("fma.rn.f32"):
        found.append("fma")
    elif parts[0] in ("setp", "bra"):
        found.append(parts[0])
    elif m[2] in ("bar.sync", "barrier.sync"):
        found.append("bar.sync")
    return found


LABEL = re.compile(r"^(\$L__BB\d+_\d+):")
BRANCH = re.compile(r"bra(\.uni)?\s+(\$L__BB\d+_\d+);")


def main_loops(ptx: str) -> list[Counter]:
    """The counts of each innermost PTX loop holding fma instructions, in program order."""
    lines = ptx.splitlines()
    labels = {m[1]: k for k, line in enumerate(lines) if (m := LABEL.match(line))}
    loops = [(labels[m[2]], k) for k, line in enumerate(lines)
             if (m := BRANCH.search(line)) and m[2] in labels and labels[m[2]] < k]
    innermost = [(a, b) for a, b in loops if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in loops)]
    result = []
    for start, stop in innermost:
        counts = Counter(kind for line in lines[start:stop + 1] for kind in kinds(line))
        if counts["fma"]:
            result.append(counts)
    return result


def ptxas_usage(source: Path, arch: str) -> str:
    """ptxas -v's registers / spill lines for the kernel."""
    out = subprocess.run(["nvcc", f"-arch={arch}", "-c", "-Xptxas", "-v", str(source), "-o", "/dev/null"],
                         capture_output=True, text=True, check=True).stderr
    used = re.search(r"Used (\d+) registers", out)
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", out)
    return (f"{used[1] if used else '?'} registers, "
            f"{spills[1] if spills else '?'} B spill stores, {spills[2] if spills else '?'} B spill loads")


def compile_ptx(source_text: str, arch: str) -> tuple[str, str]:
    """The PTX of a CUDA C source, and ptxas -v's registers and spills."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "gemm.cu"
        source.write_text(source_text)
        ptx = subprocess.run(["nvcc", f"-arch={arch}", "-ptx", str(source), "-o", "-"],
                             capture_output=True, text=True, check=True).stdout
        return ptx, ptxas_usage(source, arch)


def hand_gemm_source(n: int, tile_k: int = 8, phase_grid: bool = False, split_columns: bool = False,
                     pad: bool = False) -> str:
    pipeline = seed_gpu.hand_gemm(tile_k, phase_grid=phase_grid, split_columns=split_columns, pad=pad)
    return cuda_program(seed_gpu.scheduled("gpu_matmul.mlir", pipeline, n)).source


def report(n: int, arch: str, tile_k: int, phase_grid: bool = False, split_columns: bool = False,
           pad: bool = False) -> str:
    """The counts for size n; with `pad` (hand_gemm(pad=True), for an n the tiles do not divide)
    the GEMM padded by pad-einsum instead of versioned on its edge."""
    ptx, usage = compile_ptx(hand_gemm_source(n, tile_k, phase_grid, split_columns, pad), arch)
    whole = Counter(kind for line in ptx.splitlines() for kind in kinds(line))
    title = f"n = {n}{' (pad-einsum)' if pad else ''}"
    lines = [f"{title}: {usage}; whole kernel: " + ", ".join(f"{kind} {whole[kind]}" for kind in KINDS[:6])]
    for k, counts in enumerate(main_loops(ptx)):
        per_step = ", ".join(f"{kind} {counts[kind] / tile_k:g}" for kind in KINDS)
        lines.append(f"  main loop {k} (per k step): {per_step}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1024, 1000])
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--tile-k", type=int, default=8)
    parser.add_argument("--phase-grid", action="store_true", help="hand_gemm(phase_grid=True)")
    parser.add_argument("--split-columns", action="store_true", help="hand_gemm(split_columns=True): vthread.x")
    parser.add_argument("--pad", action="store_true",
                        help="also hand_gemm(pad=True) for each n that 128 or tile_k does not divide")
    args = parser.parse_args()
    for n in args.n:
        print(report(n, args.arch, args.tile_k, args.phase_grid, args.split_columns))
        if args.pad and (n % 128 or n % args.tile_k):
            print(report(n, args.arch, args.tile_k, args.phase_grid, args.split_columns, pad=True))


if __name__ == "__main__":
    main()
