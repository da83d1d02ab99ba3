"""lower-to-gpu: thread-bound loop nests (after lower-blocks) to kernels of xDSL's gpu dialect.

Input: lower-blocks' output (scf / memref / arith, loops tagged `xtir.loop_kind =
"thread_binding"` and `xtir.thread = "blockIdx.x"` etc.). Each thread-bound loop at the top
of a function is a kernel launch:

    builtin.module attributes {gpu.container_module} {
      func.func @main(%A, %B) {                        // the host function
        "gpu.launch_func"(grid x,y,z, block x,y,z, %A, %B) <{kernel = @main_kernels::@main_kernel}>
        func.return
      }
      gpu.module @main_kernels {
        gpu.func @main_kernel(%A, %B) kernel {gpu.known_block_size, gpu.known_grid_size, xtir.shared_bytes}
      }
    }

The kernel's parameters are the host function's memref arguments it uses, in argument order.
Its entry block starts with the buffers (`memref.alloca`, shared first, then local), then one
`gpu.block_id` / `gpu.thread_id` per axis used (named after the first loop bound to it, every
such loop listed in `xtir.loop_names`), then the constants; the thread-bound loops are gone
(their variables are the ids), every other scf.for keeps its name, kind and annotations.

Buffers. xDSL's gpu.func has no workgroup or private attributions and no address-space
attribute, so the storage scope stays what lower-blocks leaves: the memref memory space string.
- `memref<130xf32, "shared">`: one array per thread block (CUDA `__shared__`). Its size is the
  region one thread block uses, computed here (compact-buffers leaves buffers shared between
  threads alone): the accesses relaxed over the threads and the loops inside the deepest
  serial loop whose iterations do not pass data through the buffer (GEMM's `k_0`: a 64x8 tile),
  a predicate on the fetch (`ax0_0 * 128 + tx < 130`) bounding what it writes. On the last,
  partial tile of a size the tile does not divide, the fetch is cut by the edge
  (`i_0 * 64 + f floordiv 8 < 1000`); the tile stays the iteration's when each read is cut by
  the same edge or a lower one on its index. Indices are rebased to the region's start.
- `memref<8x8xf32, "local">`: one array per thread (registers), as compact-buffers sized it;
  it must be allocated inside every thread-bound loop that uses it.

Virtual threads (loops bound to vthread.{x,y,z}, TVM's InjectVirtualThread): a thread axis for
the checks and shared sizes below (no two virtual threads write one element, a local buffer used
in one is allocated in it, shared regions are relaxed over them; a store that does not use the
variable runs once per real thread (one like `G[t] += 1`, not writing the same value in each,
once per virtual thread in turn, as run serially), one whose value alone uses it keeps the
last virtual thread's value when nothing else in the loop touches its buffer and no other store
in the loop writes a global buffer its value is loaded from), then run serially in each real
thread: once buffers are sized and double-buffered, lowering/virtual_threads.py pushes each
vthread loop down to the statements that use its variable (serial loops tagged `xtir.vthread`; a
local buffer allocated in it gets a leading dimension per virtual thread; refused where that
would reorder the accesses of a global buffer across virtual threads), before barriers are
placed on the result.

Barriers (`gpu.barrier`, CUDA `__syncthreads()`) are placed from the shared accesses, at points
every thread of the block reaches (not under a condition on a thread id): before a statement
that reads what other threads wrote since the last barrier or writes what they read, as far
out as possible (before the loop nest holding the access, not inside it), and at the top of a
serial loop whose next iteration would overwrite what this one read (GEMM's `k_0`). Code under
a condition on a thread id (a tile's edge) needs none inside: no two threads of the block may touch
one element there, one writing it, at any iterations of the serial loops (a guarded accumulator
that each thread updates and writes back itself).

Double buffering (TVM's InjectDoubleBuffer, for buffers marked by the double-buffer primitive:
`memref.alloca() {double_buffer_scope}`), once shared buffers are sized: the buffer gets a
leading dimension of 2, tile k living in half k mod 2, in the serial loop whose first statements
fetch the tile its later statements read (loops of one iteration passed over, and those of them
in its body holding both the fetch and the reads replaced by their bodies). Tile 0 is fetched before the loop; iteration k loads
tile k+1 into a per-thread array (`A_shared_next`, registers) first and stores it into half
(k+1) mod 2 last; the last iteration runs after the loop without a fetch. The barriers follow
from the halves each access touches (one per iteration, at the top of the loop). Refused: the
buffer not fetched then read in one serial loop from 0 in steps of 1 running at least twice, a
fetch reading memory the kernel writes, the doubled buffers over 48 KiB.

Refused, at the op: a loop nest at the top of a kernel function that is not bound (it would
run on the host); more than 1024 threads per block, a block or grid dimension over CUDA's
limits; one tag bound with different extents in one kernel; shared memory over
48 KiB per block; a write to a shared buffer that every thread makes alike (a loop not bound
to a thread writing it: cooperative fetching binds it), or data exchanged through shared
memory with no barrier point between writer and reader; a reduction over a thread-bound loop
(no cross-thread reduction yet) and other writes of one global element by several threads (of an
intermediate allocated in global memory, one copy for the grid: set-scope makes it local or shared);
two threads (blocks, virtual threads) touching one element of a global or local buffer at any
iterations of the serial loops inside them, one writing it (lowering/thread_races.py: loops bound by
hand, or changed after bind checked them), or of a shared buffer in one body of a loop bound to
them, where no barrier can order them (a flow between two loops bound to the thread is ordered by
the barriers placed); a loop bound to a tag inside a loop bound to it that, run once, does not do
what it does run for every outer iteration (lowering/rebound_threads.py: its body uses the outer
index, reads and writes one buffer, or the outer body touches its buffers before it); parallel
loops inside a kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    FixedBitwidthType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce

from xtir.dialects.block import DOUBLE_BUFFER, Block_, dim_aligns
from xtir.dialects.expr import Div, Expr, Mod, Var
from xtir.dialects.layout import memory_space, reach, storage_type, strides_of
from xtir.dialects.walk import ancestors
from xtir.lowering.blocks_to_scf import THREAD
from xtir.lowering.compact_buffers import INIT_GUARD
from xtir.lowering.index_expr import IndexEmitter, constant, decode, decode_bounds, index_bounds
from xtir.lowering.loops import PARALLEL, THREAD_BINDING, constant_int, loop_kind, loop_name, trip_count
from xtir.lowering.rebound_threads import check_rebound_threads
from xtir.lowering.thread_races import Axis, check_shared_flows, check_thread_races, threads_meet
from xtir.lowering.virtual_threads import (
    cached_dependents,
    guarded_by,
    inject_virtual_threads,
    loaded_buffers,
    untouched_vthreads,
    vthread_tag,
)
from xtir.passes.analysis.instances import distinct, gapless, injective, points
from xtir.passes.analysis.regions import Range, relax
from xtir.passes.utils import fail

LOOP_NAMES = "xtir.loop_names"
SHARED_BYTES = "xtir.shared_bytes"
SHARED, LOCAL = "shared", "local"

MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = {"x": 1024, "y": 1024, "z": 64}
MAX_GRID_DIM = {"x": 2**31 - 1, "y": 65535, "z": 65535}
MAX_SHARED_BYTES = 48 * 1024
"""Static shared memory per block that CUDA allows without opting in (sm_90 has more, dynamic)."""

_AXES = ("x", "y", "z")
_NAME = "lower-to-gpu"


# Kernels: the thread-bound loops of one launch ------------------------------------------


def _thread(op: Operation) -> str | None:
    attr = op.attributes.get(THREAD)
    if isinstance(op, scf.ForOp) and isinstance(attr, StringAttr) and loop_kind(op) == THREAD_BINDING:
        return attr.data
    return None


@dataclass
class Kernel:
    """One launch: its root loop, the loops bound to each tag and the axis sizes."""

    root: scf.ForOp
    loops: dict[str, list[scf.ForOp]] = field(default_factory=dict)
    tiles: dict[SSAValue, scf.ForOp] = field(default_factory=dict)
    """Each shared buffer sized per iteration of a serial loop → that loop (`SharedPlan.tile`)."""

    def extent(self, tag: str) -> int:
        loops = self.loops.get(tag)
        return trip_count(loops[0]) or 1 if loops else 1

    def sizes(self, kind: str) -> list[int]:
        return [self.extent(f"{kind}.{axis}") for axis in _AXES]

    def canonical(self) -> dict[SSAValue, SSAValue]:
        """Each thread-bound loop variable → the variable of the first loop bound to its tag."""
        return {lp.body.block.args[0]: loops[0].body.block.args[0] for loops in self.loops.values() for lp in loops}

    def thread_vars(self) -> dict[SSAValue, int]:
        """The canonical variable of each threadIdx axis, with its extent; of each vthread axis
        too until inject_virtual_threads (a virtual thread is a thread for every analysis)."""
        return {loops[0].body.block.args[0]: self.extent(tag) for tag, loops in self.loops.items()
                if tag.startswith(("threadIdx", "vthread"))}

    def block_vars(self) -> set[SSAValue]:
        return {loops[0].body.block.args[0] for tag, loops in self.loops.items() if tag.startswith("blockIdx")}


def _collect(root: scf.ForOp) -> Kernel:
    kernel = Kernel(root)
    for op in root.walk():
        if (tag := _thread(op)) is not None:
            assert isinstance(op, scf.ForOp)
            loops = kernel.loops.setdefault(tag, [])
            if loops and trip_count(loops[0]) != trip_count(op):
                raise fail(_NAME, op, f'loop "{loop_name(op)}" is bound to {tag} with extent {trip_count(op)}, but loop '
                           f'"{loop_name(loops[0])}" of the same kernel is bound to it with extent '
                           f"{trip_count(loops[0])}; one thread axis has one extent")
            loops.append(op)
        elif isinstance(op, scf.ForOp) and loop_kind(op) == PARALLEL:
            raise fail(_NAME, op, f'loop "{loop_name(op)}" is parallel inside a GPU kernel; bind it to a thread axis')
    return kernel


def _check_launch(kernel: Kernel) -> None:
    threads = 1
    for axis, n in zip(_AXES, kernel.sizes("threadIdx")):
        threads *= n
        if n > MAX_BLOCK_DIM[axis]:
            loop = kernel.loops[f"threadIdx.{axis}"][0]
            raise fail(_NAME, loop, f'loop "{loop_name(loop)}" makes threadIdx.{axis} {n} threads wide; '
                       f"a block has at most {MAX_BLOCK_DIM[axis]} along {axis}")
    if threads > MAX_THREADS_PER_BLOCK:
        dims = ", ".join(f"{tag} = {kernel.extent(tag)}" for tag in sorted(kernel.loops) if tag.startswith("threadIdx"))
        raise fail(_NAME, kernel.root, f"the kernel has {threads} threads per block ({dims}); "
                   f"a block has at most {MAX_THREADS_PER_BLOCK}")
    for axis, n in zip(_AXES, kernel.sizes("blockIdx")):
        if n > MAX_GRID_DIM[axis]:
            loop = kernel.loops[f"blockIdx.{axis}"][0]
            raise fail(_NAME, loop, f'loop "{loop_name(loop)}" makes blockIdx.{axis} {n} blocks; '
                       f"the grid has at most {MAX_GRID_DIM[axis]} along {axis}")


# Accesses, in the canonical thread variables ----------------------------------------------


Access = memref.LoadOp | memref.StoreOp


@dataclass(frozen=True)
class Use:
    op: Access
    is_write: bool
    indices: tuple[Expr, ...] | None
    guards: tuple[tuple[Expr, int], ...] | None
    """Conjuncts `e < bound` of the scf.ifs around the access (init guards left out); None
    when one is not such a condition."""


def _buffer(op: Access) -> SSAValue:
    return op.memref


def _use(op: Access, root: Operation, canon: dict[SSAValue, SSAValue]) -> Use:
    decoded = [decode(i) for i in op.indices]
    indices = None if any(d is None for d in decoded) else tuple(d.substitute(_as_exprs(canon)) for d in decoded)  # type: ignore[union-attr]
    guards: list[tuple[Expr, int]] | None = []
    for parent in ancestors(op, root):
        if isinstance(parent, scf.IfOp) and INIT_GUARD not in parent.attributes:
            conjuncts = decode_bounds(parent.cond)
            if conjuncts is None or guards is None:
                guards = None
                continue
            guards.extend((e.substitute(_as_exprs(canon)), b) for e, b in conjuncts)
    return Use(op, isinstance(op, memref.StoreOp), indices, None if guards is None else tuple(guards))


def _as_exprs(mapping: dict[SSAValue, SSAValue]) -> dict[SSAValue, Expr]:
    return {k: Expr.var(v) for k, v in mapping.items() if k is not v}


def _accesses(root: Operation, canon: dict[SSAValue, SSAValue]) -> list[Use]:
    return [_use(op, root, canon) for op in root.walk() if isinstance(op, memref.LoadOp | memref.StoreOp)]


def _describe(op: Operation) -> str:
    """`loop "ax0"` for the innermost loop around `op` not bound to a thread, else the op."""
    for parent in ancestors(op, op.get_toplevel_object()):
        if isinstance(parent, scf.ForOp) and _thread(parent) is None:
            return f'loop "{loop_name(parent)}"'
    return f"the {op.name}"


def _buffer_name(value: SSAValue) -> str:
    return value.name_hint or "a buffer"


# Races through global memory and redundant shared writes ----------------------------------


def _check_writes(kernel: Kernel, uses: list[Use]) -> None:
    """No two threads (or blocks) write one element with the same store: a thread-bound
    reduction, or a loop not bound to a thread that every thread runs alike."""
    threads = kernel.thread_vars()
    everyone = {**threads, **{v: kernel.extent(t) for t, lps in kernel.loops.items() if t.startswith("blockIdx")
                              for v in [lps[0].body.block.args[0]]}}
    dependent: dict[scf.ForOp, set[SSAValue]] = {}
    for use in sorted(uses, key=lambda u: _under_init(u.op)):  # a reduction is reported at its update
        space = memory_space(_buffer(use.op))
        if not use.is_write or space == LOCAL:
            continue
        shared = space == SHARED
        over = _writers(kernel, use.op, threads if shared else everyone, dependent)
        if use.indices is None:
            raise fail(_NAME, use.op, f"cannot tell which threads write {_buffer_name(_buffer(use.op))}")
        if over and not _injective(over, list(use.indices)):
            raise fail(_NAME, use.op, _write_race(kernel, use, over, shared))


def _writers(kernel: Kernel, store: Operation, over: dict[SSAValue, int],
             dependent: dict[scf.ForOp, set[SSAValue]]) -> dict[SSAValue, int]:
    """`over` without the virtual threads that do not run `store` apart: those of vthread loops
    not around it, whose variable it does not use (it runs once, inject_virtual_threads), or
    that run it one after another, the last one's value staying (`_last_wins`). `dependent`
    caches each vthread loop's `dependents`. (Of a load: the virtual threads it runs apart.)"""
    canon = kernel.canonical()
    vthreads = [lp for lp in ancestors(store, kernel.root) if isinstance(lp, scf.ForOp) and vthread_tag(lp) is not None]
    around = {canon[lp.body.block.args[0]] for lp in vthreads}
    idle = {canon[lp.body.block.args[0]] for lp in untouched_vthreads(store, kernel.root, dependent)}
    serial = {canon[lp.body.block.args[0]] for lp in vthreads
              if isinstance(store, memref.StoreOp) and _last_wins(store, lp, dependent)}
    virtual = {lps[0].body.block.args[0] for tag, lps in kernel.loops.items() if tag.startswith("vthread")}
    return {v: n for v, n in over.items() if v not in virtual or (v in around and v not in idle | serial)}


