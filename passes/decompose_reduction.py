"""decompose-reduction{block=B loop=L}: split a reduction into init and update blocks.

B's init becomes a block `B_init` placed just before loop L, over copies (`X_init`)
of the loops from L down that its spatial bindings use; B itself, without its init,
becomes `B_update` (TVM's decompose_reduction). L must enclose B in B's scope, and
no loop above L may feed a reduce variable (the init would run once per reduction
step otherwise), and the loops from L down may not run an instance of B twice (B is
recomputed there, after compute-at; the init would run once for several sums).
The init must run at the first iteration of each instance, which it does where every
reduce variable is 0 (a backward binding `5 - k` reaches 0 last: hoisting that init
would move it ahead of updates it follows). Hoisted, the init also reads and writes
earlier: nothing under L may write what it reads (e.g. a cache of the bias computed
there), and another block under L may touch what it writes only after B, within what B
writes in the same iteration.
B's predicate may test the reduction loops where it cuts only a tail of them (k split by
a factor that does not divide it: `k_0 * 8 + k_1 < 60`): the init block keeps each conjunct
with those loops at 0, and drops it where that always holds (TVM's RemakePredicate drops
every conjunct on them); any other test of them is refused.
`B_update` keeps B's annotations; the init block and its loops have none.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.block import REDUCE, SPATIAL, AccessOp, BlockOp, ForOp, buffer_name, loops_in_scope
from xtir.dialects.expr import Expr
from xtir.passes.analysis.compute_location import buffers_touched, program_order, required_region
from xtir.passes.analysis.init_first import init_not_first, init_note
from xtir.passes.analysis.inline import owner_label
from xtir.passes.analysis.instances import repeated_instances
from xtir.passes.analysis.navigation import child_blocks, get_block, get_loop
from xtir.passes.analysis.predicate import Conjunct, at_first
from xtir.passes.analysis.regions import Range, format_expr, read_regions, write_regions
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.rewrite import move_ops, substitute_var
from xtir.passes.utils import fresh_name, function_of
from xtir.support.errors import ScheduleError


def check(block: BlockOp, loop: ForOp) -> list[ForOp]:
    """Return the loops from `loop` down to `block`, after checking legality."""
    if block.init is None:
        raise ScheduleError(block, f'block "{block.label}" has no init to decompose')
    scope = loops_in_scope(block)
    if not any(lp is loop for lp in scope):
        raise ScheduleError(
            loop,
            f'loop "{loop.label}" does not enclose block "{block.label}" within the block\'s scope',
            [(block, f'block "{block.label}" is here')],
        )
    position = next(i for i, lp in enumerate(scope) if lp is loop)
    for lp in scope[:position]:
        for it in block.iters():
            if it.kind == REDUCE and it.binding.uses(lp.var):
                raise ScheduleError(
                    lp,
                    f'loop "{lp.label}" is above "{loop.label}" but feeds reduce variable %{it.var.name_hint} of '
                    f'block "{block.label}"; decompose the reduction at a loop above all reduction loops',
                    [(block, f'block "{block.label}" binds %{it.var.name_hint} to {format_expr(it.binding)}')],
                )
    if (why := repeated_instances(block, scope[position:])) is not None:
        raise ScheduleError(
            loop,
            f'cannot decompose block "{block.label}" at loop "{loop.label}": {why}, and its init would run only '
            "once; decompose at a loop below them",
        )
    _check_init_runs_first(block, loop, scope)
    _check_init_inputs_ready(block, loop)
    _check_init_outputs_unseen(block, loop)
    return scope[position:]


def _check_init_runs_first(block: BlockOp, loop: ForOp, scope: list[ForOp]) -> None:
    """The init runs where every reduce variable is 0; hoisted, it runs before all the updates of its
    instance, which is the same only when that iteration is the instance's first (and only one)."""
    above = scope[:next(i for i, lp in enumerate(scope) if lp is loop)]
    if (why := init_not_first(block, scope, above)) is not None:
        raise ScheduleError(loop, f'cannot decompose block "{block.label}" at loop "{loop.label}": its init runs '
                            f"when every reduce variable is 0, which is not the first iteration of each instance "
                            f"({why}); hoisted before the loop, it would run ahead of updates it follows",
                            [init_note(block)])


def _init_accesses(block: BlockOp, writes: bool) -> set[SSAValue]:
    init = block.init
    assert init is not None
    return {a.buffer for op in init.walk() if isinstance(op, AccessOp) for a in op.accesses() if a.is_write == writes}


def _check_init_inputs_ready(block: BlockOp, loop: ForOp) -> None:
    """Hoisted before `loop`, the init reads its inputs before anything under the loop writes them."""
    inputs = _init_accesses(block, writes=False)
    init = block.init
    assert init is not None
    for op in loop.walk():
        if isinstance(op, AccessOp) and not init.is_ancestor(op):
            for access in op.accesses():
                if access.is_write and access.buffer in inputs:
                    name = buffer_name(access.buffer)
                    raise ScheduleError(loop, f'cannot decompose block "{block.label}" at loop "{loop.label}": its '
                                        f"init reads {name}, which {owner_label(op)} writes under the loop; hoisted "
                                        "before the loop, the init would read it before it is written",
                                        [(op, f"{owner_label(op)} writes {name}")])


