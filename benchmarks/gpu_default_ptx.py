"""default-gpu-schedule's kernels as ptxas and the SASS show them, without a GPU: the evidence
for its tile sizes.

Run: python benchmarks/gpu_default_ptx.py [--cases mlp1 mlp64 1024 4096 1000x997 37x53x97]
         [--local 4 8] [--reduce 8 16] [--arch sm_90] [--no-hand]

Each case (the MLP of examples/mlp.mlir at batch 1 and 64, after fuse-ops; C = A·B matmuls,
`n` for n x n x n, `m x k` for m x m x k, `m x n x k`) goes through compile_model(target=
"cuda-cpu") with default-gpu-schedule's tiles (`Tiles`; each --local / --reduce value a row)
and each kernel's CUDA C through `nvcc -cubin -Xptxas -v` (registers, spills, shared memory)
and `cuobjdump -sass`. Per kernel it prints:

- the occupancy bound on sm_90 (64K registers, 228 KiB shared memory (1 KiB more a block
  reserved), 2048 threads and 32 blocks an SM; registers allocated per warp in 256s): the
  blocks an SM holds, the threads that makes, and what limits it;
- each innermost SASS loop with FFMAs: its FFMA, LDS (shared loads, any width), LDG (global
  loads) and other instructions per k step (a k step: one FFMA per output a thread computes,
  its accumulator's size), and FFMA per LDS. A kernel versioned on the edge of the data has a
  loop per version.

The hand GEMM of benchmarks/gpu_matmul.py (seed_gpu.GEMM_HAND: 8x8 a thread, A k-major, float4)
at n = 1024 is the row to compare with (--no-hand leaves it out). These are ptxas's numbers,
not a GPU's timings. Needs nvcc on PATH and cuobjdump with nvdisasm (the CUDA toolkit's, or
`pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm`); without them it says so and exits 0.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import xtir  # noqa: E402
from xtir.errors import XtirError  # noqa: E402
from xtir.model import compile_model  # noqa: E402
from xtir.passes.default_gpu_schedule import TILES, Tiles, schedule_report  # noqa: E402

REGISTERS = 65536
SHARED = 228 * 1024
SHARED_RESERVED = 1024
"""Shared memory the driver reserves per block (sm_80 on)."""
THREADS = 2048
BLOCKS = 32


def tools() -> tuple[str, str] | str:
    """nvcc and cuobjdump (with nvdisasm beside it), or why they are missing."""
    nvcc = shutil.which("nvcc")
    cuobjdump = shutil.which("cuobjdump")
    if cuobjdump is None or shutil.which("nvdisasm") is None:
        try:
            import nvidia

            wheel = next(Path(p) / "cu13" / "bin" for p in nvidia.__path__ if (Path(p) / "cu13" / "bin" / "nvdisasm").exists())
            cuobjdump = str(wheel / "cuobjdump") if (wheel / "cuobjdump").exists() else None
        except (ImportError, StopIteration):
            cuobjdump = None
    if nvcc is None or cuobjdump is None:
        return "nvcc, cuobjdump and nvdisasm are needed (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)"
    return nvcc, cuobjdump


@dataclass
class Usage:
    registers: int
    spill_stores: int
    spill_loads: int
    shared: int


def ptxas(nvcc: str, source: str, arch: str, cubin: Path) -> Usage:
    source_file = cubin.with_suffix(".cu")
    source_file.write_text(source)
    out = subprocess.run(
        [nvcc, f"-arch={arch}", "-cubin", "-Xptxas", "-v", str(source_file), "-o", str(cubin)],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    used = re.search(r"Used (\d+) registers", out)
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", out)
    smem = re.search(r"(\d+) bytes smem", out)
    return Usage(
        int(used[1]) if used else 0, int(spills[1]) if spills else 0, int(spills[2]) if spills else 0, int(smem[1]) if smem else 0
    )


def occupancy(usage: Usage, threads: int) -> str:
    """Blocks an SM holds, the threads that makes and the limit, from registers, shared memory and threads."""
    warps = -(-threads // 32)
    per_warp = -(-usage.registers * 32 // 256) * 256
    limits = {
        "threads": min(THREADS // (warps * 32), BLOCKS),
        "registers": (REGISTERS // per_warp) // warps if per_warp else BLOCKS,
    }
    if usage.shared:
        limits["shared"] = SHARED // (-(-(usage.shared + SHARED_RESERVED) // 128) * 128)
    blocks = min(limits.values())
    bound = "/".join(k for k, v in limits.items() if v == blocks)
    return f"{blocks} ({blocks * threads} threads, {bound})"


SASS = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")


def sass_loops(cuobjdump: str, cubin: Path) -> list[Counter]:
    """The instruction counts of each innermost SASS loop (a backward branch, no other inside) holding FFMAs."""
    beside = {**os.environ, "PATH": f"{Path(cuobjdump).parent}{os.pathsep}{os.environ.get('PATH', '')}"}  # its nvdisasm
    text = subprocess.run([cuobjdump, "-sass", str(cubin)], capture_output=True, text=True, check=True, env=beside).stdout
    code = [(int(m[1], 16), m[3], m[4]) for m in SASS.finditer(text)]
    loops = []
    for address, opcode, operands in code:
        target = re.match(r"\s*(?:`\()?(0x[0-9a-f]+|\.L_x_\d+)", operands) if opcode == "BRA" else None
        if target and target[1].startswith("0x") and int(target[1], 16) <= address:
            loops.append((int(target[1], 16), address))
    innermost = [(a, b) for a, b in loops if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in loops)]
    result = []
    for start, stop in innermost:
        counts = Counter(_kind(op) for address, op, _ in code if start <= address <= stop)
        if counts["FFMA"]:
            result.append(counts)
    return result


def _kind(opcode: str) -> str:
    name = opcode.split(".")[0]
    return name if name in ("FFMA", "LDS", "LDG", "STS", "BAR", "ISETP") else "other"


def outputs_per_thread(source: str) -> int:
    """The FFMAs of one k step: the size of the thread's accumulator (a `local` buffer), 1 without one."""
    sizes = [int(n) for n in re.findall(r"^\s*(?:__align__\(\d+\)\s+)?float \w+_local\[(\d+)\];", source, re.M)]
    return max(sizes, default=1)


