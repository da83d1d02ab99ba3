"""tensorize{block=B intrin=NAME} or tensorize{loop=L intrin=NAME}: compute a block with a
tensor intrinsic (TVM's tensorize).

B's body must compute what the intrinsic's description computes (see
passes/analysis/intrin_match.py); it is replaced by the intrinsic's implementation on
the matched buffer regions, e.g. the seed's `matmul_o_update` becomes one
`accel.tmm16` on its 16x16 tiles. With loop=L, the subtree at L is first blockized
(its new block is `X_o`), as TVM does. When the body does not match, nothing changes
and the message says what differs: which loop, extent, iteration variable, index,
element type or scope, and what the intrinsic expects instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Operation

from xtir import intrinsics
from xtir.dialects.block import BlockOp, ForOp
from xtir.passes.analysis.intrin_match import Binding, Mismatch, match
from xtir.passes.analysis.navigation import get_block, get_loop
from xtir.passes.blockize import blockize
from xtir.passes.loop_kind import StatementPrimitive
from xtir.passes.transforms.instantiate import instantiate
from xtir.passes.utils import function_of
from xtir.support.errors import ScheduleError


def _lookup(at: Operation, name: str) -> intrinsics.TensorIntrin:
    if not intrinsics.is_registered(name):
        raise ScheduleError(at, intrinsics.unknown_message(name))
    return intrinsics.get(name)


def _binding(at: Operation, what: str, block: BlockOp, intrin: intrinsics.TensorIntrin) -> Binding:
    try:
        return match(block, intrin)
    except Mismatch as e:
        notes = [(e.at, "it differs from the intrinsic here")] if e.at is not None and e.at is not at else []
        raise ScheduleError(at, f'{what} does not match tensor intrinsic "{intrin.name}": {e}', notes) from None


def tensorize(block: BlockOp, intrin_name: str) -> BlockOp:
    """Replace `block`'s body by the implementation of intrinsic `intrin_name`; return the block."""
    intrin = _lookup(block, intrin_name)
    instantiate(block, intrin, _binding(block, f'block "{block.label}"', block, intrin))
    return block


def tensorize_loop(loop: ForOp, intrin_name: str) -> BlockOp:
    """Blockize `loop` and tensorize the new block; return it."""
    intrin = _lookup(loop, intrin_name)
    # Try on a copy first: a mismatch must leave the IR as it was, not blockized.
    f = function_of(loop)
    probe_loop = list(f.clone().walk())[list(f.walk()).index(loop)]
    assert isinstance(probe_loop, ForOp)
    probe = blockize(probe_loop)
    _binding(loop, f'loop "{loop.label}" (blockized as "{probe.label}")', probe, intrin)
    block = blockize(loop)
    instantiate(block, intrin, match(block, intrin))
    return block


@dataclass(frozen=True, kw_only=True)
class TensorizePass(StatementPrimitive):
    name = "tensorize"

    block: str | None = None
    loop: str | None = None
    intrin: str

    def run(self, f: func.FuncOp) -> None:
        if self.block is not None and self.loop is not None:
            raise ScheduleError(f, "got both block= and loop=; give one")
        if self.block is not None:
            tensorize(get_block(f, self.block), self.intrin)
        elif self.loop is not None:
            tensorize_loop(get_loop(f, self.loop), self.intrin)
        else:
            raise ScheduleError(f, "got neither block= nor loop=; give one")
