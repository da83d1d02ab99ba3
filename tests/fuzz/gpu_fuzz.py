"""GPU fuzzing: random programs, random GPU schedules, run through target "cuda-cpu" with the race
detector (racecheck=True) and compared with numpy.

A case is a program (a template at random sizes: matmul, matmul with B transposed, elementwise,
row sums, window sums) and a schedule, either
- `space`: xtir.tune's GPU space (xtir/tune/spaces_gpu.py) sampled with a seed, legal by
  construction; or
- `pipeline`: an xtir-opt pipeline drawn here: split/fuse/bind onto blockIdx/threadIdx (and,
  for some matmuls and one-dimensional programs, a level between them on vthread: MetaSchedule's
  multi-level tiling, lowered by lowering/virtual_threads.py, its accumulator now and then
  in shared memory: each virtual thread's C[i, j] += there; rowsum with a vthread level over
  its rows, the accumulator local or shared), a
  random number of inputs cached in shared memory at a random loop (cooperative fetches bound to
  threadIdx, vectorized or not), local accumulation, decompose-reduction, double-buffer,
  storage-align and transform-layout of the shared tiles, transform-layout of the local
  accumulator, unroll and vectorize, with sizes that the tiles need not divide (k tails of
  the reduction's tile, blocks at the data's edge for version-edge-blocks, guarded float4 fetches).
Outcomes: `ok` (numbers match), `refused` (a primitive or the build says XtirError: a legal
outcome), or a failure: `wrong` (numbers differ or an output element is left unwritten),
`race` (the race detector's report), `crash` (any other exception: a traceback), `invalid-ir`
(a build refused by the verifier: a pass made IR that does not verify), `compile` (the host
compiler rejected the emitted CUDA C).
`minimize` drops pipeline steps and shrinks sizes while the failure stays of the same kind.

tests/fuzz/test_fuzz_gpu.py runs a few cases; tests/fuzz/run_gpu_long.py runs them for minutes.
"""

from __future__ import annotations

import random
import re
import traceback
from dataclasses import dataclass, replace

import numpy as np

import xtir
from xtir.errors import XtirError
from xtir.passes.analysis.navigation import loops_around
from xtir.schedule import BlockRV, LoopRV
from xtir.tune import gpu_space

RTOL = ATOL = 1e-4
INVALID_IR = ("is used before it is defined", "does not dominate", "verification failed")
"""Words of a refusal that is the verifier's, of IR a pass made: a compiler bug, not a diagnostic."""
REJECTED = "the host C++ compiler rejected"
"""Words of a refusal that is g++'s, of the CUDA C xtir emitted: an emitter bug."""


# Programs ----------------------------------------------------------------------------------------

def _memref(shape: tuple[int, ...]) -> str:
    return f"memref<{'x'.join(map(str, shape))}xf32>"


def _matmul(m: int, n: int, k: int, transposed: bool = False) -> str:
    b_shape, b_index = ((n, k), "%vj, %vk") if transposed else ((k, n), "%vk, %vj")
    a, b, c = _memref((m, k)), _memref(b_shape), _memref((m, n))
    return f"""builtin.module {{
  func.func @main(%A: {a}, %B: {b}, %C: {c}) {{
    block.for %i = 0 to {m} "i" {{
      block.for %j = 0 to {n} "j" {{
        block.for %k = 0 to {k} "k" {{
          block.block "C"(%vi = spatial({m}, %i), %vj = spatial({n}, %j), %vk = reduce({k}, %k)) {{
            block.init {{
              %zero = arith.constant 0.000000e+00 : f32
              block.store %zero, %C[%vi, %vj] : {c}
            }}
            %c = block.load %C[%vi, %vj] : {c}
            %a = block.load %A[%vi, %vk] : {a}
            %b = block.load %B[{b_index}] : {b}
            %ab = arith.mulf %a, %b : f32
            %sum = arith.addf %c, %ab : f32
            block.store %sum, %C[%vi, %vj] : {c}
          }}
        }}
      }}
    }}
    func.return
  }}
}}"""


