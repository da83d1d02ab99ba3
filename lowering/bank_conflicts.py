"""Shared-memory bank conflicts of a kernel, counted statically: evidence without a GPU.

Shared memory has 32 banks of 4 bytes; word `w` lives in bank `w % 32`. A warp's access is
served in wavefronts: threads that touch different words of one bank wait for each other,
threads that touch the same word share it (a broadcast). A warp's request is split into phases
first: all 32 threads for accesses of up to 4 bytes each, 16 threads for 8 bytes, 8 threads
for a `float4` (16 bytes) [NVIDIA's CUDA C++ Best Practices Guide, "Shared Memory and Memory
Banks"]. So one phase takes as many wavefronts as the most words any bank is asked for, and a
conflict-free float4 access takes 4 (one per phase of 8 threads).

For each `memref.load` / `memref.store` of a shared buffer in a gpu.func, the address every
thread of the first warp (threads 0..31 by linear id, x fastest) reaches is computed by
interpreting the index arithmetic, with the block indices 0 and every enclosing loop at its
first iteration; a float4 copy (lowering/cuda_align.py) is one 16-byte access at its lane 0.
Every thread of the warp is assumed to take the access (guards of partial tiles are not
evaluated). An index that is not plain integer arithmetic of those values is reported as
unknown, not guessed.

The counts are of the accesses the CUDA emitter writes; nvcc may merge the scalar accesses of
unrolled loops into wider ones (`ld.shared.v4` in the PTX), which this does not model.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from xtir.dialects.layout import strides_of
from xtir.dialects.walk import ancestors
from xtir.lowering.cuda_align import float4_copy
from xtir.lowering.loops import constant_int, loop_name, trip_count

BANKS, WORD_BYTES, WARP = 32, 4, 32
PHASE_BYTES = BANKS * WORD_BYTES
"""What one wavefront serves at most: a phase holds as many threads as fit their bytes in it."""

_BINARY: dict[type, Callable[[int, int], int]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.FloorDivSIOp: lambda a, b: a // b,
    arith.DivSIOp: lambda a, b: int(a / b),
    arith.DivUIOp: lambda a, b: a // b,
    arith.RemSIOp: lambda a, b: a - b * int(a / b),
    arith.RemUIOp: lambda a, b: a % b,
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
}


@dataclass(frozen=True)
class SharedAccess:
    """One shared load or store and what a warp needs for it."""

    op: memref.LoadOp | memref.StoreOp
    buffer: str
    loops: tuple[str, ...]
    """The enclosing loops' names, outermost first."""
    bytes: int
    """Per thread: the element's size, or 16 for a float4 copy."""
    wavefronts: int | None
    """None: an index is not integer arithmetic of thread ids, loops and constants."""
    ideal: int
    """Wavefronts without conflicts: one per phase."""
    runs: int
    """How often a warp makes the access: the trip counts of the enclosing loops multiplied (a
    float4 copy's own loop not counted; 1 for a loop of unknown trip count)."""

    def describe(self) -> str:
        what = f"{'store' if isinstance(self.op, memref.StoreOp) else 'load'} {self.buffer}"
        width = "float4" if self.bytes == 16 else f"{self.bytes}-byte"
        where = "/".join(self.loops) or "kernel"
        if self.wavefronts is None:
            return f"{what} ({width}) in {where}: unknown address"
        ways = self.wavefronts / self.ideal
        verdict = "conflict-free" if ways == 1 else f"{ways:g}-way conflict"
        return (f"{what} ({width}) in {where}: {self.wavefronts} wavefronts per warp (ideal {self.ideal}), {verdict}; "
                f"{self.runs} time(s) per warp")


