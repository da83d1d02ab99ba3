"""Schedule primitives that gave silent wrong results (issue 17): each program runs before and
after the schedule, in the reference evaluator and compiled, on outputs filled with NaN where
the program leaves them alone, so an element written that should not be (or not written that
should be) shows. A schedule a primitive refuses is fine; one it accepts must keep the results.
"""

from __future__ import annotations

import numpy as np
import pytest

import xtir
from tests.fuzz.schedules import matmul, matmul_bias, programs, window_sum

Arrays = list[np.ndarray]


def results(module, arrays: Arrays, compiled: bool) -> Arrays:
    out = [a.copy() for a in arrays]
    if compiled:
        xtir.build(module)(*out)
    else:
        xtir.evaluate(module, *out)
    return out


def assert_keeps(text: str, pipeline: str, arrays: Arrays, expected: Arrays) -> None:
    """`pipeline` applied to `text` gives `expected` in the evaluator and compiled (NaN where expected)."""
    module = xtir.transform(xtir.parse(text), pipeline)
    for compiled in (False, True):
        for n, (got, want) in enumerate(zip(results(module, arrays, compiled), expected)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True,
                                       err_msg=f"argument {n}, {'compiled' if compiled else 'evaluated'}")


def accepted_keeps(text: str, pipeline: str, arrays: Arrays) -> bool:
    """If the schedule is accepted, the evaluator gives what it gave before; returns whether accepted."""
    before = xtir.parse(text)
    try:
        after = xtir.transform(before, pipeline)
    except xtir.XtirPassError:
        return False
    for n, (got, want) in enumerate(zip(results(after, arrays, False), results(before, arrays, False))):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True, err_msg=f"argument {n}")
    return True


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def nan(*shape: int) -> np.ndarray:
    return np.full(shape, np.nan, dtype=np.float32)


# ---------------------------------------------------------------------------------------------
# 1. cache-write of a block that writes part of its buffer copies back only what it wrote.

# C[0:120] = 2 * A over a 128-element C: split by 16, the block runs under where(... < 120).
PART = """
func.func @main(%A: memref<128xf32>, %C: memref<128xf32>) {
  block.for %i = 0 to 120 "i" {
    block.block "B"(%v = spatial(128, %i)) {
      %a = block.load %A[%v] : memref<128xf32>
      %two = arith.constant 2.000000e+00 : f32
      %b = arith.mulf %a, %two : f32
      block.store %b, %C[%v] : memref<128xf32>
    }
  }
  func.return
}
"""

# Column 0 of C from A, then column 1 from D, in two nests.
COLUMNS = """
func.func @main(%A: memref<8xf32>, %D: memref<8xf32>, %C: memref<8x2xf32>) {
  block.for %i = 0 to 8 "i" {
    block.block "B0"(%v = spatial(8, %i)) {
      %a = block.load %A[%v] : memref<8xf32>
      block.store %a, %C[%v, 0] : memref<8x2xf32>
    }
  }
  block.for %i = 0 to 8 "i2" {
    block.block "B1"(%v = spatial(8, %i)) {
      %d = block.load %D[%v] : memref<8xf32>
      block.store %d, %C[%v, 1] : memref<8x2xf32>
    }
  }
  func.return
}
"""

# A 10x12 matmul into the first 10 rows of a 12x12 C.
ROWS = matmul(12).text.replace('block.for %i = 0 to 12 "i"', 'block.for %i = 0 to 10 "i"')
assert ROWS != matmul(12).text


@pytest.mark.parametrize("pipeline", [
    'split{loop=i factors=-1,16},cache-write{block=B index=0 scope="local"}',
    'split{loop=i factors=-1,16},cache-write{block=B index=0 scope="local"},reverse-compute-at{block=C_local loop=i_0}',
    'split{loop=i factors=-1,16},cache-write{block=B index=0 scope="local"},reverse-compute-inline{block=C_local}',
])
def test_cache_write_of_a_predicated_block_keeps_the_rest(pipeline: str) -> None:
    a, c = rand(128), rand(128, seed=1)
    want = c.copy()
    want[:120] = 2 * a[:120]
    assert_keeps(PART, pipeline, [a, c], [a, want])


