"""The graph passes keep every function's numbers: each function of the lit inputs is
evaluated before and after the pass on the same random inputs (fused functions run
through their func.call)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func

import xtir
from xtir.interpreters.block import numpy_dtype

PASSES = Path(__file__).resolve().parent / "filecheck" / "passes"


def _functions(module) -> list[func.FuncOp]:
    """The graph functions the evaluator can run (not the fused ones, nor those calling declarations)."""
    declared = {f.sym_name.data for f in module.ops if isinstance(f, func.FuncOp) and not f.body.blocks}
    return [
        f
        for f in module.ops
        if isinstance(f, func.FuncOp)
        and f.body.blocks
        and "xtir.primitive" not in f.attributes
        and not any(isinstance(op, func.CallOp) and op.callee.string_value() in declared for op in f.walk())
    ]


def _random_arguments(f: func.FuncOp, rng: np.random.Generator) -> list[np.ndarray]:
    args = []
    for t in f.function_type.inputs.data:
        dtype = numpy_dtype(t.element_type)
        shape = tuple(t.get_shape())
        if np.issubdtype(dtype, np.floating):
            args.append(rng.standard_normal(shape).astype(dtype))
        else:
            args.append(rng.integers(-100, 100, shape).astype(dtype))
    return args


@pytest.mark.parametrize(
    "source, pipeline",
    [
        ("fuse_ewise_fma.mlir", "fuse-ewise-fma"),
        ("fuse_ops.mlir", "fuse-ops"),
        ("fuse_ops.mlir", "fuse-ops{max_fused_ops=2}"),
        ("fold_constants.mlir", "fold-constants"),
        ("graph_dce.mlir", "fuse-ewise-fma,dce,fuse-ops"),
    ],
)
def test_pass_keeps_the_numbers(source, pipeline):
    before = xtir.parse_file(PASSES / source)
    after = xtir.transform(before, pipeline)
    rng = np.random.default_rng(0)
    for f in _functions(before):
        name = f.sym_name.data
        args = _random_arguments(f, rng)
        expected = xtir.evaluate(before, *args, func=name)
        got = xtir.evaluate(after, *args, func=name)
        for e, g in zip(expected, got, strict=True):
            # an fma rounds once where multiply + add rounded twice
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6, err_msg=f"{source} @{name} after {pipeline}")


def test_fusion_changes_the_module():
    """The numbers test above must compare two different programs."""
    before = xtir.parse_file(PASSES / "fuse_ops.mlir")
    after = xtir.transform(before, "fuse-ops")
    assert len(list(after.ops)) > len(list(before.ops))
    assert "func.call @fused_dense_add_relu" in str(after)


def test_op_pattern_kinds():
    """TVM's kinds: broadcasting ops are elementwise when one operand has the result shape."""
    from xtir.passes.analysis.op_pattern import OpPatternKind, op_pattern

    module = xtir.parse(
        """
        func.func @main(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>, %w: tensor<8x8xf32>) {
          %e = tensor.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
          %s = tensor.add %c, %b : tensor<4x1xf32>, tensor<8xf32> -> tensor<4x8xf32>
          %t = tensor.transpose %x permutation [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
          %d = tensor.dense %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
          %k = arith.constant dense<1.0> : tensor<8xf32>
          func.return
        }"""
    )
    kinds = {op.results[0].name_hint: op_pattern(op) for op in module.walk() if op.results and op.results[0].name_hint}
    assert kinds == {
        "e": OpPatternKind.ELEMWISE,
        "s": OpPatternKind.BROADCAST,
        "t": OpPatternKind.INJECTIVE,
        "d": OpPatternKind.OUT_ELEMWISE_FUSABLE,
        "k": OpPatternKind.OPAQUE,
    }
