"""version-edge-blocks: a kernel guarded at the edge of its data gets an unguarded copy of its
body for the thread blocks that lie wholly inside.

A tile size that does not divide the data (a 1000x1000 GEMM in 128x128 tiles) leaves guards
such as `i_0 * 128 + tx floordiv 16 * 8 + i_2 < 1000` on every fetch and every multiply-add.
Only the last blocks of each grid axis need them, but every block pays: nvcc keeps a predicate
and a branch per guarded multiply-add and cannot merge the guarded shared loads into float4
loads (benchmarks/gemm_ptx.py counts them). CUTLASS runs interior tiles on
a separate unguarded path; this pass does the same:

    gpu.func @k(...) {                    gpu.func @k(...) {
      <ids, constants, index values>        <ids, constants, index values>
      <statements with guards>      ==>     scf.if (i_0 * 128 < 873 and j_0 * 128 < 873) {
      gpu.return                              <statements, the edge guards folded to true>
    }                                       } else {
                                              <statements with guards>
                                            }
                                            gpu.return
                                          }

An edge guard is a conjunct `e < b` of an scf.if condition (lower-blocks' form of a block
predicate) whose expression splits into a part on the block ids only and a part on the
thread ids and loop variables only, the latter bounded (`gpu.known_block_size`, constant loop
bounds): it holds for every thread and iteration of a block when `block part < b - max(rest)`,
a condition the whole block agrees on, so a barrier under it is reached by all threads or none.
Guards on anything else (the k tail of a reduction, `k == 0` of an init) stay in both copies.
A guard that no block of the grid (`gpu.known_grid_size`) satisfies wholly is left alone; one
that every block satisfies wholly is dropped from both copies (no copy when all are such). The kernel is marked
`xtir.edge_versions`, and a second run leaves it alone.

ptxas gives a kernel the registers of its hungrier copy: the hand GEMM's guarded copy takes 210
where the unguarded one takes 128, so interior blocks run the unguarded code at the occupancy
of the guarded one (as every block did before).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import DenseArrayBase, IndexType, ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce

from xtir.dialects.expr import Expr
from xtir.lowering.index_expr import IndexEmitter, conjuncts, decode_bounds, index_bounds

VERSIONS = "xtir.edge_versions"
"""Marks a kernel this pass has run on."""


@dataclass(frozen=True)
class Inside:
    """`block < limit`: the block ids for which a guard holds on every thread and iteration."""

    block: Expr
    limit: int


def _sizes(attr: DenseArrayBase | None) -> list[int]:
    return [int(v) for v in attr.get_values()] if attr is not None else []


class _Ranges:
    """The ranges of a kernel's ids and loop variables."""

    def __init__(self, kernel: gpu.FuncOp):
        block_size, grid_size = _sizes(kernel.known_block_size), _sizes(kernel.known_grid_size)
        self.threads: dict[SSAValue, int] = {}
        self.blocks: dict[SSAValue, int] = {}
        for op in kernel.walk():
            if isinstance(op, gpu.ThreadIdOp | gpu.BlockIdOp):
                sizes, known = (block_size, self.threads) if isinstance(op, gpu.ThreadIdOp) else (grid_size, self.blocks)
                axis = "xyz".index(op.dimension.data.value.lower())
                if axis < len(sizes):
                    known[op.result] = sizes[axis]

    def thread_or_loop(self, value: SSAValue) -> tuple[int, int] | None:
        if value in self.threads:
            return 0, self.threads[value] - 1
        return None if value in self.blocks else index_bounds(value)

    def block(self, value: SSAValue) -> tuple[int, int] | None:
        return (0, self.blocks[value] - 1) if value in self.blocks else None


def _inside(leaf: SSAValue, ranges: _Ranges) -> Inside | None:
    """Where `leaf`, a conjunct of a guard, holds for whole blocks; None when it is no edge guard
    or no block of the grid has it hold wholly."""
    decoded = decode_bounds(leaf) if isinstance(leaf.owner, arith.CmpiOp) else None
    if decoded is None:
        return None
    ((e, bound),) = decoded
    block, rest = Expr(), Expr()
    for atom, coef in e.terms:
        term = Expr(((atom, coef),))
        on_block = [v in ranges.blocks for v in term.variables()]
        if all(on_block):
            block = block + term
        elif not any(on_block):
            rest = rest + term
        else:
            return None  # a block id mixed with a thread id inside one division
    rest_range, block_range = rest.bounds(ranges.thread_or_loop), block.bounds(ranges.block)
    if block.is_const or rest_range is None or block_range is None or block_range[0] >= bound - rest_range[1]:
        return None
    return Inside(block, bound - rest_range[1])


