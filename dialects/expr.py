"""Index expressions: quasi-affine forms over `index` SSA values.

Block bindings, predicates and buffer indices are all written as these forms
(`%i_0 * 16 + %i_1`, `%f floordiv 4`, `%f mod 4`). In the IR they are stored as an
`AffineMap` over the op's index operands, so the generic form is plain MLIR; passes
work on `Expr` objects whose variables are the SSA values themselves.

Why not xDSL's `AffineExpr` for that work: its variables are positions (`d0`, `s1`) of one
map, so every rewrite (substituting a loop variable across a nest, comparing an index of
one op with one of another) would renumber dims per op; it keeps the tree as written, with
no canonical sum-of-terms form, so `i * 16 + j - (j + i * 16)` does not simplify to 0 and
two equal indices do not compare equal; and it has no bounds, while `floordiv`/`mod`
simplification here uses loop extents (`(i_0 * 16 + i_1) floordiv 16 = i_0` when
`i_1 < 16`). `Expr` is a canonical linear form over SSA values with exactly those rules;
`AffineMap` remains the storage format (`to_affine_map` / `from_affine_map`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import AffineMapAttr, IndexType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

Bounds = Callable[[SSAValue], tuple[int, int] | None]
"""Inclusive range of a variable, or None when unknown; used to simplify div/mod."""


def no_bounds(_: SSAValue) -> tuple[int, int] | None:
    return None


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""Loop extents, domains and index constants are signed 64-bit integers (i64 / index)."""


def fits_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def parse_int64(parser: Parser, what: str) -> int:
    """An integer literal that must fit in an i64 (`what` names it in the errors). xDSL would
    store 2^63 .. 2^64 - 1 as a negative i64 and fail on larger ones with its own message."""
    start = parser.pos
    value = parser.parse_integer(allow_boolean=False, context_msg=f" ({what})")
    if not fits_int64(value):
        parser.raise_error(f"{what} {value} does not fit in 64 bits (at most {INT64_MAX})", start, parser.pos)
    return value


@dataclass(frozen=True, eq=False)
class Var:
    """A variable atom: an SSA value of type index, compared by identity."""

    value: SSAValue

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Var) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


@dataclass(frozen=True)
class Div:
    """`expr floordiv divisor` (divisor > 0) that could not be simplified away."""

    expr: Expr
    divisor: int


@dataclass(frozen=True)
class Mod:
    """`expr mod divisor` (divisor > 0) that could not be simplified away."""

    expr: Expr
    divisor: int


Atom = Var | Div | Mod


