"""The CUDA C emitter: a gpu-dialect module (after lower-to-gpu) to CUDA C and a launch plan.

Input (the contract in the GPU notes): a host `func.func` holding only index constants and
`gpu.launch_func` ops with constant grid and block sizes and the function's buffers as
kernel operands, and `gpu.module`s of `gpu.func ... kernel` functions whose bodies use
scf.for / scf.if, arith, math, memref.load / store / alloca, gpu.thread_id / block_id /
block_dim / grid_dim and gpu.barrier.

Output: one `extern "C" __global__ void __launch_bounds__(N)` function per kernel:
- buffer parameters are `float* __restrict__ A` (buffers of one call never alias; a buffer
  the kernel only reads is `const`);
- `memref.alloca` in memory space "shared" (or 3) is a `__shared__` array, any other a
  per-thread array; multi-dimensional buffers are indexed row-major on a flat array;
- loops keep their names (`xtir.loop_name`): `for (int k_0 = 0; k_0 < 128; ++k_0)`;
  unrolled ones get `#pragma unroll`; a vectorized loop of 4 that is a provably aligned f32
  copy is one `float4` load and store (lowering/cuda_align.py), other vectorized loops are
  unrolled scalar code;
- values used once are inlined into the expression using them (a load only when no store,
  barrier or nested statement lies between it and that use), others become `const` locals
  named after their IR name; thread ids named after their loop are locals too;
- `gpu.barrier` is `__syncthreads()`;
- with `racecheck=True` (target "cuda-cpu" only: the source is for the emulation header) every
  `__shared__` access goes through `XTIR_SHARED(buffer, offset, elements, is_write)`, and every
  access of a parameter the kernel writes (global memory) through `XTIR_GLOBAL(...)`, which record it for the race
  detector of lowering/cuda_emulation.h; each stays on the line it has without;
- an integer division or shift that may be undefined (lowering/arith_guards.py's `needs_guard`:
  its right operand is data, not a constant that makes it defined) calls a helper
  (`xtir_div<int>(a, b, 1)`) that checks the operand and, where x86 would trap or C leaves it
  undefined, reports the op's site code and operands on an error channel (the device globals
  ERROR_FLAG and ERROR_OPERANDS, first report kept) and gives 0; lowering/cuda_function.py
  raises the report after the call, with the message of the llvm target's guard-arith.
The source needs no header but cuda_fp16.h, for f16 values (`__half`: loads, stores and
`+ - * /`, compares on it; math functions, min / max and conversions through float), so NVRTC,
nvcc and the host compiler (with the emulation header of lowering/cuda_emulation.py, which
also emulates `__half`) compile the same text. A comment at its end gives
the host side: grid, block and argument order of each launch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from xtir.dialects.layout import extent, reach, static_strides, strides_of
from xtir.errors import XtirError
from xtir.interpreters.integer import width
from xtir.lowering import cuda_c as c
from xtir.lowering.arith_guards import ArithSite, needs_guard, site_of
from xtir.lowering.cuda_align import Float4Copy, float4_copy, nonnegative
from xtir.lowering.cuda_c import Expr
from xtir.lowering.loops import LOOP_KIND, LOOP_NAME, UNROLLED, VECTORIZED, constant_int, loop_name, trip_count

SHARED_SPACES = ("shared", 3)
LOOP_NAMES = "xtir.loop_names"

ERROR_FLAG = "xtir_error"
ERROR_OPERANDS = "xtir_error_operands"

HELPERS = {
    "xtir_ceildiv": "template <typename T> __device__ __forceinline__ T xtir_ceildiv(T a, T b) {\n"
    "  T q = a / b;\n  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;\n}",
    "xtir_floordiv": "template <typename T> __device__ __forceinline__ T xtir_floordiv(T a, T b) {\n"
    "  T q = a / b;\n  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}",
    # T unsigned
    "xtir_ceildivu": "template <typename T> __device__ __forceinline__ T xtir_ceildivu(T a, T b) {\n"
    "  return (T)(a / b + (a % b != 0 ? 1 : 0));\n}",
    "xtir_maximum": "template <typename T> __device__ __forceinline__ T xtir_maximum(T a, T b) {\n"
    "  return a != a ? a : b != b ? b : (a > b || (a == b && !signbit(a))) ? a : b;\n}",
    "xtir_minimum": "template <typename T> __device__ __forceinline__ T xtir_minimum(T a, T b) {\n"
    "  return a != a ? a : b != b ? b : (a < b || (a == b && signbit(a))) ? a : b;\n}",
    # the run-time error channel: the first report (site code, operands) wins; the host reads it after the call
    "xtir_report": f"__device__ unsigned int {ERROR_FLAG};\n__device__ long long {ERROR_OPERANDS}[2];\n"
    "__device__ __forceinline__ bool xtir_report(unsigned int site, long long a, long long b) {\n"
    f"  if (atomicCAS(&{ERROR_FLAG}, 0u, site) == 0u) {{\n"
    f"    {ERROR_OPERANDS}[0] = a;\n    {ERROR_OPERANDS}[1] = b;\n  }}\n  return false;\n}}",
    "xtir_divisible": "template <typename T> __device__ __forceinline__ bool xtir_divisible(T a, T b, unsigned int site) {\n"
    "  return (b != 0 && (b != -1 || (unsigned long long)a != ~0ULL << (sizeof(T) * 8 - 1)))\n"
    "         || xtir_report(site, (long long)a, (long long)b);\n}",
    "xtir_nonzero": "template <typename T> __device__ __forceinline__ bool xtir_nonzero(T a, T b, unsigned int site) {\n"
    "  return b != 0 || xtir_report(site, (long long)a, (long long)b);\n}",
    "xtir_shiftable": "template <typename T> __device__ __forceinline__ bool xtir_shiftable(T a, T b, unsigned int site) {\n"
    "  return (unsigned long long)b < sizeof(T) * 8 || xtir_report(site, (long long)a, (long long)b);\n}",
    **{name: f"template <typename T> __device__ __forceinline__ T {name}(T a, T b, unsigned int site) {{\n"
             f"  return {check}(a, b, site) ? (T)({result}) : (T)0;\n}}"
       for name, check, result in [
           ("xtir_div", "xtir_divisible", "a / b"), ("xtir_rem", "xtir_divisible", "a % b"),
           ("xtir_floordiv_checked", "xtir_divisible", "xtir_floordiv(a, b)"),
           ("xtir_ceildiv_checked", "xtir_divisible", "xtir_ceildiv(a, b)"),
           ("xtir_divu", "xtir_nonzero", "a / b"), ("xtir_remu", "xtir_nonzero", "a % b"),
           ("xtir_ceildivu_checked", "xtir_nonzero", "xtir_ceildivu(a, b)"),
           ("xtir_shl", "xtir_shiftable", "(unsigned long long)a << b"), ("xtir_shr", "xtir_shiftable", "a >> b")]},
}
"""Device helpers by name, each after those it uses (the source lists them in this order)."""

_CHECKED = {
    # op: (helper, the helpers it uses, whether it computes on the unsigned type)
    arith.DivSIOp: ("xtir_div", ("xtir_divisible",), False),
    arith.RemSIOp: ("xtir_rem", ("xtir_divisible",), False),
    arith.FloorDivSIOp: ("xtir_floordiv_checked", ("xtir_divisible", "xtir_floordiv"), False),
    arith.CeilDivSIOp: ("xtir_ceildiv_checked", ("xtir_divisible", "xtir_ceildiv"), False),
    arith.DivUIOp: ("xtir_divu", ("xtir_nonzero",), True),
    arith.RemUIOp: ("xtir_remu", ("xtir_nonzero",), True),
    arith.CeilDivUIOp: ("xtir_ceildivu_checked", ("xtir_nonzero", "xtir_ceildivu"), True),
    arith.ShLIOp: ("xtir_shl", ("xtir_shiftable",), False),
    arith.ShRSIOp: ("xtir_shr", ("xtir_shiftable",), False),
    arith.ShRUIOp: ("xtir_shr", ("xtir_shiftable",), True),
}
"""Integer divisions and shifts that may be undefined (arith_guards.needs_guard): they go through a
helper that checks the right operand, reports the op's site on the error channel and gives 0 instead."""

