"""What the stages of convert-to-llvm share, and its two type stages.

convert-to-llvm (lowering/pipelines.py) takes the output of lower-blocks (func / scf /
memref / arith, a little math) to the llvm dialect in stages, each a pass of its own:

    check-llvm-target, mangle-symbols                (lowering/llvm_target.py)
    outline-parallel-loops                           (lowering/openmp.py)
    expand-unrolled-loops, convert-scf-to-cf-annotated   (lowering/loops.py)
    convert-memref-to-llvm                           (lowering/memref_to_llvm.py)
    convert-types-to-llvm, reconcile-unrealized-casts (here; the second is xDSL's)
    convert-arith-to-llvm, convert-math-to-llvm       (lowering/arith_to_llvm.py)
    convert-cf-to-llvm, convert-func-to-llvm          (lowering/func_to_llvm.py)
    check-llvm-lowered                                (here)

The types change in one stage, right after the memrefs are lowered: convert-types-to-llvm
makes every `index` an `i64` and every memref an `!llvm.ptr` (results, block arguments,
function signatures, constants), so that the later stages map ops one to one on values
whose types are already LLVM's. xDSL has no arith / func / cf / memref → llvm conversion
(see /work/shared/notes/xdsl.md); its `convert-scf-to-cf` patterns, `reconcile-unrealized-casts`
and `scf-for-loop-unroll` pattern are used.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import AnyFloat, FunctionType, IndexType, IntegerAttr, IntegerType, MemRefType, ModuleOp, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    TypeConversionPattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

from xtir.dialects.walk import parent_of_type
from xtir.errors import LoweringError
from xtir.lowering.openmp import convert_type


def llvm_constant(value: int, t: Attribute = i64) -> llvm.ConstantOp:
    return llvm.ConstantOp(IntegerAttr(value, t), t)


def llvm_icmp(lhs: SSAValue, rhs: SSAValue, predicate: str) -> llvm.ICmpOp:
    flag = llvm.ICmpPredicateFlag(predicate)
    return llvm.ICmpOp(lhs, rhs, IntegerAttr(flag.to_int(), i64))


def entry_constant(rewriter: PatternRewriter, anchor: Operation, value: int, t: Attribute = i64) -> SSAValue:
    """An `llvm.mlir.constant` usable at `anchor`: found or created at the start of the
    function's entry block, so a function holds each constant once, not once per access."""
    function = parent_of_type(anchor, func.FuncOp | llvm.FuncOp)  # type: ignore[arg-type]  # the innermost of either
    if function is None or not function.regions[0].blocks:
        made = llvm_constant(value, t)
        rewriter.insert(made, InsertPoint.before(anchor))
        return made.result
    entry = function.regions[0].blocks.first
    assert entry is not None
    wanted = IntegerAttr(value, t)
    for op in entry.ops:
        if isinstance(op, llvm.ConstantOp) and op.value == wanted and op.result.type == t:
            return op.result
    made = llvm_constant(value, t)
    made.result.name_hint = f"c{value}" if value >= 0 else f"c_neg{-value}"
    rewriter.insert(made, InsertPoint.at_start(entry))
    return made.result


def bits(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, AnyFloat):
        return t.bitwidth
    raise ValueError(f"no bit width for {t}")


def enclosing(op: Operation, kind: type[Operation]) -> Operation:
    parent = parent_of_type(op, kind)
    if parent is None:
        raise LoweringError(op, f"expected the op inside a {kind.name}")
    return parent


def module_of(op: Operation) -> ModuleOp:
    top = op.get_toplevel_object()
    assert isinstance(top, ModuleOp)
    return top


def declare(module: ModuleOp, name: str, function_type: llvm.LLVMFunctionType) -> None:
    """Add an external `llvm.func` declaration unless the module has that symbol."""
    if SymbolTable.lookup_symbol(module, name) is None:
        module.body.block.add_op(llvm.FuncOp(name, function_type, linkage=llvm.LinkageAttr("external")))


def walk(module: ModuleOp, patterns: list[RewritePattern]) -> None:
    """One pass over the module's ops, each rewritten by the first pattern that matches."""
    PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=False).rewrite_module(module)


class LLVMTypeConversion(TypeConversionPattern):
    """index → i64 and memref → !llvm.ptr in results, block arguments and type attributes
    (not recursively: nested types are signatures, which FunctionSignatureToLLVM converts,
    and the recursive walk of every attribute makes the stage slow on large llvm kernels)."""

    def convert_type(self, typ: Attribute) -> Attribute | None:
        # isinstance, not @attr_type_rewrite_pattern: its constraint check is most of the stage's time
        return convert_type(typ) if isinstance(typ, IndexType | MemRefType) else None


class FunctionSignatureToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        signature = op.function_type
        inputs, outputs = [convert_type(t) for t in signature.inputs], [convert_type(t) for t in signature.outputs]
        if inputs != list(signature.inputs) or outputs != list(signature.outputs):
            op.function_type = FunctionType.from_lists(inputs, outputs)
            rewriter.notify_op_modified(op)


class IndexConstantToI64(RewritePattern):
    """An index constant becomes an i64 one (its value's type changes with it)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.value, IntegerAttr) and isinstance(op.value.type, IndexType):
            rewriter.replace(op, arith.ConstantOp(IntegerAttr(op.value.value.data, i64)))


class IndexCastToInteger(RewritePattern):
    """arith.index_cast, whose index side becomes i64: the operand itself, or a sign
    extension / truncation between integer types."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.IndexCastOp, rewriter: PatternRewriter) -> None:
        source, target = convert_type(op.input.type), convert_type(op.result.type)
        if source == target:
            rewriter.replace(op, [], [op.input])
        elif bits(source) < bits(target):
            rewriter.replace(op, arith.ExtSIOp(op.input, target))
        else:
            rewriter.replace(op, arith.TruncIOp(op.input, target))


@dataclass(frozen=True)
class ConvertTypesToLLVMPass(ModulePass):
    """convert-types-to-llvm: every index becomes i64 and every memref !llvm.ptr (after
    convert-memref-to-llvm, when no op reads a memref's shape any more)."""

    name = "convert-types-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for left in op.walk():
            if left.name.startswith("memref."):
                raise LoweringError(left, f"'{left.name}' is left; convert-memref-to-llvm runs first")
        patterns = [FunctionSignatureToLLVM(), IndexConstantToI64(), IndexCastToInteger(), LLVMTypeConversion()]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)


@dataclass(frozen=True)
class CheckLLVMLoweredPass(ModulePass):
    """check-llvm-lowered: the output contract of convert-to-llvm, only llvm ops on LLVM types."""

    name = "check-llvm-lowered"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if inner is op:
                continue
            if not inner.name.startswith("llvm."):
                raise LoweringError(inner, f"'{inner.name}' has no lowering to the llvm dialect")
            for value in (*inner.results, *(a for r in inner.regions for b in r.blocks for a in b.args)):
                if isinstance(value.type, IndexType | MemRefType):
                    raise LoweringError(inner, f"a value of type {value.type} is left after the conversion")
