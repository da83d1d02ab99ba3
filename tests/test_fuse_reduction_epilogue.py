"""fuse-reduction-epilogue keeps the results of a reduction followed by a bias add (reference
evaluator and CPU JIT, before and after, against numpy `A @ B.T + C`), also after a schedule
and for several epilogues in one function; mode=per-iteration changes the numbers of a
non-linear epilogue, as TVM does; a refusal leaves the module as it was."""

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context

import xtir
from xtir.passes.analysis.navigation import get_block
from xtir.passes.fuse_reduction_epilogue import FuseReductionEpiloguePass, fuse_reduction_epilogue

ROOT = Path(__file__).resolve().parent.parent
SEED = (ROOT / "examples" / "matmul_bias.mlir").read_text()
FUSE = "fuse-reduction-epilogue{block=matmul epilogue=add}"


def seed(n: int) -> str:
    """examples/matmul_bias.mlir (seed 004) at n x n instead of 1024 x 1024."""
    return SEED.replace("1024", str(n))


def inputs(n: int, count: int = 3, seed_: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed_)
    return [rng.standard_normal((n, n), dtype=np.float32) for _ in range(count)]


def evaluate(module, *arrays: np.ndarray, out_shape: tuple[int, ...]) -> np.ndarray:
    out = np.full(out_shape, np.nan, dtype=np.float32)
    xtir.evaluate(module, *arrays, out)
    return out


@pytest.mark.parametrize("n", [16, 32])
def test_seed_bias_add(n: int) -> None:
    module = xtir.parse(seed(n))
    a, b, c = inputs(n)
    expected = a @ b.T + c
    original = evaluate(module, a, b, c, out_shape=(n, n))
    fused_module = xtir.transform(module, FUSE)
    fused = evaluate(fused_module, a, b, c, out_shape=(n, n))
    np.testing.assert_allclose(original, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fused, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fused, original, rtol=1e-5, atol=1e-5)
    text = str(fused_module)
    assert "block.alloc" not in text and '"add"' not in text and "%temp" not in text


def test_seed_bias_add_compiled() -> None:
    """The fused module through xtir.build (lower-blocks, LLVM JIT) at 64 x 64."""
    n = 64
    module = xtir.parse(seed(n))
    a, b, c = inputs(n, seed_=1)
    fused = xtir.build(xtir.transform(module, FUSE))
    original = xtir.build(module)
    d_fused = np.zeros((n, n), dtype=np.float32)
    d_original = np.zeros((n, n), dtype=np.float32)
    fused(a, b, c, d_fused)
    original(a, b, c, d_original)
    np.testing.assert_allclose(d_fused, a @ b.T + c, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(d_fused, d_original, rtol=1e-4, atol=1e-4)


# Pipelines that schedule the producer (or move the epilogue) before fusing; the loops of
# the two nests share names, so they are named through a block they enclose.
SCHEDULES = {
    "split_reorder": 'split{loop="matmul/i" factors=-1,4},split{loop="matmul/j" factors=-1,4},'
    "split{loop=k factors=-1,4},reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1}," + FUSE,
    "non_dividing_split": 'split{loop="matmul/i" factors=-1,5},split{loop=k factors=-1,3},' + FUSE,
    "reverse_compute_at": 'split{loop="matmul/i" factors=-1,4},reorder{loops=i_0,"matmul/j",k,i_1},'
    'reverse-compute-at{block=add loop="matmul/j"},' + FUSE,
    "cache_read": 'cache-read{block=matmul index=1 scope="shared"},' + FUSE,
    "fuse_then_schedule": FUSE + ',split{loop=i factors=-1,4},reorder{loops=i_0,j,k,i_1},parallel{loop=i_0}',
    "fuse_then_decompose": FUSE + ",decompose-reduction{block=matmul loop=k}",
}


@pytest.mark.parametrize("name", SCHEDULES)
def test_after_schedule(name: str) -> None:
    n = 16
    module = xtir.parse(seed(n))
    a, b, c = inputs(n, seed_=2)
    fused = evaluate(xtir.transform(module, SCHEDULES[name]), a, b, c, out_shape=(n, n))
    np.testing.assert_allclose(fused, a @ b.T + c, rtol=1e-5, atol=1e-5)


# The epilogue nest in another order under other names, reading temp transposed, adding a
# column bias first and storing D transposed: D[n, m] = C[n] + (A @ B.T)[m, n].
PERMUTED = """
func.func @main(%A: memref<4x6xf32>, %B: memref<8x6xf32>, %C: memref<8xf32>, %D: memref<8x4xf32>) {
  %temp = block.alloc : memref<4x8xf32>
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 8 "j" {
      block.for %k = 0 to 6 "k" {
        block.block "matmul"(%vi = spatial(4, %i), %vj = spatial(8, %j), %vk = reduce(6, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %temp[%vi, %vj] : memref<4x8xf32>
          }
          %t = block.load %temp[%vi, %vj] : memref<4x8xf32>
          %a = block.load %A[%vi, %vk] : memref<4x6xf32>
          %b = block.load %B[%vj, %vk] : memref<8x6xf32>
          %ab = arith.mulf %a, %b : f32
          %sum = arith.addf %t, %ab : f32
          block.store %sum, %temp[%vi, %vj] : memref<4x8xf32>
        }
      }
    }
  }
  block.for %n = 0 to 8 "n" {
    block.for %m = 0 to 4 "m" {
      block.block "bias"(%vn = spatial(8, %n), %vm = spatial(4, %m)) {
        %c = block.load %C[%vn] : memref<8xf32>
        %t = block.load %temp[%vm, %vn] : memref<4x8xf32>
        %d = arith.addf %c, %t : f32
        block.store %d, %D[%vn, %vm] : memref<8x4xf32>
      }
    }
  }
  func.return
}
"""


def test_permuted_epilogue() -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 6), dtype=np.float32)
    b = rng.standard_normal((8, 6), dtype=np.float32)
    c = rng.standard_normal(8, dtype=np.float32)
    module = xtir.parse(PERMUTED)
    expected = (a @ b.T).T + c[:, None]
    original = evaluate(module, a, b, c, out_shape=(8, 4))
    fused = evaluate(xtir.transform(module, "fuse-reduction-epilogue{block=matmul epilogue=bias}"), a, b, c, out_shape=(8, 4))
    np.testing.assert_allclose(original, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fused, expected, rtol=1e-5, atol=1e-5)


