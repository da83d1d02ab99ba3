"""fuse-reduction-epilogue{block=R epilogue=E mode=exact|per-iteration}: fold an epilogue
into the init of the reduction it follows (TVM's fuse_reduction_epilogue, seed 004).

    R:  init temp[vi, vj] = 0;  temp[vi, vj] = temp[vi, vj] + A[vi, vk] * B[vj, vk]
    E:  D[vi, vj] = temp[vi, vj] + C[vi, vj]
 -> R:  init D[vi, vj] = C[vi, vj];  D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vj, vk]

Pattern. R is a complete reduction block: reduce iteration variables, an init that is
one block.store into `temp`, and an update that is one sum `temp[p] = temp[p] + g(...)`
(either operand order), where `p` are R's spatial iteration variables, each once
(in any order), and `temp` is an intermediate buffer (block.alloc) that R alone
writes. R holds no loops or blocks: fuse before blockize / tensorize. E is a complete
block without a predicate, in R's scope and after R, whose body is one statement
`D[q] = temp[e] + C` (either operand order): it reads `temp` once, at its iteration
variables `e`, each once, over the same domain as R's variables `p` they meet in
`temp`'s dimensions; it stores at its iteration variables `q`, each once; `C` is any
computation of loads and arithmetic that does not read `temp` or `D`. A chain of
additions `temp + C1 + C2` is accepted too. `E` must be `temp`'s only reader.

Rewrite. E's variables are renamed onto R's through `temp`'s dimensions (so the nests
may name and order their loops differently). R's init becomes `D[q'] = C'` (`z + C'`
when the init stored a value `z` other than zero), its update reads and writes `D[q']`
instead of `temp[p]`; E, the loops it leaves empty and `temp`'s allocation are
removed (TVM 0.27 leaves the dead allocation behind). R keeps its name, loops,
bindings, predicate and annotations. The result differs from the two blocks only by
the order of the floating-point additions.

Non-linear epilogues (ReLU `max(temp + C, 0)`, clipping `min(max(temp, lo), hi)`) are
refused by default: folded into the reduction, the clamp would be applied after every
reduction step, not once to the finished sum, and the results change. `mode=per-iteration`
asks for TVM's rewrite anyway, for an epilogue of additions followed by max/min clamps
h: the init becomes `D = h(C)` and the update `D = h(D + g)`. THIS CHANGES THE NUMBERS
(for ReLU, every partial sum is clamped at zero); use it only when that is what you want.

Legality is checked before anything changes: a refused fusion leaves the IR as it was.
Besides the pattern, no block in the loop nests from R to E may access `D` (it is now
written while R runs) or write a buffer `C` reads (it is now read while R runs), and
R may not read `D`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.traits import is_side_effect_free

from xtir.dialects.block import (
    SPATIAL,
    AccessOp,
    AllocOp,
    BlockOp,
    ForOp,
    InitOp,
    LoadOp,
    StoreOp,
    buffer_name,
    enclosing_block,
)
from xtir.dialects.expr import Expr
from xtir.passes.analysis.inline import (
    check_complete,
    check_no_predicate,
    clone_before,
    format_access,
    is_plain_statement,
    nests_between,
    owner_label,
    remove_nest,
    visible_in_copy,
)
from xtir.passes.analysis.navigation import get_block
from xtir.passes.analysis.regions import loop_bounds
from xtir.passes.analysis.rewrite import replace_op
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.utils import function_of
from xtir.support.errors import ScheduleError

EXACT, PER_ITERATION = "exact", "per-iteration"
MODES = (EXACT, PER_ITERATION)

_ADD = (arith.AddfOp, arith.AddiOp)
_CLAMP = (
    arith.MaximumfOp,
    arith.MinimumfOp,
    arith.MaxnumfOp,
    arith.MinnumfOp,
    arith.MaxSIOp,
    arith.MinSIOp,
    arith.MaxUIOp,
    arith.MinUIOp,
)
_SCALE = (arith.MulfOp, arith.MuliOp, arith.DivfOp, arith.DivSIOp, arith.DivUIOp, arith.NegfOp, arith.SubfOp, arith.SubiOp)


# Messages: the epilogue's computation written out --------------------------------------

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


@dataclass
class Epilogue:
    block: BlockOp
    load: LoadOp  # its only read of temp
    store: StoreOp  # D[q] = ...
    path: list[Operation]  # the ops from the read of temp to the stored value
    variables: list[SSAValue]  # E's variables in the order of temp's dimensions

    @property
    def adds(self) -> list[Operation]:
        """The leading additions of the path (the bias adds)."""
        result = []
        for op in self.path:
            if not isinstance(op, _ADD):
                break
            result.append(op)
        return result


def _label(block: BlockOp) -> str:
    return f'block "{block.label}"'


def _var_names(vars_: Sequence[SSAValue]) -> str:
    return ", ".join(f"%{v.name_hint}" for v in vars_)


def plain_vars(indices: Sequence[Expr], variables: Sequence[SSAValue]) -> list[SSAValue] | None:
    """The variables when each index is one of `variables` alone, each of them exactly once."""
    own = set(variables)
    found = [v for e in indices if (v := e.as_var()) is not None and v in own]
    return found if len(found) == len(indices) == len(set(found)) == len(own) else None


# Checks ------------------------------------------------------------------------------------


def check_unscheduled(block: BlockOp, role: str) -> None:
    """Refuse a block that blockize or tensorize has already restructured: fuse first."""
    what = f"{role} {_label(block)}"
    outer = enclosing_block(block)
    if role == "the reduction" and outer is not None and (outer.reduce_vars or outer.init is not None):
        raise ScheduleError(
            block,
            f'{what} is the inner block of block "{outer.label}", which blockize made (the init and the outer '
            f'reduction are in "{outer.label}"); fuse-reduction-epilogue rewrites a reduction block that holds its own '
            "init and update: fuse the epilogue first, then blockize or tensorize",
        )
    for op in block.body.walk():
        if op.name.startswith("accel."):
            raise ScheduleError(
                block,
                f"{what} has been tensorized (its body holds {op.name}); fuse-reduction-epilogue rewrites the scalar "
                "init and update of a block: fuse the epilogue first, then tensorize",
            )
    init = block.init
    inner = [op for op in block.body.walk() if isinstance(op, BlockOp | ForOp)]
    outside_init = [op for op in inner if init is None or not init.is_ancestor(op)]
    nested = [op for op in outside_init if isinstance(op, BlockOp)] or outside_init or inner
    if nested:
        kind = "block" if isinstance(nested[0], BlockOp) else "loop"
        raise ScheduleError(
            block,
            f'{what} holds {kind} "{nested[0].label}" in its body, as blockize leaves a block; fuse-reduction-epilogue '
            "rewrites a block whose body is scalar statements: fuse the epilogue first, then blockize or tensorize",
        )


def _check_pure(ops: Sequence[Operation], what: str, form: str) -> None:
    for op in ops:
        if not is_plain_statement(op):
            raise ScheduleError(op, f"{what} contains {op.name}; it must be {form}")


def analyse_reduction(f: func.FuncOp, block: BlockOp) -> Reduction:
    what = _label(block)
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
    _check_pure(init_ops[:-1], f"the init of {what}", f"one statement `{buffer_name(temp)}[...] = value`")
    update_ops = [op for op in block.body.block.ops if not isinstance(op, InitOp)]
    update_stores = [op for op in update_ops if isinstance(op, StoreOp)]
    if len(update_stores) != 1 or update_ops[-1] is not update_stores[0]:
        raise ScheduleError(
            block,
            f"the update of {what} must end in its only block.store, `{buffer_name(temp)}[...] = "
            f"{buffer_name(temp)}[...] + ...`; it has {len(update_stores)} stores",
        )
    store = update_stores[0]
    _check_pure(update_ops[:-1], f"the update of {what}", "one statement `temp[...] = temp[...] + ...`")
    spatial_vars = [it.var for it in block.iters() if it.kind == SPATIAL]
    spatial = plain_vars(store.indices(), spatial_vars)
    if spatial is None:
        raise ScheduleError(
            store,
            f"{what} stores {format_access(temp, store.indices())}; the reduction must store at its spatial "
            f"iteration variables ({_var_names(spatial_vars)}), each exactly once and alone in its index, so that "
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
    what = _label(block)
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
    if not isinstance(op, _ADD) or load.result not in op.operands or not load.result.has_one_use() or uses != {op}:
        name = op.name if isinstance(op, Operation) else "a value"
        raise ScheduleError(
            store,
            f"the update of {what} computes {at} = {formula(value)} (with {name}); {sum_form}",
        )
    return load


def analyse_epilogue(reduction: Reduction, block: BlockOp, mode: str) -> Epilogue:
    what = f"the epilogue {_label(block)}"
    temp = reduction.temp
    check_complete(block, what)
    check_no_predicate(block)
    ops = list(block.body.block.ops)
    stores = [op for op in ops if isinstance(op, StoreOp)]
    form = f"one statement `D[...] = {buffer_name(temp)}[...] + C[...]`"
    if len(stores) != 1 or ops[-1] is not stores[0]:
        raise ScheduleError(
            block,
            f"{what} must be {form}; it has {len(stores)} block.store statements",
        )
    store = stores[0]
    _check_pure(ops[:-1], what, form)
    for op in ops:
        for value in op.operands:
            if not visible_in_copy(value, block):
                raise ScheduleError(
                    op,
                    f"{what} uses %{value.name_hint or '?'}, defined outside the block; the epilogue's computation "
                    "moves into the reduction, so it may use only its own iteration variables, buffers and the values "
                    "it computes",
                )
    loads = [op for op in ops if isinstance(op, LoadOp) and op.buffer is temp]
    if not loads:
        raise ScheduleError(
            block,
            f'{what} does not read {buffer_name(temp)}, the buffer block "{reduction.block.label}" reduces into',
        )
    if len(loads) > 1:
        raise ScheduleError(
            loads[1],
            f"{what} reads {buffer_name(temp)} {len(loads)} times "
            f"({', '.join(format_access(temp, load.indices()) for load in loads)}); the fused reduction keeps one "
            f"running value per element of D, so the epilogue must read {buffer_name(temp)} exactly once",
        )
    load = loads[0]
    variables = plain_vars(load.indices(), block.iter_vars)
    if variables is None:
        raise ScheduleError(
            load,
            f"{what} reads {format_access(temp, load.indices())}; the epilogue must read {buffer_name(temp)} at its "
            f"iteration variables ({_var_names(block.iter_vars)}), each exactly once and alone in its index, so that "
            f'they can be mapped onto those of block "{reduction.block.label}"',
        )
    extents = dict(zip(block.iter_vars, block.extents))
    reduction_extents = dict(zip(reduction.block.iter_vars, reduction.block.extents))
    for e, p in zip(variables, reduction.spatial):
        if extents[e] != reduction_extents[p]:
            raise ScheduleError(
                block,
                f"mismatched iteration domains: {what} iterates %{e.name_hint} over {extents[e]} where it reads "
                f'{format_access(temp, load.indices())}, but block "{reduction.block.label}" computes '
                f"{format_access(temp, reduction.update_store.indices())} for %{p.name_hint} over "
                f"{reduction_extents[p]}; each element the reduction computes must be read once by the epilogue",
            )
    out = store.buffer
    if plain_vars(store.indices(), block.iter_vars) is None:
        raise ScheduleError(
            store,
            f"{what} stores {format_access(out, store.indices())}; the epilogue must store at its iteration "
            f"variables ({_var_names(block.iter_vars)}), each exactly once and alone in its index, so that the fused "
            f"reduction accumulates into each element of {buffer_name(out)} on its own",
        )
    for op in ops:
        if isinstance(op, LoadOp) and op.buffer is out:
            raise ScheduleError(
                op,
                f"{what} reads {buffer_name(out)}, the buffer it writes; the fused reduction writes "
                f"{buffer_name(out)} from its first step, before such a read",
            )
    path = _path(what, load, store)
    epilogue = Epilogue(block, load, store, path, variables)
    _check_form(epilogue, mode)
    return epilogue


def _path(what: str, load: LoadOp, store: StoreOp) -> list[Operation]:
    """The ops from the read of temp to the stored value; each value on the way is used once,
    so the other operands of these ops do not depend on temp."""
    at = format_access(load.buffer, load.indices())
    path: list[Operation] = []
    value: SSAValue = load.result
    while value is not store.value:
        uses = list(value.uses)
        if len(uses) != 1:
            if not uses:
                raise ScheduleError(load, f"{what} reads {at} but does not use it in the value it stores")
            raise ScheduleError(
                uses[1].operation,
                f"{what} computes {formula(store.value)}, which uses the value of {at} {len(uses)} times; the "
                f"fused reduction keeps one running value, so the epilogue must use {at} exactly once",
            )
        op = uses[0].operation
        path.append(op)
        # the next value on the way: the op's result (an op of several results is refused by its kind later)
        value = next((r for r in op.results if r.first_use is not None), op.results[0])
    return path


def _kinds(epilogue: Epilogue) -> list[str]:
    """What each op on the path does to the value of temp: add (an addition), sub (a subtraction
    from it), scale (multiplies, divides, negates or subtracts it), clamp (max/min) or other."""
    on_path = {epilogue.load.result} | {r for op in epilogue.path for r in op.results}
    kinds = []
    for op in epilogue.path:
        if isinstance(op, _ADD):
            kinds.append("add")
        elif isinstance(op, _CLAMP):
            kinds.append("clamp")
        elif isinstance(op, arith.SubfOp | arith.SubiOp) and op.operands[0] in on_path:
            kinds.append("sub")
        elif isinstance(op, _SCALE):
            kinds.append("scale")
        else:
            kinds.append("other")
    return kinds


def _check_form(epilogue: Epilogue, mode: str) -> None:
    """Exact mode: additions only. Per-iteration mode: additions, then max/min clamps."""
    block, store, path = epilogue.block, epilogue.store, epilogue.path
    what = f"the epilogue {_label(block)}"
    temp = buffer_name(epilogue.load.buffer)
    at = format_access(epilogue.load.buffer, epilogue.load.indices())
    computes = f"{what} computes {format_access(store.buffer, store.indices())} = {formula(store.value)}"
    if not path:
        raise ScheduleError(
            store,
            f"{what} stores {at} unchanged into {format_access(store.buffer, store.indices())}; fuse-reduction-epilogue "
            f"folds an addition, D = {temp} + C",
        )
    kinds = _kinds(epilogue)
    n_adds = len(epilogue.adds)
    per_iteration_form = all(k == "clamp" for k in kinds[n_adds:])  # additions, then clamps
    if mode == EXACT and (nonlinear := [op for op, k in zip(path, kinds) if k in ("clamp", "other")]):
        op = nonlinear[0]
        if per_iteration_form:
            raise ScheduleError(
                op,
                f"{computes}, which is not linear in {temp} ({op.name}): folded into the reduction, the clamp would "
                "be applied after every reduction step, to each partial sum, instead of once to the finished sum, "
                "and the results would change; fuse-reduction-epilogue refuses it. mode=per-iteration does this "
                "anyway, as TVM does, and changes the numbers",
            )
        raise ScheduleError(
            op,
            f"{computes}: {op.name} is not linear in {temp}; fuse-reduction-epilogue folds an addition, "
            f"D = {temp} + C (mode=per-iteration also takes max/min clamps after it)",
        )
    if "add" not in kinds and "clamp" not in kinds:
        raise ScheduleError(
            path[0],
            f"{computes}: it combines {at} with {path[0].name}, not an addition; only D = {temp} + C "
            "(either operand order) can start the reduction at C",
        )
    if "scale" in kinds:
        op = path[kinds.index("scale")]
        raise ScheduleError(
            op,
            f"{computes}: {at} is scaled by {op.name}; the reduction accumulates {temp} itself, so the epilogue must "
            f"add to it unscaled, D = {temp} + C",
        )
    if mode == EXACT and "sub" in kinds:
        op = path[kinds.index("sub")]
        raise ScheduleError(
            op,
            f"{computes}: it subtracts with {op.name} after the addition; fuse-reduction-epilogue folds additions "
            f"only, D = {temp} + C",
        )
    if mode == PER_ITERATION and not per_iteration_form:
        op = next(op for op, k in zip(path[n_adds:], kinds[n_adds:]) if k != "clamp")
        why = f"here {op.name} comes after a clamp" if isinstance(op, _ADD) else f"{op.name} is neither an addition nor a clamp"
        raise ScheduleError(
            op,
            f"{computes}: mode=per-iteration folds additions followed by max/min clamps (as TVM does for ReLU and "
            f"clipping); {why}",
        )


def check_uses(reduction: Reduction, epilogue: Epilogue) -> None:
    """temp: written by R only, read by R's accumulator and by E only."""
    temp = reduction.temp
    allowed = {reduction.init_store, reduction.update_store, reduction.accumulator, epilogue.load}
    for use in list(temp.uses):
        op = use.operation
        if op in allowed:
            continue
        if isinstance(op, AccessOp) and any(a.is_write and a.buffer is temp for a in op.accesses()):
            raise ScheduleError(
                op,
                f'{owner_label(op)} also writes {buffer_name(temp)}; block "{reduction.block.label}" must be its only '
                "producer for the fusion to remove it",
            )
        raise ScheduleError(
            op,
            f'{owner_label(op)} also reads {buffer_name(temp)}; block "{epilogue.block.label}" must be its only '
            f'consumer, since the fused block "{reduction.block.label}" no longer computes it',
        )


