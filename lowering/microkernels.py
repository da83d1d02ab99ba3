"""CPU micro-kernels for the accel intrinsics, written in the llvm dialect.

`accel.tmm16` (C[16,16] += A[16,16] · B[16,16]ᵀ) on a CPU: both A and B are contiguous
along k, so a row of C cannot be computed from rows of A and B directly. The kernel
loads B's 16 rows as `<16 x float>` vectors and transposes them in registers (four
rounds of `shufflevector` that swap off-diagonal blocks of 8, 4, 2 and 1), so that
column k of B is one vector; then every row of C accumulates
`fma(broadcast(A[i, k]), Bᵀ[k], C[i])` over k, 256 vector FMAs per call, and is stored
once. On AVX-512 each vector is one register; elsewhere LLVM splits them.

The kernel is reached in two steps, because its arguments are element pointers that
only exist once memrefs become pointers:
- `lower-blocks{microkernels=true}` (what `xtir.build` runs) turns each accel.tmm16 into
  a `func.call` of a private declaration marked `xtir.microkernel = "tmm16"`, passing
  each buffer with the row and column where its tile starts;
- `convert-memref-to-llvm` (a stage of convert-to-llvm) turns that call into `getelementptr`s to the three tiles and a call
  of `@xtir_tmm16` with the row strides, and defines `@xtir_tmm16` in the module.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, MemRefType, ModuleOp, StringAttr, VectorType, f32, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

from xtir.dialects.accel import TILE, TMM16Op
from xtir.dialects.layout import row_stride, static_strides
from xtir.lowering.to_llvm import entry_constant
from xtir.support.errors import LoweringError

KERNEL_ATTR = "xtir.microkernel"
TMM16 = "xtir_tmm16"
VECTOR = VectorType(f32, [TILE])
PTR = llvm.LLVMPointerType()


Constants = Callable[..., SSAValue]
"""`const(value, type=i64)`: the kernel's constant, made once."""


def _element(b: Builder, const: Constants, base: SSAValue, row: int, stride: SSAValue, col: int | SSAValue = 0) -> SSAValue:
    """Pointer to base[row * stride + col]."""
    offset = b.insert(llvm.MulOp(const(row), stride)).res
    index = b.insert(llvm.AddOp(offset, const(col) if isinstance(col, int) else col)).res
    return b.insert(llvm.GEPOp.from_mixed_indices(base, [index], f32, inbounds=True)).result


def _shuffle(b: Builder, x: SSAValue, y: SSAValue, mask: list[int]) -> SSAValue:
    return b.insert(llvm.ShuffleVectorOp(x, y, DenseArrayBase.from_list(i32, mask), VECTOR)).res


def _transpose(b: Builder, rows: list[SSAValue]) -> list[SSAValue]:
    """Transpose 16 row vectors: for block size s = 8, 4, 2, 1, rows r and r + s (r & s == 0)
    exchange their off-diagonal s-wide blocks."""
    rows = list(rows)
    size = len(rows)
    s = size // 2
    while s:
        for r in range(size):
            if r & s:
                continue
            x, y = rows[r], rows[r + s]
            # lanes l of x with (l & s) set take y's lane l - s; y's lanes without it take x's l + s
            low = [lane if not lane & s else size + lane - s for lane in range(size)]
            high = [lane + s if not lane & s else size + lane for lane in range(size)]
            rows[r], rows[r + s] = _shuffle(b, x, y, low), _shuffle(b, x, y, high)
        s //= 2
    return rows


def constants(b: Builder) -> Constants:
    """`const(value, type=i64)` inserting through `b`: one llvm.constant per (value, type),
    however the call spells them (`const(0)` and `const(0, i64)` are one constant)."""
    made: dict[tuple[int, Attribute], SSAValue] = {}

    def const(value: int, t: Attribute = i64) -> SSAValue:
        if (value, t) not in made:
            made[value, t] = b.insert(llvm.ConstantOp(IntegerAttr(value, t), t)).result
        return made[value, t]

    return const


