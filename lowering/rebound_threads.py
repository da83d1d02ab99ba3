"""Loops bound again to a thread axis inside a loop bound to it: lower-to-gpu's check.

On the GPU a loop bound to an axis inside a loop bound to that axis runs once, its iterations
the same threads as the outer loop's (the diagonal), where the loop nest run serially runs it
whole for every outer iteration. That is TVM's cooperative fetch (compute-at a copy under a
thread loop, then bind its loop to the thread again): the two agree only when running the inner
loop once equals running it for every outer iteration, in whichever of them. bind refuses such a
nest when the inner body uses the outer index or reduces (passes/bind.py,
`check_nested_same_tag`); this checks it again on the lowered kernel, which also holds IR bound
by hand and nests that later primitives changed. Refused, at the inner loop, naming both loops
and their tag, when:

1. the inner loop's body (an index, a stored value, a guard, a bound) depends on the outer
   loop's index: each outer iteration would run a different loop;
2. it stores into a buffer that it also reads (`X[t] += A[t]`: run N times is not run once, and
   the order of its iterations would matter); buffers allocated inside it are its own;
3. an access of the outer loop's body outside the inner loop writes a buffer that the inner loop
   touches, or comes before it (in program order) and reads a buffer that the inner loop writes:
   serially an earlier outer iteration's fetch is visible to it, on the GPU no fetch ran yet. Only
   reads after the inner loop of what it stored are left: the fetch then the tile's reads, which
   barriers order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from xdsl.dialects import memref, scf
from xdsl.ir import Operation, SSAValue

from xtir.dialects.walk import ancestors
from xtir.lowering.loops import loop_name
from xtir.lowering.virtual_threads import dependents
from xtir.support.errors import LoweringError
from xtir.support.locations import op_location

_NAME = "lower-to-gpu"

ACCESSES = (memref.LoadOp, memref.StoreOp)


def check_rebound_threads(loops: Mapping[str, list[scf.ForOp]]) -> None:
    """Each loop bound to a tag inside another loop bound to it, against every such outer loop."""
    for tag, bound in loops.items():
        for inner in bound:
            for outer in bound:
                if outer is not inner and outer.is_ancestor(inner):
                    _check_pair(tag, outer, inner)


def _check_pair(tag: str, outer: scf.ForOp, inner: scf.ForOp) -> None:
    _check_independent_of_outer(tag, outer, inner)
    own = {op.memref for op in inner.walk() if isinstance(op, memref.AllocaOp)}
    accesses = [op for op in inner.walk() if isinstance(op, ACCESSES) and op.memref not in own]
    written = {op.memref for op in accesses if isinstance(op, memref.StoreOp)}
    for op in accesses:
        if isinstance(op, memref.LoadOp) and op.memref in written:
            raise _refusal(
                tag,
                outer,
                inner,
                f"it stores into buffer {_buffer(op.memref)} and reads it too: run for "
                "every iteration of the outer loop it computes other values than run once",
                op,
                "the load is",
            )
    touched = {op.memref for op in accesses}
    before = True
    for op in _walk_outside(outer, inner):
        if op is inner:
            before = False
        elif isinstance(op, memref.StoreOp) and op.memref in touched:
            raise _refusal(
                tag,
                outer,
                inner,
                f"the body of the outer loop stores into buffer {_buffer(op.memref)}, "
                "which it touches: serially the outer loop's iterations see each other's stores there, on "
                "the GPU the inner loop runs once",
                op,
                "the store is",
            )
        elif isinstance(op, memref.LoadOp) and before and op.memref in written:
            raise _refusal(
                tag,
                outer,
                inner,
                f"the body of the outer loop reads buffer {_buffer(op.memref)} before "
                "it, which it stores into: serially a later outer iteration reads what an earlier one's "
                "inner loop stored, on the GPU none ran yet",
                op,
                "the load is",
            )


def _check_independent_of_outer(tag: str, outer: scf.ForOp, inner: scf.ForOp) -> None:
    """Rule 1, as bind's `check_nested_same_tag` (on the lowered IR, where a guard is an `scf.if`,
    maybe around the inner loop, and an index an arith op, maybe computed outside it)."""
    values = dependents(outer)
    guard = next((op for op in ancestors(inner, outer) if any(o in values for o in op.operands)), None)
    if guard is not None:
        raise _refusal(
            tag,
            outer,
            inner,
            "it runs under a condition on the index of the outer loop: the GPU runs "
            "it for the threads that meet it, the loop nest for every iteration of the outer loop that "
            "does",
            guard,
            f'the condition on "{loop_name(outer)}" is',
        )
    users = [op for op in inner.walk() if any(o in values for o in op.operands)]
    if users:
        # An op from the source (lowering makes some) and an access or a guard say the most.
        located = [op for op in users if op_location(op) is not None] or users
        at = next((op for op in located if isinstance(op, (*ACCESSES, scf.IfOp))), located[0])
        raise _refusal(
            tag,
            outer,
            inner,
            "its body depends on the index of the outer loop (in an index, a stored "
            "value or a guard): each outer iteration would run a different loop",
            at,
            f'the index of "{loop_name(outer)}" is used',
        )


def _walk_outside(outer: scf.ForOp, inner: scf.ForOp) -> Iterator[Operation]:
    """The ops in the outer loop's body in program order, the inner loop itself but none inside it."""
    for op in outer.body.walk():
        if op is inner or not inner.is_ancestor(op):
            yield op


def _buffer(value: SSAValue) -> str:
    return value.name_hint or "<unnamed>"


def _refusal(tag: str, outer: scf.ForOp, inner: scf.ForOp, why: str, at: Operation, what: str) -> LoweringError:
    message = (
        f'loop "{loop_name(inner)}" is bound to {tag} inside loop "{loop_name(outer)}", bound to {tag} too; on '
        f'the GPU it runs once, its iterations the threads of "{loop_name(outer)}", where the loop nest runs it '
        f'for every iteration of "{loop_name(outer)}", so it must give the same result however many times '
        f"and in whichever outer iteration it runs (a cooperative fetch), but {why}"
    )
    return LoweringError(inner, message, [(at, f"{what} here")], pass_name=_NAME)
