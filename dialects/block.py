"""The `block` dialect: TensorIR's named loops, blocks and buffers.

    %C = block.alloc : memref<16x16xf32, "global.accumulator">
    block.for %i = 0 to 1024 "i" parallel {
      block.block "C"(%vi = spatial(1024, %i), %vk = reduce(64, %k)) {
        block.init { ... }
        %a = block.load %A[%vi, %vk] : memref<1024x64xf32>
        block.store %a, %C[%vi] : memref<1024xf32>
      }
    }

Loops carry the name users schedule them by; blocks carry iteration variables
(spatial or reduce) with a domain and an affine binding to the enclosing loops.
Buffers are memrefs whose memory space is the storage scope string.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import (
    I64,
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Dialect, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import HasParent, MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect, NoTerminator
from xdsl.utils.exceptions import VerifyException

from xtir.dialects.bounds import within
from xtir.dialects.expr import (
    Expr,
    decoded_map,
    parse_expr,
    parse_expr_list,
    parse_int64,
    print_expr,
    print_expr_list,
    to_affine_map,
)
from xtir.dialects.walk import ancestors, parent_of_type

SERIAL, PARALLEL, VECTORIZED, UNROLLED, THREAD_BINDING = (
    "serial",
    "parallel",
    "vectorized",
    "unrolled",
    "thread_binding",
)
LOOP_KINDS = (SERIAL, PARALLEL, VECTORIZED, UNROLLED, THREAD_BINDING)
THREAD_TAGS = tuple(
    f"{scope}.{axis}" for scope in ("blockIdx", "threadIdx", "vthread") for axis in "xyz"
)
SPATIAL, REDUCE = "spatial", "reduce"


def scope_of(buffer_type: Attribute) -> str:
    """The storage scope of a buffer type ('global' when the memref has none)."""
    assert isinstance(buffer_type, MemRefType)
    space = buffer_type.memory_space
    return space.data if isinstance(space, StringAttr) else "global"


def verify_buffer_type(what: str, buffer_type: Attribute) -> MemRefType:
    if not isinstance(buffer_type, MemRefType):
        raise VerifyException(f"{what} must be a memref, got {buffer_type}")
    space = buffer_type.memory_space
    if not isinstance(space, NoneAttr | StringAttr):
        raise VerifyException(
            f"{what} has memory space {space}; the storage scope of a buffer must be a "
            'string such as "global", "shared", "local" or "global.A_reg"'
        )
    if any(d < 0 for d in buffer_type.get_shape()):
        raise VerifyException(f"{what} must have a static shape, got {buffer_type}")
    return buffer_type


def buffer_name(buffer: SSAValue) -> str:
    return buffer.name_hint or "buffer"


# Loops -------------------------------------------------------------------------


@irdl_op_definition
class ForOp(IRDLOperation):
    """A named loop `for var in range(extent)` with a kind (TVM's ForKind)."""

    name = "block.for"

    loop_name = prop_def(StringAttr, prop_name="name")
    extent_attr = prop_def(IntegerAttr[I64], prop_name="extent")
    kind_attr = prop_def(StringAttr, prop_name="kind")
    thread_attr = opt_prop_def(StringAttr, prop_name="thread")
    annotations_attr = opt_prop_def(DictionaryAttr, prop_name="annotations")
    body = region_def("single_block")

    traits = traits_def(NoTerminator())

    def __init__(
        self,
        loop_name: str,
        extent: int,
        body: Region | None = None,
        kind: str = SERIAL,
        thread: str | None = None,
        annotations: Mapping[str, Attribute] | None = None,
    ):
        if body is None:
            body = Region(Block(arg_types=[IndexType()]))
        body.block.args[0].name_hint = _hint(loop_name)
        super().__init__(
            regions=[body],
            properties={
                "name": StringAttr(loop_name),
                "extent": IntegerAttr(extent, i64),
                "kind": StringAttr(kind),
                **({"thread": StringAttr(thread)} if thread else {}),
                **_annotation_props(annotations),
            },
        )

    @property
    def var(self) -> BlockArgument:
        return self.body.block.args[0]

    @property
    def extent(self) -> int:
        return self.extent_attr.value.data

    @property
    def kind(self) -> str:
        return self.kind_attr.data

    @property
    def thread(self) -> str | None:
        return self.thread_attr.data if self.thread_attr else None

    @property
    def label(self) -> str:
        return self.loop_name.data

    @property
    def annotations(self) -> dict[str, Attribute]:
        return _annotations_of(self.annotations_attr)

    def verify_(self) -> None:
        block = self.body.block
        if len(block.args) != 1 or not isinstance(block.args[0].type, IndexType):
            raise VerifyException(f'loop "{self.label}" must have one index induction variable')
        if self.extent <= 0:
            raise VerifyException(f'loop "{self.label}" has extent {self.extent}; extents must be positive')
        if "/" in self.label:
            raise VerifyException(f'loop "{self.label}": a loop name cannot contain "/", which separates '
                                  "BLOCK/LOOP in schedule handles")
        if self.kind not in LOOP_KINDS:
            raise VerifyException(
                f'loop "{self.label}" has unknown kind "{self.kind}"; expected one of {", ".join(LOOP_KINDS)}'
            )
        if (self.kind == THREAD_BINDING) != (self.thread is not None):
            raise VerifyException(f'loop "{self.label}": a thread tag goes with kind thread_binding only')
        if self.thread is not None and self.thread not in THREAD_TAGS:
            raise VerifyException(
                f'loop "{self.label}" is bound to unknown thread tag "{self.thread}"; '
                f"expected one of {', '.join(THREAD_TAGS)}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.var)
        printer.print_string(f" = 0 to {self.extent} ")
        printer.print_string_literal(self.label)
        if self.kind == THREAD_BINDING:
            printer.print_string(" bind(")
            printer.print_string_literal(self.thread or "")
            printer.print_string(")")
        elif self.kind != SERIAL:
            printer.print_string(f" {self.kind}")
        _print_annotations(printer, self.annotations_attr)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        var = parser.parse_argument(expect_type=False).resolve(IndexType())
        parser.parse_punctuation("=")
        start_pos = parser.pos
        if parser.parse_integer(allow_boolean=False) != 0:
            parser.raise_error(
                "block.for loops start at 0; shift the index in the block binding instead",
                start_pos,
                parser.pos,
            )
        parser.parse_keyword("to")
        extent = parse_int64(parser, "the loop extent")
        label = parser.parse_str_literal(" (the loop name)")
        kind, thread = SERIAL, None
        if parser.parse_optional_keyword("bind") is not None:
            parser.parse_punctuation("(")
            kind, thread = THREAD_BINDING, parser.parse_str_literal(" (a thread tag)")
            parser.parse_punctuation(")")
        elif (k := parser.parse_optional_keyword_in((PARALLEL, VECTORIZED, UNROLLED, SERIAL))) is not None:
            kind = k
        kind_pos = parser.pos
        annotations = _parse_annotations(parser)
        if annotations is None and (k := parser.parse_optional_identifier()) is not None:
            parser.raise_error(
                f'loop "{label}" has unknown kind "{k}"; expected serial, parallel, vectorized, '
                'unrolled or bind("<thread tag>")',
                kind_pos,
                parser.pos,
            )
        body = parser.parse_region([var])
        hint = body.block.args[0].name_hint
        op = cls(label, extent, body, kind, thread, annotations)
        op.body.block.args[0].name_hint = hint or _hint(label)
        if (attrs := parser.parse_optional_attr_dict_with_keyword()) is not None:
            op.attributes |= attrs.data
        return op


def _annotation_props(annotations: Mapping[str, Attribute] | None) -> dict[str, Attribute]:
    """The `annotations` property; no annotations and an empty dictionary are the same."""
    return {"annotations": DictionaryAttr(dict(annotations))} if annotations else {}


def _annotations_of(attr: DictionaryAttr | None) -> dict[str, Attribute]:
    return dict(attr.data) if attr is not None else {}


def _print_annotations(printer: Printer, attr: DictionaryAttr | None) -> None:
    """` annotations {key = value, ...}` (TVM's loop and block annotations), when present."""
    if attr is not None and attr.data:
        printer.print_string(" annotations ")
        printer.print_attr_dict(attr.data)


def _parse_annotations(parser: Parser) -> dict[str, Attribute] | None:
    if parser.parse_optional_keyword("annotations") is None:
        return None
    start = parser.pos
    attr = parser.parse_attribute()
    if not isinstance(attr, DictionaryAttr):
        parser.raise_error("expected a dictionary of annotations, e.g. {pragma_unroll = 4 : i64}", start, parser.pos)
    return dict(attr.data)


def _hint(label: str) -> str | None:
    """The SSA name hint made from a name users choose (a loop's for its variable, a cache's
    from its scope): the label itself where xDSL allows it (`i.outer`, `k-1`), else with each
    character an SSA name cannot hold, such as a space, `/` or `é`, made `_`. A trailing
    `_<digits>` cannot stay (see stable_hint): loop `i_0` is `%i0`."""
    return _usable_hint(stable_hint(re.sub(r"[^A-Za-z0-9_$.-]", "_", label)))


def _usable_hint(hint: str) -> str | None:
    """`hint` when it is a valid SSA name hint (xDSL's: it starts with a letter, `_`, `$`, `.` or
    `-`), else None: the value then prints with a number (`%1_2` stabilized to `12` would be
    refused)."""
    return hint if re.fullmatch(r"[A-Za-z_$.-][A-Za-z0-9_$.-]*", hint) else None


def stable_hint(name: str) -> str:
    """`name` without underscores in its trailing `_<digits>` run (`i_1_0` -> `i10`, `x__0` -> `x0`).

    xDSL's printer names the second value hinted `i` as `%i_1`, and strips one trailing
    `_<digits>` from hints to keep them apart; a hint `i_1_0` would keep `i_1` and clash
    (and `_0` would keep nothing, which xDSL refuses).
    """
    return re.sub(r"(?:_+\d+)+$", lambda m: m.group(0).replace("_", ""), name)


def stabilize_name_hints(root: Operation) -> None:
    """Give every value under `root` a hint that cannot clash with printer-made names."""
    for op in root.walk():
        values = [*op.results, *(arg for region in op.regions for blk in region.blocks for arg in blk.args)]
        for value in values:
            if value.name_hint and re.search(r"_\d+$", value.name_hint):
                value.name_hint = _usable_hint(stable_hint(value.name_hint))


# Blocks ------------------------------------------------------------------------


@dataclass(frozen=True)
class IterVar:
    """One iteration variable of a block: `%var = kind(extent, binding)`."""

    var: BlockArgument
    kind: str
    extent: int
    binding: Expr


@irdl_op_definition
class BlockOp(IRDLOperation):
    """A named block (TensorIR's `with T.block`): iteration variables bound to loops."""

    name = "block.block"

    loop_vars = var_operand_def(IndexType)
    block_name = prop_def(StringAttr, prop_name="name")
    iter_kinds = prop_def(ArrayAttr[StringAttr], prop_name="iter_kinds")
    extents_attr = prop_def(DenseArrayBase.constr(i64), prop_name="extents")
    bindings_map = prop_def(AffineMapAttr, prop_name="bindings")
    where_map = opt_prop_def(AffineMapAttr, prop_name="where")
    where_bounds = opt_prop_def(DenseArrayBase.constr(i64), prop_name="where_bounds")
    annotations_attr = opt_prop_def(DictionaryAttr, prop_name="annotations")
    body = region_def("single_block")

    traits = traits_def(NoTerminator())

    def __init__(
        self,
        label: str,
        iters: Sequence[tuple[str, str, int, Expr]],
        body: Region | None = None,
        predicate: Sequence[tuple[Expr, int]] = (),
        annotations: Mapping[str, Attribute] | None = None,
    ):
        """iters: (name hint, kind, extent, binding) per iteration variable.

        The body region (when given) must have one index argument per iteration variable.
        """
        if body is None:
            body = Region(Block(arg_types=[IndexType()] * len(iters)))
        for arg, (hint, *_) in zip(body.block.args, iters):
            arg.name_hint = hint
        exprs = [b for *_, b in iters] + [e for e, _ in predicate]
        amap, operands = to_affine_map(exprs)
        n = len(iters)
        props: dict[str, Attribute] = {
            "name": StringAttr(label),
            "iter_kinds": ArrayAttr([StringAttr(k) for _, k, _, _ in iters]),
            "extents": DenseArrayBase.from_list(i64, [e for _, _, e, _ in iters]),
            "bindings": AffineMapAttr(AffineMap(len(operands), 0, amap.data.results[:n])),
        }
        if predicate:
            props["where"] = AffineMapAttr(AffineMap(len(operands), 0, amap.data.results[n:]))
            props["where_bounds"] = DenseArrayBase.from_list(i64, [b for _, b in predicate])
        props |= _annotation_props(annotations)
        super().__init__(operands=[operands], regions=[body], properties=props)

    # accessors ------------------------------------------------------------------
    @property
    def label(self) -> str:
        return self.block_name.data

    @property
    def annotations(self) -> dict[str, Attribute]:
        return _annotations_of(self.annotations_attr)

    @property
    def iter_vars(self) -> tuple[BlockArgument, ...]:
        return self.body.block.args

    @property
    def kinds(self) -> list[str]:
        return [k.data for k in self.iter_kinds.data]

    @property
    def extents(self) -> list[int]:
        return list(self.extents_attr.get_values())

    def bindings(self) -> list[Expr]:
        return decoded_map(self, "bindings", self.bindings_map, self.loop_vars)

    def predicate(self) -> list[tuple[Expr, int]]:
        if self.where_map is None or self.where_bounds is None:
            return []
        exprs = decoded_map(self, "where", self.where_map, self.loop_vars)
        return list(zip(exprs, self.where_bounds.get_values()))

    def iters(self) -> list[IterVar]:
        return [
            IterVar(v, k, e, b)
            for v, k, e, b in zip(self.iter_vars, self.kinds, self.extents, self.bindings())
        ]

    @property
    def init(self) -> InitOp | None:
        first = self.body.block.first_op
        return first if isinstance(first, InitOp) else None

    @property
    def reduce_vars(self) -> list[BlockArgument]:
        return [v for v, k in zip(self.iter_vars, self.kinds) if k == REDUCE]

    # verification -----------------------------------------------------------------
    def verify_(self) -> None:
        n = len(self.iter_vars)
        if not (len(self.kinds) == len(self.extents) == len(self.bindings_map.data.results) == n):
            raise VerifyException(
                f'block "{self.label}" declares {n} iteration variables but has '
                f"{len(self.kinds)} kinds, {len(self.extents)} extents and "
                f"{len(self.bindings_map.data.results)} bindings"
            )
        if self.bindings_map.data.num_dims != len(self.loop_vars):
            raise VerifyException(f'block "{self.label}": binding map and loop variables disagree')
        if (self.where_map is None) != (self.where_bounds is None):
            raise VerifyException(f'block "{self.label}": a predicate needs both "where" and "where_bounds"')
        for it in self.iters():
            if not isinstance(it.var.type, IndexType):
                raise VerifyException(f'block "{self.label}": iteration variables must be of type index')
            if it.kind not in (SPATIAL, REDUCE):
                raise VerifyException(f'block "{self.label}": iteration variable kinds are spatial or reduce')
            if it.extent <= 0:
                raise VerifyException(
                    f'block "{self.label}": iteration variable {_name(it.var)} has domain {it.extent}; '
                    "domains must be positive"
                )
        self._verify_binding_vars()
        self._verify_bindings_in_domain()
        self._verify_init()
        self._verify_reduce_writes()

    def _verify_binding_vars(self) -> None:
        scope_loops = {loop.var for loop in loops_in_scope(self)}
        for v in self.loop_vars:
            if v not in scope_loops:
                raise VerifyException(
                    f'block "{self.label}": bindings must be affine expressions of the loops between the '
                    f"block and its enclosing block; {_name(v)} is not one of them"
                )

    def _verify_bindings_in_domain(self) -> None:
        """Refuse a binding that leaves its domain for some iteration of the loops around the
        block: the body would run outside the domain (and index its buffers out of bounds).
        Under the block's own `where`, only the iterations where it holds count: the binding
        is refused at one where it leaves (when too many to try, lower-blocks checks each
        access instead). Under an scf.if, which tests anything, lower-blocks checks. An
        enclosing block's `where` does not count: it can only test loops outside that block,
        never the loops between the two blocks, which are all a binding may use."""
        if _under_scf_if(self):
            return
        facts = self.predicate()
        for it in self.iters():
            verdict = within(it.binding, 0, it.extent - 1, facts, loop_bounds)
            if verdict.inside or (verdict.inside is None and (facts or verdict.span is None)):
                continue  # an unbounded variable (an empty loop) is refused by its own verifier
            domain = f"its domain [0, {it.extent - 1}]"
            if facts and verdict.witness is not None:
                raise VerifyException(
                    f'block "{self.label}": binding of {_name(it.var)} is {verdict.value} at '
                    f"{point_text(verdict.witness)}, where the predicate holds; outside {domain}"
                )
            assert verdict.span is not None
            raise VerifyException(
                f'block "{self.label}": binding of {_name(it.var)} ranges over [{verdict.span[0]}, {verdict.span[1]}], '
                f"outside {domain}"
            )

    def _verify_init(self) -> None:
        inits = [op for op in self.body.block.ops if isinstance(op, InitOp)]
        if not inits:
            return
        if not self.reduce_vars:
            raise VerifyException(
                f'block "{self.label}" has an init region but no reduce iteration variable; '
                "only reduction blocks may have an init"
            )
        if len(inits) > 1:
            raise VerifyException(f'block "{self.label}" has {len(inits)} block.init ops; a block has at most one')
        if self.body.block.first_op is not inits[0]:
            raise VerifyException(f'block "{self.label}": block.init must be the first op of the block')

    def _verify_reduce_writes(self) -> None:
        reduce = set(self.reduce_vars)
        for access in accesses_in(self.body, include_init=False):
            if not access.is_write:
                continue
            for e in access.indices:
                bad = [v for v in e.variables() if v in reduce]
                if bad:
                    raise VerifyException(
                        f'block "{self.label}" writes {buffer_name(access.buffer)} at an index that uses '
                        f"reduce variable {_name(bad[0])}; a block must not index the buffer it writes "
                        "with a reduce variable"
                    )

    # syntax -----------------------------------------------------------------------
    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.label)
        printer.print_string("(")
        for k, it in enumerate(self.iters()):
            if k:
                printer.print_string(", ")
            printer.print_ssa_value(it.var)
            printer.print_string(f" = {it.kind}({it.extent}, ")
            print_expr(printer, it.binding)
            printer.print_string(")")
        printer.print_string(")")
        if pred := self.predicate():
            printer.print_string(" where(")
            for k, (e, bound) in enumerate(pred):
                if k:
                    printer.print_string(", ")
                print_expr(printer, e)
                printer.print_string(f" < {bound}")
            printer.print_string(")")
        _print_annotations(printer, self.annotations_attr)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> BlockOp:
        label = parser.parse_str_literal(" (the block name)")
        args: list[Parser.Argument] = []
        iters: list[tuple[str, str, int, Expr]] = []

        def parse_iter() -> None:
            arg = parser.parse_argument(expect_type=False).resolve(IndexType())
            parser.parse_punctuation("=")
            kind = parser.expect(
                lambda: parser.parse_optional_keyword_in((SPATIAL, REDUCE)),
                "expected iteration variable kind 'spatial' or 'reduce'",
            )
            parser.parse_punctuation("(")
            extent = parse_int64(parser, "the domain extent")
            parser.parse_punctuation(",")
            binding = parse_expr(parser)
            parser.parse_punctuation(")")
            args.append(arg)
            iters.append(("", kind, extent, binding))

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_iter)
        predicate: list[tuple[Expr, int]] = []
        if parser.parse_optional_keyword("where") is not None:

            def parse_cond() -> tuple[Expr, int]:
                e = parse_expr(parser)
                parser.parse_punctuation("<")
                return e, parse_int64(parser, "the predicate bound")

            predicate = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_cond)
        annotations = _parse_annotations(parser)
        body = parser.parse_region(args)
        hints = [a.name_hint or "" for a in body.block.args]
        op = cls(label, [(h, k, e, b) for h, (_, k, e, b) in zip(hints, iters)], body, predicate, annotations)
        if (attrs := parser.parse_optional_attr_dict_with_keyword()) is not None:
            op.attributes |= attrs.data
        return op


