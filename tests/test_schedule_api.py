"""The Python Schedule API (xtir.Schedule, TVM's tvm.tir.Schedule).

Each primitive runs the pass of the same name, so the checks here are about what the
API adds: handles and the names they resolve to, the trace (which must replay to the
same IR through xtir.transform and xtir-opt), and that a refused primitive changes
nothing. The passes' own behaviour is tested by the lit tests.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir import BlockRV, LoopRV, Schedule
from xtir.schedule import INLINE_MARK
from xtir.tune.sampling import loads

ROOT = Path(__file__).resolve().parent.parent
MATMUL = ROOT / "examples" / "matmul.mlir"
HAS_COMPUTE_AT = all((ROOT / "passes" / f).exists() for f in ("compute_at.py", "reverse_compute_at.py"))
HAS_COMPUTE_INLINE = (ROOT / "passes" / "compute_inline.py").exists()

TILE_PIPELINE = (
    "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
    "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},"
    'cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"}'
)
SEED_PIPELINE = (
    TILE_PIPELINE + ',cache-write{block=matmul_o index=0 scope="global.accumulator"},decompose-reduction{block=matmul_o loop=k_0}'
)


def tile_matmul(sch: Schedule) -> tuple[BlockRV, list[LoopRV]]:
    """The seed's tiling: 16x16x16 tiles, tile loops outside; returns the blockized block."""
    i, j, k = sch.get_loops(sch.get_block("matmul"))
    i0, i1 = sch.split(i, factors=[None, 16])
    j0, j1 = sch.split(j, factors=[None, 16])
    k0, k1 = sch.split(k, factors=[None, 16])
    sch.reorder(i0, j0, k0, i1, j1, k1)
    return sch.blockize(i1), [i0, j0, k0, i1, j1, k1]


def seed_schedule(sch: Schedule) -> dict[str, BlockRV | LoopRV]:
    """Seed 001's walkthrough without compute_at (the handles it returns, by TVM's names)."""
    mm, (i0, j0, k0, i1, j1, k1) = tile_matmul(sch)
    a_reg = sch.cache_read(mm, 0, "global.A_reg")
    b_reg = sch.cache_read(mm, 1, "global.B_reg")
    c_acc = sch.cache_write(mm, 0, "global.accumulator")
    init = sch.decompose_reduction(mm, k0)
    return {"mm": mm, "i0": i0, "i1": i1, "k0": k0, "a_reg": a_reg, "b_reg": b_reg, "c_acc": c_acc, "init": init}