_BINARY = {
    arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*", arith.DivSIOp: "/", arith.RemSIOp: "%",
    arith.AndIOp: "&", arith.OrIOp: "|", arith.XOrIOp: "^", arith.ShLIOp: "<<", arith.ShRSIOp: ">>",
    arith.AddfOp: "+", arith.SubfOp: "-", arith.MulfOp: "*", arith.DivfOp: "/",
}
_UNSIGNED_BINARY = {arith.DivUIOp: "/", arith.RemUIOp: "%", arith.ShRUIOp: ">>"}
_CMPI = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
         "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
_CMPF_ORDERED = {"oeq": "==", "ogt": ">", "oge": ">=", "olt": "<", "ole": "<=", "une": "!="}
_CMPF_UNORDERED = {"ueq": "!=", "ugt": "<=", "uge": "<", "ult": ">=", "ule": ">"}  # negated ordered test
_MATH = {
    "math.sqrt": "sqrt", "math.rsqrt": "rsqrt", "math.exp": "exp", "math.exp2": "exp2", "math.expm1": "expm1",
    "math.log": "log", "math.log2": "log2", "math.log10": "log10", "math.log1p": "log1p",
    "math.sin": "sin", "math.cos": "cos", "math.tan": "tan", "math.asin": "asin", "math.acos": "acos",
    "math.atan": "atan", "math.sinh": "sinh", "math.cosh": "cosh", "math.tanh": "tanh", "math.asinh": "asinh",
    "math.acosh": "acosh", "math.atanh": "atanh", "math.erf": "erf", "math.cbrt": "cbrt", "math.absf": "fabs",
    "math.floor": "floor", "math.ceil": "ceil", "math.round": "round", "math.roundeven": "rint",
    "math.trunc": "trunc", "math.powf": "pow", "math.atan2": "atan2", "math.copysign": "copysign", "math.fma": "fma",
}
_BITCASTS = {
    ("int", "float"): "__int_as_float", ("float", "int"): "__float_as_int",
    ("long long", "double"): "__longlong_as_double", ("double", "long long"): "__double_as_longlong",
    ("short", "__half"): "__short_as_half", ("__half", "short"): "__half_as_short",
}
_MIN_MAX = {arith.MaxSIOp: ">", arith.MinSIOp: "<", arith.MaxUIOp: ">", arith.MinUIOp: "<"}
_IDS = {gpu.ThreadIdOp: "threadIdx", gpu.BlockIdOp: "blockIdx", gpu.BlockDimOp: "blockDim", gpu.GridDimOp: "gridDim"}


