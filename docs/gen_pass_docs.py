"""Generate docs/passes/<name>.md, one page per xtir pass, from the passes themselves.

Run: python docs/gen_pass_docs.py [--check]

Each page holds the pass's module and class docstrings, its options (the dataclass fields,
with types, defaults and the docstring under each field), the TVM primitive it mirrors
(read from the docstring), and an example: the first function of the pass's lit test
before and after the first invocation of the pass in its RUN line, produced by running it.
With --check nothing is written; the exit status is 1 when a page differs from what the
docstrings give now (tests/test_docs.py runs this).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import itertools
import re
import sys
from collections.abc import Iterator
from dataclasses import MISSING, fields, is_dataclass
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "passes"
LIT = ROOT / "tests" / "filecheck"
MAX_LINES = 60
NOT_OURS = {"dce"}  # xDSL's own pass, registered for graph pipelines


def passes() -> dict[str, type]:
    from xtir.passes_registry import XTIR_PASSES

    return {name: factory() for name, factory in XTIR_PASSES.items() if name not in NOT_OURS}


def field_docs(cls: type) -> dict[str, str]:
    """The string literal under each field of a dataclass (and its bases), as IDEs read them."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        try:
            tree = ast.parse(inspect.getsource(klass))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for stmt, after in zip(body, body[1:]):
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                    docs[stmt.target.id] = " ".join(str(after.value.value).split())
    return docs


def options(cls: type) -> list[str]:
    if not is_dataclass(cls):
        return []
    docs = field_docs(cls)
    rows = []
    for f in fields(cls):
        if f.name == "name" or not f.init:
            continue
        default = f.default if f.default is not MISSING else None
        required = f.default is MISSING and f.default_factory is MISSING  # type: ignore[misc]
        shown_type = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
        default_text = "required" if required else f"`{default!r}`" if default is not None else "none"
        rows.append(f"| `{f.name}` | `{shown_type}` | {default_text} | {docs.get(f.name, '')} |")
    return rows


def tvm_equivalent(text: str) -> str:
    found = re.findall(r"TVM's ([A-Za-z_.]+)", text)
    names = [n.rstrip(".") for n in found if "_" in n or n.islower()]
    return ", ".join(f"`{n}`" for n in dict.fromkeys(names)) or "none (xtir's own)"


def split_pipeline(pipeline: str) -> list[str]:
    """Top-level comma-separated passes of a `-p` pipeline (commas in braces or quotes stay)."""
    parts, depth, quoted, start = [], 0, False, 0
    for k, c in enumerate(pipeline):
        if c == '"':
            quoted = not quoted
        elif not quoted and c in "{}":
            depth += 1 if c == "{" else -1
        elif c == "," and depth == 0 and not quoted:
            parts.append(pipeline[start:k])
            start = k + 1
    return [*parts, pipeline[start:]]


def lit_example(name: str) -> tuple[Path, list[str], str, str] | None:
    """A lit test running `name`: its path, the passes before it, its invocation (with options)
    and the flags the command needs besides `-p` (`--split-input-file`)."""
    stem = name.replace("-", "_")
    candidates = [LIT / "passes" / f"{stem}.mlir", LIT / "lowering" / f"{stem}.mlir", *sorted(LIT.rglob("*.mlir"))]
    for path in candidates:
        if not path.exists() or "invalid" in path.name:
            continue
        for run in re.findall(r"^// RUN: xtir-opt %s (.*)$", path.read_text(), re.M):
            if "verify-diagnostics" in run:
                continue
            m = re.search(r"-p (?:'([^']*)'|\"([^\"]*)\"|(\S+))", run)
            if not m:
                continue
            pipeline = split_pipeline(next(g for g in m.groups() if g))
            for k, invocation in enumerate(pipeline):
                if invocation == name or invocation.startswith(name + "{"):
                    return path, pipeline[:k], invocation, " --split-input-file" * ("--split-input-file" in run)
    return None


