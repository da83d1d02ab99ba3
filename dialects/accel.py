"""The `accel` dialect: tensor intrinsics of a specialized accelerator (seed 000/001).

Each op works on 16x16 regions of buffers, written `%buf[offset : size, offset : size]`:

    accel.fill_zero %C[%i * 16 : 16, %j * 16 : 16] : memref<64x64xf32, "global.accumulator">
    accel.dma_copy %A_reg[0 : 16, 0 : 16], %A[%i * 16 : 16, %k * 16 : 16] : memref<...>, memref<...>
    accel.tmm16 %C[...], %A[...], %B[...] : memref<...>, memref<...>, memref<...>

`tmm16` computes C += A · Bᵀ with A in `global.A_reg`, B in `global.B_reg` and C in
`global.accumulator`. Row strides come from the buffers' shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AffineMapAttr,
    DenseArrayBase,
    IndexType,
    MemRefType,
    f32,
    i64,
)
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    prop_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xtir.dialects.block import Access, AccessOp, buffer_name, scope_of
from xtir.dialects.expr import Expr, from_affine_map, parse_expr, print_expr, to_affine_map

TILE = 16

Region2D = tuple[SSAValue, Sequence[Expr], Sequence[int]]
"""A buffer region: buffer, offsets (one per dimension), sizes."""


class RegionOp(AccessOp):
    """An accel op over 16x16 buffer regions; subclasses name the roles and scopes."""

    ROLES: ClassVar[tuple[str, ...]]
    """Role of each region operand, in order (e.g. C, A, B)."""
    WRITTEN: ClassVar[frozenset[str]]
    READ: ClassVar[frozenset[str]]
    SCOPES: ClassVar[dict[str, str]] = {}
    """Required storage scope per role; roles absent here accept any scope."""

    buffers = var_operand_def(MemRefType)
    index_vars = var_operand_def(IndexType)
    offsets = prop_def(AffineMapAttr)
    sizes = prop_def(DenseArrayBase.constr(i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, *regions: Region2D):
        all_offsets = [e for _, offs, _ in regions for e in offs]
        amap, operands = to_affine_map(all_offsets)
        super().__init__(
            operands=[[b for b, _, _ in regions], operands],
            properties={
                "offsets": amap,
                "sizes": DenseArrayBase.from_list(i64, [s for _, _, sz in regions for s in sz]),
            },
        )

    def regions_(self) -> list[Region2D]:
        offsets = from_affine_map(self.offsets, self.index_vars)
        sizes = list(self.sizes.get_values())
        result: list[Region2D] = []
        pos = 0
        for buffer in self.buffers:
            assert isinstance(buffer.type, MemRefType)
            rank = len(buffer.type.get_shape())
            result.append((buffer, offsets[pos : pos + rank], sizes[pos : pos + rank]))
            pos += rank
        return result

    def region(self, role: str) -> Region2D:
        return self.regions_()[self.ROLES.index(role)]

    def accesses(self) -> list[Access]:
        result: list[Access] = []
        for role, (buffer, offs, sizes) in zip(self.ROLES, self.regions_()):
            if role in self.READ:
                result.append(Access(self, buffer, tuple(offs), False, tuple(sizes)))
            if role in self.WRITTEN:
                result.append(Access(self, buffer, tuple(offs), True, tuple(sizes)))
        return result

    def verify_(self) -> None:
        if len(self.buffers) != len(self.ROLES):
            raise VerifyException(f"{self.name} takes {len(self.ROLES)} buffer regions, got {len(self.buffers)}")
        n_offsets = sum(len(b.type.get_shape()) for b in self.buffers if isinstance(b.type, MemRefType))
        if len(self.offsets.data.results) != n_offsets or len(self.sizes.get_values()) != n_offsets:
            raise VerifyException(f"{self.name}: one offset and one size per buffer dimension expected")
        for role, (buffer, _, sizes) in zip(self.ROLES, self.regions_()):
            self._verify_region(role, buffer, sizes)
        super().verify_()  # after the region checks: a too small buffer is named as such

    def _verify_region(self, role: str, buffer: SSAValue, sizes: Sequence[int]) -> None:
        assert isinstance(buffer.type, MemRefType)
        what = f"{self.name} operand {role} ({buffer_name(buffer)})"
        if len(sizes) != 2 or list(sizes) != [TILE, TILE]:
            raise VerifyException(
                f"{what} is a {'x'.join(map(str, sizes))} region; {self.name} works on {TILE}x{TILE} regions"
            )
        if buffer.type.element_type != f32:
            raise VerifyException(f"{what} holds {buffer.type.element_type}; {self.name} works on f32")
        shape = buffer.type.get_shape()
        if any(d < TILE for d in shape):
            raise VerifyException(f"{what}: buffer {buffer.type} is smaller than a {TILE}x{TILE} tile")
        required = self.SCOPES.get(role)
        if required is not None and scope_of(buffer.type) != required:
            raise VerifyException(f'{what} is in scope "{scope_of(buffer.type)}"; it must be in "{required}"')

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        for k, (buffer, offs, sizes) in enumerate(self.regions_()):
            if k:
                printer.print_string(", ")
            printer.print_ssa_value(buffer)
            printer.print_string("[")
            for d, (off, size) in enumerate(zip(offs, sizes)):
                if d:
                    printer.print_string(", ")
                print_expr(printer, off)
                printer.print_string(f" : {size}")
            printer.print_string("]")
        printer.print_op_attributes(self.attributes, reserved_attr_names=("operandSegmentSizes",))
        printer.print_string(" : ")
        printer.print_list([b.type for b in self.buffers], printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> RegionOp:
        def parse_dim() -> tuple[Expr, int]:
            off = parse_expr(parser)
            parser.parse_punctuation(":")
            return off, parser.parse_integer(allow_boolean=False, allow_negative=False)

        def parse_region() -> tuple[object, list[tuple[Expr, int]]]:
            buffer = parser.parse_unresolved_operand()
            return buffer, parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_dim)

        unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_region)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_pos = parser.pos
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(unresolved):
            parser.raise_error(
                f"{cls.name}: expected {len(unresolved)} buffer types, got {len(types)}", types_pos, parser.pos
            )
        regions: list[Region2D] = []
        for (buffer, dims), t in zip(unresolved, types):
            value = parser.resolve_operand(buffer, t)  # type: ignore[arg-type]
            regions.append((value, [o for o, _ in dims], [s for _, s in dims]))
        op = cls(*regions)
        op.attributes |= attrs
        return op


@irdl_op_definition
class TMM16Op(RegionOp):
    """C[16,16] += A[16,16] · B[16,16]ᵀ on the accelerator's matrix unit."""

    name = "accel.tmm16"
    ROLES: ClassVar[tuple[str, ...]] = ("C", "A", "B")
    WRITTEN: ClassVar[frozenset[str]] = frozenset({"C"})
    READ: ClassVar[frozenset[str]] = frozenset({"C", "A", "B"})
    SCOPES: ClassVar[dict[str, str]] = {"C": "global.accumulator", "A": "global.A_reg", "B": "global.B_reg"}


@irdl_op_definition
class DMACopyOp(RegionOp):
    """dst[16,16] = src[16,16] between any two scopes."""

    name = "accel.dma_copy"
    ROLES: ClassVar[tuple[str, ...]] = ("dst", "src")
    WRITTEN: ClassVar[frozenset[str]] = frozenset({"dst"})
    READ: ClassVar[frozenset[str]] = frozenset({"src"})


@irdl_op_definition
class FillZeroOp(RegionOp):
    """dst[16,16] = 0."""

    name = "accel.fill_zero"
    ROLES: ClassVar[tuple[str, ...]] = ("dst",)
    WRITTEN: ClassVar[frozenset[str]] = frozenset({"dst"})
    READ: ClassVar[frozenset[str]] = frozenset()


Accel = Dialect("accel", [TMM16Op, DMACopyOp, FillZeroOp], [])