@dataclass(frozen=True)
class KernelLaunch:
    """One `kernel<<<grid, block, shared_bytes>>>(args)` of the host function; `args[k]` is
    the index of the host parameter passed as the kernel's k-th argument."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple[int, ...]
    shared_bytes: int

    @property
    def threads(self) -> int:
        return math.prod(self.block)


@dataclass(frozen=True)
class CudaProgram:
    """CUDA C of a host function's kernels and how the host launches them, in order."""

    source: str
    function: str
    params: tuple[str, ...]
    launches: tuple[KernelLaunch, ...]
    aligned_params: frozenset[int] = frozenset()
    """Host parameters read or written as float4: a device array passed for one must be 16-byte aligned."""
    written_params: frozenset[int] = frozenset()
    """Host parameters some kernel stores to (copied back after a call on host arrays)."""
    error_sites: tuple[ArithSite, ...] = ()
    """The ops that report on the error channel: site code k is `error_sites[k - 1]` (0: no error)."""
    racecheck: bool = False
    """`__shared__` accesses go through the emulation's race detector (XTIR_SHARED)."""

    def error_message(self, code: int, x: int, y: int) -> str:
        """What the report `(code, x, y)` the kernels left in ERROR_FLAG and ERROR_OPERANDS says."""
        site = self.error_sites[code - 1]
        return site.message(x, y) or f"'{site.op_name}' reported {x}, {y} on the error channel"

    def describe(self) -> str:
        """The host side in CUDA syntax, one launch a line."""
        lines = []
        for launch in self.launches:
            args = ", ".join(self.params[k] for k in launch.args)
            lines.append(f"{launch.kernel}<<<dim3{launch.grid}, dim3{launch.block}>>>({args});"
                         f"  // {launch.threads} threads/block, {launch.shared_bytes} bytes __shared__")
        return "\n".join(lines)


def _dims(launch: gpu.LaunchFuncOp) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    sizes = []
    for v in (launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ, launch.blockSizeX, launch.blockSizeY,
              launch.blockSizeZ):
        n = constant_int(v)
        if n is None or n <= 0:
            raise XtirError(f"gpu.launch_func of {launch.kernel}: grid and block sizes must be positive constants")
        sizes.append(n)
    return (sizes[0], sizes[1], sizes[2]), (sizes[3], sizes[4], sizes[5])


def _find_kernel(module: ModuleOp, ref: Attribute) -> gpu.FuncOp:
    text = str(ref)
    for op in module.walk():
        if isinstance(op, gpu.FuncOp):
            parent = op.parent_op()
            if isinstance(parent, gpu.ModuleOp) and f"@{parent.sym_name.data}::@{op.sym_name.data}" == text:
                return op
    raise XtirError(f"gpu.launch_func names {text}, which is not a gpu.func of the module")


def _host_launches(host: func.FuncOp) -> list[gpu.LaunchFuncOp]:
    launches = []
    for op in host.body.block.ops:
        if isinstance(op, gpu.LaunchFuncOp):
            launches.append(op)
        elif isinstance(op, scf.ForOp):
            raise XtirError(f"function '{host.sym_name.data}': loop '{loop_name(op)}' is not bound to a GPU thread "
                            "axis, so it would run on the host; the cuda targets run functions whose loop nests are all "
                            "bound to blockIdx/threadIdx (bind, then lower-to-gpu outlines them as kernels)")
        elif not isinstance(op, arith.ConstantOp | func.ReturnOp):
            raise XtirError(f"function '{host.sym_name.data}': '{op.name}' runs on the host between kernel launches; "
                            "the cuda target runs functions made only of kernel launches (lower-to-gpu makes them)")
    if not launches:
        raise XtirError(f"function '{host.sym_name.data}' launches no kernel (bind loops to blockIdx/threadIdx and "
                        "run lower-to-gpu)")
    return launches


def _launch_args(launch: gpu.LaunchFuncOp, host: func.FuncOp) -> tuple[int, ...]:
    args = []
    for operand in launch.kernelOperands:
        if not isinstance(operand, BlockArgument) or operand.block is not host.body.block:
            raise XtirError(f"gpu.launch_func of {launch.kernel}: kernel operands must be the arguments of "
                            f"'{host.sym_name.data}'")
        args.append(operand.index)
    return tuple(args)


def emit_cuda(module: ModuleOp, host: func.FuncOp, racecheck: bool = False) -> CudaProgram:
    """CUDA C for the kernels `host` launches, and its launch plan; with `racecheck`, the
    `__shared__` accesses are checked ones (for the emulation only)."""
    helpers: set[str] = set()
    sites: dict[Operation, ArithSite] = {}
    kernels: dict[gpu.FuncOp, _Kernel] = {}
    launches, aligned, written = [], set(), set()
    for op in _host_launches(host):
        kernel = _find_kernel(module, op.kernel)
        grid, block = _dims(op)
        args = _launch_args(op, host)
        if len(args) != len(kernel.function_type.inputs.data):
            raise XtirError(f"gpu.launch_func of {op.kernel} passes {len(args)} operands to a kernel of "
                            f"{len(kernel.function_type.inputs.data)} parameters")
        if kernel not in kernels:
            kernels[kernel] = _KernelEmitter(kernel, math.prod(block), helpers, sites, racecheck).emit()
        emitted = kernels[kernel]
        aligned |= {args[k] for k in emitted.float4_args}
        written |= {args[k] for k in emitted.written_args}
        launches.append(KernelLaunch(kernel.sym_name.data, grid, block, args, _shared_bytes(kernel)))
    params = tuple(c.c_name(a.name_hint, f"arg{k}") for k, a in enumerate(host.body.block.args))
    program = CudaProgram("", host.sym_name.data, params, tuple(launches), frozenset(aligned), frozenset(written),
                          tuple(sites.values()), racecheck)
    header = f"// CUDA C generated by xtir for @{host.sym_name.data}: {len(kernels)} kernel(s)."
    includes = ["#include <cuda_fp16.h>"] if any("__half" in k.text for k in kernels.values()) else []
    parts = [header, *includes, *(text for h, text in HELPERS.items() if h in helpers), *(k.text for k in kernels.values())]
    host_side = "\n".join("//   " + line for line in program.describe().splitlines())
    source = "\n\n".join(parts) + f"\n\n// Host side of @{host.sym_name.data}({', '.join(params)}):\n{host_side}\n"
    return replace(program, source=source)


