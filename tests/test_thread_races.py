"""Races between threads through global memory in IR bound by hand (or changed after bind checked
it): lower-to-gpu refuses them (lowering/thread_races.py), where it used to build kernels that
compute wrong numbers; and the race detector of target "cuda-cpu" (lowering/cuda_emulation.h)
reports such a kernel when the check is bypassed, between threads of a block and between blocks."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xtir
import xtir.lowering.to_gpu as to_gpu
import xtir.lowering.virtual_threads as virtual_threads
from xtir.errors import XtirError

VTHREAD_SHIFTED = """func.func @main(%A: memref<4x4x4xf32>, %P: memref<4x4x5xf32>, %Q: memref<4x4x4x2xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.for %k = 0 to 4 "k" {
          block.block "P"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(4, %k)) {
            %a = block.load %A[%vb, %vt, %vk] : memref<4x4x4xf32>
            block.store %a, %P[%vb, %vt, %vk + %vu] : memref<4x4x5xf32>
          }
          block.block "Q"(%vb = spatial(4, %b), %vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(4, %k)) {
            %p = block.load %P[%vb, %vt, %vk + %vu] : memref<4x4x5xf32>
            block.store %p, %Q[%vb, %vt, %vk, %vu] : memref<4x4x4x2xf32>
          }
        }
      }
    }
  }
  func.return
}"""
"""Virtual threads write P[b, t, k + v] and read it back: virtual thread 1 writes at k = 0 what 0
writes at k = 1 (the lead's repro, /work/notes/s7/lead_swap.py)."""

THREADS_SHIFT = """func.func @main(%A: memref<33xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.for %t = 0 to 8 "t" bind("threadIdx.x") {
      block.block "S"(%v = spatial(32, %b * 8 + %t)) {
        %next = block.load %A[%v + 1] : memref<33xf32>
        block.store %next, %A[%v] : memref<33xf32>
      }
    }
  }
  func.return
}"""
"""Thread (b, t) reads the element thread (b, t + 1) writes: a race between the threads of a block."""

BLOCKS_SHIFT = """func.func @main(%A: memref<5xf32>) {
  block.for %b = 0 to 4 "b" bind("blockIdx.x") {
    block.block "S"(%v = spatial(4, %b)) {
      %next = block.load %A[%v + 1] : memref<5xf32>
      block.store %next, %A[%v] : memref<5xf32>
    }
  }
  func.return
}"""
"""One thread per block, block b reading what block b + 1 writes: a race between blocks only."""

APART_BY_PREDICATE = """func.func @main(%A: memref<8xf32>, %B: memref<12xf32>, %C: memref<8xf32>) {
  block.for %t = 0 to 8 "t" bind("threadIdx.x") {
    block.block "W"(%v = spatial(8, %t)) where(%t < 4) {
      %a = block.load %A[%v] : memref<8xf32>
      block.store %a, %B[%v] : memref<12xf32>
    }
    block.block "R"(%v = spatial(8, %t)) {
      %b = block.load %B[%v + 4] : memref<12xf32>
      block.store %b, %C[%v] : memref<8xf32>
    }
  }
  func.return
}"""


def _p_then_q_in_k(params: str, p_body: str, q_body: str) -> str:
    """Blocks P over t, k and Q over t, v, k in one k loop (t: threadIdx.x, 4; v: vthread.x, 2)."""
    return f"""func.func @main({params}) {{
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {{
    block.for %u = 0 to 2 "v" bind("vthread.x") {{
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {{
        block.for %k = 0 to 4 "k" {{
          block.block "P"(%vt = spatial(4, %t), %vk = spatial(4, %k)) {{
{p_body}          }}
          block.block "Q"(%vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(4, %k)) {{
{q_body}          }}
        }}
      }}
    }}
  }}
  func.return
}}"""


IDLE_STORE_READ_AHEAD = _p_then_q_in_k("%X: memref<4x5xf32>, %A: memref<4x5xf32>, %Q: memref<4x4x2xf32>", """\
            %x = block.load %X[%vt, %vk] : memref<4x5xf32>
            %s = arith.addf %x, %x : f32
            block.store %s, %A[%vt, %vk] : memref<4x5xf32>
""", """\
            %p = block.load %A[%vt, %vk + %vu] : memref<4x5xf32>
            block.store %p, %Q[%vt, %vk, %vu] : memref<4x4x2xf32>
""")
"""P, without the virtual thread, stores A[t, k] once per thread; virtual thread 1 of Q reads
A[t, k + 1], which P stores at the next k (the reviewer's r2, /work/notes/s8/rv_race)."""

IDLE_STORE_OVERWRITTEN = _p_then_q_in_k("%X: memref<4x8xf32>, %A: memref<4x8xf32>", """\
            %x = block.load %X[%vt, %vk] : memref<4x8xf32>
            block.store %x, %A[%vt, %vk] : memref<4x8xf32>
""", """\
            %x = block.load %X[%vt, %vk] : memref<4x8xf32>
            %s = arith.addf %x, %x : f32
            block.store %s, %A[%vt, %vk * 2 + %vu] : memref<4x8xf32>
""")
"""P, without the virtual thread, and Q's virtual threads store into one element of A at different
k (the reviewer's r3)."""

IDLE_STORE_AND_LOAD = _p_then_q_in_k("%X: memref<4x4xf32>, %A: memref<4x4xf32>, %Q: memref<4x4x2xf32>", """\
            %x = block.load %X[%vt, %vk] : memref<4x4xf32>
            block.store %x, %A[%vt, %vk] : memref<4x4xf32>
""", """\
            %p = block.load %A[%vt, %vk] : memref<4x4xf32>
            block.store %p, %Q[%vt, %vk, %vu] : memref<4x4x2xf32>
""")
"""P stores A[t, k] and Q loads it, neither with the virtual thread: no race (the reviewer's r4)."""

IDLE_RACES = [(IDLE_STORE_READ_AHEAD, [(4, 5), (4, 5), (4, 4, 2)], "reads"),
              (IDLE_STORE_OVERWRITTEN, [(4, 8), (4, 8)], "writes")]


def _arrays(*shapes: tuple[int, ...]) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.integers(0, 9, s).astype(np.float32) for s in shapes]


