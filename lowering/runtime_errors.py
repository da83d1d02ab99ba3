"""The run-time error channel: compiled code reports what it must not do, the call raises it.

Code that would do something undefined (an access out of range under `bounds_check`, an
integer division by zero, an over-wide shift, a scratch buffer the heap could not give)
skips it and calls `xtir_runtime_error(site, x, y)` instead: a function of this process (a
ctypes callback LLVM links against) that records the first report of each site. A site is
registered at lowering time (`register`) and says what the code was and how to read `x`
and `y` (`Site.message`; it may find the values harmless: a bounds check reports each
dimension, in range or not). A built function whose code calls the symbol is wrapped in
`Checked`, which raises the earliest report of its own sites as an XtirEvaluationError
after the call returns (calls of one such function run one at a time: a report names its
site, not its call).

At the func level the calls are `func.call @xtir_runtime_error(...) {xtir.runtime_error}`
on index values, with a declaration marked the same way; convert-to-llvm lowers them like
any call. The name is reserved: they are made before mangle-symbols gives the module's own
functions their `xtir.` symbols, so a function of the module with that name would take them.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, ModuleOp, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolTable

from xtir.errors import LoweringError, XtirEvaluationError

SYMBOL = "xtir_runtime_error"
CALL_ATTR = "xtir.runtime_error"
"""Marks the calls of SYMBOL and its declaration (lower-blocks lets them through)."""


class Site(ABC):
    """Code that may report an error: `message` says what a report `(x, y)` means, or None
    when the values are no error after all."""

    @abstractmethod
    def message(self, x: int, y: int) -> str | None: ...


_LOCK = threading.Lock()
_SITES: list[Site] = []
_ERRORS: dict[int, tuple[int, str]] = {}  # site -> (order, message) of its first error
_ORDER = itertools.count()


def register(site: Site) -> int:
    """The number of a new site (the first argument of its reports)."""
    with _LOCK:
        _SITES.append(site)
        return len(_SITES) - 1


def _report(site: int, x: int, y: int) -> None:
    with _LOCK:
        if site in _ERRORS or not 0 <= site < len(_SITES):
            return
        message = _SITES[site].message(x, y)
        if message is not None:
            _ERRORS[site] = (next(_ORDER), message)


_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)(_report)


@functools.cache
def install() -> None:
    import llvmlite.binding as llvm

    llvm.add_symbol(SYMBOL, ctypes.cast(_CALLBACK, ctypes.c_void_p).value)


def check_reserved(module: ModuleOp) -> None:
    """Refuse a function of `module` named SYMBOL other than the channel's declaration."""
    _refuse_user_function(SymbolTable.lookup_symbol(module, SYMBOL))


def _refuse_user_function(found: Operation | None) -> None:
    if isinstance(found, func.FuncOp) and CALL_ATTR not in found.attributes:
        raise LoweringError(found, f'function name "{SYMBOL}" is reserved: compiled code reports run-time errors '
                            "by calling the function of that name; rename the function")


def declare(module: ModuleOp) -> None:
    """The declaration of SYMBOL in `module` (func level), once; and the symbol known to LLVM."""
    install()
    found = SymbolTable.lookup_symbol(module, SYMBOL)
    _refuse_user_function(found)
    if found is None:
        decl = func.FuncOp.external(SYMBOL, [IndexType()] * 3, [])
        decl.attributes[CALL_ATTR] = UnitAttr()
        module.body.block.add_op(decl)


def report_call(site: SSAValue, x: SSAValue, y: SSAValue) -> func.CallOp:
    """A call reporting `(x, y)` at `site` (index values); `declare` the symbol in its module."""
    call = func.CallOp(SYMBOL, [site, x, y], [])
    call.attributes[CALL_ATTR] = UnitAttr()
    return call


def sites_called(llvm_ir: str) -> list[int]:
    """The sites LLVM IR reports (their numbers are constants of its calls of SYMBOL)."""
    install()
    return sorted({int(s) for s in re.findall(rf'@"?{SYMBOL}"?\(i64 (\d+)', llvm_ir)})


class Checked:
    """A built function whose code reports errors: calling it raises the earliest one its sites
    recorded (XtirEvaluationError) after the call. Other attributes are the built function's.

    Reports name a site, not a call (the code's parallel loops report from worker threads), so
    calls run one at a time: concurrent calls took each other's reports, and one that divided by
    zero returned normally, its quotients computed by 1."""

    def __init__(self, function: Any, sites: list[int]):
        self.function = function
        self.sites = sites  # read off its code: other builds register sites meanwhile
        self._one_call = threading.Lock()

    def __call__(self, *arrays: Any) -> None:
        self.checking(lambda: self.function(*arrays))

    def checking(self, call: Callable[[], Any]) -> None:
        """Run `call`, a call of this function's code by another way in (xtir.model calls its
        address), and raise the earliest error its sites recorded."""
        with self._one_call:
            self._take()
            call()
            error = self._take()
        if error is not None:
            raise XtirEvaluationError(error)

    def _take(self) -> str | None:
        """The first error recorded for these sites (and forget them all)."""
        with _LOCK:
            found = sorted(_ERRORS.pop(s) for s in self.sites if s in _ERRORS)
        return found[0][1] if found else None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.function, name)

    def __repr__(self) -> str:
        return repr(self.function)
