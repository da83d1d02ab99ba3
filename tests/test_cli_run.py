"""xtir-run and xtir-translate: compile examples, check them against numpy, time them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
EXAMPLES = ["matmul", "gpu_matmul", "matmul_bias", "matmul_block", "vector_add", "window_sum", "mlp"]


def run(tool: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / tool), *args], capture_output=True, text=True, cwd=ROOT)


def seed_pipeline() -> str:
    script = (ROOT / "examples" / "seed_tensorize.sh").read_text()
    body = script.split("<<'END'\n", 1)[1].split("\nEND", 1)[0]
    return body.replace("\n", "")


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_checks_against_numpy(name: str) -> None:
    result = run("xtir-run", f"examples/{name}.mlir", "--check")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "ok max_abs_err=" in result.stdout and "(against numpy)" in result.stdout


def test_seed_walkthrough_checks_and_benches() -> None:
    result = run("xtir-run", "examples/matmul.mlir", "-p", seed_pipeline() + ",parallel{loop=i_0}", "--check",
                 "--bench", "--repeat", "2")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "ok max_abs_err=" in result.stdout
    assert "GFLOP/s" in result.stdout


def test_parallel_over_an_intermediate_buffer_checks() -> None:
    """Issue 14: the build refused the matmul's parallel i as a race on temp, though each
    iteration writes its own row."""
    result = run("xtir-run", "examples/matmul_bias.mlir", "-p", 'parallel{loop="matmul/i"}', "--check")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "ok max_abs_err=" in result.stdout


def test_graph_function_fused_checks_and_benches() -> None:
    """examples/mlp.mlir is a graph function: xtir-run applies the graph passes of -p, then
    legalizes, schedules and builds it as a model; the flops are those of its block functions."""
    result = run("xtir-run", "examples/mlp.mlir", "-p", "fuse-ewise-fma,fuse-ops", "--check", "--bench", "--repeat", "2")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "ok max_abs_err=" in result.stdout and "(against numpy)" in result.stdout
    assert "GFLOP/s" in result.stdout


def test_graph_function_mismatch_and_reference_evaluator(tmp_path: Path) -> None:
    """A numpy line naming a returned value that disagrees is a mismatch there; without numpy
    lines the graph run by the reference evaluator is the reference."""
    text = (ROOT / "examples" / "mlp.mlir").read_text()
    wrong = tmp_path / "wrong.mlir"
    wrong.write_text(text.replace("@ w1.T + b1", "@ w1.T - b1"))
    result = run("xtir-run", str(wrong), "--check")
    assert result.returncode == 1 and "mismatch in out" in result.stdout, result.stderr + result.stdout
    plain = tmp_path / "plain.mlir"
    plain.write_text("\n".join(line for line in text.splitlines() if "xtir-run:" not in line))
    result = run("xtir-run", str(plain), "--check", "-p", "fuse-ops")
    assert result.returncode == 0 and "(against the reference evaluator)" in result.stdout, result.stderr


def test_graph_function_pipeline_must_stay_a_graph() -> None:
    result = run("xtir-run", "examples/mlp.mlir", "-p", "legalize-tensor")
    assert result.returncode == 1 and "took @main out of the graph level" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_graph_function_runs_on_cuda_cpu() -> None:
    """default-gpu-schedule and the GPU model: the MLP's kernels race-checked, numbers checked."""
    result = run("xtir-run", "examples/mlp.mlir", "--check", "--target", "cuda-cpu", "--racecheck")
    assert result.returncode == 0, result.stderr
    assert "for cuda-cpu" in result.stdout and "default-gpu-schedule" in result.stdout, result.stdout


def test_graph_function_racecheck_needs_cuda_cpu() -> None:
    result = run("xtir-run", "examples/mlp.mlir", "--check", "--racecheck")
    assert result.returncode == 1 and "--racecheck is for --target cuda-cpu" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_mismatch_exits_1(tmp_path: Path) -> None:
    """A wrong reference expression must be reported, not waved through."""
    text = (ROOT / "examples" / "vector_add.mlir").read_text().replace("numpy C = A + B", "numpy C = A - B")
    path = tmp_path / "wrong.mlir"
    path.write_text(text)
    result = run("xtir-run", str(path), "--check")
    assert result.returncode == 1
    assert "mismatch in C" in result.stdout


def test_check_without_numpy_uses_the_unscheduled_program(tmp_path: Path) -> None:
    text = "\n".join(line for line in (ROOT / "examples" / "window_sum.mlir").read_text().splitlines()
                     if "xtir-run:" not in line)
    path = tmp_path / "window.mlir"
    path.write_text(text)
    result = run("xtir-run", str(path), "--check", "-p", "split{loop=i factors=-1,7}")
    assert result.returncode == 0, result.stderr
    assert "(against the reference evaluator)" in result.stdout


def test_run_reports_errors_without_traceback() -> None:
    bad = run("xtir-run", "examples/matmul.mlir", "-p", "split{loop=nope factors=-1,4}")
    assert bad.returncode == 1 and 'no loop named "nope"' in bad.stderr and "Traceback" not in bad.stderr
    missing = run("xtir-run", "examples/nope.mlir")
    assert missing.returncode == 1 and "xtir-run: error:" in missing.stderr


@pytest.mark.parametrize(("repeat", "message"), [("0", "a median needs at least one run, got 0"),
                                                 ("-3", "a median needs at least one run, got -3"),
                                                 ("x", "expected a whole number of runs, got 'x'")])
