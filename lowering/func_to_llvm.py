"""`convert-cf-to-llvm` and `convert-func-to-llvm`: branches, calls and functions → llvm.

cf.br / cf.cond_br become llvm.br / llvm.cond_br; a back edge keeps its
`xtir.loop_annotation` (the JIT turns it into `llvm.loop` metadata). func.func becomes
llvm.func with its (already converted) signature: pointer arguments are `noalias` (TVM's
`tir.noalias`: the buffers of a PrimFunc do not overlap), private functions with a body
get internal linkage, and a function holding an outlined parallel loop gets its
`GOMP_parallel` wrapper next to it (lowering/openmp.py). A call marked
`xtir.omp_parallel` becomes the GOMP_parallel call on that wrapper. They run last, after
convert-types-to-llvm; xDSL has neither conversion (see to_llvm.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, func, llvm
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, UnitAttr
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from xtir.errors import LoweringError
from xtir.lowering.loops import LOOP_ANNOTATION
from xtir.lowering.openmp import GOMP_PARALLEL_TYPE, OUTLINED, PARALLEL_CALL, PTR, parallel_call_ops, wrapper_func
from xtir.lowering.to_llvm import declare, enclosing, module_of, walk

CF = "convert-cf-to-llvm"
FUNC = "convert-func-to-llvm"


class BranchLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter) -> None:
        new = llvm.BrOp(op.successor, *op.arguments)
        if LOOP_ANNOTATION in op.attributes:
            new.attributes[LOOP_ANNOTATION] = op.attributes[LOOP_ANNOTATION]
        rewriter.replace(op, new)


class CondBranchLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, llvm.CondBrOp(op.cond, op.then_block, op.then_arguments, op.else_block, op.else_arguments))


class ReturnLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        if len(op.arguments) > 1:
            raise LoweringError(op, "functions return at most one value")
        rewriter.replace(op, llvm.ReturnOp(op.arguments[0] if op.arguments else None))


class CallLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        if PARALLEL_CALL in op.attributes:
            declare(module_of(op), "GOMP_parallel", GOMP_PARALLEL_TYPE)
            entry = enclosing(op, func.FuncOp).regions[0].blocks[0]
            rewriter.replace(op, parallel_call_ops(op, list(op.arguments), entry))
            return
        if len(op.res) > 1:
            raise LoweringError(op, "functions return at most one value")
        rewriter.replace(op, llvm.CallOp(op.callee, *op.arguments, return_type=op.res[0].type if op.res else None))


class FuncLowering(RewritePattern):
    """func.func → llvm.func: converted signature, `noalias` pointer arguments; a function
    holding an outlined parallel loop gets its `GOMP_parallel` wrapper next to it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        inputs, outputs = list(op.function_type.inputs), list(op.function_type.outputs)
        if len(outputs) > 1:
            raise LoweringError(op, "functions return at most one value")
        declaration = not op.body.blocks
        linkage = (
            "internal"
            if op.sym_visibility is not None and op.sym_visibility.data == "private" and not declaration
            else "external"
        )
        props: dict[str, Attribute | None] = {}
        if not declaration and any(t == PTR for t in inputs):
            props["arg_attrs"] = ArrayAttr([DictionaryAttr({"llvm.noalias": UnitAttr()} if t == PTR else {}) for t in inputs])
        body = op.detach_region(op.body)
        new = llvm.FuncOp(
            op.sym_name.data,
            llvm.LLVMFunctionType(inputs, outputs[0] if outputs else llvm.LLVMVoidType()),
            linkage=llvm.LinkageAttr(linkage),
            body=body,
            other_props=props,
        )
        rewriter.replace(op, new)
        if OUTLINED in op.attributes:
            rewriter.insert(wrapper_func(op.sym_name.data, inputs), InsertPoint.after(new))


@dataclass(frozen=True)
class ConvertCfToLLVMPass(ModulePass):
    name = CF

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walk(op, [BranchLowering(), CondBranchLowering()])


@dataclass(frozen=True)
class ConvertFuncToLLVMPass(ModulePass):
    name = FUNC

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walk(op, [ReturnLowering(), CallLowering()])  # inside the func.func, which they look up
        walk(op, [FuncLowering()])