# Two reductions with an epilogue each: D = rowsum(A) + C, then E = colsum(A) + D. Fusing
# colsum first is refused (block "add" writes D, which add2 reads, in between); after
# rowsum has taken "add", it is legal.
TWO_PAIRS = """
func.func @main(%A: memref<5x5xf32>, %C: memref<5xf32>, %D: memref<5xf32>, %E: memref<5xf32>) {
  %temp = block.alloc : memref<5xf32>
  %temp2 = block.alloc : memref<5xf32>
  block.for %i = 0 to 5 "i" {
    block.for %k = 0 to 5 "k" {
      block.block "rowsum"(%vi = spatial(5, %i), %vk = reduce(5, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %temp[%vi] : memref<5xf32>
        }
        %t = block.load %temp[%vi] : memref<5xf32>
        %a = block.load %A[%vi, %vk] : memref<5x5xf32>
        %sum = arith.addf %t, %a : f32
        block.store %sum, %temp[%vi] : memref<5xf32>
      }
    }
  }
  block.for %j = 0 to 5 "j" {
    block.for %r = 0 to 5 "r" {
      block.block "colsum"(%vj = spatial(5, %j), %vr = reduce(5, %r)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %temp2[%vj] : memref<5xf32>
        }
        %t = block.load %temp2[%vj] : memref<5xf32>
        %a = block.load %A[%vr, %vj] : memref<5x5xf32>
        %sum = arith.addf %t, %a : f32
        block.store %sum, %temp2[%vj] : memref<5xf32>
      }
    }
  }
  block.for %i = 0 to 5 "i" {
    block.block "add"(%vi = spatial(5, %i)) {
      %t = block.load %temp[%vi] : memref<5xf32>
      %c = block.load %C[%vi] : memref<5xf32>
      %d = arith.addf %t, %c : f32
      block.store %d, %D[%vi] : memref<5xf32>
    }
  }
  block.for %j = 0 to 5 "j" {
    block.block "add2"(%vj = spatial(5, %j)) {
      %t = block.load %temp2[%vj] : memref<5xf32>
      %d = block.load %D[%vj] : memref<5xf32>
      %e = arith.addf %t, %d : f32
      block.store %e, %E[%vj] : memref<5xf32>
    }
  }
  func.return
}
"""