def _edge_guards(kernel: gpu.FuncOp, ranges: _Ranges) -> dict[SSAValue, Inside]:
    guards: dict[SSAValue, Inside] = {}
    for op in kernel.walk():
        if isinstance(op, scf.IfOp) and not op.results:  # an if with results is a select, not a guard
            for leaf in conjuncts(op.cond):
                if leaf not in guards and (inside := _inside(leaf, ranges)) is not None:
                    guards[leaf] = inside
    return guards


def _stays_outside(op: Operation, outside: set[SSAValue]) -> bool:
    """Whether a top-level op of the kernel stays before the versions: buffers, ids, constants,
    and index values computed from those alone (not conditions: each copy folds its own)."""
    if isinstance(op, memref.AllocaOp | gpu.ThreadIdOp | gpu.BlockIdOp | arith.ConstantOp):
        return True
    return (op.name.startswith("arith.") and not op.regions and all(v in outside for v in op.operands)
            and all(isinstance(r.type, IndexType) for r in op.results))  # a guard's i1 is folded in each copy


def _split_statements(body: Block) -> list[Operation]:
    """The kernel's statements (what the versions hold), in order."""
    outside: set[SSAValue] = set(body.args)
    statements = []
    for op in body.ops:
        if isinstance(op, gpu.ReturnOp):
            continue
        if _stays_outside(op, outside):
            outside.update(op.results)
        else:
            statements.append(op)
    return statements


def _fold_true(statements: list[Operation], leaves: list[SSAValue], true: SSAValue) -> None:
    """In `statements`, the guards in `leaves` are true: drop them from conditions, and inline
    the bodies of ifs left with no condition (an if with results, pad-einsum's if_then_else,
    becomes the values its taken branch yields)."""
    inside = [op for statement in statements for op in statement.walk()]
    within = set(inside)
    for leaf in leaves:
        leaf.replace_uses_with_if(true, lambda use: use.operation in within)
    for op in inside:
        if isinstance(op, arith.AndIOp) and true in op.operands:
            Rewriter.replace_op(op, [], [op.rhs if op.lhs is true else op.lhs])
    for op in inside:
        if isinstance(op, scf.IfOp) and op.cond is true:
            body = op.true_region.block
            yielded = list(body.last_op.operands)  # type: ignore[union-attr]  # an if_then_else's value
            Rewriter.erase_op(body.last_op)  # type: ignore[arg-type]
            Rewriter.inline_block(body, InsertPoint.before(op))
            Rewriter.replace_op(op, [], yielded)


def version_kernel(kernel: gpu.FuncOp) -> None:
    if VERSIONS in kernel.attributes:
        return  # the guarded copy's guards are for the edge blocks that run it
    ranges = _Ranges(kernel)
    guards = _edge_guards(kernel, ranges)
    if not guards:
        return
    kernel.attributes[VERSIONS] = UnitAttr()
    body = kernel.body.block
    end = body.last_op
    assert isinstance(end, gpu.ReturnOp)
    true = arith.ConstantOp.from_int_and_width(1, 1)
    Rewriter.insert_op(true, InsertPoint.before(end))
    always = [leaf for leaf, i in guards.items() if i.block.bounds(ranges.block)[1] < i.limit]  # type: ignore[index]
    _fold_true(_split_statements(body), always, true.result)  # every block is wholly inside these
    edges = {leaf: i for leaf, i in guards.items() if leaf not in always}
    if edges:
        _version(body, edges, true.result)
    region_dce(kernel.body)
    cse(kernel)


def _version(body: Block, edges: dict[SSAValue, Inside], true: SSAValue) -> None:
    """The kernel's statements in two copies: under the blocks wholly inside every edge, the copy
    without those guards; else the original."""
    end = body.last_op
    assert end is not None
    statements = _split_statements(body)  # before the condition's ops join the body
    emitter = IndexEmitter(end)
    cond = emitter.all_of([emitter.cmp(emitter.expr(i.block), "slt", i.limit) for i in dict.fromkeys(edges.values())])
    mapping: dict[SSAValue, SSAValue] = {}
    fast = Block([op.clone(value_mapper=mapping) for op in statements])
    for op in statements:
        op.detach()
    guarded = Block(statements)
    fast.add_op(scf.YieldOp())
    guarded.add_op(scf.YieldOp())
    Rewriter.insert_op(scf.IfOp(cond, [], Region(fast), Region(guarded)), InsertPoint.before(end))
    _fold_true(list(fast.ops), [mapping.get(leaf, leaf) for leaf in edges], true)


@dataclass(frozen=True)
class VersionEdgeBlocksPass(ModulePass):
    """version-edge-blocks: see the module docstring."""

    name = "version-edge-blocks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [o for o in op.walk() if isinstance(o, gpu.FuncOp) and o.kernel is not None]:
            version_kernel(kernel)
