"""The tmm16 CPU micro-kernel: what xtir.build calls for accel.tmm16, checked against numpy."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import xtir

ROOT = Path(__file__).resolve().parent.parent
SEED = (ROOT / "examples" / "seed_tensorize.sh").read_text().split("<<'END'\n", 1)[1].split("\nEND", 1)[0]
SEED = SEED.replace("\n", "")
ACCEL = (
    ',tensorize{block=matmul_o_init intrin=fill_zero16},tensorize{loop="A_global.A_reg/ax0" intrin=dma_copy16},'
    'tensorize{loop="B_global.B_reg/ax0" intrin=dma_copy16},tensorize{loop="C_global.accumulator/ax0" intrin=dma_copy16}'
)


def matmul(n: int):
    return xtir.parse(re.sub(r"(?<!\d)1024(?!\d)", str(n), (ROOT / "examples" / "matmul.mlir").read_text()))


@pytest.mark.parametrize("n, pipeline", [(48, SEED), (64, SEED + ",parallel{loop=i_0}"), (32, SEED + ACCEL)])
def test_tensorized_matmul_matches_numpy(n: int, pipeline: str) -> None:
    compiled = xtir.build(xtir.transform(matmul(n), pipeline))
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    c = np.full((n, n), np.nan, dtype=np.float32)
    compiled(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)
    assert 'void @"xtir_tmm16"(' in compiled.llvm_ir


def test_kernel_is_vector_fma() -> None:
    """The kernel works on <16 x float> rows with fused multiply-adds, 256 of them per call."""
    compiled = xtir.build(xtir.transform(matmul(32), SEED))
    kernel = compiled.llvm_ir.split('define internal void @"xtir_tmm16"(', 1)[1].split("\n}\n", 1)[0]
    assert kernel.count('@"llvm.fma.v16f32"(') == 256
    assert kernel.count("load <16 x float>") == 32 and kernel.count("store <16 x float>") == 16


def test_lower_blocks_leaves_a_kernel_call_only_when_asked() -> None:
    module = xtir.transform(matmul(32), SEED)
    plain = xtir.transform(module, "lower-blocks")
    assert "func.call" not in str(plain) and "accel.tmm16" not in str(plain)
    kernel = xtir.transform(module, "lower-blocks{microkernels=true}")
    text = str(kernel)
    assert 'func.call @xtir_tmm16_0(' in text and 'xtir.microkernel = "tmm16"' in text
    assert "func.func private @xtir_tmm16_0(" in text


def test_kernel_constants_are_keyed_on_value_and_type() -> None:
    from xdsl.builder import Builder
    from xdsl.dialects.builtin import i32, i64
    from xdsl.ir import Block
    from xdsl.rewriter import InsertPoint

    from xtir.lowering.microkernels import constants

    block = Block()
    const = constants(Builder(InsertPoint.at_end(block)))
    assert const(0) is const(0, i64)
    assert const(0, i32) is not const(0)
    assert len(list(block.ops)) == 2


def test_tmm16_kernel_makes_each_constant_once() -> None:
    from xdsl.dialects import llvm

    from xtir.lowering.microkernels import tmm16_kernel

    made = [(op.value, op.result.type) for op in tmm16_kernel().walk() if isinstance(op, llvm.ConstantOp)]
    assert len(made) == len(set(made))