def run_two_pairs(module, a: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = np.full(5, np.nan, dtype=np.float32)
    e = np.full(5, np.nan, dtype=np.float32)
    xtir.evaluate(module, a, c, d, e)
    return d, e


@pytest.mark.parametrize(
    "pipeline",
    [
        "fuse-reduction-epilogue{block=rowsum epilogue=add}",
        "fuse-reduction-epilogue{block=rowsum epilogue=add},fuse-reduction-epilogue{block=colsum epilogue=add2}",
    ],
)
def test_several_epilogues(pipeline: str) -> None:
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 5), dtype=np.float32)
    c = rng.standard_normal(5, dtype=np.float32)
    module = xtir.parse(TWO_PAIRS)
    fused = xtir.transform(module, pipeline)
    d, e = run_two_pairs(fused, a, c)
    np.testing.assert_allclose(d, a.sum(axis=1) + c, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(e, a.sum(axis=0) + a.sum(axis=1) + c, rtol=1e-5, atol=1e-5)
    assert str(fused).count("block.alloc") == 2 - pipeline.count("fuse-reduction-epilogue")


def test_several_epilogues_order_matters() -> None:
    module = xtir.parse(TWO_PAIRS)
    with pytest.raises(xtir.XtirPassError, match='block "add" writes D, which the epilogue block "add2" reads'):
        xtir.transform(module, "fuse-reduction-epilogue{block=colsum epilogue=add2}")


def relu_program(n: int) -> str:
    """Seed 004's BiasReLU (TVM's fre_bias_relu_0_before): D = max(C + A @ B.T, 0)."""
    return seed(n).replace(
        """          %sum = arith.addf %t, %c : f32
          block.store %sum, %D[%vi, %vj]""",
        """          %s = arith.addf %c, %t : f32
          %zero = arith.constant 0.000000e+00 : f32
          %sum = arith.maximumf %s, %zero : f32
          block.store %sum, %D[%vi, %vj]""",
    )


def test_relu_refused_by_default() -> None:
    module = xtir.parse(relu_program(8))
    text = str(module)
    with pytest.raises(xtir.XtirPassError, match="applied after every reduction step.*mode=per-iteration"):
        FuseReductionEpiloguePass(block="matmul", epilogue="add").apply(Context(), module)
    assert str(module) == text


def test_per_iteration_changes_the_numbers() -> None:
    """mode=per-iteration is TVM's rewrite: D = max(C, 0), then D = max(D + A[:, k] * B[:, k], 0)
    for every k. It clamps every partial sum, so it is NOT max(A @ B.T + C, 0)."""
    n = 16
    module = xtir.parse(relu_program(n))
    a, b, c = inputs(n, seed_=5)
    original = evaluate(module, a, b, c, out_shape=(n, n))
    np.testing.assert_allclose(original, np.maximum(a @ b.T + c, 0), rtol=1e-5, atol=1e-5)
    pipeline = "fuse-reduction-epilogue{block=matmul epilogue=add mode=per-iteration}"
    fused = evaluate(xtir.transform(module, pipeline), a, b, c, out_shape=(n, n))
    per_step = np.maximum(c, 0)
    for k in range(n):
        per_step = np.maximum(per_step + np.outer(a[:, k], b[:, k]), 0)
    np.testing.assert_allclose(fused, per_step, rtol=1e-5, atol=1e-5)
    assert np.abs(fused - original).max() > 1.0  # TVM's 0.27 measures 5.55 on its 16x16 case


def test_per_iteration_is_exact_for_a_plain_bias_add() -> None:
    n = 16
    module = xtir.parse(seed(n))
    a, b, c = inputs(n, seed_=6)
    fused = evaluate(
        xtir.transform(module, "fuse-reduction-epilogue{block=matmul epilogue=add mode=per-iteration}"),
        a, b, c, out_shape=(n, n),
    )
    np.testing.assert_allclose(fused, a @ b.T + c, rtol=1e-5, atol=1e-5)
    assert str(xtir.transform(module, FUSE)) == str(
        xtir.transform(module, "fuse-reduction-epilogue{block=matmul epilogue=add mode=per-iteration}")
    )


BLOCKIZE = 'split{loop="matmul/i" factors=-1,4},split{loop="matmul/j" factors=-1,4},split{loop=k factors=-1,4},' \
    "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1}"


@pytest.mark.parametrize(
    ("program", "prefix", "fuse_pass", "message"),
    [
        (seed(8).replace("arith.addf %t, %c", "arith.mulf %t, %c"), "", FuseReductionEpiloguePass("matmul", "add"),
         "combines temp\\[vi, vj\\] with arith.mulf, not an addition"),
        (relu_program(8), "", FuseReductionEpiloguePass("matmul", "add"), "not linear in temp"),
        (seed(8), "", FuseReductionEpiloguePass("matmul", "add", mode="fast"), "mode must be exact or per-iteration"),
        (seed(8), "", FuseReductionEpiloguePass("add", "matmul"), 'block "add" is not a reduction block'),
        (seed(16), BLOCKIZE, FuseReductionEpiloguePass("matmul", "add"), "fuse the epilogue first, then blockize"),
        (seed(16), BLOCKIZE, FuseReductionEpiloguePass("matmul_o", "add"), "fuse the epilogue first, then blockize"),
        (seed(8), "decompose-reduction{block=matmul loop=k}", FuseReductionEpiloguePass("matmul_update", "add"),
         "fuse the epilogue before decompose-reduction"),
    ],
)
def test_refusal_leaves_module_untouched(program: str, prefix: str, fuse_pass: FuseReductionEpiloguePass, message: str) -> None:
    module = xtir.parse(program)
    if prefix:
        module = xtir.transform(module, prefix)
    text = str(module)
    with pytest.raises(xtir.XtirPassError, match=message):
        fuse_pass.apply(Context(), module)
    assert str(module) == text


def test_function_returns_the_fused_block() -> None:
    module = xtir.parse(seed(8))
    (f,) = module.ops
    fused = fuse_reduction_epilogue(get_block(f, "matmul"), get_block(f, "add"), "exact")
    assert fused.label == "matmul" and fused.parent is not None
    assert [b.label for b in f.walk() if b.name == "block.block"] == ["matmul"]
    block = FuseReductionEpiloguePass("matmul", "add").schedule(xtir.parse(seed(8)))
    assert block.label == "matmul"


def test_blocks_of_different_functions() -> None:
    text = SEED.replace("1024", "8")
    body = text[text.index("func.func") : text.rindex("}")]
    module = xtir.parse("builtin.module {\n" + body.replace("@main", "@first") + body.replace("@main", "@second") + "}\n")
    first, second = module.ops
    with pytest.raises(xtir.XtirPassError, match='block "add" is not in the function of block "matmul"'):
        fuse_reduction_epilogue(get_block(first, "matmul"), get_block(second, "add"))


# Integer reduction and init 1: D = (1 + sum A) + C, in i32.
INT_ROWSUM = """
func.func @main(%A: memref<3x4xi32>, %C: memref<3xi32>, %D: memref<3xi32>) {
  %temp = block.alloc : memref<3xi32>
  block.for %i = 0 to 3 "i" {
    block.for %k = 0 to 4 "k" {
      block.block "rowsum"(%vi = spatial(3, %i), %vk = reduce(4, %k)) {
        block.init {
          %one = arith.constant 1 : i32
          block.store %one, %temp[%vi] : memref<3xi32>
        }
        %t = block.load %temp[%vi] : memref<3xi32>
        %a = block.load %A[%vi, %vk] : memref<3x4xi32>
        %sum = arith.addi %a, %t : i32
        block.store %sum, %temp[%vi] : memref<3xi32>
      }
    }
  }
  block.for %i = 0 to 3 "i" {
    block.block "add"(%vi = spatial(3, %i)) {
      %c = block.load %C[%vi] : memref<3xi32>
      %t = block.load %temp[%vi] : memref<3xi32>
      %d = arith.addi %c, %t : i32
      block.store %d, %D[%vi] : memref<3xi32>
    }
  }
  func.return
}
"""


def test_integer_reduction_with_nonzero_init() -> None:
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    c = np.array([10, -20, 30], dtype=np.int32)
    module = xtir.transform(xtir.parse(INT_ROWSUM), "fuse-reduction-epilogue{block=rowsum epilogue=add}")
    assert "arith.addi %c, %one" in str(module)  # the init is C + 1: the init value is kept
    d = np.zeros(3, dtype=np.int32)
    xtir.build(module)(a, c, d)  # (the reference evaluator's arith.addi rejects numpy int32 values)
    np.testing.assert_array_equal(d, 1 + a.sum(axis=1) + c)


def test_schedule_api_fuses_and_replays() -> None:
    """Schedule.fuse_reduction_epilogue runs the same pass; its trace replays to the same IR."""
    module = xtir.parse(re.sub(r"(?<!\d)1024(?!\d)", "16", (ROOT / "examples" / "matmul_bias.mlir").read_text()))
    sch = xtir.Schedule(module)
    fused = sch.fuse_reduction_epilogue(sch.get_block("matmul"), sch.get_block("add"))
    assert fused.name == "matmul"
    assert sch.trace == "fuse-reduction-epilogue{block=matmul epilogue=add}"
    assert str(xtir.transform(module, sch.trace)) == str(sch.mod)
    assert '"add"' not in str(sch.mod) and "%temp" not in str(sch.mod)