def test_repeat_must_be_a_positive_count(repeat: str, message: str) -> None:
    result = run("xtir-run", "examples/vector_add.mlir", "--bench", "--repeat", repeat)
    assert result.returncode == 2 and f"xtir-run: error: argument --repeat: {message}" in result.stderr
    assert "median" not in result.stdout  # nothing ran (it used to run once and report a median of 1)


def test_translate_prints_llvm_ir() -> None:
    result = run("xtir-translate", "examples/vector_add.mlir", "--target", "llvm")
    assert result.returncode == 0, result.stderr
    assert "define" in result.stdout and "getelementptr" in result.stdout and "noalias" in result.stdout


@pytest.mark.parametrize(("line", "col", "message"), [
    ("numpy C = A + X", 24, "numpy: A + X failed: NameError: name 'X' is not defined"),
    ("numpy C = A +", 24, "numpy: invalid expression"),
    ("numpy C = (A", 24, "numpy: invalid expression"),
    ("numpy D = A + B", 20, "numpy: no argument named 'D' (arguments: A, B, C)"),
    ("numpy C = np.ones(3)", 24, "numpy: np.ones(3) has shape (3,); C has shape (1024,)"),
    ("numpy C = A.reshape(7)", 24, "failed: ValueError: cannot reshape"),
    ("numpy C = 1/0", 24, "failed: ZeroDivisionError"),
    ("numpy C = 'abc'", 24, "numpy: 'abc' gives <U3 values; C holds float32"),
    ("numpy C = A + 1j", 24, "gives complex64 values; C holds float32"),
    ("numpy C A + B", 13, "expected `// xtir-run: numpy NAME = EXPR`"),
    ("nmpy C = A + B", 13, "expected `// xtir-run: numpy NAME = EXPR`"),
])
def test_bad_numpy_line_is_a_diagnostic_at_the_line(tmp_path: Path, line: str, col: int, message: str) -> None:
    """A bad `// xtir-run: numpy` line used to end in a Python traceback (NameError, SyntaxError,
    KeyError, a broadcast ValueError), or was silently skipped when it was not of the form."""
    text = (ROOT / "examples" / "vector_add.mlir").read_text().replace("// xtir-run: numpy C = A + B",
                                                                        f"// xtir-run: {line}")
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    result = run("xtir-run", str(path), "--check")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert f"{path}:2:{col}: error: xtir-run: " in result.stderr and message in result.stderr, result.stderr


@pytest.mark.parametrize("tool", [("xtir-run",), ("xtir-translate", "--target", "llvm"), ("xtir-opt",)])
def test_file_that_is_not_utf8_is_a_located_error(tmp_path: Path, tool: tuple[str, ...]) -> None:
    """xtir-run and xtir-translate ended in a UnicodeDecodeError traceback (xtir.parse_file too)."""
    path = tmp_path / "latin1.mlir"
    path.write_bytes(b"func.func @main() {\n  func.return\n}\n// caf\xe9\n")
    result = run(tool[0], str(path), *tool[1:])
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"{path}:4:7: error: invalid UTF-8 (byte 0xe9)" in result.stderr


def test_parse_file_that_is_not_utf8(tmp_path: Path) -> None:
    import xtir

    path = tmp_path / "latin1.mlir"
    path.write_bytes(b"\xe9")
    with pytest.raises(xtir.XtirParseError, match="invalid UTF-8") as info:
        xtir.parse_file(path)
    assert info.value.location is not None and info.value.location.line == 1


def test_arguments_larger_than_memory_are_refused_before_allocating(tmp_path: Path) -> None:
    """xtir-run drew random inputs for any shape: 4 TB ended in a MemoryError traceback (or,
    below the allocator's limit, in the machine swapping)."""
    path = tmp_path / "huge.mlir"
    path.write_text("func.func @main(%A: memref<1000000x1000000xf32>) {\n  func.return\n}\n")
    result = run("xtir-run", str(path))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "xtir-run: @main takes 3725.3 GiB of buffers" in result.stderr


# The guard compares %n with itself: always true, but the compiler cannot show that A[t] stays
# in A (t reaches 15, A has 10 elements); with GUARD = `slt, %t, %n`, t < n < 8 keeps it in A.
UNKNOWN_GUARD = """
func.func @main(%A: memref<10xf32>, %B: memref<16xf32>, %N: memref<1xindex>) {
  %n = block.load %N[0] : memref<1xindex>
  block.for %t = 0 to 16 "t" {
    %in = arith.cmpi GUARD : index
    scf.if %in {
      block.block "g"(%vt = spatial(16, %t)) {
        %a = block.load %A[%vt] : memref<10xf32>
        block.store %a, %B[%vt] : memref<16xf32>
      }
    }
  }
  func.return
}
"""


@pytest.mark.parametrize(("guard", "flags", "message"), [
    ("sle, %n, %n", [], "cannot show that index 0 stays in [0, 9]"),
    ("sle, %n, %n", ["--bounds-check"], 'block.load on %A in block "g"'),
    ("slt, %t, %n", ["--bounds-check"], None),
])
def test_bounds_check_checks_at_run_time(tmp_path: Path, guard: str, flags: list[str], message: str | None) -> None:
    path = tmp_path / "guarded.mlir"
    path.write_text(UNKNOWN_GUARD.replace("GUARD", guard))
    result = run("xtir-run", str(path), *flags)
    if message is None:
        assert result.returncode == 0, result.stderr + result.stdout
    else:
        assert result.returncode == 1 and message in result.stderr, result.stderr + result.stdout
    if message is not None and flags:
        assert "index 0 is 10, outside [0, 9]" in result.stderr