def _last_wins(store: Operation, loop: scf.ForOp, dependent: dict[scf.ForOp, set[SSAValue]]) -> bool:
    """Whether the virtual threads of `loop` store into the same elements one after another and
    the last one's value stays, as inject_virtual_threads runs them: only the stored value uses
    the variable (not an index, nor a condition or loop bound around the store), nothing else in
    `loop` touches the buffer (inject_virtual_threads runs each statement for every virtual thread
    in turn: another access of the buffer would see them in another order), and no other store in
    `loop` writes a buffer the value is loaded from (run serially, a later virtual thread would
    load what an earlier one stored there; distributed, every one loads what was there before),
    but for a shared buffer (to it virtual threads are threads: barriers order every thread's
    accesses of one statement before the next statement's, as distributed)."""
    assert isinstance(store, memref.StoreOp)
    values = cached_dependents(loop, dependent)
    if any(i in values for i in store.indices) or guarded_by(store, loop, values):
        return False
    sources = {b for b in loaded_buffers(store.value, loop) if memory_space(b) != SHARED}
    return all(op is store for op in loop.walk() if isinstance(op, memref.StoreOp | memref.LoadOp)
               and (op.memref is store.memref or (isinstance(op, memref.StoreOp) and op.memref in sources)))


def _enumerate(over: dict[SSAValue, int], exprs: list[Expr],
               guards: Sequence[tuple[Expr, int]] = ()) -> tuple[int, int] | None:
    """(distinct values of `exprs` over the points of the box `over` that pass `guards` (`e < bound`),
    number of contexts): the other variables that a floordiv or mod mixes in are enumerated too,
    each context kept apart. None past ENUMERATION_LIMIT points or for a context variable of
    unknown range."""
    context: dict[SSAValue, int] = {}
    for e in exprs:
        for atom, _ in e.terms:
            if isinstance(atom, Div | Mod) and any(v in over for v in atom.expr.variables()):
                for v in atom.expr.variables():
                    known = index_bounds(v) if v not in over else (0, 0)
                    if known is None or known[0] != 0:
                        return None
                    if v not in over:
                        context[v] = known[1] + 1
    keys = [*exprs, *map(Expr.var, context)]
    found = points([*over.items(), *context.items()], [*keys, *(e for e, _ in guards)])
    if found is None:
        return None
    bounds = np.array([bound for _, bound in guards], dtype=np.int64).reshape(-1, 1)
    passed = np.all(found[len(keys):] < bounds, axis=0)
    contexts = 1
    for n in context.values():
        contexts *= n
    return distinct(found[: len(keys), passed]), contexts