def _check_init_outputs_unseen(block: BlockOp, loop: ForOp) -> None:
    """Hoisted before `loop`, the init writes earlier: another block under the loop may touch those
    buffers only after `block`, and only where `block` wrote in the same iteration (so the init had
    run there already)."""
    order = program_order(function_of(block))
    for buffer in _init_accesses(block, writes=True):
        mine = required_region(loop, [block], buffer, write_regions, relax_threads=False)
        for other in child_blocks(loop):
            if other is block:
                continue
            for regions_of, writes in ((read_regions, False), (write_regions, True)):
                if buffer not in buffers_touched(other, writes):
                    continue
                verb = "writes" if writes else "reads"
                if order[id(other)] < order[id(block)]:
                    raise ScheduleError(loop, f'cannot decompose block "{block.label}" at loop "{loop.label}": '
                                        f'block "{other.label}" {verb} {buffer_name(buffer)} under the loop before '
                                        "it; the hoisted init would write it first",
                                        [(other, f'block "{other.label}" {verb} {buffer_name(buffer)}')])
                theirs = required_region(loop, [other], buffer, regions_of, relax_threads=False)
                if not _within(theirs, mine):
                    raise ScheduleError(loop, f'cannot decompose block "{block.label}" at loop "{loop.label}": '
                                        f'block "{other.label}" {verb} {buffer_name(buffer)} under the loop outside '
                                        f'what "{block.label}" computes in the same iteration; the hoisted init would '
                                        "have written there already",
                                        [(other, f'block "{other.label}" {verb} {buffer_name(buffer)}')])


def _within(inner: tuple[Range, ...], outer: tuple[Range, ...]) -> bool:
    """Whether each range of `inner` lies in the one of `outer` (their starts a constant apart)."""
    for a, b in zip(inner, outer):
        diff = a.start - b.start
        if not diff.is_const or diff.const < 0 or diff.const + a.extent > b.extent:
            return False
    return True


def init_predicate(block: BlockOp, loop: ForOp, below: list[ForOp], kept: list[ForOp]) -> list[Conjunct]:
    """The predicate of the init block. A conjunct that tests none of the loops from `loop` down that the
    init block leaves (the reduction loops) stays; one that does is taken where they are all 0 (the
    step that runs the init), or dropped when that always holds (TVM's RemakePredicate drops them):
    the instances it keeps are then those some step of the reduction runs. That needs the conjunct to
    cut only a tail of those loops (`k_0 * 8 + k_1 < 60`); another one is refused."""
    left = [lp for lp in below if not any(lp is k for k in kept)]
    conjuncts = []
    for conjunct in block.predicate():
        tested = [lp for lp in left if conjunct[0].uses(lp.var)]
        if not tested:
            conjuncts.append(conjunct)
            continue
        first = at_first(conjunct, (lp.var for lp in tested))
        if first is None or (first[0].is_const and first[0].const >= first[1]):
            names = ", ".join(f'"{lp.label}"' for lp in tested)
            why = ("which no step of the reduction meets: the block never runs" if first is not None else
                   "but not as a tail that the first step of each instance meets (a bound with positive strides on "
                   "them); the init block cannot tell which instances the reduction runs")
            raise ScheduleError(loop, f'cannot decompose block "{block.label}" at loop "{loop.label}": its predicate '
                                f"{format_expr(conjunct[0])} < {conjunct[1]} tests {names}, which the init block "
                                f"leaves, {why}", [(block, f'block "{block.label}" is here')])
        if not first[0].is_const:
            conjuncts.append(first)
    return conjuncts


def decompose(block: BlockOp, loop: ForOp) -> BlockOp:
    below = check(block, loop)
    spatial = [it for it in block.iters() if it.kind == SPATIAL]
    used = [lp for lp in below if any(it.binding.uses(lp.var) for it in spatial)]
    root = function_of(block)
    copies = [ForOp(fresh_name(root, f"{lp.label}_init"), lp.extent) for lp in used]
    to_copy = {lp.var: Expr.var(c.var) for lp, c in zip(used, copies)}
    init_block = BlockOp(
        f"{block.label}_init",
        [(it.var.name_hint or "", SPATIAL, it.extent, it.binding.substitute(to_copy)) for it in spatial],
        predicate=[(e.substitute(to_copy), n) for e, n in init_predicate(block, loop, below, used)],
    )
    init_block.location = block.location
    for lp, c in zip(used, copies):
        c.location = lp.location
    init = block.init
    assert init is not None
    move_ops(list(init.body.block.ops), InsertPoint.at_end(init_block.body.block))
    Rewriter.erase_op(init)
    for it, new_var in zip(spatial, init_block.iter_vars):
        substitute_var(it.var, Expr.var(new_var), within=init_block)

    nest = init_block
    for c in reversed(copies):
        c.body.block.add_op(nest)
        nest = c  # type: ignore[assignment]
    Rewriter.insert_op(nest, InsertPoint.before(loop))
    block.properties["name"] = StringAttr(f"{block.label}_update")
    return init_block


@dataclass(frozen=True)
class DecomposeReductionPass(StatementPrimitive):
    name = "decompose-reduction"

    block: str
    loop: str

    def run(self, f: func.FuncOp) -> tuple[BlockOp, BlockOp]:
        """Apply the decomposition; return the init block and the renamed update block
        (the Schedule API returns the first and keeps handles of B on the second)."""
        block = get_block(f, self.block)
        return decompose(block, get_loop(f, self.loop)), block