def test_cache_write_of_one_column_keeps_the_other() -> None:
    a, d = rand(8), rand(8, seed=1)
    assert_keeps(COLUMNS, 'cache-write{block=B1 index=0 scope="local"}', [a, d, nan(8, 2)],
                 [a, d, np.stack([a, d], axis=1)])


@pytest.mark.parametrize("pipeline", [
    'cache-write{block=matmul index=0 scope="local"}',
    'split{loop=k factors=-1,5},cache-write{block=matmul index=0 scope="local"},'
    "reverse-compute-at{block=C_local loop=j}",
    'fuse{loops=i,j},split{loop=i_j_fused factors=-1,7},cache-write{block=matmul index=0 scope="local"}',
])
def test_cache_write_of_some_rows_keeps_the_others(pipeline: str) -> None:
    a, b = rand(12, 12), rand(12, 12, seed=1)
    want = nan(12, 12)
    want[:10] = a[:10] @ b.T
    assert_keeps(ROWS, pipeline, [a, b, nan(12, 12)], [a, b, want])


# ---------------------------------------------------------------------------------------------
# 2. decompose-reduction hoists the init only when it runs at each instance's first iteration.

SUM = """
func.func @main(%A: memref<4x12xf32>, %C: memref<4xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 6 "k" {
      block.block "S"(%vi = spatial(4, %i), %vk = reduce(12, BINDING)) {
        block.init {
          %z = arith.constant 0.000000e+00 : f32
          block.store %z, %C[%vi] : memref<4xf32>
        }
        %c = block.load %C[%vi] : memref<4xf32>
        %a = block.load %A[%vi, %vk] : memref<4x12xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32>
      }
    }
  }
  func.return
}
"""


@pytest.mark.parametrize(("binding", "legal"), [
    ("%k", True), ("%k * 2", True), ("5 - %k", False), ("11 - %k * 2", False), ("(%k + 3) mod 6", False),
    ("%k + 1", False),
])
@pytest.mark.parametrize("pre", ["", "reorder{loops=k,i},", "fuse{loops=i,k},split{loop=i_k_fused factors=-1,5},"])
def test_decompose_reduction_with_late_init_is_refused(binding: str, legal: bool, pre: str) -> None:
    text = SUM.replace("BINDING", binding)
    loop = {"": "k", "reorder{loops=k,i},": "k", "fuse{loops=i,k},split{loop=i_k_fused factors=-1,5},": "i_k_fused_0"}
    accepted = accepted_keeps(text, f"{pre}decompose-reduction{{block=S loop={loop[pre]}}}", [rand(4, 12), nan(4)])
    assert accepted == legal


# ---------------------------------------------------------------------------------------------
# 3. decompose-reduction does not hoist an init above what it reads.

# D = A·Bᵀ + C, the bias C read through a cache computed per (i, j).
BIAS = matmul_bias(6).text

BIAS_CACHED = ('fuse-reduction-epilogue{block=matmul epilogue=add},cache-read{block=matmul index=0 scope="local"},'
               "compute-at{block=C_local loop=j},")


@pytest.mark.parametrize(("loop", "legal"), [("i", False), ("j", False), ("k", True)])
def test_decompose_reduction_keeps_the_init_after_its_inputs(loop: str, legal: bool) -> None:
    arrays = [rand(6, 6), rand(6, 6, seed=1), rand(6, 6, seed=2), nan(6, 6)]
    assert accepted_keeps(BIAS, f"{BIAS_CACHED}decompose-reduction{{block=matmul loop={loop}}}", arrays) == legal