def _injective(over: dict[SSAValue, int], exprs: list[Expr]) -> bool:
    """Whether `exprs` take a different value at each point of `over` (other variables fixed)."""
    if any(n > 1 and not any(e.uses(v) for e in exprs) for v, n in over.items()):
        return False  # xtir's `injective` looks at the variables the expressions use
    if injective(over, exprs):
        return True
    size = 1
    for n in over.values():
        size *= n
    counted = _enumerate(over, exprs)
    return counted is not None and counted[0] == size * counted[1]


def _write_race(kernel: Kernel, use: Use, over: dict[SSAValue, int], shared: bool) -> str:
    buffer = _buffer(use.op)
    name, owner = _buffer_name(buffer), buffer.owner
    unused = [v for v in over if not any(i.uses(v) for i in use.indices or ())]
    tags = [tag for tag, lps in kernel.loops.items() if lps[0].body.block.args[0] in unused] or ["the thread axes"]
    colliding = [lp for tag in tags for lp in kernel.loops.get(tag, []) if lp.is_ancestor(use.op)]
    # an intermediate lives inside the loops compact-buffers sized it for: over those the threads share
    # it because global memory holds one copy for the grid; a reduction is over the loops inside it
    inside = [lp for lp in colliding if not (isinstance(owner, memref.AllocaOp) and lp.is_ancestor(owner))]
    if not shared and isinstance(owner, memref.AllocaOp) and colliding and not inside:
        return (f"{name} is a global intermediate written by every thread ({', '.join(tags)}): global memory "
                f"holds one {name} for the whole grid, so the threads write the same elements (a race); make it "
                f'per thread with set-scope scope="local" (or per thread block with scope="shared")')
    if _reads_same_element(use) is not None or _under_init(use.op):
        where = f'loop "{loop_name(inside[0])}" bound to {_thread(inside[0])}' if inside else f"the threads of {tags[0]}"
        return (f"the update of {name} reduces over {where}: every thread reads and writes the same element; "
                "cross-thread reduction is not supported yet (keep the reduction loop serial)")
    if tags and all(tag.startswith("vthread") for tag in tags):
        loop = kernel.loops[tags[0]][0]
        return (f'the store into {name} writes the same elements in every virtual thread of loop "{loop_name(loop)}" '
                f"({tags[0]}) (its element does not use the virtual thread, what it stores or when does): they run "
                f"one after another, which keeps the last value only when nothing else in the loop reads or writes "
                f"{name}, no other store in the loop writes a buffer its value is loaded from and no condition or "
                "loop bound around the store uses the virtual thread; make the element "
                "depend on the virtual thread")
    if shared:
        return (f"{_describe(use.op)} is not bound to a thread (or not to every threadIdx axis), and the threads of the "
                f"block that run it write the same elements of shared buffer {name} (a race); bind it to a threadIdx "
                "axis (cooperative fetching)")
    return f"several threads ({', '.join(tags)}) write the same element of {name} (a race)"


def _under_init(op: Operation) -> bool:
    return any(isinstance(p, scf.IfOp) and INIT_GUARD in p.attributes for p in ancestors(op, op.get_toplevel_object()))


def _reads_same_element(use: Use) -> memref.LoadOp | None:
    value = use.op.value if isinstance(use.op, memref.StoreOp) else None
    pending = [value] if value is not None else []
    seen: set[int] = set()
    while pending:
        v = pending.pop()
        owner = v.owner
        if not isinstance(owner, Operation) or id(owner) in seen:
            continue
        seen.add(id(owner))
        if isinstance(owner, memref.LoadOp) and owner.memref is use.op.memref and list(owner.indices) == list(use.op.indices):
            return owner
        pending.extend(owner.operands)
    return None


def _check_races(kernel: Kernel) -> None:
    """No two threads touch one element of a global or local buffer, one writing it
    (lowering/thread_races.py), each access compared over the block and thread axes and the
    virtual threads it runs apart on (`_writers`)."""
    everyone = {lps[0].body.block.args[0]: kernel.extent(tag) for tag, lps in kernel.loops.items()}
    axes = {lps[0].body.block.args[0]: Axis(tag, loop_name(lps[0]), kernel.extent(tag))
            for tag, lps in sorted(kernel.loops.items()) if kernel.extent(tag) > 1}
    dependent: dict[scf.ForOp, set[SSAValue]] = {}

    def apart(op: Access) -> set[SSAValue]:
        return set(_writers(kernel, op, everyone, dependent))

    check_thread_races(kernel.root, axes, kernel.canonical(), apart)
    check_shared_flows(kernel.root, axes, kernel.canonical(), apart, kernel.tiles)


# Local buffers: one per thread ---------------------------------------------------------------


def _check_local(kernel: Kernel, alloca: memref.AllocaOp) -> None:
    """A local buffer is one per thread: it must be allocated inside every thread-bound loop using it,
    blockIdx included (of more than one iteration: along an axis of one there is nobody to share it
    with). compact-buffers moves a buffer there when no iteration reads what another wrote; one left
    outside is passed between iterations, which on the GPU are threads that cannot see each other's."""
    users = [u.operation for u in alloca.memref.uses]
    for tag, lps in kernel.loops.items():
        if kernel.extent(tag) < 2:
            continue
        for lp in lps:
            if any(lp.is_ancestor(u) for u in users) and not lp.is_ancestor(alloca):
                who = "thread block" if tag.startswith("blockIdx") else "thread"
                raise fail(_NAME, alloca, f'local buffer {_buffer_name(alloca.memref)} is used by every {who} of loop '
                           f'"{loop_name(lp)}" ({_thread(lp)}) but allocated outside it: {who}s would share it; local '
                           "buffers are per thread")


# Shared buffers: the region of one thread block --------------------------------------------


def _bounds(canon_extents: dict[SSAValue, int]):
    def bounds(value: SSAValue) -> tuple[int, int] | None:
        if value in canon_extents:
            return 0, canon_extents[value] - 1
        return index_bounds(value)

    return bounds


def _serial_loops(op: Operation, root: Operation) -> list[scf.ForOp]:
    """The loops around `op` inside the kernel that are not thread-bound, innermost first."""
    return [p for p in ancestors(op, root) if isinstance(p, scf.ForOp) and _thread(p) is None]


def _split(index: Expr, relaxed: set[SSAValue]) -> tuple[Expr, Expr]:
    """index = fixed + free, free holding the terms over relaxed variables (no constant)."""
    fixed: dict = {}
    free: dict = {}
    for atom, coef in index.terms:
        vars_ = [atom.value] if isinstance(atom, Var) else atom.expr.variables()
        (free if any(v in relaxed for v in vars_) else fixed)[atom] = coef
    return Expr._make(fixed, index.const), Expr._make(free, 0)


def _range(index: Expr, relaxed: set[SSAValue], guards: Sequence[tuple[Expr, int]], bounds) -> Range | None:
    """The values `index` takes with `relaxed` free, cut by a guard on its free part (`f < 480` for
    `f floordiv 60`: a cooperative fetch's guard), or on the whole index where the rest of it is one
    value (the variables of one-iteration loops)."""
    r = relax(index, relaxed, bounds)
    if r is None:
        return None
    fixed, free = _split(index, relaxed)
    lo = r.start - fixed
    assert lo.is_const
    hi = lo.const + r.extent - 1
    rest = _shift(Expr(), fixed - fixed.const, bounds)
    for e, bound in guards:
        if (cut := _index_bound(free, e, bound)) is not None:
            hi = min(hi, cut - 1)
        elif rest is not None and (cut := _index_bound(index, e, bound)) is not None:
            hi = min(hi, cut - rest - index.const - 1)
    return Range(r.start, max(hi - lo.const + 1, 0))


