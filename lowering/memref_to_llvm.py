"""`convert-memref-to-llvm`: memref accesses and buffers → `llvm.getelementptr` + load / store.

xDSL's memref → llvm route (`convert-memref-to-ptr`, `convert-ptr-to-llvm`) computes
addresses with ptrtoint / add / inttoptr, which hides them from LLVM's alias analysis;
xtir addresses memory with `getelementptr inbounds` instead (static shapes and strides):

- `memref.load/store %A[%i, %j]` → the linear index `%i * N + %j` as `arith.muli / addi`
  with `nsw` on index values (constant indices folded in, the stride constants taken from
  the function's prologue, once per function), then `getelementptr inbounds %A[linear]`
  and `llvm.load/store`;
- `memref.alloca` → one `llvm.alloca` of the element count in the function's entry block
  (the memory space, e.g. "global.A_reg", means nothing on a CPU); a function's scratch
  buffers share `STACK_BUDGET` bytes of stack, the smallest first, and the others come
  from `aligned_alloc` and are freed at each return (a NULL from it is reported on the
  run-time error channel, lowering/runtime_errors.py, and the function returns at once);
  `memref.alloc/dealloc` call `aligned_alloc` / `free`;
- a micro-kernel call (`lowering/microkernels.py`) → element pointers to its tiles and a
  call of the kernel.

The memrefs themselves keep their types until convert-types-to-llvm: where an llvm op
needs the pointer (or the i64 index), this stage puts a `builtin.unrealized_conversion_cast`
(memref → !llvm.ptr, index → i64), and an `llvm.alloca` is cast back to the memref for its
users; reconcile-unrealized-casts removes them once the types agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnrealizedConversionCastOp,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from xtir.dialects.layout import extent, static_strides
from xtir.errors import LoweringError
from xtir.lowering import runtime_errors
from xtir.lowering.index_expr import constant
from xtir.lowering.llvm_target import SYMBOL_PREFIX
from xtir.lowering.loops import constant_int
from xtir.lowering.microkernels import MicrokernelCallLowering, erase_declarations
from xtir.lowering.openmp import PTR
from xtir.lowering.to_llvm import bits, declare, enclosing, llvm_constant, llvm_icmp, module_of, walk

NAME = "convert-memref-to-llvm"

STACK_BUDGET = 256 * 1024
"""The scratch buffers of one function take at most this many bytes of stack; the rest come
from the heap. A parallel loop's body is a function of its own, run on each worker thread's
stack (libgomp's threads get the default thread stack, smaller than a main thread's may be)
and on the calling thread under the caller's frame: at most twice this per thread."""

ALIGNMENT = 64

_NSW = arith.IntegerOverflowAttr([arith.IntegerOverflowFlag.NSW])


def _cast(value: SSAValue, t: Attribute) -> UnrealizedConversionCastOp:
    cast = UnrealizedConversionCastOp.get([value], [t])
    cast.results[0].name_hint = value.name_hint  # not the name of the op it helps replace
    return cast


def element_pointer(
    rewriter: PatternRewriter, op: Operation, ref: SSAValue, indices: Sequence[SSAValue]
) -> tuple[list[Operation], SSAValue]:
    """The ops, to go before `op`, of a `getelementptr inbounds` to element `indices` of the
    memref `ref` (static strides): the linear index is `sum(index_k * stride_k) + offset`,
    constant indices folded in."""
    t = ref.type
    if not isinstance(t, MemRefType):
        raise LoweringError(op, f"expected a memref operand, got {t}")
    layout = static_strides(t)
    if layout is None or any(d < 0 for d in t.get_shape()):
        raise LoweringError(op, f"only memrefs of static shape and strides are supported, got {t}")
    strides, offset = layout
    ops: list[Operation] = []
    linear: SSAValue | None = None
    for index, stride in zip(indices, strides):
        if (value := constant_int(index)) is not None:
            offset += value * stride
            continue
        term = index
        if stride != 1:
            ops.append(mul := arith.MuliOp(index, constant(rewriter, op, stride), overflow=_NSW))
            term = mul.result
        if linear is not None:
            ops.append(add := arith.AddiOp(linear, term, overflow=_NSW))
            term = add.result
        linear = term
    position: int | SSAValue = offset
    if linear is not None and offset:
        ops.append(add := arith.AddiOp(linear, constant(rewriter, op, offset), overflow=_NSW))
        linear = add.result
    elif linear is None and offset >= 2**31:  # GEP's constant indices are i32
        linear = constant(rewriter, op, offset)
    for o in ops:
        o.results[0].name_hint = "idx"
    if linear is not None:
        ops.append(wide := _cast(linear, i64))
        position = wide.results[0]
    ops.append(base := _cast(ref, PTR))
    gep = llvm.GEPOp.from_mixed_indices(base.results[0], [position], t.element_type, inbounds=True)
    gep.result.name_hint = f"{ref.name_hint}_ptr" if ref.name_hint else "ptr"
    return [*ops, gep], gep.result


class LoadLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter) -> None:
        ops, ptr = element_pointer(rewriter, op, op.memref, op.indices)
        rewriter.replace(op, [*ops, llvm.LoadOp(ptr, op.res.type)])


class StoreLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.StoreOp, rewriter: PatternRewriter) -> None:
        ops, ptr = element_pointer(rewriter, op, op.memref, op.indices)
        rewriter.replace(op, [*ops, llvm.StoreOp(op.value, ptr)])


ALIGNED_ALLOC = llvm.LLVMFunctionType([i64, i64], PTR)
FREE = llvm.LLVMFunctionType([PTR], llvm.LLVMVoidType())


def _buffer(op: Operation, t: Attribute) -> tuple[int, Attribute, int]:
    """(element count, element type, bytes rounded up to the alignment) of a static memref:
    as many elements as its layout reaches (`strided<[2]>` spreads them out)."""
    if not isinstance(t, MemRefType) or any(d < 0 for d in t.get_shape()):
        raise LoweringError(op, f"only buffers of static shape are supported, got {t}")
    if static_strides(t) is None:
        raise LoweringError(op, f"only buffers of static strides are supported, got {t}")
    lowest, count = extent(t)
    if lowest < 0:
        raise LoweringError(op, f"the layout of {t} reaches before the start of the buffer")
    size = count * ((bits(t.element_type) + 7) // 8)
    return count, t.element_type, -(-size // ALIGNMENT) * ALIGNMENT


def _heap(size: int) -> list[Operation]:
    align, nbytes = llvm_constant(ALIGNMENT), llvm_constant(max(size, ALIGNMENT))
    return [align, nbytes, llvm.CallOp("aligned_alloc", align, nbytes, return_type=PTR)]


def heap_allocas(module: ModuleOp) -> set[memref.AllocaOp]:
    """The scratch buffers that do not fit their function's STACK_BUDGET (the smallest, often
    a register tile in the innermost loops, go on the stack first)."""
    heap: set[memref.AllocaOp] = set()
    for function in module.ops:
        allocas = [op for op in function.walk() if isinstance(op, memref.AllocaOp)]
        used = 0
        for size, op in sorted(((_buffer(op, op.memref.type)[2], op) for op in allocas), key=lambda p: p[0]):
            if used + size <= STACK_BUDGET:
                used += size
            else:
                heap.add(op)
    return heap


def _as_memref(rewriter: PatternRewriter, op: memref.AllocaOp | memref.AllocOp, pointer: SSAValue) -> None:
    """Replace the buffer `op` makes by `pointer`, cast back to the memref for its users."""
    back = _cast(pointer, op.memref.type)
    rewriter.insert(back, InsertPoint.after(pointer.owner))  # type: ignore[arg-type]
    pointer.name_hint = op.memref.name_hint
    rewriter.replace(op, [], [back.results[0]])


@dataclass
class AllocaLowering(RewritePattern):
    """One alloca per buffer in the entry block (a loop that allocates does not grow the
    stack), or an `aligned_alloc` there and a `free` at each return for those in `heap`
    (the calls are kept in `heap_calls`, for `check_heap_allocations`)."""

    heap: set[memref.AllocaOp]
    heap_calls: list[llvm.CallOp] = field(default_factory=list)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter) -> None:
        count, elem, size = _buffer(op, op.memref.type)
        function = enclosing(op, func.FuncOp)
        entry = function.regions[0].blocks[0]
        if op not in self.heap:
            ops: list[Operation] = [n := llvm_constant(count), llvm.AllocaOp(n, elem, alignment=ALIGNMENT)]
        else:
            ops = _heap(size)
            self.heap_calls.append(ops[-1])  # type: ignore[arg-type]
            module = module_of(op)
            declare(module, "aligned_alloc", ALIGNED_ALLOC)
            declare(module, "free", FREE)
            for ret in function.walk():
                if isinstance(ret, func.ReturnOp | llvm.ReturnOp):
                    rewriter.insert(llvm.CallOp("free", ops[-1].results[0]), InsertPoint.before(ret))
        rewriter.insert(ops, InsertPoint.at_start(entry))
        _as_memref(rewriter, op, ops[-1].results[0])


@dataclass(frozen=True)
class HeapSite(runtime_errors.Site):
    """A scratch buffer from the heap; its report is `(bytes, the address aligned_alloc gave)`."""

    function: str
    buffer: str

    def message(self, x: int, y: int) -> str | None:
        if y != 0:
            return None
        return (f"function '{self.function}': the heap has no {x} bytes for scratch buffer %{self.buffer} "
                "(aligned_alloc returned NULL); nothing was computed")


def _pointer(call: llvm.CallOp) -> SSAValue:
    assert call.returned is not None
    return call.returned


def _return_zero(function: func.FuncOp) -> list[Operation]:
    """A return of zero from `function` (of nothing, if it returns nothing); in arith, which
    the later stages lower (llvm.mlir.zero takes no integer or float type)."""
    zeros: list[Operation] = []
    for t in function.function_type.outputs.data:
        if isinstance(t, AnyFloat):
            zeros.append(arith.ConstantOp(FloatAttr(0.0, t)))
        elif isinstance(t, IntegerType | IndexType):
            zeros.append(arith.ConstantOp(IntegerAttr(0, t)))
        else:
            raise LoweringError(function, f"a function that takes scratch buffers from the heap returns {t}; "
                                "only scalars can be returned when the heap has no memory")
    return [*zeros, func.ReturnOp(*(z.results[0] for z in zeros))]


def check_heap_allocations(calls: Sequence[llvm.CallOp]) -> None:
    """A function whose heap scratch buffers (the `aligned_alloc` calls of its entry block) are
    not all given reports each NULL on the run-time error channel, frees the others and
    returns before its body runs (returning zeros if it returns values)."""
    by_entry: dict[int, list[llvm.CallOp]] = {}
    for call in calls:
        by_entry.setdefault(id(call.parent), []).append(call)
    for group in by_entry.values():
        entry = group[0].parent_block()
        function = enclosing(group[0], func.FuncOp)
        assert entry is not None and isinstance(function, func.FuncOp)
        last = [op for op in entry.ops if isinstance(op, llvm.AllocaOp) or op in group][-1]
        body = entry.split_before(last.next_op)  # type: ignore[arg-type]
        failed_block = Block()
        function.body.insert_block_after(failed_block, entry)
        entry.add_op(zero := llvm_constant(0))
        addresses = [llvm.PtrToIntOp(_pointer(call)) for call in group]
        entry.add_ops(addresses)
        failed = [llvm_icmp(a.output, zero.result, "eq") for a in addresses]
        entry.add_ops(failed)
        any_failed = failed[0].res
        for other in failed[1:]:
            entry.add_op(either := llvm.OrOp(any_failed, other.res))
            any_failed = either.res
        entry.add_op(llvm.CondBrOp(any_failed, failed_block, [], body, []))
        runtime_errors.install()
        declare(module_of(function), runtime_errors.SYMBOL, llvm.LLVMFunctionType([i64] * 3, llvm.LLVMVoidType()))
        name = function.sym_name.data.removeprefix(SYMBOL_PREFIX)
        for call, address in zip(group, addresses):
            site = runtime_errors.register(HeapSite(name, _pointer(call).name_hint or "?"))
            failed_block.add_ops([number := llvm_constant(site),
                                  llvm.CallOp(runtime_errors.SYMBOL, number, call.args[1], address)])
            failed_block.add_op(llvm.CallOp("free", _pointer(call)))
        failed_block.add_ops(_return_zero(function))


class AllocLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocOp, rewriter: PatternRewriter) -> None:
        _, _, size = _buffer(op, op.memref.type)
        declare(module_of(op), "aligned_alloc", ALIGNED_ALLOC)
        ops = _heap(size)
        rewriter.insert(ops, InsertPoint.before(op))
        _as_memref(rewriter, op, ops[-1].results[0])


class DeallocLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DeallocOp, rewriter: PatternRewriter) -> None:
        declare(module_of(op), "free", FREE)
        pointer = _cast(op.memref, PTR)
        rewriter.replace(op, [pointer, llvm.CallOp("free", pointer.results[0])])


@dataclass(frozen=True)
class ConvertMemrefToLLVMPass(ModulePass):
    """Lower memref.load/store/alloca/alloc/dealloc and micro-kernel calls (module docstring)."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # accesses first: once their buffers are llvm.alloca'd, the shapes are behind casts
        walk(op, [LoadLowering(), StoreLowering(), MicrokernelCallLowering(element_pointer)])
        erase_declarations(op)
        allocas = AllocaLowering(heap_allocas(op))
        walk(op, [allocas, AllocLowering(), DeallocLowering()])
        check_heap_allocations(allocas.heap_calls)
