"""Every schedule primitive keeps the program's results: reference evaluator before and after."""

import re

import numpy as np
import pytest

import xtir

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def small_matmul(n: int):
    text = (ROOT / "examples" / "matmul.mlir").read_text()
    return xtir.parse(re.sub(r"(?<!\d)1024(?!\d)", str(n), text))


def run_matmul(module, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    c = np.full((n, n), np.nan, dtype=np.float32)
    xtir.evaluate(module, a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)
    return c


PIPELINES = {
    "split": (32, "split{loop=i factors=-1,8}"),
    "split_non_dividing": (30, "split{loop=i factors=-1,8},split{loop=k factors=4,-1}"),
    "split_three_way": (32, "split{loop=j factors=2,-1,4}"),
    "reorder": (16, "reorder{loops=k,j,i}"),
    "fuse": (16, "fuse{loops=i,j}"),
    "fuse_then_split_non_dividing": (16, "fuse{loops=i,j},split{loop=i_j_fused factors=-1,7},parallel{loop=i_j_fused_0}"),
    "seed_blockize": (
        32,
        "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
        "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1}",
    ),
    "seed_decompose": (
        32,
        "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
        "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},decompose-reduction{block=matmul_o loop=k_0}",
    ),
    "seed_caches": (
        32,
        "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
        "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},"
        'cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},'
        'cache-write{block=matmul_o index=0 scope="global.accumulator"},decompose-reduction{block=matmul_o loop=k_0}',
    ),
    "seed_walkthrough": (
        32,
        "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
        "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},"
        'cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},'
        'compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},'
        'cache-write{block=matmul_o index=0 scope="global.accumulator"},'
        'reverse-compute-at{block="C_global.accumulator" loop=j_0},decompose-reduction{block=matmul_o loop=k_0}',
    ),
    # j and k fused feed spatial vj and reduce vk: moving the fused loop past i (which feeds
    # only vi) keeps each output's reduction steps in order, so the init still runs first.
    "reorder_fused_spatial_reduce_past_spatial": (6, "fuse{loops=j,k},reorder{loops=j_k_fused,i}"),
    "reorder_fused_split_past_spatial": (
        12,
        "split{loop=k factors=-1,3},fuse{loops=j,k_0},reorder{loops=j_k_0_fused,i,k_1}",
    ),
    "cache_write_unscheduled": (16, 'cache-write{block=matmul index=0 scope="local"}'),
    "decompose_at_inner_loop": (16, "decompose-reduction{block=matmul loop=k}"),
    "kinds": (16, "vectorize{loop=j},unroll{loop=k},parallel{loop=i}"),
    # decompose-reduction must prove each instance runs once below the loop; these it can.
    "decompose_over_fused_loop": (16, "fuse{loops=i,j},decompose-reduction{block=matmul loop=i_j_fused}"),
    "decompose_over_split_fused_loop": (
        12,
        "fuse{loops=i,j},split{loop=i_j_fused factors=-1,5},decompose-reduction{block=matmul loop=i_j_fused_0}",
    ),
    "decompose_over_three_fused_loops": (8, "fuse{loops=i,j,k},decompose-reduction{block=matmul loop=i_j_k_fused}"),
    "decompose_after_compute_at": (
        12,
        'cache-write{block=matmul index=0 scope="global"},reverse-compute-at{block=C_global loop=j},'
        "split{loop=k factors=-1,4},decompose-reduction{block=matmul loop=j}",
    ),
}


@pytest.mark.parametrize("name", PIPELINES)
def test_pipeline_keeps_results(name: str) -> None:
    n, pipeline = PIPELINES[name]
    module = small_matmul(n)
    before = run_matmul(module, n)
    after = run_matmul(xtir.transform(module, pipeline), n)
    np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-5)


# k = 60 split by 8: the reduction gets the tail predicate `k_0 * 8 + k_1 < 60`.
K_TAIL = {
    "reorder_reduction_outermost": "split{loop=k factors=-1,8},reorder{loops=k_0,k_1,i,j}",
    "reorder_tail_loops_swapped": "split{loop=k factors=-1,8},reorder{loops=k_1,i,k_0,j}",
    "decompose_vectorize": "split{loop=k factors=-1,8},split{loop=j factors=-1,4},reorder{loops=i,k_0,j_0,k_1,j_1},"
                           "decompose-reduction{block=matmul loop=k_0},vectorize{loop=j_1}",
    "decompose_unroll": "split{loop=k factors=-1,8},decompose-reduction{block=matmul loop=k_0},unroll{loop=k_1}",
    "decompose_outermost_parallel": "split{loop=k factors=-1,8},split{loop=j factors=-1,8},"
                                    "reorder{loops=i,j_0,k_0,k_1,j_1},decompose-reduction{block=matmul loop=i},"
                                    "vectorize{loop=j_1},parallel{loop=i}",
}


