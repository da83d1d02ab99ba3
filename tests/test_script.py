"""xtir.script (xtir/script.py) against what TVM 0.27 prints for the same schedules
(/work/shared/reference/tvm/ir/*.tvmscript.txt, copied here as tests/script_reference/).

Normalized on both sides before comparing, and nothing else:
- TVM 0.27's `tirx` spellings: `T.sblock` -> `T.block`, `T.sblock_alloc_buffer` -> `T.alloc_buffer`,
  `@T.prim_func(s_tir=True)` -> `@T.prim_func`; the `# from ...` header comments are dropped;
- `a + (b + c)` -> `a + b + c`: TVM keeps the parentheses of a substituted sum, xtir's index
  expressions are flat sums;
- after tensorize, the lines of the tensorized block's body (`T.match_buffer`, `T.call_extern`):
  TVM calls `tmm16` through access pointers, xtir prints the `accel.tmm16` op with its regions.
Loop, block, buffer and iteration-variable names are xtir's own and are not normalized: they
are TVM's names.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir import te, topi
from xtir.script import script

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = Path(__file__).resolve().parent / "script_reference"
sys.path.insert(0, str(ROOT / "examples"))
import seed_gpu  # noqa: E402

SPLIT = (
    "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
    "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1}"
)
BLOCKIZE = SPLIT + ",blockize{loop=i_1}"
CACHE_READ = (
    BLOCKIZE + ',cache-read{block=matmul_o index=0 scope="global.A_reg"}'
    ',cache-read{block=matmul_o index=1 scope="global.B_reg"}'
)
COMPUTE_AT = CACHE_READ + ',compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0}'
CACHE_WRITE = COMPUTE_AT + ',cache-write{block=matmul_o index=0 scope="global.accumulator"}'
REVERSE = CACHE_WRITE + ',reverse-compute-at{block="C_global.accumulator" loop=j_0}'
DECOMPOSE = REVERSE + ",decompose-reduction{block=matmul_o loop=k_0}"
TENSORIZE = DECOMPOSE + ",tensorize{block=matmul_o_update intrin=tmm16}"

SEED_001 = {
    "tmm_00_input": "",
    "tmm_01_split_reorder": SPLIT,
    "tmm_02_blockize": BLOCKIZE,
    "tmm_03a_cache_read": CACHE_READ,
    "tmm_03b_cache_read_compute_at": COMPUTE_AT,
    "tmm_04a_cache_write": CACHE_WRITE,
    "tmm_04b_cache_write_reverse_compute_at": REVERSE,
    "tmm_05_decompose_reduction": DECOMPOSE,
    "tmm_06_tensorize": TENSORIZE,
}

SEED_002 = {
    "gpu_vecadd_02_bind": ("vector_add.mlir", seed_gpu.VECTOR_ADD),
    "gpu_window_04_coop_fetch": ("window_sum.mlir", seed_gpu.WINDOW_SUM),
    "gpu_gemm_local_blocking": ("gpu_matmul.mlir", seed_gpu.GEMM_LOCAL),
    "gpu_gemm_shared_blocking": ("gpu_matmul.mlir", seed_gpu.GEMM_SHARED),
}


def normalize(text: str) -> list[str]:
    text = text.replace("T.sblock_alloc_buffer", "T.alloc_buffer").replace("T.sblock", "T.block")
    text = text.replace("@T.prim_func(s_tir=True)", "@T.prim_func")
    flat = None
    while flat != text:
        flat, text = text, re.sub(r"\+ \(([^()]*)\)", r"+ \1", text)
    lines = [line.rstrip() for line in text.splitlines()]
    return [line for line in lines if line.strip() and not line.startswith("# from")]


def without_intrinsic_body(lines: list[str]) -> list[str]:
    return [line for line in lines if "T.match_buffer" not in line and "T.call_extern" not in line]


def reference(name: str) -> list[str]:
    return normalize((REFERENCE / f"{name}.tvmscript.txt").read_text())


@pytest.mark.parametrize(
    ("name", "pipeline"),
    SEED_001.items(),
)
def test_seed_001_steps_print_as_tvm_does(name: str, pipeline: str) -> None:
    module = xtir.parse_file(ROOT / "examples" / "matmul.mlir")
    if pipeline:
        module = xtir.transform(module, pipeline)
    ours, theirs = normalize(xtir.script(module)), reference(name)
    if name == "tmm_06_tensorize":
        ours, theirs = without_intrinsic_body(ours), without_intrinsic_body(theirs)
    assert ours == theirs


@pytest.mark.parametrize("name", SEED_002)
def test_seed_002_schedules_print_as_tvm_does(name: str) -> None:
    example, pipeline = SEED_002[name]
    assert normalize(xtir.script(seed_gpu.scheduled(example, pipeline))) == reference(name)


def test_loop_kinds_predicates_and_lets() -> None:
    module = xtir.transform(
        xtir.parse_file(ROOT / "examples" / "matmul.mlir"),
        "split{loop=i factors=-1,1000},parallel{loop=i_0},split{loop=j factors=-1,16},vectorize{loop=j_1},unroll{loop=k}",
    )
    text = xtir.script(module)
    assert "for i_0 in T.parallel(2):" in text
    assert "for j_1 in T.vectorized(16):" in text
    assert "for k in T.unroll(1024):" in text
    assert "T.where(i_0 * 1000 + i_1 < 1024)" in text


def test_pad_einsum_prints_if_then_else_as_tvm_does() -> None:
    """TVM's pad_einsum pads A as `T.if_then_else(v0 < m and v1 < k, A[v0, v1], 0)` (its test_pad_einsum
    prints it so): the scf.if of one result is that call, its conditions' `&` on booleans `and`, the
    bounds plain ints as every index is."""
    module = seed_gpu.scheduled_gemm("pad-einsum{block=C padding=16,16,8}", 20, 18, 12)
    expected = """\
        for i0, i1 in T.grid(32, 16):
            with T.block("A_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v0, v1])
                T.writes(A_pad[v0, v1])
                A_pad[v0, v1] = T.if_then_else(v0 < 20 and v1 < 12, A[v0, v1], T.float32(0.0))
        for i0, i1 in T.grid(16, 32):
"""
    assert expected in xtir.script(module)


def test_if_of_two_results_is_not_printed_as_one_if_then_else() -> None:
    """Only an scf.if of one value is TVM's if_then_else; printing each result of a two-result if as
    one would show the first result's values for the second."""
    module = xtir.parse("""
func.func @main(%A: memref<4xf32>, %B: memref<4xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) {
      %c2 = arith.constant 2 : index
      %p = arith.cmpi slt, %vi, %c2 : index
      %x, %y = scf.if %p -> (f32, f32) {
        %a = block.load %A[%vi] : memref<4xf32>
        %one = arith.constant 1.0 : f32
        scf.yield %a, %one : f32, f32
      } else {
        %z = arith.constant 0.0 : f32
        %w = arith.constant 2.0 : f32
        scf.yield %z, %w : f32, f32
      }
      block.store %x, %B[%vi] : memref<4xf32>
      block.store %y, %C[%vi] : memref<4xf32>
    }
  }
  func.return
}
""")
    assert "T.if_then_else" not in xtir.script(module)


def test_schedule_show_tvm_style(capsys: pytest.CaptureFixture[str]) -> None:
    sch = xtir.Schedule(xtir.parse_file(ROOT / "examples" / "matmul.mlir"))
    sch.show(style="tvm")
    assert 'vi, vj, vk = T.axis.remap("SSR", [i, j, k])' in capsys.readouterr().out


def test_graph_functions_are_refused() -> None:
    with pytest.raises(xtir.XtirError, match="block-level functions"):
        xtir.script(xtir.parse_file(ROOT / "examples" / "mlp.mlir"))


def test_math_functions_print_as_tvm_calls() -> None:
    """A GELU's erf prints as TVM's T.erf (not T.call_pure_extern("math.erf", ...))."""
    x = te.placeholder((4, 8), "float32", "x")
    text = script(ModuleOp([te.create_func([x, topi.gelu(x)], name="gelu")]))
    assert "T.erf(v * T.float32(0.7071067690849304))" in text


def test_index_constants_stored_in_an_index_buffer_print_as_int64() -> None:
    """An index buffer is TVM's int64 buffer, so what is stored in it is int64: TVM prints
    `A[vi] = T.int64(5)`, where a plain 5 would be an int32 (as indices and int32 values stay)."""
    module = xtir.parse("""
func.func @main(%A: memref<4xindex>, %B: memref<4xi32>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) {
      %c5 = arith.constant 5 : index
      block.store %c5, %A[%vi] : memref<4xindex>
      %a = block.load %A[%vi] : memref<4xindex>
      %c1 = arith.constant 1 : index
      %s = arith.addi %a, %c1 : index
      block.store %s, %A[%vi] : memref<4xindex>
      %c7 = arith.constant 7 : i32
      block.store %c7, %B[%vi] : memref<4xi32>
    }
  }
  func.return
}
""")
    text = xtir.script(module)
    assert "A[vi] = T.int64(5)\n" in text
    assert "A[vi] = A[vi] + T.int64(1)\n" in text
    assert "B[vi] = 7\n" in text


def test_index_constants_in_calls_and_casts_stored_in_an_index_buffer_print_as_int64() -> None:
    """The int64 of what is stored in an index buffer reaches the operands of a call and a cast."""
    module = xtir.parse("""
func.func @main(%A: memref<4xindex>) {
  block.for %i = 0 to 4 "i" {
    block.block "B"(%vi = spatial(4, %i)) {
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %a = block.load %A[%vi] : memref<4xindex>
      %m = arith.maxsi %a, %c1 : index
      %s = arith.addi %m, %c3 : index
      block.store %s, %A[%vi] : memref<4xindex>
      %w = arith.index_cast %c3 : index to i64
      %v = arith.index_cast %w : i64 to index
      block.store %v, %A[%vi] : memref<4xindex>
    }
  }
  func.return
}
""")
    text = xtir.script(module)
    assert "A[vi] = T.max(A[vi], T.int64(1)) + T.int64(3)\n" in text
    assert 'T.Cast("int64", T.int64(3))' in text