@irdl_op_definition
class InitOp(IRDLOperation):
    """The init statement of a reduction block (TVM's `with T.init()`).

    It runs when every reduce variable of the enclosing block is at the start of its domain.
    """

    name = "block.init"

    body = region_def("single_block")
    traits = traits_def(NoTerminator(), HasParent(BlockOp))

    def __init__(self, body: Region | None = None):
        super().__init__(regions=[body or Region(Block())])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    @classmethod
    def parse(cls, parser: Parser) -> InitOp:
        body = parser.parse_region()
        if not body.blocks:  # `block.init {}`: an empty body is one empty block
            body.add_block(Block())
        return cls(body)


# Buffers -----------------------------------------------------------------------


DOUBLE_BUFFER = "double_buffer_scope"
"""A unit attribute of a block.alloc (and the memref.alloca lowered from it): the shared buffer
is double-buffered (TVM's attribute name; set by double-buffer, applied by lower-to-gpu)."""


BUFFER_DIM_ALIGN = "buffer_dim_align"
"""An attribute of a block.alloc (and the memref.alloca lowered from it): `[array<i64: axis,
factor, offset>, ...]`, the stride of dimension `axis` padded to `factor * k + offset` (TVM's
storage_align, whose block annotation has this name; set by storage-align, applied where the
buffer gets its final shape: blocks-to-scf, and lower-to-gpu for shared tiles)."""