def _guards_used(use: Use, relaxed: set[SSAValue]) -> bool:
    """Every guard of the write is a bound on the free part of one of its indices, or on one
    whole index (the edge of a non-dividing split: `i_0 * 64 + tx floordiv 8 < 1000`)."""
    assert use.indices is not None and use.guards is not None
    frees = [_split(i, relaxed)[1] for i in use.indices]  # the cuts _range makes
    return all(any(_index_bound(i, e, bound) is not None for i in [*frees, *use.indices])  # and those _cuts finds
               for e, bound in use.guards)


def _index_bound(index: Expr, e: Expr, bound: int) -> int | None:
    """The c of `index < c` that a guard `e < bound` means: e is the index but its constant, or
    the index is `e floordiv d` (`x floordiv 8 < 72` arrives simplified to `x < 576`) and the
    guard stops at a multiple of d (else it cuts a row short, no bound on the index alone)."""
    rest = index - index.const
    if e == rest:
        return bound + index.const
    if len(rest.terms) == 1:
        atom, coef = rest.terms[0]
        if coef == 1 and isinstance(atom, Div) and atom.expr - atom.expr.const == e:
            end = bound + atom.expr.const
            return end // atom.divisor + index.const if end % atom.divisor == 0 else None
    return None


def _cuts(use: Use, skip: Sequence[tuple[Expr, int]] = ()) -> list[int | None]:
    """Per dimension, the least c of the guards `index < c` on the whole index (but those in
    `skip`), else None."""
    assert use.indices is not None
    cuts: list[int | None] = []
    for index in use.indices:
        found = [c for e, bound in use.guards or () if (e, bound) not in skip
                 and (c := _index_bound(index, e, bound)) is not None]
        cuts.append(min(found) if found else None)
    return cuts


def _cut_within(read: Use, write: Use, relaxed: set[SSAValue]) -> bool:
    """Whether the read stays below every edge that cuts the write's box: it is guarded by the
    same edge or a lower one, on its own index of that dimension. A guard of the write on its
    `relaxed` loops alone (a cooperative fetch's `f < 512` when the threads do not divide the
    tile) is no such edge: it cuts the write's box itself, which _fills counted with it."""
    inner = _inner_guards(write, relaxed)
    return all(w is None or (r is not None and r <= w) for r, w in zip(_cuts(read), _cuts(write, inner)))


def _inner_guards(use: Use, relaxed: set[SSAValue]) -> list[tuple[Expr, int]]:
    """The guards of `use` over relaxed loops that its indices use, and no other variable."""
    assert use.indices is not None
    loops = {v for v in relaxed if any(i.uses(v) for i in use.indices)}
    return [(e, bound) for e, bound in use.guards or () if all(v in loops for v in e.variables())]


@dataclass
class SharedPlan:
    alloca: memref.AllocaOp
    box: tuple[Range, ...]
    tile: scf.ForOp | None
    """The serial loop per iteration of which the box is, every read inside a filling write's box
    before it (`_private`); None: the whole kernel."""


def _shift(a: Expr, b: Expr, bounds) -> int | None:
    """b - a when it is one number (variables of one-iteration loops count as constants)."""
    span = (b - a).bounds(bounds)
    return span[0] if span is not None and span[0] == span[1] else None


def _box(uses: list[Use], relaxed_of, bounds) -> tuple[Range, ...] | None:
    box: list[Range] | None = None
    for use in uses:
        assert use.indices is not None
        ranges = [_range(i, relaxed_of(use), use.guards or (), bounds) for i in use.indices]
        if any(r is None for r in ranges):
            return None
        if box is None:
            box = ranges  # type: ignore[assignment]
            continue
        merged = []
        for a, b in zip(box, ranges):
            assert b is not None
            shift = _shift(a.start, b.start, bounds)
            if shift is None:
                return None
            lo, hi = min(0, shift), max(a.extent, shift + b.extent)
            merged.append(Range(a.start + lo, hi - lo))
        box = merged
    return tuple(box) if box is not None else None


def _within(inner: tuple[Range, ...], outer: tuple[Range, ...], bounds) -> bool:
    for a, b in zip(outer, inner):
        shift = _shift(a.start, b.start, bounds)
        if shift is None or shift < 0 or shift + b.extent > a.extent:
            return False
    return True


def _fills(use: Use, relaxed: set[SSAValue], extents: dict[SSAValue, int], bounds) -> bool:
    """Whether the write reaches every element of its box. Its guards each bound one index
    (_guards_used), and a full box cut along its dimensions stays full: those on the relaxed
    loops alone are counted with the box they cut (a cooperative fetch's `f < 480` cuts the
    last, partial row of `f floordiv 60` off), the others left out."""
    assert use.indices is not None
    loops = {v: n for v, n in extents.items() if v in relaxed and any(i.uses(v) for i in use.indices)}
    if gapless(use.indices, [1] * len(use.indices), loops):
        return True
    inner = _inner_guards(use, relaxed)
    box = _box([replace(use, guards=inner)], lambda _: relaxed, bounds)
    counted = _enumerate(loops, list(use.indices), inner)
    if box is None or counted is None:
        return False
    volume = 1
    for r in box:
        volume *= r.extent
    return counted[0] == volume * counted[1]


def _plan_shared(kernel: Kernel, alloca: memref.AllocaOp, uses: list[Use]) -> SharedPlan:
    """The box one thread block uses, per iteration of the deepest serial loop whose
    iterations each write what they read, else over the whole kernel."""
    name = _buffer_name(alloca.memref)
    for use in uses:
        if use.indices is None:
            raise fail(_NAME, use.op, f"cannot tell which elements of shared buffer {name} this touches")
    threads = set(kernel.thread_vars())
    extents = {**kernel.thread_vars(), **_loop_extents(kernel.root)}
    bounds = _bounds(kernel.thread_vars())
    common = _serial_loops(uses[0].op, kernel.root)
    for use in uses[1:]:
        mine = _serial_loops(use.op, kernel.root)
        common = [lp for lp in common if any(lp is m for m in mine)]
    for level in [*common, None]:
        def relaxed_of(use: Use, level=level) -> set[SSAValue]:
            inner = _serial_loops(use.op, kernel.root)
            if level is not None:
                inner = inner[: next(k for k, lp in enumerate(inner) if lp is level)]
            return threads | {lp.body.block.args[0] for lp in inner}

        if level is not None and not _private(uses, relaxed_of, extents, bounds):
            continue
        box = _box(uses, relaxed_of, bounds)
        if box is None:
            raise fail(_NAME, uses[0].op, f"cannot bound the region of shared buffer {name} one thread block uses")
        shape = alloca.memref.type.get_shape()  # type: ignore[union-attr]
        box = tuple(Range(Expr(), n) if r.extent >= n else r for r, n in zip(box, shape))
        return SharedPlan(alloca, box, level)
    raise AssertionError("the kernel level always gives a box")


def _loop_extents(root: Operation) -> dict[SSAValue, int]:
    return {op.body.block.args[0]: trip_count(op) or 0 for op in root.walk() if isinstance(op, scf.ForOp)}


def _private(uses: list[Use], relaxed_of, extents: dict[SSAValue, int], bounds) -> bool:
    """Every read is inside the box of a write before it that fills its box (per iteration)."""
    writes: list[tuple[Use, tuple[Range, ...]]] = []
    for use in uses:
        relaxed = relaxed_of(use)
        box = _box([use], relaxed_of, bounds)
        if box is None:
            return False
        if use.is_write:
            if use.guards is not None and _guards_used(use, relaxed) and _fills(use, relaxed, extents, bounds):
                writes.append((use, box))
        elif not any(_within(box, wbox, bounds) and _cut_within(use, write, relaxed_of(write)) for write, wbox in writes):
            return False
    return True


