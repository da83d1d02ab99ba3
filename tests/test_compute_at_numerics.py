"""compute-at and reverse-compute-at keep the program's results: the reference evaluator
before and after, on random inputs, against numpy where the program has a closed form.

Three groups:
- every small function of the positive lit files (tests/filecheck/passes/compute_at.mlir
  and reverse_compute_at.mlir), under the pipelines of their RUN lines;
- the seed schedules that use the two primitives (GPU matmul blocking, window sum with
  cooperative fetching, the tensorization walkthrough), on scaled-down examples;
- hazards: a move that would reorder a write and a read of one buffer must be refused
  (or leave the results unchanged), and a move that reorders nothing must be accepted.

Buffers allocated inside a function start as NaN in the evaluator, so a read of an
element the moved block no longer computes shows up in the results.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp

import xtir

ROOT = Path(__file__).resolve().parent.parent
LIT = ROOT / "tests" / "filecheck" / "passes"

_RUN = re.compile(r"^// RUN: xtir-opt %s -p '([^']*)' \| filecheck %s(?: --check-prefix=(\w+))?$", re.M)


def run_pipelines(path: Path) -> dict[str, str]:
    """The pipeline of each positive RUN line of a lit file, by its FileCheck prefix."""
    return {prefix or "CHECK": pipeline for pipeline, prefix in _RUN.findall(path.read_text())}


def random_arguments(module: ModuleOp, name: str, seed: int) -> list[np.ndarray]:
    """Random float32 arrays for the memref arguments of function `name`."""
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == name)
    rng = np.random.default_rng(seed)
    arrays = []
    for t in f.function_type.inputs.data:
        assert isinstance(t, MemRefType)
        arrays.append(rng.standard_normal(tuple(t.get_shape())).astype(np.float32))
    return arrays


def evaluate_copy(module: ModuleOp, arrays: list[np.ndarray], name: str = "main") -> list[np.ndarray]:
    out = [a.copy() for a in arrays]
    xtir.evaluate(module, *out, func=name)
    return out


def assert_same_results(before: ModuleOp, after: ModuleOp, name: str = "main", seed: int = 0) -> list[np.ndarray]:
    """Evaluate `name` in both modules on the same random arguments; return the results."""
    arrays = random_arguments(before, name, seed)
    expected = evaluate_copy(before, arrays, name)
    for e in expected:
        assert np.isfinite(e).all(), "the original program reads memory it never wrote"
    got = evaluate_copy(after, arrays, name)
    for n, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=f"argument {n} of @{name}")
    return got


# ---------------------------------------------------------------------------------------
# The positive lit cases. Functions sized for FileCheck only (the 1024-element seed
# matmul, the 1024-element GPU window sums whose copies are relaxed to 130 elements per
# thread) are left out; the seed schedules below cover them at a smaller size.

LIT_CASES = {
    "compute_at.mlir": {
        "CHECK": ["outer", "unit", "inner", "two_consumers", "reduction"],
        "TILE": ["tile", "rows"],
        "WINDOW": ["window", "window_inner", "window_ragged", "ragged"],
        "GPU": ["at_block", "local"],
        "WHERE": ["guarded"],
    },
    "reverse_compute_at.mlir": {
        "CHECK": ["outer", "unit", "inner"],
        "RAGGED": ["ragged"],
        "GPU": ["local"],
        "POSITION": ["two_producers"],
        "WHERE": ["where", "part"],
    },
}

LIT_PARAMS = [
    pytest.param(file, prefix, name, id=f"{file.removesuffix('.mlir')}-{prefix}-{name}")
    for file, prefixes in LIT_CASES.items()
    for prefix, names in prefixes.items()
    for name in names
]


@pytest.mark.parametrize(("file", "prefix", "name"), LIT_PARAMS)
def test_lit_case_keeps_results(file: str, prefix: str, name: str) -> None:
    path = LIT / file
    module = xtir.parse(path.read_text(), str(path))
    after = xtir.transform(module, run_pipelines(path)[prefix])
    assert_same_results(module, after, name)


def test_lit_case_prefixes_exist() -> None:
    """Each RUN prefix named above exists (a renamed prefix would silently test nothing)."""
    for file, prefixes in LIT_CASES.items():
        assert set(prefixes) <= set(run_pipelines(LIT / file)), file


# ---------------------------------------------------------------------------------------
# The seed schedules, scaled down.

# Seed 002's `blocking(sch, ...)` on the GPU matmul (C = A · B): a local accumulator
# written back per thread by reverse-compute-at at the threadIdx.y loop. 16x16x16 with
# factors (2, 2, 4) per spatial axis and k split by 4.
GPU_LOCAL = (
    'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,2,4},split{loop=j factors=-1,2,4},'
    "split{loop=k factors=-1,4},unroll{loop=k_1},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},"
    'reverse-compute-at{block=C_local loop=j_1},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},'
    'bind{loop=i_1 thread="threadIdx.x"},bind{loop=j_1 thread="threadIdx.y"},decompose-reduction{block=C loop=k_0}'
)

# Seed 002's `blocking_with_shared(sch, ...)`: the same with i_1, j_1 fused into one
# threadIdx.x loop, and A and B tiles staged in shared memory at k_0 by cooperative
# fetching (fuse, split over the 4 threads, vectorize). 16x16x16: 8x8 tiles of C per
# thread block, 2x2 threads each computing 4x4, k_0 steps of 4 (8x4 of A, 4x8 of B).
GPU_SHARED = (
    'cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,2,4},split{loop=j factors=-1,2,4},'
    "split{loop=k factors=-1,4},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},fuse{loops=i_1,j_1},"
    'reverse-compute-at{block=C_local loop=i_1_j_1_fused},bind{loop=i_0 thread="blockIdx.x"},'
    'bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1_j_1_fused thread="threadIdx.x"},'
    'cache-read{block=C index=0 scope="shared"},compute-at{block=A_shared loop=k_0},'
    'fuse{loops="A_shared/ax0","A_shared/ax1"},split{loop="A_shared/ax0_ax1_fused" factors=-1,4,4},'
    'bind{loop="A_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="A_shared/ax0_ax1_fused_2"},'
    'cache-read{block=C index=1 scope="shared"},compute-at{block=B_shared loop=k_0},'
    'fuse{loops="B_shared/ax0","B_shared/ax1"},split{loop="B_shared/ax0_ax1_fused" factors=-1,4,4},'
    'bind{loop="B_shared/ax0_ax1_fused_1" thread="threadIdx.x"},vectorize{loop="B_shared/ax0_ax1_fused_2"}'
)

# Seed 002's window sum: blocks of 16 threads (128 in the seed), A cached in shared
# memory at the thread loop (16 + 2 elements per thread block), then fetched
# cooperatively by the 16 threads.
WINDOW_SHARED = (
    'split{loop=i factors=-1,16},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"},'
    'cache-read{block=B index=0 scope="shared"},compute-at{block=A_shared loop=i_1}'
)
WINDOW_COOP = WINDOW_SHARED + ',split{loop=ax0 factors=-1,16},bind{loop=ax0_1 thread="threadIdx.x"}'
WINDOW_LOCAL = WINDOW_SHARED.replace('"shared"', '"local"').replace("A_shared", "A_local")

# Seed 001's tensorization walkthrough up to the write-back: 8x8 tiles (16 in the seed),
# register caches of A and B at k_0, the accumulator written back after k_0 at j_0.
WALKTHROUGH = (
    "split{loop=i factors=-1,8},split{loop=j factors=-1,8},split{loop=k factors=-1,8},"
    "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},"
    'cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},'
    'compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},'
    'cache-write{block=matmul_o index=0 scope="global.accumulator"},'
    'reverse-compute-at{block="C_global.accumulator" loop=j_0},decompose-reduction{block=matmul_o loop=k_0}'
)


def window_reference(a: np.ndarray) -> np.ndarray:
    return a[:-2] + a[1:-1] + a[2:]


SEEDS = {
    # name: (example, sizes, pipeline, numpy reference of the last argument from the others)
    "gpu_matmul_local": ("gpu_matmul", {"1024": "16"}, GPU_LOCAL, lambda a, b: a @ b),
    "gpu_matmul_shared": ("gpu_matmul", {"1024": "16"}, GPU_SHARED, lambda a, b: a @ b),
    "window_sum_shared": ("window_sum", {"1024": "64", "1026": "66"}, WINDOW_SHARED, window_reference),
    "window_sum_coop_fetch": ("window_sum", {"1024": "64", "1026": "66"}, WINDOW_COOP, window_reference),
    "window_sum_local": ("window_sum", {"1024": "64", "1026": "66"}, WINDOW_LOCAL, window_reference),
    "walkthrough_write_back": ("matmul", {"1024": "16"}, WALKTHROUGH, lambda a, b: a @ b.T),
}


Scaled = Callable[[str, Mapping[str, str]], ModuleOp]


@pytest.mark.parametrize("name", SEEDS)
def test_seed_schedule_keeps_results(name: str, scaled: Scaled) -> None:
    example, sizes, pipeline, reference = SEEDS[name]
    module = scaled(example, sizes)
    after = xtir.transform(module, pipeline)
    got = assert_same_results(module, after)
    *inputs, output = random_arguments(module, "main", 0)
    np.testing.assert_allclose(got[-1], reference(*inputs), rtol=1e-4, atol=1e-4)


def test_scaled_window_copy_covers_the_thread_block(scaled: Scaled) -> None:
    """At the scaled size, the shared copy still covers a whole thread block's window:
    16 + 2 elements (130 = 128 + 2 in the seed)."""
    after = xtir.transform(scaled("window_sum", {"1024": "64", "1026": "66"}), WINDOW_SHARED)
    assert 'block.for %ax0 = 0 to 18 "ax0"' in str(after)


# ---------------------------------------------------------------------------------------
# Hazards: each move below would reorder a write and a read (or two writes) of one
# buffer. The pass must refuse it, or (if it accepts) keep the results.

# compute-at: W overwrites X between B (which reads X) and the loop holding C. Moved
# under i, B would read W's zeros instead of the original X.
WRITE_AFTER_READ = """
func.func @main(%X: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %j = 0 to 8 "j" {
    block.block "B"(%vi = spatial(8, %j)) {
      %x = block.load %X[%vi] : memref<8xf32>
      block.store %x, %B[%vi] : memref<8xf32>
    }
  }
  block.for %k = 0 to 8 "k" {
    block.block "W"(%vi = spatial(8, %k)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %X[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}
"""

# reverse-compute-at: R reads C's output between the loop holding B and C. Moved under
# i, C would write before R reads, and R would copy the new values instead of the old.
READ_BEFORE_WRITE = """
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>, %D: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %k = 0 to 8 "k" {
    block.block "R"(%vi = spatial(8, %k)) {
      %c = block.load %C[%vi] : memref<8xf32>
      block.store %c, %D[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    block.block "C"(%vi = spatial(8, %j)) {
      %b = block.load %B[%vi] : memref<8xf32>
      %one = arith.constant 1.000000e+00 : f32
      %c = arith.addf %b, %one : f32
      block.store %c, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}
"""

# reverse-compute-at: W writes C's output between the loop holding B and C. Moved under
# i, C would write first and W's zeros would be the final values.
WRITE_BEFORE_WRITE = """
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
  }
  block.for %k = 0 to 8 "k" {
    block.block "W"(%vi = spatial(8, %k)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %C[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    block.block "C"(%vi = spatial(8, %j)) {
      %b = block.load %B[%vi] : memref<8xf32>
      %one = arith.constant 1.000000e+00 : f32
      %c = arith.addf %b, %one : f32
      block.store %c, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}
"""

# compute-at: W, under loop i before C, overwrites X, which B read before the loop. Moved
# under i (after W, before C), B would read W's zeros.
WRITE_AFTER_READ_IN_LOOP = """
func.func @main(%X: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %j = 0 to 8 "j" {
    block.block "B"(%vi = spatial(8, %j)) {
      %x = block.load %X[%vi] : memref<8xf32>
      block.store %x, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "W"(%vi = spatial(8, %i)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %X[%vi] : memref<8xf32>
    }
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}
"""

# reverse-compute-at: R, under loop i after B, reads C's output, which C writes only
# after the loop. Moved under i right after B, C would write before R reads.
READ_BEFORE_WRITE_IN_LOOP = """
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>, %D: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      block.store %a, %B[%vi] : memref<8xf32>
    }
    block.block "R"(%vi = spatial(8, %i)) {
      %c = block.load %C[%vi] : memref<8xf32>
      block.store %c, %D[%vi] : memref<8xf32>
    }
  }
  block.for %j = 0 to 8 "j" {
    block.block "C"(%vi = spatial(8, %j)) {
      %b = block.load %B[%vi] : memref<8xf32>
      %one = arith.constant 1.000000e+00 : f32
      %c = arith.addf %b, %one : f32
      block.store %c, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}
"""

HAZARDS = {
    "compute_at_input_overwritten_before_loop": (WRITE_AFTER_READ, "compute-at{block=B loop=i}"),
    "compute_at_input_overwritten_in_loop": (WRITE_AFTER_READ_IN_LOOP, "compute-at{block=B loop=i}"),
    "reverse_compute_at_output_read_in_loop": (READ_BEFORE_WRITE_IN_LOOP, "reverse-compute-at{block=C loop=i}"),
    "reverse_compute_at_output_read_before_block": (READ_BEFORE_WRITE, "reverse-compute-at{block=C loop=i}"),
    "reverse_compute_at_output_written_before_block": (WRITE_BEFORE_WRITE, "reverse-compute-at{block=C loop=i}"),
}


@pytest.mark.parametrize("name", HAZARDS)
def test_hazard_is_refused_or_harmless(name: str) -> None:
    text, pipeline = HAZARDS[name]
    module = xtir.parse(text)
    try:
        after = xtir.transform(module, pipeline)
    except xtir.XtirPassError:
        return
    assert_same_results(module, after)


# compute-at: W overwrites X only after the loop holding C, so B, moved under the loop,
# still reads X before W: nothing is reordered, and TVM accepts it.
WRITE_AFTER_LOOP = """
func.func @main(%X: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %j = 0 to 8 "j" {
    block.block "B"(%vi = spatial(8, %j)) {
      %x = block.load %X[%vi] : memref<8xf32>
      block.store %x, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
  }
  block.for %k = 0 to 8 "k" {
    block.block "W"(%vi = spatial(8, %k)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %X[%vi] : memref<8xf32>
    }
  }
  func.return
}
"""


def test_input_overwritten_after_loop_is_accepted() -> None:
    module = xtir.parse(WRITE_AFTER_LOOP)
    after = xtir.transform(module, "compute-at{block=B loop=i}")
    assert_same_results(module, after)


def test_refusal_leaves_module_unchanged() -> None:
    """A refused move raises before anything changes (the input of transform is a copy,
    so check the pass on the module itself)."""
    from xdsl.context import Context

    from xtir.passes.reverse_compute_at import ReverseComputeAtPass

    path = LIT / "reverse_compute_at_invalid.mlir"
    gap = next(case for case in path.read_text().split("// -----") if "@coverage_gap" in case)
    module = xtir.parse(gap)
    text = str(module)
    with pytest.raises(xtir.XtirPassError, match="would not compute its whole domain"):
        ReverseComputeAtPass(block="C", loop="i").apply(Context(), module)
    assert str(module) == text
