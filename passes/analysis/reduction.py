"""Matching a reduction block: `init temp[p] = z; temp[p] = temp[p] + g(...)` (read-only).

A complete reduction block has reduce iteration variables, an init that is one
block.store into `temp`, and an update that is one sum `temp[p] = temp[p] + g(...)`
(either operand order), where `p` are its spatial iteration variables, each once (in
any order), and `temp` is an intermediate buffer (block.alloc) that the block alone
writes. `analyse_reduction` returns the parts (the stores, the accumulator load, the
spatial variables in `temp`'s dimension order) or refuses with a ScheduleError saying why
(the pipeline driver names the pass that asked). fuse-reduction-epilogue uses it today; rfactor and the tuner's
reduction rules are the next users, hence it is here and not in the pass.

`formula` writes a value of a block body out as an expression, for messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from xtir.dialects.block import SPATIAL, AllocOp, BlockOp, InitOp, LoadOp, StoreOp, buffer_name
from xtir.dialects.expr import Expr
from xtir.passes.analysis.inline import format_access, is_plain_statement
from xtir.support.errors import ScheduleError

ADDS = (arith.AddfOp, arith.AddiOp)

# Messages: a computation written out ---------------------------------------------------

_INFIX = {
    "arith.addf": ("+", 1),
    "arith.addi": ("+", 1),
    "arith.subf": ("-", 1),
    "arith.subi": ("-", 1),
    "arith.mulf": ("*", 2),
    "arith.muli": ("*", 2),
    "arith.divf": ("/", 2),
    "arith.divsi": ("/", 2),
    "arith.divui": ("/", 2),
}
_CALLS = {
    "arith.maximumf": "max",
    "arith.maxnumf": "max",
    "arith.maxsi": "max",
    "arith.maxui": "max",
    "arith.minimumf": "min",
    "arith.minnumf": "min",
    "arith.minsi": "min",
    "arith.minui": "min",
}


def formula(value: SSAValue) -> str:
    """`max(temp[vi, vj] + C[vi, vj], 0.0)`: a value of a block body as an expression, for messages."""
    return _formula(value)[0]


def _formula(value: SSAValue) -> tuple[str, int]:
    """The text and its precedence (3: atom, 2: product, 1: sum)."""
    if isinstance(value, BlockArgument) or not isinstance(value.owner, Operation):
        return (value.name_hint or "?"), 3
    op = value.owner
    if isinstance(op, LoadOp):
        return format_access(op.buffer, op.indices()), 3
    if isinstance(op, arith.ConstantOp):
        v = op.value
        if isinstance(v, FloatAttr):
            return repr(v.value.data), 3
        if isinstance(v, IntegerAttr):
            return str(v.value.data), 3
    if isinstance(op, arith.NegfOp):
        text, prec = _formula(op.operands[0])
        return f"-{text if prec == 3 else f'({text})'}", 3
    if op.name in _INFIX and len(op.operands) == 2:
        sign, prec = _INFIX[op.name]
        (lhs, lp), (rhs, rp) = _formula(op.operands[0]), _formula(op.operands[1])
        lhs = f"({lhs})" if lp < prec else lhs
        rhs = f"({rhs})" if rp < prec or (rp == prec and sign in "-/") else rhs
        return f"{lhs} {sign} {rhs}", prec
    args = ", ".join(_formula(v)[0] for v in op.operands)
    return f"{_CALLS.get(op.name, op.name)}({args})", 3


# What the analysis finds -----------------------------------------------------------------


@dataclass
class Reduction:
    block: BlockOp
    temp: SSAValue
    init_store: StoreOp
    update_store: StoreOp
    accumulator: LoadOp  # the update's read of temp[p]
    spatial: list[SSAValue]  # R's spatial variables in the order of temp's dimensions


def block_label(block: BlockOp) -> str:
    return f'block "{block.label}"'


def var_names(vars_: Sequence[SSAValue]) -> str:
    return ", ".join(f"%{v.name_hint}" for v in vars_)


def plain_vars(indices: Sequence[Expr], variables: Sequence[SSAValue]) -> list[SSAValue] | None:
    """The variables when each index is one of `variables` alone, each of them exactly once."""
    own = set(variables)
    found = [v for e in indices if (v := e.as_var()) is not None and v in own]
    return found if len(found) == len(indices) == len(set(found)) == len(own) else None


# Checks ------------------------------------------------------------------------------------


def check_pure(ops: Sequence[Operation], what: str, form: str) -> None:
    for op in ops:
        if not is_plain_statement(op):
            raise ScheduleError(op, f"{what} contains {op.name}; it must be {form}")


def analyse_reduction(f: func.FuncOp, block: BlockOp) -> Reduction:
    what = block_label(block)
    if not block.reduce_vars:
        raise ScheduleError(
            block,
            f"{what} is not a reduction block (it has no reduce iteration variable); block= names the reduction "
            "and epilogue= the block that adds to its result",
        )
    init = block.init
    if init is None:
        hint = ""
        written = {s.buffer for s in block.body.block.ops if isinstance(s, StoreOp)}
        others = [
            b for b in f.walk() if isinstance(b, BlockOp) and b is not block and any(
                isinstance(s, StoreOp) and s.buffer in written for s in b.body.walk())
        ]
        if others:
            hint = (
                f' (block "{others[0].label}" also writes {", ".join(sorted(buffer_name(b) for b in written))}: '
                "if decompose-reduction split the init off, fuse the epilogue before decompose-reduction)"
            )
        raise ScheduleError(
            block,
            f"{what} has no init{hint}; fuse-reduction-epilogue needs a complete reduction with its init, "
            "which becomes the epilogue's computation",
        )
    stores = [op for op in block.body.walk() if isinstance(op, StoreOp)]
    written = list(dict.fromkeys(s.buffer for s in stores))
    if len(written) != 1:
        raise ScheduleError(
            block,
            f"{what} writes {len(written)} buffers ({', '.join(buffer_name(b) for b in written)}); the reduction "
            "must write one buffer, the one its epilogue reads",
        )
    temp = written[0]
    if not isinstance(temp.owner, AllocOp):
        raise ScheduleError(
            block,
            f'{what} is an output block: it writes {buffer_name(temp)}, an argument of function "{f.sym_name.data}", '
            "whose values the fusion would drop; only a reduction into an intermediate buffer (block.alloc) can "
            "take its epilogue",
        )
    init_ops = list(init.body.block.ops)
    init_stores = [op for op in init_ops if isinstance(op, StoreOp)]
    if len(init_stores) != 1 or init_ops[-1] is not init_stores[0]:
        raise ScheduleError(
            init,
            f"the init of {what} must end in its only block.store, `{buffer_name(temp)}[...] = value`; "
            f"it has {len(init_stores)} stores",
        )
    check_pure(init_ops[:-1], f"the init of {what}", f"one statement `{buffer_name(temp)}[...] = value`")
    update_ops = [op for op in block.body.block.ops if not isinstance(op, InitOp)]
    update_stores = [op for op in update_ops if isinstance(op, StoreOp)]
    if len(update_stores) != 1 or update_ops[-1] is not update_stores[0]:
        raise ScheduleError(
            block,
            f"the update of {what} must end in its only block.store, `{buffer_name(temp)}[...] = "
            f"{buffer_name(temp)}[...] + ...`; it has {len(update_stores)} stores",
        )
    store = update_stores[0]
    check_pure(update_ops[:-1], f"the update of {what}", "one statement `temp[...] = temp[...] + ...`")
    spatial_vars = [it.var for it in block.iters() if it.kind == SPATIAL]
    spatial = plain_vars(store.indices(), spatial_vars)
    if spatial is None:
        raise ScheduleError(
            store,
            f"{what} stores {format_access(temp, store.indices())}; the reduction must store at its spatial "
            f"iteration variables ({var_names(spatial_vars)}), each exactly once and alone in its index, so that "
            "the epilogue's indices can be mapped onto them",
        )
    init_store = init_stores[0]
    if init_store.indices() != store.indices():
        raise ScheduleError(
            init_store,
            f"the init of {what} stores {format_access(temp, init_store.indices())} but its update stores "
            f"{format_access(temp, store.indices())}; both must write the same element",
        )
    return Reduction(block, temp, init_store, store, _accumulator(block, temp, store), spatial)


def _accumulator(block: BlockOp, temp: SSAValue, store: StoreOp) -> LoadOp:
    """The update's read of temp[p], after checking the update is a sum `temp[p] = temp[p] + g`."""
    what = block_label(block)
    at = format_access(temp, store.indices())
    loads = [op for op in block.body.block.ops if isinstance(op, LoadOp) and op.buffer is temp]
    value = store.value
    op = value.owner
    sum_form = f"the epilogue's addition moves into the init only for a sum, `{at} = {at} + ...`"
    if not loads:
        raise ScheduleError(
            store,
            f"the update of {what} stores {formula(value)} into {at} without reading {buffer_name(temp)}: it overwrites "
            f"{at} instead of accumulating into it; {sum_form}",
        )
    if len(loads) != 1 or loads[0].indices() != store.indices():
        found = ", ".join(format_access(temp, load.indices()) for load in loads)
        raise ScheduleError(store, f"the update of {what} reads {found} and stores {formula(value)} into {at}; {sum_form}")
    load = loads[0]
    uses = {use.operation for use in load.result.uses}
    if not isinstance(op, ADDS) or load.result not in op.operands or not load.result.has_one_use() or uses != {op}:
        name = op.name if isinstance(op, Operation) else "a value"
        raise ScheduleError(
            store,
            f"the update of {what} computes {at} = {formula(value)} (with {name}); {sum_form}",
        )
    return load
