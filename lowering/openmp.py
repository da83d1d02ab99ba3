"""Parallel loops on OpenMP's runtime (libgomp), as TVM's CPU codegen does.

At the scf level, the outermost `scf.for` of kind "parallel" in each nest is outlined:

    func.func private @main_i_0_parallel(<captured values>) attributes {xtir.omp_outlined} {
      // this thread's contiguous share of the iterations (a static schedule)
      %tid = func.call @omp_get_thread_num() ...   %nt = func.call @omp_get_num_threads() ...
      scf.for %i = %lo to %hi step %step { <the loop body> } {xtir.loop_name = "i_0"}
    }

and the loop becomes `func.call @main_i_0_parallel(<captured values>) {xtir.omp_parallel}`.
Constants are cloned into the body, not captured, so LLVM still sees constant bounds.
Parallel loops nested in it, and parallel loops that carry values, run serially.

At the llvm level (convert-func-to-llvm, `lowering/func_to_llvm.py`) the marked call stores the captured values
in an 8-byte slot each of an `llvm.alloca`'d array and calls
`GOMP_parallel(@main_i_0_parallel_omp, %data, 0, 0)`; the wrapper `@..._omp(%data)` loads
the slots and calls the body, whose pointer arguments are `noalias` like the entry's
(LLVM keeps that as alias scopes when it inlines the body into the wrapper).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, scf
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtir.dialects.walk import parent_of_type
from xtir.lowering.loops import LOOP_KIND, LOOP_NAME, PARALLEL, loop_kind, loop_name

OUTLINED = "xtir.omp_outlined"
PARALLEL_CALL = "xtir.omp_parallel"
WRAPPER_SUFFIX = "_omp"


def _outermost_parallel_loops(op: Operation, inside: bool = False) -> Iterator[scf.ForOp]:
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                parallel = isinstance(child, scf.ForOp) and loop_kind(child) == PARALLEL
                if parallel and not inside and not child.iter_args:
                    assert isinstance(child, scf.ForOp)
                    yield child
                yield from _outermost_parallel_loops(child, inside or parallel)


def _defined_inside(value: SSAValue, loop: Operation) -> bool:
    if isinstance(value, OpResult):
        return loop.is_ancestor(value.op)
    assert isinstance(value, BlockArgument)
    return loop.is_ancestor(value.block)


def _captured(loop: scf.ForOp) -> list[SSAValue]:
    """Values the loop uses but does not define, in order of first use."""
    seen: dict[SSAValue, None] = {}
    for value in (loop.lb, loop.ub, loop.step):
        seen.setdefault(value)
    for op in loop.body.walk():
        for value in op.operands:
            if not _defined_inside(value, loop):
                seen.setdefault(value)
    return list(seen)


def _symbol_names(module: ModuleOp) -> set[str]:
    return {op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp | llvm.FuncOp)}


def _fresh_symbol(module: ModuleOp, base: str) -> str:
    taken = _symbol_names(module)
    name, n = base, 0
    while name in taken or name + WRAPPER_SUFFIX in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def _declare(module: ModuleOp, name: str, inputs: list[Attribute], outputs: list[Attribute]) -> None:
    if name not in _symbol_names(module):
        decl = func.FuncOp.external(name, inputs, outputs)
        module.body.block.add_op(decl)


def _thread_range(block: Block, lb: SSAValue, ub: SSAValue, step: SSAValue) -> tuple[SSAValue, SSAValue]:
    """Emit this thread's [lo, hi) of `for i = lb to ub step step` (contiguous chunks)."""
    index = IndexType()
    builder = Builder(InsertPoint.at_end(block))

    def emit(op: Operation) -> SSAValue:
        return builder.insert(op).results[0]

    one = emit(arith.ConstantOp(IntegerAttr(1, index)))
    zero = emit(arith.ConstantOp(IntegerAttr(0, index)))
    tid = emit(arith.IndexCastOp(emit(func.CallOp("omp_get_thread_num", [], [i32])), index))
    nthreads = emit(arith.IndexCastOp(emit(func.CallOp("omp_get_num_threads", [], [i32])), index))
    span = emit(arith.AddiOp(emit(arith.SubiOp(ub, lb)), emit(arith.SubiOp(step, one))))
    trips = emit(arith.MaxSIOp(emit(arith.DivSIOp(span, step)), zero))
    chunk = emit(arith.DivSIOp(emit(arith.AddiOp(trips, emit(arith.SubiOp(nthreads, one)))), nthreads))
    begin = emit(arith.MinSIOp(emit(arith.MuliOp(tid, chunk)), trips))
    end = emit(arith.MinSIOp(emit(arith.AddiOp(begin, chunk)), trips))
    lo = emit(arith.AddiOp(lb, emit(arith.MuliOp(begin, step))))
    hi = emit(arith.AddiOp(lb, emit(arith.MuliOp(end, step))))
    for value, hint in ((tid, "tid"), (nthreads, "nthreads"), (lo, "lo"), (hi, "hi")):
        value.name_hint = hint
    return lo, hi