def _matmul_relu(m: int, n: int, k: int) -> str:
    """D = relu(A @ B) through an intermediate C allocated in the function (set-scope's use)."""
    text = _matmul(m, n, k)
    c = _memref((m, n))
    text = text.replace(f"%C: {c}) {{", f"%D: {c}) {{\n    %C = block.alloc : {c}", 1)
    relu = f"""    block.for %i2 = 0 to {m} "i2" {{
      block.for %j2 = 0 to {n} "j2" {{
        block.block "D"(%vi = spatial({m}, %i2), %vj = spatial({n}, %j2)) {{
          %c = block.load %C[%vi, %vj] : {c}
          %zero = arith.constant 0.000000e+00 : f32
          %r = arith.maximumf %c, %zero : f32
          block.store %r, %D[%vi, %vj] : {c}
        }}
      }}
    }}
    func.return"""
    return text.replace("    func.return", relu, 1)


def _elementwise(m: int, n: int) -> str:
    t = _memref((m, n))
    return f"""builtin.module {{
  func.func @main(%A: {t}, %B: {t}, %C: {t}) {{
    block.for %i = 0 to {m} "i" {{
      block.for %j = 0 to {n} "j" {{
        block.block "C"(%vi = spatial({m}, %i), %vj = spatial({n}, %j)) {{
          %a = block.load %A[%vi, %vj] : {t}
          %b = block.load %B[%vi, %vj] : {t}
          %ab = arith.mulf %a, %b : f32
          %s = arith.addf %ab, %a : f32
          block.store %s, %C[%vi, %vj] : {t}
        }}
      }}
    }}
    func.return
  }}
}}"""


def _rowsum(m: int, n: int) -> str:
    a, b = _memref((m, n)), _memref((m,))
    return f"""builtin.module {{
  func.func @main(%A: {a}, %B: {b}) {{
    block.for %i = 0 to {m} "i" {{
      block.for %j = 0 to {n} "j" {{
        block.block "B"(%vi = spatial({m}, %i), %vj = reduce({n}, %j)) {{
          block.init {{
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %B[%vi] : {b}
          }}
          %s = block.load %B[%vi] : {b}
          %x = block.load %A[%vi, %vj] : {a}
          %t = arith.addf %s, %x : f32
          block.store %t, %B[%vi] : {b}
        }}
      }}
    }}
    func.return
  }}
}}"""


def _window(n: int) -> str:
    a, b = _memref((n + 2,)), _memref((n,))
    return f"""builtin.module {{
  func.func @main(%A: {a}, %B: {b}) {{
    block.for %i = 0 to {n} "i" {{
      block.block "B"(%vi = spatial({n}, %i)) {{
        %a0 = block.load %A[%vi] : {a}
        %a1 = block.load %A[%vi + 1] : {a}
        %a2 = block.load %A[%vi + 2] : {a}
        %s01 = arith.addf %a0, %a1 : f32
        %sum = arith.addf %s01, %a2 : f32
        block.store %sum, %B[%vi] : {b}
      }}
    }}
    func.return
  }}
}}"""


@dataclass(frozen=True)
class Program:
    name: str
    sizes: tuple[int, ...]

    def text(self) -> str:
        return TEMPLATES[self.name][0](*self.sizes)

    @property
    def output(self) -> str:
        """The block (and buffer) the program computes."""
        return "B" if self.name in ("rowsum", "window") else "C"

    @property
    def inputs(self) -> str:
        return "A" if self.name in ("rowsum", "window") else "AB"

    def arrays(self, rng: np.random.Generator) -> tuple[list[np.ndarray], np.ndarray]:
        """Inputs, the output (NaN: an element left unwritten shows) and what numpy computes."""
        return TEMPLATES[self.name][1](rng, *self.sizes)


def _data(rng: np.random.Generator, *shapes: tuple[int, ...]) -> list[np.ndarray]:
    return [rng.standard_normal(shape, dtype=np.float32) for shape in shapes]


