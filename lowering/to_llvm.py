"""`convert-to-llvm`: func/scf/cf/memref/arith (+ a little math) → the llvm dialect.

xDSL has no arith/func/memref → llvm conversions, and its memref → ptr route computes
addresses with ptrtoint/add/inttoptr, which hides them from LLVM's alias analysis. This
pass addresses memory with `llvm.getelementptr` instead:

- a memref value becomes an `!llvm.ptr` to its first element; function arguments are
  `noalias` (TVM's `tir.noalias`: the buffers of a PrimFunc do not overlap);
- `memref.load/store %A[%i, %j]` → `getelementptr inbounds %A[%i * N + %j]` (static
  strides, row-major unless the layout says otherwise, `nsw`) + `llvm.load/store`;
- `memref.alloca` → one `llvm.alloca` of the element count in the function's entry block
  (the memory space, e.g. "global.A_reg", means nothing on a CPU); a function's scratch
  buffers share `STACK_BUDGET` bytes of stack, the smallest first, and the others come
  from `aligned_alloc` and are freed at each return (a NULL from it is reported on the
  run-time error channel, lowering/runtime_errors.py, and the function returns at once);
- every function the module defines is renamed `xtir.NAME` (`llvm_symbol`), so that no
  user function takes the place of a symbol of the runtime (`GOMP_parallel`, `free`, or
  `memcpy` that LLVM may call); names must be identifiers (letters, digits, `_$.`);
- element types without lowering (bf16: llvmlite, which writes the LLVM IR, has no bfloat
  type; f80, f128, tf32, f8 types, complex numbers) are refused;
- index → i64; scf → cf (xDSL's patterns) → `llvm.br` / `llvm.cond_br`.

Loop kinds (attributes `xtir.loop_kind` on scf.for, see `lowering/loops.py`): unrolled
loops are unrolled here, vectorized loops carry `xtir.loop_annotation = {vectorize = true}`
on their back edge (the JIT emits `llvm.loop.vectorize.enable`), parallel loops are outlined
and run through `GOMP_parallel` (`lowering/openmp.py`), thread-bound loops are refused.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, llvm, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    ComplexType,
    ContainerType,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    TypeConversionPattern,
    attr_type_rewrite_pattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xtir.diagnostics import format_op_error
from xtir.errors import XtirPassError
from xtir.lowering import runtime_errors
from xtir.lowering.loops import LOOP_ANNOTATION, constant_int, refuse_thread_bindings, scf_to_cf, unroll_loops
from xtir.lowering.microkernels import MicrokernelCallLowering, erase_declarations
from xtir.lowering.openmp import (
    GOMP_PARALLEL_TYPE,
    OUTLINED,
    PARALLEL_CALL,
    PTR,
    convert_type,
    outline_parallel_loops,
    parallel_call_ops,
    wrapper_func,
)

STACK_BUDGET = 256 * 1024
"""The scratch buffers of one function take at most this many bytes of stack; the rest come
from the heap. A parallel loop's body is a function of its own, run on each worker thread's
stack (libgomp's threads get the default thread stack, smaller than a main thread's may be)
and on the calling thread under the caller's frame: at most twice this per thread."""

SYMBOL_PREFIX = "xtir."
"""The prefix of the LLVM symbol of every function a module defines. No symbol of the runtime
(libgomp, libc, libm, LLVM's own helpers) starts with it."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")

ALIGNMENT = 64


def _fail(op: Operation, message: str) -> XtirPassError:
    return XtirPassError(format_op_error(op, f"convert-to-llvm: {message}"))


def _const(value: int, t: Attribute = i64) -> llvm.ConstantOp:
    return llvm.ConstantOp(IntegerAttr(value, t), t)


def _bits(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, AnyFloat):
        return t.bitwidth
    raise ValueError(f"no bit width for {t}")


def _float_suffix(t: Attribute) -> str:
    """The type suffix of an LLVM intrinsic's name (`llvm.maximum.f32`)."""
    return f"f{_bits(t)}"


def _enclosing(op: Operation, kind: type[Operation]) -> Operation:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, kind):
        parent = parent.parent_op()
    if parent is None:
        raise _fail(op, f"expected the op inside a {kind.name}")
    return parent


def _module(op: Operation) -> ModuleOp:
    top = op.get_toplevel_object()
    assert isinstance(top, ModuleOp)
    return top