def check_placement(f: func.FuncOp, reduction: Reduction, epilogue: Epilogue) -> None:
    """Same scope, E after R, R not reading D, and nothing in between that the move would reorder."""
    r, e = reduction.block, epilogue.block
    r_scope, e_scope = enclosing_block(r), enclosing_block(e)
    if r_scope is not e_scope:

        def name(scope: BlockOp | None) -> str:
            return f'block "{scope.label}"' if scope is not None else f'function "{f.sym_name.data}"'

        raise ScheduleError(
            e,
            f'the epilogue block "{e.label}" is in the scope of {name(e_scope)}, block "{r.label}" in that of '
            f"{name(r_scope)}; the two blocks must be in the same scope",
        )
    order = {op: k for k, op in enumerate(f.walk()) if op is r or op is e}
    if order[e] < order[r]:
        raise ScheduleError(
            e,
            f'the epilogue block "{e.label}" comes before block "{r.label}"; it must read '
            f"{buffer_name(reduction.temp)} after the reduction computes it",
        )
    out = epilogue.store.buffer
    for op in r.body.walk():
        if isinstance(op, LoadOp) and op.buffer is out:
            raise ScheduleError(
                op,
                f'block "{r.label}" reads {buffer_name(out)}, which the fused reduction would write while it still '
                "reads it",
            )
    read = {op.buffer for op in e.body.block.ops if isinstance(op, LoadOp) and op.buffer is not reduction.temp}
    for stmt in nests_between(f, [r, e]):
        for op in stmt.walk():
            if not isinstance(op, AccessOp) or r.is_ancestor(op) or e.is_ancestor(op):
                continue
            for access in op.accesses():
                if access.buffer is out:
                    verb = "writes" if access.is_write else "reads"
                    raise ScheduleError(
                        op,
                        f'{owner_label(op)} {verb} {buffer_name(out)} in the loop nests from block "{r.label}" to '
                        f'block "{e.label}"; fused, "{r.label}" writes {buffer_name(out)} and would reorder it with '
                        "that access",
                    )
                if access.is_write and access.buffer in read:
                    raise ScheduleError(
                        op,
                        f'{owner_label(op)} writes {buffer_name(access.buffer)}, which the epilogue block "{e.label}" '
                        f'reads, in the loop nests from block "{r.label}" to it; fused, the read moves into the init '
                        f'of "{r.label}", before that write',
                    )