# Per row i: E (a copy of D's old row), then the reduction into D's row.
OLD_ROW = """
func.func @main(%A: memref<4x3xf32>, %D: memref<4x2xf32>, %E: memref<4x2xf32>) {
  block.for %i = 0 to 4 "i" {
    block.for %j = 0 to 2 "j" {
      block.block "E"(%vi = spatial(4, %i), %vj = spatial(2, %j)) {
        %d = block.load %D[%vi, %vj] : memref<4x2xf32>
        block.store %d, %E[%vi, %vj] : memref<4x2xf32>
      }
    }
    block.for %j = 0 to 2 "jj" {
      block.for %k = 0 to 3 "k" {
        block.block "S"(%vi = spatial(4, %i), %vj = spatial(2, %j), %vk = reduce(3, %k)) {
          block.init {
            %z = arith.constant 0.000000e+00 : f32
            block.store %z, %D[%vi, %vj] : memref<4x2xf32>
          }
          %c = block.load %D[%vi, %vj] : memref<4x2xf32>
          %a = block.load %A[%vi, %vk] : memref<4x3xf32>
          %s = arith.addf %c, %a : f32
          block.store %s, %D[%vi, %vj] : memref<4x2xf32>
        }
      }
    }
  }
  func.return
}
"""


@pytest.mark.parametrize(("loop", "legal"), [("i", False), ("jj", True)])
def test_decompose_reduction_keeps_the_init_after_earlier_readers(loop: str, legal: bool) -> None:
    arrays = [rand(4, 3), rand(4, 2, seed=1), nan(4, 2)]
    assert accepted_keeps(OLD_ROW, f"decompose-reduction{{block=S loop={loop}}}", arrays) == legal


def test_decompose_reduction_above_a_consumer_of_the_same_iteration() -> None:
    """The write-back of a cache, moved under j, reads only the tile the reduction finished there."""
    a, b = rand(12, 12), rand(12, 12, seed=1)
    want = nan(12, 12)
    want[:10] = a[:10] @ b.T
    pipeline = ('cache-write{block=matmul index=0 scope="local"},reverse-compute-at{block=C_local loop=j},'
                "decompose-reduction{block=matmul loop=i}")
    assert_keeps(ROWS, pipeline, [a, b, nan(12, 12)], [a, b, want])


# ---------------------------------------------------------------------------------------------
# 4. reverse-compute-at of a consumer that updates its output in place.

INPLACE = """
func.func @main(%A: memref<8x4xf32>, %U: memref<8xf32>) {
  %T = block.alloc : memref<8xf32>
  block.for %k = 0 to 4 "k" {
    block.for %i = 0 to 8 "i" {
      block.block "T"(%vi = spatial(8, %i), %vk = reduce(4, %k)) {
        block.init {
          %z = arith.constant 0.000000e+00 : f32
          block.store %z, %T[%vi] : memref<8xf32>
        }
        %t = block.load %T[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x4xf32>
        %s = arith.addf %t, %a : f32
        block.store %s, %T[%vi] : memref<8xf32>
      }
    }
  }
  block.for %j = 0 to 8 "j" {
    block.block "U"(%vj = spatial(8, %j)) {
      %u = block.load %U[%vj] : memref<8xf32>
      %h = arith.constant 5.000000e-01 : f32
      %m = arith.mulf %u, %h : f32
      %t = block.load %T[%vj] : memref<8xf32>
      %s = arith.addf %m, %t : f32
      block.store %s, %U[%vj] : memref<8xf32>
    }
  }
  func.return
}
"""


@pytest.mark.parametrize("pipeline", ["reverse-compute-at{block=U loop=k}", "reverse-compute-at{block=U loop=i}",
                                      "reorder{loops=i,k},reverse-compute-at{block=U loop=i}"])
def test_reverse_compute_at_of_an_update_in_place_is_refused(pipeline: str) -> None:
    assert not accepted_keeps(INPLACE, pipeline, [rand(8, 4), rand(8, seed=1)])


def test_reverse_compute_at_of_a_complete_consumer_after_the_reduction() -> None:
    text = INPLACE.replace("%u = block.load %U[%vj] : memref<8xf32>", "%u = arith.constant 1.0 : f32")
    a = rand(8, 4)
    assert_keeps(text, "reorder{loops=i,k},reverse-compute-at{block=U loop=i}", [a, nan(8)], [a, 0.5 + a.sum(1)])


