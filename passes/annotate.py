"""annotate{loop=L key=K value=V} or annotate{block=B key=K value=V} (TVM's annotate).

Sets the annotation K of loop L or block B to V, replacing an earlier value of K.
Annotations are hints for later passes and code generation (`pragma_unroll_explicit`,
`software_pipeline_stage`, `meta_schedule.cooperative_fetch`, ...); they do not
change what the program computes. An integer value is stored as an i64, `true` and
`false` as i1, anything else (quoted values included: `value="4"`) as a string.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import BoolAttr, DictionaryAttr, IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute

from xtir.dialects.block import BlockOp, ForOp
from xtir.dialects.expr import INT64_MAX, fits_int64
from xtir.passes.analysis.navigation import get_block, get_loop
from xtir.passes.schedule_pass import SchedulePass
from xtir.support.errors import ScheduleError


def annotation_value(value: int | str) -> Attribute:
    if isinstance(value, bool):  # before int: bool is an int subclass
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    return StringAttr(value)


def annotate(target: ForOp | BlockOp, key: str, value: int | str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and not fits_int64(value):
        raise ScheduleError(target, f"annotation {key} = {value} does not fit in 64 bits (at most {INT64_MAX})")
    target.properties["annotations"] = DictionaryAttr(target.annotations | {key: annotation_value(value)})


@dataclass(frozen=True, kw_only=True)
class AnnotatePass(SchedulePass):
    name = "annotate"

    loop: str | None = None
    block: str | None = None
    key: str
    value: int | str

    def run(self, f: func.FuncOp) -> None:
        if (self.loop is None) == (self.block is None):
            given = "both loop= and block=" if self.loop is not None else "neither loop= nor block="
            raise ScheduleError(f, f"give exactly one of loop=NAME or block=NAME, got {given}")
        if self.loop is not None:
            annotate(get_loop(f, self.loop), self.key, self.value)
        else:
            assert self.block is not None
            annotate(get_block(f, self.block), self.key, self.value)