def llvm_symbol(name: str) -> str:
    """The LLVM symbol of the function `name` of the module (see SYMBOL_PREFIX)."""
    return SYMBOL_PREFIX + name


def mangle_symbols(module: ModuleOp) -> None:
    """Rename each function with a body, and its calls, to its `llvm_symbol`; refuse names
    that are no identifiers (LLVM takes them quoted, but they are not safe as symbols)."""
    renamed: set[str] = set()
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.body.blocks:
            name = op.sym_name.data
            if not _IDENTIFIER.fullmatch(name):
                raise _fail(op, f"function name {name!r} cannot be a symbol of machine code: use ASCII letters, "
                                "digits, '_', '$' and '.', starting with a letter or '_'")
            op.sym_name = StringAttr(llvm_symbol(name))
            renamed.add(name)
    for op in module.walk():
        if isinstance(op, func.CallOp) and op.callee.string_value() in renamed:
            op.callee = SymbolRefAttr(llvm_symbol(op.callee.string_value()))


def _unsupported_type(t: Attribute) -> Attribute | None:
    """The element type in `t` that has no lowering: floats other than f16, f32 and f64 (llvmlite,
    which writes the LLVM IR, has no bfloat, and xDSL translates no f80, f128, tf32 or f8 type),
    and complex numbers."""
    if isinstance(t, ComplexType):
        return t
    if isinstance(t, ContainerType):
        return _unsupported_type(t.get_element_type())
    if isinstance(t, AnyFloat) and not isinstance(t, Float16Type | Float32Type | Float64Type):
        return t
    return None


def refuse_unsupported_types(module: ModuleOp) -> None:
    """Refuse an op that handles a value of an element type without lowering, before xDSL's
    translation to LLVM IR fails on it with an exception of its own."""
    for op in module.walk():
        types = [v.type for v in (*op.operands, *op.results, *(a for r in op.regions for b in r.blocks for a in b.args))]
        if isinstance(op, func.FuncOp):
            types += [*op.function_type.inputs, *op.function_type.outputs]
        if (bad := next(filter(None, map(_unsupported_type, types)), None)) is not None:
            raise _fail(op, f"element type {bad} is not supported on the CPU (the backend compiles f16, f32, f64 "
                            "and integers); use f32, or f16")


def declare(module: ModuleOp, name: str, function_type: llvm.LLVMFunctionType) -> None:
    """Add an external `llvm.func` declaration unless the module has that symbol."""
    for op in module.ops:
        if isinstance(op, func.FuncOp | llvm.FuncOp) and op.sym_name.data == name:
            return
    module.body.block.add_op(llvm.FuncOp(name, function_type, linkage=llvm.LinkageAttr("external")))


# ----------------------------------------------------------------------------------------
# memory


def element_pointer(op: Operation, ref: SSAValue, indices: Sequence[SSAValue]) -> tuple[list[Operation], SSAValue]:
    """`getelementptr inbounds` to element `indices` of the memref `ref` (static strides):
    the linear index is `sum(index_k * stride_k) + offset`, constant indices folded in."""
    t = ref.type
    if not isinstance(t, MemRefType):
        raise _fail(op, f"expected a memref operand, got {t}")
    shape, strides, offset = t.get_shape(), t.get_strides(), t.get_offset()
    if strides is None or offset is None or None in strides or any(d < 0 for d in shape):
        raise _fail(op, f"only memrefs of static shape and strides are supported, got {t}")
    nsw = llvm.OverflowAttr((llvm.OverflowFlag.NO_SIGNED_WRAP,))
    ops: list[Operation] = []
    linear: SSAValue | None = None
    for index, stride in zip(indices, strides):
        assert stride is not None
        if (value := constant_int(index)) is not None:
            offset += value * stride
            continue
        term = index
        if stride != 1:
            ops.append(c := _const(stride))
            ops.append(mul := llvm.MulOp(index, c.result, overflow=nsw))
            term = mul.res
        if linear is not None:
            ops.append(add := llvm.AddOp(linear, term, overflow=nsw))
            term = add.res
        linear = term
    position: int | SSAValue = offset
    if linear is not None and offset:
        ops.append(c := _const(offset))
        ops.append(add := llvm.AddOp(linear, c.result, overflow=nsw))
        position = add.res
    elif linear is not None:
        position = linear
    elif offset >= 2**31:  # GEP's constant indices are i32
        ops.append(c := _const(offset))
        position = c.result
    for o in ops:
        o.results[0].name_hint = "idx"
    gep = llvm.GEPOp.from_mixed_indices(ref, [position], t.element_type, inbounds=True)
    gep.result.name_hint = f"{ref.name_hint}_ptr" if ref.name_hint else "ptr"
    return [*ops, gep], gep.result


class LoadLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter) -> None:
        ops, ptr = element_pointer(op, op.memref, op.indices)
        rewriter.replace(op, [*ops, llvm.LoadOp(ptr, op.res.type)])


class StoreLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.StoreOp, rewriter: PatternRewriter) -> None:
        ops, ptr = element_pointer(op, op.memref, op.indices)
        rewriter.replace(op, [*ops, llvm.StoreOp(op.value, ptr)])


ALIGNED_ALLOC = llvm.LLVMFunctionType([i64, i64], PTR)
FREE = llvm.LLVMFunctionType([PTR], llvm.LLVMVoidType())


def _buffer(op: Operation, t: Attribute) -> tuple[int, Attribute, int]:
    """(element count, element type, bytes rounded up to the alignment) of a static memref:
    as many elements as its layout reaches (`strided<[2]>` spreads them out)."""
    if not isinstance(t, MemRefType) or any(d < 0 for d in t.get_shape()):
        raise _fail(op, f"only buffers of static shape are supported, got {t}")
    shape, strides, offset = t.get_shape(), t.get_strides(), t.get_offset()
    if strides is None or offset is None or None in strides:
        raise _fail(op, f"only buffers of static strides are supported, got {t}")
    if math.prod(shape) == 0:
        count = 0
    else:
        spans = [(d - 1) * s for d, s in zip(shape, strides)]
        if offset + sum(min(0, span) for span in spans) < 0:
            raise _fail(op, f"the layout of {t} reaches before the start of the buffer")
        count = offset + sum(max(0, span) for span in spans) + 1
    size = count * ((_bits(t.element_type) + 7) // 8)
    return count, t.element_type, -(-size // ALIGNMENT) * ALIGNMENT


def _heap(size: int) -> list[Operation]:
    align, nbytes = _const(ALIGNMENT), _const(max(size, ALIGNMENT))
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
        function = _enclosing(op, func.FuncOp)
        entry = function.regions[0].blocks[0]
        if op not in self.heap:
            ops: list[Operation] = [n := _const(count), llvm.AllocaOp(n, elem, alignment=ALIGNMENT)]
        else:
            ops = _heap(size)
            self.heap_calls.append(ops[-1])  # type: ignore[arg-type]
            module = _module(op)
            declare(module, "aligned_alloc", ALIGNED_ALLOC)
            declare(module, "free", FREE)
            for ret in function.walk():
                if isinstance(ret, func.ReturnOp | llvm.ReturnOp):
                    rewriter.insert(llvm.CallOp("free", ops[-1].results[0]), InsertPoint.before(ret))
        rewriter.insert(ops, InsertPoint.at_start(entry))
        ops[-1].results[0].name_hint = op.memref.name_hint
        rewriter.replace(op, [], [ops[-1].results[0]])


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


def check_heap_allocations(calls: Sequence[llvm.CallOp]) -> None:
    """A function whose heap scratch buffers (the `aligned_alloc` calls of its entry block) are
    not all given reports each NULL on the run-time error channel, frees the others and
    returns before its body runs (returning 0 if it returns a value)."""
    by_entry: dict[int, list[llvm.CallOp]] = {}
    for call in calls:
        by_entry.setdefault(id(call.parent), []).append(call)
    for group in by_entry.values():
        entry = group[0].parent_block()
        function = _enclosing(group[0], func.FuncOp)
        assert entry is not None and isinstance(function, func.FuncOp)
        last = [op for op in entry.ops if isinstance(op, llvm.AllocaOp) or op in group][-1]
        body = entry.split_before(last.next_op)  # type: ignore[arg-type]
        fail = Block()
        function.body.insert_block_after(fail, entry)
        entry.add_op(zero := _const(0))
        addresses = [llvm.PtrToIntOp(_pointer(call)) for call in group]
        entry.add_ops(addresses)
        failed = [_icmp(a.output, zero.result, "eq") for a in addresses]
        entry.add_ops(failed)
        any_failed = failed[0].res
        for other in failed[1:]:
            entry.add_op(either := llvm.OrOp(any_failed, other.res))
            any_failed = either.res
        entry.add_op(llvm.CondBrOp(any_failed, fail, [], body, []))
        runtime_errors.install()
        declare(_module(function), runtime_errors.SYMBOL, llvm.LLVMFunctionType([i64] * 3, llvm.LLVMVoidType()))
        name = function.sym_name.data.removeprefix(SYMBOL_PREFIX)
        for call, address in zip(group, addresses):
            site = runtime_errors.register(HeapSite(name, _pointer(call).name_hint or "?"))
            fail.add_ops([number := _const(site), llvm.CallOp(runtime_errors.SYMBOL, number, call.args[1], address)])
            fail.add_op(llvm.CallOp("free", _pointer(call)))
        outputs = function.function_type.outputs.data
        if outputs:
            fail.add_op(result := llvm.ZeroOp.create(result_types=[convert_type(outputs[0])]))
            fail.add_op(llvm.ReturnOp(result.results[0]))
        else:
            fail.add_op(llvm.ReturnOp())


class AllocLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocOp, rewriter: PatternRewriter) -> None:
        _, _, size = _buffer(op, op.memref.type)
        declare(_module(op), "aligned_alloc", ALIGNED_ALLOC)
        ops = _heap(size)
        rewriter.replace(op, ops, [ops[-1].results[0]])


class DeallocLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DeallocOp, rewriter: PatternRewriter) -> None:
        declare(_module(op), "free", FREE)
        rewriter.replace(op, llvm.CallOp("free", op.memref))


