"""Read and write regions of a block (what TVM prints as T.reads / T.writes).

They are derived, never stored: every access in the block (nested blocks
included) is rewritten in the block's own iteration variables by substituting
inner bindings, then the loops inside the block are relaxed over their ranges.
A nested block's variable also stays within its domain (its bindings do, where its
predicate holds), so each dimension keeps the narrower of two ranges: the one through
the bindings, and the one with nested variables relaxed over their domains. (After a
blockize, a split inside the outer block runs `ax0 * 2 + ax1 < 1` over 14 iterations:
the bindings reach 14 elements, the domain of the inner block one, as TVM's region says.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from io import StringIO

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue
from xdsl.printer import Printer

from xtir.dialects.block import AccessOp, BlockOp, ForOp, loop_bounds
from xtir.dialects.expr import Bounds, Expr, Var, print_expr
from xtir.dialects.walk import ancestors


@dataclass(frozen=True)
class Range:
    """[start, start + extent) along one dimension."""

    start: Expr
    extent: int


@dataclass(frozen=True)
class BufferRegion:
    buffer: SSAValue
    ranges: tuple[Range, ...]


def relax(expr: Expr, relaxed: set[SSAValue], bounds: Bounds = loop_bounds) -> Range | None:
    """The range `expr` covers when the `relaxed` variables take every value in their bounds."""
    fixed: dict = {}
    free: dict = {}
    for atom, coef in expr.terms:
        inner = atom.value if isinstance(atom, Var) else None
        uses_relaxed = inner in relaxed if inner is not None else any(v in relaxed for v in atom.expr.variables())
        (free if uses_relaxed else fixed)[atom] = coef
    lo_hi = Expr._make(free, 0).bounds(bounds)
    if lo_hi is None:
        return None
    lo, hi = lo_hi
    return Range(Expr._make(fixed, expr.const + lo), hi - lo + 1)


def _inner_substitution(block: BlockOp, op: AccessOp) -> tuple[dict[SSAValue, Expr], set[SSAValue], set[SSAValue]]:
    """Express op's indices in `block`'s variables: nested blocks' bindings are substituted,
    and the loops between `block` and `op` are to be relaxed. Also returns the nested blocks'
    variables, which may be relaxed over their domains instead."""
    mapping: dict[SSAValue, Expr] = {}
    relaxed: set[SSAValue] = set()
    nested: set[SSAValue] = set()
    for ancestor in reversed(list(ancestors(op, stop=block))):  # outermost first, so bindings compose
        if isinstance(ancestor, ForOp):
            relaxed.add(ancestor.var)
        elif isinstance(ancestor, BlockOp):
            for it in ancestor.iters():
                mapping[it.var] = it.binding.substitute(mapping)
                nested.add(it.var)
    return mapping, relaxed, nested


def _index_range(index: Expr, mapping: dict[SSAValue, Expr], relaxed: set[SSAValue],
                 nested: set[SSAValue]) -> Range | None:
    """The narrower of the index's range through the nested bindings and over the nested domains."""
    through_bindings = relax(index.substitute(mapping, loop_bounds), relaxed)
    over_domains = relax(index, relaxed | nested) if nested else None
    candidates = [r for r in (through_bindings, over_domains) if r is not None]
    return min(candidates, key=lambda r: r.extent, default=None)


def union_ranges(buffer: SSAValue, a: tuple[Range, ...], b: tuple[Range, ...]) -> tuple[Range, ...]:
    """The smallest box holding both; a dimension whose starts differ by a non-constant is the whole buffer."""
    result = []
    for d, (x, y) in enumerate(zip(a, b)):
        diff = y.start - x.start
        if diff.is_const:
            lo = min(0, diff.const)
            hi = max(x.extent, diff.const + y.extent)
            result.append(Range(x.start + lo, hi - lo))
        else:
            assert isinstance(buffer.type, MemRefType)
            result.append(Range(Expr(), buffer.type.get_shape()[d]))
    return tuple(result)