def _rebase(plan: SharedPlan, uses: list[Use], canon: dict[SSAValue, SSAValue]) -> tuple[SSAValue, int]:
    """Shrink the buffer to the box and shift its indices (in the variables of the loops around
    each access, `_own_vars`); the new buffer and its size in bytes."""
    old = plan.alloca.memref.type
    assert isinstance(old, MemRefType)
    new_type = storage_type(old.element_type, [r.extent for r in plan.box], old.memory_space, dim_aligns(plan.alloca))
    new = memref.AllocaOp.get(new_type.element_type, shape=new_type.get_shape(), layout=new_type.layout,
                              memory_space=new_type.memory_space)
    new.memref.name_hint = plan.alloca.memref.name_hint
    new.attributes.update(plan.alloca.attributes)
    new.location = plan.alloca.location
    Rewriter.insert_op(new, InsertPoint.before(plan.alloca))
    for use in uses:
        assert use.indices is not None
        emitter = IndexEmitter(use.op)
        own = _own_vars(use.op, canon)
        shifted = [emitter.expr((i - r.start).substitute(own)) for i, r in zip(use.indices, plan.box)]
        if isinstance(use.op, memref.LoadOp):
            repl = memref.LoadOp.get(new.memref, shifted)
            repl.res.name_hint = use.op.res.name_hint
        else:
            repl = memref.StoreOp.get(use.op.value, new.memref, shifted)
        repl.location = use.op.location
        Rewriter.replace_op(use.op, repl)
    Rewriter.erase_op(plan.alloca)
    element = new_type.element_type
    return new.memref, reach(new_type) * (element.size if isinstance(element, FixedBitwidthType) else 8)  # index: 8 bytes


def _own_vars(op: Operation, canon: dict[SSAValue, SSAValue]) -> dict[SSAValue, Expr]:
    """Each canonical thread variable → the variable of the loop of its tag around `op`: the
    canonical one belongs to the first loop of the tag, which inject_virtual_threads may copy
    and erase (it sits in another vthread loop, or is one) while `op` stays outside it."""
    own = {}
    for lp in ancestors(op, op.get_toplevel_object()):
        if isinstance(lp, scf.ForOp) and _thread(lp) is not None:
            var = lp.body.block.args[0]
            if canon[var] is not var:
                own[canon[var]] = Expr.var(var)
    return own


# Double buffering (TVM's InjectDoubleBuffer) -------------------------------------------------


@dataclass
class Pipeline:
    """A serial loop whose first statements fetch the tiles of double-buffered buffers that
    its later statements read."""

    loop: scf.ForOp
    buffers: list[memref.AllocaOp] = field(default_factory=list)
    fetches: list[Operation] = field(default_factory=list)


def _pipeline_of(kernel: Kernel, alloca: memref.AllocaOp) -> tuple[scf.ForOp, list[Operation]]:
    """The loop whose iterations fetch and read `alloca`'s tiles, and its fetch statements."""
    users = [u.operation for u in alloca.memref.uses]
    loop = _tile_loop(kernel, alloca, users)
    _inline_unit_loops(loop, users)
    fetches = _fetches_before_reads(loop, alloca, users)
    _check_counts_tiles(loop, alloca)
    _check_fetches_can_move(kernel, alloca, fetches)
    return loop, fetches


def _tile_loop(kernel: Kernel, alloca: memref.AllocaOp, users: list[Operation]) -> scf.ForOp:
    """The innermost serial loop of more than one iteration around every use of `alloca` (as
    double-buffer picked it: `k_0` when the fetch is computed at `k_1` of one iteration)."""
    common = [lp for lp in _serial_loops(users[0], kernel.root) if trip_count(lp) != 1]
    for user in users[1:]:
        common = [lp for lp in common if lp.is_ancestor(user)]
    if not common:
        raise fail(_NAME, alloca, f"double-buffered {_buffer_name(alloca.memref)} is not fetched and read in one "
                   "serial loop")
    return common[0]


def _inline_unit_loops(loop: scf.ForOp, users: list[Operation]) -> None:
    """Replace the serial loops of one iteration in `loop`'s body that hold both a fetch and a
    read by their bodies (TVM drops such loops before injecting double buffers), so that the
    fetch and the reads are statements of `loop` of their own (a fetch computed at `k_1` of one
    iteration, `loop` being `k_0`)."""
    body = loop.body.block

    def holds_both(op: Operation) -> bool:
        held = {type(u) for u in users if op.is_ancestor(u)}
        return memref.StoreOp in held and memref.LoadOp in held

    while unit := next((op for op in body.ops if isinstance(op, scf.ForOp) and _thread(op) is None
                        and trip_count(op) == 1 and holds_both(op)), None):
        _inline_loop(unit, unit.lb)


def _fetches_before_reads(loop: scf.ForOp, alloca: memref.AllocaOp, users: list[Operation]) -> list[Operation]:
    """The statements of `loop` that store into `alloca`: all of them before any that loads from it."""
    body = loop.body.block
    fetches = list(dict.fromkeys(body.find_ancestor_op_in_block(u) for u in users if isinstance(u, memref.StoreOp)))
    reads = list(dict.fromkeys(body.find_ancestor_op_in_block(u) for u in users if isinstance(u, memref.LoadOp)))
    position = body.get_operation_index
    if not fetches or not reads or set(fetches) & set(reads) or max(map(position, fetches)) > min(map(position, reads)):
        raise fail(_NAME, alloca, f'double-buffered {_buffer_name(alloca.memref)}: loop "{loop_name(loop)}" must first '
                   "fetch the whole tile, then read it")
    return fetches


def _check_counts_tiles(loop: scf.ForOp, alloca: memref.AllocaOp) -> None:
    """Tile k lives in half k % 2, and the loop is peeled: it counts 0, 1, ... at least to 1."""
    if constant_int(loop.lb) != 0 or constant_int(loop.step) != 1 or (trip_count(loop) or 0) < 2:
        raise fail(_NAME, loop, f'double-buffered {_buffer_name(alloca.memref)}: loop "{loop_name(loop)}" must run '
                   "from 0 in steps of 1, at least twice")


def _check_fetches_can_move(kernel: Kernel, alloca: memref.AllocaOp, fetches: list[Operation]) -> None:
    """The fetches move an iteration early: they must read nothing the kernel writes, and write
    nothing but `alloca`."""
    name = _buffer_name(alloca.memref)
    written = {op.memref for op in kernel.root.walk() if isinstance(op, memref.StoreOp)}
    for fetch in fetches:
        for op in fetch.walk():
            if isinstance(op, memref.LoadOp) and op.memref in written:
                raise fail(_NAME, op, f"the fetch of double-buffered {name} reads {_buffer_name(op.memref)}, which "
                           "the kernel writes: fetching it an iteration early could read it before that write")
            if isinstance(op, memref.StoreOp) and op.memref is not alloca.memref:
                raise fail(_NAME, op, f"the fetch of double-buffered {name} also writes {_buffer_name(op.memref)}")


def _inject_double_buffers(kernel: Kernel, f: func.FuncOp) -> bool:
    """Double the marked shared buffers (sized by now) and pipeline their loops; whether any was."""
    pipelines: dict[scf.ForOp, Pipeline] = {}
    for alloca in _allocas(kernel.root, f):
        if DOUBLE_BUFFER in alloca.attributes and alloca.memref.uses:
            loop, fetches = _pipeline_of(kernel, alloca)
            pipeline = pipelines.setdefault(loop, Pipeline(loop))
            pipeline.buffers.append(alloca)
            pipeline.fetches.extend(fetches)
    # inner loops first: an outer pipeline copies the inner loop into its epilogue, which must be a
    # copy of the already pipelined loop (doubling an inner buffer afterwards would index that copy
    # with the original loop's half)
    for pipeline in sorted(pipelines.values(), key=lambda p: -sum(1 for _ in ancestors(p.loop))):
        _pipeline(pipeline)
    return bool(pipelines)


def _pipeline(p: Pipeline) -> None:
    """Each buffer gets a leading dimension of 2 (tile k in half k % 2); tile 0 is fetched
    before the loop, tile k+1 in iteration k, and the last iteration runs after the loop
    without a fetch."""
    loop, body = p.loop, p.loop.body.block
    k = body.args[0]
    trips = trip_count(loop)
    assert trips is not None
    emitter = IndexEmitter(loop, point=InsertPoint.at_start(body))
    following, half = emitter.expr(Expr.var(k) + 1), emitter.expr(Expr.var(k).mod(2))
    next_half = emitter.expr((Expr.var(k) + 1).mod(2))
    doubled = {_add_half_dimension(alloca, half) for alloca in p.buffers}
    fetches = sorted(set(p.fetches), key=body.get_operation_index)
    at = InsertPoint.before(loop)
    _clone_statements(fetches, body, {k: constant(None, loop, 0), half: constant(None, loop, 0)}, at)
    last = trips - 1
    # the epilogue: the statements of the last iteration but the fetches, and the index
    # arithmetic they use (copied on demand, so the halves come from the mapping)
    rest = [op for op in body.ops if op not in fetches and not isinstance(op, scf.YieldOp) and not _pure(op)]
    _clone_statements(rest, body, {k: constant(None, loop, last), half: constant(None, loop, last % 2)},
                      InsertPoint.after(loop))
    prefetches = _clone_statements(fetches, body, {k: following, half: next_half}, InsertPoint.before(fetches[0]))
    for fetch in fetches:
        Rewriter.erase_op(fetch)
    loop.operands = [loop.lb, constant(None, loop, last), loop.step]
    for prefetch in prefetches:
        _stage(prefetch, body, doubled)


