"""lower-to-gpu, numerically: the gpu-dialect module run by a small emulator against numpy.

The emulator runs thread blocks one after another and the threads of a block as Python
generators that stop at each `gpu.barrier`: every thread runs up to its next barrier before
any goes past it, in thread order. Shared buffers are per block and local ones per thread,
both NaN-filled, so a missing barrier (a thread reading what a later thread has not written
yet) or a wrong shared size or rebasing shows up as a wrong number. It checks the IR
contract of the pass independently of the CUDA C emitter.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import pytest
from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue

import xtir

_INT = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.FloorDivSIOp: lambda a, b: a // b,
    arith.RemSIOp: lambda a, b: int(np.fmod(a, b)),
    arith.AndIOp: lambda a, b: a and b,
    arith.OrIOp: lambda a, b: a or b,
}
_FLOAT = {
    arith.AddfOp: lambda a, b: np.float32(a + b),
    arith.SubfOp: lambda a, b: np.float32(a - b),
    arith.MulfOp: lambda a, b: np.float32(a * b),
}
_CMP = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b, 3: lambda a, b: a <= b,
        4: lambda a, b: a > b, 5: lambda a, b: a >= b}


class Thread:
    def __init__(self, env: dict[SSAValue, object], ids: dict[str, int]):
        self.env = env
        self.ids = ids

    def run(self, block: Block) -> Iterator[None]:
        for op in block.ops:
            yield from self.op(op)

    def op(self, op: Operation) -> Iterator[None]:
        env = self.env
        if isinstance(op, gpu.BarrierOp):
            yield
        elif isinstance(op, gpu.BlockIdOp | gpu.ThreadIdOp):
            kind = "block" if isinstance(op, gpu.BlockIdOp) else "thread"
            env[op.result] = self.ids[f"{kind}.{op.dimension.data.value}"]
        elif isinstance(op, arith.ConstantOp):
            v = op.value
            assert isinstance(v, IntegerAttr | FloatAttr)
            env[op.result] = np.float32(v.value.data) if isinstance(v, FloatAttr) else v.value.data
        elif type(op) in _INT:
            env[op.results[0]] = _INT[type(op)](env[op.operands[0]], env[op.operands[1]])
        elif type(op) in _FLOAT:
            env[op.results[0]] = _FLOAT[type(op)](env[op.operands[0]], env[op.operands[1]])
        elif isinstance(op, arith.CmpiOp):
            env[op.result] = _CMP[op.predicate.value.data](env[op.lhs], env[op.rhs])
        elif isinstance(op, arith.SelectOp):
            env[op.result] = env[op.lhs] if env[op.cond] else env[op.rhs]
        elif isinstance(op, memref.AllocaOp):
            if op.memref not in env:  # shared buffers are made per block, before the threads start
                env[op.memref] = _buffer(op.memref.type)
        elif isinstance(op, memref.LoadOp):
            env[op.res] = env[op.memref][tuple(env[i] for i in op.indices)]  # type: ignore[index]
        elif isinstance(op, memref.StoreOp):
            env[op.memref][tuple(env[i] for i in op.indices)] = env[op.value]  # type: ignore[index]
        elif isinstance(op, scf.ForOp):
            for i in range(env[op.lb], env[op.ub], env[op.step]):  # type: ignore[call-overload]
                env[op.body.block.args[0]] = i
                yield from self.run(op.body.block)
        elif isinstance(op, scf.IfOp):
            if env[op.cond]:
                yield from self.run(op.true_region.block)
        elif not isinstance(op, scf.YieldOp | gpu.ReturnOp):
            raise NotImplementedError(op.name)


def _buffer(t: MemRefType) -> np.ndarray:
    return np.full(t.get_shape(), np.nan, dtype=np.float32)


def _is_shared(op: Operation) -> bool:
    return isinstance(op, memref.AllocaOp) and op.memref.type.memory_space == StringAttr("shared")


def _launch(kernel: gpu.FuncOp, launch: gpu.LaunchFuncOp, host: dict[SSAValue, object]) -> None:
    consts = [host[v] for v in (launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ,
                                launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ)]
    grid, block = consts[:3], consts[3:]
    body = kernel.body.block
    args = dict(zip(body.args, (host[v] for v in launch.kernelOperands)))
    for bz, by, bx in itertools.product(*(range(n) for n in reversed(grid))):  # type: ignore[arg-type]
        shared = {op.memref: _buffer(op.memref.type) for op in body.ops if _is_shared(op)}
        threads = []
        for tz, ty, tx in itertools.product(*(range(n) for n in reversed(block))):  # type: ignore[arg-type]
            ids = {"block.x": bx, "block.y": by, "block.z": bz, "thread.x": tx, "thread.y": ty, "thread.z": tz}
            threads.append(Thread({**args, **shared}, ids).run(body))
        while threads:  # one phase: every thread up to its next barrier
            threads = [t for t in threads if next(t, StopIteration) is not StopIteration]


def run_gpu(module: ModuleOp, *arrays: np.ndarray) -> None:
    """Run the host function `main` of a lowered module on numpy arrays, in place."""
    kernels = {(m.sym_name.data, f.sym_name.data): f for m in module.ops if isinstance(m, gpu.ModuleOp)
               for f in m.body.block.ops if isinstance(f, gpu.FuncOp)}
    (main,) = [f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main"]
    host: dict[SSAValue, object] = dict(zip(main.body.block.args, arrays))
    for op in main.body.block.ops:
        if isinstance(op, arith.ConstantOp):
            host[op.result] = op.value.value.data  # type: ignore[union-attr]
        elif isinstance(op, gpu.LaunchFuncOp):
            ref = op.kernel
            _launch(kernels[(ref.root_reference.data, ref.nested_references.data[0].data)], op, host)


VECTOR_ADD = 'split{loop=i factors=-1,128},bind{loop=i_0 thread="blockIdx.x"},bind{loop=i_1 thread="threadIdx.x"}'
WINDOW_SUM = (VECTOR_ADD + ',cache-read{block=B index=0 scope="shared"},compute-at{block=A_shared loop=i_1},'
              'split{loop=ax0 factors=-1,128},bind{loop=ax0_1 thread="threadIdx.x"}')
GEMM_LOCAL = ('cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,8},split{loop=j factors=-1,8,8},'
              "split{loop=k factors=-1,4},unroll{loop=k_1},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},"
              'reverse-compute-at{block=C_local loop=j_1},bind{loop=i_0 thread="blockIdx.x"},bind{loop=j_0 thread="blockIdx.y"},'
              'bind{loop=i_1 thread="threadIdx.x"},bind{loop=j_1 thread="threadIdx.y"},decompose-reduction{block=C loop=k_0}')


def _fetch(index: int, name: str) -> str:
    return (f'cache-read{{block=C index={index} scope="shared"}},compute-at{{block={name} loop=k_0}},'
            f'fuse{{loops="{name}/ax0","{name}/ax1"}},split{{loop="{name}/ax0_ax1_fused" factors=-1,64,4}},'
            f'bind{{loop="{name}/ax0_ax1_fused_1" thread="threadIdx.x"}},vectorize{{loop="{name}/ax0_ax1_fused_2"}}')


GEMM_SHARED = ('cache-write{block=C index=0 scope="local"},split{loop=i factors=-1,8,8},split{loop=j factors=-1,8,8},'
               "split{loop=k factors=-1,8},reorder{loops=i_0,j_0,i_1,j_1,k_0,k_1,i_2,j_2},fuse{loops=i_1,j_1},"
               'reverse-compute-at{block=C_local loop=i_1_j_1_fused},bind{loop=i_0 thread="blockIdx.x"},'
               'bind{loop=j_0 thread="blockIdx.y"},bind{loop=i_1_j_1_fused thread="threadIdx.x"},'
               + _fetch(0, "A_shared") + "," + _fetch(1, "B_shared"))


def _lowered(path: str, schedule: str) -> ModuleOp:
    return xtir.transform(xtir.parse(open(path).read()), f"{schedule},lower-blocks,lower-to-gpu")


def _small_gemm(k: int) -> str:
    """The seed's 1024 GEMM as 64 x k by k x 64, one thread block of the seed's tiles, so that
    the emulator runs it in seconds."""
    text = open("examples/gpu_matmul.mlir").read()
    for old, new in [("%A: memref<1024x1024xf32>", f"%A: memref<64x{k}xf32>"),
                     ("%B: memref<1024x1024xf32>", f"%B: memref<{k}x64xf32>"),
                     ("block.load %A[%vi, %vk] : memref<1024x1024xf32>", f"block.load %A[%vi, %vk] : memref<64x{k}xf32>"),
                     ("block.load %B[%vk, %vj] : memref<1024x1024xf32>", f"block.load %B[%vk, %vj] : memref<{k}x64xf32>"),
                     ("%k = 0 to 1024", f"%k = 0 to {k}"), ("reduce(1024, %k)", f"reduce({k}, %k)")]:
        assert old in text
        text = text.replace(old, new)
    return text.replace("1024", "64")


def _random(*shape: int) -> np.ndarray:
    return np.random.default_rng(len(shape) * 1000 + shape[0]).standard_normal(shape).astype(np.float32)


def test_vector_add() -> None:
    a, b, c = _random(1024), _random(1024) + 1, np.full(1024, np.nan, np.float32)
    run_gpu(_lowered("examples/vector_add.mlir", VECTOR_ADD), a, b, c)
    np.testing.assert_allclose(c, a + b)


def test_window_sum_shared_memory() -> None:
    a, b = _random(1026), np.full(1024, np.nan, np.float32)
    run_gpu(_lowered("examples/window_sum.mlir", WINDOW_SUM), a, b)
    np.testing.assert_allclose(b, a[:-2] + a[1:-1] + a[2:], rtol=1e-6)


def test_window_sum_without_its_barrier_fails() -> None:
    """The emulator can see a missing barrier: the test above would fail without it."""
    module = _lowered("examples/window_sum.mlir", WINDOW_SUM)
    (barrier,) = [op for op in module.walk() if isinstance(op, gpu.BarrierOp)]
    barrier.detach()
    barrier.erase()
    a, b = _random(1026), np.full(1024, np.nan, np.float32)
    run_gpu(module, a, b)
    assert np.isnan(b).any()


@pytest.mark.parametrize("schedule", [GEMM_LOCAL, GEMM_SHARED], ids=["local", "shared"])
def test_gemm(schedule: str) -> None:
    k = 16
    a, b, c = _random(64, k), _random(k, 64) + 0.5, np.full((64, 64), np.nan, np.float32)
    module = xtir.transform(xtir.parse(_small_gemm(k)), f"{schedule},lower-blocks,lower-to-gpu")
    assert any(isinstance(op, gpu.BarrierOp) for op in module.walk()) == (schedule is GEMM_SHARED)
    run_gpu(module, a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("schedule", [GEMM_LOCAL, GEMM_SHARED, GEMM_SHARED + ",decompose-reduction{block=C loop=k_0}"],
                         ids=["local", "shared", "shared, decomposed"])
def test_gemm_k_tail(schedule: str) -> None:
    """k = 10 in tiles of 4 or 8: the last k tile is partial (`k_0 * 8 + k_1 < 10`). The init still
    runs first (decomposed: the init block drops the tail); C_local stays one thread's 8x8 and the
    shared tiles one k tile's, their fetch cut at the tail (stale elements are never read)."""
    k = 10
    a, b, c = _random(64, k), _random(k, 64) + 0.5, np.full((64, 64), np.nan, np.float32)
    module = xtir.transform(xtir.parse(_small_gemm(k)), f"{schedule},lower-blocks,lower-to-gpu")
    shapes = {op.memref.name_hint: op.memref.type.get_shape() for op in module.walk() if isinstance(op, memref.AllocaOp)}
    assert shapes["C_local"] == (8, 8)
    assert schedule is GEMM_LOCAL or (shapes["A_shared"], shapes["B_shared"]) == ((64, 8), (8, 64))
    run_gpu(module, a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
