"""Per-pass numerical verification: `Schedule(..., verify_numerics=True)` and `xtir-opt --verify-numerics`.

A correct schedule passes; a miscompiling pass (a test-only pass, or a real primitive
monkeypatched to miscompile) is stopped at once with a diagnostic naming it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

import xtir
from xtir import opt, verify_numerics
from xtir.errors import XtirNumericsError
from xtir.passes_registry import XTIR_PASSES
from xtir.verify_numerics import NumericsChecker, innermost_iterations

ROOT = Path(__file__).resolve().parent.parent


def small_matmul(n: int) -> ModuleOp:
    text = (ROOT / "examples" / "matmul.mlir").read_text()
    return xtir.parse(re.sub(r"(?<!\d)1024(?!\d)", str(n), text))


def miscompile(module: ModuleOp) -> None:
    """The bug: the first addition becomes a subtraction (the IR still verifies)."""
    add = next(op for op in module.walk() if isinstance(op, arith.AddfOp))
    Rewriter.replace_op(add, arith.SubfOp(add.lhs, add.rhs))


@dataclass(frozen=True)
class MiscompilePass(ModulePass):
    """A test-only pass with a bug."""

    name = "test-miscompile"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        miscompile(op)


@dataclass(frozen=True)
class HarmlessPass(ModulePass):
    """A test-only pass that changes the IR but not what it computes: a + b becomes b + a."""

    name = "test-commute"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        add = next(o for o in op.walk() if isinstance(o, arith.AddfOp))
        Rewriter.replace_op(add, arith.AddfOp(add.rhs, add.lhs))


# The Schedule API ------------------------------------------------------------------------------


def seed_schedule(sch: xtir.Schedule) -> None:
    mm = sch.get_block("matmul")
    i, j, k = sch.get_loops(mm)
    i0, i1 = sch.split(i, [None, 8])
    j0, j1 = sch.split(j, [None, 8])
    k0, k1 = sch.split(k, [None, 8])
    sch.reorder(i0, j0, k0, i1, j1, k1)
    outer = sch.blockize(i1)
    sch.cache_read(outer, 0, "global.A_reg")
    sch.decompose_reduction(outer, k0)


def test_correct_schedule_passes() -> None:
    module = small_matmul(16)
    checked = xtir.Schedule(module, verify_numerics=True)
    seed_schedule(checked)
    plain = xtir.Schedule(module)
    seed_schedule(plain)
    assert checked.trace == plain.trace
    assert str(checked.mod) == str(plain.mod)


def test_non_dividing_split_passes() -> None:
    sch = xtir.Schedule(small_matmul(10), verify_numerics=True)
    i, j, k = sch.get_loops(sch.get_block("matmul"))
    sch.split(i, [None, 4])
    sch.split(k, [3, None])
    sch.fuse(*sch.get_loops(sch.get_block("matmul"))[:2])
    assert sch.trace.count("split") == 2


def test_miscompiling_primitive_is_caught_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from xtir.passes.split import SplitPass

    correct = SplitPass.run

    def buggy_run(self, op):
        loops = correct(self, op)
        miscompile(op)
        return loops

    sch = xtir.Schedule(small_matmul(8), verify_numerics=True)
    mm = sch.get_block("matmul")
    i, j, k = sch.get_loops(mm)
    sch.reorder(j, i, k)  # a correct primitive first
    before, trace = str(sch.mod), sch.trace
    monkeypatch.setattr(SplitPass, "run", buggy_run)
    with pytest.raises(XtirNumericsError) as info:
        sch.split(i, [None, 4])
    message = str(info.value)
    assert message.startswith(
        "error: numerics changed after pass 'split{loop=i factors=-1,4}' (primitive 2 of the schedule): "
        "buffer C of @main differs (max abs err "
    ), message
    assert info.value.location is None and info.value.message == message.removeprefix("error: ")
    assert str(sch.mod) == before and sch.trace == trace  # the schedule stays as it was


def test_without_verify_numerics_the_bug_goes_through(monkeypatch: pytest.MonkeyPatch) -> None:
    from xtir.passes.split import SplitPass

    correct = SplitPass.run

    def buggy_run(self, op):
        loops = correct(self, op)
        miscompile(op)
        return loops

    monkeypatch.setattr(SplitPass, "run", buggy_run)
    sch = xtir.Schedule(small_matmul(8))
    sch.split(sch.get_loops(sch.get_block("matmul"))[0], [None, 4])
    assert "arith.subf" in str(sch.mod)


def test_schedule_refuses_a_function_it_cannot_run() -> None:
    module = xtir.parse("""
    func.func @scale(%A: memref<8xf32>, %s: f32) {
      block.for %i = 0 to 8 "i" {
        block.block "B"(%vi = spatial(8, %i)) {
          %a = block.load %A[%vi] : memref<8xf32>
          %b = arith.mulf %a, %s : f32
          block.store %b, %A[%vi] : memref<8xf32>
        }
      }
      func.return
    }""")
    with pytest.raises(XtirNumericsError, match=r"verify-numerics: cannot run @scale: parameter 1 has type f32"):
        xtir.Schedule(module, verify_numerics=True)


# The checking function, with a test-only pass ----------------------------------------------------


def test_checker_with_custom_passes() -> None:
    module = small_matmul(8)
    checker = NumericsChecker(module)
    assert checker.functions == ["main"]
    HarmlessPass().apply(Context(), module)
    checker.check(module, "test-commute")  # same results
    MiscompilePass().apply(Context(), module)
    with pytest.raises(XtirNumericsError, match=r"numerics changed after pass 'test-miscompile' \(step 7\): "
                                                r"buffer C of @main differs \(max abs err [0-9.e+-]+\)"):
        checker.check(module, "test-miscompile", "step 7")


def test_out_of_bounds_after_a_pass_is_a_failure() -> None:
    """A pass whose result reads past a buffer: the evaluator's error is reported as the pass's."""
    module = xtir.parse(COPY)
    checker = NumericsChecker(module)
    load = next(op for op in module.walk() if op.name == "block.load")
    load.properties["map"] = AffineMapAttr(AffineMap(1, 0, (AffineExpr.dimension(0) + 1,)))  # A[vi + 1]
    with pytest.raises(XtirNumericsError, match=r"^error: numerics changed after pass 'shift': @main no longer runs: "
                                                r"block.load from A: access at \[64\] is out of bounds"):
        checker.check(module, "shift")


def test_large_programs_run_with_the_jit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verify_numerics, "EVALUATOR_LIMIT", 100)
    module = small_matmul(16)  # 4096 innermost iterations
    assert innermost_iterations(module.ops.first) == 16**3
    checker = NumericsChecker(module)
    assert checker._engines == {"main": "the JIT"}
    MiscompilePass().apply(Context(), module)
    with pytest.raises(XtirNumericsError, match=r"after pass 'test-miscompile': buffer C of @main differs"):
        checker.check(module, "test-miscompile")


def test_evaluator_and_jit_agree_within_tolerance() -> None:
    """The same program on both engines (before: evaluator, after: JIT) is not a difference."""
    module = small_matmul(16)
    checker = NumericsChecker(module)
    assert checker._engines == {"main": "the reference evaluator"}
    checker.evaluator_limit = 0
    checker.check(module, "nothing")
    assert checker._engines == {"main": "the JIT"}


def test_innermost_iterations_counts_lowered_loops() -> None:
    lowered = xtir.transform(small_matmul(8), "split{loop=i factors=-1,3},lower-blocks")
    assert innermost_iterations(lowered.ops.first) == 3 * 3 * 8 * 8  # the split loop runs 9 times


# xtir-opt --verify-numerics ------------------------------------------------------------------------


@pytest.fixture
def matmul_file(tmp_path: Path) -> Path:
    path = tmp_path / "mm.mlir"
    path.write_text(str(small_matmul(16)))
    return path


def run_opt(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = opt.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_opt_correct_pipeline_passes(capsys, matmul_file: Path) -> None:
    pipeline = "split{loop=i factors=-1,4},split{loop=k factors=-1,4},reorder{loops=i_0,k_0,j,i_1,k_1},lower-blocks"
    status, out, err = run_opt(capsys, str(matmul_file), "--verify-numerics", "-p", pipeline)
    assert (status, err) == (0, "")
    assert "scf.for" in out


def test_opt_names_the_miscompiling_pass_and_its_position(capsys, monkeypatch, matmul_file: Path) -> None:
    monkeypatch.setitem(XTIR_PASSES, "test-miscompile", lambda: MiscompilePass)
    monkeypatch.setitem(XTIR_PASSES, "test-commute", lambda: HarmlessPass)
    pipeline = "split{loop=i factors=-1,4},test-commute,test-miscompile,reorder{loops=j,i_0}"
    status, out, err = run_opt(capsys, str(matmul_file), "--verify-numerics", "-p", pipeline)
    assert status == 1
    assert re.fullmatch(r"error: numerics changed after pass 'test-miscompile' \(pass 3 of 4 in the pipeline\): "
                        r"buffer C of @main differs \(max abs err [0-9.e+-]+\)\n", err), err
    # without the flag the bug goes unnoticed
    status, out, err = run_opt(capsys, str(matmul_file), "-p", pipeline)
    assert (status, err) == (0, "") and "arith.subf" in out


def test_opt_numerics_error_is_a_diagnostic(capsys, monkeypatch, tmp_path: Path) -> None:
    """Under --verify-diagnostics the numerics error (no location) is matched by @unknown."""
    monkeypatch.setitem(XTIR_PASSES, "test-miscompile", lambda: MiscompilePass)
    path = tmp_path / "mm.mlir"
    path.write_text("// expected-error @unknown {{numerics changed after pass 'test-miscompile' (pass 1 of 1 "
                    "in the pipeline): buffer C of @main differs}}\n" + str(small_matmul(8)))
    status, _, err = run_opt(capsys, str(path), "--verify-numerics", "--verify-diagnostics", "-p", "test-miscompile")
    assert (status, err) == (0, "")


def test_opt_refuses_llvm_dialect(capsys, matmul_file: Path) -> None:
    status, _, err = run_opt(capsys, str(matmul_file), "--verify-numerics", "-p", "lower-blocks,convert-to-llvm")
    assert status == 1
    assert err.startswith("error: verify-numerics: cannot compare numerics after pass 'convert-to-llvm' "
                          "(pass 2 of 2 in the pipeline): the module was lowered to the llvm dialect"), err


COPY = """
func.func @main(%A: memref<64xf32>, %B: memref<64xf32>) {
  block.for %i = 0 to 64 "i" {
    block.block "B"(%vi = spatial(64, %i)) {
      %a = block.load %A[%vi] : memref<64xf32>
      block.store %a, %B[%vi] : memref<64xf32>
    }
  }
  func.return
}"""


def test_thread_bound_loops_fall_back_to_the_evaluator_or_refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    """The JIT does not build loops bound to GPU threads: the evaluator runs them, up to EVALUATOR_MAX."""
    module = xtir.parse(COPY)
    bound = xtir.transform(module, 'split{loop=i factors=-1,32},bind{loop=i_1 thread="threadIdx.x"}')
    checker = NumericsChecker(module, evaluator_limit=0)
    assert checker._engines == {"main": "the JIT"}
    checker.check(bound, "bind")
    assert checker._engines == {"main": "the reference evaluator"}
    monkeypatch.setattr(verify_numerics, "EVALUATOR_MAX", 10)
    with pytest.raises(XtirNumericsError, match=r"verify-numerics: cannot run @main after pass 'bind': the program "
                                                r"is too large for the reference evaluator \(64 innermost iterations, "
                                                r"more than the 10 it runs\) and the JIT cannot build it: .*threadIdx.x"):
        checker.check(bound, "bind")