def xtir_opt(path: Path, pipeline: str) -> str:
    opt = Path(sys.executable).parent / "xtir-opt"
    result = subprocess.run([str(opt), str(path), "-p", pipeline], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def run_matmul(module: ModuleOp, n: int) -> None:
    """Evaluate C = A · Bᵀ on random data and compare with numpy."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    c = np.full((n, n), np.nan, dtype=np.float32)
    xtir.evaluate(module, a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)


def assert_replays(original: ModuleOp, sch: Schedule) -> None:
    assert str(xtir.transform(original, sch.trace)) == str(sch.mod)


# The seed walkthrough ------------------------------------------------------------------


def test_seed_walkthrough_matches_xtir_opt() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    seed_schedule(sch)
    assert sch.trace == SEED_PIPELINE
    assert str(sch.mod).strip() == xtir_opt(MATMUL, SEED_PIPELINE).strip()


def test_seed_walkthrough_handles() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    rv = seed_schedule(sch)
    assert (rv["i0"], rv["i1"]) == (LoopRV("i_0", "matmul"), LoopRV("i_1", "matmul"))
    assert rv["mm"] == BlockRV("matmul_o")
    assert (rv["a_reg"], rv["b_reg"], rv["c_acc"]) == (
        BlockRV("A_global.A_reg"),
        BlockRV("B_global.B_reg"),
        BlockRV("C_global.accumulator"),
    )
    assert rv["init"] == BlockRV("matmul_o_init")
    # As in TVM, the decomposed block's handle now means the update block.
    assert [lp.name for lp in sch.get_loops(rv["mm"])] == ["i_0", "j_0", "k_0"]
    assert sch.get_child_blocks(rv["k0"]) == [BlockRV("matmul_o_update")]


def test_seed_walkthrough_numerics(scaled: Callable[..., ModuleOp]) -> None:
    module = scaled("matmul", {"1024": "32"})
    sch = Schedule(module)
    seed_schedule(sch)
    run_matmul(sch.mod, 32)


@pytest.mark.skipif(not HAS_COMPUTE_AT, reason="passes/compute_at.py or reverse_compute_at.py is not written yet")
def test_full_seed_walkthrough_with_compute_at(scaled: Callable[..., ModuleOp]) -> None:
    module = scaled("matmul", {"1024": "32"})
    sch = Schedule(module)
    mm, (i0, j0, k0, *_) = tile_matmul(sch)
    a_reg = sch.cache_read(mm, 0, "global.A_reg")
    b_reg = sch.cache_read(mm, 1, "global.B_reg")
    sch.compute_at(a_reg, k0)
    sch.compute_at(b_reg, k0)
    c_acc = sch.cache_write(mm, 0, "global.accumulator")
    sch.reverse_compute_at(c_acc, j0)
    sch.decompose_reduction(mm, k0)
    assert sch.trace.endswith(
        'compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},'
        'cache-write{block=matmul_o index=0 scope="global.accumulator"},'
        'reverse-compute-at{block="C_global.accumulator" loop=j_0},decompose-reduction{block=matmul_o loop=k_0}'
    )
    assert [lp.name for lp in sch.get_loops(a_reg)] == ["i_0", "j_0", "k_0", "ax0", "ax1"]
    assert_replays(module, sch)
    run_matmul(sch.mod, 32)


@pytest.mark.skipif(not HAS_COMPUTE_INLINE, reason="passes/compute_inline.py is not written yet")
def test_compute_inline() -> None:
    module = xtir.parse(
        """
        func.func @main(%A: memref<8xf32>, %C: memref<8xf32>) {
          %B = block.alloc : memref<8xf32>
          block.for %i = 0 to 8 "i" {
            block.block "B"(%vi = spatial(8, %i)) {
              %a = block.load %A[%vi] : memref<8xf32>
              %b = arith.addf %a, %a : f32
              block.store %b, %B[%vi] : memref<8xf32>
            }
          }
          block.for %i2 = 0 to 8 "i" {
            block.block "C"(%vi = spatial(8, %i2)) {
              %b = block.load %B[%vi] : memref<8xf32>
              %c = arith.mulf %b, %b : f32
              block.store %c, %C[%vi] : memref<8xf32>
            }
          }
          func.return
        }
        """
    )
    sch = Schedule(module)
    assert sch.get_consumers(sch.get_block("B")) == [BlockRV("C")]
    sch.compute_inline(sch.get_block("B"))
    assert sch.trace == "compute-inline{block=B}"
    assert sch.get_producers(sch.get_block("C")) == []
    assert_replays(module, sch)
    a = np.arange(8, dtype=np.float32)
    c = np.zeros(8, dtype=np.float32)
    xtir.evaluate(sch.mod, a, c)
    np.testing.assert_allclose(c, (2 * a) ** 2)


# Traces replay -------------------------------------------------------------------------


def fuse_split_parallel(sch: Schedule) -> str:
    i, j, _ = sch.get_loops(sch.get_block("matmul"))
    fused = sch.fuse(i, j)
    outer, _ = sch.split(fused, [None, 7])
    sch.parallel(outer)
    return "fuse{loops=i,j},split{loop=i_j_fused factors=-1,7},parallel{loop=i_j_fused_0}"


def loop_kinds(sch: Schedule) -> str:
    i, j, k = sch.get_loops(sch.get_block("matmul"))
    sch.vectorize(j)
    sch.unroll(k)
    sch.bind(i, "blockIdx.x")
    return 'vectorize{loop=j},unroll{loop=k},bind{loop=i thread="blockIdx.x"}'


def shared_loop_names(sch: Schedule) -> str:
    """Two cache copies each have loops ax0, ax1: their handles become BLOCK/LOOP."""
    mm, _ = tile_matmul(sch)
    a_reg = sch.cache_read(mm, 0, "global.A_reg")
    b_reg = sch.cache_read(mm, 1, "global.B_reg")
    _, a_ax1 = sch.get_loops(a_reg)
    b_ax0, _ = sch.get_loops(b_reg)
    sch.vectorize(a_ax1)
    sch.annotate(b_ax0, "pragma_unroll_explicit", 2)
    return (
        TILE_PIPELINE
        + ',vectorize{loop="A_global.A_reg/ax1"},annotate{loop="B_global.B_reg/ax0" key=pragma_unroll_explicit value=2}'
    )


def decompose_unscheduled(sch: Schedule) -> str:
    mm = sch.get_block("matmul")
    assert sch.cache_write(mm, 0, "local") == BlockRV("C_local")
    assert sch.decompose_reduction(mm, sch.get_loops(mm)[2]) == BlockRV("matmul_init")
    sch.annotate(mm, "decomposed", True)  # the handle follows the block to its new name
    return (
        "cache-write{block=matmul index=0 scope=local},decompose-reduction{block=matmul loop=k},"
        "annotate{block=matmul_update key=decomposed value=true}"
    )


def annotations(sch: Schedule) -> str:
    mm = sch.get_block("matmul")
    i, _, k = sch.get_loops(mm)
    sch.annotate(k, "meta_schedule.unroll_explicit", 16)
    sch.annotate(mm, "note", "4")
    sch.split(i, [2, None])
    return (
        'annotate{loop=k key="meta_schedule.unroll_explicit" value=16},annotate{block=matmul key=note value="4"},'
        "split{loop=i factors=2,-1}"
    )


SCHEDULES = [fuse_split_parallel, loop_kinds, shared_loop_names, decompose_unscheduled, annotations]


@pytest.mark.parametrize("schedule", SCHEDULES, ids=[s.__name__ for s in SCHEDULES])
def test_trace_replays(schedule: Callable[[Schedule], str], scaled: Callable[..., ModuleOp]) -> None:
    module = scaled("matmul", {"1024": "32"})
    sch = Schedule(module)
    expected_trace = schedule(sch)
    assert sch.trace == expected_trace
    assert_replays(module, sch)


def test_annotations_in_ir() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    annotations(sch)
    text = str(sch.mod)
    assert 'block.for %i0 = 0 to 2 "i_0" {' in text  # split moved nothing: i had no annotations
    assert '"k" annotations {meta_schedule.unroll_explicit = 16 : i64} {' in text
    assert 'reduce(1024, %k)) annotations {note = "4"} {' in text


def test_any_string_survives_the_trace() -> None:
    """Strings the pipeline syntax cannot take bare are quoted and escaped."""
    module = xtir.parse_file(MATMUL)
    sch = Schedule(module)
    mm = sch.get_block("matmul")
    sch.annotate(mm, "note", 'say "hi"\\' + "\n")  # quotes, a backslash, a newline
    sch.annotate(mm, "has space", "true")
    assert sch.trace == (
        r'annotate{block=matmul key=note value="say \"hi\"\\\n"},annotate{block=matmul key="has space" value="true"}'
    )
    assert_replays(module, sch)
    assert xtir.parse(str(sch.mod)).is_structurally_equivalent(sch.mod)


def test_func_name_goes_into_the_trace() -> None:
    module = xtir.parse_file(MATMUL)
    sch = Schedule(module, func_name="main")
    sch.split(sch.get_loops(sch.get_block("matmul"))[0], [None, 16])
    assert sch.trace == "split{loop=i factors=-1,16 func=main}"
    assert_replays(module, sch)


# Queries -----------------------------------------------------------------------------


def test_producers_consumers_and_children() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    rv = seed_schedule(sch)
    update = rv["mm"]
    assert sch.get_producers(update) == [BlockRV("B_global.B_reg"), BlockRV("A_global.A_reg"), BlockRV("matmul_o_init")]
    assert sch.get_consumers(update) == [BlockRV("C_global.accumulator")]
    assert sch.get_consumers(rv["a_reg"]) == [BlockRV("matmul_o_update")]
    assert sch.get_producers(rv["a_reg"]) == []
    assert sch.get_child_blocks(update) == [BlockRV("matmul")]
    assert sch.get_child_blocks(rv["i0"]) == [BlockRV("matmul_o_init"), BlockRV("matmul_o_update")]


def test_get_loops_stops_at_the_enclosing_block() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    tile_matmul(sch)
    loops = sch.get_loops(sch.get_block("matmul"))
    assert loops == [LoopRV("i_1", "matmul"), LoopRV("j_1", "matmul"), LoopRV("k_1", "matmul")]


def test_handles_print_what_they_name() -> None:
    assert repr(BlockRV("A_global.A_reg")) == "BlockRV('A_global.A_reg')"
    assert repr(LoopRV("ax0", "A_global.A_reg")) == "LoopRV('ax0' above block 'A_global.A_reg')"


def test_show_prints_the_module(capsys: pytest.CaptureFixture[str]) -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    sch.show()  # with T.reads / T.writes, as `xtir-opt -p test-block-regions` prints it
    assert capsys.readouterr().out.strip() == xtir_opt(MATMUL, "test-block-regions").strip()
    assert str(sch).strip() == str(sch.mod).strip()
    assert sch.trace == ""


def seed_002_vector_add() -> Schedule:
    """Seed 002's first steps, verbatim but for the module."""
    sch = Schedule(xtir.parse_file(ROOT / "examples" / "vector_add.mlir"))
    block_C = sch.get_block("C", "main")
    (i,) = sch.get_loops(block_C)
    i0, i1 = sch.split(i, [None, 128])
    sch.parallel(i0)
    return sch


def test_mod_show_prints_as_schedule_show(capsys: pytest.CaptureFixture[str]) -> None:
    sch = seed_002_vector_add()
    for style in ("mlir", "tvm"):
        sch.mod.show(style=style)
        from_mod = capsys.readouterr().out
        sch.show(style=style)
        assert from_mod == capsys.readouterr().out
    sch.mod.show()
    assert "reads" in capsys.readouterr().out and "reads" not in str(sch.mod)
    assert "for i_0 in T.parallel(8):" in sch.mod.script()


def test_mod_is_still_a_module_op() -> None:
    """sch.mod has show(), and is otherwise the ModuleOp it was: it prints, parses back,
    transforms and builds the same."""
    sch = seed_002_vector_add()
    assert isinstance(sch.mod, ModuleOp)
    assert str(xtir.parse(str(sch.mod))) == str(sch.mod)
    assert str(xtir.transform(sch.mod, "unroll{loop=i_1}")) == str(xtir.transform(xtir.parse(str(sch.mod)), "unroll{loop=i_1}"))
    a, b, c = (np.arange(1024, dtype=np.float32) for _ in range(3))
    xtir.build(sch.mod)(a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_schedule_copies_its_module() -> None:
    module = xtir.parse_file(MATMUL)
    text = str(module)
    sch = Schedule(module)
    before = sch.mod
    sch.split(sch.get_loops(sch.get_block("matmul"))[0], [None, 16])
    assert str(module) == text
    assert str(before) == text  # a module handed out earlier is a snapshot


# Errors ------------------------------------------------------------------------------


def test_unknown_block_lists_the_blocks() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    with pytest.raises(xtir.XtirPassError, match='no block named "mm"; blocks: matmul'):
        sch.get_block("mm")


def name_schedule(sch: Schedule, by_name: bool) -> None:
    """The seed schedule with compute_at, each block given as TVM scripts may: by name or by handle."""
    block = (lambda name: name) if by_name else sch.get_block
    i, j, k = sch.get_loops(block("matmul"))
    i0, i1 = sch.split(i, [None, 2])
    k0, k1 = sch.split(k, [None, 4])
    sch.reorder(i0, j, k0, i1, k1)
    sch.cache_read(block("matmul"), "A", "global.A_reg")
    sch.compute_at(block("A_global.A_reg"), k0)
    sch.annotate(block("matmul"), "note", 1)
    sch.cache_write(block("matmul"), 0, "global.accumulator")
    sch.reverse_compute_at(block("C_global.accumulator"), j)
    sch.decompose_reduction(block("matmul"), k0)
    assert sch.get_producers(block("matmul_update")) == [BlockRV("matmul_init"), BlockRV("A_global.A_reg")]
    assert sch.get_consumers(block("matmul_update")) == [BlockRV("C_global.accumulator")]


def test_primitives_take_block_names() -> None:
    by_handle, by_name = Schedule(xtir.parse(SMALL_MATMUL)), Schedule(xtir.parse(SMALL_MATMUL))
    name_schedule(by_handle, by_name=False)
    name_schedule(by_name, by_name=True)
    assert by_name.trace == by_handle.trace and str(by_name.mod) == str(by_handle.mod)
    _matmul_numbers(by_name.mod)


def test_block_name_that_names_no_block() -> None:
    sch = Schedule(xtir.parse(SMALL_MATMUL))
    with pytest.raises(xtir.XtirPassError, match='no block named "mm"; blocks: matmul'):
        sch.compute_inline("mm")
    with pytest.raises(xtir.XtirPassError, match='no block named "mm"; blocks: matmul'):
        sch.cache_read("matmul", 0, "shared", consumer_blocks=["mm"])
    mm = sch.get_block("matmul")
    sch.decompose_reduction("matmul", sch.get_loops(mm)[2])
    assert sch.get_loops(mm)  # the handle follows the renaming, as TVM's does; the name is gone, as in TVM
    with pytest.raises(xtir.XtirPassError, match='no block named "matmul": decompose_reduction renamed it "matmul_update"'):
        sch.get_loops("matmul")
    assert sch.trace == "decompose-reduction{block=matmul loop=k}"


def test_loop_name_given_as_a_block_says_it_is_a_loop() -> None:
    sch = Schedule(xtir.parse(SMALL_MATMUL))
    with pytest.raises(xtir.XtirPassError, match='no block named "k"; blocks: matmul \\("k" is a loop\\)'):
        sch.compute_inline("k")


def test_tvm_keywords_of_blockize_and_schedule() -> None:
    sch = Schedule(xtir.parse(SMALL_MATMUL), enable_check=False)
    i, j, k = sch.get_loops("matmul")
    assert sch.blockize(target=j) == BlockRV("matmul_o")


def test_consumed_loop_handle_is_refused() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    i = sch.get_loops(sch.get_block("matmul"))[0]
    sch.split(i, [None, 16])
    consumed = r"LoopRV\('i' above block 'matmul'\) is no longer valid: .* by split\{loop=i factors=-1,16\}"
    with pytest.raises(xtir.XtirPassError, match=consumed):
        sch.split(i, [None, 4])
    with pytest.raises(xtir.XtirPassError, match=consumed):
        sch.get_child_blocks(i)


def test_refused_primitive_changes_nothing() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    mm = sch.get_block("matmul")
    i, _, k = sch.get_loops(mm)
    sch.split(i, [None, 16])
    before, trace = sch.mod, sch.trace
    text = str(before)
    with pytest.raises(xtir.XtirPassError, match='parallel: loop "k" feeds reduce iteration variable'):
        sch.parallel(k)
    with pytest.raises(xtir.XtirPassError, match="cache-read: block \"matmul\" has 2 read buffers"):
        sch.cache_read(mm, 5, "shared")
    assert sch.mod is before and str(sch.mod) == text
    assert sch.trace == trace


def test_bad_arguments_are_pass_errors() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    mm = sch.get_block("matmul")
    i = sch.get_loops(mm)[0]
    with pytest.raises(xtir.XtirPassError, match="expected a loop handle"):
        sch.split(mm, [None, 16])  # type: ignore[arg-type]
    with pytest.raises(xtir.XtirPassError, match=r"expected a block handle \(BlockRV\) or a block name, got 0"):
        sch.cache_read(0, 0, "local")  # type: ignore[arg-type]
    with pytest.raises(xtir.XtirPassError, match=r"got 'i' \(sch.get_loops\(block\) gives them\)"):
        sch.parallel("i")  # type: ignore[arg-type]
    with pytest.raises(xtir.XtirPassError, match="expected a block or loop handle .* or a block name, got None"):
        sch.get_child_blocks(None)  # type: ignore[arg-type]
    with pytest.raises(xtir.XtirPassError, match="split: factors takes integers, booleans or strings, got 1.5"):
        sch.split(i, [None, 1.5])  # type: ignore[list-item]
    with pytest.raises(xtir.XtirPassError, match=r"split: option 'factors' takes integers \(F0,F1,...\), got -1,x"):
        sch.split(i, [None, "x"])  # type: ignore[list-item]
    with pytest.raises(xtir.XtirPassError, match="annotate: value takes integers, booleans or strings, got 0.5"):
        sch.annotate(i, "ratio", 0.5)  # type: ignore[arg-type]
    with pytest.raises(xtir.XtirPassError, match="reorder: no loops given"):
        sch.reorder()
    with pytest.raises(xtir.XtirPassError, match='no function named "f"; functions: main'):
        Schedule(xtir.parse_file(MATMUL), func_name="f")
    assert sch.trace == ""


SMALL_MATMUL = (ROOT / "tests" / "filecheck" / "passes" / "transform_layout.mlir").read_text()


def _matmul_numbers(module: ModuleOp) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 8), dtype=np.float32), rng.standard_normal((6, 8), dtype=np.float32)
    c = np.full((4, 6), np.nan, np.float32)
    xtir.evaluate(module, a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-5)
    c[:] = np.nan
    xtir.build(module)(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("buffer", "index_map"),
    [(("write", 0), lambda i, j: (j, i)), ("B_global", (1, 0)), (("read", 1), lambda vj, vk: (vk, vj))],
)
def test_transform_layout_packs_a_cache_and_keeps_the_numbers(buffer, index_map) -> None:
    sch = Schedule(xtir.parse(SMALL_MATMUL))
    mm = sch.get_block("matmul")
    copy = sch.cache_read(mm, 1, "global")
    sch.transform_layout(mm if buffer == ("read", 1) else copy, buffer, index_map)
    assert sch.trace.endswith("transform-layout{buffer=B_global permutation=1,0}")
    assert 'block.alloc : memref<8x6xf32, "global">' in str(sch.mod)
    _matmul_numbers(sch.mod)