# ----------------------------------------------------------------------------------------
# arith and math

_INT_BINOPS: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.ShRUIOp: llvm.LShrOp,
}
_FLOAT_BINOPS: dict[type[Operation], type[llvm.AbstractFloatArithOp]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}
_MIN_MAX_INT = {arith.MaxSIOp: "sgt", arith.MinSIOp: "slt", arith.MaxUIOp: "ugt", arith.MinUIOp: "ult"}
_FLOAT_INTRINSICS = {
    arith.MaximumfOp: "llvm.maximum",
    arith.MinimumfOp: "llvm.minimum",
    arith.MaxnumfOp: "llvm.maxnum",
    arith.MinnumfOp: "llvm.minnum",
}
_MATH_INTRINSICS = {
    "math.sqrt": "llvm.sqrt",
    "math.exp": "llvm.exp",
    "math.exp2": "llvm.exp2",
    "math.log": "llvm.log",
    "math.log2": "llvm.log2",
    "math.log10": "llvm.log10",
    "math.sin": "llvm.sin",
    "math.cos": "llvm.cos",
    "math.absf": "llvm.fabs",
    "math.floor": "llvm.floor",
    "math.ceil": "llvm.ceil",
    "math.round": "llvm.round",
    "math.roundeven": "llvm.roundeven",
    "math.trunc": "llvm.trunc",
    "math.powf": "llvm.pow",
    "math.copysign": "llvm.copysign",
    "math.fma": "llvm.fma",
}
_MATH_LIBM = {
    "math.tanh",
    "math.erf",
    "math.tan",
    "math.atan",
    "math.atan2",
    "math.sinh",
    "math.cosh",
    "math.expm1",
    "math.log1p",
}


def _icmp(lhs: SSAValue, rhs: SSAValue, predicate: str) -> llvm.ICmpOp:
    flag = llvm.ICmpPredicateFlag(predicate)
    return llvm.ICmpOp(lhs, rhs, IntegerAttr(flag.to_int(), i64))


class ConstantLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter) -> None:
        t = convert_type(op.result.type)
        value = op.value
        if isinstance(value, IntegerAttr):
            value = IntegerAttr(value.value.data, t)
        elif not isinstance(value, FloatAttr):
            raise _fail(op, f"unsupported constant {value}")
        rewriter.replace(op, llvm.ConstantOp(value, t))


