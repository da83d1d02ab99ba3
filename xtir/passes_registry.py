"""Every xtir pass by its command-line name, as lazy factories (xdsl-opt's convention)."""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass


def _lazy(module: str, cls: str, package: str = "xtir.passes") -> Callable[[], type[ModulePass]]:
    return lambda: getattr(import_module(f"{package}.{module}"), cls)


def _lowering(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    return _lazy(module, cls, "xtir.lowering")


XTIR_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "split": _lazy("split", "SplitPass"),
    "reorder": _lazy("reorder", "ReorderPass"),
    "fuse": _lazy("fuse", "FusePass"),
    "blockize": _lazy("blockize", "BlockizePass"),
    "cache-read": _lazy("cache_read", "CacheReadPass"),
    "pad-einsum": _lazy("pad_einsum", "PadEinsumPass"),
    "cache-write": _lazy("cache_write", "CacheWritePass"),
    "decompose-reduction": _lazy("decompose_reduction", "DecomposeReductionPass"),
    "compute-at": _lazy("compute_at", "ComputeAtPass"),
    "reverse-compute-at": _lazy("reverse_compute_at", "ReverseComputeAtPass"),
    "compute-inline": _lazy("compute_inline", "ComputeInlinePass"),
    "reverse-compute-inline": _lazy("reverse_compute_inline", "ReverseComputeInlinePass"),
    "annotate": _lazy("annotate", "AnnotatePass"),
    "tensorize": _lazy("tensorize", "TensorizePass"),
    "transform-layout": _lazy("transform_layout", "TransformLayoutPass"),
    "fuse-reduction-epilogue": _lazy("fuse_reduction_epilogue", "FuseReductionEpiloguePass"),
    "parallel": _lazy("parallel", "ParallelPass"),
    "vectorize": _lazy("vectorize", "VectorizePass"),
    "unroll": _lazy("unroll", "UnrollPass"),
    "bind": _lazy("bind", "BindPass"),
    "double-buffer": _lazy("double_buffer", "DoubleBufferPass"),
    "storage-align": _lazy("storage_align", "StorageAlignPass"),
    "set-scope": _lazy("set_scope", "SetScopePass"),
    "fuse-ewise-fma": _lazy("fuse_ewise_fma", "FuseEwiseFmaPass"),
    "fuse-ops": _lazy("fuse_ops", "FuseOpsPass"),
    "fold-constants": _lazy("fold_constants", "FoldConstantsPass"),
    # xDSL's dead-value elimination, for graph pipelines run through xtir.transform
    "dce": _lazy("dead_code_elimination", "DeadCodeElimination", "xdsl.transforms"),
    "legalize-tensor": _lazy("legalize_tensor", "LegalizeTensorPass"),
    "default-schedule": _lazy("default_schedule", "DefaultSchedulePass"),
    "default-gpu-schedule": _lazy("default_gpu_schedule", "DefaultGpuSchedulePass"),
    "test-block-regions": _lazy("test_block_regions", "TestBlockRegionsPass"),
    # lowering: the named pipelines (lowering/pipelines.py), then their stages in order
    "lower-to-llvm": _lowering("pipelines", "LowerToLLVMPass"),
    "lower-blocks": _lowering("pipelines", "LowerBlocksPass"),
    "convert-to-llvm": _lowering("pipelines", "ConvertToLLVMPass"),
    "lower-accel": _lowering("accel_to_scf", "LowerAccelPass"),
    "inline-blocks": _lowering("blocks_to_scf", "InlineBlocksPass"),
    "compact-buffers": _lowering("compact_buffers", "CompactBuffersPass"),
    "check-parallel-loops": _lowering("blocks_to_scf", "CheckParallelLoopsPass"),
    "check-bounds": _lowering("bounds_check", "CheckBoundsPass"),
    "blocks-to-scf": _lowering("blocks_to_scf", "BlocksToScfPass"),
    "lower-to-gpu": _lowering("to_gpu", "LowerToGPUPass"),
    "version-edge-blocks": _lowering("edge_blocks", "VersionEdgeBlocksPass"),
    "guard-arith": _lowering("arith_guards", "GuardArithPass"),
    "check-llvm-target": _lowering("llvm_target", "CheckLLVMTargetPass"),
    "mangle-symbols": _lowering("llvm_target", "MangleSymbolsPass"),
    "outline-parallel-loops": _lowering("openmp", "OutlineParallelLoopsPass"),
    "expand-unrolled-loops": _lowering("loops", "ExpandUnrolledLoopsPass"),
    "convert-scf-to-cf-annotated": _lowering("loops", "ConvertScfToCfAnnotatedPass"),
    "convert-memref-to-llvm": _lowering("memref_to_llvm", "ConvertMemrefToLLVMPass"),
    "convert-types-to-llvm": _lowering("to_llvm", "ConvertTypesToLLVMPass"),
    "convert-arith-to-llvm": _lowering("arith_to_llvm", "ConvertArithToLLVMPass"),
    "convert-math-to-llvm": _lowering("arith_to_llvm", "ConvertMathToLLVMPass"),
    "convert-cf-to-llvm": _lowering("func_to_llvm", "ConvertCfToLLVMPass"),
    "convert-func-to-llvm": _lowering("func_to_llvm", "ConvertFuncToLLVMPass"),
    "check-llvm-lowered": _lowering("to_llvm", "CheckLLVMLoweredPass"),
}