@dataclass(frozen=True, eq=False)
class Expr:
    """sum(coef * atom) + const; terms print largest stride first."""

    terms: tuple[tuple[Atom, int], ...] = ()
    const: int = 0

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Expr)
            and self.const == other.const
            and frozenset(self.terms) == frozenset(other.terms)
        )

    def __hash__(self) -> int:
        return hash((frozenset(self.terms), self.const))

    # construction -----------------------------------------------------------
    @staticmethod
    def var(value: SSAValue) -> Expr:
        return Expr(((Var(value), 1),))

    @staticmethod
    def of(value: int | SSAValue | Expr) -> Expr:
        if isinstance(value, Expr):
            return value
        if isinstance(value, int):
            return Expr((), value)
        return Expr.var(value)

    @staticmethod
    def _make(coefs: Mapping[Atom, int], const: int) -> Expr:
        coefs, const = _recombine_div_mod(coefs, const)
        terms = [(a, c) for a, c in coefs.items() if c != 0]
        # Larger strides first reads like TVM (`i_0 * 16 + i_1`); ties keep order.
        terms.sort(key=lambda t: -abs(t[1]))
        return Expr(tuple(terms), const)

    # arithmetic -------------------------------------------------------------
    def __add__(self, other: Expr | int) -> Expr:
        other = Expr.of(other)
        coefs = dict(self.terms)
        for atom, coef in other.terms:
            coefs[atom] = coefs.get(atom, 0) + coef
        return Expr._make(coefs, self.const + other.const)

    __radd__ = __add__

    def __neg__(self) -> Expr:
        return self * -1

    def __sub__(self, other: Expr | int) -> Expr:
        return self + -Expr.of(other)

    def __rsub__(self, other: Expr | int) -> Expr:
        return Expr.of(other) - self

    def __mul__(self, factor: int) -> Expr:
        if not isinstance(factor, int):
            return NotImplemented
        return Expr._make({a: c * factor for a, c in self.terms}, self.const * factor)

    __rmul__ = __mul__

    def floordiv(self, divisor: int, bounds: Bounds = no_bounds) -> Expr:
        quotient, rest = self._split(divisor, bounds)
        if quotient is not None:
            return quotient
        return Expr(((Div(rest, divisor), 1),))

    def mod(self, divisor: int, bounds: Bounds = no_bounds) -> Expr:
        quotient, rest = self._split(divisor, bounds)
        if quotient is not None:
            return rest
        return Expr(((Mod(rest, divisor), 1),))

    def _split(self, divisor: int, bounds: Bounds) -> tuple[Expr | None, Expr]:
        """Write self = divisor * q + r; return (q, r) when 0 <= r < divisor holds.

        When the split fails, the second item is self with multiples of divisor
        dropped from the constant only where that is exact.
        """
        if divisor <= 0:
            raise ValueError(f"division by non-positive constant {divisor}")
        q_coefs: dict[Atom, int] = {}
        r_coefs: dict[Atom, int] = {}
        for atom, coef in self.terms:
            if coef % divisor == 0:
                q_coefs[atom] = coef // divisor
            else:
                r_coefs[atom] = coef
        q_const, r_const = divmod(self.const, divisor)
        rest = Expr._make(r_coefs, r_const)
        rng = rest.bounds(bounds)
        if rng is not None and rng[0] >= 0 and rng[1] < divisor:
            return Expr._make(q_coefs, q_const), rest
        return None, self

    # queries ----------------------------------------------------------------
    @property
    def is_const(self) -> bool:
        return not self.terms

    def as_var(self) -> SSAValue | None:
        """The variable when self is exactly one variable, else None."""
        if self.const == 0 and len(self.terms) == 1:
            atom, coef = self.terms[0]
            if coef == 1 and isinstance(atom, Var):
                return atom.value
        return None

    def coefficient(self, value: SSAValue) -> int:
        return dict(self.terms).get(Var(value), 0)

    def variables(self) -> list[SSAValue]:
        """Free variables in order of first appearance."""
        seen: dict[Var, None] = {}
        for atom, _ in self.terms:
            if isinstance(atom, Var):
                seen[atom] = None
            else:
                for v in atom.expr.variables():
                    seen[Var(v)] = None
        return [v.value for v in seen]

    def uses(self, value: SSAValue) -> bool:
        return any(v is value for v in self.variables())

    def bounds(self, bounds: Bounds) -> tuple[int, int] | None:
        """Inclusive [lo, hi] of the expression, or None when some variable is unbounded."""
        lo = hi = self.const
        for atom, coef in self.terms:
            rng = _atom_bounds(atom, bounds)
            if rng is None:
                return None
            a, b = rng[0] * coef, rng[1] * coef
            lo += min(a, b)
            hi += max(a, b)
        return lo, hi

    def substitute(self, mapping: Mapping[SSAValue, Expr], bounds: Bounds = no_bounds) -> Expr:
        """Replace variables by expressions (variables not in mapping stay)."""
        result = Expr((), self.const)
        for atom, coef in self.terms:
            result = result + _substitute_atom(atom, mapping, bounds) * coef
        return result

    def evaluate(self, env: Mapping[SSAValue, int]) -> int:
        total = self.const
        for atom, coef in self.terms:
            total += coef * _evaluate_atom(atom, env)
        return total


def _recombine_div_mod(coefs: Mapping[Atom, int], const: int) -> tuple[dict[Atom, int], int]:
    """`k*d * (e floordiv d) + k * (e mod d)` is `k * e`: fusing the loops of a split (or
    splitting a fused loop) writes a variable that way, and each further split or fuse would
    double the expression."""
    result = {a: c for a, c in coefs.items() if c != 0}
    while (pair := _div_mod_pair(result)) is not None:
        div, mod, k = pair
        del result[div], result[mod]
        for atom, coef in mod.expr.terms:
            result[atom] = result.get(atom, 0) + coef * k
        const += mod.expr.const * k
        result = {a: c for a, c in result.items() if c != 0}
    return result, const


def _div_mod_pair(coefs: Mapping[Atom, int]) -> tuple[Div, Mod, int] | None:
    for atom, coef in coefs.items():
        if isinstance(atom, Mod) and coefs.get(div := Div(atom.expr, atom.divisor)) == coef * atom.divisor:
            return div, atom, coef
    return None


