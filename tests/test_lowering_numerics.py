"""lower-blocks / lower-accel keep the program's results: the reference evaluator on the
block-level IR, then the same evaluator (xDSL's interpreter on scf / memref / arith)
on the lowered IR, on the same random inputs."""

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir.lowering.pipelines import LowerBlocksPass

ROOT = Path(__file__).resolve().parent.parent

SEED = (
    "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
    "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},"
    'cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},'
    'compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},'
    'cache-write{block=matmul_o index=0 scope="global.accumulator"},'
    'reverse-compute-at{block="C_global.accumulator" loop=j_0},decompose-reduction{block=matmul_o loop=k_0}'
)
SEED_ACCEL = (
    SEED + ",tensorize{block=matmul_o_update intrin=tmm16},tensorize{block=matmul_o_init intrin=fill_zero16},"
    'tensorize{loop="A_global.A_reg/ax0" intrin=dma_copy16},tensorize{loop="B_global.B_reg/ax0" intrin=dma_copy16},'
    'tensorize{loop="C_global.accumulator/ax0" intrin=dma_copy16}'
)
# seed 002's schedule (tests/filecheck/passes/seed_gpu_window_sum.mlir) with 32 threads
WINDOW_SUM_COOP = (
    'split{loop=i factors=-1,32},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},'
    'cache-read{block=B index=0 scope="shared"},compute-at{block=A_shared loop=i_1},'
    'split{loop=ax0 factors=-1,32},bind{loop=ax0_1 thread="threadIdx.x"}'
)


def matmul(n: int) -> ModuleOp:
    text = (ROOT / "examples" / "matmul.mlir").read_text()
    return xtir.parse(re.sub(r"(?<!\d)1024(?!\d)", str(n), text))


def window_sum(n: int) -> ModuleOp:
    text = (ROOT / "examples" / "window_sum.mlir").read_text()
    return xtir.parse(text.replace("1026", str(n + 2)).replace("1024", str(n)))


def ops_of(module: ModuleOp) -> set[str]:
    return {op.name for op in module.walk()} - {"builtin.module"}


LOWERED_OPS = {"func.func", "func.return", "scf.for", "scf.if", "scf.yield", "memref.alloca", "memref.load", "memref.store"}


def check_lowered(module: ModuleOp) -> None:
    leftover = {name for name in ops_of(module) if name not in LOWERED_OPS and not name.startswith("arith.")}
    assert not leftover, f"ops left after lower-blocks: {leftover}"