@pytest.mark.parametrize("name", K_TAIL)
def test_reduction_with_a_partial_k_tile(name: str) -> None:
    """The schedule is accepted, and both the evaluator and the CPU build give numpy's numbers."""
    module = xtir.transform(small_matmul(60), K_TAIL[name])
    run_matmul(module, 60)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((60, 60), dtype=np.float32), rng.standard_normal((60, 60), dtype=np.float32)
    c = np.full((60, 60), np.nan, dtype=np.float32)
    xtir.build(module)(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)


def test_decompose_proves_a_large_fused_loop_without_enumerating() -> None:
    """2^22 iterations of a fused loop: floordiv/mod by the same divisor take each (vi, vj) once."""
    module = small_matmul(2048)
    after = xtir.transform(module, "fuse{loops=i,j},decompose-reduction{block=matmul loop=i_j_fused}")
    assert '"matmul_init"' in str(after)


def test_transform_leaves_input_untouched() -> None:
    module = small_matmul(16)
    text = str(module)
    xtir.transform(module, "split{loop=i factors=-1,4}")
    assert str(module) == text


def test_illegal_schedule_raises_pass_error() -> None:
    with pytest.raises(xtir.XtirPassError, match='loop "k" feeds reduce iteration variable'):
        xtir.transform(small_matmul(16), "parallel{loop=k}")


TWO_CONSUMERS = (ROOT / "tests" / "filecheck" / "passes" / "cache_read_consumers.mlir").read_text()


@pytest.mark.parametrize("consumers", [None, ["second"]])
def test_cache_read_consumers_keep_results(consumers) -> None:
    """cache_read with TVM's default (every reader uses the cache) and with consumer_blocks."""
    module = xtir.parse(TWO_CONSUMERS)
    sch = xtir.Schedule(module)
    blocks = None if consumers is None else [sch.get_block(name) for name in consumers]
    sch.cache_read(sch.get_block("second"), 0, "shared", consumer_blocks=blocks)
    assert str(xtir.transform(module, sch.trace)) == str(sch.mod)
    rng = np.random.default_rng(1)
    a = rng.standard_normal(8, dtype=np.float32)
    results = []
    for m in (module, sch.mod):
        b, c, d = (np.full(8, np.nan, dtype=np.float32) for _ in range(3))
        xtir.evaluate(m, a, b, c, d)
        results.append((b, c, d))
    for before, after in zip(*results):
        np.testing.assert_array_equal(before, after)
    assert ("A_shared[%vi]" in str(sch.mod).split('"other"')[0]) == (consumers is None)


CALL_AFTER_CONSUMER = (ROOT / "tests" / "filecheck" / "passes" / "cache_write_consumers_call.mlir").read_text()


def test_cache_write_consumers_write_back_before_a_call_taking_the_buffer() -> None:
    """@helper copies B into H after consumer "C": the write-back must run before the call, which
    used to see B before "B" wrote it (the write-back went to the end of the function)."""
    module = xtir.parse(CALL_AFTER_CONSUMER)
    sch = xtir.Schedule(module, func_name="main")
    sch.cache_write("B", 0, "local", consumer_blocks=["C"])
    rng = np.random.default_rng(2)
    a = rng.standard_normal(8, dtype=np.float32)
    results = []
    for m in (module, sch.mod):
        b, c, h = (np.full(8, np.nan, dtype=np.float32) for _ in range(3))
        xtir.evaluate(m, a, b, c, h, func="main")
        results.append((b, c, h))
    for before, after in zip(*results):
        np.testing.assert_array_equal(before, after)


def test_reorder_fused_spatial_reduce_loop_past_a_spatial_loop_builds() -> None:
    """fuse(j, k); reorder(j_k_fused, i) through the Schedule API, compiled and evaluated: reorder
    used to refuse it (any move of a loop feeding a spatial and a reduce variable)."""
    n = 6
    sch = xtir.Schedule(small_matmul(n))
    block = sch.get_block("matmul")
    i, j, k = sch.get_loops(block)
    fused = sch.fuse(j, k)
    sch.reorder(fused, i)
    assert [lp.name for lp in sch.get_loops(block)] == ["j_k_fused", "i"]
    run_matmul(sch.mod, n)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)
    c = np.full((n, n), np.nan, dtype=np.float32)
    xtir.build(sch.mod)(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)