class ArithLowering(RewritePattern):
    """Every arith op other than constant, one llvm op or a short expansion each."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.name.startswith("arith.") or isinstance(op, arith.ConstantOp):
            return
        new = self.lower(op)
        if new is None:
            raise _fail(op, f"'{op.name}' has no lowering to the llvm dialect")
        rewriter.replace(op, new, None if new else [op.operands[0]])  # [] forwards the operand

    @staticmethod
    def lower(op: Operation) -> list[Operation] | None:  # noqa: C901 (one case per op family)
        operands = op.operands
        result_type = convert_type(op.results[0].type) if op.results else None
        kind = type(op)
        if kind in _INT_BINOPS:
            new_op = _INT_BINOPS[kind](*operands)
            flags = getattr(op, "overflow_flags", None)
            if flags is not None and flags.data and isinstance(new_op, llvm.ArithmeticBinOpOverflow):
                new_op = _INT_BINOPS[kind](
                    *operands, overflow=llvm.OverflowAttr(tuple(llvm.OverflowFlag(f.value) for f in flags.data))
                )
            return [new_op]
        if kind in _FLOAT_BINOPS:
            # `contract` lets LLVM fuse a multiply and an add into one FMA (clang's and TVM's
            # default, -ffp-contract=fast); the op's own fast-math flags are kept as well.
            fastmath = getattr(op, "fastmath", None)
            own = {llvm.FastMathFlag(f.value) for f in fastmath.data} if fastmath is not None else set()
            flags = llvm.FastMathAttr(tuple(sorted(own | {llvm.FastMathFlag.ALLOW_CONTRACT}, key=lambda f: f.value)))
            return [_FLOAT_BINOPS[kind](operands[0], operands[1], flags)]
        if kind in _MIN_MAX_INT:
            cmp = _icmp(operands[0], operands[1], _MIN_MAX_INT[kind])
            return [cmp, llvm.SelectOp(cmp, operands[0], operands[1])]
        if kind in _FLOAT_INTRINSICS:
            name = f"{_FLOAT_INTRINSICS[kind]}.{_float_suffix(result_type)}"
            return [llvm.CallIntrinsicOp(name, operands, [result_type])]
        match op:
            case arith.FloorDivSIOp() | arith.CeilDivSIOp():
                # q = a / b rounded toward zero; step it by one when the remainder is
                # non-zero and the exact quotient lies on that side of q
                a, b = operands
                q, r = llvm.SDivOp(a, b), llvm.SRemOp(a, b)
                zero = _const(0, result_type)
                one = _const(1, result_type)
                nonzero = _icmp(r.res, zero.result, "ne")
                signs = llvm.XOrOp(r.res, b)
                floor = isinstance(op, arith.FloorDivSIOp)
                side = _icmp(signs.res, zero.result, "slt" if floor else "sge")
                adjust = llvm.AndOp(nonzero.res, side.res)
                stepped = llvm.SubOp(q.res, one.result) if floor else llvm.AddOp(q.res, one.result)
                return [q, r, zero, one, nonzero, signs, side, adjust, stepped, llvm.SelectOp(adjust, stepped, q)]
            case arith.CeilDivUIOp():
                a, b = operands
                q, r = llvm.UDivOp(a, b), llvm.URemOp(a, b)
                zero, one = _const(0, result_type), _const(1, result_type)
                nonzero = _icmp(r.res, zero.result, "ne")
                stepped = llvm.AddOp(q.res, one.result)
                return [q, r, zero, one, nonzero, stepped, llvm.SelectOp(nonzero, stepped, q)]
            case arith.CmpiOp():
                return [llvm.ICmpOp(op.lhs, op.rhs, IntegerAttr(op.predicate.value.data, i64))]
            case arith.CmpfOp():
                return [llvm.FCmpOp(op.lhs, op.rhs, IntegerAttr(op.predicate.value.data, i64))]
            case arith.SelectOp():
                return [llvm.SelectOp(op.cond, op.lhs, op.rhs)]
            case arith.NegfOp():
                return [llvm.FNegOp(op.operand)]
            case arith.IndexCastOp() | arith.ExtSIOp() | arith.ExtUIOp() | arith.TruncIOp():
                source, target = _bits(operands[0].type), _bits(result_type)
                if source == target:
                    return []
                if source > target:
                    return [llvm.TruncOp(operands[0], result_type)]
                signed = isinstance(op, arith.IndexCastOp | arith.ExtSIOp)
                return [(llvm.SExtOp if signed else llvm.ZExtOp)(operands[0], result_type)]
            case arith.SIToFPOp():
                return [llvm.SIToFPOp(operands[0], result_type)]
            case arith.UIToFPOp():
                if _bits(operands[0].type) >= 64:
                    return None
                wide = llvm.ZExtOp(operands[0], i64)
                return [wide, llvm.SIToFPOp(wide, result_type)]
            case arith.FPToSIOp() | arith.FPToUIOp():
                sign = "s" if isinstance(op, arith.FPToSIOp) else "u"
                name = f"llvm.fpto{sign}i.sat.i{_bits(result_type)}.{_float_suffix(operands[0].type)}"
                return [llvm.CallIntrinsicOp(name, operands, [result_type])]
            case arith.ExtFOp():
                return [llvm.FPExtOp(operands[0], result_type)]
            case arith.TruncFOp():
                return [llvm.FPTruncOp(operands[0], result_type)]
            case arith.BitcastOp():
                return [llvm.BitcastOp(operands[0], result_type)]
            case _:
                return None


class MathLowering(RewritePattern):
    """math ops with an LLVM intrinsic become `llvm.call_intrinsic`; a few others call libm."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.name.startswith("math."):
            return
        t = op.results[0].type
        if op.name in _MATH_INTRINSICS:
            name = f"{_MATH_INTRINSICS[op.name]}.{_float_suffix(t)}"
            rewriter.replace(op, llvm.CallIntrinsicOp(name, op.operands, [t]))
        elif op.name in _MATH_LIBM and _bits(t) in (32, 64):
            name = op.name.removeprefix("math.") + ("f" if _bits(t) == 32 else "")
            declare(_module(op), name, llvm.LLVMFunctionType([t] * len(op.operands), t))
            rewriter.replace(op, llvm.CallOp(name, *op.operands, return_type=t))
        else:
            raise _fail(op, f"'{op.name}' has no lowering to the llvm dialect")


