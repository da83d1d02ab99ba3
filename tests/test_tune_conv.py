"""The default space on convolutions and poolings: the kernel window unrolled whole inside the
reduction, the vectorized loop in whole vectors (the filters when the width has none), and a
short tuning run that finds a correct schedule."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

import xtir
from tests.test_tune import conv2d, loops_of
from xtir import te, topi
from xtir.dialects.block import UNROLLED, VECTORIZED, ForOp
from xtir.tune import default_space, search
from xtir.tune.spaces import LANES

SEEDS = range(6)


def sampled(mod: ModuleOp, seed: int) -> xtir.Schedule:
    sch = xtir.Schedule(mod, seed=seed)
    default_space(sch)
    return sch


def enclosing_labels(loop: ForOp) -> list[str]:
    labels, op = [], loop.parent_op()
    while op is not None:
        if isinstance(op, ForOp):
            labels.append(op.label)
        op = op.parent_op()
    return labels


def test_the_kernel_window_is_unrolled_whole_inside_the_reduction() -> None:
    """ry and rx (3x3) are not split: unrolled whole, inside the channel loop's R1."""
    mod = conv2d(channels=4, size=14, filters=32)[0]
    for seed in SEEDS:
        sch = sampled(mod, seed)
        assert "split{loop=ry" not in sch.trace and "split{loop=rx" not in sch.trace, sch.trace
        window = {lp.label: lp for lp in loops_of(sch, UNROLLED) if lp.label in ("ry", "rx")}
        assert set(window) == {"ry", "rx"}, sch.trace
        assert enclosing_labels(window["rx"])[:2] == ["ry", "rc_1"], sch.trace


def test_a_convolution_vectorizes_whole_vectors_of_filters_or_its_width() -> None:
    """14 pixels wide is no whole vector, 32 filters are: either is sampled; along the filters
    the weight is packed and the accumulator permuted to make them contiguous."""
    mod = conv2d(channels=4, size=14, filters=32)[0]
    chosen = set()
    for seed in SEEDS:
        sch = sampled(mod, seed)
        (vector,) = [lp for lp in loops_of(sch, VECTORIZED) if lp.label in ("ff_1", "xx_1")]
        chosen.add(vector.label)
        permuted = ("transform-layout{buffer=w_global permutation=1,2,3,0}" in sch.trace
                    and "transform-layout{buffer=conv2d_nchw_local permutation=0,2,3,1}" in sch.trace)
        assert permuted == (vector.label == "ff_1"), sch.trace
        if vector.label == "ff_1":
            assert vector.extent % LANES == 0, sch.trace
    assert chosen == {"ff_1", "xx_1"}


def max_pool() -> tuple[ModuleOp, np.ndarray, np.ndarray]:
    x = te.placeholder((1, 16, 5, 5), name="x")
    y = topi.max_pool2d(x, 3, strides=1, padding=1)
    xs = np.random.default_rng(0).standard_normal(x.shape, dtype=np.float32)
    padded = np.pad(xs, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    expected = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3)).max(axis=(4, 5))
    return ModuleOp([te.create_func([x, y], "main")]), xs, expected


def test_a_pooling_whose_reduce_loops_are_all_window_is_scheduled_correctly() -> None:
    """No reduce loop but the window's: the init is decomposed before the window's loops.
    (The convolution's numbers: test_tune.py's test of the default space on each workload.)"""
    mod, xs, expected = max_pool()
    for seed in range(3):
        sch = sampled(mod, seed)
        got = np.empty(expected.shape, np.float32)
        xtir.build(sch.mod)(xs, got)
        np.testing.assert_allclose(got, expected, err_msg=f"seed {seed}: {sch.trace}")


def test_a_short_tuning_run_on_a_convolution_finds_a_correct_schedule() -> None:
    mod, arrays, expected = conv2d(channels=8, size=10, filters=16)
    result = search(mod, trials=4, seed=0, cost_model="none")
    assert result.failures == 0 and result.best is not None
    xtir.build(result.best.mod)(*arrays)
    np.testing.assert_allclose(arrays[-1], expected, rtol=1e-4, atol=1e-4)