def _identity(op: Operation, lhs: Expr, rhs: Expr) -> Expr | None:
    """x + 0, 0 + x, x - 0, x * 1, 1 * x as x and x * 0 as 0 (integer ops only: a constant loop
    index or a float4 loop's lane 0 make such terms)."""
    if isinstance(op, arith.MuliOp):
        if "0" in (lhs.text, rhs.text):
            return Expr("0")
        return rhs if lhs.text == "1" else lhs if rhs.text == "1" else None
    if rhs.text == "0":
        return lhs
    return rhs if lhs.text == "0" and isinstance(op, arith.AddiOp) else None


@dataclass(frozen=True)
class _Kernel:
    text: str
    float4_args: frozenset[int]
    written_args: frozenset[int]


def _shared_bytes(kernel: gpu.FuncOp) -> int:
    total = 0
    for op in kernel.walk():
        if isinstance(op, memref.AllocaOp) and _is_shared(op.memref.type):
            ty = op.memref.type
            total += reach(ty) * _element_bytes(ty.element_type)
    return total


def _element_bytes(ty: Attribute) -> int:
    width = getattr(ty, "bitwidth", None) or getattr(getattr(ty, "width", None), "data", 32)
    return max(1, int(width) // 8)


def _is_shared(ty: Attribute) -> bool:
    if not isinstance(ty, MemRefType):
        return False
    space = ty.memory_space
    if isinstance(space, StringAttr):
        return space.data in SHARED_SPACES
    return isinstance(space, IntegerAttr) and space.value.data in SHARED_SPACES


def _static_buffer(op: Operation, ty: Attribute) -> MemRefType:
    """`ty`, checked to be what the emitter indexes: a static shape, static strides at offset 0
    (a C array or pointer from its start) reaching no element before the start."""
    if not isinstance(ty, MemRefType) or any(d < 0 for d in ty.get_shape()):
        raise XtirError(f"'{op.name}': the CUDA emitter needs buffers of static shape, got {ty}")
    layout = static_strides(ty)
    if layout is None or layout[1] != 0:
        raise XtirError(f"'{op.name}': the CUDA emitter needs buffers of static strides at offset 0, got {ty}")
    if extent(ty)[0] < 0:
        raise XtirError(f"'{op.name}': the layout of {ty} reaches before the start of the buffer")
    return ty


def _loop_name(op: Operation) -> str | None:
    name = op.attributes.get(LOOP_NAME)
    return name.data if isinstance(name, StringAttr) else None


def _id_name(op: Operation) -> str | None:
    """The name of the (first) loop a thread or block id replaces: `xtir.loop_names` (lower-to-gpu)
    or `xtir.loop_name`, before the name hint, which loses a `_0` suffix in a print/parse round trip."""
    names = op.attributes.get(LOOP_NAMES)
    if isinstance(names, ArrayAttr) and names.data and isinstance(names.data[0], StringAttr):
        return names.data[0].data
    return _loop_name(op) or op.results[0].name_hint


def _is_pure(op: Operation) -> bool:
    return (op.name.startswith("arith.") or op.name.startswith("math.")) and not isinstance(op, arith.ConstantOp) \
        or type(op) in _IDS


def _side_effect_free(op: Operation) -> bool:
    return _is_pure(op) or isinstance(op, arith.ConstantOp | memref.LoadOp)


@dataclass
class _KernelEmitter:
    kernel: gpu.FuncOp
    threads: int
    helpers: set[str]
    sites: dict[Operation, ArithSite]
    """The program's checked ops (their site codes count from 1 in this order)."""
    racecheck: bool = False
    names: dict[SSAValue, str] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)
    lines: list[str] = field(default_factory=list)
    depth: int = 1
    fixed: dict[SSAValue, int] = field(default_factory=dict)
    """Loop indices printed as constants: a loop of one iteration, a float4 loop's index at lane 0."""

    def __post_init__(self) -> None:
        sizes = [reach(_static_buffer(op, op.memref.type)) for op in self.kernel.walk() if isinstance(op, memref.AllocaOp)]
        sizes += [reach(_static_buffer(self.kernel, t)) for t in self.kernel.function_type.inputs.data]
        self.index_type = "int" if max(sizes, default=0) < 2**31 else "long long"
        self.written = {op.memref for op in self.kernel.walk() if isinstance(op, memref.StoreOp)}

    # ---- names -------------------------------------------------------------------------
    def unique(self, name: str) -> str:
        candidate, k = name, 0
        while candidate in self.taken:
            k += 1
            candidate = f"{name}_{k}"
        self.taken.add(candidate)
        return candidate

    def declare(self, value: SSAValue, hint: str | None, fallback: str) -> str:
        self.names[value] = self.unique(c.c_name(hint, fallback))
        return self.names[value]

    # ---- the kernel ----------------------------------------------------------------------
    def emit(self) -> _Kernel:
        name = self.kernel.sym_name.data
        if self.kernel.kernel is None:
            raise XtirError(f"gpu.func @{name} is launched but not marked as a kernel")
        params = []
        for k, arg in enumerate(self.kernel.body.block.args):
            ty = _static_buffer(self.kernel, arg.type)
            const = "" if arg in self.written else "const "
            params.append(f"{const}{c.c_type(ty.element_type, self.index_type)}* __restrict__ "
                          f"{self.declare(arg, arg.name_hint, f'arg{k}')}")
        if len(self.kernel.body.blocks) != 1:
            raise XtirError(f"gpu.func @{name}: the CUDA emitter needs a kernel body of one block (structured control flow)")
        self.block_ops(self.kernel.body.block.ops)
        while self.lines and self.lines[-1].strip() == "return;":
            self.lines.pop()
        head = f'extern "C" __global__ void __launch_bounds__({self.threads}) {name}({", ".join(params)}) {{'
        index = {arg: k for k, arg in enumerate(self.kernel.body.block.args)}
        return _Kernel("\n".join([head, *self.lines, "}"]), frozenset(index[a] for a in self._float4_buffers if a in index),
                       frozenset(index[a] for a in self.written if a in index))

    @property
    def _float4_buffers(self) -> set[SSAValue]:
        return {v for op in self.kernel.walk() if isinstance(op, scf.ForOp) and (copy := float4_copy(op))
                for v in copy.float4_buffers}

    def line(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def block_ops(self, ops) -> None:
        for op in ops:
            self.statement(op)

    def statement(self, op: Operation) -> None:
        match op:
            case arith.ConstantOp() | scf.YieldOp():
                pass
            case memref.LoadOp():
                self.value_statement(op)
            case _ if _is_pure(op):
                self.value_statement(op)
            case memref.StoreOp():
                self.line(f"{self.access(op)} = {self.expr(op.value).text};")
            case memref.AllocaOp():
                self.alloca(op)
            case scf.ForOp():
                self.loop(op)
            case scf.IfOp():
                self.branch(op)
            case gpu.BarrierOp():
                self.line("__syncthreads();")
            case gpu.ReturnOp():
                self.line("return;")
            case _:
                raise XtirError(f"'{op.name}' in gpu.func @{self.kernel.sym_name.data} has no CUDA C form in the emitter")

    # ---- values ----------------------------------------------------------------------------
    def value_statement(self, op: Operation) -> None:
        if len(op.results) != 1:
            raise XtirError(f"'{op.name}' in gpu.func @{self.kernel.sym_name.data} has no CUDA C form in the emitter")
        result = op.results[0]
        if not result.uses or self.inlined(op):
            return
        text = self.load(op) if isinstance(op, memref.LoadOp) else self.render(op).text
        ty = c.c_type(result.type, self.index_type)
        hint = _id_name(op) if type(op) in _IDS else result.name_hint
        self.line(f"const {ty} {self.declare(result, hint, 'v')} = {text};")

    def inlined(self, op: Operation) -> bool:
        """Whether `op`'s value is printed inside the expression using it rather than as a local."""
        result = op.results[0]
        if result.uses.get_length() != 1:
            return False
        if type(op) in _IDS:
            return _id_name(op) is None
        if not isinstance(op, memref.LoadOp):
            return True
        anchor = next(iter(result.uses)).operation
        while _is_pure(anchor) or isinstance(anchor, memref.LoadOp):
            if not self.inlined(anchor):
                break
            anchor = next(iter(anchor.results[0].uses)).operation
        block = op.parent_block()
        if anchor.parent_block() is not block:
            return False
        between = block.ops
        seen = False
        for other in between:
            if other is anchor:
                return seen
            if seen and not _side_effect_free(other):
                return False
            seen = seen or other is op
        return False

    def expr(self, value: SSAValue) -> Expr:
        if value in self.fixed:
            return Expr(str(self.fixed[value]))
        if value in self.names:
            return Expr(self.names[value])
        if isinstance(value, BlockArgument):
            raise XtirError(f"gpu.func @{self.kernel.sym_name.data}: a block argument the emitter cannot name")
        op = value.owner
        if isinstance(op, arith.ConstantOp):
            return c.literal(op.value, value.type, self.index_type)
        if isinstance(op, memref.LoadOp):
            return Expr(self.load(op))
        return self.render(op)

    def _is_zero(self, value: SSAValue) -> bool:
        return self.fixed.get(value) == 0 or constant_int(value) == 0

    def render(self, op: Operation) -> Expr:
        """The C expression of a pure op."""
        ty = op.results[0].type
        if type(op) in _IDS:
            dim = op.dimension.data.value  # type: ignore[attr-defined]
            return c.cast(self.index_type, Expr(f"{_IDS[type(op)]}.{dim}"))
        if type(op) in _CHECKED and needs_guard(op):
            return self.checked(op)
        if isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            if (simple := _identity(op, self.expr(op.lhs), self.expr(op.rhs))) is not None:
                return simple
        if (symbol := _BINARY.get(type(op))) is not None:
            associative = isinstance(op, arith.AddiOp | arith.MuliOp)
            return c.binary(symbol, self.expr(op.operands[0]), self.expr(op.operands[1]), associative)
        if (symbol := _UNSIGNED_BINARY.get(type(op))) is not None:
            return self.unsigned(op, symbol)
        match op:
            case arith.FloorDivSIOp() | arith.CeilDivSIOp():
                return self.division(op)
            case arith.CeilDivUIOp():
                self.helpers.add("xtir_ceildivu")
                return self.unsigned(op, "xtir_ceildivu")
            case arith.BitcastOp():
                return self.bitcast(op)
            case arith.CmpiOp():
                return self.compare_int(op)
            case arith.CmpfOp():
                return self.compare_float(op)
            case arith.MaxSIOp() | arith.MinSIOp():  # an integer max (relu, amax of ints): the operands are pure
                lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
                test = c.binary(">" if isinstance(op, arith.MaxSIOp) else "<", lhs, rhs, False)
                return Expr(f"{test.at(c.LOR)} ? {lhs.at(c.LOR)} : {rhs.at(c.COND)}", c.COND)
            case arith.SelectOp():
                cond, lhs, rhs = (self.expr(v) for v in op.operands)
                return Expr(f"{cond.at(c.LOR)} ? {lhs.at(c.LOR)} : {rhs.at(c.COND)}", c.COND)
            case arith.NegfOp():
                return Expr(f"-{self.expr(op.operand).at(c.UNARY)}", c.UNARY)
            case arith.IndexCastOp() | arith.ExtSIOp() | arith.TruncIOp() | arith.SIToFPOp() | arith.FPToSIOp() \
                    | arith.ExtFOp() | arith.TruncFOp() | arith.ExtUIOp() | arith.UIToFPOp() | arith.FPToUIOp():
                return self.convert(op)
        half = isinstance(ty, Float16Type)  # CUDA's __half has operators, not these functions: they run on floats
        if (name := self.float_function(op, Float32Type() if half else ty)) is not None:
            if half:
                return c.call("__float2half", c.call(name, *(c.call("__half2float", self.expr(v)) for v in op.operands)))
            return c.call(name, *(self.expr(v) for v in op.operands))
        raise XtirError(f"'{op.name}' in gpu.func @{self.kernel.sym_name.data} has no CUDA C form in the emitter")

    def float_function(self, op: Operation, ty: Attribute) -> str | None:
        """The C function on `ty` values computing a float op that has no C operator."""
        match op:
            case arith.MaxnumfOp() | arith.MinnumfOp():
                return self.math_name("fmax" if isinstance(op, arith.MaxnumfOp) else "fmin", ty)
            case arith.MaximumfOp() | arith.MinimumfOp():
                helper = "xtir_maximum" if isinstance(op, arith.MaximumfOp) else "xtir_minimum"
                self.helpers.add(helper)
                return helper
        name = _MATH.get(op.name)
        return None if name is None else self.math_name(name, ty)

    def convert(self, op: Operation) -> Expr:
        """A cast. An unsigned one computes on the unsigned type; __half converts through float both
        ways, which is exact (f32 holds every f16, and an integer f32 must round lies past f16's
        range), except from f64, which rounds once (`__double2half`)."""
        source, ty = op.operands[0], op.results[0].type
        value = self.expr(source)
        source_type = source.type
        if isinstance(source_type, Float16Type):
            value, source_type = c.call("__half2float", value), Float32Type()
        unsigned = isinstance(op, arith.ExtUIOp | arith.UIToFPOp | arith.FPToUIOp)
        if isinstance(op, arith.ExtUIOp | arith.UIToFPOp):
            value = c.cast(c.unsigned_type(source_type, self.index_type), value)
        if isinstance(op, arith.FPToUIOp):
            value = c.cast(c.unsigned_type(ty, self.index_type), value)
        if not isinstance(ty, Float16Type):
            target = c.c_type(ty, self.index_type)
            same = not unsigned and target == c.c_type(source_type, self.index_type)  # an int index to i32, f16 to f32
            return value if same else c.cast(target, value)
        if isinstance(source_type, Float64Type):
            return c.call("__double2half", value)
        return c.call("__float2half", value if isinstance(source_type, Float32Type) else c.cast("float", value))

    def math_name(self, name: str, ty: Attribute) -> str:
        return name + ("f" if c.c_type(ty, self.index_type) == "float" else "")

    def unsigned(self, op: Operation, symbol: str) -> Expr:
        """`op` on the unsigned type: `(int)((unsigned int)a / (unsigned int)b)`; a `symbol` that is
        a name is a helper, called as `name<unsigned int>(a, b)`."""
        ty = op.results[0].type
        unsigned = c.unsigned_type(ty, self.index_type)
        lhs, rhs = (c.cast(unsigned, self.expr(v)) for v in op.operands)
        result = c.call(f"{symbol}<{unsigned}>", lhs, rhs) if symbol.isidentifier() else c.binary(symbol, lhs, rhs)
        return c.cast(c.c_type(ty, self.index_type), result)

    def bitcast(self, op: arith.BitcastOp) -> Expr:
        """The bits of a value as another type of the same width: CUDA's `__int_as_float` family."""
        source, target = op.operands[0].type, op.results[0].type
        value = self.expr(op.operands[0])
        if isinstance(source, IntegerType | IndexType) and isinstance(target, IntegerType | IndexType):
            return c.cast(c.c_type(target, self.index_type), value)
        intrinsic = _BITCASTS.get((c.c_type(source, self.index_type).removeprefix("unsigned "),
                                   c.c_type(target, self.index_type).removeprefix("unsigned ")))
        if intrinsic is None:
            raise XtirError(f"'arith.bitcast' from {source} to {target} in gpu.func @{self.kernel.sym_name.data} has no "
                            "CUDA C form in the emitter")
        result = c.call(intrinsic, value)
        return c.cast(c.c_type(target, self.index_type), result) if c.c_type(target, self.index_type).startswith("unsigned") \
            else result

    def checked(self, op: Operation) -> Expr:
        """`op` through its checking helper: `xtir_div<int>(A[v], B[v], 1)`, 1 being its site code."""
        helper, uses, on_unsigned = _CHECKED[type(op)]
        ty = op.results[0].type
        c_type = (c.unsigned_type if on_unsigned else c.c_type)(ty, self.index_type)
        bits = 32 if isinstance(ty, IndexType) and self.index_type == "int" else width(ty)
        self.sites.setdefault(op, site_of(op, bits))
        self.helpers.update(("xtir_report", *uses, helper))
        operands = [c.cast(c_type, self.expr(v)) if on_unsigned else self.expr(v) for v in op.operands]
        code = Expr(str(list(self.sites).index(op) + 1))
        result = c.call(f"{helper}<{c_type}>", *operands, code)
        return c.cast(c.c_type(ty, self.index_type), result) if on_unsigned else result

    def division(self, op: arith.FloorDivSIOp | arith.CeilDivSIOp) -> Expr:
        lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
        positive_divisor = (constant_int(op.rhs) or 0) > 0
        if isinstance(op, arith.FloorDivSIOp) and positive_divisor and nonnegative(op.lhs):
            return c.binary("/", lhs, rhs)
        helper = "xtir_floordiv" if isinstance(op, arith.FloorDivSIOp) else "xtir_ceildiv"
        self.helpers.add(helper)
        # the type is explicit: a literal divisor is an int, which deduction would set against `a`'s type
        return c.call(f"{helper}<{c.c_type(op.result.type, self.index_type)}>", lhs, rhs)

    def compare_int(self, op: arith.CmpiOp) -> Expr:
        predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
        if predicate.startswith("u"):
            unsigned = c.unsigned_type(op.lhs.type, self.index_type)
            lhs, rhs = c.cast(unsigned, lhs), c.cast(unsigned, rhs)
        return c.binary(_CMPI[predicate], lhs, rhs)

    def compare_float(self, op: arith.CmpfOp) -> Expr:
        predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
        if predicate in _CMPF_ORDERED:
            return c.binary(_CMPF_ORDERED[predicate], lhs, rhs)
        if predicate in _CMPF_UNORDERED:
            return Expr(f"!{c.binary(_CMPF_UNORDERED[predicate], lhs, rhs).at(c.ATOM)}", c.UNARY)
        ordered = c.binary("&&", c.binary("==", lhs, lhs), c.binary("==", rhs, rhs))
        match predicate:
            case "ord":
                return ordered
            case "uno":
                return Expr(f"!{ordered.at(c.ATOM)}", c.UNARY)
            case "one":
                return c.binary("||", c.binary("<", lhs, rhs), c.binary(">", lhs, rhs))
            case "true" | "false":
                return Expr(predicate)
        raise XtirError(f"arith.cmpf predicate '{predicate}' has no CUDA C form in the emitter")

    def min_max(self, op: Operation) -> Expr:
        ty = op.results[0].type
        lhs, rhs = (self.expr(v) for v in op.operands)
        test_l, test_r = lhs, rhs
        if isinstance(op, arith.MaxUIOp | arith.MinUIOp):
            unsigned = c.unsigned_type(ty, self.index_type)
            test_l, test_r = c.cast(unsigned, lhs), c.cast(unsigned, rhs)
        test = c.binary(_MIN_MAX[type(op)], test_l, test_r)
        return Expr(f"{test.at(c.LOR)} ? {lhs.at(c.LOR)} : {rhs.at(c.COND)}", c.COND)

    # ---- buffers -----------------------------------------------------------------------------
    def offset(self, access: memref.LoadOp | memref.StoreOp) -> Expr:
        ty = _static_buffer(access, access.memref.type)
        terms: list[Expr] = []
        for index, stride in zip(access.indices, strides_of(ty)):
            if self._is_zero(index) or stride == 0:
                continue
            constant = self.fixed.get(index, constant_int(index))
            if constant is not None:
                term = Expr(str(constant * stride), c.UNARY if constant < 0 else c.ATOM)
            else:
                term = self.expr(index)
                if stride != 1:
                    term = c.binary("*", term, Expr(str(stride)), associative=True)
            terms.append(term)
        if not terms:
            return Expr("0")
        total = terms[0]
        for term in terms[1:]:
            total = c.binary("+", total, term, associative=True)
        return total

    def buffer(self, value: SSAValue) -> str:
        if value not in self.names:
            raise XtirError(f"gpu.func @{self.kernel.sym_name.data}: a buffer that is neither a parameter nor an alloca")
        return self.names[value]

    def load(self, op: memref.LoadOp) -> str:
        return self.element(op.memref, self.offset(op), 1, write=False)

    def access(self, op: memref.StoreOp) -> str:
        return self.element(op.memref, self.offset(op), 1, write=True)

    def element(self, buffer: SSAValue, offset: Expr, count: int, write: bool) -> str:
        """The lvalue of `buffer[offset]` (and the `count - 1` elements after it, for a vector access)."""
        if (macro := self.race_macro(buffer)) is not None:
            return f"{macro}({self.buffer(buffer)}, {offset.text}, {count}, {int(write)})"
        return f"{self.buffer(buffer)}[{offset.text}]"

    def race_macro(self, buffer: SSAValue) -> str | None:
        """With racecheck, the race detector's macro for the accesses of `buffer`: a `__shared__`
        array's, or a parameter's that the kernel writes (global memory; one only read cannot race,
        and skipping it keeps GEMM's A and B loads unchecked); a thread's own arrays need none."""
        if not self.racecheck:
            return None
        if _is_shared(buffer.type):
            return "XTIR_SHARED"
        return "XTIR_GLOBAL" if isinstance(buffer, BlockArgument) and buffer in self.written else None

    def alloca(self, op: memref.AllocaOp) -> None:
        ty = _static_buffer(op, op.memref.type)
        if not op.memref.uses:
            return
        name = self.declare(op.memref, op.memref.name_hint, "buf")
        storage = "__shared__ __align__(16) " if _is_shared(ty) else "__align__(16) "
        self.line(f"{storage}{c.c_type(ty.element_type, self.index_type)} {name}[{reach(ty)}];")

    def vector_address(self, buffer: SSAValue, offset: Expr, write: bool) -> str:
        """The address of a float4 access at `buffer[offset]`."""
        if self.race_macro(buffer) is not None:
            return f"&{self.element(buffer, offset, 4, write)}"
        return f"{self.buffer(buffer)} + {offset.at(c.ADD + 1)}"

    # ---- control flow ------------------------------------------------------------------------
    def loop(self, op: scf.ForOp) -> None:
        if op.iter_args:
            raise XtirError(f"scf.for with loop-carried values in gpu.func @{self.kernel.sym_name.data} has no CUDA C "
                            "form in the emitter")
        kind = op.attributes.get(LOOP_KIND)
        kind = kind.data if isinstance(kind, StringAttr) else "serial"
        if (copy := float4_copy(op)) is not None:
            self.float4_copy(copy)
            return
        iv = op.body.block.args[0]
        lower, upper = self.expr(op.lb), self.expr(op.ub)
        step = constant_int(op.step)
        if step is None or step <= 0:
            raise XtirError(f"scf.for in gpu.func @{self.kernel.sym_name.data}: the step must be a positive constant")
        if trip_count(op) == 1 and (start := constant_int(op.lb)) is not None:
            self.fixed[iv] = start  # `for (x = 0; x < 1; ++x)` says nothing a constant does not
            self.block_ops(op.body.block.ops)
            return
        name = self.declare(iv, _loop_name(op) or iv.name_hint, "i")
        if kind in (UNROLLED, VECTORIZED):
            self.line("#pragma unroll")
        increment = f"++{name}" if step == 1 else f"{name} += {step}"
        self.line(f"for ({self.index_type} {name} = {lower.text}; {name} < {upper.at(c.REL + 1)}; {increment}) {{")
        self.nested(op.body.block.ops)
        self.line("}")

    def float4_copy(self, copy: Float4Copy) -> None:
        """The copy at lane 0, under its guard (the same on every lane) if it has one; a select's
        float4 is a local that each branch assigns."""
        lane = copy.loop.body.block.args[0]
        self.lane_values(copy.loop.body.block, lane, 0)
        if copy.guard is None:
            self.store4(copy, self.load4(copy))
        elif copy.fill is None:
            self.line(f"if ({self.expr(copy.guard.cond).text}) {{")
            self.depth += 1
            self.lane_values(copy.guard.true_region.block, lane, 0)
            self.store4(copy, self.load4(copy))
            self.depth -= 1
            self.line("}")
        else:
            lanes = self.unique(f"{self.buffer(copy.load.memref)}4")
            fill = self.expr(copy.fill).text
            self.line(f"float4 {lanes};")
            self.line(f"if ({self.expr(copy.guard.cond).text}) {{")
            self.depth += 1
            self.lane_values(copy.guard.true_region.block, lane, 0)
            self.line(f"{lanes} = {self.load4(copy)};  // {_loop_name(copy.loop) or 'vectorized loop'}: 4 floats")
            self.depth -= 1
            self.line("} else {")
            self.line(f"  {lanes} = make_float4({fill}, {fill}, {fill}, {fill});")
            self.line("}")
            self.store4(copy, lanes, named=True)
        del self.fixed[lane]

    def load4(self, copy: Float4Copy) -> str:
        return f"*(const float4*)({self.vector_address(copy.load.memref, self.offset(copy.load), write=False)})"

    def store4(self, copy: Float4Copy, value: str, named: bool = False) -> None:
        """`value` (4 floats; with `named`, the name of a float4 local) stored as one float4, or
        (scattered) one lane (`.x` to `.w`) at a time at its own offset, from a local float4."""
        label = _loop_name(copy.loop) or "vectorized loop"
        if not copy.scattered:
            dst = self.vector_address(copy.store.memref, self.offset(copy.store), write=True)
            self.line(f"*(float4*)({dst}) = {value};  // {label}: 4 floats")
            return
        lanes = value
        if not named:
            lanes = self.unique(f"{self.buffer(copy.load.memref)}4")
            self.line(f"const float4 {lanes} = {value};  // {label}: 4 floats, stored one by one")
        self.line(f"{self.access(copy.store)} = {lanes}.x;")
        lane = copy.loop.body.block.args[0]
        for local in [v for v in self.names if not isinstance(v, BlockArgument) and copy.loop.is_ancestor(v.owner)]:
            del self.names[local]  # lane 0's locals: the other lanes' offsets are printed whole
        for k, field_name in enumerate("yzw", start=1):
            self.fixed[lane] = k
            self.line(f"{self.access(copy.store)} = {lanes}.{field_name};")

    def lane_values(self, block: Block, lane: SSAValue, k: int) -> None:
        """Print the index values of a vectorized loop's `block` at lane `k` that are used twice
        (the floordiv and rem of one offset) as locals, but a value that is a name already (`x + 0`);
        the others are printed where used."""
        self.fixed[lane] = k
        for op in block.ops:
            if op.results and op.results[0].uses.get_length() > 1 and not isinstance(op, arith.ConstantOp | arith.CmpiOp):
                text = self.render(op).text
                if text.isidentifier():
                    self.names[op.results[0]] = text
                else:
                    self.line(f"const {self.index_type} {self.declare(op.results[0], op.results[0].name_hint, 'v')} = {text};")

    def branch(self, op: scf.IfOp) -> None:
        """`if (c) { ... } else { ... }`; an scf.if with results (TVM's if_then_else, from
        pad-einsum's padded fetches) declares them first and assigns what each branch yields,
        so a branch's loads run only where it is taken."""
        results = [self.declare(r, r.name_hint, "v") for r in op.results]
        for name, r in zip(results, op.results):
            self.line(f"{c.c_type(r.type, self.index_type)} {name};")
        self.line(f"if ({self.expr(op.cond).text}) {{")
        self.arm(op.true_region.block, results)
        if op.false_region.blocks and (results or any(not isinstance(o, scf.YieldOp) for o in op.false_region.block.ops)):
            self.line("} else {")
            self.arm(op.false_region.block, results)
        self.line("}")

    def arm(self, block: Block, results: list[str]) -> None:
        """A branch's statements, then its yielded values assigned to the if's results."""
        self.nested(block.ops)
        if results:
            yielded = block.last_op
            assert isinstance(yielded, scf.YieldOp)
            self.depth += 1
            for name, value in zip(results, yielded.operands):
                self.line(f"{name} = {self.expr(value).text};")
            self.depth -= 1

    def nested(self, ops) -> None:
        self.depth += 1
        self.block_ops(ops)
        self.depth -= 1