def _matmul_arrays(rng, m, n, k, transposed=False):
    a, b = _data(rng, (m, k), (n, k) if transposed else (k, n))
    return [a, b, np.full((m, n), np.nan, np.float32)], a @ (b.T if transposed else b)


def _matmul_relu_arrays(rng, m, n, k):
    arrays, product = _matmul_arrays(rng, m, n, k)
    return arrays, np.maximum(product, 0)


def _elementwise_arrays(rng, m, n):
    a, b = _data(rng, (m, n), (m, n))
    return [a, b, np.full((m, n), np.nan, np.float32)], a * b + a


def _rowsum_arrays(rng, m, n):
    (a,) = _data(rng, (m, n))
    return [a, np.full((m,), np.nan, np.float32)], a.sum(axis=1)


def _window_arrays(rng, n):
    (a,) = _data(rng, (n + 2,))
    return [a, np.full((n,), np.nan, np.float32)], a[:-2] + a[1:-1] + a[2:]


TEMPLATES = {
    "matmul": (_matmul, _matmul_arrays),
    "matmul_bt": (lambda m, n, k: _matmul(m, n, k, True), lambda rng, m, n, k: _matmul_arrays(rng, m, n, k, True)),
    "matmul_relu": (_matmul_relu, _matmul_relu_arrays),
    "elementwise": (_elementwise, _elementwise_arrays),
    "rowsum": (_rowsum, _rowsum_arrays),
    "window": (_window, _window_arrays),
}


# Schedules ---------------------------------------------------------------------------------------

class Draws(random.Random):
    """A schedule's random stream; `later`, the stream of the dimensions added after it (a shared
    accumulator under virtual threads, virtual threads in rowsum), so that a seed's earlier draws
    stay what they were until one of those is taken."""

    def __init__(self, seed: int):
        super().__init__(seed)
        self.later = random.Random(f"{seed}:later")