# ----------------------------------------------------------------------------------------
# control flow and functions


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
            raise _fail(op, "functions return at most one value")
        rewriter.replace(op, llvm.ReturnOp(op.arguments[0] if op.arguments else None))


class CallLowering(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        if PARALLEL_CALL in op.attributes:
            declare(_module(op), "GOMP_parallel", GOMP_PARALLEL_TYPE)
            entry = _enclosing(op, func.FuncOp).regions[0].blocks[0]
            rewriter.replace(op, parallel_call_ops(op, list(op.arguments), entry))
            return
        if len(op.res) > 1:
            raise _fail(op, "functions return at most one value")
        result = convert_type(op.res[0].type) if op.res else None
        rewriter.replace(op, llvm.CallOp(op.callee, *op.arguments, return_type=result))


@dataclass
class FuncLowering(RewritePattern):
    """func.func → llvm.func: converted signature, `noalias` pointer arguments; a function
    holding an outlined parallel loop gets its `GOMP_parallel` wrapper next to it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        inputs = [convert_type(t) for t in op.function_type.inputs]
        outputs = [convert_type(t) for t in op.function_type.outputs]
        if len(outputs) > 1:
            raise _fail(op, "functions return at most one value")
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


class LLVMTypeConversion(TypeConversionPattern):
    """index → i64 and memref → !llvm.ptr on every result and block argument left."""

    @attr_type_rewrite_pattern
    def convert_type(self, typ: IndexType | MemRefType) -> Attribute:
        return convert_type(typ)


def _check_lowered(module: ModuleOp) -> None:
    for op in module.walk():
        if op is module:
            continue
        if not op.name.startswith("llvm."):
            raise _fail(op, f"'{op.name}' has no lowering to the llvm dialect")
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            if isinstance(value.type, IndexType | MemRefType):
                raise _fail(op, f"a value of type {value.type} is left after the conversion")


def _walk(module: ModuleOp, patterns: list[RewritePattern]) -> None:
    PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=False).rewrite_module(module)


@dataclass(frozen=True)
class ConvertToLLVMPass(ModulePass):
    """Lower a module of func/scf/memref/arith (the output of lower-blocks) to the llvm dialect."""

    name = "convert-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_thread_bindings(op)
        refuse_unsupported_types(op)
        mangle_symbols(op)
        outline_parallel_loops(op)
        unroll_loops(op)
        scf_to_cf(op)
        # memory accesses first: they read the shapes off memref types that change below
        _walk(op, [LoadLowering(), StoreLowering(), MicrokernelCallLowering(element_pointer)])
        erase_declarations(op)
        allocas = AllocaLowering(heap_allocas(op))
        _walk(
            op,
            [
                ConstantLowering(),
                ArithLowering(),
                MathLowering(),
                allocas,
                AllocLowering(),
                DeallocLowering(),
                BranchLowering(),
                CondBranchLowering(),
                ReturnLowering(),
                CallLowering(),
            ],
        )
        check_heap_allocations(allocas.heap_calls)
        _walk(op, [FuncLowering()])
        PatternRewriteWalker(LLVMTypeConversion()).rewrite_module(op)
        _check_lowered(op)
