"""Compiled code touches only its buffers: each access is shown in bounds, or checked at run time.

The check-bounds stage of lower-blocks runs `check_accesses` on each function once its
blocks are inlined and its scratch buffers compacted, where every index is an expression
of loop variables under the guards (scf.if) that block predicates became. Each index must stay in its dimension
wherever the guards' conditions hold (dialects/bounds.py: interval arithmetic with the
conditions as facts, else every point). An index that leaves at some point is refused with
that point; one that cannot be shown either way (too many points) is refused too, unless
the build checks bounds at run time.

With `check-bounds{runtime=true}` (`xtir.build(module, bounds_check=True)`,
`lower-blocks{bounds_check=true}`) every access is guarded instead: `scf.if (0 <= index < size, each dimension)` around it, and
otherwise a call of `xtir_bounds_error(site, dimension, index)` per dimension, a function of
this process (a ctypes callback LLVM links against) that records the first access out of
range; a load out of range yields 0. The built function raises that access as an
XtirEvaluationError after the call returns.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import re
import threading
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IndexType, IntegerAttr, MemRefType, ModuleOp, UnitAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.diagnostics import op_location
from xtir.dialects.block import AccessOp, buffer_name, point_text
from xtir.dialects.bounds import within
from xtir.errors import XtirEvaluationError
from xtir.lowering.compact_buffers import require_inlined
from xtir.lowering.index_expr import IndexEmitter, index_bounds
from xtir.passes.analysis.dependences import block_of, guard_facts
from xtir.passes.utils import fail

SYMBOL = "xtir_bounds_error"
CALL_ATTR = "xtir.bounds_error"
"""Marks the calls of SYMBOL and its declaration (lower-blocks lets them through)."""


@dataclass(frozen=True)
class Site:
    """A guarded access: what it is, and the greatest valid start of each dimension."""

    description: str
    limits: tuple[int, ...]


_LOCK = threading.Lock()
_SITES: list[Site] = []
_ERRORS: dict[int, tuple[int, int, int]] = {}  # site -> (order, dimension, index) of its first error


def check_accesses(pass_name: str, f: func.FuncOp, guard_all: bool) -> None:
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
                    raise fail(pass_name, op, f"{_what(op, access.buffer)}: index {dim} is {verdict.value} at "
                               f"{point_text(verdict.witness)}, "
                               f"outside [0, {length - size}]")
                if not verdict.inside and not guard_all:
                    raise fail(pass_name, op, f"{_what(op, access.buffer)}: cannot show that index {dim} stays in "
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
                require_inlined(self.name, f)
                check_accesses(self.name, f, self.runtime)


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
    site = _register(Site(_description(op), tuple(limits)))
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
    declare(_module(op))
    for dim, (_, value) in enumerate(checks):
        call = func.CallOp(SYMBOL, [report.const(site), report.const(dim), value], [])
        call.attributes[CALL_ATTR] = UnitAttr()
        report.emit(call)
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


def declare(module: ModuleOp) -> None:
    """The declaration of SYMBOL in `module`, once; and the symbol known to LLVM."""
    _install()
    if not any(isinstance(o, func.FuncOp) and o.sym_name.data == SYMBOL for o in module.ops):
        decl = func.FuncOp.external(SYMBOL, [IndexType()] * 3, [])
        decl.attributes[CALL_ATTR] = UnitAttr()
        module.body.block.add_op(decl)


def _register(site: Site) -> int:
    with _LOCK:
        _SITES.append(site)
        return len(_SITES) - 1


_ORDER = itertools.count()


def _report(site: int, dim: int, index: int) -> None:
    with _LOCK:
        if site in _ERRORS or not 0 <= site < len(_SITES):
            return
        limit = _SITES[site].limits[dim]
        if not 0 <= index <= limit:
            _ERRORS[site] = (next(_ORDER), dim, index)


_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)(_report)


@functools.cache
def _install() -> None:
    import llvmlite.binding as llvm

    llvm.add_symbol(SYMBOL, ctypes.cast(_CALLBACK, ctypes.c_void_p).value)


class BoundsChecked:
    """A built function whose accesses are checked: calling it raises the first access out of
    range (XtirEvaluationError) after the call. Other attributes are the built function's."""

    def __init__(self, function: Any):
        self.function = function
        # the sites its code reports, read off its calls (other builds register sites meanwhile)
        self.sites = sorted({int(s) for s in re.findall(rf'@"?{SYMBOL}"?\(i64 (\d+)', function.llvm_ir)})

    def __call__(self, *arrays: Any) -> None:
        self._take()
        self.function(*arrays)
        if (error := self._take()) is not None:
            raise XtirEvaluationError(error)

    def _take(self) -> str | None:
        """The first error recorded for these sites (and forget them all)."""
        with _LOCK:
            found = sorted((_ERRORS.pop(s), s) for s in self.sites if s in _ERRORS)
        if not found:
            return None
        (_, dim, index), site = found[0]
        info = _SITES[site]
        return f"{info.description}: index {dim} is {index}, outside [0, {info.limits[dim]}]"

    def __getattr__(self, name: str) -> Any:
        return getattr(self.function, name)