def tmm16_kernel() -> llvm.FuncOp:
    """`void xtir_tmm16(float *C, float *A, float *B, i64 ldc, i64 lda, i64 ldb)`."""
    block = Block(arg_types=[PTR, PTR, PTR, i64, i64, i64])
    c_ptr, a_ptr, b_ptr, ldc, lda, ldb = block.args
    for arg, name in zip(block.args, ["C", "A", "B", "ldc", "lda", "ldb"]):
        arg.name_hint = name
    b = Builder(InsertPoint.at_end(block))
    const = constants(b)

    def load(pointer: SSAValue, t: Attribute) -> SSAValue:
        return b.insert(llvm.LoadOp(pointer, t, alignment=4)).dereferenced_value

    b_cols = _transpose(b, [load(_element(b, const, b_ptr, j, ldb), VECTOR) for j in range(TILE)])
    undef = b.insert(llvm.UndefOp(VECTOR)).res
    zero = const(0, i32)
    splat = [0] * TILE
    c_rows = [load(_element(b, const, c_ptr, i, ldc), VECTOR) for i in range(TILE)]
    for k in range(TILE):
        for i in range(TILE):
            a = load(_element(b, const, a_ptr, i, lda, k), f32)
            a_splat = _shuffle(b, b.insert(llvm.InsertElementOp(undef, a, zero)).res, undef, splat)
            c_rows[i] = b.insert(llvm.FMAOp(a_splat, b_cols[k], c_rows[i])).res
    for i in range(TILE):
        b.insert(llvm.StoreOp(c_rows[i], _element(b, const, c_ptr, i, ldc), alignment=4))
    b.insert(llvm.ReturnOp())
    return llvm.FuncOp(TMM16, llvm.LLVMFunctionType([PTR, PTR, PTR, i64, i64, i64], llvm.LLVMVoidType()),
                       linkage=llvm.LinkageAttr("internal"), body=Region(block))


def tmm16_call(op: TMM16Op, offsets: list[list[SSAValue]]) -> func.CallOp:
    """The scf-level call standing for `op`: each buffer with its tile's row and column."""
    module = op.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    args = [v for (buffer, _, _), (row, col) in zip(op.regions_(), offsets) for v in (buffer, row, col)]
    types = [a.type for a in args]
    name = _declaration(module, types)
    call = func.CallOp(name, args, [])
    call.attributes[KERNEL_ATTR] = StringAttr("tmm16")
    return call


def _declaration(module: ModuleOp, types: list) -> str:
    """A private declaration of a tmm16 call with these argument types (memref types differ
    from call to call, so each signature gets its own)."""
    existing = [op for op in module.ops if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes]
    for op in existing:
        if list(op.function_type.inputs) == types:
            return op.sym_name.data
    taken = {op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp | llvm.FuncOp)}
    n = len(existing)
    while f"{TMM16}_{n}" in taken:  # a user function may have the name
        n += 1
    name = f"{TMM16}_{n}"
    decl = func.FuncOp.external(name, types, [])
    decl.attributes[KERNEL_ATTR] = StringAttr("tmm16")
    module.body.block.add_op(decl)
    return name


class MicrokernelCallLowering(RewritePattern):
    """A tmm16 call → element pointers to the three tiles + `llvm.call @xtir_tmm16`. Runs while
    memref types are still known (their row strides become the kernel's ld arguments)."""

    def __init__(self, element_pointer):
        self.element_pointer = element_pointer

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        if KERNEL_ATTR not in op.attributes:
            return
        ops: list[Operation] = []
        pointers, strides = [], []
        args = list(op.arguments)
        for buffer, row, col in zip(args[0::3], args[1::3], args[2::3]):
            made, pointer = self.element_pointer(rewriter, op, buffer, [row, col])
            ops += made
            pointers.append(pointer)
            assert isinstance(buffer.type, MemRefType)
            layout = static_strides(buffer.type)
            if layout is None or layout[0][-1] != 1:
                raise LoweringError(op, f"the {TMM16} kernel takes tiles of contiguous rows; {buffer.type} has "
                                    "no unit stride in its last dimension")
            strides.append(entry_constant(rewriter, op, row_stride(buffer.type)))
        module = op.get_toplevel_object()
        assert isinstance(module, ModuleOp)
        if SymbolTable.lookup_symbol(module, TMM16) is None:
            module.body.block.add_op(tmm16_kernel())
        rewriter.replace(op, [*ops, llvm.CallOp(TMM16, *pointers, *strides)])


def erase_declarations(module: ModuleOp) -> None:
    for op in list(module.ops):
        if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes:
            module.body.block.erase_op(op)
