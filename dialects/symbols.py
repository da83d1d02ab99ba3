"""Functions of a module by name, through xDSL's SymbolTable.

Here, below the analyses, because the evaluator (in the IR layer) looks functions up as
the schedule passes do (`xtir.passes.analysis.navigation.select_function`).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.traits import SymbolTable


def functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp)]


def lookup_function(module: ModuleOp, name: str) -> func.FuncOp | None:
    """The func.func named `name` in `module`'s symbol table (xDSL's SymbolTable), or None."""
    found = SymbolTable.lookup_symbol(module, name)
    return found if isinstance(found, func.FuncOp) else None
