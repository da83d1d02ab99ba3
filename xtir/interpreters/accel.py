"""Interpreter implementations of the accel dialect: each op is numpy on whole tiles."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from xtir.dialects import accel
from xtir.dialects.block import buffer_name
from xtir.interpreters.block import check_in_bounds
from xtir.interpreters.compiled_expr import CompiledCache, compile_exprs


def _tile_plan(op: accel.RegionOp):
    """The op's tile offsets as one compiled function, and each tile's buffer name and sizes."""
    regions = op.regions_()
    offsets = compile_exprs([e for _, offs, _ in regions for e in offs], op.index_vars)
    return offsets, [(buffer_name(buffer), tuple(sizes)) for buffer, _, sizes in regions]


@register_impls
class AccelFunctions(InterpreterFunctions):
    def __init__(self) -> None:
        self.compiled = CompiledCache()

    def _tiles(self, op: accel.RegionOp, args: PythonValues) -> list[np.ndarray]:
        n = len(op.buffers)
        arrays, index_args = args[:n], args[n:]
        offsets_fn, regions = self.compiled.get(op, "tiles", lambda: _tile_plan(op))
        offsets = offsets_fn(*index_args)
        tiles, pos = [], 0
        for array, (name, sizes) in zip(arrays, regions):
            start = tuple(offsets[pos : pos + len(sizes)])
            pos += len(sizes)
            check_in_bounds(f"{op.name} on {name}", array, start, sizes)
            tiles.append(array[tuple(slice(s, s + n) for s, n in zip(start, sizes))])
        return tiles

    @impl(accel.TMM16Op)
    def run_tmm16(self, interpreter: Interpreter, op: accel.TMM16Op, args: PythonValues) -> PythonValues:
        c, a, b = self._tiles(op, args)
        c += a @ b.T
        return ()

    @impl(accel.DMACopyOp)
    def run_dma_copy(self, interpreter: Interpreter, op: accel.DMACopyOp, args: PythonValues) -> PythonValues:
        dst, src = self._tiles(op, args)
        dst[...] = src
        return ()

    @impl(accel.FillZeroOp)
    def run_fill_zero(self, interpreter: Interpreter, op: accel.FillZeroOp, args: PythonValues) -> PythonValues:
        (dst,) = self._tiles(op, args)
        dst[...] = 0
        return ()