def _copy(statement: Operation, doubled: set[SSAValue]) -> tuple[memref.LoadOp, memref.StoreOp] | None:
    """The one load that `statement` stores into a doubled buffer, and that store."""
    stores = [op for op in statement.walk() if isinstance(op, memref.StoreOp)]
    if len(stores) != 1 or stores[0].memref not in doubled or not isinstance(stores[0].value.owner, memref.LoadOp):
        return None
    return stores[0].value.owner, stores[0]


def _serial_vars(statement: Operation, op: Operation) -> list[SSAValue]:
    """The variables of the loops of `statement` around `op` not bound to a thread, outermost first."""
    return [lp.body.block.args[0] for lp in statement.walk()
            if isinstance(lp, scf.ForOp) and _thread(lp) is None and lp.is_ancestor(op)]


def _stage(prefetch: Operation, body: Block, doubled: set[SSAValue]) -> None:
    """Split the fetch of the next tile in two through registers (a per-thread array): its
    global loads stay first in the iteration, its shared stores move to the end, so the loads'
    latency overlaps the computation on this tile instead of stalling the stores. Left as it is
    unless it is one copy under loops from 0 in steps of 1."""
    copy = _copy(prefetch, doubled)
    if copy is None:
        return
    load, store = copy
    loops: list[scf.ForOp] = [v.owner.parent_op() for v in _serial_vars(prefetch, load)]  # type: ignore[misc,union-attr]
    if any(constant_int(lp.lb) != 0 or constant_int(lp.step) != 1 or not trip_count(lp) for lp in loops):
        return
    late = prefetch.clone()
    Rewriter.insert_op(late, InsertPoint.before(body.last_op))  # type: ignore[arg-type]
    late_load, _ = _copy(late, doubled)  # type: ignore[misc]
    offset, size = _row_major(_serial_vars(prefetch, load), loops)
    stage = memref.AllocaOp.get(load.res.type, shape=[size], memory_space=StringAttr(LOCAL))
    stage.memref.name_hint = f"{_buffer_name(store.memref)}_next"
    Rewriter.insert_op(stage, InsertPoint.at_start(body))
    Rewriter.replace_op(store, memref.StoreOp.get(load.res, stage.memref, [IndexEmitter(store).expr(offset)]))
    late_offset, _ = _row_major(_serial_vars(late, late_load), loops)
    reload = memref.LoadOp.get(stage.memref, [IndexEmitter(late_load).expr(late_offset)])
    reload.res.name_hint = late_load.res.name_hint
    Rewriter.replace_op(late_load, reload)


def _row_major(variables: list[SSAValue], loops: list[scf.ForOp]) -> tuple[Expr, int]:
    """The offset of the point `variables` of `loops` (counted from 0 in steps of 1) in an array
    of their iterations, the innermost loop fastest, and the array's size."""
    offset, size = Expr(), 1
    for v, lp in reversed(list(zip(variables, loops))):
        offset, size = offset + Expr.var(v) * size, size * trip_count(lp)  # type: ignore[operator]
    return offset, size


def _pure(op: Operation) -> bool:
    return op.name.startswith("arith.") and not op.regions


def _halves_layout(half: MemRefType) -> Attribute:
    """The layout of two `half` buffers one after the other: a padded half (storage-align) keeps
    its strides, the halves `reach(half)` elements apart."""
    if isinstance(half.layout, NoneAttr):
        return half.layout
    return StridedLayoutAttr([reach(half), *strides_of(half)], 0)


def _add_half_dimension(alloca: memref.AllocaOp, half: SSAValue) -> SSAValue:
    old = alloca.memref.type
    assert isinstance(old, MemRefType)
    new = memref.AllocaOp.get(old.element_type, shape=[2, *old.get_shape()], layout=_halves_layout(old),
                              memory_space=old.memory_space)
    new.memref.name_hint = alloca.memref.name_hint
    new.location = alloca.location
    Rewriter.insert_op(new, InsertPoint.before(alloca))
    for use in list(alloca.memref.uses):
        op = use.operation
        assert isinstance(op, memref.LoadOp | memref.StoreOp)
        indices = [half, *op.indices]
        if isinstance(op, memref.LoadOp):
            repl = memref.LoadOp.get(new.memref, indices)
            repl.res.name_hint = op.res.name_hint
        else:
            repl = memref.StoreOp.get(op.value, new.memref, indices)
        repl.location = op.location
        Rewriter.replace_op(op, repl)
    Rewriter.erase_op(alloca)
    return new.memref


def _clone_statements(statements: list[Operation], body: Block, mapping: dict[SSAValue, SSAValue],
                      point: InsertPoint) -> list[Operation]:
    """Copies of `statements` of `body` at `point`, with `mapping`, and of the ops of `body`
    they use that `mapping` does not replace."""
    inside = set(statements)

    def provide(value: SSAValue) -> None:
        owner = value.owner
        if value in mapping or not isinstance(owner, Operation) or owner.parent_block() is not body or owner in inside:
            return
        for operand in owner.operands:
            provide(operand)
        clone = owner.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, point)
        mapping.update(zip(owner.results, clone.results))
        folded = decode(clone.results[0]) if len(clone.results) == 1 else None
        if folded is not None and folded.is_const:  # the prologue's and epilogue's tile offsets
            mapping[owner.results[0]] = constant(None, clone, folded.const)
            Rewriter.erase_op(clone)

    for statement in statements:
        for op in statement.walk():
            for operand in op.operands:
                provide(operand)
    clones = []
    for statement in statements:
        clone = statement.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, point)
        mapping.update(zip(statement.results, clone.results))
        clones.append(clone)
    return clones


# Barriers ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Touch:
    """A shared access as the barrier planner sees it."""

    buffer: SSAValue
    is_write: bool
    indices: tuple[Expr, ...] | None
    op: Operation


Common = dict[SSAValue, Expr]


def _extent(v: SSAValue) -> int | None:
    """The number of values of a variable counting from 0 (a loop's or a block id's)."""
    known = index_bounds(v)
    return known[1] + 1 if known is not None and known[0] == 0 else None


