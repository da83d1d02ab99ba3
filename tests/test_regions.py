"""Unit tests of passes/analysis/regions.py: the read/write regions of blocks (T.reads / T.writes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir.dialects.block import BlockOp
from xtir.dialects.expr import Expr
from xtir.passes.analysis.navigation import all_loops, get_block
from xtir.passes.analysis.regions import (
    BufferRegion,
    Range,
    format_region,
    format_regions,
    loop_bounds,
    read_regions,
    relax,
    write_regions,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def regions_of(module: ModuleOp, name: str) -> tuple[list[str], list[str]]:
    block = get_block(module, name)
    return format_regions(read_regions(block)), format_regions(write_regions(block))


def func(body: str, args: str) -> ModuleOp:
    return xtir.parse(f"func.func @main({args}) {{\n{body}\n  func.return\n}}\n")


# The matmul example of seeds 000/001 ------------------------------------------------


def test_matmul_example_regions():
    module = xtir.parse_file(EXAMPLES / "matmul.mlir")
    block = get_block(module, "matmul")
    vi, vj, vk = block.iter_vars
    reads, writes = read_regions(block), write_regions(block)
    # C is reduced into under an init, so (as in TVM) it is not listed as a read
    assert format_regions(reads) == ["A[vi, vk]", "B[vj, vk]"]
    assert format_regions(writes) == ["C[vi, vj]"]
    a, b = reads
    assert a.buffer.name_hint == "A" and a.ranges == (Range(Expr.var(vi), 1), Range(Expr.var(vk), 1))
    assert b.buffer.name_hint == "B" and b.ranges == (Range(Expr.var(vj), 1), Range(Expr.var(vk), 1))
    (c,) = writes
    assert c.buffer.name_hint == "C" and c.ranges == (Range(Expr.var(vi), 1), Range(Expr.var(vj), 1))


def test_reduction_without_init_reads_its_output():
    module = func(
        """
  block.for %i = 0 to 8 "i" {
    block.for %k = 0 to 8 "k" {
      block.block "sum"(%vi = spatial(8, %i), %vk = reduce(8, %k)) {
        %c = block.load %C[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x8xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<8xf32>
      }
    }
  }""",
        "%A: memref<8x8xf32>, %C: memref<8xf32>",
    )
    assert regions_of(module, "sum") == (["C[vi]", "A[vi, vk]"], ["C[vi]"])


def test_init_of_another_buffer_leaves_the_update_a_read():
    """Only the buffers the init writes are left out of the reads: C, updated in place but
    not reset by the init (which resets D), is read."""
    module = func(
        """
  block.for %i = 0 to 8 "i" {
    block.for %k = 0 to 8 "k" {
      block.block "sum"(%vi = spatial(8, %i), %vk = reduce(8, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %D[%vi] : memref<8xf32>
        }
        %a = block.load %A[%vi, %vk] : memref<8x8xf32>
        %c = block.load %C[%vi] : memref<8xf32>
        %c2 = arith.addf %c, %a : f32
        block.store %c2, %C[%vi] : memref<8xf32>
        %d = block.load %D[%vi] : memref<8xf32>
        %d2 = arith.addf %d, %a : f32
        block.store %d2, %D[%vi] : memref<8xf32>
      }
    }
  }""",
        "%A: memref<8x8xf32>, %C: memref<8xf32>, %D: memref<8xf32>",
    )
    assert regions_of(module, "sum") == (["A[vi, vk]", "C[vi]"], ["D[vi]", "C[vi]"])


# Blockized matmul (seed 001, "matmul_o"): the outer block's regions are 16x16 tiles ---

BLOCKIZED = """
  block.for %i_0 = 0 to 64 "i_0" {
    block.for %j_0 = 0 to 64 "j_0" {
      block.for %k_0 = 0 to 64 "k_0" {
        block.block "matmul_o"(%vi_o = spatial(64, %i_0), %vj_o = spatial(64, %j_0), %vk_o = reduce(64, %k_0)) {
          block.init {
            block.for %i_1 = 0 to 16 "i_1" {
              block.for %j_1 = 0 to 16 "j_1" {
                block.block "matmul_init"(%vi_i_init = spatial(16, %i_1), %vj_i_init = spatial(16, %j_1)) {
                  %zero = arith.constant 0.000000e+00 : f32
                  block.store %zero, %C[%vi_o * 16 + %vi_i_init, %vj_o * 16 + %vj_i_init] : memref<1024x1024xf32>
                }
              }
            }
          }
          block.for %i_1 = 0 to 16 "i_1" {
            block.for %j_1 = 0 to 16 "j_1" {
              block.for %k_1 = 0 to 16 "k_1" {
                block.block "matmul"(%vi_i = spatial(16, %i_1), %vj_i = spatial(16, %j_1), %vk_i = reduce(16, %k_1)) {
                  %c = block.load %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
                  %a = block.load %A[%vi_o * 16 + %vi_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
                  %b = block.load %B[%vj_o * 16 + %vj_i, %vk_o * 16 + %vk_i] : memref<1024x1024xf32>
                  %ab = arith.mulf %a, %b : f32
                  %s = arith.addf %c, %ab : f32
                  block.store %s, %C[%vi_o * 16 + %vi_i, %vj_o * 16 + %vj_i] : memref<1024x1024xf32>
                }
              }
            }
          }
        }
      }
    }
  }"""
MATMUL_ARGS = "%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>"


@pytest.fixture
def blockized() -> ModuleOp:
    return func(BLOCKIZED, MATMUL_ARGS)


def test_blockized_outer_block_regions_are_tiles(blockized):
    # TVM: T.reads(A[vi_o * 16 : vi_o * 16 + 16, vk_o * 16 : vk_o * 16 + 16],
    #              B[vj_o * 16 : vj_o * 16 + 16, vk_o * 16 : vk_o * 16 + 16])
    #      T.writes(C[vi_o * 16 : vi_o * 16 + 16, vj_o * 16 : vj_o * 16 + 16])
    assert regions_of(blockized, "matmul_o") == (
        [
            "A[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]",
            "B[vj_o * 16:vj_o * 16 + 16, vk_o * 16:vk_o * 16 + 16]",
        ],
        ["C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16]"],
    )
    block = get_block(blockized, "matmul_o")
    vi_o, vj_o, _ = block.iter_vars
    (c,) = write_regions(block)
    assert c.ranges == (Range(Expr.var(vi_o) * 16, 16), Range(Expr.var(vj_o) * 16, 16))


def test_blockized_inner_blocks_regions(blockized):
    # TVM: the inner "matmul" has no init of its own, so it reads C; "matmul_init" reads nothing
    assert regions_of(blockized, "matmul") == (
        [
            "C[vi_o * 16 + vi_i, vj_o * 16 + vj_i]",
            "A[vi_o * 16 + vi_i, vk_o * 16 + vk_i]",
            "B[vj_o * 16 + vj_i, vk_o * 16 + vk_i]",
        ],
        ["C[vi_o * 16 + vi_i, vj_o * 16 + vj_i]"],
    )
    assert regions_of(blockized, "matmul_init") == ([], ["C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init]"])


def test_tensorized_block_regions_from_accel_ops():
    """accel ops access 16x16 regions; loops inside the block are relaxed over them."""
    module = func(
        """
  %A_reg = block.alloc : memref<16x16xf32, "global.A_reg">
  %C_acc = block.alloc : memref<64x64xf32, "global.accumulator">
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 4 "k" {
      block.block "upd"(%vi = spatial(4, %i), %vk = reduce(4, %k)) {
        accel.dma_copy %A_reg[0 : 16, 0 : 16], %A[%vi * 16 : 16, %vk * 16 : 16]
          : memref<16x16xf32, "global.A_reg">, memref<64x64xf32>
      }
    }
    block.block "wb"(%v = spatial(4, %i)) {
      block.for %t = 0 to 4 "t" {
        accel.dma_copy %C[%v * 16 : 16, %t * 16 : 16], %C_acc[%v * 16 : 16, %t * 16 : 16]
          : memref<64x64xf32>, memref<64x64xf32, "global.accumulator">
      }
    }
  }""",
        "%A: memref<64x64xf32>, %C: memref<64x64xf32>",
    )
    assert regions_of(module, "upd") == (["A[vi * 16:vi * 16 + 16, vk * 16:vk * 16 + 16]"], ["A_reg[0:16, 0:16]"])
    assert regions_of(module, "wb") == (["C_acc[v * 16:v * 16 + 16, 0:64]"], ["C[v * 16:v * 16 + 16, 0:64]"])


# Relaxation of loops inside a block and unions of accesses ----------------------------


def test_loops_inside_block_are_relaxed():
    module = func(
        """
  block.for %i = 0 to 4 "i" {
    block.block "copy"(%vi = spatial(4, %i)) {
      block.for %ax0 = 0 to 16 "ax0" {
        block.for %ax1 = 0 to 8 "ax1" {
          %x = block.load %A[%vi * 16 + %ax0, 2 * %ax1 + 1] : memref<64x16xf32>
          block.store %x, %B[%vi, 15 - %ax0, %ax1] : memref<4x16x8xf32>
        }
      }
    }
  }""",
        "%A: memref<64x16xf32>, %B: memref<4x16x8xf32>",
    )
    # a stride-2 access covers the hull [1, 15]; a negative coefficient still starts at 0
    assert regions_of(module, "copy") == (["A[vi * 16:vi * 16 + 16, 1:16]"], ["B[vi, 0:16, 0:8]"])


def test_union_of_accesses_to_one_buffer():
    module = func(
        """
  block.for %i = 0 to 62 "i" {
    block.block "stencil"(%vi = spatial(62, %i)) {
      %l = block.load %A[%vi] : memref<64xf32>
      %c = block.load %A[%vi + 1] : memref<64xf32>
      %r = block.load %A[%vi + 2] : memref<64xf32>
      %s = arith.addf %l, %c : f32
      %t = arith.addf %s, %r : f32
      block.store %t, %B[%vi] : memref<62xf32>
    }
  }""",
        "%A: memref<64xf32>, %B: memref<62xf32>",
    )
    assert regions_of(module, "stencil") == (["A[vi:vi + 3]"], ["B[vi]"])


def test_union_with_unrelated_offsets_covers_the_dimension():
    module = func(
        """
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 8 "j" {
      block.block "T"(%vi = spatial(8, %i), %vj = spatial(8, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x8xf32>
        %b = block.load %A[%vj, %vj] : memref<8x8xf32>
        %s = arith.addf %a, %b : f32
        block.store %s, %B[%vi, %vj] : memref<8x8xf32>
      }
    }
  }""",
        "%A: memref<8x8xf32>, %B: memref<8x8xf32>",
    )
    # vi and vj differ by a non-constant: the first dimension is the whole buffer
    assert regions_of(module, "T") == (["A[0:8, vj]"], ["B[vi, vj]"])


def test_fused_inner_loop_through_floordiv_mod_bindings():
    """A nested block bound by floordiv/mod of a fused loop still gives a 16x16 tile."""
    module = func(
        """
  block.for %i = 0 to 4 "i" {
    block.block "outer"(%vo = spatial(4, %i)) {
      block.for %f = 0 to 256 "f" {
        block.block "inner"(%vi = spatial(16, %f floordiv 16), %vj = spatial(16, %f mod 16)) {
          %x = block.load %A[%vo * 16 + %vi, %vj] : memref<64x16xf32>
          block.store %x, %B[%vo * 16 + %vj, %vi] : memref<64x16xf32>
        }
      }
    }
  }""",
        "%A: memref<64x16xf32>, %B: memref<64x16xf32>",
    )
    assert regions_of(module, "outer") == (["A[vo * 16:vo * 16 + 16, 0:16]"], ["B[vo * 16:vo * 16 + 16, 0:16]"])
    assert regions_of(module, "inner") == (["A[vo * 16 + vi, vj]"], ["B[vo * 16 + vj, vi]"])


def test_block_with_predicate_keeps_its_accesses():
    module = func(
        """
  block.for %i_0 = 0 to 4 "i_0" {
    block.for %i_1 = 0 to 16 "i_1" {
      block.block "P"(%vi = spatial(63, %i_0 * 16 + %i_1)) where(%i_0 * 16 + %i_1 < 63) {
        %x = block.load %A[%vi] : memref<63xf32>
        block.store %x, %B[62 - %vi] : memref<63xf32>
      }
    }
  }""",
        "%A: memref<63xf32>, %B: memref<63xf32>",
    )
    assert regions_of(module, "P") == (["A[vi]"], ["B[-vi + 62]"])


def test_regions_are_derived_not_stored(blockized):
    """Regions follow the IR: after a store is erased the write region is gone."""
    block = get_block(blockized, "matmul_init")
    store = next(op for op in block.body.walk() if op.name == "block.store")
    store.detach()
    store.erase(safe_erase=False)
    assert write_regions(block) == []


# Helpers ---------------------------------------------------------------------------


def test_loop_bounds(blockized):
    loops = {loop.label: loop for loop in all_loops(blockized)}
    assert loop_bounds(loops["k_0"].var) == (0, 63)
    block = get_block(blockized, "matmul")
    assert [loop_bounds(v) for v in block.iter_vars] == [(0, 15)] * 3
    func_op = blockized.body.block.first_op
    assert loop_bounds(func_op.body.block.args[0]) is None  # a buffer, not a loop


def test_relax(blockized):
    outer = get_block(blockized, "matmul_o")
    i_1 = next(loop for loop in all_loops(outer) if loop.label == "i_1").var
    vi_o = outer.iter_vars[0]
    e = Expr.var(vi_o) * 16 + Expr.var(i_1) + 1
    assert relax(e, {i_1}) == Range(Expr.var(vi_o) * 16 + 1, 16)
    assert relax(e, set()) == Range(e, 1)
    assert relax(Expr.var(i_1) * -1, {i_1}) == Range(Expr.of(-15), 16)
    assert relax(Expr.var(i_1), {i_1}, bounds=lambda _: None) is None


def test_format_region():
    module = xtir.parse_file(EXAMPLES / "matmul.mlir")
    block: BlockOp = get_block(module, "matmul")
    vi, _, vk = block.iter_vars
    a = read_regions(block)[0].buffer
    region = BufferRegion(a, (Range(Expr.var(vi) * 16, 16), Range(Expr.var(vk), 1)))
    assert format_region(region) == "A[vi * 16:vi * 16 + 16, vk]"
