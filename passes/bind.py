"""bind{loop=L thread=TAG}: map L onto a GPU thread axis (TVM's bind).

TAG is blockIdx.{x,y,z}, threadIdx.{x,y,z} or vthread.{x,y,z}. A tag may be bound
once along any nest (no loop bound to it above or below L), and every loop bound
to one tag in a kernel must have the same extent, since it is one hardware axis.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xtir.dialects.block import THREAD_BINDING, THREAD_TAGS, ForOp
from xtir.passes.analysis.navigation import all_loops, get_loop
from xtir.passes.loop_kind import check_independent, set_kind
from xtir.passes.utils import fail, target_function


def kernel_root(loop: ForOp) -> ForOp:
    """The outermost thread-bound loop above `loop` (or `loop` itself): the kernel launch."""
    root = loop
    parent = loop.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, ForOp) and parent.kind == THREAD_BINDING:
            root = parent
        parent = parent.parent_op()
    return root


def check_bind(pass_name: str, loop: ForOp, thread: str) -> None:
    if thread not in THREAD_TAGS:
        raise fail(pass_name, loop, f'unknown thread tag "{thread}"; expected one of {", ".join(THREAD_TAGS)}')
    check_independent(pass_name, loop)
    for other in all_loops(loop.get_toplevel_object()):
        if other is loop or other.thread != thread:
            continue
        if other.is_ancestor(loop) or loop.is_ancestor(other):
            raise fail(pass_name, loop, f'loop "{other.label}" in the same nest is already bound to {thread}')
    root = kernel_root(loop)
    for other in all_loops(root):
        if other is not loop and other.thread == thread and other.extent != loop.extent:
            raise fail(
                pass_name,
                loop,
                f'loop "{loop.label}" has extent {loop.extent} but loop "{other.label}" of the same kernel is '
                f"bound to {thread} with extent {other.extent}; one thread axis has one extent",
            )
    # Binding the kernel's outer loop joins the loops bound below it into one kernel.
    first: dict[str, ForOp] = {}
    for other in all_loops(root):
        if other is loop or other.thread is None:
            continue
        prev = first.setdefault(other.thread, other)
        if prev.extent != other.extent:
            raise fail(
                pass_name,
                loop,
                f'binding loop "{loop.label}" makes one kernel of loops "{prev.label}" (extent {prev.extent}) and '
                f'"{other.label}" (extent {other.extent}), both bound to {other.thread}; one thread axis has one extent',
            )


@dataclass(frozen=True)
class BindPass(ModulePass):
    name = "bind"

    loop: str
    thread: str
    func: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loop = get_loop(target_function(op, self.func), self.loop, self.name)
        check_bind(self.name, loop, self.thread)
        set_kind(loop, THREAD_BINDING, self.thread)
