"""Schedule handles denote the loop or block they were made for (TVM's srefs), and the
Python API habits of tvm.tir.Schedule (issue 14)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import xtir
from xtir import Schedule
from xtir.errors import XtirError, XtirPassError

# Two stages that both have a loop "i": Y = A · B (matmul), then C = relu(Y).
TWO_STAGES = """
func.func @main(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>) {
  %Y = block.alloc : memref<16x16xf32>
  block.for %i = 0 to 16 "i" {
    block.for %j = 0 to 16 "j" {
      block.for %k = 0 to 16 "k" {
        block.block "Y"(%vi = spatial(16, %i), %vj = spatial(16, %j), %vk = reduce(16, %k)) {
          block.init {
            %zero = arith.constant 0.000000e+00 : f32
            block.store %zero, %Y[%vi, %vj] : memref<16x16xf32>
          }
          %y = block.load %Y[%vi, %vj] : memref<16x16xf32>
          %a = block.load %A[%vi, %vk] : memref<16x16xf32>
          %b = block.load %B[%vk, %vj] : memref<16x16xf32>
          %ab = arith.mulf %a, %b : f32
          %s = arith.addf %y, %ab : f32
          block.store %s, %Y[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
  }
  block.for %i = 0 to 16 "i" {
    block.for %j = 0 to 16 "j" {
      block.block "C"(%vi = spatial(16, %i), %vj = spatial(16, %j)) {
        %y = block.load %Y[%vi, %vj] : memref<16x16xf32>
        %zero = arith.constant 0.000000e+00 : f32
        %r = arith.maximumf %y, %zero : f32
        block.store %r, %C[%vi, %vj] : memref<16x16xf32>
      }
    }
  }
  func.return
}
"""


def two_stages() -> Schedule:
    return Schedule(xtir.parse(TWO_STAGES))


def loop_kinds(sch: Schedule, block: str) -> dict[str, str]:
    return {lp.label: lp.kind for lp in _loops_above(sch, block)}


def _loops_above(sch: Schedule, block: str) -> list:
    from xtir.passes.analysis.navigation import get_block, get_loops

    return get_loops(get_block(sch.mod, block))


def test_split_consumes_the_loop_and_does_not_move_to_a_namesake() -> None:
    sch = two_stages()
    i, j, k = sch.get_loops(sch.get_block("Y"))
    sch.split(i, [None, 8])
    with pytest.raises(XtirPassError, match=r'no longer valid.*split\{loop="Y/i" factors=-1,8\} \(primitive 1'):
        sch.parallel(i)
    assert "parallel" not in loop_kinds(sch, "C").values()
    assert sch.trace == 'split{loop="Y/i" factors=-1,8}'


def test_fuse_consumes_its_loops() -> None:
    sch = two_stages()
    i, j, k = sch.get_loops(sch.get_block("Y"))
    sch.fuse(i, j)
    with pytest.raises(XtirPassError, match=r"LoopRV\('j' above block 'Y'\) is no longer valid.*fuse"):
        sch.parallel(j)
    assert "parallel" not in loop_kinds(sch, "C").values()


def test_surviving_handles_keep_denoting_their_loop_and_block() -> None:
    sch = two_stages()
    y = sch.get_block("Y")
    i, j, k = sch.get_loops(y)
    ci, cj = sch.get_loops(sch.get_block("C"))
    i0, i1 = sch.split(i, [None, 8])
    sch.reorder(j, i1)  # rebuilds the loops it reorders: their handles follow
    sch.parallel(j)
    sch.vectorize(cj)
    sch.parallel(ci)
    assert loop_kinds(sch, "Y") == {"i_0": "serial", "j": "parallel", "i_1": "serial", "k": "serial"}
    assert loop_kinds(sch, "C") == {"i": "parallel", "j": "vectorized"}
    assert [lp.name for lp in sch.get_loops(y)] == ["i_0", "j", "i_1", "k"]
    replayed = xtir.transform(xtir.parse(TWO_STAGES), sch.trace)
    assert str(replayed) == str(sch.mod)


ELEMENTWISE = """
func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %i = 0 to 8 "i" {
    block.block "B"(%vi = spatial(8, %i)) {
      %a = block.load %A[%vi] : memref<8xf32>
      %b = arith.addf %a, %a : f32
      block.store %b, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      %c = arith.mulf %b, %b : f32
      block.store %c, %C[%vi] : memref<8xf32>
    }
  }
  func.return
}
"""


def test_inlined_block_handle_is_consumed() -> None:
    sch = Schedule(xtir.parse(ELEMENTWISE))
    b, c = sch.get_block("B"), sch.get_block("C")
    (bi,) = sch.get_loops(b)
    (ci,) = sch.get_loops(c)
    sch.compute_inline(b)
    with pytest.raises(XtirPassError, match=r"BlockRV\('B'\) is no longer valid.*compute-inline\{block=B\}"):
        sch.get_loops(b)
    with pytest.raises(XtirPassError, match="no longer valid"):
        sch.parallel(bi)
    sch.parallel(ci)  # the consumer's loop, now the only "i", is still its handle's loop
    assert sch.trace == "compute-inline{block=B},parallel{loop=i}"


def test_compute_at_consumes_the_moved_blocks_loops_not_the_target_namesake() -> None:
    sch = two_stages()
    y, c = sch.get_block("Y"), sch.get_block("C")
    yi = sch.get_loops(y)[0]
    ci = sch.get_loops(c)[0]
    sch.reverse_compute_at(c, yi)
    with pytest.raises(XtirPassError, match="no longer valid.*reverse-compute-at"):
        sch.parallel(ci)
    sch.parallel(yi)
    assert [lp.name for lp in sch.get_loops(c)][0] == "i"


def test_copy_is_independent_and_takes_the_handles() -> None:
    sch = two_stages()
    i = sch.get_loops(sch.get_block("Y"))[0]
    other = sch.copy()
    other.split(i, [2, 8])
    sch.parallel(i)  # still valid in the original
    with pytest.raises(XtirPassError, match="no longer valid"):
        other.parallel(i)
    assert sch.trace == 'parallel{loop="Y/i"}' and other.trace == 'split{loop="Y/i" factors=2,8}'


def test_numbers_after_handle_driven_schedule() -> None:
    sch = two_stages()
    i, j, _ = sch.get_loops("Y")
    i0, _ = sch.split(i, [None, 4])
    sch.parallel(i0)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((16, 16), dtype=np.float32), rng.standard_normal((16, 16), dtype=np.float32)
    c = np.zeros((16, 16), np.float32)
    xtir.evaluate(sch.mod, a, b, c)
    np.testing.assert_allclose(c, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)


def test_duplicate_block_names_are_a_verifier_error() -> None:
    text = TWO_STAGES.replace('block.block "C"', 'block.block "Y"')
    with pytest.raises(XtirError, match=r'two blocks named "Y"'):
        xtir.parse(text)


# TVM's API habits ---------------------------------------------------------------------

TWO_FUNCS = "builtin.module {" + TWO_STAGES + TWO_STAGES.replace("@main", "@other") + "}"


def test_several_functions_message_names_func_name() -> None:
    with pytest.raises(XtirPassError, match=r"func_name="):
        Schedule(xtir.parse(TWO_FUNCS))


def test_get_block_func_name_and_work_on() -> None:
    sch = Schedule(xtir.parse(TWO_FUNCS), func_name="main")
    sch.get_block("Y", func_name="other")
    sch.work_on("other")
    sch.parallel(sch.get_loops("C")[0])
    assert sch.trace == 'parallel{loop="C/i" func=other}'


def test_trace_object_shows_one_step_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    sch = two_stages()
    i, j, _ = sch.get_loops("Y")
    sch.split(i, [None, 8])
    sch.parallel(j)
    assert str(sch.trace) == 'split{loop="Y/i" factors=-1,8},parallel{loop="Y/j"}'
    sch.trace.show()
    assert capsys.readouterr().out == 'split{loop="Y/i" factors=-1,8}\nparallel{loop="Y/j"}\n'


def test_trace_survives_pickling() -> None:
    """Regression: a trace sent from a child process (tests/fuzz/isolation.py pickles failures)
    came back as its characters joined by commas ("s,p,l,i,t,{,..."): unpickling called
    Trace(text), which takes steps."""
    sch = two_stages()
    sch.split(sch.get_loops("Y")[0], [None, 8])
    sch.parallel(sch.get_loops("Y")[1])
    copy = pickle.loads(pickle.dumps(sch.trace))
    assert copy == sch.trace and copy.steps == sch.trace.steps


def test_show_prints_reads_and_writes(capsys: pytest.CaptureFixture[str]) -> None:
    sch = two_stages()
    sch.show()
    out = capsys.readouterr().out
    assert 'block.block "Y"' in out and "reads" in out and "writes" in out
    assert "reads" not in str(sch.mod)  # the schedule's own state is unchanged


def test_cache_read_takes_a_buffer_name() -> None:
    by_name, by_index = two_stages(), two_stages()
    by_name.cache_read(by_name.get_block("Y"), "B", "shared")
    by_index.cache_read(by_index.get_block("Y"), 1, "shared")
    assert str(by_name.mod) == str(by_index.mod)
    with pytest.raises(XtirPassError, match=r'cache_read: block "Y" reads no buffer named "Q"; it reads A, B'):
        by_name.cache_read(by_name.get_block("Y"), "Q", "shared")
    with pytest.raises(XtirPassError, match="read_buffer_index must be an int or a buffer name, got 1.5"):
        by_name.cache_read(by_name.get_block("Y"), 1.5, "shared")  # type: ignore[arg-type]