def _accesses(block: BlockOp, writes: bool) -> list[BufferRegion]:
    regions: dict[SSAValue, tuple[Range, ...]] = {}
    for op in block.body.walk():
        if not isinstance(op, AccessOp):
            continue
        mapping, relaxed, nested = _inner_substitution(block, op)
        for access in op.accesses():
            if access.is_write != writes:
                continue
            ranges = []
            for index, size in zip(access.indices, access.extents()):
                r = _index_range(index, mapping, relaxed, nested)
                if r is None:
                    assert isinstance(access.buffer.type, MemRefType)
                    r = Range(Expr(), access.buffer.type.get_shape()[len(ranges)])
                ranges.append(Range(r.start, r.extent + size - 1))
            prev = regions.get(access.buffer)
            regions[access.buffer] = tuple(ranges) if prev is None else union_ranges(access.buffer, prev, tuple(ranges))
    return [BufferRegion(b, r) for b, r in regions.items()]


def write_regions(block: BlockOp) -> list[BufferRegion]:
    return _accesses(block, writes=True)


def read_regions(block: BlockOp) -> list[BufferRegion]:
    """As TVM: a block with an init does not list the buffers it reduces into as reads.
    Those are the buffers its init writes; a buffer the body updates in place without the
    init writing it (`C[vi] += ...` next to an init of another buffer) is a read: its value
    before the block matters (cache-write, compute-at rely on this)."""
    reads = _accesses(block, writes=False)
    if block.init is not None:
        reset = _init_writes(block)
        reads = [r for r in reads if r.buffer not in reset]
    return reads


def _init_writes(block: BlockOp) -> set[SSAValue]:
    """The buffers the block's init writes."""
    assert block.init is not None
    return {
        a.buffer for op in block.init.body.walk() if isinstance(op, AccessOp) for a in op.accesses() if a.is_write
    }


def format_region(region: BufferRegion, name: ValueNames | None = None) -> str:
    """TVM's notation: `A[vi, vk]` for elements, `A[vi * 16:vi * 16 + 16, 0:16]` for regions."""
    dims = []
    for r in region.ranges:
        start = format_expr(r.start, name)
        dims.append(start if r.extent == 1 else f"{start}:{format_expr(r.start + r.extent, name)}")
    return f"{region.buffer.name_hint or 'buffer'}[{', '.join(dims)}]"


ValueNames = Callable[[SSAValue], str]


def hint_name(value: SSAValue) -> str:
    """A value by its name hint alone (`vi`), as messages name it."""
    return value.name_hint or "?"


@dataclass(eq=False, repr=False)
class _NamingPrinter(Printer):
    """Prints each SSA value as `name` gives it, without `%` (overriding the public print_ssa_value)."""

    name: ValueNames = hint_name

    def print_ssa_value(self, value: SSAValue) -> str:
        text = self.name(value)
        self.print_string(text)
        return text


@dataclass(eq=False, repr=False)
class _RecordingPrinter(Printer):
    """A printer that keeps the name it prints each SSA value with."""

    printed: dict[SSAValue, str] = field(default_factory=dict)

    def print_ssa_value(self, value: SSAValue) -> str:
        self.printed[value] = text = super().print_ssa_value(value)
        return text


def printed_names(root: Operation) -> ValueNames:
    """The names xDSL's printer gives the values of `root` when it prints `root` (`vi_1` for the
    second `%vi`), so that text about the IR agrees with the printed IR."""
    printer = _RecordingPrinter(stream=StringIO())
    printer.print_op(root)
    return lambda value: printer.printed.get(value, hint_name(value))


def format_expr(expr: Expr, name: ValueNames | None = None) -> str:
    """An expression with bare names (`vi * 16 + vii`), for messages and region listings; values
    are named by `name` (by default their hints)."""
    stream = StringIO()
    print_expr(_NamingPrinter(stream=stream, name=name or hint_name), expr)
    return stream.getvalue()


def format_regions(regions: Sequence[BufferRegion], name: ValueNames | None = None) -> list[str]:
    return [format_region(r, name) for r in regions]

