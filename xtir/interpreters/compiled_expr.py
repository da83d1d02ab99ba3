"""Index expressions compiled to Python functions, cached per op, for the interpreter."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from xdsl.ir import SSAValue

from xtir.dialects.expr import Div, Expr, Mod, Var


def _source(expr: Expr, names: dict[Var, str]) -> str:
    # No `0 +` or `1 *`: on the evaluator's index arrays each is an array operation
    parts = [str(expr.const)] if expr.const or not expr.terms else []
    for atom, coef in expr.terms:
        if isinstance(atom, Var):
            text = names[atom]
        else:
            op = "//" if isinstance(atom, Div) else "%"
            text = f"(({_source(atom.expr, names)}) {op} {atom.divisor})"
        parts.append(text if coef == 1 else f"{coef} * {text}")
    return " + ".join(parts)


def compile_exprs(exprs: Sequence[Expr], operands: Sequence[SSAValue]) -> Callable[..., tuple[int, ...]]:
    """A function of the operand values returning the tuple of expression values."""
    names = {Var(v): f"d{i}" for i, v in enumerate(operands)}
    assert all(isinstance(a, Mod | Div | Var) for e in exprs for a, _ in e.terms)
    body = ", ".join(_source(e, names) for e in exprs)
    return _compiled(f"lambda {', '.join(names.values())}: ({body}{',' if len(exprs) == 1 else ''})")


@functools.lru_cache(maxsize=4096)
def _compiled(source: str) -> Callable[..., tuple[int, ...]]:
    """Compiling costs ~50 µs, more than a small nest's steps; most indices repeat (`d0`, `d0 + 1`)."""
    return eval(source)  # noqa: S307 - generated from IR


class CompiledCache:
    """Compiled expressions per (op, purpose); the op is kept alive so its id stays unique."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, str], tuple[object, Callable[..., tuple[int, ...]]]] = {}

    def get(self, op: object, purpose: str, make: Callable[[], Callable[..., tuple[int, ...]]]):
        entry = self._entries.get((id(op), purpose))
        if entry is None or entry[0] is not op:
            entry = (op, make())
            self._entries[(id(op), purpose)] = entry
        return entry[1]