def dim_aligns(op: Operation) -> dict[int, tuple[int, int]]:
    """The storage alignments an allocation records: {axis: (factor, offset)}."""
    attr = op.attributes.get(BUFFER_DIM_ALIGN)
    if not isinstance(attr, ArrayAttr):
        return {}
    triples = [tuple(a.get_values()) for a in attr.data if isinstance(a, DenseArrayBase)]
    return {axis: (factor, offset) for axis, factor, offset in triples}


def dim_aligns_attr(aligns: Mapping[int, tuple[int, int]]) -> ArrayAttr:
    return ArrayAttr([DenseArrayBase.from_list(i64, [axis, *aligns[axis]]) for axis in sorted(aligns)])


def _verify_dim_aligns(op: Operation, rank: int) -> None:
    attr = op.attributes.get(BUFFER_DIM_ALIGN)
    if attr is None:
        return
    what = f"{BUFFER_DIM_ALIGN} of buffer {_name(op.results[0])}"
    entries = attr.data if isinstance(attr, ArrayAttr) else None
    if entries is None or not all(isinstance(a, DenseArrayBase) and len(a.get_values()) == 3 for a in entries):
        raise VerifyException(f"{what} must be an array of array<i64: axis, factor, offset>, got {attr}")
    axes = [a.get_values()[0] for a in entries]  # type: ignore[union-attr]
    if len(set(axes)) != len(axes):
        raise VerifyException(f"{what} aligns an axis twice")
    for axis, (factor, offset) in dim_aligns(op).items():
        if not 0 <= axis < rank:
            raise VerifyException(f"{what}: axis {axis} is not a dimension of the rank-{rank} buffer")
        if factor <= 0 or not 0 <= offset < factor:
            raise VerifyException(f"{what}: axis {axis} needs factor > 0 and offset in [0, factor), "
                                  f"got factor {factor}, offset {offset}")