def _atom_bounds(atom: Atom, bounds: Bounds) -> tuple[int, int] | None:
    if isinstance(atom, Var):
        return bounds(atom.value)
    if isinstance(atom, Mod):
        inner = atom.expr.bounds(bounds)
        if inner is not None and inner[0] >= 0:
            return 0, min(inner[1], atom.divisor - 1)
        return 0, atom.divisor - 1
    inner = atom.expr.bounds(bounds)
    if inner is None:
        return None
    return inner[0] // atom.divisor, inner[1] // atom.divisor


def _substitute_atom(atom: Atom, mapping: Mapping[SSAValue, Expr], bounds: Bounds) -> Expr:
    if isinstance(atom, Var):
        return mapping.get(atom.value, Expr(((atom, 1),)))
    inner = atom.expr.substitute(mapping, bounds)
    if isinstance(atom, Div):
        return inner.floordiv(atom.divisor, bounds)
    return inner.mod(atom.divisor, bounds)


def _evaluate_atom(atom: Atom, env: Mapping[SSAValue, int]) -> int:
    if isinstance(atom, Var):
        return env[atom.value]
    inner = atom.expr.evaluate(env)
    if isinstance(atom, Div):
        return inner // atom.divisor
    return inner % atom.divisor


# AffineMap storage ------------------------------------------------------------


def collect_operands(exprs: Iterable[Expr]) -> list[SSAValue]:
    seen: dict[Var, None] = {}
    for e in exprs:
        for v in e.variables():
            seen[Var(v)] = None
    return [v.value for v in seen]


def to_affine(expr: Expr, dims: Mapping[Var, int]) -> AffineExpr:
    result: AffineExpr = AffineExpr.constant(expr.const)
    first = True
    for atom, coef in expr.terms:
        term = _atom_to_affine(atom, dims)
        if coef != 1:
            term = term * coef
        result = term if first and expr.const == 0 else result + term
        first = False
    return result


def _atom_to_affine(atom: Atom, dims: Mapping[Var, int]) -> AffineExpr:
    if isinstance(atom, Var):
        return AffineExpr.dimension(dims[atom])
    inner = to_affine(atom.expr, dims)
    if isinstance(atom, Div):
        return inner // atom.divisor
    return inner % atom.divisor


def to_affine_map(exprs: Sequence[Expr]) -> tuple[AffineMapAttr, list[SSAValue]]:
    """Store expressions as a map over their variables (the op's operands)."""
    operands = collect_operands(exprs)
    dims = {Var(v): i for i, v in enumerate(operands)}
    results = tuple(to_affine(e, dims) for e in exprs)
    return AffineMapAttr(AffineMap(len(operands), 0, results)), operands


def from_affine(expr: AffineExpr, operands: Sequence[SSAValue]) -> Expr:
    if isinstance(expr, AffineConstantExpr):
        return Expr((), expr.value)
    if isinstance(expr, AffineDimExpr):
        return Expr.var(operands[expr.position])
    if not isinstance(expr, AffineBinaryOpExpr):
        raise ValueError(f"unsupported affine expression {expr}")
    lhs = from_affine(expr.lhs, operands)
    rhs = from_affine(expr.rhs, operands)
    if expr.kind == AffineBinaryOpKind.Add:
        return lhs + rhs
    if not rhs.is_const:
        raise ValueError(f"non-affine expression {expr}")
    if expr.kind == AffineBinaryOpKind.Mul:
        return lhs * rhs.const
    if expr.kind == AffineBinaryOpKind.FloorDiv:
        return lhs.floordiv(rhs.const)
    if expr.kind == AffineBinaryOpKind.Mod:
        return lhs.mod(rhs.const)
    return (lhs + (rhs.const - 1)).floordiv(rhs.const)  # CeilDiv


def from_affine_map(attr: AffineMapAttr, operands: Sequence[SSAValue]) -> list[Expr]:
    return [from_affine(e, operands) for e in attr.data.results]


def decoded_map(op: Operation, key: str, attr: AffineMapAttr, operands: Sequence[SSAValue]) -> list[Expr]:
    """`from_affine_map`, kept on `op` under `key` while its map and operands stay the same objects:
    analyses and verifiers ask for bindings and indices again and again (decoding was a tenth of
    applying a schedule). Exprs are immutable, so the kept ones are handed out."""
    kept = op.__dict__.setdefault("_xtir_decoded", {})
    found = kept.get(key)
    if found is not None and found[0] is attr and len(found[1]) == len(operands) and all(
            a is b for a, b in zip(found[1], operands)):
        return list(found[2])
    exprs = from_affine_map(attr, operands)
    kept[key] = (attr, tuple(operands), tuple(exprs))
    return exprs