def _size(r: random.Random, low: int, high: int, multiple: int = 1) -> int:
    """A size in [low, high], most often a multiple of `multiple` (tails are rarer, not absent)."""
    if r.random() < 0.7:
        return multiple * r.randint(max(1, low // multiple), max(1, high // multiple))
    return r.randint(low, high)


def _fetch(r: random.Random, sch: xtir.Schedule, block: BlockRV, index: int, at: LoopRV, threads: int) -> BlockRV:
    """Cache input `index` of `block` in shared memory at loop `at`, fetched by the block's threads
    (the copy's loops fused, split over threadIdx.x, maybe 4 a thread, vectorized or unrolled)."""
    copy = sch.cache_read(block, index, "shared")
    sch.compute_at(copy, at)
    loops = sch.get_loops(copy)[len(loops_around(sch.get(at))) + 1:]
    if not loops:  # a tile of one element: one thread fetches it
        return copy
    fused = sch.fuse(*loops) if len(loops) > 1 else loops[0]
    if r.random() < 0.5:
        _, t, v = sch.split(fused, [None, threads, 4])
        (sch.vectorize if r.random() < 0.7 else sch.unroll)(v)
    else:
        _, t = sch.split(fused, [None, threads])
    sch.bind(t, "threadIdx.x")
    return copy


def _shape_tile(r: random.Random, sch: xtir.Schedule, copy: BlockRV) -> None:
    """Maybe transpose, pad (storage-align: the row stride `factor * k + offset`) and double-buffer
    the shared tile that `copy` fetches."""
    if r.random() < 0.25:
        sch.transform_layout(copy, ("write", 0), (1, 0))
    if r.random() < 0.3:
        sch.storage_align(copy, 0, r.choice([0, -2]), r.choice([4, 8, 32]), r.choice([0, 1, 3]))
    if r.random() < 0.4:
        sch.double_buffer(copy)


def _schedule_one_dim(r: random.Random, sch: xtir.Schedule, program: Program) -> None:
    """Elementwise, window: the loops fused and split over (blockIdx.x, [vthread.x,] threadIdx.x[, inner])."""
    block = sch.get_block(program.output)
    loops = sch.get_loops(block)
    threads = r.choice([1, 3, 8, 32, 64, 128])
    inner = r.choice([None, 2, 4])
    vthreads = r.choice([2, 3, 4, 5, 6, 8]) if r.random() < 0.3 else None
    parts = sch.split(sch.fuse(*loops) if len(loops) > 1 else loops[0],
                      [None] + ([vthreads] if vthreads else []) + [threads] + ([inner] if inner else []))
    sch.bind(parts[0], "blockIdx.x")
    if vthreads:
        sch.bind(parts[1], "vthread.x")
        parts = [parts[0]] + parts[2:]
    sch.bind(parts[1], "threadIdx.x")
    if inner and r.random() < 0.5:
        (sch.unroll if r.random() < 0.5 else sch.vectorize)(parts[2])
    for index in range(len(program.inputs)):
        if r.random() < 0.5:
            copy = _fetch(r, sch, block, index, r.choice(parts), threads)
            if r.random() < 0.3:
                _shape_tile(r, sch, copy)


def _schedule_rowsum(r: random.Random, sch: xtir.Schedule, program: Program) -> None:
    """Rows over (blockIdx.x, threadIdx.x), the sum over j; maybe a local accumulator. Now and then
    (drawn from `r.later`) a vthread level over the rows between them: each virtual thread its own
    B[i] +=, the accumulator local or shared. (Not over the sum: bind refuses a reduction loop
    for vthread, as TVM does.)"""
    later = r.later if isinstance(r, Draws) else None
    vthreads = [later.choice([2, 3, 4])] if later is not None and later.random() < 0.3 else []
    block = sch.get_block("B")
    i, j = sch.get_loops(block)
    threads = r.choice([1, 4, 16, 32, 64])
    rows = sch.split(i, [None, *vthreads, threads])
    j0, j1 = sch.split(j, [None, r.choice([1, 4, 8, 16])])
    i0, i1 = rows[0], rows[-1]
    if r.random() < 0.5:
        sch.reverse_compute_at(sch.cache_write(block, 0, _accumulator_scope(r) if vthreads else "local"), i1)
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "threadIdx.x")
    if vthreads:
        sch.bind(rows[1], "vthread.x")
    copy = _fetch(r, sch, block, 0, r.choice([j0, j0, j1, i1]), threads) if r.random() < 0.6 else None
    if r.random() < 0.5:
        sch.decompose_reduction(block, j0)
    if r.random() < 0.3:
        sch.unroll(j1)
    if copy is not None:
        _shape_tile(r, sch, copy)


def _pad(r: random.Random, sch: xtir.Schedule, block: BlockRV, tiles: tuple[int, int, int]) -> bool:
    """Maybe pad the matmul to multiples of its tiles first (pad-einsum, as MetaSchedule's
    padding rule does); True when it made padded copies (A_pad, B_pad, C_pad: see _unpad)."""
    if r.random() >= 0.3:
        return False
    sch.pad_einsum(block, list(tiles))
    return "C_pad" in sch.block_names()


def _unpad(r: random.Random, sch: xtir.Schedule) -> None:
    """Inline the padded copies pad-einsum made: the inputs' pads into their readers (a shared
    fetch when there is one, else the compute: if_then_else bodies inlined), the output's crop into
    its writer (the local accumulator's write-back); now and then one is left as its own loop nest."""
    for name in ("A_pad", "B_pad"):
        if name in sch.block_names() and r.random() < 0.9:
            sch.compute_inline(sch.get_block(name))
    if r.random() < 0.9:
        sch.reverse_compute_inline(sch.get_block("C_pad"))


def _schedule_matmul(r: random.Random, sch: xtir.Schedule, program: Program) -> LoopRV:
    """Seed 002's blocking: local (threadIdx.x, .y) or shared (fused threads, cooperative fetches).
    Returns the innermost loop bound to a thread axis."""
    block = sch.get_block("C")
    tb, tt, tk = r.choice([2, 4, 8, 16]), r.choice([1, 2, 4, 8]), r.choice([1, 2, 3, 4, 8, 16])
    padded = _pad(r, sch, block, (tb * tt, tb * tt, tk))
    local = sch.cache_write(block, 0, "local")
    i, j, k = sch.get_loops(block)
    i0, i1, i2 = sch.split(i, [None, tb, tt])
    j0, j1, j2 = sch.split(j, [None, tb, tt])
    k0, k1 = sch.split(k, [None, tk])
    sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
    sch.bind(i0, "blockIdx.x")
    sch.bind(j0, "blockIdx.y")
    shared = []
    if r.random() < 0.3:  # local blocking, 2-d threads
        sch.reverse_compute_at(local, j1)
        sch.bind(i1, "threadIdx.x")
        sch.bind(j1, "threadIdx.y")
        thread = j1
    else:
        thread = sch.fuse(i1, j1)
        sch.reverse_compute_at(local, thread)
        sch.bind(thread, "threadIdx.x")
        shared = [_fetch(r, sch, block, index, r.choice([k0, k0, k0, k1]), tb * tb) for index in (0, 1)
                  if r.random() < 0.75]
    if r.random() < 0.6:
        sch.decompose_reduction(block, k0)
    for copy in shared:
        _shape_tile(r, sch, copy)
    if r.random() < 0.15:
        sch.transform_layout(local, ("read", 0), (1, 0))
    for loop in (k1, i2, j2):
        if r.random() < 0.3:
            sch.unroll(loop)
    if padded:
        _unpad(r, sch)
    return thread


def _schedule_matmul_vthread(r: random.Random, sch: xtir.Schedule, program: Program) -> LoopRV:
    """MetaSchedule's GPU multi-level tiling: i and j each split (blockIdx, vthread, threadIdx,
    inner), k split (outer, inner); threads fused, local accumulator at the threads' loop, A and B
    maybe fetched into shared at a k loop; inner loops unrolled or vectorized. Virtual threads up to
    8 an axis (TVM allows any number), on one axis or both. Returns the threads' loop."""
    block = sch.get_block("C")
    v, vj = r.choice([1, 2, 3, 4, 5, 6, 8]), r.choice([1, 2, 3, 4, 5, 8])
    t, inner, tk = r.choice([1, 2, 4, 8]), r.choice([1, 2, 4]), r.choice([1, 2, 4, 8, 16])
    padded = _pad(r, sch, block, (v * t * inner, vj * t * inner, tk))
    # the accumulator mostly local; now and then shared (each virtual thread's C[i, j] += in shared memory)
    local = sch.cache_write(block, 0, _accumulator_scope(r)) if r.random() < 0.8 else None
    i, j, k = sch.get_loops(block)
    i0, i1, i2, i3 = sch.split(i, [None, v, t, inner])
    j0, j1, j2, j3 = sch.split(j, [None, vj, t, inner])
    k0, k1 = sch.split(k, [None, tk])
    sch.reorder(i0, j0, i1, j1, i2, j2, k0, k1, i3, j3)
    thread = sch.fuse(i2, j2)
    if local is not None:
        # a shared accumulator may be written back by the thread block's loop, outside the threads
        sch.reverse_compute_at(local, j0 if sch.get(local).label.endswith("_shared") and r.later.random() < 0.3
                               else thread)
    sch.bind(i0, "blockIdx.x")
    sch.bind(j0, "blockIdx.y")
    sch.bind(i1, "vthread.y")
    sch.bind(j1, "vthread.x")
    sch.bind(thread, "threadIdx.x")
    shared = [_fetch(r, sch, block, index, r.choice([k0, k0, k0, k1]), t * t) for index in (0, 1)
              if r.random() < 0.7]
    if r.random() < 0.6:
        sch.decompose_reduction(block, k0)
    for copy in shared:
        _shape_tile(r, sch, copy)
    for loop in (k1, i3):
        if r.random() < 0.3:
            sch.unroll(loop)
    if r.random() < 0.3:
        (sch.vectorize if r.random() < 0.5 else sch.unroll)(j3)
    if padded:
        _unpad(r, sch)
    return thread


def _accumulator_scope(r: random.Random) -> str:
    later = getattr(r, "later", None)
    return "shared" if later is not None and later.random() < 0.3 else "local"


def _schedule_any_matmul(r: random.Random, sch: xtir.Schedule, program: Program) -> LoopRV:
    return (_schedule_matmul_vthread if r.random() < 0.4 else _schedule_matmul)(r, sch, program)


def _schedule_matmul_relu(r: random.Random, sch: xtir.Schedule, program: Program) -> None:
    """The matmul scheduled as above, the ReLU computed under its threads' loop (reverse-compute-at),
    the intermediate C stored per thread ("local") or per thread block ("shared"), as set-scope
    makes it; sometimes left global, which lower-to-gpu must refuse (every thread writes it).
    Now and then the ReLU is inlined into C's writer instead (reverse-compute-inline)."""
    thread = _schedule_any_matmul(r, sch, program)
    relu = sch.get_block("D")
    if r.random() < 0.25:  # the ReLU inlined into C's writer: the write-back of the local accumulator
        sch.reverse_compute_inline(relu)
        return
    sch.reverse_compute_at(relu, thread)
    scope = r.choice(["local", "local", "shared", "global"])
    if scope != "global":
        sch.set_scope(sch.get_producers(relu)[0], "C", scope)


SCHEDULES = {"matmul": _schedule_any_matmul, "matmul_bt": _schedule_any_matmul, "matmul_relu": _schedule_matmul_relu,
             "elementwise": _schedule_one_dim,
             "rowsum": _schedule_rowsum, "window": _schedule_one_dim}


def random_program(r: random.Random) -> Program:
    name = r.choice(list(TEMPLATES))
    if name.startswith("matmul"):
        # k drawn with tails half the time: the reduction's tile need not divide it
        k = _size(r, 4, 48, 8) if r.random() < 0.5 else r.randint(3, 48)
        return Program(name, (_size(r, 4, 64, 8), _size(r, 4, 64, 8), k))
    if name in ("elementwise", "rowsum"):
        return Program(name, (_size(r, 1, 48, 4), _size(r, 1, 64, 4)))
    return Program(name, (_size(r, 1, 1024, 32),))


@dataclass(frozen=True)
class Case:
    program: Program
    seed: int
    space: bool = False
    """Schedule by xtir.tune's GPU space sampled with `seed`, else by SCHEDULES drawing from `seed`."""
    steps: tuple[str, ...] | None = None
    """Schedule by this xtir-opt pipeline instead (a drawn schedule's trace, for minimising)."""

    @property
    def pipeline(self) -> str:
        return ",".join(self.steps or ())

    def describe(self) -> str:
        if self.steps is not None:
            what = f"-p '{self.pipeline}'"
        else:
            what = f"{'gpu_space' if self.space else 'drawn'} seed {self.seed}"
        return f"{self.program.name}{self.program.sizes} {what}"


def random_case(seed: int) -> Case:
    r = random.Random(seed)
    program = random_program(r)
    return Case(program, seed, space=program.name in ("matmul", "matmul_bt", "rowsum") and r.random() < 0.3)


# Running -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    kind: str
    """ok, refused, wrong, race, crash, invalid-ir, compile."""
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.kind not in ("ok", "refused")


def scheduled(case: Case) -> tuple[xtir.ModuleOp, str]:
    """The case's scheduled module and the pipeline that makes it."""
    if case.steps is not None:
        return xtir.transform(xtir.parse(case.program.text()), case.pipeline), case.pipeline
    sch = xtir.Schedule(xtir.parse(case.program.text()), seed=case.seed)
    if case.space:
        gpu_space(sch)
    else:
        SCHEDULES[case.program.name](Draws(case.seed), sch, case.program)
    return sch.mod, sch.trace


def _build_refusal(message: str) -> Outcome:
    first = message.splitlines()[0]
    if REJECTED in first:
        return Outcome("compile", f"build: {message[:3000]}")
    return Outcome("invalid-ir" if any(w in first for w in INVALID_IR) else "refused", f"build: {first}")


def _first_line(message: str) -> str:
    """The diagnostic's first line, after a ScheduleError's headline (which names only the primitive)."""
    lines = [line for line in message.splitlines() if not line.startswith("An error occurred in the schedule primitive")]
    return (lines or message.splitlines() or [""])[0]


def refusal_key(outcome: Outcome) -> str:
    """What a refusal says, numbers and names aside (to count refusals by kind)."""
    text = outcome.detail.split("error: ")[-1]
    return re.sub(r'"[^"]*"|\d+', "_", text)[:100]


def run_case(case: Case) -> Outcome:
    try:
        module, _ = scheduled(case)
    except XtirError as e:
        return Outcome("refused", f"schedule: {_first_line(str(e))}")
    except Exception:  # noqa: BLE001 - a traceback is the finding
        return Outcome("crash", "schedule: " + traceback.format_exc(limit=-3))
    try:
        compiled = xtir.build(module, target="cuda-cpu", racecheck=True)
    except XtirError as e:
        return _build_refusal(str(e))
    except Exception:  # noqa: BLE001
        return Outcome("crash", "build: " + traceback.format_exc(limit=-3))
    arrays, expected = case.program.arrays(np.random.default_rng(case.seed))
    try:
        compiled(*arrays)
    except XtirError as e:
        kind = "race" if "racecheck" in str(e) else "crash"
        return Outcome(kind, str(e))
    except Exception:  # noqa: BLE001
        return Outcome("crash", "call: " + traceback.format_exc(limit=-3))
    out = arrays[-1]
    if np.isnan(out).any():
        where = np.argwhere(np.isnan(out))
        return Outcome("wrong", f"{len(where)} output elements left unwritten, first at {tuple(where[0])}")
    if not np.allclose(out, expected, rtol=RTOL, atol=ATOL * max(1.0, float(np.abs(expected).max(initial=0)))):
        bad = np.argwhere(~np.isclose(out, expected, rtol=RTOL, atol=ATOL))
        first = tuple(bad[0])
        return Outcome("wrong", f"{len(bad)} elements differ, first at {first}: {out[first]} vs {expected[first]}")
    return Outcome("ok")


# Minimising ------------------------------------------------------------------------------------

def _smaller_sizes(program: Program) -> list[Program]:
    candidates = []
    for k, size in enumerate(program.sizes):
        for smaller in sorted({size // 2, size - 1, 8, 4, 1}):
            if 1 <= smaller < size:
                candidates.append(replace(program, sizes=program.sizes[:k] + (smaller,) + program.sizes[k + 1:]))
    return candidates


def minimize(case: Case, outcome: Outcome) -> tuple[Case, Outcome]:
    """A smaller case failing the same way: its schedule as a pipeline, steps dropped one at a time,
    sizes shrunk."""
    if case.steps is None:
        try:
            replayed = replace(case, steps=steps_of(scheduled(case)[1]))
        except Exception:  # noqa: BLE001 - a schedule that does not finish has no trace to replay
            return case, outcome
        if run_case(replayed).kind != outcome.kind:
            return case, outcome
        case = replayed
    changed = True
    while changed:
        changed = False
        candidates = [replace(case, steps=case.steps[:k] + case.steps[k + 1:]) for k in range(len(case.steps))]
        candidates += [replace(case, program=p) for p in _smaller_sizes(case.program)]
        for candidate in candidates:
            found = run_case(candidate)
            if found.kind == outcome.kind:
                case, outcome, changed = candidate, found, True
                break
    return case, outcome


def reproducer(case: Case) -> str:
    """Python that runs the case again."""
    return (f"from tests.fuzz.gpu_fuzz import *; run_case(Case(Program({case.program.name!r}, {case.program.sizes}), "
            f"{case.seed}, {case.space}, {case.steps!r}))")


def steps_of(pipeline: str) -> tuple[str, ...]:
    """The steps of an xtir-opt pipeline (commas inside `{...}` and quotes belong to a step)."""
    return tuple(s for s in re.findall(r'(?:[^,{"]|\{[^}]*\}|"[^"]*")+', pipeline) if s)