# ---------------------------------------------------------------------------------------------
# 6. Predicates are conjoined and carried, never replaced or dropped.

# C[0:10] = 2 * A[0:10]: the producer runs under where(e < 10) in a 16-iteration loop.
PRODUCER_WHERE = """
func.func @main(%A: memref<16xf32>, %C: memref<16xf32>) {
  %B = block.alloc : memref<16xf32>
  block.for %e = 0 to 16 "e" {
    block.block "B"(%ve = spatial(16, %e)) where(%e < 10) {
      %a = block.load %A[%ve] : memref<16xf32>
      %two = arith.constant 2.000000e+00 : f32
      %b = arith.mulf %a, %two : f32
      block.store %b, %B[%ve] : memref<16xf32>
    }
  }
  block.for %i = 0 to 10 "i" {
    block.block "C"(%vi = spatial(16, %i)) {
      %b = block.load %B[%vi] : memref<16xf32>
      block.store %b, %C[%vi] : memref<16xf32>
    }
  }
  func.return
}
"""


@pytest.mark.parametrize("pipeline", [
    "reverse-compute-inline{block=C}",
    "split{loop=e factors=-1,5},reverse-compute-inline{block=C}",
    "split{loop=e factors=-1,5},reverse-compute-at{block=C loop=e_0}",
    "split{loop=e factors=-1,5},reverse-compute-at{block=C loop=e_0},reverse-compute-inline{block=C}",
])
def test_predicates_survive_inlining_and_moves(pipeline: str) -> None:
    a = rand(16)
    want = nan(16)
    want[:10] = 2 * a[:10]
    assert_keeps(PRODUCER_WHERE, pipeline, [a, nan(16)], [a, want])


def test_reverse_compute_inline_keeps_every_conjunct() -> None:
    """The issue's program: two conjuncts on one expression (the split's `< 16` after the original
    `< 10`) were merged through a dict that kept the last; the consumer runs all 16 elements."""
    text = PRODUCER_WHERE.replace('block.for %i = 0 to 10 "i"', 'block.for %i = 0 to 16 "i"')
    module = xtir.transform(xtir.parse(text), "split{loop=e factors=-1,5},reverse-compute-inline{block=C}")
    assert "where(%e0 * 5 + %e1 < 10)" in str(module)
    a = rand(16)
    want = nan(16)
    want[:10] = 2 * a[:10]
    for compiled in (False, True):
        np.testing.assert_array_equal(results(module, [a, nan(16)], compiled)[1], want)


# T[v] = A[v + 6] for v < 10 only (A has 16 elements), read in tiles of 4 by a split consumer.
GUARDED_READ = """
func.func @main(%A: memref<16xf32>, %C: memref<10xf32>) {
  %T = block.alloc : memref<16xf32>
  block.for %i = 0 to 16 "i" {
    block.block "T"(%v = spatial(16, %i)) where(%i < 10) {
      %a = block.load %A[%v + 6] : memref<16xf32>
      block.store %a, %T[%v] : memref<16xf32>
    }
  }
  block.for %j = 0 to 10 "j" {
    block.block "C"(%w = spatial(10, %j)) {
      %t = block.load %T[%w] : memref<16xf32>
      block.store %t, %C[%w] : memref<10xf32>
    }
  }
  func.return
}
"""


def test_compute_at_carries_the_predicate_guarding_a_read() -> None:
    a = rand(16)
    assert_keeps(GUARDED_READ, "split{loop=j factors=-1,4},compute-at{block=T loop=j_0}", [a, nan(10)], [a, a[6:]])



# ---------------------------------------------------------------------------------------------
# Round 2. 8. compute-at covers what the consumers read even where what one instance of the moved
# block writes is less than its derived region (a predicate cuts the loops inside it).

WINDOW33 = window_sum(33).text
BLOCKIZED_COPY = "cache-read{block=B index=0 scope=shared},split{loop=ax0 factors=35,-1},blockize{loop=ax0_1},"


