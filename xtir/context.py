"""The dialects xtir understands, for parsing outside `xtir-opt`."""

from xdsl.context import Context
from xdsl.universe import Universe

from xtir.dialects.accel import Accel
from xtir.dialects.block import Block_
from xtir.dialects.tensor import TensorUnion

XTIR_DIALECTS = {"block": lambda: Block_, "accel": lambda: Accel, "tensor": lambda: TensorUnion}


def register_dialects(ctx: Context) -> None:
    """Every upstream xDSL dialect plus ours; `tensor` is the union of both tensors."""
    for name, factory in Universe.get_multiverse().all_dialects.items():
        if name not in XTIR_DIALECTS:
            ctx.register_dialect(name, factory)
    for name, factory in XTIR_DIALECTS.items():
        ctx.register_dialect(name, factory)


def make_context() -> Context:
    ctx = Context()
    register_dialects(ctx)
    return ctx
