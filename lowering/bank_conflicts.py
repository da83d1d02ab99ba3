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
first iteration; a float4 copy (lowering/cuda_align.py) is one 16-byte access at its lane 0
(a scattered one's stores, a scalar store per lane, stay 4-byte accesses), under its guard or
select too (`st.shared.v4` in the PTX of the hand GEMM at partial tiles).
Every thread of the warp is assumed to take the access (guards of partial tiles are not
evaluated). An index that is not plain integer arithmetic of those values is reported as
unknown, not guessed.

The counts are of the accesses the CUDA emitter writes, but where nvcc merges the scalar
accesses of an unrolled loop into a wider one (`ld.shared.v4` in the PTX): an unrolled loop from
0 in steps of 1 along which every thread's address advances one element from a multiple of the
width counts as that vector access, and a load the loop repeats unchanged counts once (unless
the loop holds a barrier or a store into its buffer). That model is checked against the PTX of
the hand GEMM only. Not modelled, so counted higher than nvcc makes them: two scalar loads that
nvcc merges into one `ld.shared.v2` though their addresses decrease along the loop, and the
loads of a serial loop that nvcc unrolls (and merges or hoists) on its own. A kernel without
gpu.known_block_size is taken as one warp of 32 threads along x.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import FixedBitwidthType, MemRefType, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from xtir.dialects.layout import memory_space, strides_of
from xtir.dialects.walk import ancestors
from xtir.lowering.cuda_align import float4_copy
from xtir.lowering.loops import UNROLLED, constant_int, loop_kind, loop_name, trip_count

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
    """How often a warp makes the access: the trip counts of the enclosing loops multiplied (1 for
    a loop of unknown trip count), divided by the width of a vector access."""
    merged: bool = False
    """Scalar accesses of an unrolled loop counted as the vector access nvcc makes of them."""

    def describe(self) -> str:
        what = f"{'store' if isinstance(self.op, memref.StoreOp) else 'load'} {self.buffer}"
        width = ("float4" if self.bytes == 16 else f"{self.bytes}-byte") + (", unrolled accesses merged" if self.merged else "")
        where = "/".join(self.loops) or "kernel"
        if self.wavefronts is None:
            return f"{what} ({width}) in {where}: unknown address"
        ways = self.wavefronts / self.ideal
        verdict = "conflict-free" if ways == 1 else f"{ways:g}-way conflict"
        return (f"{what} ({width}) in {where}: {self.wavefronts} wavefronts per warp (ideal {self.ideal}), {verdict}; "
                f"{self.runs} time(s) per warp")


def wavefronts(addresses: list[int], nbytes: int) -> int:
    """Wavefronts a warp needs when thread t accesses `nbytes` at byte address `addresses[t]`."""
    per_phase = _phase_threads(nbytes)
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
    for op in kernel.walk():
        if isinstance(op, memref.LoadOp | memref.StoreOp) and memory_space(op.memref) == "shared":
            found.append(_shared_access(kernel, op, threads))
    return found


def _shared_access(kernel: gpu.FuncOp, op: memref.LoadOp | memref.StoreOp,
                   threads: list[tuple[int, int, int]]) -> SharedAccess:
    element = _element_bytes(op.memref.type)  # type: ignore[arg-type]
    vector = _vector(op, threads, element)
    nbytes = element * (vector[1] if vector else 1)
    at_start = {vector[0].body.block.args[0]: 0} if vector else {}
    addresses = [_address(op, tid, at_start, element) for tid in threads]
    count = None if None in addresses else wavefronts(addresses, nbytes)  # type: ignore[arg-type]
    phases = -(-len(threads) // _phase_threads(nbytes))
    loops = [p for p in reversed(list(ancestors(op, stop=kernel))) if isinstance(p, scf.ForOp)]
    runs = math.prod(trip_count(lp) or 1 for lp in loops if not _repeats(lp, op, threads, element))
    if vector:
        runs //= vector[1]
    return SharedAccess(op, op.memref.name_hint or "buffer", tuple(loop_name(lp) for lp in loops), nbytes,
                        count, phases, runs, vector is not None and float4_copy(vector[0]) is None)


def _phase_threads(nbytes: int) -> int:
    return max(1, PHASE_BYTES // max(nbytes, WORD_BYTES))


def _vector(op: memref.LoadOp | memref.StoreOp, threads: list[tuple[int, int, int]],
            element: int) -> tuple[scf.ForOp, int] | None:
    """The loop whose consecutive iterations make one wider access of `op`, and how many
    iterations: a float4 copy (the emitter's own; a scattered copy's store is 4 scalar ones), or
    an unrolled loop, 0 to a multiple of the width in steps of 1, along which every thread's address advances one element from a
    multiple of the width (what nvcc merges into `ld.shared.v4` / `.v2`)."""
    loop = op.parent_op()
    while isinstance(loop, scf.IfOp):  # a float4 copy's guard, or the select of a padded fetch
        loop = loop.parent_op()
    if isinstance(loop, scf.ForOp) and (copy := float4_copy(loop)) is not None:
        # A scattered copy's stores stay scalar: one float4 load, then a store per lane.
        if op is copy.load or (op is copy.store and not copy.scattered):
            return loop, 4
        return None
    for loop in (p for p in ancestors(op) if isinstance(p, scf.ForOp)):
        if loop_kind(loop) != UNROLLED or (constant_int(loop.lb), constant_int(loop.step)) != (0, 1):
            continue
        iv = loop.body.block.args[0]
        if not _moves(op, iv, threads, element):
            continue  # try the next loop out
        trips = trip_count(loop) or 0
        for width in (w for w in (4, 2) if w * element <= 16 and trips % w == 0):
            if all(_advances(op, tid, iv, width, element) for tid in threads):
                return loop, width
        return None
    return None


def _moves(op: memref.LoadOp | memref.StoreOp, iv: SSAValue, threads: list[tuple[int, int, int]], element: int) -> bool:
    return any(_address(op, tid, {iv: 1}, element) != _address(op, tid, {iv: 0}, element) for tid in threads)


def _repeats(loop: scf.ForOp, op: memref.LoadOp | memref.StoreOp, threads: list[tuple[int, int, int]],
             element: int) -> bool:
    """Whether `loop` is unrolled and `op` loads the same addresses in each of its iterations:
    nvcc then loads once (the unrolled copies are one expression), so its trips do not count;
    not when the loop also holds a barrier or a store into the buffer (a fetch at an unrolled k
    loop, the virtual threads' loops inside it): each iteration loads what was stored anew."""
    return (isinstance(op, memref.LoadOp) and loop_kind(loop) == UNROLLED
            and not _moves(op, loop.body.block.args[0], threads, element)
            and not any(isinstance(o, gpu.BarrierOp) or (isinstance(o, memref.StoreOp) and o.memref is op.memref)
                        for o in loop.walk()))


def _advances(op: memref.LoadOp | memref.StoreOp, tid: tuple[int, int, int], iv: SSAValue, width: int,
              element: int) -> bool:
    start = _address(op, tid, {iv: 0}, element)
    if start is None or start % (width * element):
        return False
    return all(_address(op, tid, {iv: k}, element) == start + k * element for k in range(1, width))


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


def _element_bytes(ty: MemRefType) -> int:
    element = ty.element_type
    return element.size if isinstance(element, FixedBitwidthType) else 8  # index: 8 bytes


def _warp_threads(kernel: gpu.FuncOp) -> list[tuple[int, int, int]]:
    """(x, y, z) thread ids of the first warp (fewer in a smaller block)."""
    block = kernel.known_block_size
    x, y, z = (tuple(block.get_values()) + (1, 1, 1))[:3] if block is not None else (WARP, 1, 1)
    return [(t % x, t // x % y, t // (x * y)) for t in range(min(WARP, x * y * z))]


def _address(op: memref.LoadOp | memref.StoreOp, tid: tuple[int, int, int], fixed: dict[SSAValue, int],
             element_bytes: int) -> int | None:
    """The byte address thread `tid` accesses with the `fixed` loop indices (other loops at their
    first iteration), None when an index cannot be evaluated."""
    memo: dict[SSAValue, int | None] = dict(fixed)
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