class Planner:
    """Places gpu.barrier ops in one kernel (still in loop form, thread loops included)."""

    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.canon = kernel.canonical()
        self.ids = set(kernel.thread_vars()) | kernel.block_vars()
        self.axes = {lps[0].body.block.args[0]: Axis(tag, loop_name(lps[0]), kernel.extent(tag))
                     for tag, lps in sorted(kernel.loops.items()) if kernel.extent(tag) > 1}

    def touches(self, op: Operation) -> list[Touch]:
        found = []
        for inner in op.walk():
            if isinstance(inner, memref.LoadOp | memref.StoreOp) and memory_space(inner.memref) == SHARED:
                use = _use(inner, inner, self.canon)
                found.append(Touch(inner.memref, use.is_write, use.indices, inner))
        return found

    def conflict(self, pending: list[Touch], new: list[Touch], common: Common) -> tuple[Touch, Touch] | None:
        for p in pending:
            for n in new:
                if (p.buffer is n.buffer and (p.is_write or n.is_write) and not self.same_thread(p, n)
                        and not self.apart(p, n, common)):
                    return p, n
        return None

    def common(self, block: Block, carried: scf.ForOp | None = None) -> Common:
        """The variables with one value for the accesses compared in `block` (`carried`: at the
        end of one iteration of that loop and the start of the next): the block ids and the
        serial loops around, a carried loop's variable one step further for the later access."""
        around = [p for p in [block.parent_op(), *ancestors(block.parent_op(), self.kernel.root)]  # type: ignore[arg-type]
                  if isinstance(p, scf.ForOp) and _thread(p) is None]
        common: Common = {v: Expr.var(v) for v in self.kernel.block_vars()}
        common |= {lp.body.block.args[0]: Expr.var(lp.body.block.args[0]) for lp in around}
        if carried is not None:
            k = carried.body.block.args[0]
            common[k] = Expr.var(k) + (constant_int(carried.step) or 0)
        return common

    def apart(self, p: Touch, n: Touch, common: Common) -> bool:
        """Whether the two accesses never touch one element: along some dimension whose index
        uses only `common` variables, the indices differ at every value of them (the halves
        `k mod 2` and `(k + 1) mod 2` of a double buffer)."""
        if p.indices is None or n.indices is None:
            return False
        later = {v: e for v, e in common.items() if e != Expr.var(v)}
        for a, b in zip(p.indices, n.indices):
            variables = {*a.variables(), *b.variables()}
            if not variables <= common.keys():
                continue
            ranges = [(v, _extent(v)) for v in variables]
            if any(n_ is None for _, n_ in ranges):
                continue
            values = points(ranges, [a - b.substitute(later)])  # type: ignore[list-item]
            if values is not None and not (values == 0).any():
                return True
        return False

    def same_thread(self, p: Touch, n: Touch) -> bool:
        """Both touch the element at the same index, a function of the block and thread ids
        only: the same thread (writes are injective over threads, _check_writes)."""
        if p.indices is None or p.indices != n.indices:
            return False
        return all(v in self.ids for i in p.indices for v in i.variables())

    def uniform(self, op: Operation) -> bool:
        """Every thread of the block reaches the inside of `op` (an scf.if not on a thread id)."""
        if isinstance(op, scf.ForOp):
            return True
        return isinstance(op, scf.IfOp) and not self.on_threads(op.cond)

    def on_threads(self, value: SSAValue) -> bool:
        """Whether `value` may differ between the threads of a block (a loaded value may)."""
        threads = set(self.kernel.thread_vars())
        pending, seen = [value], set()
        while pending:
            v = pending.pop()
            if isinstance(v, BlockArgument):
                if self.canon.get(v, v) in threads:
                    return True
            elif isinstance(v.owner, memref.LoadOp):
                return True
            elif id(v.owner) not in seen:
                seen.add(id(v.owner))
                pending.extend(v.owner.operands)
        return False

    def run(self, block: Block, pending: list[Touch]) -> list[Touch]:
        """Walk a uniform block with the shared accesses `pending` since the last barrier;
        returns those pending at its end."""
        common = self.common(block)  # barriers inserted below change no loop around block
        for op in list(block.ops):
            touches = self.touches(op)
            if not touches:
                continue
            if self.conflict(pending, touches, common) is not None:
                _barrier_before(op)
                pending = []
            if isinstance(op, scf.ForOp) and _thread(op) is None:
                pending = self.serial_loop(op, pending)
            elif isinstance(op, scf.ForOp | scf.IfOp) and self.uniform(op):
                for region in op.regions:
                    for inner in region.blocks:
                        pending = self.run(inner, pending)
            else:
                self.check_divergent(op)
                pending = pending + touches
        return pending

    def serial_loop(self, loop: scf.ForOp, pending: list[Touch]) -> list[Touch]:
        body = loop.body.block
        end = self.run(body, list(pending))
        carried = self.first_conflict(body, end)
        if carried is not None:
            _barrier_at_start(body)
            end = self.run_dry(body)
        return end

    def first_conflict(self, block: Block, pending: list[Touch]) -> tuple[Touch, Touch] | None:
        """A conflict of `pending` (the end of an iteration) with the accesses of the next
        one before its first barrier; the same write repeated over iterations is none when
        it is injective over the threads and the loop."""
        common = self.common(block, carried=block.parent_op())  # type: ignore[arg-type]
        for op in block.ops:
            if isinstance(op, gpu.BarrierOp):
                return None
            touches = self.touches(op)  # all of an op holding a barrier: conservative
            found = self.conflict([p for p in pending if not self.repeated_write(p, touches, block)], touches, common)
            if found is not None:
                return found
            if _contains_barrier(op):
                return None
        return None

    def repeated_write(self, p: Touch, touches: list[Touch], body: Block) -> bool:
        if not p.is_write or p.indices is None or not all(t.is_write and t.op is p.op for t in touches if t.buffer is p.buffer):
            return False
        loop = body.parent_op()
        extents = dict(self.kernel.thread_vars())
        for lp in [*_serial_loops(p.op, loop), loop]:  # type: ignore[arg-type]
            if isinstance(lp, scf.ForOp):
                extents[lp.body.block.args[0]] = trip_count(lp) or 0
        return _injective(extents, list(p.indices))

    def run_dry(self, block: Block) -> list[Touch]:
        """The accesses pending at the end of `block`: those after its last barrier."""
        pending: list[Touch] = []
        for op in block.ops:
            if isinstance(op, gpu.BarrierOp) or _contains_barrier(op):
                pending = [] if isinstance(op, gpu.BarrierOp) else self.touches(op)
                continue
            pending += self.touches(op)
        return pending

    def check_divergent(self, op: Operation) -> None:
        """Inside code only some threads run, no barrier can wait: it must need none, no two
        threads touching one element there, one writing it (each thread's own accesses keep
        their order: a guarded accumulator written back by its thread)."""
        pending: list[Touch] = []
        common = self.common(op.parent_block())  # type: ignore[arg-type]
        for inner in op.walk():
            if isinstance(inner, memref.LoadOp | memref.StoreOp) and memory_space(inner.memref) == SHARED:
                (touch,) = self.touches(inner)
                if any(self.conflict([p], [touch], common) is not None and self.exchanged(p, touch) for p in pending):
                    raise fail(_NAME, touch.op, f"threads exchange data through shared buffer "
                               f"{_buffer_name(touch.buffer)} (one writes what another reads) with no barrier point "
                               "between: the code between runs under a condition on the thread index, where "
                               "__syncthreads() cannot be placed")
                pending.append(touch)

    def exchanged(self, p: Touch, n: Touch) -> bool:
        """Whether data may pass between two different threads through the two accesses (one a
        store): the same thread's accesses keep their order without a barrier."""
        first, second = (p, n) if p.is_write else (n, p)
        return threads_meet(first.op, second.op, self.axes, self.canon)  # type: ignore[arg-type]


def _contains_barrier(op: Operation) -> bool:
    return any(isinstance(o, gpu.BarrierOp) for o in op.walk())


def _drop_redundant_barriers(root: Operation) -> None:
    """A barrier right before a loop that runs and starts with one (a double buffer's
    prologue fetch, then the loop's barrier) waits for nothing more."""
    for barrier in [op for op in root.walk() if isinstance(op, gpu.BarrierOp)]:
        loop = barrier.next_op
        if isinstance(loop, scf.ForOp) and (trip_count(loop) or 0) > 0 and isinstance(loop.body.block.first_op, gpu.BarrierOp):
            Rewriter.erase_op(barrier)


def _barrier_before(op: Operation) -> None:
    Rewriter.insert_op(gpu.BarrierOp(), InsertPoint.before(op))


def _barrier_at_start(block: Block) -> None:
    first = block.first_op
    assert first is not None
    if not isinstance(first, gpu.BarrierOp):
        Rewriter.insert_op(gpu.BarrierOp(), InsertPoint.before(first))


# Outlining -----------------------------------------------------------------------------------


def _clone_into(value: SSAValue, mapping: dict[SSAValue, SSAValue], point: InsertPoint, root: Operation) -> SSAValue:
    """The kernel's copy of a value defined outside it: a constant or pure arith computed
    from such values (the host arguments are mapped already)."""
    if value in mapping:
        return mapping[value]
    owner = value.owner
    if not isinstance(owner, Operation) or not owner.name.startswith("arith."):
        raise fail(_NAME, root, f"the kernel uses %{value.name_hint or '?'}, computed on the host; "
                   "only buffers and constants enter a kernel")
    operands = [_clone_into(v, mapping, point, root) for v in owner.operands]
    clone = owner.clone(value_mapper=dict(zip(owner.operands, operands)))
    Rewriter.insert_op(clone, point)
    for old, new in zip(owner.results, clone.results):
        mapping[old] = new
    return mapping[value]


def _outline(kernel: Kernel, f: func.FuncOp, name: str, shared_bytes: int, args: list[SSAValue]) -> gpu.FuncOp:
    """Move the kernel's loop nest into a gpu.func taking the host arguments `args`."""
    root = kernel.root
    block = Block(arg_types=[a.type for a in args])
    for new, old in zip(block.args, args):
        new.name_hint = old.name_hint
    kfunc = gpu.FuncOp(name, ([a.type for a in args], []), Region(block), kernel=True,
                       known_block_size=kernel.sizes("threadIdx"), known_grid_size=kernel.sizes("blockIdx"))
    kfunc.attributes[SHARED_BYTES] = IntegerAttr(shared_bytes, i64)
    block.add_op(gpu.ReturnOp([]))
    end = InsertPoint.before(block.last_op)  # type: ignore[arg-type]
    # buffers first (shared, then local): the kernel's own and the function-level ones only it uses
    for alloca in sorted(_allocas(root, f), key=lambda a: memory_space(a.memref) != SHARED):
        alloca.detach()
        Rewriter.insert_op(alloca, end)
    ids = _ids(kernel, end)
    root.detach()
    Rewriter.insert_op(root, end)
    for var, value in ids.items():
        var.replace_all_uses_with(value)
    mapping: dict[SSAValue, SSAValue] = dict(zip(args, block.args))
    outside_point = InsertPoint.before(root)
    for op in list(root.walk()):
        if any(not _defined_inside(o, kfunc) for o in op.operands):
            op.operands = [o if _defined_inside(o, kfunc) else _clone_into(o, mapping, outside_point, root)
                           for o in op.operands]
    _inline_thread_loops(root)
    return kfunc