def wavefronts(addresses: list[int], nbytes: int) -> int:
    """Wavefronts a warp needs when thread t accesses `nbytes` at byte address `addresses[t]`."""
    per_phase = max(1, PHASE_BYTES // max(nbytes, WORD_BYTES))
    total = 0
    for start in range(0, len(addresses), per_phase):
        words_of_bank: dict[int, set[int]] = defaultdict(set)
        for address in addresses[start:start + per_phase]:
            for word in range(address // WORD_BYTES, (address + nbytes - 1) // WORD_BYTES + 1):
                words_of_bank[word % BANKS].add(word)
        total += max(len(words) for words in words_of_bank.values())
    return total


def shared_accesses(kernel: gpu.FuncOp) -> list[SharedAccess]:
    """Every shared load and store of `kernel`, in program order, with its wavefronts."""
    threads = _warp_threads(kernel)
    found = []
    for op, lane, nbytes in _accesses(kernel):
        element_bytes = nbytes if lane is None else nbytes // 4
        addresses = [_address(op, tid, lane, element_bytes) for tid in threads]
        known = [a for a in addresses if a is not None]
        count = wavefronts(known, nbytes) if len(known) == len(addresses) else None
        phases = -(-len(threads) // max(1, PHASE_BYTES // max(nbytes, WORD_BYTES)))
        loops = [p for p in reversed(list(ancestors(op, stop=kernel))) if isinstance(p, scf.ForOp)]
        runs = math.prod(trip_count(lp) or 1 for lp in loops if lane is None or lp.body.block.args[0] is not lane)
        found.append(SharedAccess(op, op.memref.name_hint or "buffer", tuple(loop_name(lp) for lp in loops), nbytes,
                                  count, phases, runs))
    return found


def warp_totals(module: ModuleOp) -> tuple[int, int] | None:
    """(wavefronts, conflict-free wavefronts) a warp spends on shared memory over a whole run of
    the kernels: each access's count times its runs; None when an address is unknown."""
    accesses = [a for kernel in _kernels(module) for a in shared_accesses(kernel)]
    if any(a.wavefronts is None for a in accesses):
        return None
    return sum(a.wavefronts * a.runs for a in accesses), sum(a.ideal * a.runs for a in accesses)  # type: ignore[operator]


def bank_report(module: ModuleOp) -> str:
    """Each kernel's shared accesses and their wavefronts, as `//` comment lines."""
    lines = []
    for kernel in _kernels(module):
        accesses = shared_accesses(kernel)
        if accesses:
            lines.append(f"// Shared-memory banks of @{kernel.sym_name.data} (first warp):")
            lines += [f"//   {a.describe()}" for a in accesses]
    return "\n".join(lines) + ("\n" if lines else "")


def _kernels(module: ModuleOp) -> Iterator[gpu.FuncOp]:
    return (op for op in module.walk() if isinstance(op, gpu.FuncOp) and op.kernel is not None)


def _is_shared(value: SSAValue) -> bool:
    ty = value.type
    return isinstance(ty, MemRefType) and ty.memory_space == StringAttr("shared")


def _accesses(kernel: gpu.FuncOp) -> Iterator[tuple[memref.LoadOp | memref.StoreOp, BlockArgument | None, int]]:
    """(access, the float4 loop's index or None, bytes per thread) of every shared access."""
    for op in kernel.walk():
        if not isinstance(op, memref.LoadOp | memref.StoreOp) or not _is_shared(op.memref):
            continue
        loop = op.parent_op()
        copy = float4_copy(loop) if isinstance(loop, scf.ForOp) else None
        if copy is not None and op in (copy.load, copy.store):
            yield op, loop.body.block.args[0], 16
        else:
            yield op, None, _element_bytes(op.memref.type)


def _element_bytes(ty: MemRefType) -> int:
    width = getattr(ty.element_type, "bitwidth", None) or getattr(getattr(ty.element_type, "width", None), "data", 32)
    return max(1, int(width) // 8)


def _warp_threads(kernel: gpu.FuncOp) -> list[tuple[int, int, int]]:
    """(x, y, z) thread ids of the first warp (fewer in a smaller block)."""
    block = kernel.known_block_size
    x, y, z = (tuple(block.get_values()) + (1, 1, 1))[:3] if block is not None else (WARP, 1, 1)
    return [(t % x, t // x % y, t // (x * y)) for t in range(min(WARP, x * y * z))]


def _address(op: memref.LoadOp | memref.StoreOp, tid: tuple[int, int, int], lane: BlockArgument | None,
             element_bytes: int) -> int | None:
    """The byte address thread `tid` accesses, None when an index cannot be evaluated."""
    memo: dict[SSAValue, int | None] = {} if lane is None else {lane: 0}
    total = 0
    for index, stride in zip(op.indices, strides_of(op.memref.type)):  # type: ignore[arg-type]
        value = _evaluate(index, tid, memo)
        if value is None:
            return None
        total += value * stride
    return total * element_bytes


def _evaluate(value: SSAValue, tid: tuple[int, int, int], memo: dict[SSAValue, int | None]) -> int | None:
    if value in memo:
        return memo[value]
    result: int | None = None
    owner = value.owner
    if (constant := constant_int(value)) is not None:
        result = constant
    elif isinstance(value, BlockArgument):
        loop = value.block.parent_op()
        if isinstance(loop, scf.ForOp) and value.index == 0:
            result = _evaluate(loop.lb, tid, memo)  # the first iteration
    elif isinstance(owner, gpu.ThreadIdOp):
        result = tid["xyz".index(owner.dimension.data)]
    elif isinstance(owner, gpu.BlockIdOp):
        result = 0
    elif isinstance(owner, arith.IndexCastOp):
        result = _evaluate(owner.input, tid, memo)
    elif (apply := _BINARY.get(type(owner))) is not None:
        assert isinstance(owner, Operation)
        lhs, rhs = (_evaluate(v, tid, memo) for v in owner.operands)
        if lhs is not None and rhs is not None and not (rhs == 0 and type(owner) in _DIVISIONS):
            result = apply(lhs, rhs)
    memo[value] = result
    return result


_DIVISIONS = (arith.FloorDivSIOp, arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp)
