"""The lowering stages as separate passes: registered by name, and each one's output verifies,
stage by stage, on scheduled programs (parallel, vectorized, unrolled, tensorized with the
micro-kernel, run-time bounds checks); the stages run one by one give what xtir.build lowers."""

import importlib.util
import re
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.transforms import get_all_passes

import xtir
from xtir.build import lower_to_llvm
from xtir.lowering.pipelines import lower_to_llvm_stages
from xtir.passes_registry import XTIR_PASSES

ROOT = Path(__file__).resolve().parent.parent


def _benchmark_schedules() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("matmul_benchmark", ROOT / "benchmarks" / "matmul.py")
    assert spec is not None and spec.loader is not None
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    return {"hand-cpu": benchmark.HAND_CPU, "tensorize": benchmark.SEED_TENSORIZE}


SCHEDULES = _benchmark_schedules()


def matmul(n: int, schedule: str) -> xtir.ModuleOp:
    text = re.sub(r"(?<!\d)1024(?!\d)", str(n), (ROOT / "examples" / "matmul.mlir").read_text())
    module = xtir.parse(text)
    return xtir.transform(module, schedule) if schedule else module


def test_every_stage_is_registered_by_its_name() -> None:
    for stage in lower_to_llvm_stages(matmul(32, "")):  # lower-blocks', guard-arith, convert-to-llvm's
        if type(stage).__module__.startswith("xtir."):
            assert XTIR_PASSES[stage.name]() is type(stage)
        else:  # xDSL's own (cse, licm, reconcile-unrealized-casts), which xtir-opt has too
            assert get_all_passes()[stage.name]() is type(stage)
    for name in ("lower-to-llvm", "lower-blocks", "convert-to-llvm"):
        assert XTIR_PASSES[name]().name == name


@pytest.mark.parametrize(
    ("schedule", "bounds_check"),
    [("", False), (SCHEDULES["hand-cpu"], False), (SCHEDULES["tensorize"], True)],
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
