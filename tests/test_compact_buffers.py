"""compact-buffers' reading of init guards (lowering/compact_buffers.py `_zeroed`)."""

from __future__ import annotations

from xdsl.dialects import arith

import xtir
from xtir.lowering.compact_buffers import _zeroed

GUARD = """
func.func @f() {
  block.for %k0 = 0 to 4 "k0" {
    block.for %k1 = 0 to 4 "k1" {
      %c0 = arith.constant 0 : index
      %p = arith.muli %k0, %k1 : index
      %first = arith.cmpi eq, %k0, %c0 : index
      %other = arith.cmpi eq, %p, %c0 : index
      %guard = arith.andi %first, %other : i1
    }
  }
  func.return
}
"""


def test_an_unreadable_conjunct_leaves_the_others() -> None:
    """`k0 == 0 and k0 * k1 == 0`: the product is no index expression, yet k0 is 0 wherever the guard
    holds (it used to give no variable at all)."""
    module = xtir.parse(GUARD)
    (guard,) = [op for op in module.walk() if isinstance(op, arith.AndIOp)]
    k0 = guard.lhs.owner.lhs
    assert _zeroed(guard.result) == {k0}