def _defined_inside(value: SSAValue, op: Operation) -> bool:
    owner = value.owner
    holder = owner.parent_op() if isinstance(value, BlockArgument) else owner
    return holder is not None and (holder is op or op.is_ancestor(holder))  # type: ignore[arg-type]


def _allocas(root: scf.ForOp, f: func.FuncOp) -> list[memref.AllocaOp]:
    inside = [op for op in root.walk() if isinstance(op, memref.AllocaOp)]
    outside = [
        op for op in f.body.block.ops
        if isinstance(op, memref.AllocaOp) and op.memref.uses and all(root.is_ancestor(u.operation) for u in op.memref.uses)
    ]
    return [*outside, *inside]


def _ids(kernel: Kernel, point: InsertPoint) -> dict[SSAValue, SSAValue]:
    """One gpu.block_id / gpu.thread_id per axis used, named after its first loop."""
    ids: dict[SSAValue, SSAValue] = {}
    for kind, cls in (("blockIdx", gpu.BlockIdOp), ("threadIdx", gpu.ThreadIdOp)):
        for axis in _AXES:
            loops = kernel.loops.get(f"{kind}.{axis}")
            if not loops:
                continue
            op = cls(gpu.DimensionAttr(getattr(gpu.DimensionEnum, axis.upper())))
            op.attributes[LOOP_NAMES] = ArrayAttr([StringAttr(loop_name(lp)) for lp in loops])
            first = loop_name(loops[0])
            if first.isidentifier() and first.isascii():
                op.result.name_hint = first
            Rewriter.insert_op(op, point)
            for lp in loops:
                ids[lp.body.block.args[0]] = op.result
    return ids


def _inline_thread_loops(root: Operation) -> None:
    """Replace each thread-bound loop (its variable already an id) by its body."""
    loops = [op for op in root.walk() if _thread(op) is not None]
    for lp in reversed(loops):  # inner first: their bodies move into their parents' bodies
        assert isinstance(lp, scf.ForOp)
        _inline_loop(lp, lp.lb)  # the variable has no uses left


def _inline_loop(lp: scf.ForOp, value: SSAValue) -> None:
    """Replace `lp` by its body, its variable by `value`."""
    body = lp.body.block
    assert isinstance(body.last_op, scf.YieldOp)
    Rewriter.erase_op(body.last_op)
    Rewriter.inline_block(body, InsertPoint.before(lp), [value])
    Rewriter.erase_op(lp)


# The pass ------------------------------------------------------------------------------------


def _kernel_roots(f: func.FuncOp) -> list[scf.ForOp]:
    """The launches of `f`; refuses other loop nests at its top (they would run on the host)."""
    roots = [op for op in f.body.block.ops if _thread(op) is not None]
    if not roots and not any(_thread(op) is not None for op in f.walk()):
        return []
    for op in f.body.block.ops:
        if _thread(op) is not None or isinstance(op, memref.AllocaOp | func.ReturnOp) or (
            op.name.startswith("arith.") and not op.regions
        ):
            continue
        what = f'loop "{loop_name(op)}"' if isinstance(op, scf.ForOp) else op.name
        raise fail(_NAME, op, f"{what} at the top of kernel function @{f.sym_name.data} is not bound to a GPU "
                   "thread axis, so it would run on the host; bind it to blockIdx/threadIdx, or move it into a kernel "
                   "(compute-at)")
    return roots


@dataclass(frozen=True)
class LowerToGPUPass(ModulePass):
    """lower-to-gpu: see the module docstring."""

    name = "lower-to-gpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if inner.dialect_name() in {d.name for d in (Block_,)}:
                raise fail(self.name, inner, "block-dialect ops are left; run lower-blocks first")
        launched = False
        for f in [o for o in op.ops if isinstance(o, func.FuncOp)]:
            roots = _kernel_roots(f)
            if not roots:
                continue
            launched = True
            kernels = [_collect(root) for root in roots]
            funcs = []
            for index, kernel in enumerate(kernels):
                _check_launch(kernel)
                check_rebound_threads(kernel.loops)  # before _prepare_buffers renames a thread index to its axis's
                shared = _prepare_buffers(kernel, f)
                _check_races(kernel)
                if _inject_double_buffers(kernel, f) | inject_virtual_threads(kernel.root):
                    kernel = _collect(kernel.root)  # the double buffers' prologues and epilogues copy thread loops
                Planner(kernel).run(kernel.root.body.block, [])
                _drop_redundant_barriers(kernel.root)
                name = f"{f.sym_name.data}_kernel" + (str(index) if len(kernels) > 1 else "")
                launch = _launch(kernel, f, name)
                funcs.append(_outline(kernel, f, name, shared, list(launch.kernelOperands)))
            module_name = f"{f.sym_name.data}_kernels"
            gmod = gpu.ModuleOp(StringAttr(module_name), Region(Block(funcs)))  # type: ignore[arg-type]
            Rewriter.insert_op(gmod, InsertPoint.after(f))
            for kfunc in funcs:
                cse(kfunc)
                region_dce(kfunc.body)
            cse(f)
            region_dce(f.body)
        if launched:
            op.attributes["gpu.container_module"] = UnitAttr()


def _prepare_buffers(kernel: Kernel, f: func.FuncOp) -> int:
    """Checks the kernel's writes and buffers, sizes its shared buffers; their total bytes."""
    canon = kernel.canonical()
    uses = _accesses(kernel.root, canon)
    _check_writes(kernel, uses)
    for alloca in (op for op in f.body.block.ops if isinstance(op, memref.AllocaOp)):
        users = [u.operation for u in alloca.memref.uses]
        if any(kernel.root.is_ancestor(u) for u in users) and not all(kernel.root.is_ancestor(u) for u in users):
            raise fail(_NAME, alloca, f"buffer {_buffer_name(alloca.memref)} is used by a kernel and outside it; a "
                       "kernel's shared and local buffers live only while it runs (buffers in global memory between "
                       "kernels are not supported yet)")
    total = 0
    largest: tuple[int, str] = (0, "")
    for alloca in _allocas(kernel.root, f):
        space = memory_space(alloca.memref)
        if space == LOCAL:
            _check_local(kernel, alloca)
        elif space == SHARED:
            mine = [u for u in uses if _buffer(u.op) is alloca.memref]
            if not mine:
                continue
            doubled = DOUBLE_BUFFER in alloca.attributes
            plan = _plan_shared(kernel, alloca, mine)
            buffer, size = _rebase(plan, mine, canon)
            size *= 2 if doubled else 1
            if plan.tile is not None:
                kernel.tiles[buffer] = plan.tile
            total += size
            largest = max(largest, (size, _buffer_name(alloca.memref) + (" double-buffered" if doubled else "")))
        else:
            raise fail(_NAME, alloca, f"buffer {_buffer_name(alloca.memref)} of scope {space or 'global'} is "
                       "allocated for a kernel; use scope shared or local")
    if total > MAX_SHARED_BYTES:
        raise fail(_NAME, kernel.root, f"the kernel uses {total} bytes of shared memory per block (largest: "
                   f"{largest[1]}, {largest[0]} bytes); a block has at most {MAX_SHARED_BYTES} (48 KiB)")
    return total


def _launch(kernel: Kernel, f: func.FuncOp, name: str) -> gpu.LaunchFuncOp:
    """The host side: gpu.launch_func of kernel `name` with the host arguments it uses, in order."""
    operands = [a for a in f.body.block.args if any(kernel.root.is_ancestor(u.operation) for u in a.uses)]
    for a in operands:
        if not isinstance(a.type, MemRefType):
            raise fail(_NAME, kernel.root, f"kernel argument %{a.name_hint} is not a buffer; only buffers enter a kernel")
    point = InsertPoint.before(kernel.root)
    sizes = []
    for n in [*kernel.sizes("blockIdx"), *kernel.sizes("threadIdx")]:
        c = arith.ConstantOp(IntegerAttr.from_index_int_value(n))
        Rewriter.insert_op(c, point)
        sizes.append(c.result)
    launch = gpu.LaunchFuncOp(SymbolRefAttr(f"{f.sym_name.data}_kernels", [name]), sizes[:3], sizes[3:],
                              kernelOperands=operands)
    Rewriter.insert_op(launch, point)
    return launch
