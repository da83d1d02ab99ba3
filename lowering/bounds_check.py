"""Compiled code touches only its buffers: each access is shown in bounds, or checked at run time.

The check-bounds stage of lower-blocks runs `check_accesses` on each function once its
blocks are inlined and its scratch buffers compacted, where every index is an expression
of loop variables under the guards (scf.if) that block predicates became. Each index must stay in its dimension
wherever the guards' conditions hold (dialects/bounds.py: interval arithmetic with the
conditions as facts, else every point). An index that leaves at some point is refused with
that point; one that cannot be shown either way (too many points) is refused too, unless
the build checks bounds at run time.

With `check-bounds{runtime=true}` (`xtir.build(module, bounds_check=True)`,
`lower-blocks{bounds_check=true}`) every access is guarded instead: `scf.if (0 <= index <
size, each dimension)` around it, and otherwise a report `(dimension, index)` per dimension
on the run-time error channel (lowering/runtime_errors.py), which records the first access
out of range; a load out of range yields 0. The built function raises that access as an
XtirEvaluationError after the call returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.diagnostics import op_location
from xtir.dialects.block import AccessOp, buffer_name, point_text
from xtir.dialects.bounds import within
from xtir.errors import LoweringError
from xtir.lowering import runtime_errors
from xtir.lowering.compact_buffers import require_inlined
from xtir.lowering.index_expr import IndexEmitter, index_bounds
from xtir.passes.analysis.dependences import block_of, guard_facts


@dataclass(frozen=True)
class AccessSite(runtime_errors.Site):
    """A guarded access: what it is, and the greatest valid start of each dimension. Its
    reports are `(dimension, index)`, one per dimension, in range or not."""

    description: str
    limits: tuple[int, ...]

    def message(self, x: int, y: int) -> str | None:
        dim, index = x, y
        if 0 <= index <= self.limits[dim]:
            return None
        return f"{self.description}: index {dim} is {index}, outside [0, {self.limits[dim]}]"


def check_accesses(f: func.FuncOp, guard_all: bool) -> None:
    """Refuse an access that may leave its buffer (see the module docstring); with `guard_all`,
    guard every access instead of refusing the unknown ones."""
    for op in [o for o in f.walk() if isinstance(o, AccessOp)]:
        facts, complete = guard_facts(op)
        for access in op.accesses():
            assert isinstance(access.buffer.type, MemRefType)
            shape = access.buffer.type.get_shape()
            for dim, (index, size, length) in enumerate(zip(access.indices, access.extents(), shape)):
                verdict = within(index, 0, length - size, facts, index_bounds)
                if verdict.inside is False and verdict.witness is not None and complete:
                    raise LoweringError(op, f"{_what(op, access.buffer)}: index {dim} is {verdict.value} at "
                                        f"{point_text(verdict.witness)}, "
                                        f"outside [0, {length - size}]")
                if not verdict.inside and not guard_all:
                    raise LoweringError(op, f"{_what(op, access.buffer)}: cannot show that index {dim} stays in "
                                        f"[0, {length - size}] under the conditions around it; build with bounds_check=True "
                                        "to check it at run time")
        if guard_all:
            _guard(op)


@dataclass(frozen=True)
class CheckBoundsPass(ModulePass):
    """check-bounds{runtime=false}: refuse the accesses not shown in bounds, or (runtime=true)
    check every access at run time; on loop nests whose blocks are inlined."""

    name = "check-bounds"

    runtime: bool = False
    """Guard every access with a run-time check instead of refusing the ones that cannot be
    shown in bounds; lower-blocks{bounds_check=true} and xtir.build(..., bounds_check=True) set it."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp) and f.body.blocks:
                require_inlined(f)
                check_accesses(f, self.runtime)


def _what(op: Operation, buffer: SSAValue) -> str:
    return f"{op.name} on %{buffer_name(buffer)}{_in_block(op)}"


def _in_block(op: Operation) -> str:
    block = block_of(op)
    return f' in block "{block}"' if block is not None else ""


def _guard(op: AccessOp) -> None:
    """Put `op` under `scf.if` (every index in range); otherwise report each index."""
    emitter = IndexEmitter(op)
    checks: list[tuple[SSAValue, SSAValue]] = []  # (in range, index value) per dimension
    limits: list[int] = []
    for access in op.accesses():
        assert isinstance(access.buffer.type, MemRefType)
        for index, size, length in zip(access.indices, access.extents(), access.buffer.type.get_shape()):
            value = emitter.expr(index)
            ok = emitter.all_of([emitter.cmp(value, "sge", 0), emitter.cmp(value, "sle", length - size)])
            checks.append((ok, value))
            limits.append(length - size)
    site = runtime_errors.register(AccessSite(_description(op), tuple(limits)))
    cond = emitter.all_of([ok for ok, _ in checks])
    results = [r.type for r in op.results]
    inside, outside = Block(), Block()
    guard = scf.IfOp(cond, results, Region(inside), Region(outside))
    Rewriter.insert_op(guard, InsertPoint.before(op))
    for old, new in zip(op.results, guard.results):
        old.replace_all_uses_with(new)
    op.detach()
    inside.add_op(op)
    inside.add_op(scf.YieldOp(*op.results))
    report = IndexEmitter(op, point=InsertPoint.at_end(outside))
    runtime_errors.declare(_module(op))
    for dim, (_, value) in enumerate(checks):
        report.emit(runtime_errors.report_call(report.const(site), report.const(dim), value))
    zeros = [report.emit(arith.ConstantOp(_zero(r))) for r in results]
    outside.add_op(scf.YieldOp(*zeros))


def _zero(type_: Attribute) -> Attribute:
    """What a load out of range yields."""
    return FloatAttr(0.0, type_) if isinstance(type_, AnyFloat) else IntegerAttr(0, type_)  # type: ignore[arg-type]


def _description(op: AccessOp) -> str:
    buffers = ", ".join(f"%{buffer_name(a.buffer)}" for a in op.accesses())
    location = op_location(op)
    at = f" ({location})" if location is not None else ""
    return f"{op.name} on {buffers}{_in_block(op)}{at}"


def _module(op: Operation) -> ModuleOp:
    top = op.get_toplevel_object()
    assert isinstance(top, ModuleOp)
    return top