@irdl_op_definition
class AllocOp(IRDLOperation):
    """Allocate a buffer (TVM's alloc_buffer); its memref memory space is the scope."""

    name = "block.alloc"

    buffer = result_def(MemRefType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($buffer)"

    def __init__(self, buffer_type: MemRefType, name: str | None = None):
        super().__init__(result_types=[buffer_type])
        self.buffer.name_hint = _hint(name) if name is not None else None

    def verify_(self) -> None:
        buffer_type = verify_buffer_type(f"buffer {_name(self.buffer)}", self.buffer.type)
        _verify_dim_aligns(self, len(buffer_type.get_shape()))


@dataclass(frozen=True)
class Access:
    """One buffer access: the element (or region, with sizes) at `indices`."""

    op: Operation
    buffer: SSAValue
    indices: tuple[Expr, ...]
    is_write: bool
    sizes: tuple[int, ...] | None = None  # None: a single element

    def extents(self) -> tuple[int, ...]:
        return self.sizes if self.sizes is not None else (1,) * len(self.indices)


class AccessOp(IRDLOperation):
    """An op that reads or writes buffer regions given by index expressions."""

    def accesses(self) -> list[Access]:
        raise NotImplementedError

    def verify_(self) -> None:
        for access in self.accesses():
            buffer_type = verify_buffer_type(f"{self.name} buffer {_name(access.buffer)}", access.buffer.type)
            rank = len(buffer_type.get_shape())
            if len(access.indices) != rank:
                raise VerifyException(
                    f"{self.name} on {_name(access.buffer)} has {len(access.indices)} indices, "
                    f"but the buffer has rank {rank}"
                )
            verify_in_bounds(self, access, buffer_type.get_shape())
        verify_index_uses(self, _index_operands(self))


def loop_bounds(value: SSAValue) -> tuple[int, int] | None:
    """Bounds of loop variables and block iteration variables (from their domains); None for
    other values, and for an empty domain (which its op's verifier refuses)."""
    extent = None
    if isinstance(value, BlockArgument):
        owner = value.owner.parent_op()
        if isinstance(owner, ForOp):
            extent = owner.extent
        elif isinstance(owner, BlockOp) and value.index < len(owner.extents):
            extent = owner.extents[value.index]
    return (0, extent - 1) if extent is not None and extent > 0 else None


def verify_in_bounds(op: Operation, access: Access, shape: Sequence[int]) -> None:
    """Refuse an index that leaves its dimension for some value of the loop and block variables
    it uses. Inside blocks with a predicate (`where`), only the points where the predicates
    hold count: the index, in the loops the blocks are bound to, is refused at one where it
    leaves (when too many to try, lower-blocks checks it). Under an scf.if (what lower-blocks
    makes of predicates, or written by hand), lower-blocks checks every access."""
    if _under_scf_if(op):
        return
    facts, bindings = _predicates_around(op)
    for dim, (index, size, length) in enumerate(zip(access.indices, access.extents(), shape)):
        span = index.bounds(loop_bounds)
        if span is None or (span[0] >= 0 and span[1] + size - 1 < length):
            continue
        where = f"the dimension's [0, {length - 1}]"
        if not facts:
            raise VerifyException(
                f"{op.name} on {_name(access.buffer)}: index {dim} ranges over [{span[0]}, {span[1] + size - 1}], "
                f"outside {where}"
            )
        verdict = within(index.substitute(bindings, loop_bounds), 0, length - size, facts, loop_bounds)
        if verdict.inside is False and verdict.witness is not None:
            what = f"index {dim}" if size == 1 else f"the {size}-element region at index {dim}"
            raise VerifyException(
                f"{op.name} on {_name(access.buffer)}: {what} is {verdict.value} at {point_text(verdict.witness)}, "
                f"where the predicate holds; outside {where}"
            )


def _predicates_around(op: Operation) -> tuple[list[tuple[Expr, int]], dict[SSAValue, Expr]]:
    """The predicates of the blocks around `op`, and those blocks' bindings: under them, an
    index holds where its iteration variables are these bindings of loops and the predicates
    hold."""
    facts: list[tuple[Expr, int]] = []
    bindings: dict[SSAValue, Expr] = {}
    for parent in ancestors(op):
        if isinstance(parent, BlockOp) and parent.where_map is not None:
            facts += parent.predicate()
            bindings |= {it.var: it.binding for it in parent.iters()}
    return facts, bindings


def point_text(witness: Mapping[SSAValue, int]) -> str:
    """`i_0 = 2, i_1 = 3`: loops by name, iteration variables by SSA name."""
    def name(v: SSAValue) -> str:
        owner = v.owner.parent_op() if isinstance(v, BlockArgument) else None
        return owner.label if isinstance(owner, ForOp) else _name(v)

    return ", ".join(f"{name(v)} = {x}" for v, x in witness.items())


def _under_scf_if(op: Operation) -> bool:
    return any(isinstance(p, scf.IfOp) for p in ancestors(op))


def _index_operands(op: AccessOp) -> list[SSAValue]:
    return [v for a in op.accesses() for e in a.indices for v in e.variables()]


@irdl_op_definition
class LoadOp(AccessOp):
    name = "block.load"

    buffer = operand_def(MemRefType)
    index_vars = var_operand_def(IndexType)
    map = prop_def(AffineMapAttr)
    result = result_def()
    traits = traits_def(MemoryReadEffect())

    def __init__(self, buffer: SSAValue, indices: Sequence[Expr]):
        amap, operands = to_affine_map(indices)
        assert isinstance(buffer.type, MemRefType)
        super().__init__(
            operands=[buffer, operands], result_types=[buffer.type.element_type], properties={"map": amap}
        )

    def indices(self) -> list[Expr]:
        return decoded_map(self, "map", self.map, self.index_vars)

    def accesses(self) -> list[Access]:
        return [Access(self, self.buffer, tuple(self.indices()), False)]

    def verify_(self) -> None:
        super().verify_()
        assert isinstance(self.buffer.type, MemRefType)
        if self.result.type != self.buffer.type.element_type:
            raise VerifyException(
                f"block.load from {_name(self.buffer)} yields {self.result.type}, "
                f"but the buffer holds {self.buffer.type.element_type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.buffer, self.indices())
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        buffer, indices = _parse_access(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        buffer_value = _resolve_buffer(parser, buffer)
        op = cls(buffer_value, indices)
        op.attributes |= attrs
        return op


@irdl_op_definition
class StoreOp(AccessOp):
    name = "block.store"

    value = operand_def()
    buffer = operand_def(MemRefType)
    index_vars = var_operand_def(IndexType)
    map = prop_def(AffineMapAttr)
    traits = traits_def(MemoryWriteEffect())

    def __init__(self, value: SSAValue, buffer: SSAValue, indices: Sequence[Expr]):
        amap, operands = to_affine_map(indices)
        super().__init__(operands=[value, buffer, operands], properties={"map": amap})

    def indices(self) -> list[Expr]:
        return decoded_map(self, "map", self.map, self.index_vars)

    def accesses(self) -> list[Access]:
        return [Access(self, self.buffer, tuple(self.indices()), True)]

    def verify_(self) -> None:
        super().verify_()
        assert isinstance(self.buffer.type, MemRefType)
        if self.value.type != self.buffer.type.element_type:
            raise VerifyException(
                f"block.store of a {self.value.type} value into {_name(self.buffer)}, "
                f"which holds {self.buffer.type.element_type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        _print_access(printer, self.buffer, self.indices())
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        buffer, indices = _parse_access(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        buffer_value = _resolve_buffer(parser, buffer)
        assert isinstance(buffer_value.type, MemRefType)
        element_type = buffer_value.type.element_type
        defined = parser.ssa_values.get(value.operand_name, ())
        if value.index < len(defined) and defined[value.index].type != element_type:
            parser.raise_error(
                f"block.store of a {defined[value.index].type} value into {_name(buffer_value)}, "
                f"which holds {element_type}",
                value.span,
            )
        op = cls(parser.resolve_operand(value, element_type), buffer_value, indices)
        op.attributes |= attrs
        return op


def _print_access(printer: Printer, buffer: SSAValue, indices: Sequence[Expr]) -> None:
    printer.print_ssa_value(buffer)
    print_expr_list(printer, indices, "[", "]")


def _parse_access(parser: Parser) -> tuple[UnresolvedOperand, list[Expr]]:
    buffer = parser.parse_unresolved_operand()
    return buffer, parse_expr_list(parser, parser.Delimiter.SQUARE)


def _resolve_buffer(parser: Parser, buffer: UnresolvedOperand) -> SSAValue:
    start = parser.pos
    buffer_type = parser.parse_type()
    if not isinstance(buffer_type, MemRefType):
        parser.raise_error(f"expected a memref type for the buffer, got {buffer_type}", start, parser.pos)
    return parser.resolve_operand(buffer, buffer_type)


# Structure helpers shared by verifiers, analyses and passes ------------------------


def _name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "an unnamed value"


def enclosing_block(op: Operation) -> BlockOp | None:
    return parent_of_type(op, BlockOp)


def duplicate_block_name(function: Operation) -> tuple[BlockOp, BlockOp] | None:
    """The first block of `function` whose name an earlier block already has (with that block):
    schedules address blocks by name, so names are unique in a function as in TVM."""
    seen: dict[str, BlockOp] = {}
    for op in function.walk():
        if isinstance(op, BlockOp):
            if op.label in seen:
                return seen[op.label], op
            seen[op.label] = op
    return None


def loops_in_scope(op: Operation) -> list[ForOp]:
    """The block.for ops enclosing `op` up to its enclosing block, outermost first."""
    return [p for p in ancestors(op, stop=BlockOp) if isinstance(p, ForOp)][::-1]


def verify_index_uses(op: Operation, values: Sequence[SSAValue]) -> None:
    """Index values inside a block must be its (or an outer block's) iteration
    variables, or variables of loops nested inside the block."""
    inner_loops = {loop.var for loop in loops_in_scope(op)}
    for v in values:
        owner = v.owner.parent_op() if isinstance(v, BlockArgument) else None
        if isinstance(owner, BlockOp):
            if not owner.is_ancestor(op):
                raise VerifyException(
                    f'iteration variable {_name(v)} of block "{owner.label}" is used outside its block'
                )
        elif isinstance(owner, ForOp):
            if v not in inner_loops and enclosing_block(op) is not None:
                raise VerifyException(
                    f'loop variable {_name(v)} of loop "{owner.label}" is used inside block '
                    f'"{enclosing_block(op).label}"; a block sees the loops outside it only through '  # type: ignore[union-attr]
                    "its iteration variables"
                )
            if not owner.is_ancestor(op):
                raise VerifyException(f'loop variable {_name(v)} of loop "{owner.label}" is used outside its loop')
        else:
            raise VerifyException(
                f"index {_name(v)} is neither a loop variable nor a block iteration variable"
            )


def statements(region: Region, include_init: bool = True) -> Iterator[Operation]:
    """Ops of a region, recursively, without descending into nested blocks."""
    for block in region.blocks:
        for op in block.ops:
            if isinstance(op, BlockOp) or (isinstance(op, InitOp) and not include_init):
                continue
            yield op
            for r in op.regions:
                yield from statements(r, include_init)


def accesses_in(region: Region, include_init: bool = True) -> Iterator[Access]:
    """The accesses a block body performs itself (nested blocks are separate statements)."""
    for op in statements(region, include_init):
        if isinstance(op, AccessOp):
            yield from op.accesses()


Block_ = Dialect("block", [ForOp, BlockOp, InitOp, AllocOp, LoadOp, StoreOp], [])
