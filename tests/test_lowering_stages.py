"""The lowering stages as separate passes: registered by name, and each one's output verifies,
stage by stage, on scheduled programs (parallel, vectorized, unrolled, tensorized with the
micro-kernel, run-time bounds checks); the stages run one by one give what xtir.build lowers."""

import re
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.transforms import get_all_passes

import xtir
from xtir.build import lower_to_llvm
from xtir.lowering.pipelines import CONVERT_TO_LLVM_STAGES, lower_blocks_stages, lower_to_llvm_stages
from xtir.passes_registry import XTIR_PASSES

ROOT = Path(__file__).resolve().parent.parent

HAND_CPU = (
    "split{loop=i factors=-1,8},split{loop=j factors=-1,32},reorder{loops=j_0,i_0,k,i_1,j_1},"
    'cache-read{block=matmul index=1 scope="global"},transform-layout{buffer=B_global permutation=1,0},'
    "compute-at{block=B_global loop=j_0},"
    'cache-write{block=matmul index=0 scope="local"},reverse-compute-at{block=C_local loop=i_0},'
    "decompose-reduction{block=matmul loop=k},vectorize{loop=j_1},unroll{loop=i_1},parallel{loop=j_0}"
)
TENSORIZE = (
    "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
    "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},"
    'cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},'
    'compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},'
    'cache-write{block=matmul_o index=0 scope="global.accumulator"},'
    'reverse-compute-at{block="C_global.accumulator" loop=j_0},decompose-reduction{block=matmul_o loop=k_0},'
    "tensorize{block=matmul_o_update intrin=tmm16},parallel{loop=i_0}"
)


def matmul(n: int, schedule: str) -> xtir.ModuleOp:
    text = re.sub(r"(?<!\d)1024(?!\d)", str(n), (ROOT / "examples" / "matmul.mlir").read_text())
    module = xtir.parse(text)
    return xtir.transform(module, schedule) if schedule else module


def test_every_stage_is_registered_by_its_name() -> None:
    for stage in [*lower_blocks_stages(), *CONVERT_TO_LLVM_STAGES]:
        if type(stage).__module__.startswith("xtir."):
            assert XTIR_PASSES[stage.name]() is type(stage)
        else:  # xDSL's own (cse, licm, reconcile-unrealized-casts), which xtir-opt has too
            assert get_all_passes()[stage.name]() is type(stage)
    for name in ("lower-to-llvm", "lower-blocks", "convert-to-llvm"):
        assert XTIR_PASSES[name]().name == name


@pytest.mark.parametrize(
    ("schedule", "bounds_check"),
    [("", False), (HAND_CPU, False), (TENSORIZE, True)],
    ids=["naive", "hand-cpu", "tensorize-bounds-check"],
)
def test_each_stage_verifies_and_they_make_what_build_lowers(schedule: str, bounds_check: bool) -> None:
    module = matmul(32, schedule)
    staged = module.clone()
    for stage in lower_to_llvm_stages(staged, microkernels=True, bounds_check=bounds_check):
        stage.apply(Context(), staged)
        staged.verify()
    if not bounds_check:  # (each build registers its own bounds-check sites)
        assert str(staged) == str(lower_to_llvm(module, "main"))