# Rewrite -------------------------------------------------------------------------------------


def _is_zero(value: SSAValue) -> bool:
    op = value.owner
    if not isinstance(op, arith.ConstantOp):
        return False
    v = op.value
    return isinstance(v, FloatAttr | IntegerAttr) and v.value.data == 0


def _clone_slice(
    epilogue: Epilogue, root: SSAValue, anchor: Operation, at: Mapping[SSAValue, Expr], values: dict[SSAValue, SSAValue]
) -> SSAValue:
    """Copy, before `anchor`, the ops of E that `root` needs and `values` does not already give."""
    ops = list(epilogue.block.body.block.ops)[:-1]
    needed: set[SSAValue] = {root}
    chosen: list[Operation] = []
    for op in reversed(ops):
        if not any(r in needed and r not in values for r in op.results):
            continue
        chosen.append(op)
        needed.update(op.operands)
    clone_before(chosen[::-1], anchor, at, values)
    return values[root]


def rewrite(reduction: Reduction, epilogue: Epilogue) -> None:
    at = {e: Expr.var(p) for e, p in zip(epilogue.variables, reduction.spatial)}
    out = epilogue.store.buffer
    out_indices = [e.substitute(at, loop_bounds) for e in epilogue.store.indices()]
    adds = epilogue.adds
    root = epilogue.store.value

    # init: D[q'] = E with temp replaced by the init value (just C' when that value is zero)
    init_store = reduction.init_store
    init_value = init_store.value
    values: dict[SSAValue, SSAValue] = {}
    if adds and _is_zero(init_value):
        first = adds[0]
        addend = next(v for v in first.operands if v is not epilogue.load.result)
        values[first.results[0]] = _clone_slice(epilogue, addend, init_store, at, values)
    else:
        values[epilogue.load.result] = init_value
    new_init = StoreOp(_clone_slice(epilogue, root, init_store, at, values), out, out_indices)
    replace_op(init_store, new_init)
    init = reduction.block.init
    assert init is not None
    for op in reversed(list(init.body.block.ops)):
        if op is not new_init and all(r.first_use is None for r in op.results) and is_side_effect_free(op):
            op.detach()
            op.erase()

    # update: read and write D[q']; in per-iteration mode the clamps follow the sum
    update_store = reduction.update_store
    start = adds[-1].results[0] if adds else epilogue.load.result
    values = {start: update_store.value}
    new_update = StoreOp(_clone_slice(epilogue, root, update_store, at, values), out, out_indices)
    replace_op(update_store, new_update)
    replace_op(reduction.accumulator, LoadOp(out, out_indices))

    alloc = reduction.temp.owner
    remove_nest(epilogue.block)
    assert isinstance(alloc, AllocOp) and alloc.buffer.first_use is None
    alloc.detach()
    alloc.erase()


