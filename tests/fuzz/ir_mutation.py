"""Malformed-input fuzzing of `xtir-opt`: mutated example IR must end in exit 0 or 1.

`mutate(text, r)` applies one to three random mutations to IR text: delete, duplicate,
swap or insert tokens and lines, truncate, change element types, integer literals
(zero, negative, huge, past int32 / int64), float literals (past f16 / f32 / f64, hexadecimal),
names (spaces, `/`, pipeline punctuation, non-ASCII) and shapes, rename ops and SSA values,
unbalance braces, insert garbage bytes (NUL, control characters, invalid UTF-8).
`deep_nest(n)` writes n nested loops, `run_opt(data, args)` runs `xtir-opt` in process
(xtir.opt.main, output captured, a time limit) and `run_opt_subprocess` as a user runs it.

`check(outcome)` is the contract of the issue: exit 0, or exit 1 with an `error:`
diagnostic; never exit 2 (internal error), never a Python traceback, never a hang.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz.schedules import CaseTimeout, time_limit

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
XTIR_OPT = Path(sys.executable).parent / "xtir-opt"


def seed_texts() -> dict[str, str]:
    """The example programs (and the fuzz conv2d), small ones as they are."""
    texts = {p.name: p.read_text() for p in sorted(EXAMPLES.glob("*.mlir"))}
    conv = Path(__file__).resolve().parent / "programs" / "conv2d.mlir"
    texts[conv.name] = conv.read_text()
    return texts


# Tokens: strings, comments, SSA/symbol names, numbers, identifiers, punctuation, whitespace.
_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[%@^#!][\w.$-]*|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_][\w.$]*|->|\s+|.',
    re.S,
)

TYPES = ("f32", "f64", "f16", "bf16", "i1", "i8", "i32", "i64", "index", "none", "vector<4xf32>", "tensor<4xf32>",
         "memref<?xf32>", "memref<4xf32>", "memref<f32>", "complex<f32>", "!llvm.ptr", "i0", "f80", "tuple<>")
INTEGERS = ("0", "-1", "-7", "1", "3", "2147483647", "2147483648", "4294967297", "9223372036854775807",
            "9223372036854775808", "18446744073709551616", "100000000000000000000000000000", "70000", "1e9", "0x10",
            "00", "1.5")
IDENTS = ("block.for", "block.block", "block.load", "block.store", "block.init", "block.alloc", "func.func",
          "func.return", "arith.addf", "arith.mulf", "arith.constant", "spatial", "reduce", "to", "where", "parallel",
          "vectorized", "unrolled", "annotations", "scf.for", "memref.load", "builtin.module", "accel.tmm16",
          "accel.dma_copy", "accel.fill_zero", "floordiv", "mod", "thread_binding", "ceildiv")
PUNCT = ("{", "}", "(", ")", "[", "]", "<", ">", ",", ":", "=", "*", "+", "-", "%", "@", "\"", "x", "?", "->", "//")
NAMES = ("i j", "i/j", "a{b}", "a}b", "a,b", "a=b", r"a\22b", "\u00fc", r"\C3\BC", "", "$", "_0", "1", "i_0_1", "%i",
         "x/y/z", r"a\\b", r"a\nb", "global.A_reg")
FLOATS = ("1.0e10", "-1.0e10", "65520.0", "65504.0", "1.0e39", "1.0e400", "-1.0e400", "0x7C00", "0x1FFFF", "-0x1",
          "0.0", "-0.0", "1.0e-50", "3.4028234e38", "100000", "0x7FC00000", "1.0e308")
GARBAGE = (b"\x00", b"\xff\xfe", b"\x80", b"\xc3\x28", b"\x1b[31m", b"\r", b"\t\t", "\u00e9".encode(), "\u2028".encode(),
           "\U0001f600".encode(), b"\\", b"'", b"\x7f")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _non_space(toks: list[str]) -> list[int]:
    return [k for k, t in enumerate(toks) if not t.isspace()]


def _replace_matching(text: str, pattern: str, choices: Sequence[str], r: random.Random) -> str:
    matches = list(re.finditer(pattern, text))
    if not matches:
        return text
    m = r.choice(matches)
    return text[: m.start()] + r.choice(choices) + text[m.end() :]


Mutation = Callable[[str, random.Random], str | bytes]


def delete_token(text: str, r: random.Random) -> str:
    toks = tokens(text)
    idx = _non_space(toks)
    if idx:
        del toks[r.choice(idx)]
    return "".join(toks)


def duplicate_token(text: str, r: random.Random) -> str:
    toks = tokens(text)
    idx = _non_space(toks)
    if idx:
        k = r.choice(idx)
        toks.insert(k, toks[k] + r.choice(("", " ")))
    return "".join(toks)


def swap_tokens(text: str, r: random.Random) -> str:
    toks = tokens(text)
    idx = _non_space(toks)
    if len(idx) >= 2:
        a, b = r.sample(idx, 2)
        toks[a], toks[b] = toks[b], toks[a]
    return "".join(toks)


def insert_token(text: str, r: random.Random) -> str:
    toks = tokens(text)
    k = r.randrange(len(toks) + 1)
    toks.insert(k, r.choice((r.choice(IDENTS), r.choice(PUNCT), r.choice(TYPES), r.choice(INTEGERS))))
    return "".join(toks)


def truncate(text: str, r: random.Random) -> str:
    return text[: r.randrange(len(text) + 1)]


def change_type(text: str, r: random.Random) -> str:
    return _replace_matching(text, r"\b(?:f32|f64|index|i32|i64)\b", TYPES, r)


def change_integer(text: str, r: random.Random) -> str:
    return _replace_matching(text, r"(?<![\w.%@#^$-])\d+(?![\w.])", INTEGERS, r)


def change_name(text: str, r: random.Random) -> str:
    """A loop, block or scope name (any string literal) becomes an odd one: spaces, the `/` of
    handles, the `{ } , =` of pipelines, quotes, non-ASCII, `_<digits>` endings."""
    return _replace_matching(text, r'"(?:[^"\\\n]|\\.)*"', [f'"{n}"' for n in NAMES], r)


def change_float(text: str, r: random.Random) -> str:
    """A float literal becomes one at or past the edges of the float types (or hexadecimal bits)."""
    return _replace_matching(text, r"(?<![\w.])-?\d+\.\d+(?:[eE][+-]?\d+)?", FLOATS, r)


def change_shape(text: str, r: random.Random) -> str:
    shapes = ("?x", "0x", "", "1x1x1x1x", "2147483648x", "70000x70000x", "-1x", "4x?x", "9223372036854775807x")
    return _replace_matching(text, r"(?<=memref<)(?:\d+x)+", shapes, r)


def rename_op(text: str, r: random.Random) -> str:
    return _replace_matching(text, r"\b(?:block|arith|func|accel|scf)\.\w+|\b(?:spatial|reduce)\b", IDENTS, r)


def rename_value(text: str, r: random.Random) -> str:
    names = sorted(set(re.findall(r"%[\w.$-]+", text)) | {"%undefined", "%0"})
    return _replace_matching(text, r"%[\w.$-]+", names, r)


def unbalance(text: str, r: random.Random) -> str:
    return _replace_matching(text, r"[{}()\[\]<>]", ("", "{", "}", "((", ")", "]", "<", ">>"), r)


def delete_line(text: str, r: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    if lines:
        del lines[r.randrange(len(lines))]
    return "".join(lines)


def duplicate_line(text: str, r: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    if lines:
        k = r.randrange(len(lines))
        lines.insert(r.randrange(len(lines) + 1), lines[k])
    return "".join(lines)


def swap_lines(text: str, r: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    if len(lines) >= 2:
        a, b = r.sample(range(len(lines)), 2)
        lines[a], lines[b] = lines[b], lines[a]
    return "".join(lines)


def garbage_bytes(text: str, r: random.Random) -> bytes:
    data = text.encode()
    k = r.randrange(len(data) + 1)
    junk = b"".join(r.choice(GARBAGE) for _ in range(r.randint(1, 3))) if r.random() < 0.7 else r.randbytes(r.randint(1, 16))
    return data[:k] + junk + data[k:]


MUTATIONS: dict[str, Mutation] = {
    "delete_token": delete_token,
    "duplicate_token": duplicate_token,
    "swap_tokens": swap_tokens,
    "insert_token": insert_token,
    "truncate": truncate,
    "change_type": change_type,
    "change_integer": change_integer,
    "change_float": change_float,
    "change_name": change_name,
    "change_shape": change_shape,
    "rename_op": rename_op,
    "rename_value": rename_value,
    "unbalance": unbalance,
    "delete_line": delete_line,
    "duplicate_line": duplicate_line,
    "swap_lines": swap_lines,
    "garbage_bytes": garbage_bytes,
}


def mutate(text: str, r: random.Random) -> tuple[bytes, list[str]]:
    """One to three random mutations; the bytes to feed xtir-opt and the mutations' names."""
    names = [r.choice(list(MUTATIONS)) for _ in range(r.choice((1, 1, 1, 2, 3)))]
    data: str | bytes = text
    for name in names:
        if isinstance(data, bytes):
            data = data.decode("utf-8", errors="replace")
        data = MUTATIONS[name](data, r)
    return (data if isinstance(data, bytes) else data.encode()), names


