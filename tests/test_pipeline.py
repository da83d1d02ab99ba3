"""The pipeline driver (xtir/pipeline.py): one way to build, apply and describe passes."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp

import xtir
from xtir import te
from xtir.errors import LoweringError, ScheduleError
from xtir.pipeline import build_pass, parse_pipeline, spec_text

PROGRAM = """\
func.func @main(%X: memref<8xf32>, %C: memref<8xf32>) {
  %B = block.alloc : memref<8xf32>
  block.for %j = 0 to 8 "j" {
    block.block "B"(%vi = spatial(8, %j)) {
      %x = block.load %X[%vi] : memref<8xf32>
      block.store %x, %B[%vi] : memref<8xf32>
    }
  }
  block.for %i = 0 to 8 "i" {
    block.block "C"(%vi = spatial(8, %i)) {
      %b = block.load %B[%vi] : memref<8xf32>
      block.store %b, %C[%vi] : memref<8xf32>
    }
    block.block "W"(%vi = spatial(8, %i)) {
      %zero = arith.constant 0.000000e+00 : f32
      block.store %zero, %X[%vi] : memref<8xf32>
    }
  }
  func.return
}
"""


def test_schedule_error_names_the_pass_and_keeps_its_notes_as_data() -> None:
    sch = xtir.Schedule(xtir.parse(PROGRAM, "t.mlir"))
    with pytest.raises(xtir.XtirPassError) as info:
        sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0])
    error = info.value
    assert error.message.startswith("'block.block' op compute-at: block \"W\" writes X, which block \"B\" reads")
    assert (error.location.file, error.location.line) == ("t.mlir", 14)
    [note] = error.notes
    assert (note.severity, note.message, note.location.line) == ("note", 'block "B" reads X', 4)
    lines = str(error).splitlines()
    assert lines[0] == "An error occurred in the schedule primitive 'compute-at'."  # TVM's headline
    assert lines[4] == 't.mlir:4:5: note: block "B" reads X'  # after the error's source line and caret


def test_option_errors_say_where_in_the_pipeline() -> None:
    module = xtir.parse(PROGRAM)
    with pytest.raises(xtir.XtirPassError, match=r'reorder requires argument "loops" \(pass 2 of 3 in the pipeline\)'):
        xtir.transform(module, "split{loop=i factors=-1,4},reorder,unroll{loop=j}")
    with pytest.raises(xtir.XtirPassError, match=r"unknown pass 'spilt' \(pass 1 of 1 in the pipeline\)"):
        xtir.transform(module, "spilt{loop=i}")


@pytest.mark.parametrize("pipeline, message", [
    ("split{loop=i factors=a,4}", "split: option 'factors' takes integers (F0,F1,...), got a,4 (pass 1 of 1"),
    ("split{loop=i factors=i}", "split: one of options 'loop', 'factors' takes integers (F0,F1,...), got i"),
    ("compute-at{block=B loop=i preserve_unit_loops=maybe}",
     "compute-at: option 'preserve_unit_loops' takes true or false, got maybe"),
    ("cache-read{block=B index=first scope=local}", "cache-read: option 'index' takes an integer, got first"),
    ("annotate{loop=i key=k value=1,2}", "annotate: option 'value' takes an integer or a string, got 1,2"),
    ("bind{loop=i thread=threadIdx.x}", 'note: an option value holding a dot is quoted: thread="threadIdx.x"'),
    ("split{loop=i factors=-1,2},split{loop=i_0 factors=-1,2 loop=i_1}", "option 'loop' is given twice to pass 'split'"),
])
def test_option_value_errors_name_the_option_and_say_what_it_takes(pipeline: str, message: str) -> None:
    with pytest.raises(xtir.XtirPassError) as error:
        xtir.transform(xtir.parse(PROGRAM), pipeline)
    assert message in str(error.value)


@pytest.mark.parametrize("name, options", [
    ("split", {"loop": "i", "factors": (-1, 16), "func": "main"}),
    ("annotate", {"block": "B", "key": "has space", "value": 'say "hi"\\\n'}),
    ("annotate", {"loop": "A_global.A_reg/ax0", "key": "k", "value": True}),
    ("compute-at", {"block": "B", "loop": "i", "preserve_unit_loops": True}),
])
def test_spec_text_reads_back_as_the_same_pass(name: str, options: dict[str, object]) -> None:
    built = build_pass(name, options)
    assert parse_pipeline(spec_text(built)) == [built]


def test_a_lowering_refusal_names_the_stage_inside_a_named_pipeline() -> None:
    """lower-to-llvm runs check-llvm-target as a stage: the error names the stage, keeps the op's
    location and is the structured diagnostic the schedule primitives raise."""
    module = xtir.parse(PROGRAM.replace("f32", "bf16"), "t.mlir")
    with pytest.raises(LoweringError) as info:
        xtir.transform(module, "lower-to-llvm")
    error = info.value
    assert isinstance(error, ScheduleError)
    assert error.message.startswith("'func.func' op check-llvm-target: element type bf16 is not supported")
    assert (error.location.file, error.location.line) == ("t.mlir", 1)


def test_schedule_errors_show_the_source_line_of_a_parsed_module() -> None:
    """As xtir-opt does: the error's and each note's source line with a caret, from the text
    the module was parsed from (kept through the schedule's copies of the module)."""
    sch = xtir.Schedule(xtir.parse(PROGRAM, "t.mlir"))
    sch.split(sch.get_loops(sch.get_block("C"))[0], factors=[2, 4])  # the schedule works on a new copy now
    with pytest.raises(xtir.XtirPassError) as info:
        sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[1])
    assert str(info.value).splitlines()[2:4] == ['    block.block "W"(%vi = spatial(8, %i)) {', "    ^"]
    assert str(info.value).splitlines()[4:] == [
        't.mlir:4:5: note: block "B" reads X',
        '    block.block "B"(%vi = spatial(8, %j)) {',
        "    ^",
    ]
    with pytest.raises(xtir.XtirPassError) as info:
        xtir.transform(sch.mod, "compute-inline{block=C}")
    assert str(info.value).splitlines()[1:] == ['    block.block "C"(%vi = spatial(8, %i)) {', "    ^"]


def test_schedule_errors_on_a_built_module_show_the_op() -> None:
    """A module built in Python has no source: the error shows the op's first printed line."""
    x = te.placeholder((8,), "float32", "X")
    y = te.compute((8,), lambda i: x[i] * 2.0, name="Y")
    sch = xtir.Schedule(ModuleOp([te.create_func([x, y])]))
    with pytest.raises(xtir.XtirPassError) as info:
        sch.compute_inline(sch.get_block("Y"))
    assert info.value.location is None
    assert str(info.value).splitlines() == [
        "An error occurred in the schedule primitive 'compute-inline'.",
        "error: 'block.block' op compute-inline: block \"Y\" is an output block: it writes Y, an argument of function "
        '"main"; only a block writing an intermediate buffer (block.alloc) can be inlined',
        '  at: block.block "Y"(%vi = spatial(8, %i)) {',
    ]