def run(module: ModuleOp, shapes: list[tuple[int, ...]], seed: int = 0) -> list[np.ndarray]:
    """Evaluate with random inputs; the last argument is the output (NaN-filled)."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s, dtype=np.float32) for s in shapes[:-1]]
    arrays.append(np.full(shapes[-1], np.nan, dtype=np.float32))
    xtir.evaluate(module, *arrays)
    return arrays


def compare(before: ModuleOp, after: ModuleOp, shapes: list[tuple[int, ...]]) -> np.ndarray:
    expected = run(before, shapes)[-1]
    actual = run(after, shapes)[-1]
    assert not np.isnan(actual).any()
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    return actual


MATMUL_CASES = {
    "naive": (12, ""),
    "split_non_dividing": (10, "split{loop=i factors=-1,4},split{loop=k factors=-1,3}"),
    "reorder": (8, "reorder{loops=k,j,i}"),
    "fuse": (8, "fuse{loops=i,j}"),
    "fuse_then_split_non_dividing": (8, "fuse{loops=i,j},split{loop=i_j_fused factors=-1,7}"),
    "kinds": (8, "parallel{loop=i},vectorize{loop=j},unroll{loop=k},annotate{loop=k key=pragma_unroll_explicit value=4}"),
    "decompose_at_inner_loop": (8, "decompose-reduction{block=matmul loop=k}"),
    "cache_write_local": (8, 'cache-write{block=matmul index=0 scope="local"}'),
    "cache_read_compute_at": (
        16,
        'split{loop=k factors=-1,4},cache-read{block=matmul index=0 scope="local"},compute-at{block=A_local loop=k_0}',
    ),
    "seed_blockize": (16, "split{loop=i factors=-1,8},split{loop=j factors=-1,8},split{loop=k factors=-1,8},"
                      "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1}"),
}


@pytest.mark.parametrize("name", MATMUL_CASES)
def test_matmul_schedules(name: str) -> None:
    n, pipeline = MATMUL_CASES[name]
    scheduled = xtir.transform(matmul(n), pipeline) if pipeline else matmul(n)
    lowered = xtir.transform(scheduled, "lower-blocks")
    check_lowered(lowered)
    c = compare(scheduled, lowered, [(n, n)] * 3)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("pipeline", ["lower-blocks", "lower-accel,lower-blocks", "lower-blocks{compact=true}"])
def test_seed_walkthrough_with_accel_ops(pipeline: str) -> None:
    """Seed 001 at n=32: tmm16 / fill_zero16 / dma_copy16 in the loop nest, caches allocated."""
    scheduled = xtir.transform(matmul(32), SEED_ACCEL)
    assert {"accel.tmm16", "accel.fill_zero", "accel.dma_copy", "block.alloc"} <= ops_of(scheduled)
    lowered = xtir.transform(scheduled, pipeline)
    check_lowered(lowered)
    compare(scheduled, lowered, [(32, 32)] * 3)


def test_seed_walkthrough_before_tensorize() -> None:
    scheduled = xtir.transform(matmul(32), SEED)
    compare(scheduled, xtir.transform(scheduled, "lower-blocks"), [(32, 32)] * 3)


def test_lower_accel_alone() -> None:
    """lower-accel leaves the blocks: the evaluator runs the mixed IR."""
    scheduled = xtir.transform(matmul(32), SEED_ACCEL)
    mixed = xtir.transform(scheduled, "lower-accel")
    names = ops_of(mixed)
    assert not any(name.startswith("accel.") for name in names)
    assert "block.block" in names and "scf.for" in names
    compare(scheduled, mixed, [(32, 32)] * 3)


@pytest.mark.parametrize("func", ["tiles", "offsets"])
@pytest.mark.parametrize("pipeline", ["lower-accel", "lower-blocks"])
def test_accel_programs(func: str, pipeline: str) -> None:
    """The programs of tests/filecheck/lowering/lower_accel.mlir (every argument random:
    @offsets accumulates into its argument)."""
    module = xtir.parse_file(ROOT / "tests" / "filecheck" / "lowering" / "lower_accel.mlir")
    lowered = xtir.transform(module, pipeline)
    f = next(op for op in module.ops if op.sym_name.data == func)  # type: ignore[attr-defined]
    shapes = [tuple(t.get_shape()) for t in f.function_type.inputs.data]  # type: ignore[attr-defined]
    results = []
    for m in (module, lowered):
        rng = np.random.default_rng(1)
        arrays = [rng.standard_normal(shape, dtype=np.float32) for shape in shapes]
        xtir.evaluate(m, *arrays, func=func)
        results.append(arrays[-1])
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("pipeline", ["", WINDOW_SUM_COOP])
def test_window_sum(pipeline: str) -> None:
    """Seed 002's window sum; with the cooperative fetch into a shared buffer (thread-bound
    loops, a predicate on the fetch)."""
    n = 64
    scheduled = xtir.transform(window_sum(n), pipeline) if pipeline else window_sum(n)
    lowered = xtir.transform(scheduled, "lower-blocks")
    check_lowered(lowered)
    b = compare(scheduled, lowered, [(n + 2,), (n,)])
    a = run(scheduled, [(n + 2,), (n,)])[0]
    np.testing.assert_allclose(b, a[:-2] + a[1:-1] + a[2:], rtol=1e-6)


def test_loop_attributes() -> None:
    lowered = xtir.transform(xtir.transform(window_sum(64), WINDOW_SUM_COOP), "lower-blocks")
    loops = [op for op in lowered.walk() if op.name == "scf.for"]
    attrs = {op.attributes["xtir.loop_name"].data: op.attributes for op in loops}  # type: ignore[attr-defined]
    assert set(attrs) == {"i_0", "i_1", "ax0_0", "ax0_1"}
    assert attrs["i_0"]["xtir.thread"].data == "blockIdx.x"  # type: ignore[attr-defined]
    assert attrs["ax0_1"]["xtir.loop_kind"].data == "thread_binding"  # type: ignore[attr-defined]
    assert "xtir.loop_kind" not in attrs["ax0_0"]


def test_unexpected_op_is_refused() -> None:
    module = xtir.parse(
        """
        func.func @main(%A: memref<4xf32>) {
          %t = tensor.empty() : tensor<4xf32>
          func.return
        }
        """
    )
    with pytest.raises(xtir.XtirPassError, match="inline-blocks: unexpected op tensor.empty"):
        xtir.transform(module, "lower-blocks")


def test_pass_is_registered() -> None:
    assert LowerBlocksPass.name == "lower-blocks"


# `mod` is a floor mod (the verifier and the evaluator use Python's `%`); arith.remsi alone
# is negative for a negative operand, so A[(%vi - 1) mod 8] would read A[-1].
FLOOR_MOD = """
func.func @main(%A: memref<8xf32>, %B: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) where((%i - 3) mod 8 < 4) {
      %a = block.load %A[(%vi + 7) mod 8] : memref<8xf32>
      %b = block.load %A[(%vi - 1) mod 8] : memref<8xf32>
      %c = block.load %A[(2 - %vi * 3) mod 8] : memref<8xf32>
      %s = arith.addf %a, %b : f32
      %t = arith.addf %s, %c : f32
      block.store %t, %B[%vi] : memref<8xf32>
    }
  }
  func.return
}
"""


def test_floor_mod_of_negative_operands() -> None:
    module = xtir.parse(FLOOR_MOD)
    a = np.arange(1, 9, dtype=np.float32) * 10
    i = np.arange(8)
    expected = np.where((i - 3) % 8 < 4, 2 * a[(i - 1) % 8] + a[(2 - 3 * i) % 8], np.nan).astype(np.float32)
    for name, fn in [("evaluate", lambda b: xtir.evaluate(module, a, b)), ("build", lambda b: xtir.build(module)(a, b)),
                     ("lowered", lambda b: xtir.evaluate(xtir.transform(module, "lower-blocks"), a, b))]:
        b = np.full(8, np.nan, dtype=np.float32)
        fn(b)
        np.testing.assert_array_equal(b, expected, err_msg=name)


def test_floor_mod_decodes_to_its_expr() -> None:
    """decode (which compact-buffers uses to compare guards) reads the floor-mod pattern back
    as the Expr it was emitted from; a provably non-negative operand keeps a plain remsi."""
    from xdsl.dialects import arith

    from xtir.dialects.block import LoadOp
    from xtir.lowering.index_expr import IndexEmitter, decode

    module = xtir.parse(FLOOR_MOD)
    loads = [op for op in module.walk() if isinstance(op, LoadOp)]
    emitted = []
    for load in loads:
        (index,) = load.indices()
        emitted.append(IndexEmitter(load).expr(index))
        assert decode(emitted[-1]) == index
    assert isinstance(emitted[0].owner, arith.RemSIOp)  # (%vi + 7) mod 8
    assert isinstance(emitted[1].owner, arith.SelectOp)  # (%vi - 1) mod 8
