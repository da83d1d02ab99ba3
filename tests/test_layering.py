"""Imports flow one way: each xtir module imports only modules of its own layer or below.

The layers, bottom first (docs/architecture.md, "Layers"). Every import counts, also one
inside a function or under TYPE_CHECKING: a lazy import that goes upwards is still a cycle
in the design.
"""

from __future__ import annotations

import ast
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = {"xtir": ROOT / "xtir", "xtir.dialects": ROOT / "dialects", "xtir.passes": ROOT / "passes",
                "xtir.lowering": ROOT / "lowering"}

LAYERS: list[tuple[str, list[str]]] = [
    ("support", ["xtir.support", "xtir.errors"]),
    ("dialects", ["xtir.dialects"]),
    # parsing, verification, the tensor-intrinsic registry, the reference interpreters
    ("ir", ["xtir.context", "xtir.diagnostics", "xtir.dominance", "xtir.source_limits", "xtir.intrinsics",
            "xtir.interpreters", "xtir.evaluate",
            # the tensor-expression builder and the operators written with it construct IR
            # from the dialects alone (legalize-tensor uses them)
            "xtir.te", "xtir.te_emit", "xtir.topi"]),
    # read-only queries and the helpers passes share; index_expr and loops read lowered IR for
    # the dependence analysis (lowering/ holds them because lowering writes that IR)
    ("analysis", ["xtir.passes.analysis", "xtir.passes.utils", "xtir.lowering.index_expr", "xtir.lowering.loops"]),
    # IR-mutating helpers the primitives share (cache builders, move_under, Rewriter surgery);
    # they may ask analyses, and no analysis may use them
    ("transforms", ["xtir.passes.transforms"]),
    ("lowering", ["xtir.lowering"]),
    ("passes", ["xtir.passes"]),
    ("driver", ["xtir.passes_registry", "xtir.pipeline"]),
    # default-schedule is a schedule policy written with the Schedule API (as the tuner's search
    # spaces will be), so it sits above the driver although it is registered as a pass
    # (default-gpu-schedule also checks its kernels lower, through xtir.build)
    ("front door", ["xtir", "xtir.passes.default_schedule",  # xtir/__init__, schedule, build, opt, run, translate, verify_*
                    "xtir.passes.default_gpu_schedule"]),
]


def layer_of(module: str) -> int:
    """The index of the layer of `module`: that of its longest listed prefix."""
    best, rank = -1, None
    for k, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), k
    assert rank is not None, module
    return rank


def modules() -> list[tuple[str, Path]]:
    """Every xtir module with its file (subfolders are subpackages: passes/analysis, xtir/support)."""
    found = []
    for package, directory in PACKAGE_DIRS.items():
        for path in sorted(directory.rglob("*.py")):
            parts = path.relative_to(directory).with_suffix("").parts
            found.append((".".join((package, *parts)).removesuffix(".__init__"), path))
    return found


def imported(module: str, source: str) -> list[str]:
    """The xtir modules `source` imports (`from xtir import intrinsics` is xtir.intrinsics)."""
    package = module if module.endswith("__init__") else module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                names.append(full if base.startswith("xtir") and find_spec(base) and _is_module(full) else base)
    return [n for n in names if n == "xtir" or n.startswith("xtir.")]


def _is_module(name: str) -> bool:
    try:
        return find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def violations(module: str, source: str) -> list[str]:
    own = layer_of(module)
    return [f"{module} ({LAYERS[own][0]}) imports {name} ({LAYERS[layer_of(name)][0]})"
            for name in imported(module, source) if layer_of(name) > own]


def test_imports_flow_down() -> None:
    found = [v for name, path in modules() for v in violations(name, path.read_text())]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("module, source", [
    ("xtir.dialects.block", "from xtir.schedule import Schedule"),
    ("xtir.dialects.block", "import xtir.build"),
    ("xtir.passes.analysis.regions", "from xtir import parse"),  # the front door itself
    ("xtir.passes.analysis.regions", "def f():\n    from xtir.passes.split import SplitPass"),
    ("xtir.support.errors", "from xtir.diagnostics import verify"),
    ("xtir.passes.analysis.cache", "from xtir.passes.transforms.cache import alloc_cache"),
])
def test_an_upward_import_is_caught(module: str, source: str) -> None:
    assert violations(module, source)


def test_intrinsics_import_is_a_module_not_the_front_door() -> None:
    assert imported("xtir.passes.tensorize", "from xtir import intrinsics") == ["xtir.intrinsics"]
    assert not violations("xtir.passes.tensorize", "from xtir import intrinsics")


def test_importing_a_dialect_loads_no_schedule_build_or_evaluator() -> None:
    import subprocess
    import sys

    code = "import sys, xtir.dialects.block; print(' '.join(m for m in sys.modules if m.startswith('xtir')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    above = [m for m in loaded if m != "xtir" and layer_of(m) > layer_of("xtir.dialects")]
    assert not above, above


def test_front_door_names_stay_functions_after_their_modules_load() -> None:
    """xtir.build and xtir.evaluate are functions and modules of the same name: loading the
    module after the lazy front door (lowering/jit.py imports xtir.evaluate) must not make
    `xtir.evaluate(...)` call a module."""
    import subprocess
    import sys

    code = ("import xtir, xtir.lowering.jit, xtir.build, xtir.evaluate; "
            "assert callable(xtir.evaluate) and callable(xtir.build), (xtir.evaluate, xtir.build); "
            "from xtir.build import lower_to_llvm")
    subprocess.run([sys.executable, "-c", code], check=True)