@pytest.mark.parametrize("pipeline", [
    "split{loop=ax0_1 factors=7,2},compute-at{block=A_shared_o loop=i}",  # the schedule
    "split{loop=ax0_1 factors=3,3},compute-at{block=A_shared_o loop=i}",
    "split{loop=ax0_1 factors=-1,16},split{loop=i factors=-1,4},compute-at{block=A_shared_o loop=i_0}",
    "split{loop=ax0_1 factors=2,-1},split{loop=i factors=-1,2},compute-at{block=A_shared_o loop=i_1}",
])
def test_compute_at_of_a_blockized_copy_computes_the_whole_window(pipeline: str) -> None:
    a = rand(35)
    assert_keeps(WINDOW33, BLOCKIZED_COPY + pipeline, [a, nan(33)], [a, a[:-2] + a[1:-1] + a[2:]])


# Each instance of P writes T[vp] (Q's predicate keeps k = 0), though its region is T[vp:vp + 4];
# with VALUE = %vp + %vq each element's value is its index's A, with %vp instances overwrite
# each other (the last one that writes an element decides it).
CUT = """
func.func @main(%A: memref<21xf32>, %B: memref<16xf32>) {
  %T = block.alloc : memref<21xf32>
  block.for %p = 0 to 18 "p" {
    block.block "P"(%vp = spatial(18, %p)) {
      block.for %k = 0 to 4 "k" {
        block.block "Q"(%vq = spatial(4, %k)) WHERE {
          %a = block.load %A[VALUE] : memref<21xf32>
          block.store %a, %T[%vp + %vq] : memref<21xf32>
        }
      }
    }
  }
  block.for %i = 0 to 16 "i" {
    block.block "B"(%vi = spatial(16, %i)) {
      %t0 = block.load %T[%vi] : memref<21xf32>
      %t2 = block.load %T[%vi + 2] : memref<21xf32>
      %s = arith.addf %t0, %t2 : f32
      block.store %s, %B[%vi] : memref<16xf32>
    }
  }
  func.return
}
"""


@pytest.mark.parametrize("where", ["where(%k < 1)", ""])
@pytest.mark.parametrize("value", ["%vp + %vq", "%vp"])
@pytest.mark.parametrize("pipeline", ["compute-at{block=P loop=i}", "reverse-compute-at{block=B loop=p}",
                                      "split{loop=i factors=-1,4},compute-at{block=P loop=i_0}"])
def test_moves_keep_results_when_instances_write_less_or_overlap(where: str, value: str, pipeline: str) -> None:
    accepted_keeps(CUT.replace("WHERE", where).replace("VALUE", value), pipeline, [rand(21), nan(16)])


def test_reverse_compute_at_after_a_strided_producer_runs_each_instance_last_after_its_input() -> None:
    """The producer writes columns i and i + 4 in iteration i; its region spans i .. i + 4, so
    instances run before their column is written, and again (last) after it."""
    prog = matmul(8)
    pipeline = ('cache-write{block=matmul index=0 scope=global},split{loop="C_global/ax1" factors=-1,4},'
                'cache-write{block=C_global index=0 scope="global.A_reg"},'
                'reorder{loops="C_global/ax1_1","C_global/ax0"},fuse{loops="C_global/ax1_0","C_global/ax0"},'
                'reverse-compute-at{block="C_global.A_reg" loop="C_global/ax1_1"}')
    a, b = rand(8, 8), rand(8, 8, seed=1)
    assert_keeps(prog.text, pipeline, [a, b, nan(8, 8)], [a, b, a @ b.T])


# ---------------------------------------------------------------------------------------------
# 9. Reduction steps keep their order relative to the init where it does not run first.

