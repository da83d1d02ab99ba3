"""fuse-ops: group graph ops into primitive functions (TVM's FuseOps; FuseTIR's input).

    %h = tensor.dense %x, %w ...          %r = func.call @fused_dense_add_relu(%x, %w, %b)
    %a = tensor.add %h, %b ...      ->    ...
    %r = tensor.relu %a ...               func.func private @fused_dense_add_relu(...)
                                              attributes {xtir.op_pattern = "out_elemwise_fusable", xtir.primitive}

The groups are TVM's (passes/analysis/graph_partition.py): an injective chain joins its
producer when the producer's value reaches it through no other consumer. Each group of
two or more ops becomes a private `func.func @fused_<op names>` marked `xtir.primitive`
and carrying the group's pattern kind, called where the group's last op was; its
parameters are the values the group reads (arguments, constants, other ops' results, in
first-use order), its one result the value that leaves the group. Constants stay in the
graph function and are passed in, as TVM's FuseOps lifts them. A group identical to one
already outlined (same ops, attributes and types: a model's repeated layers) calls that
function again instead of adding a copy. Single ops stay as they are: legalize-tensor
maps each call and each remaining op to one block function.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xtir.passes.analysis.graph_partition import MAX_FUSED_OPS, partition_block
from xtir.passes.analysis.op_pattern import op_pattern
from xtir.passes.utils import same_function

PRIMITIVE = "xtir.primitive"
OP_PATTERN = "xtir.op_pattern"
MAX_NAME_LENGTH = 64


def is_primitive(f: func.FuncOp) -> bool:
    return PRIMITIVE in f.attributes


def _group_inputs(members: list[Operation]) -> list[SSAValue]:
    inside = {result for op in members for result in op.results}
    inputs: dict[SSAValue, None] = {}
    for op in members:
        inputs.update((v, None) for v in op.operands if v not in inside)
    return list(inputs)


def _group_output(members: list[Operation]) -> SSAValue:
    """The one value used outside the group (the partitioner only fuses into post-dominators)."""
    member_set = set(members)
    escaping = [r for op in members for r in op.results if any(u.operation not in member_set for u in r.uses)]
    assert len(escaping) == 1, f"a fused group has {len(escaping)} results leaving it"
    return escaping[0]


def _group_pattern(members: list[Operation]) -> str:
    return max(op_pattern(op) for op in members).label


def _fused_function(members: list[Operation], inputs: list[SSAValue], output: SSAValue) -> func.FuncOp:
    """A primitive function computing the group, named after its ops."""
    name = "fused"
    for m in members:
        if len(name) > MAX_NAME_LENGTH:  # a long chain is named after its first ops
            break
        name += "_" + m.name.split(".", 1)[-1]
    body = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = {}
    for outer, arg in zip(inputs, body.args):
        arg.name_hint = outer.name_hint
        mapping[outer] = arg
    body.add_ops(op.clone(value_mapper=mapping) for op in members)
    body.add_op(func.ReturnOp(mapping[output]))
    f = func.FuncOp(name, ([v.type for v in inputs], [output.type]), Region(body), visibility="private")
    f.attributes[PRIMITIVE] = UnitAttr()
    f.attributes[OP_PATTERN] = StringAttr(_group_pattern(members))
    return f


def _unique_name(base: str, taken: set[str]) -> str:
    """`base`, or base1, base2, ... as relax names repeated fused functions."""
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}{k}"
    taken.add(name)
    return name


@dataclass
class FuseGraphFunction(RewritePattern):
    max_fused_ops: int

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        if is_primitive(op) or len(op.body.blocks) != 1:
            return
        module = op.parent_op()
        assert module is not None
        functions = [f for f in module.walk() if isinstance(f, func.FuncOp)]
        taken = {f.sym_name.data for f in functions}
        primitives = [f for f in functions if is_primitive(f)]
        insert_after: Operation = op
        for members in partition_block(op.body.block, self.max_fused_ops):
            inputs, output = _group_inputs(members), _group_output(members)
            fused = _fused_function(members, inputs, output)
            # a group that repeats one already outlined (a model's repeated layers) calls it again
            existing = next((f for f in primitives if same_function(f, fused)), None)
            if existing is None:
                fused.sym_name = StringAttr(_unique_name(fused.sym_name.data, taken))
                rewriter.insert(fused, InsertPoint.after(insert_after))
                primitives.append(insert_after := fused)
            callee = existing or fused
            self._replace_by_call(callee.sym_name.data, members, inputs, output, rewriter)

    @staticmethod
    def _replace_by_call(
        name: str, members: list[Operation], inputs: list[SSAValue], output: SSAValue, rewriter: PatternRewriter
    ) -> None:
        call = func.CallOp(name, inputs, [output.type])
        rewriter.insert(call, InsertPoint.before(members[-1]))
        call.res[0].name_hint = output.name_hint
        rewriter.replace_all_uses_with(output, call.res[0])
        for member in reversed(members):
            rewriter.erase(member)


@dataclass(frozen=True)
class FuseOpsPass(ModulePass):
    name = "fuse-ops"

    max_fused_ops: int = MAX_FUSED_OPS
    """TVM's relax.FuseOps.max_depth: the most ops one fused function holds."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # each graph function once: its fused calls are opaque to a second partition anyway
        PatternRewriteWalker(FuseGraphFunction(self.max_fused_ops), apply_recursively=False).rewrite_module(op)
