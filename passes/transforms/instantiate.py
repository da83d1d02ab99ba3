"""Putting an intrinsic's implementation in place of a matched block's body (tensorize)."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from xtir.dialects.accel import RegionOp
from xtir.dialects.block import BlockOp, LoadOp, StoreOp
from xtir.intrinsics import TensorIntrin
from xtir.passes.analysis.intrin_match import Binding
from xtir.passes.transforms.rewrite import reindex
from xtir.passes.utils import fresh_name, function_of


def instantiate(block: BlockOp, intrin: TensorIntrin, binding: Binding) -> None:
    """Replace `block`'s body by the implementation on the bound buffer regions."""
    args = dict(zip(intrin.impl.body.block.args, intrin.desc.body.block.args))
    for op in reversed(list(block.body.block.ops)):
        Rewriter.erase_op(op)
    values: dict[SSAValue, SSAValue] = {impl: binding.buffers[desc] for impl, desc in args.items()
                                        if desc in binding.buffers}
    for op in intrin.impl.body.block.ops:
        if isinstance(op, func.ReturnOp):
            continue
        if isinstance(op, RegionOp):
            new: Operation = type(op)(*[
                (values[buf], [o + off for o, off in zip(offs, binding.offsets[args[buf]])], sizes)
                for buf, offs, sizes in op.regions_()
            ])
        else:
            new = op.clone(value_mapper=values)
            values.update(zip(op.results, new.results))
        block.body.block.add_op(new)
        _offset_accesses(op, new, args, binding)
        _rename_blocks(new)


def _rename_blocks(copy: Operation) -> None:
    """Blocks of an implementation get fresh names, so that block handles stay unique."""
    root = function_of(copy)
    for op in copy.walk():
        if isinstance(op, BlockOp):
            taken = {b.label for b in root.walk() if isinstance(b, BlockOp) and b is not op}
            op.properties["name"] = StringAttr(fresh_name(root, op.label, taken))


def _offset_accesses(original: Operation, copy: Operation, args: dict[SSAValue, SSAValue],
                     binding: Binding) -> None:
    """Loads and stores of an implementation written in the block dialect index their argument
    from 0; in the copy they index the bound region, so add its offsets."""
    for old, new in list(zip(original.walk(), copy.walk())):
        if isinstance(old, LoadOp | StoreOp) and old.buffer in args:
            offsets = binding.offsets[args[old.buffer]]
            reindex(new, [i + o for i, o in zip(new.indices(), offsets)])