def example(name: str) -> list[str]:
    import xtir
    from xtir.support.errors import XtirError

    found = lit_example(name)
    if found is None:
        return ["No lit test runs this pass; see the tests under `tests/filecheck/`."]
    path, prefix, invocation, flags = found
    source = path.read_text().split("// -----")[0]
    wanted = re.search(r"\bfunc=(\w+)", invocation)
    try:
        with _sites_numbered_per_page():
            module = xtir.parse(source, path.name)
            if prefix:
                module = xtir.transform(module, ",".join(prefix))
            after = xtir.transform(module, invocation)
    except XtirError as error:  # a lit test that needs --intrinsics or the like
        return [f"From `{path.relative_to(ROOT)}` (`-p '{invocation}'`); it does not run on its own here: {error}"]
    before_text = _function_text(module, wanted.group(1) if wanted else None)
    after_text = _function_text(after, wanted.group(1) if wanted else None)
    return [
        f"From `{path.relative_to(ROOT)}`:",
        "",
        "```sh",
        f"xtir-opt {path.relative_to(ROOT)} -p '{','.join([*prefix, invocation])}'{flags}",
        "```",
        "",
        f"Before (after `{','.join(prefix)}`):" if prefix else "Before:",
        "",
        "```mlir",
        before_text,
        "```",
        "",
        "After:",
        "",
        "```mlir",
        after_text,
        "```",
    ]


@contextlib.contextmanager
def _sites_numbered_per_page() -> Iterator[None]:
    """Number the run-time error sites of an example from 0: the channel numbers them per
    process (lowering/runtime_errors.py), and a page must read the same whatever ran before it
    (tests/test_docs.py checks the pages inside the test session). Nothing here runs the code."""
    from xtir.lowering import runtime_errors

    numbers = itertools.count()
    with mock.patch.object(runtime_errors, "register", lambda site: next(numbers)):
        yield


def _function_text(module, name: str | None) -> str:
    from xdsl.dialects import func

    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    chosen = next((f for f in functions if f.sym_name.data == name), functions[0] if functions else module)
    lines = str(chosen).splitlines()
    if len(lines) > MAX_LINES:  # lowered functions run to thousands of lines
        lines = [*lines[:MAX_LINES], f"// ... {len(lines) - MAX_LINES} more lines"]
    return "\n".join(lines)


def page(name: str, cls: type) -> str:
    module_doc = inspect.getdoc(sys.modules[cls.__module__]) or ""
    class_doc = inspect.getdoc(cls) or ""
    if class_doc.startswith(f"{cls.__name__}("):  # the signature dataclasses make up, not a docstring
        class_doc = ""
    docs = module_doc if class_doc in ("", module_doc) else f"{module_doc}\n\n{class_doc}"
    lines = [
        f"# `{name}`",
        "",
        f"<!-- Generated by docs/gen_pass_docs.py from {cls.__module__}.{cls.__name__}; do not edit. -->",
        "",
        docs.strip(),
        "",
        f"**TVM equivalent:** {tvm_equivalent(docs)}",
        "",
        "## Options",
        "",
    ]
    rows = options(cls)
    if rows:
        lines += ["| option | type | default | meaning |", "| --- | --- | --- | --- |", *rows]
    else:
        lines.append("None.")
    lines += ["", "## Example", "", *example(name), ""]
    return "\n".join(lines)


def index(names: list[str]) -> str:
    rows = [f"- [`{n}`]({n}.md)" for n in names]
    return "\n".join(["# Passes", "", "<!-- Generated by docs/gen_pass_docs.py; do not edit. -->", "", *rows, ""])


def expected_pages() -> dict[Path, str]:
    found = passes()
    pages = {PAGES / f"{name}.md": page(name, cls) for name, cls in found.items()}
    pages[PAGES / "README.md"] = index(list(found))
    return pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="report stale pages, write nothing")
    args = parser.parse_args()
    expected = expected_pages()
    stale = [p for p, text in expected.items() if not p.exists() or p.read_text() != text]
    extra = [p for p in PAGES.glob("*.md") if p not in expected] if PAGES.exists() else []
    if args.check:
        for p in stale + extra:
            print(f"{p.relative_to(ROOT)} is out of date: run python docs/gen_pass_docs.py", file=sys.stderr)
        return 1 if stale or extra else 0
    PAGES.mkdir(parents=True, exist_ok=True)
    for p in extra:
        p.unlink()
    for p, text in expected.items():
        p.write_text(text)
    print(f"wrote {len(expected)} pages under {PAGES.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