# T[i] = sum of A[i, k] over the steps from the init on; B = T.
INIT_ORDER = """
func.func @main(%A: memref<4x6xf32>, %B: memref<4xf32>) {
  %T = block.alloc : memref<4xf32>
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 6 "k" {
      block.for %r = 0 to REPEAT "r" {
        block.block "T"(%vi = spatial(4, %i), %vk = reduce(6, BINDING)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %T[%vi] : memref<4xf32>
          }
          %t = block.load %T[%vi] : memref<4xf32>
          %a = block.load %A[%vi, %vk] : memref<4x6xf32>
          %s = arith.addf %t, %a : f32
          block.store %s, %T[%vi] : memref<4xf32>
        }
      }
    }
  }
  block.for %j = 0 to 4 "j" {
    block.block "B"(%vj = spatial(4, %j)) {
      %t = block.load %T[%vj] : memref<4xf32>
      block.store %t, %B[%vj] : memref<4xf32>
    }
  }
  func.return
}
"""


@pytest.mark.parametrize(("binding", "repeat", "legal"), [
    ("%k", 1, True), ("5 - %k", 1, False), ("(%k + 3) mod 6", 1, False), ("%k", 2, False),
])
@pytest.mark.parametrize("pipeline", [
    "split{loop=k factors=2,3},reorder{loops=k_1,k_0}", "split{loop=k factors=3,2},reorder{loops=k_1,k_0}",
    "compute-at{block=T loop=j}", "reorder{loops=r,k}", "blockize{loop=r}", "blockize{loop=i}",
])
def test_reduction_steps_move_only_when_the_init_runs_first(binding: str, repeat: int, legal: bool,
                                                             pipeline: str) -> None:
    text = INIT_ORDER.replace("BINDING", binding).replace("REPEAT", str(repeat))
    accepted = accepted_keeps(text, pipeline, [rand(4, 6), nan(4)])
    assert accepted or not legal


# ---------------------------------------------------------------------------------------------
# 10. What the schedule accepts under a parallel loop, the build compiles.

@pytest.mark.parametrize(("program", "pipeline"), [
    ("window_sum10", "cache-read{block=B index=0 scope=shared consumers=B},parallel{loop=i},"
                     "compute-at{block=A_shared loop=i},split{loop=ax0 factors=7,-1}"),
    ("window_sum10", "cache-read{block=B index=0 scope=global},parallel{loop=i},blockize{loop=ax0},"
                     "compute-at{block=A_global_o loop=i},cache-read{block=A_global index=0 scope=shared}"),
    ("window_sum10", "parallel{loop=i},split{loop=i factors=11,-1,2},cache-read{block=B index=0 scope=local},"
                     "fuse{loops=i_1,i_2},parallel{loop=i_1_i_2_fused},compute-at{block=A_local loop=i_1_i_2_fused}"),
    ("window_sum16", 'cache-read{block=B index=0 scope="global.A_reg"},cache-read{block="A_global.A_reg" index=0 '
                     'scope=global},blockize{loop="A_global/ax0"},parallel{loop="A_global.A_reg/ax0"},'
                     'compute-at{block=A_global_o loop="A_global.A_reg/ax0"}'),
    ("matmul_bias8", 'parallel{loop="add/i"},blockize{loop="matmul/i"},compute-at{block=matmul_o loop="add/j"}'),
    ("matmul8", 'parallel{loop="matmul/j"},cache-read{block=matmul index=1 scope=shared},split{loop=ax1 factors=1,-1},'
                "blockize{loop=ax0},compute-at{block=B_shared_o loop=k}"),
    ("matmul8", "cache-write{block=matmul index=0 scope=global},split{loop=ax1 factors=-1,4},"
                'cache-write{block=C_global index=0 scope="global.A_reg"},reorder{loops=ax1_1,"C_global/ax0"},'
                'fuse{loops=ax1_0,"C_global/ax0"},parallel{loop=ax1_1},'
                'reverse-compute-at{block="C_global.A_reg" loop=ax1_1}'),
])
def test_primitives_under_a_parallel_loop_are_refused_or_build(program: str, pipeline: str) -> None:
    try:
        module = xtir.transform(programs()[program].module, pipeline)
    except xtir.XtirPassError:
        return
    xtir.build(module)