# Generated inputs ------------------------------------------------------------------------------


def deep_nest(levels: int, kind: str = "loops") -> str:
    """`levels` nested block.for loops of extent 1 around one block (or nested blocks, or regions)."""
    if kind == "loops":
        head = "".join(f'{"  " * k}block.for %i{k} = 0 to 1 "i{k}" {{\n' for k in range(levels))
        body = (
            '  block.block "B"(%vi = spatial(4, %i0 * 4)) {\n'
            "    %a = block.load %A[%vi] : memref<4xf32>\n"
            "    block.store %a, %A[%vi] : memref<4xf32>\n"
            "  }\n"
        )
        return f"func.func @main(%A: memref<4xf32>) {{\n{head}{body}{'}' * levels}\nfunc.return\n}}\n"
    if kind == "blocks":
        head = "".join(f'block.block "b{k}"() {{\n' for k in range(levels))
        return f"func.func @main(%A: memref<4xf32>) {{\n{head}{'}' * levels}\nfunc.return\n}}\n"
    if kind == "expr":  # a deeply nested index expression
        expr = "%vi"
        for _ in range(levels):
            expr = f"({expr} + 0)"
        return (
            'func.func @main(%A: memref<4xf32>) {\n block.for %i = 0 to 4 "i" {\n'
            '  block.block "B"(%vi = spatial(4, %i)) {\n'
            f"   %a = block.load %A[{expr}] : memref<4xf32>\n"
            "   block.store %a, %A[%vi] : memref<4xf32>\n  }\n }\n func.return\n}\n"
        )
    if kind == "braces":
        return "{" * levels + "}" * levels
    raise ValueError(kind)