def _on_the_cpu(text: str, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """What the loop nest computes, run serially (the thread bindings dropped)."""
    copies = [a.copy() for a in arrays]
    xtir.build(xtir.parse(re.sub(r' bind\("[a-zA-Z.]+"\)', "", text)), target="llvm")(*copies)
    return copies


@pytest.fixture
def unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    """lower-to-gpu without its race check between threads: the kernels it used to build."""
    monkeypatch.setattr(to_gpu, "_check_races", lambda kernel: None)


@pytest.mark.parametrize(("text", "shapes"), [(VTHREAD_SHIFTED, [(4, 4, 4), (4, 4, 5), (4, 4, 4, 2)]),
                                              (THREADS_SHIFT, [(33,)]), (BLOCKS_SHIFT, [(5,)])])
def test_a_race_between_threads_is_refused(text: str, shapes: list[tuple[int, ...]]) -> None:
    with pytest.raises(XtirError, match="lower-to-gpu: the store into [PA] writes an element of [PA] that the load of "
                                        r"[PA] reads in another thread, loop \"[vtb]\""):
        xtir.build(xtir.parse(text), target="cuda-cpu")


def test_the_virtual_threads_race_computed_wrong_numbers_unchecked(unchecked: None) -> None:
    """What the refusal prevents: the virtual threads run in turn, each statement for every one
    before the next statement, and P keeps another virtual thread's value (the race detector cannot
    see it: the virtual threads of a thread are one emulated thread)."""
    arrays = _arrays((4, 4, 4), (4, 4, 5), (4, 4, 4, 2))
    expected = _on_the_cpu(VTHREAD_SHIFTED, arrays)
    xtir.build(xtir.parse(VTHREAD_SHIFTED), target="cuda-cpu", racecheck=True)(*arrays)
    assert not np.array_equal(arrays[1], expected[1])


def test_threads_kept_apart_by_a_predicate_build_and_match() -> None:
    arrays = _arrays((8,), (12,), (8,))
    expected = _on_the_cpu(APART_BY_PREDICATE, arrays)
    xtir.build(xtir.parse(APART_BY_PREDICATE), target="cuda-cpu", racecheck=True)(*arrays)
    for got, want in zip(arrays, expected):
        np.testing.assert_array_equal(got, want)


def test_racecheck_reports_a_global_race_between_threads_of_a_block(unchecked: None) -> None:
    f = xtir.build(xtir.parse(THREADS_SHIFT), target="cuda-cpu", racecheck=True)
    with pytest.raises(XtirError, match=r"cuda-cpu racecheck: kernel 'main_kernel', global 'A' element \d+, block "
                                        r"\(0, 0, 0\): thread \(\d, 0, 0\) (reads|writes) it \(line \d+\) after thread "
                                        r"\(\d, 0, 0\) (wrote|read) it \(line \d+\) with no __syncthreads\(\) in between"):
        f(*_arrays((33,)))


def test_racecheck_reports_a_global_race_between_blocks(unchecked: None) -> None:
    f = xtir.build(xtir.parse(BLOCKS_SHIFT), target="cuda-cpu", racecheck=True)
    with pytest.raises(XtirError, match=r"global 'A' element 1, block \(1, 0, 0\): thread \(0, 0, 0\) writes it "
                                        r"\(line \d+\) after thread \(0, 0, 0\) of block \(0, 0, 0\) read it \(line \d+\): "
                                        r"the blocks of a launch run at once on a GPU, in no order \(write after read "
                                        r"across blocks\)\n  kernel\.cu:\d+: XTIR_GLOBAL"):
        f(*_arrays((5,)))


@pytest.mark.parametrize(("text", "shapes", "verb"), IDLE_RACES)
def test_a_store_without_the_virtual_thread_racing_with_its_virtual_threads_is_refused(
        text: str, shapes: list[tuple[int, ...]], verb: str) -> None:
    with pytest.raises(XtirError, match=f"lower-to-gpu: the store into A writes an element of A that the (load of|store "
                                        f"into) A {verb} in another thread, loop \"v\" \\(vthread.x\\)"):
        xtir.build(xtir.parse(text), target="cuda-cpu")


def test_a_store_without_the_virtual_thread_computed_wrong_numbers_unchecked(unchecked: None) -> None:
    """What the refusal prevents: inject-virtual-threads pushes the vthread loop inside k."""
    text, shapes, _ = IDLE_RACES[0]
    arrays = _arrays(*shapes)
    expected = _on_the_cpu(text, arrays)
    xtir.build(xtir.parse(text), target="cuda-cpu")(*arrays)
    assert not all(np.array_equal(got, want) for got, want in zip(arrays, expected))


def test_an_overwritten_store_without_the_virtual_thread_is_refused_by_the_vthread_stage_too(unchecked: None) -> None:
    """The write-after-write case is also caught by inject-virtual-threads' own reorder check."""
    with pytest.raises(XtirError, match='A is stored and later stored in loop "v"'):
        xtir.build(xtir.parse(IDLE_RACES[1][0]), target="cuda-cpu")


def test_a_store_and_a_load_without_the_virtual_thread_build_and_match() -> None:
    arrays = _arrays((4, 4), (4, 4), (4, 4, 2))
    expected = _on_the_cpu(IDLE_STORE_AND_LOAD, arrays)
    xtir.build(xtir.parse(IDLE_STORE_AND_LOAD), target="cuda-cpu", racecheck=True)(*arrays)
    for got, want in zip(arrays, expected):
        np.testing.assert_array_equal(got, want)


def _one_vthread_body(blocks: str) -> str:
    """`blocks` in one vthread loop (v: 2) of thread t (4), no serial loop inside it."""
    return f"""func.func @main(%X: memref<4xf32>, %Y: memref<4x2xf32>, %A: memref<4x2xf32>, %H: memref<4x2xf32>) {{
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {{
    block.for %t = 0 to 4 "t" bind("threadIdx.x") {{
      block.for %u = 0 to 2 "v" bind("vthread.x") {{
{blocks}      }}
    }}
  }}
  func.return
}}"""


IDLE_STORE_A = """        block.block "I"(%vt = spatial(4, %t)) {
          %x = block.load %X[%vt] : memref<4xf32>
          block.store %x, %A[%vt, 0] : memref<4x2xf32>
        }
"""
OWN_STORE_A = """        block.block "O"(%vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %y = block.load %Y[%vt, %vu] : memref<4x2xf32>
          block.store %y, %A[%vt, %vu] : memref<4x2xf32>
        }
"""
IDLE_LOAD_A = """        block.block "L"(%vt = spatial(4, %t), %vu = spatial(2, %u)) {
          %a = block.load %A[%vt, 0] : memref<4x2xf32>
          block.store %a, %H[%vt, %vu] : memref<4x2xf32>
        }
"""
IDLE_PAIRS = {  # name: (blocks, whether the loop distributed computes what it does serially)
    "idle_store_then_own": (IDLE_STORE_A + OWN_STORE_A, False),
    "idle_load_then_own": (IDLE_LOAD_A + OWN_STORE_A, False),
    "own_then_idle_store": (OWN_STORE_A + IDLE_STORE_A, True),
    "own_then_idle_load": (OWN_STORE_A + IDLE_LOAD_A, True),
}
"""An access of A[t, 0] without the virtual thread and a store into A[t, v], no serial loop inside
the vthread loop: the race check between threads leaves the pair to the vthread stage
(`_compared`). Distributed, `A[t, 0] = X` runs once before both virtual threads' `A[t, v] = Y`
(serially virtual thread 1's rewrites X after virtual thread 0's Y), and `H[t, v] = A[t, 0]`
reads A before either stores (serially virtual thread 1 reads virtual thread 0's Y)."""


@pytest.mark.parametrize("name", IDLE_PAIRS)
def test_idle_pairs_without_a_serial_loop_are_refused_by_the_vthread_stage(name: str) -> None:
    with pytest.raises(XtirError, match=r'A is (stored|loaded) and later (stored|loaded) in loop "v" \(vthread.x\)'):
        xtir.build(xtir.parse(_one_vthread_body(IDLE_PAIRS[name][0])), target="cuda-cpu")


@pytest.mark.parametrize("name", IDLE_PAIRS)
def test_idle_pairs_distributed_unchecked(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the vthread stage's refusal prevents: distributed without it, the first two compute
    other numbers than the loop run serially (xtir.evaluate); the last two are refused though they
    would not (the stage's rule is not exact: an earlier store that uses the virtual thread)."""
    monkeypatch.setattr(virtual_threads, "_reordered_pair", lambda *args: None)
    blocks, kept = IDLE_PAIRS[name]
    text = _one_vthread_body(blocks)
    arrays = _arrays((4,), (4, 2), (4, 2), (4, 2))
    expected = [a.copy() for a in arrays]
    xtir.evaluate(xtir.parse(text), *expected)
    xtir.build(xtir.parse(text), target="cuda-cpu", racecheck=True)(*arrays)
    assert all(np.array_equal(got, want) for got, want in zip(arrays, expected)) == kept


IDLE_STORE_READ_AT_ITS_K = _p_then_q_in_k("%X: memref<4x4xf32>, %A: memref<4x8xf32>, %Q: memref<4x4x2xf32>", """\
            %x = block.load %X[%vt, %vk] : memref<4x4xf32>
            block.store %x, %A[%vt, %vk * 2] : memref<4x8xf32>
""", """\
            %p = block.load %A[%vt, %vk * 2 + %vu] : memref<4x8xf32>
            block.store %p, %Q[%vt, %vk, %vu] : memref<4x4x2xf32>
""")
"""P, without the virtual thread, stores A[t, 2k]; Q's virtual thread 0 reads it at the same k,
after it (virtual thread 1 reads A[t, 2k + 1], which nothing stores): they meet at one k only."""

READ_THEN_IDLE_STORE_AT_ITS_K = """func.func @main(%X: memref<4x4xf32>, %A: memref<4x8xf32>, %Q: memref<4x4x2xf32>) {
  block.for %b = 0 to 1 "b" bind("blockIdx.x") {
    block.for %u = 0 to 2 "v" bind("vthread.x") {
      block.for %t = 0 to 4 "t" bind("threadIdx.x") {
        block.for %k = 0 to 4 "k" {
          block.block "Q"(%vt = spatial(4, %t), %vu = spatial(2, %u), %vk = spatial(4, %k)) {
            %p = block.load %A[%vt, %vk * 2 + 1 - %vu] : memref<4x8xf32>
            block.store %p, %Q[%vt, %vk, %vu] : memref<4x4x2xf32>
          }
          block.block "P"(%vt = spatial(4, %t), %vk = spatial(4, %k)) {
            %x = block.load %X[%vt, %vk] : memref<4x4xf32>
            block.store %x, %A[%vt, %vk * 2] : memref<4x8xf32>
          }
        }
      }
    }
  }
  func.return
}"""
"""The load first, of A[t, 2k + 1 - v]: serially virtual thread 1 reads at k what the store stored at
k in virtual thread 0's run; pushed into k, both virtual threads read before the store runs."""


def test_an_idle_store_read_at_its_own_iteration_builds_and_matches() -> None:
    """Compared along the virtual thread, the two met at one k: refused before, though the vthread
    loop pushed into k keeps what each virtual thread reads (thread_races._read_where_stored)."""
    arrays = _arrays((4, 4), (4, 8), (4, 4, 2))
    expected = [a.copy() for a in arrays]
    xtir.evaluate(xtir.parse(IDLE_STORE_READ_AT_ITS_K), *expected)
    xtir.build(xtir.parse(IDLE_STORE_READ_AT_ITS_K), target="cuda-cpu", racecheck=True)(*arrays)
    for got, want in zip(arrays, expected):
        np.testing.assert_array_equal(got, want)


def test_a_read_before_an_idle_store_at_its_own_iteration_is_refused() -> None:
    with pytest.raises(XtirError, match=r'the store into A writes an element of A that the load of A reads in another '
                                        r'thread, loop "v" \(vthread.x\)'):
        xtir.build(xtir.parse(READ_THEN_IDLE_STORE_AT_ITS_K), target="cuda-cpu")


def test_a_read_before_an_idle_store_at_its_own_iteration_computed_wrong_numbers_unchecked(
        unchecked: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the refusal prevents (the vthread stage's own reorder rule refuses it too, off here)."""
    monkeypatch.setattr(virtual_threads, "_reordered_pair", lambda *args: None)
    arrays = _arrays((4, 4), (4, 8), (4, 4, 2))
    expected = [a.copy() for a in arrays]
    xtir.evaluate(xtir.parse(READ_THEN_IDLE_STORE_AT_ITS_K), *expected)
    xtir.build(xtir.parse(READ_THEN_IDLE_STORE_AT_ITS_K), target="cuda-cpu")(*arrays)
    assert not all(np.array_equal(got, want) for got, want in zip(arrays, expected))
