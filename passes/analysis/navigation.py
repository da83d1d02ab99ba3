"""Finding loops and blocks by the names users schedule them by.

A handle that matches nothing or several things is an error that lists the
candidates. Loops that share a name are told apart by a block they enclose:
`BLOCK/LOOP` (e.g. `B_global.B_reg/ax0`).
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from xtir.dialects.block import BlockOp, ForOp
from xtir.dialects.symbols import functions, lookup_function
from xtir.dialects.walk import ancestors
from xtir.errors import LocatedText, XtirPassError
from xtir.support.errors import ScheduleError
from xtir.support.locations import format_op_error, op_location


def loops_around(op: Operation) -> list[ForOp]:
    """The loops around `op`, innermost first (across blocks, up to the function)."""
    return [p for p in ancestors(op) if isinstance(p, ForOp)]


def select_function(module: ModuleOp, name: str | None) -> func.FuncOp:
    """The function named `name`, or the only one when `name` is None."""
    funcs = functions(module)
    names = ", ".join(f.sym_name.data for f in funcs) or "none"
    if name is None:
        if len(funcs) != 1:
            raise _module_error(module, f"the module has {len(funcs)} functions ({names}); choose one with func=NAME")
        return funcs[0]
    if (f := lookup_function(module, name)) is not None:
        return f
    raise _module_error(module, f'no function named "{name}"; functions: {names}')


def _module_error(module: ModuleOp, message: str) -> XtirPassError:
    """An `error:` about the module as a whole, at its `builtin.module` line; an implicit module
    (a file of top-level functions) has no line, so the error has no location."""
    if op_location(module) is not None:
        return XtirPassError(format_op_error(module, message))
    return XtirPassError(LocatedText(f"error: {message}", message, None))


def all_blocks(root: Operation) -> list[BlockOp]:
    return [op for op in root.walk() if isinstance(op, BlockOp)]


def all_loops(root: Operation) -> list[ForOp]:
    return [op for op in root.walk() if isinstance(op, ForOp)]


def _listing(names: Iterable[str]) -> str:
    unique = list(dict.fromkeys(names))
    return ", ".join(unique) if unique else "none"


def _handle_error(root: Operation, message: str) -> ScheduleError:
    """A bad loop/block handle, reported at `root` (the function)."""
    if not all_blocks(root) and any(op.name.startswith("tensor.") for op in root.walk()):
        message += ("; this is a graph function (tensor ops), which has no loops or blocks until "
                    "legalize-tensor makes a block function of each operator")
    return ScheduleError(root, message)


def get_block(root: Operation, name: str) -> BlockOp:
    matches = [b for b in all_blocks(root) if b.label == name]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        message = f'no block named "{name}"; blocks: {_listing(b.label for b in all_blocks(root))}'
        if any(lp.label == name for lp in all_loops(root)):
            message += f' ("{name}" is a loop)'
        raise _handle_error(root, f"{message} (TVM: Cannot find a block with the name: {name})")
    raise _handle_error(root, f'block name "{name}" is ambiguous: {len(matches)} blocks have it '
                              f"(TVM: Found {len(matches)} blocks with the name: {name})")


def blocks_under(loop: Operation) -> list[BlockOp]:
    return [op for op in loop.walk() if isinstance(op, BlockOp)]


def get_loop(root: Operation, handle: str) -> ForOp:
    """A loop by name, or by `BLOCK/LOOP` when several loops share the name."""
    block_name, _, loop_name = handle.rpartition("/")
    loops = all_loops(root)
    matches = [lp for lp in loops if lp.label == loop_name]
    if block_name:
        matches = [lp for lp in matches if any(b.label == block_name for b in blocks_under(lp))]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise _handle_error(root, f'no loop named "{handle}"; loops: {_listing(lp.label for lp in loops)}')
    hints = [f"{blocks_under(lp)[0].label}/{loop_name}" for lp in matches if blocks_under(lp)]
    raise _handle_error(
        root, f'loop name "{handle}" is ambiguous: {len(matches)} loops have it; '
        f"name one by a block it encloses: {_listing(hints)}",
    )


def get_loops(block: BlockOp) -> list[ForOp]:
    """The loops above a block, outermost first (up to the function), like TVM's get_loops."""
    return [p for p in ancestors(block, stop=func.FuncOp | BlockOp) if isinstance(p, ForOp)][::-1]


def child_blocks(parent: Operation) -> list[BlockOp]:
    """Blocks directly under `parent` (a loop, a block or a function), not nested in other blocks."""
    result: list[BlockOp] = []
    for region in parent.regions:
        for block in region.blocks:
            for op in block.ops:
                if isinstance(op, BlockOp):
                    result.append(op)
                else:
                    result.extend(child_blocks(op))
    return result


def statement_text(op: Operation) -> str:
    """A statement, for messages: `block "B"`, `loop "i"`, or `a <name> op`."""
    if isinstance(op, BlockOp):
        return f'block "{op.label}"'
    if isinstance(op, ForOp):
        return f'loop "{op.label}"'
    return f"a {op.name} op"