def fuse_reduction_epilogue(reduction: BlockOp, epilogue: BlockOp, mode: str = EXACT) -> BlockOp:
    """Fold `epilogue` into the init of `reduction` and return the fused block (the reduction,
    which keeps its name). Everything is checked before the IR changes."""
    f = function_of(reduction)
    if mode not in MODES:
        raise ScheduleError(f, f"mode must be {' or '.join(MODES)}, got '{mode}'")
    if reduction is epilogue:
        raise ScheduleError(reduction, f'block "{reduction.label}" cannot be both the reduction and its epilogue')
    if function_of(epilogue) is not f:
        raise ScheduleError(epilogue, f'block "{epilogue.label}" is not in the function of block "{reduction.label}"')
    assert isinstance(f, func.FuncOp)
    check_unscheduled(reduction, "the reduction")
    found = analyse_reduction(f, reduction)
    check_unscheduled(epilogue, "the epilogue")
    epi = analyse_epilogue(found, epilogue, mode)
    check_uses(found, epi)
    check_placement(f, found, epi)
    rewrite(found, epi)
    return reduction


@dataclass(frozen=True)
class FuseReductionEpiloguePass(StatementPrimitive):
    name = "fuse-reduction-epilogue"

    block: str
    epilogue: str
    mode: str = EXACT

    def run(self, f: func.FuncOp) -> BlockOp:
        """Apply the fusion; return the fused block (for the Schedule API)."""
        reduction = get_block(f, self.block)
        epilogue = get_block(f, self.epilogue)
        return fuse_reduction_epilogue(reduction, epilogue, self.mode)