def _outline(module: ModuleOp, loop: scf.ForOp) -> None:
    parent = parent_of_type(loop, func.FuncOp)
    assert parent is not None
    # the function's name is an identifier already (mangle-symbols checks), the loop's may be anything
    loop_part = re.sub(r"[^A-Za-z0-9_]", "_", loop_name(loop))
    name = _fresh_symbol(module, f"{parent.sym_name.data}_{loop_part}_parallel")

    captured = _captured(loop)
    params = [v for v in captured if not isinstance(v.owner, arith.ConstantOp)]
    block = Block(arg_types=[v.type for v in params])
    mapping: dict[SSAValue, SSAValue] = {}
    for value, arg in zip(params, block.args):
        mapping[value] = arg
        arg.name_hint = value.name_hint
    for value in captured:
        if isinstance(owner := value.owner, arith.ConstantOp):
            clone = owner.clone()
            block.add_op(clone)
            mapping[value] = clone.result

    lo, hi = _thread_range(block, mapping[loop.lb], mapping[loop.ub], mapping[loop.step])
    body = loop.detach_region(loop.body)
    chunk_loop = scf.ForOp(lo, hi, mapping[loop.step], [], body)
    chunk_loop.attributes.update({k: v for k, v in loop.attributes.items() if k != LOOP_KIND})
    block.add_op(chunk_loop)
    block.add_op(func.ReturnOp())
    for op in body.walk():
        for k, operand in enumerate(op.operands):
            if operand in mapping:
                op.operands[k] = mapping[operand]

    outlined = func.FuncOp(name, ([v.type for v in params], []), Region(block), "private")
    outlined.attributes[OUTLINED] = UnitAttr()
    module.body.block.insert_op_after(outlined, parent)

    call = func.CallOp(SymbolRefAttr(name), params, [])
    call.attributes[PARALLEL_CALL] = UnitAttr()
    call.attributes[LOOP_NAME] = StringAttr(loop_name(loop))
    assert loop.parent_block() is not None
    loop.parent_block().insert_op_before(call, loop)  # type: ignore[union-attr]
    Rewriter.erase_op(loop)


@dataclass(frozen=True)
class OutlineParallelLoopsPass(ModulePass):
    """outline-parallel-loops: the scf level of the module docstring. xDSL's
    `convert-scf-to-openmp` makes omp dialect ops, which nothing lowers to LLVM IR here;
    xtir calls libgomp itself, as TVM's CPU codegen does."""

    name = "outline-parallel-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loops = list(_outermost_parallel_loops(op))
        if not loops:
            return
        for loop in loops:
            _outline(op, loop)
        _declare(op, "omp_get_thread_num", [], [i32])
        _declare(op, "omp_get_num_threads", [], [i32])


# ----------------------------------------------------------------------------------------
# llvm level

PTR = llvm.LLVMPointerType()
GOMP_PARALLEL_TYPE = llvm.LLVMFunctionType([PTR, PTR, i32, i32], llvm.LLVMVoidType())


def _size(t: Attribute) -> int:
    if isinstance(t, llvm.LLVMPointerType):
        return 8
    bits = t.width.data if isinstance(t, IntegerType) else getattr(t, "bitwidth", 64)
    return max(1, 1 << ((bits - 1).bit_length() - 3)) if bits > 8 else 1


def slot_pointer(data: SSAValue, k: int, t: Attribute) -> llvm.GEPOp:
    """The address of 8-byte slot k of a captured-values array, typed for a value of type t
    (llvmlite checks the pointee type of a store, so the GEP steps in units of t)."""
    size = _size(t)
    if size > 8:
        raise ValueError(f"a value of type {t} does not fit a slot")
    return llvm.GEPOp(data, [k * 8 // size], t, inbounds=True)


def convert_type(t: Attribute) -> Attribute:
    return i64 if isinstance(t, IndexType) else PTR if isinstance(t, MemRefType) else t


def parallel_call_ops(call: func.CallOp, args: list[SSAValue], entry: Block) -> list[Operation]:
    """Replace a marked call by GOMP_parallel on its wrapper; the slot array goes in `entry`."""
    ops: list[Operation] = []
    if args:
        count = llvm.ConstantOp(IntegerAttr(len(args), i64), i64)
        data_op: Operation = llvm.AllocaOp(count, PTR, alignment=8)
        if entry.first_op is None:
            entry.add_ops([count, data_op])
        else:
            entry.insert_ops_before([count, data_op], entry.first_op)
        data = data_op.results[0]
        for k, value in enumerate(args):
            slot = slot_pointer(data, k, convert_type(value.type))
            ops += [slot, llvm.StoreOp(value, slot)]
    else:
        null = llvm.ZeroOp(PTR)
        ops.append(null)
        data = null.results[0]
    fn = llvm.AddressOfOp(call.callee.string_value() + WRAPPER_SUFFIX, PTR)
    zero = llvm.ConstantOp(IntegerAttr(0, i32), i32)
    ops += [fn, zero, llvm.CallOp("GOMP_parallel", fn, data, zero, zero)]
    data.name_hint = "omp_data"
    return ops


def wrapper_func(name: str, param_types: list[Attribute]) -> llvm.FuncOp:
    """`@NAME_omp(%data)`: load the captured values and call the outlined body."""
    block = Block(arg_types=[PTR])
    data = block.args[0]
    data.name_hint = "omp_data"
    values: list[SSAValue] = []
    for k, t in enumerate(param_types):
        slot = slot_pointer(data, k, t)
        load = llvm.LoadOp(slot, t)
        block.add_ops([slot, load])
        values.append(load.dereferenced_value)
    block.add_ops([llvm.CallOp(name, *values), llvm.ReturnOp()])
    return llvm.FuncOp(
        name + WRAPPER_SUFFIX,
        llvm.LLVMFunctionType([PTR], llvm.LLVMVoidType()),
        linkage=llvm.LinkageAttr("internal"),
        body=Region(block),
    )