def graph(case: str) -> xtir.ModuleOp:
    if case.startswith("mlp"):
        text = (ROOT / "examples" / "mlp.mlir").read_text().replace("tensor<1x", f"tensor<{int(case[3:])}x")
        return xtir.transform(xtir.parse(text), "fuse-ops")
    dims = [int(d) for d in case.split("x")]
    m, n, k = dims * 3 if len(dims) == 1 else [dims[0], *dims] if len(dims) == 2 else dims
    return xtir.parse(f"""func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %c = tensor.matmul %a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32> -> tensor<{m}x{n}xf32>
  func.return %c : tensor<{m}x{n}xf32>
}}""")


def kernels(case: str, tiles: Tiles) -> list[tuple[str, str, int, str]]:
    """(name, CUDA C, threads a block, the schedule's words) of each kernel of the case."""
    said: dict[str, str] = {}

    def schedule(module: xtir.ModuleOp) -> xtir.ModuleOp:
        for choice in schedule_report(module, tiles=tiles):
            said.setdefault(
                choice.function, "; ".join(filter(None, [said.get(choice.function), f"{choice.schedule}: {choice.detail}"]))
            )
        return module

    model = compile_model(graph(case), schedule=schedule, target="cuda-cpu", racecheck=False)
    return [(k.name, k.cuda_source, max(math.prod(lc.block) for lc in k.launches), said.get(k.name, "")) for k in model.kernels]


def row(*cells: object) -> None:
    print(f"| {' | '.join(str(c) for c in cells)} |", flush=True)


def report(name: str, source: str, threads: int, words: str, nvcc: str, cuobjdump: str, arch: str, tmp: Path) -> None:
    cubin = (tmp / re.sub(r"\W+", "_", name)).with_suffix(".cubin")
    usage = ptxas(nvcc, source, arch, cubin)
    steps = outputs_per_thread(source)
    loops = sass_loops(cuobjdump, cubin)
    head = (
        name,
        words,
        threads,
        usage.registers,
        f"{usage.spill_stores}/{usage.spill_loads}",
        usage.shared,
        occupancy(usage, threads),
    )
    if not loops:
        row(*head, "no FFMA loop", "", "", "", "")
    for counts in loops:
        k = counts["FFMA"] / steps
        per = {kind: counts[kind] / k for kind in ("FFMA", "LDS", "LDG", "other")}
        ratio = f"{counts['FFMA'] / counts['LDS']:.1f}" if counts["LDS"] else "no LDS"
        row(*head, f"{k:g}", *(f"{v:g}" for v in per.values()), ratio)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", nargs="+", default=["mlp1", "mlp64", "1024", "4096", "1000x997", "37x53x97"])
    parser.add_argument("--local", type=int, nargs="+", default=[TILES.local])
    parser.add_argument("--reduce", type=int, nargs="+", default=[TILES.reduce])
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--no-hand", action="store_true", help="leave out the hand GEMM's row")
    args = parser.parse_args()
    found = tools()
    if isinstance(found, str):
        print(f"gpu_default_ptx: not run: {found}")
        return
    nvcc, cuobjdump = found
    print(f"{args.arch}: {REGISTERS} registers, {SHARED // 1024} KiB shared, {THREADS} threads an SM\n")
    row(
        "kernel",
        "schedule",
        "threads",
        "registers",
        "spills (B st/ld)",
        "smem (B)",
        "blocks/SM (threads, limit)",
        "k steps a loop",
        "FFMA",
        "LDS",
        "LDG",
        "other",
        "FFMA:LDS",
    )
    print("|---" * 13 + "|")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_hand:
            from gemm_ptx import hand_gemm_source

            report(
                "hand GEMM n=1024",
                hand_gemm_source(1024),
                256,
                "128x128, 8x8 a thread, k 8",
                nvcc,
                cuobjdump,
                args.arch,
                Path(tmp),
            )
        for case in args.cases:
            for local in args.local:
                for reduce in args.reduce:
                    tiles = replace(TILES, local=local, reduce=reduce)
                    try:
                        built = kernels(case, tiles)
                    except XtirError as e:  # a row saying why, and the other cases
                        row(f"{case} (local {local}, k {reduce})", f"not built: {e.message}", *[""] * 11)
                        continue
                    for name, source, threads, words in built:
                        report(
                            f"{case} @{name} (local {local}, k {reduce})",
                            source,
                            threads,
                            words,
                            nvcc,
                            cuobjdump,
                            args.arch,
                            Path(tmp),
                        )


if __name__ == "__main__":
    main()
