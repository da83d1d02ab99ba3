"""decompose-reduction{block=B loop=L}: split a reduction into init and update blocks.

B's init becomes a block `B_init` placed just before loop L, over copies (`X_init`)
of the loops from L down that its spatial bindings use; B itself, without its init,
becomes `B_update` (TVM's decompose_reduction). L must enclose B in B's scope, and
no loop above L may feed a reduce variable (the init would run once per reduction
step otherwise), and the loops from L down may not run an instance of B twice (B is
recomputed there, after compute-at; the init would run once for several sums).
`B_update` keeps B's annotations; the init block and its loops have none.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from xtir.dialects.block import REDUCE, SPATIAL, BlockOp, ForOp, loops_in_scope
from xtir.dialects.expr import Expr
from xtir.passes.analysis.instances import repeated_instances
from xtir.passes.analysis.navigation import get_block, get_loop
from xtir.passes.analysis.rewrite import substitute_var
from xtir.passes.utils import fail, fresh_name, function_of, target_function


def check(pass_name: str, block: BlockOp, loop: ForOp) -> list[ForOp]:
    """Return the loops from `loop` down to `block`, after checking legality."""
    if block.init is None:
        raise fail(pass_name, block, f'block "{block.label}" has no init to decompose')
    scope = loops_in_scope(block)
    if not any(lp is loop for lp in scope):
        raise fail(
            pass_name,
            loop,
            f'loop "{loop.label}" does not enclose block "{block.label}" within the block\'s scope',
        )
    position = next(i for i, lp in enumerate(scope) if lp is loop)
    for lp in scope[:position]:
        for it in block.iters():
            if it.kind == REDUCE and it.binding.uses(lp.var):
                raise fail(
                    pass_name,
                    lp,
                    f'loop "{lp.label}" is above "{loop.label}" but feeds reduce variable %{it.var.name_hint} of '
                    f'block "{block.label}"; decompose the reduction at a loop above all reduction loops',
                )
    if (why := repeated_instances(block, scope[position:])) is not None:
        raise fail(
            pass_name,
            loop,
            f'cannot decompose block "{block.label}" at loop "{loop.label}": {why}, and its init would run only '
            "once; decompose at a loop below them",
        )
    return scope[position:]


def decompose(pass_name: str, block: BlockOp, loop: ForOp) -> BlockOp:
    below = check(pass_name, block, loop)
    spatial = [it for it in block.iters() if it.kind == SPATIAL]
    used = [lp for lp in below if any(it.binding.uses(lp.var) for it in spatial)]
    root = function_of(block)
    copies = [ForOp(fresh_name(root, f"{lp.label}_init"), lp.extent) for lp in used]
    to_copy = {lp.var: Expr.var(c.var) for lp, c in zip(used, copies)}
    below_vars = {lp.var for lp in below}
    for e, _ in block.predicate():
        if any(v in below_vars and v not in to_copy for v in e.variables()):
            raise fail(pass_name, block, f'the predicate of block "{block.label}" depends on a reduction loop')
    init_block = BlockOp(
        f"{block.label}_init",
        [(it.var.name_hint or "", SPATIAL, it.extent, it.binding.substitute(to_copy)) for it in spatial],
        predicate=[(e.substitute(to_copy), n) for e, n in block.predicate()],
    )
    init_block.location = block.location
    for lp, c in zip(used, copies):
        c.location = lp.location
    init = block.init
    assert init is not None
    for op in list(init.body.block.ops):
        op.detach()
        init_block.body.block.add_op(op)
    init.detach()
    init.erase()
    for it, new_var in zip(spatial, init_block.iter_vars):
        substitute_var(it.var, Expr.var(new_var), within=init_block)

    nest = init_block
    for c in reversed(copies):
        c.body.block.add_op(nest)
        nest = c  # type: ignore[assignment]
    assert loop.parent is not None
    loop.parent.insert_op_before(nest, loop)
    block.properties["name"] = StringAttr(f"{block.label}_update")
    return init_block


@dataclass(frozen=True)
class DecomposeReductionPass(ModulePass):
    name = "decompose-reduction"

    block: str
    loop: str
    func: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.run(op)

    def run(self, op: ModuleOp) -> tuple[BlockOp, BlockOp]:
        """Apply the decomposition; return the init block and the renamed update block
        (the Schedule API returns the first and keeps handles of B on the second)."""
        f = target_function(op, self.func)
        block = get_block(f, self.block, self.name)
        return decompose(self.name, block, get_loop(f, self.loop, self.name)), block
