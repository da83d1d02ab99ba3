"""bind{loop=L thread=TAG}: map L onto a GPU thread axis (TVM's bind).

TAG is blockIdx.{x,y,z}, threadIdx.{x,y,z} or vthread.{x,y,z}. Every loop bound to
one tag in a kernel must have the same extent, since it is one hardware axis. A tag
may be bound twice along one nest only for cooperative fetching: the inner loop's
body must not use the outer loop's index nor reduce, because on the GPU the inner
loop runs only where its index equals the outer one.
"""

from dataclasses import dataclass

from xdsl.dialects import func

from xtir.dialects.block import REDUCE, THREAD_BINDING, THREAD_TAGS, BlockOp, ForOp
from xtir.dialects.walk import ancestors
from xtir.passes.analysis.navigation import all_loops, get_loop
from xtir.passes.loop_kind import check_independent, set_kind
from xtir.passes.schedule_pass import SchedulePass
from xtir.support.errors import ScheduleError


def kernel_root(loop: ForOp) -> ForOp:
    """The outermost thread-bound loop above `loop` (or `loop` itself): the kernel launch."""
    bound = [p for p in ancestors(loop, stop=func.FuncOp) if isinstance(p, ForOp) and p.kind == THREAD_BINDING]
    return bound[-1] if bound else loop


def check_nested_same_tag(loop: ForOp, outer: ForOp, inner: ForOp) -> None:
    """Nested loops on one thread axis run only their diagonal on the GPU (inner index = outer
    index); that equals the loop nest's meaning only when the inner body ignores the outer index
    and recomputing it is harmless (TVM's cooperative fetching)."""
    other = outer if loop is inner else inner
    bound = [(other, f'loop "{other.label}" is bound to {other.thread}')] if other.thread is not None else []
    use = next((use.operation for use in outer.var.uses if inner.is_ancestor(use.operation)), None)
    if use is not None:
        raise ScheduleError(loop, f'loop "{outer.label}" around "{inner.label}" is bound to {outer.thread} too, '
                                  f'and the body of "{inner.label}" uses its index; nested loops may share a thread '
                                  "axis only when the inner body does not depend on the outer one",
                            [*bound, (use, f'it uses the index of loop "{outer.label}"')])
    if any(isinstance(op, BlockOp) and REDUCE in (it.kind for it in op.iters()) for op in inner.walk()):
        raise ScheduleError(loop, f'loop "{outer.label}" around "{inner.label}" is bound to {outer.thread} too, '
                                  f'and a reduction under "{inner.label}" would run once per outer thread instead '
                                  "of once", bound)


def check_bind(loop: ForOp, thread: str) -> None:
    if thread not in THREAD_TAGS:
        raise ScheduleError(loop, f'unknown thread tag "{thread}"; expected one of {", ".join(THREAD_TAGS)}')
    check_independent(loop)
    for other in all_loops(loop.get_toplevel_object()):
        if other is loop or other.thread != thread:
            continue
        if other.is_ancestor(loop) or loop.is_ancestor(other):
            check_nested_same_tag(loop, *((other, loop) if other.is_ancestor(loop) else (loop, other)))
    root = kernel_root(loop)
    for other in all_loops(root):
        if other is not loop and other.thread == thread and other.extent != loop.extent:
            raise ScheduleError(
                loop,
                f'loop "{loop.label}" has extent {loop.extent} but loop "{other.label}" of the same kernel is '
                f"bound to {thread} with extent {other.extent}; one thread axis has one extent",
                [(other, f'loop "{other.label}" is bound to {thread} with extent {other.extent}')],
            )
    # Binding the kernel's outer loop joins the loops bound below it into one kernel.
    first: dict[str, ForOp] = {}
    for other in all_loops(root):
        if other is loop or other.thread is None:
            continue
        prev = first.setdefault(other.thread, other)
        if prev.extent != other.extent:
            raise ScheduleError(
                loop,
                f'binding loop "{loop.label}" makes one kernel of loops "{prev.label}" (extent {prev.extent}) and '
                f'"{other.label}" (extent {other.extent}), both bound to {other.thread}; one thread axis has one extent',
                [(lp, f'loop "{lp.label}" is bound to {lp.thread} with extent {lp.extent}') for lp in (prev, other)],
            )


@dataclass(frozen=True)
class BindPass(SchedulePass):
    name = "bind"

    loop: str
    thread: str

    def run(self, f: func.FuncOp) -> None:
        loop = get_loop(f, self.loop)
        check_bind(loop, self.thread)
        set_kind(loop, THREAD_BINDING, self.thread)