# Custom syntax ----------------------------------------------------------------


def print_expr(printer: Printer, expr: Expr) -> None:
    if not expr.terms:
        printer.print_string(str(expr.const))
        return
    for k, (atom, coef) in enumerate(expr.terms):
        if k > 0:
            printer.print_string(" - " if coef < 0 else " + ")
            coef = abs(coef)
        elif coef == -1:
            # `-e mod c` would read back as `(-e) mod c`: a negated floordiv or mod keeps its parentheses
            negated_div_mod = not isinstance(atom, Var)
            printer.print_string("-(" if negated_div_mod else "-")
            _print_atom(printer, atom)
            printer.print_string(")" if negated_div_mod else "")
            continue
        _print_atom(printer, atom)
        if coef != 1:
            printer.print_string(f" * {coef}")
    if expr.const:
        printer.print_string(f" - {-expr.const}" if expr.const < 0 else f" + {expr.const}")


def _print_atom(printer: Printer, atom: Atom) -> None:
    if isinstance(atom, Var):
        printer.print_ssa_value(atom.value)
        return
    keyword = "floordiv" if isinstance(atom, Div) else "mod"
    inner_simple = atom.expr.as_var() is not None
    if not inner_simple:
        printer.print_string("(")
    print_expr(printer, atom.expr)
    if not inner_simple:
        printer.print_string(")")
    printer.print_string(f" {keyword} {atom.divisor}")


def parse_expr(parser: Parser) -> Expr:
    """expr ::= term (('+' | '-') term)*"""
    result = _parse_term(parser)
    while True:
        if parser.parse_optional_punctuation("+") is not None:
            result = result + _parse_term(parser)
        elif parser.parse_optional_punctuation("-") is not None:
            result = result - _parse_term(parser)
        else:
            return result


def _parse_term(parser: Parser) -> Expr:
    """term ::= factor (('*' | 'floordiv' | 'mod') integer)*"""
    result = _parse_factor(parser)
    while True:
        start = parser.pos
        if parser.parse_optional_punctuation("*") is not None:
            rhs = _parse_factor(parser)
            if rhs.is_const:
                result = result * rhs.const
            elif result.is_const:
                result = rhs * result.const
            else:
                parser.raise_error(
                    "index expression is not affine: a product of two variables", start, parser.pos
                )
        elif (kw := parser.parse_optional_keyword_in(("floordiv", "mod"))) is not None:
            rhs = _parse_factor(parser)
            if not rhs.is_const or rhs.const <= 0:
                parser.raise_error(
                    f"index expression is not affine: '{kw}' needs a positive integer constant",
                    start,
                    parser.pos,
                )
            result = result.floordiv(rhs.const) if kw == "floordiv" else result.mod(rhs.const)
        else:
            return result


def _parse_factor(parser: Parser) -> Expr:
    """factor ::= integer | '%'value | '-' factor | '(' expr ')'"""
    if (value := parser.parse_optional_integer(allow_boolean=False, allow_negative=False)) is not None:
        return Expr((), value)
    if parser.parse_optional_punctuation("-") is not None:
        return -_parse_factor(parser)
    if parser.parse_optional_punctuation("(") is not None:
        inner = parse_expr(parser)
        parser.parse_punctuation(")")
        return inner
    start = parser.pos
    operand = parser.parse_optional_unresolved_operand()
    if operand is None:
        parser.raise_error("expected an index expression (integer, %value or parenthesis)")
    if operand.operand_name not in parser.ssa_values:
        # Index values are loop variables and block iteration variables, always defined
        # before their uses; a forward reference here is a value used out of its scope.
        parser.raise_error(
            f"use of undefined value %{operand.operand_name}: an index expression may only use "
            "variables of the loops and blocks around it (an iteration variable is visible only "
            "inside its block)",
            operand.span,
        )
    value = parser.resolve_operand(operand, IndexType())
    if not isinstance(value.type, IndexType):
        parser.raise_error("index expressions use values of type index", start, parser.pos)
    return Expr.var(value)


def parse_expr_list(parser: Parser, delimiter: Parser.Delimiter) -> list[Expr]:
    return parser.parse_comma_separated_list(delimiter, lambda: parse_expr(parser))


def print_expr_list(printer: Printer, exprs: Sequence[Expr], open_: str, close: str) -> None:
    printer.print_string(open_)
    printer.print_list(exprs, lambda e: print_expr(printer, e))
    printer.print_string(close)