def test_transform_layout_refuses_an_index_map_that_is_not_a_permutation() -> None:
    sch = Schedule(xtir.parse(SMALL_MATMUL))
    copy = sch.cache_read(sch.get_block("matmul"), 1, "global")
    with pytest.raises(xtir.XtirPassError, match="the index map must return the indices it is given in another order"):
        sch.transform_layout(copy, ("write", 0), lambda i, j: (i // 2, j, i % 2))
    with pytest.raises(xtir.XtirPassError, match='block "B_global" has 1 write buffers; index 3 is out of range'):
        sch.transform_layout(copy, ("write", 3), (1, 0))
    assert sch.trace == "cache-read{block=matmul index=1 scope=global}"


@pytest.mark.parametrize("scope", ["bogus", "shared.dyn", "shared.dyn.x", "wmma.matrix_a", "shared."])
def test_cache_read_refuses_a_scope_xtir_does_not_have(scope: str) -> None:
    sch = Schedule(xtir.parse(SMALL_MATMUL))
    with pytest.raises(xtir.XtirPassError, match=f'cache-read: the storage scope "{re.escape(scope)}"'):
        sch.cache_read("matmul", 0, scope)
    with pytest.raises(xtir.XtirPassError, match=f'cache-write: the storage scope "{re.escape(scope)}"'):
        sch.cache_write("matmul", 0, scope)
    assert sch.trace == ""


def test_tvm_options_other_than_the_default_are_refused() -> None:
    sch = Schedule(xtir.parse(SMALL_MATMUL), debug_mask="all", error_render_level="fast")
    i, j, k = sch.get_loops("matmul")
    refused = "{}: {}={} is not supported; xtir does what TVM does with {}={}, its default"
    for call, option, value, default in [
        (lambda: sch.split(i, [None, 2], preserve_unit_iters=False), "preserve_unit_iters", False, True),
        (lambda: sch.split(i, [None, 3], disable_predication=True), "disable_predication", True, False),
        (lambda: sch.fuse(i, j, preserve_unit_iters=False), "preserve_unit_iters", False, True),
        (lambda: sch.blockize(j, preserve_unit_iters=False), "preserve_unit_iters", False, True),
        (lambda: sch.compute_at("matmul", i, index=0), "index", 0, -1),
    ]:
        primitive = call.__code__.co_names[-1]
        with pytest.raises(xtir.XtirPassError, match=re.escape(refused.format(primitive, option, value, option, default))):
            call()
    assert sch.trace == ""
    _, i1 = sch.split(i, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
    assert sch.fuse(i1, j, preserve_unit_iters=True).name == "i_1_j_fused"


def test_mod_getitem_is_the_function_as_a_module() -> None:
    sch = Schedule(xtir.parse(SMALL_MATMUL))
    main = sch.mod["main"]
    assert isinstance(main, xtir.schedule.IRModule) and str(main) == str(sch.mod)
    assert "def main(" in main.script()
    _matmul_numbers(main)
    with pytest.raises(xtir.XtirPassError, match='no function named "mian"; functions: main'):
        sch.mod["mian"]


# sampling with TVM's decision= -----------------------------------------------------------
def test_a_given_decision_is_taken_and_recorded_as_sampled() -> None:
    """TVM's `decision=` replays one decision: the value is the decision (a tiling, a candidate's
    index, a location's index), and it is recorded as a sampled one, so decision_trace replays it."""
    sch = Schedule(xtir.parse_file(MATMUL), seed=1)
    i, _, _ = sch.get_loops("matmul")
    assert sch.sample_perfect_tile(i, 3, decision=[4, 16, 16]) == [4, 16, 16]
    assert sch.sample_categorical([8, 16, 32], [0.0, 0.0, 1.0], decision=1) == 16  # TVM takes it, probability 0 or not
    values = [d.value for d in sch.decisions]
    assert values == [[4, 16, 16], 1]
    replayed = Schedule(xtir.parse_file(MATMUL), decisions=loads(sch.decision_trace()))
    ri, _, _ = replayed.get_loops("matmul")
    assert replayed.sample_perfect_tile(ri, 3) == [4, 16, 16]


def test_a_given_compute_location_is_taken() -> None:
    sch = Schedule(xtir.parse((ROOT / "examples" / "matmul_bias.mlir").read_text()))
    loops = sch.get_loops(sch.get_consumers("matmul")[0])
    assert sch.sample_compute_location("matmul", decision=1) == loops[1]
    assert sch.sample_compute_location("matmul", decision=-1) is None
    assert [d.value for d in sch.decisions] == [1, -1]


def test_a_perfect_tile_decision_of_numpy_ints_is_taken_as_ints() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    i, _, _ = sch.get_loops("matmul")
    factors = sch.sample_perfect_tile(i, 3, decision=list(np.array([4, 16, 16], dtype=np.int64)))
    assert factors == [4, 16, 16] and all(type(f) is int for f in factors)


@pytest.mark.parametrize("decision, message", [
    ([4, 16], r'decision \[4, 16\] is not 3 positive factors of loop "i"'),
    ([4, 16, 0], r'is not 3 positive factors of loop "i"'),
    ([True, 16, 64], r'decision \[True, 16, 64\] is not 3 positive factors of loop "i"'),
    ([4, 16, 32], r'the factors \[4, 16, 32\] of decision multiply to 2048, not to the extent 1024 of loop "i"'),
])
def test_a_perfect_tile_decision_that_does_not_tile_the_loop_is_refused(decision, message) -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    i, _, _ = sch.get_loops("matmul")
    with pytest.raises(xtir.ScheduleError, match=message):
        sch.sample_perfect_tile(i, 3, decision=decision)
    assert sch.decisions == []


def test_an_index_decision_out_of_range_is_refused() -> None:
    sch = Schedule(xtir.parse((ROOT / "examples" / "matmul_bias.mlir").read_text()))
    wrong = r"wrong decision value, where n = {}, but decision is: {} \(an index among the "
    with pytest.raises(xtir.ScheduleError, match="sample_categorical: " + wrong.format(3, 3) + "candidates"):
        sch.sample_categorical([8, 16, 32], decision=3)
    for decision in (7, -2):  # no loop 7; matmul, a reduction, cannot be inlined
        with pytest.raises(xtir.ScheduleError, match=f"sample_compute_location: wrong decision value {decision}: "
                           'it is none of the candidates of block "matmul": -1 \\(where it is\\), 0 \\(loop i\\), '
                           "1 \\(loop j\\)"):
            sch.sample_compute_location("matmul", decision=decision)
    assert sch.decisions == []


# refusals: TVM's ScheduleError -------------------------------------------------------------------
def test_a_refused_primitive_raises_schedule_error_headed_as_tvm_heads_it() -> None:
    """TVM raises `ScheduleError: An error occurred in the schedule primitive 'split'.` and then says
    why; xtir.ScheduleError (an XtirPassError, so `except XtirPassError` still catches it) does the
    same, for what the pass refuses and for what the Schedule refuses before running it."""
    sch = Schedule(xtir.parse_file(MATMUL))
    i, _, k = sch.get_loops("matmul")
    refusals = {
        "split": lambda: sch.split(i, factors=[62, 16]),  # the pass: too small a product
        "fuse": lambda: sch.fuse(i, k),  # the pass: not nested directly
        "compute-inline": lambda: sch.compute_inline("no_such_block"),  # the Schedule: no such block
        "reorder": lambda: sch.reorder(),  # the Schedule: no loops given
        "blockize": lambda: sch.blockize(i, preserve_unit_iters=False),  # the Schedule: an option TVM's default only
    }
    before = str(sch.mod)
    for primitive, refused in refusals.items():
        with pytest.raises(xtir.ScheduleError) as info:
            refused()
        assert isinstance(info.value, xtir.XtirPassError)
        assert str(info.value).splitlines()[0] == f"An error occurred in the schedule primitive '{primitive}'."
        assert "error: " in str(info.value).splitlines()[1]
    assert str(sch.mod) == before


# error_render_level (TVM's "detail", "fast", "none") ------------------------------------------------
def _refusal(level: str) -> xtir.ScheduleError:
    """fuse(i, k) at `level`: refused at loop "i" (k is not directly inside it), with a note at k."""
    sch = Schedule(xtir.parse_file(MATMUL), error_render_level=level)
    i, _, k = sch.get_loops("matmul")
    with pytest.raises(xtir.ScheduleError) as info:
        sch.fuse(i, k)
    return info.value


def test_error_render_level_detail_shows_the_headline_the_source_line_and_the_notes() -> None:
    error = _refusal("detail")
    lines = str(error).splitlines()
    assert lines[0] == "An error occurred in the schedule primitive 'fuse'."
    assert lines[1] == f"{error.location}: error: {error.message}" and str(error.location).endswith("matmul.mlir:5:5")
    assert lines[2:4] == ['    block.for %i = 0 to 1024 "i" {', "    ^"]
    assert [d.severity for d in error.diagnostics] == ["error", "note"]
    assert f"{error.notes[0].location}: note: {error.notes[0].message}" in lines


def test_error_render_level_fast_is_the_one_line_diagnostic() -> None:
    detail, fast = _refusal("detail"), _refusal("fast")
    assert str(fast) == f"{detail.location}: error: {detail.message}"
    assert "\n" not in str(fast)
    assert (fast.location, fast.message, fast.notes) == (detail.location, detail.message, detail.notes)


def test_error_render_level_none_renders_nothing_but_keeps_the_data() -> None:
    detail, bare = _refusal("detail"), _refusal("none")
    assert str(bare) == "(not rendered)"
    assert (bare.location, bare.message, bare.notes) == (detail.location, detail.message, detail.notes)


def test_error_render_level_applies_to_every_refusal_of_the_schedule() -> None:
    """The Schedule's own refusals (a bad argument, an unknown block) and get_block's, as TVM renders
    every ScheduleError of the schedule (get-block's too) at its level."""
    sch = Schedule(xtir.parse_file(MATMUL), error_render_level="none")
    i, _, _ = sch.get_loops("matmul")
    for refused in (lambda: sch.split(i, [None, 2], preserve_unit_iters=False), lambda: sch.reorder(),
                    lambda: sch.get_block("nope"), lambda: sch.compute_inline("nope")):
        with pytest.raises(xtir.ScheduleError, match=r"^\(not rendered\)$"):
            refused()
    fast = Schedule(xtir.parse_file(MATMUL), error_render_level="fast")
    with pytest.raises(xtir.ScheduleError) as info:
        fast.get_block("nope")
    assert str(info.value) == (f"{info.value.location}: error: 'func.func' op no block named \"nope\"; blocks: matmul "
                               "(TVM: Cannot find a block with the name: nope)")


def test_an_unknown_error_render_level_is_refused_with_tvms_words() -> None:
    with pytest.raises(xtir.XtirPassError, match='error_render_level can be "detail", "fast", or "none", but got: full'):
        Schedule(xtir.parse_file(MATMUL), error_render_level="full")


# a refusal about no op (a bad argument) is located at the block or loop the primitive was given ----
def test_a_bad_argument_is_located_at_the_loop_or_block_it_was_given_for() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    i, j, _ = sch.get_loops("matmul")
    for refused, line, col in [
        (lambda: sch.split(i, [None, 2], preserve_unit_iters=False), 5, 5),  # loop "i"
        (lambda: sch.split(j, "16"), 6, 7),  # loop "j"
        (lambda: sch.cache_read("matmul", "X", "global"), 8, 11),  # block "matmul"
        (lambda: sch.compute_at(sch.get_block("matmul"), j, index=0), 8, 11),  # the first given: the block
    ]:
        with pytest.raises(xtir.ScheduleError) as info:
            refused()
        error = info.value
        assert error.op is None and str(error.location) == f"{MATMUL}:{line}:{col}"
        source_line = MATMUL.read_text().splitlines()[line - 1]
        assert str(error).splitlines()[1:4] == [f"{error.location}: error: {error.message}", source_line,
                                                " " * (col - 1) + "^"]


def test_a_bad_argument_is_located_as_xtir_opt_locates_the_same_refusal() -> None:
    """A buffer that the block does not read: by name the Schedule refuses it (no op: the argument),
    by index xtir-opt's cache-read does (at the block). Both point at block "matmul"'s line."""
    sch = Schedule(xtir.parse(MATMUL.read_text()))
    with pytest.raises(xtir.ScheduleError) as info:
        sch.cache_read("matmul", "X", "global")
    opt = Path(sys.executable).parent / "xtir-opt"
    result = subprocess.run([str(opt), str(MATMUL), "-p", "cache-read{block=matmul index=5 scope=global}"],
                            capture_output=True, text=True)
    assert result.returncode != 0
    opt_location = result.stderr.split(": error:")[0].split(":", 1)[1]  # LINE:COL
    assert str(info.value.location).rsplit(":", 2)[1:] == opt_location.split(":")
    assert result.stderr.splitlines()[1:3] == str(info.value).splitlines()[2:4]  # the same line and caret


def test_a_bad_argument_with_no_block_or_loop_given_stays_unlocated() -> None:
    sch = Schedule(xtir.parse_file(MATMUL))
    with pytest.raises(xtir.ScheduleError) as info:
        sch.reorder()
    assert info.value.location is None and str(info.value).splitlines()[1] == "error: reorder: no loops given"


# sample_compute_location's locations, as compute_at takes them (TVM's root and inline marks) -----
MATMUL_BIAS = ROOT / "examples" / "matmul_bias.mlir"

ELEMENTWISE_PAIR = """
func.func @main(%A: memref<16xf32>, %C: memref<16xf32>) {
  %B = block.alloc : memref<16xf32>
  block.for %i = 0 to 16 "i" {
    block.block "B"(%vi = spatial(16, %i)) {
      %a = block.load %A[%vi] : memref<16xf32>
      %b = arith.addf %a, %a : f32
      block.store %b, %B[%vi] : memref<16xf32>
    }
  }
  block.for %i2 = 0 to 16 "i" {
    block.block "C"(%vi = spatial(16, %i2)) {
      %b = block.load %B[%vi] : memref<16xf32>
      %c = arith.mulf %b, %b : f32
      block.store %c, %C[%vi] : memref<16xf32>
    }
  }
  func.return
}
"""

# C = (2A)·B: block "A2" makes 2A, which "matmul" reads at [vi, vk]
PRODUCER_OF_MATMUL = """
func.func @main(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>) {
  %A2 = block.alloc : memref<16x16xf32>
  block.for %i = 0 to 16 "i" {
    block.for %k = 0 to 16 "k" {
      block.block "A2"(%vi = spatial(16, %i), %vk = spatial(16, %k)) {
        %a = block.load %A[%vi, %vk] : memref<16x16xf32>
        %a2 = arith.addf %a, %a : f32
        block.store %a2, %A2[%vi, %vk] : memref<16x16xf32>
      }
    }
  }
  block.for %i2 = 0 to 16 "i" {
    block.for %j2 = 0 to 16 "j" {
      block.for %k2 = 0 to 16 "k" {
        block.block "matmul"(%vi = spatial(16, %i2), %vj = spatial(16, %j2), %vk = reduce(16, %k2)) {
          block.init {
            %zero = arith.constant 0.0 : f32
            block.store %zero, %C[%vi, %vj] : memref<16x16xf32>
          }
          %c = block.load %C[%vi, %vj] : memref<16x16xf32>
          %a = block.load %A2[%vi, %vk] : memref<16x16xf32>
          %b = block.load %B[%vk, %vj] : memref<16x16xf32>
          %ab = arith.mulf %a, %b : f32
          %s = arith.addf %c, %ab : f32
          block.store %s, %C[%vi, %vj] : memref<16x16xf32>
        }
      }
    }
  }
  func.return
}
"""


def test_compute_at_a_sampled_location_of_none_leaves_the_block_where_it_is() -> None:
    sch = Schedule(xtir.parse_file(MATMUL_BIAS))
    before = str(sch.mod)
    location = sch.sample_compute_location("matmul", decision=-1)
    assert location is None
    sch.compute_at("matmul", location)
    assert str(sch.mod) == before and sch.trace == ""
    with pytest.raises(xtir.ScheduleError, match='no block named "nope"'):
        sch.compute_at("nope", None)


def test_compute_at_the_inline_mark_inlines_the_block() -> None:
    sch = Schedule(xtir.parse(ELEMENTWISE_PAIR))
    assert sch.sample_compute_location("B", decision=-2) is INLINE_MARK
    sch.compute_at("B", INLINE_MARK)
    assert sch.trace == "compute-inline{block=B}" and sch.block_names() == ["C"]
    reverse = Schedule(xtir.parse(ELEMENTWISE_PAIR))
    reverse.reverse_compute_at("C", INLINE_MARK)
    assert reverse.trace == "reverse-compute-inline{block=C}" and reverse.block_names() == ["B"]
    refused = Schedule(xtir.parse_file(MATMUL_BIAS))
    with pytest.raises(xtir.ScheduleError) as info:  # a reduction: not inlinable
        refused.compute_at("matmul", INLINE_MARK)
    assert str(info.value).splitlines()[0] == "An error occurred in the schedule primitive 'compute-at'."


def test_the_sampled_locations_are_tvms_candidates() -> None:
    """-2 (the block inlines), -1, and the loops above the first consumer where compute_at takes the
    block, but not the reduction loops after its last spatial loop (k of matmul)."""
    sch = Schedule(xtir.parse(PRODUCER_OF_MATMUL), seed=0)
    for _ in range(60):
        sch.sample_compute_location("A2")
    assert {d.value for d in sch.decisions} == {-2, -1, 0, 1}
    assert {sch.sample_compute_location("matmul") for _ in range(10)} == {None}  # no consumer: where it is
    a, b = (np.random.default_rng(1).uniform(size=(16, 16)).astype(np.float32) for _ in range(2))
    for k in (-2, 0, 1):
        placed = Schedule(xtir.parse(PRODUCER_OF_MATMUL))
        placed.compute_at("A2", placed.sample_compute_location("A2", decision=k))
        assert placed.trace == {-2: "compute-inline{block=A2}", 0: 'compute-at{block=A2 loop="matmul/i"}',
                                1: "compute-at{block=A2 loop=j}"}[k]
        c = np.zeros((16, 16), np.float32)
        xtir.build(placed.mod)(a, b, c)
        np.testing.assert_allclose(c, (2 * a) @ b, rtol=1e-5)


def test_a_refused_argument_is_not_located_at_a_block_named_by_another_argument() -> None:
    """sample_categorical's candidates are no blocks, even where one is a block's name."""
    sch = Schedule(xtir.parse_file(MATMUL))
    with pytest.raises(xtir.ScheduleError) as info:
        sch.sample_categorical(["matmul", "other"], decision=5)
    assert info.value.location is None


@pytest.mark.parametrize("decision", [1.0, True])
def test_a_compute_location_decision_that_is_no_int_is_refused(decision) -> None:
    """1.0 and True equal the candidate 1 but are no index: refused, not taken (1.0 indexed no list)."""
    sch = Schedule(xtir.parse(PRODUCER_OF_MATMUL))
    with pytest.raises(xtir.ScheduleError, match=f"sample_compute_location: wrong decision value {decision!r}: it is "
                       'not an int, the index of one of the candidates of block "A2": -2 \\(inline\\), -1'):
        sch.sample_compute_location("A2", decision=decision)
    assert sch.decisions == []


@pytest.mark.parametrize("sample", [
    lambda sch: sch.sample_compute_location("A2"),
    lambda sch: sch.sample_categorical([8, 16, 32]),
    lambda sch: sch.sample_perfect_tile(sch.get_loops("matmul")[0], 1),
])
@pytest.mark.parametrize("replayed", [1.0, True, [True], [16.0]])
def test_a_replayed_decision_that_is_no_int_is_refused(sample, replayed) -> None:
    """A replayed decision is taken where valid, else sampled anew; one that is no int (True == 1,
    1.0 == 1) is neither: no decision is a bool or a float, so it is refused."""
    sch = Schedule(xtir.parse(PRODUCER_OF_MATMUL), decisions=[replayed])
    with pytest.raises(xtir.ScheduleError, match=re.escape(f"decision 0 of the replayed decisions is {replayed!r}: "
                                                           "a decision is an int")):
        sample(sch)


def test_a_replayed_decision_of_numpy_ints_is_taken() -> None:
    sch = Schedule(xtir.parse(PRODUCER_OF_MATMUL), decisions=[np.int64(1), [np.int64(16)]])
    assert sch.sample_compute_location("A2") == sch.get_loops("matmul")[1]
    assert sch.sample_perfect_tile(sch.get_loops("matmul")[0], 1) == [16]
    assert [d.value for d in sch.decisions] == [1, [16]]
    assert all(type(v) is int for v in [sch.decisions[0].value, *sch.decisions[1].value])


def test_a_refusal_about_a_consumed_handle_is_located_where_its_loop_was() -> None:
    """fuse(i, j) after split(i) is refused for i: the caret goes to loop i's line (the loop it was),
    not to loop j's, whichever order they are given in."""
    for order in (lambda i, j: (i, j), lambda i, j: (j, i)):
        sch = Schedule(xtir.parse_file(MATMUL))
        i, j, _ = sch.get_loops("matmul")
        sch.split(i, [2, None])
        with pytest.raises(xtir.ScheduleError, match=r"LoopRV\('i' above block 'matmul'\) is no longer valid") as info:
            sch.fuse(*order(i, j))
        assert str(info.value.location) == f"{MATMUL}:5:5"


def test_a_refusal_about_an_argument_that_denotes_no_loop_is_not_located_at_another() -> None:
    """compute_at("matmul", "i") is refused for "i" (a name, where a loop handle is taken): not at block matmul."""
    sch = Schedule(xtir.parse_file(MATMUL))
    with pytest.raises(xtir.ScheduleError, match=r"expected a loop handle \(LoopRV\), got 'i'") as info:
        sch.compute_at("matmul", "i")
    assert info.value.location is None and "^" not in str(info.value)
    with pytest.raises(xtir.ScheduleError, match=r"expected a block handle \(BlockRV\) or a block name, got 3") as info:
        sch.get_loops(3)
    assert info.value.location is None


def test_a_loop_name_given_for_a_loop_locates_a_refusal_at_that_loop() -> None:
    """A refusal about no op (an option) is located at the op the primitive was given: a string
    given for a loop is a loop's name (not a block's, as it was taken before)."""
    sch = Schedule(xtir.parse_file(MATMUL))
    with pytest.raises(xtir.ScheduleError, match="preserve_unit_iters=False is not supported") as info:
        sch.split("j", [None, 16], preserve_unit_iters=False)
    assert str(info.value.location) == f"{MATMUL}:6:7"


TWO_FUNCTIONS = "builtin.module {\n" + "\n".join(
    PRODUCER_OF_MATMUL.strip().replace("@main", f"@{name}") for name in ("f", "g")) + "\n}"


@pytest.mark.parametrize("use", [
    lambda sch, b: sch.get_consumers(b),
    lambda sch, b: sch.get_producers(b),
    lambda sch, b: sch.get_loops(b),
    lambda sch, b: sch.sample_compute_location(b),
    lambda sch, b: sch.compute_at(b, None),
    lambda sch, b: sch.compute_at(b, sch.get_loops(sch.get_consumers("A2")[0])[1]),
    lambda sch, b: sch.compute_inline(b),
])
def test_a_handle_of_another_function_is_refused(use) -> None:
    """A handle denotes a block of the function it was made in: after work_on("f"), g's A2 is no
    block of f (it raised a ValueError, gave g's candidates, or compute_at moved f's A2)."""
    sch = Schedule(xtir.parse(TWO_FUNCTIONS), func_name="g")
    sch.sample_compute_location("A2", decision=1)  # g's candidates, remembered for g's state
    b = sch.get_block("A2")
    sch.work_on("f")
    before = str(sch.mod)
    with pytest.raises(xtir.ScheduleError, match='BlockRV\\(\'A2\'\\) is a block of function "g", but the schedule '
                       'works on "f" now') as info:
        use(sch, b)
    g_block_line = [n for n, line in enumerate(TWO_FUNCTIONS.splitlines(), 1) if 'block.block "A2"' in line][1]
    assert info.value.location.line == g_block_line  # g's block A2, the argument's own op
    assert sch.trace == "" and str(sch.mod) == before
    sch.work_on("g")
    assert sch.get_consumers(b) == [BlockRV("matmul")]