# Inputs that hung xtir-opt: xDSL's string-literal regex backtracks exponentially ----------------------

# xdsl/utils/mlir_lexer.py lexes strings with r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"': a
# nested quantifier, so an unterminated literal followed by n plain characters on its line took
# O(2^n) time (24 characters: 0.5 s, 30: 33 s, 40: hours). xtir now lexes strings with a possessive
# pattern (xtir/source_limits.py); `hits_string_backtracking` tells which inputs would have hung.
_STRING_BODY = re.compile(r'(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*')
_QUOTE_OR_COMMENT = re.compile(r'"|//')
STRING_BACKTRACKING_RUN = 20


def unterminated_string_run(data: bytes | str) -> int:
    """The longest run of string characters after a `"` that is not closed, scanning as the lexer
    does (comments and closed strings skipped); 0 when every literal is closed."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    worst, pos = 0, 0
    while (m := _QUOTE_OR_COMMENT.search(text, pos)) is not None:
        if m.group(0) == "//":
            newline = text.find("\n", m.end())
            pos = len(text) if newline < 0 else newline + 1
            continue
        body = _STRING_BODY.match(text, m.end())
        end = body.end() if body else m.end()
        if end < len(text) and text[end] == '"':
            pos = end + 1
        else:
            worst = max(worst, end - m.end())
            pos = m.end()
    return worst


def hits_string_backtracking(data: bytes | str) -> bool:
    return unterminated_string_run(data) >= STRING_BACKTRACKING_RUN


# Running xtir-opt -------------------------------------------------------------------------------


@dataclass
class Outcome:
    code: int | None  # None: timed out
    stdout: str
    stderr: str
    seconds: float


def run_opt(data: bytes, args: Sequence[str] = (), timeout: float | None = 20.0, suffix: str = ".mlir",
            tool: str = "xtir-opt") -> Outcome:
    """xtir.opt.main (or xtir.run.main: `tool="xtir-run"`) on `data` (written to a temporary
    file), in this process, output captured."""
    if tool == "xtir-run":
        from xtir.run import main
    else:
        from xtir.opt import main

    with tempfile.NamedTemporaryFile("wb", suffix=suffix, delete=False) as f:
        f.write(data)
        path = f.name
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    code: int | None
    try:
        with time_limit(timeout), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([path, *args])
            except SystemExit as e:  # argparse
                code = e.code if isinstance(e.code, int) else 2
            except CaseTimeout:
                raise
            except BaseException as e:  # escaped main: as a user would see it, a traceback
                import traceback

                traceback.print_exc()
                code = 3 if isinstance(e, Exception) else 4
    except CaseTimeout:
        code = None
    finally:
        os.unlink(path)
    return Outcome(code, out.getvalue(), err.getvalue(), time.perf_counter() - start)


def run_opt_subprocess(data: bytes, args: Sequence[str] = (), timeout: float = 60.0) -> Outcome:
    """The installed `xtir-opt` in a child process, the input on a temporary file."""
    with tempfile.NamedTemporaryFile("wb", suffix=".mlir", delete=False) as f:
        f.write(data)
        path = f.name
    start = time.perf_counter()
    try:
        p = subprocess.run([str(XTIR_OPT), path, *args], capture_output=True, timeout=timeout)
        return Outcome(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"),
                       time.perf_counter() - start)
    except subprocess.TimeoutExpired as e:
        return Outcome(None, (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace"),
                       time.perf_counter() - start)
    finally:
        os.unlink(path)


def check(outcome: Outcome) -> str | None:
    """Why the outcome breaks the contract, or None."""
    text = outcome.stdout + outcome.stderr
    if outcome.code is None:
        return f"no result after {outcome.seconds:.0f} s (hang)"
    if "Traceback (most recent call last)" in text:
        return f"exit {outcome.code} with a Python traceback"
    if outcome.code == 2 or "internal error" in outcome.stderr:
        return f"exit {outcome.code}: internal error"
    if outcome.code not in (0, 1):
        return f"exit {outcome.code}"
    if outcome.code == 1 and "error" not in outcome.stderr:
        return "exit 1 without a diagnostic on stderr"
    return None


def check_parse_api(data: bytes, timeout: float = 20.0) -> str | None:
    """Why `xtir.parse` on the text breaks the API's contract (it raises only XtirError), or
    None. xtir-opt turns a stray ValueError into an unlocated `error:`; the API must not."""
    import xtir

    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None  # xtir.parse takes str; xtir-opt decodes
    try:
        with time_limit(timeout):
            xtir.parse(text, "input.mlir")
    except (xtir.XtirError, CaseTimeout):  # a hang is run_opt's to report
        return None
    except Exception as e:
        return f"xtir.parse raised {type(e).__name__}: {e}"
    return None


# Pass pipelines to run on (mutated) programs ------------------------------------------------------

PIPELINES = (
    (),
    ("-p", "test-block-regions"),
    ("-p", "split{loop=i factors=-1,3}"),
    ("-p", "split{loop=i factors=-1,4},reorder{loops=i_1,i_0}"),
    ("-p", "fuse{loops=i,j}"),
    ("-p", "reorder{loops=j,i}"),
    ("-p", "blockize{loop=j}"),
    ("-p", "parallel{loop=i},vectorize{loop=j}"),
    ("-p", "unroll{loop=i}"),
    ("-p", 'cache-read{block=matmul index=0 scope="local"}'),
    ("-p", 'cache-write{block=matmul index=0 scope="local"}'),
    ("-p", "decompose-reduction{block=matmul loop=j}"),
    ("-p", "compute-inline{block=matmul}"),
    ("-p", "reverse-compute-inline{block=add}"),
    ("-p", "lower-blocks"),
    ("-p", "lower-blocks,convert-to-llvm"),
    ("-p", "compact-buffers"),
)


@dataclass
class MalformedStats:
    cases: int = 0
    exit0: int = 0
    exit1: int = 0
    known: int = 0
    by_mutation: Counter = field(default_factory=Counter)
    failures: list[tuple[str, bytes, tuple[str, ...], str, Outcome]] = field(default_factory=list)

    def merge(self, other: MalformedStats) -> None:
        for f in dataclasses.fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def report(self) -> str:
        lines = [
            f"malformed inputs: {self.cases}   exit 0: {self.exit0}   exit 1 (diagnostic): {self.exit1}   "
            f"known bugs: {self.known}   failures: {len(self.failures)}"
        ]
        for why, _, args, label, outcome in self.failures[:20]:
            tail = (outcome.stderr.strip().splitlines() or [""])[-1][:200]
            lines.append(f"  {label} {' '.join(args)}: {why}: {tail}")
        return "\n".join(lines)


def fuzz_malformed(
    seeds: Sequence[int],
    stats: MalformedStats | None = None,
    deadline: float | None = None,
    pipeline_prob: float = 0.3,
    timeout: float = 20.0,
    known: Callable[[bytes, Outcome], bool] | None = None,
) -> MalformedStats:
    """Mutate each seed text once per seed; run xtir-opt in process; record contract breaches.

    `known(data, outcome)` marks a breach as a known bug (counted, not recorded as a failure).
    """
    stats = stats or MalformedStats()
    texts = seed_texts()
    names = sorted(texts)
    for seed in seeds:
        if deadline is not None and time.monotonic() > deadline:
            break
        r = random.Random(seed)
        name = r.choice(names)
        data, mutations = mutate(texts[name], r)
        args: tuple[str, ...] = r.choice(PIPELINES) if r.random() < pipeline_prob else ()
        stats.cases += 1
        stats.by_mutation.update(mutations)
        outcome = run_opt(data, args, timeout=timeout)
        why = check(outcome) or check_parse_api(data, timeout)
        if why is None:
            if outcome.code == 0:
                stats.exit0 += 1
            else:
                stats.exit1 += 1
        elif known is not None and known(data, outcome):
            stats.known += 1
        else:
            stats.failures.append((why, data, args, f"seed {seed} {name} {'+'.join(mutations)}", outcome))
    return stats


# `xtir-run --check` with a broken `// xtir-run: numpy NAME = EXPR` line ---------------------------

NUMPY_LINE_MUTATIONS = (
    "{out} = {expr} + Q",  # an unknown name
    "Q = {expr}",  # an unknown target
    "{out} = {expr}[:-1]",  # a shape that does not fit
    "{out} = ({expr}",  # a syntax error
    "{out} = np.no_such_function({expr})",
    "{out} = 1 / 0",
    "{out} =",
    "{out} = {expr}; {out}",
    "{out} = {expr}.reshape(-1, 7)",
    "{out} = [[{expr}]]",
    "{out} = {expr}",  # unchanged: exit 0
)
_NUMPY_LINE = re.compile(r"^(//\s*xtir-run:\s*numpy\s+)(\w+)\s*=\s*(.+)$", re.MULTILINE)


def run_check_texts() -> dict[str, str]:
    """Small versions of the examples that have a numpy line (xtir-run builds and runs them)."""
    from tests.fuzz.schedules import scaled_text

    sizes = {"matmul.mlir": {1024: 6}, "matmul_bias.mlir": {1024: 5}, "window_sum.mlir": {1024: 7, 1026: 9},
             "vector_add.mlir": {1024: 8}}
    return {name: scaled_text(EXAMPLES / name, s) for name, s in sizes.items() if (EXAMPLES / name).exists()}


def mutate_numpy_line(text: str, r: random.Random) -> tuple[str, str]:
    """The text with its numpy line replaced by a mutation; the new line."""
    m = _NUMPY_LINE.search(text)
    if m is None:
        return text, ""
    line = r.choice(NUMPY_LINE_MUTATIONS).format(out=m.group(2), expr=m.group(3).strip())
    return text[: m.start()] + m.group(1) + line + text[m.end() :], line


KNOWN_MALFORMED: list[tuple[str, Callable[[bytes, Outcome], bool]]] = [
]


def known_malformed(data: bytes, outcome: Outcome) -> str | None:
    for bug_id, matches in KNOWN_MALFORMED:
        if matches(data, outcome):
            return bug_id
    return None


def fuzz_run_check(seeds: Sequence[int], stats: MalformedStats | None = None, deadline: float | None = None,
                   timeout: float = 60.0) -> MalformedStats:
    """`xtir-run FILE --check` on examples whose numpy line is broken: exit 0 or 1 with a
    diagnostic, as for xtir-opt; known bugs (KNOWN_MALFORMED) are counted, not recorded."""
    stats = stats or MalformedStats()
    texts = run_check_texts()
    names = sorted(texts)
    for seed in seeds:
        if deadline is not None and time.monotonic() > deadline:
            break
        r = random.Random(f"run-check:{seed}")
        name = r.choice(names)
        text, line = mutate_numpy_line(texts[name], r)
        stats.cases += 1
        stats.by_mutation["numpy_line"] += 1
        outcome = run_opt(text.encode(), ("--check",), timeout=timeout, tool="xtir-run")
        why = check(outcome)
        if why is None:
            stats.exit0 += outcome.code == 0
            stats.exit1 += outcome.code == 1
        elif known_malformed(text.encode(), outcome):
            stats.known += 1
        else:
            stats.failures.append((why, text.encode(), ("--check",), f"xtir-run seed {seed} {name}: {line}", outcome))
    return stats
