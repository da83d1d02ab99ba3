"""tensorize and the tensor intrinsic registry: numerics of tensorized programs (the
evaluator runs accel ops and inlined block-dialect implementations), registering
intrinsics from Python and from IR files, and the registry's and the pass's refusals.

The registry is process-global: intrinsics registered here get names unique to the
test (`unique_name`), and the user intrinsics file is registered with override=True.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func

import xtir
from xtir import intrinsics
from xtir.context import make_context
from xtir.errors import XtirError, XtirPassError
from xtir.passes.tensorize import TensorizePass

ROOT = Path(__file__).resolve().parent.parent
USER_INTRINSICS = ROOT / "tests" / "filecheck" / "passes" / "Inputs" / "user_intrinsics.mlir"
XTIR_OPT = Path(sys.executable).parent / "xtir-opt"

_counter = itertools.count()


def unique_name(base: str) -> str:
    return f"{base}_{next(_counter)}"


def functions(text: str) -> dict[str, func.FuncOp]:
    module = xtir.parse(text)
    return {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}


def rng_arrays(*shapes: tuple[int, ...], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape, dtype=np.float32) for shape in shapes]


# The seed walkthrough (seed_walkthrough.mlir), scaled from 1024 to 32 -----------------

SEED = (
    "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
    "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},blockize{loop=i_1},"
    'cache-read{block=matmul_o index=0 scope="global.A_reg"},cache-read{block=matmul_o index=1 scope="global.B_reg"},'
    'compute-at{block="A_global.A_reg" loop=k_0},compute-at{block="B_global.B_reg" loop=k_0},'
    'cache-write{block=matmul_o index=0 scope="global.accumulator"},'
    'reverse-compute-at{block="C_global.accumulator" loop=j_0},decompose-reduction{block=matmul_o loop=k_0}'
)
TENSORIZE = SEED + ",tensorize{block=matmul_o_update intrin=tmm16}"
ACCEL = (
    TENSORIZE + ",tensorize{block=matmul_o_init intrin=fill_zero16},"
    'tensorize{loop="A_global.A_reg/ax0" intrin=dma_copy16},tensorize{loop="B_global.B_reg/ax0" intrin=dma_copy16},'
    'tensorize{loop="C_global.accumulator/ax0" intrin=dma_copy16}'
)
# The same computation with top-level caches and every step a tensorize{loop=...}
# (@caches in tensorize.mlir).
CACHES_BY_LOOP = (
    'cache-read{block=matmul index=0 scope="global.A_reg"},cache-read{block=matmul index=1 scope="global.B_reg"},'
    'cache-write{block=matmul index=0 scope="global.accumulator"},'
    "split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
    "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},decompose-reduction{block=matmul loop=k_0},"
    "tensorize{loop=i_1_init intrin=fill_zero16},tensorize{loop=i_1 intrin=tmm16},"
    'split{loop="A_global.A_reg/ax0" factors=-1,16},split{loop="A_global.A_reg/ax1" factors=-1,16},'
    "reorder{loops=ax0_0,ax1_0,ax0_1,ax1_1},tensorize{loop=ax0_1 intrin=dma_copy16},"
    'split{loop="B_global.B_reg/ax0" factors=-1,16},split{loop="B_global.B_reg/ax1" factors=-1,16},'
    'reorder{loops="B_global.B_reg/ax0_0","B_global.B_reg/ax1_0",ax0_1,ax1_1},tensorize{loop=ax0_1 intrin=dma_copy16},'
    'split{loop="C_global.accumulator/ax0" factors=-1,16},split{loop="C_global.accumulator/ax1" factors=-1,16},'
    'reorder{loops="C_global.accumulator/ax0_0","C_global.accumulator/ax1_0",ax0_1,ax1_1},'
    "tensorize{loop=ax0_1 intrin=dma_copy16}"
)


def check_matmul(module, n: int) -> None:
    a, b = rng_arrays((n, n), (n, n))
    c = np.full((n, n), np.nan, dtype=np.float32)
    xtir.evaluate(module, a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "pipeline,accel_ops",
    [(TENSORIZE, {"accel.tmm16"}), (ACCEL, {"accel.tmm16", "accel.fill_zero", "accel.dma_copy"}),
     (CACHES_BY_LOOP, {"accel.tmm16", "accel.fill_zero", "accel.dma_copy"})],
    ids=["tensorize", "accel", "caches_by_loop"],
)
def test_tensorized_matmul_matches_numpy(scaled, pipeline: str, accel_ops: set[str]) -> None:
    module = xtir.transform(scaled("matmul", {"1024": "32"}), pipeline)
    names = {op.name for op in module.walk()}
    assert accel_ops <= names
    if pipeline != TENSORIZE:
        # every store and load became an accel op
        assert not names & {"block.load", "block.store"}
    check_matmul(module, 32)


# Intrinsics registered from Python ---------------------------------------------------

# C[i] += sum_k A[i, k] on 4x4 tiles; the implementation runs k outermost.
ROW_SUM4 = """
func.func @desc(%A: memref<4x4xf32, "*">, %C: memref<4xf32, "*">) {
  block.for %i = 0 to 4 "i" {
    block.for %k = 0 to 4 "k" {
      block.block "row_sum4"(%vi = spatial(4, %i), %vk = reduce(4, %k)) {
        %c = block.load %C[%vi] : memref<4xf32, "*">
        %a = block.load %A[%vi, %vk] : memref<4x4xf32, "*">
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32, "*">
      }
    }
  }
  func.return
}
func.func @impl(%A: memref<4x4xf32, "*">, %C: memref<4xf32, "*">) {
  block.for %k = 0 to 4 "kk" {
    block.for %i = 0 to 4 "ii" vectorized {
      block.block "row_sum4_lanes"(%vi = spatial(4, %i), %vk = reduce(4, %k)) {
        %c = block.load %C[%vi] : memref<4xf32, "*">
        %a = block.load %A[%vi, %vk] : memref<4x4xf32, "*">
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<4xf32, "*">
      }
    }
  }
  func.return
}
"""

ROW_SUMS = """
func.func @main(%A: memref<8x12xf32>, %C: memref<8xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %k = 0 to 12 "k" {
      block.block "sum"(%vi = spatial(8, %i), %vk = reduce(12, %k)) {
        block.init {
          %zero = arith.constant 0.000000e+00 : f32
          block.store %zero, %C[%vi] : memref<8xf32>
        }
        %c = block.load %C[%vi] : memref<8xf32>
        %a = block.load %A[%vi, %vk] : memref<8x12xf32>
        %s = arith.addf %c, %a : f32
        block.store %s, %C[%vi] : memref<8xf32>
      }
    }
  }
  func.return
}
"""


def row_sum_pipeline(intrin: str) -> str:
    return ("split{loop=i factors=-1,4},split{loop=k factors=-1,4},reorder{loops=i_0,k_0,i_1,k_1},"
            f"decompose-reduction{{block=sum loop=k_0}},tensorize{{loop=i_1 intrin={intrin}}}")


def test_register_from_python_and_tensorize() -> None:
    name = unique_name("row_sum4")
    fs = functions(ROW_SUM4)
    intrin = intrinsics.register(name, fs["desc"], fs["impl"])
    assert intrin.name == name
    assert name in intrinsics.registered()
    assert intrinsics.get(name) is intrin
    # the registry holds copies
    assert intrin.desc is not fs["desc"] and intrin.impl is not fs["impl"]

    module = xtir.transform(xtir.parse(ROW_SUMS), row_sum_pipeline(name))
    text = str(module)
    assert '"row_sum4_lanes"' in text and '"ii" vectorized' in text
    assert re.search(r"%A\[%vi_o \* 4 \+ %vi\w*, %vk_o \* 4 \+ %vk\]", text)  # the tile offset is added
    (a,) = rng_arrays((8, 12))
    c = np.full((8,), np.nan, dtype=np.float32)
    xtir.evaluate(module, a, c)
    np.testing.assert_allclose(c, a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_register_file_from_python_and_tensorize() -> None:
    assert intrinsics.register_file(USER_INTRINSICS, override=True) == ["vadd4x4", "copy8"]
    add = xtir.parse("""
func.func @main(%A: memref<8x12xf32>, %B: memref<8x12xf32>, %C: memref<8x12xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 12 "j" {
      block.block "add"(%vi = spatial(8, %i), %vj = spatial(12, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x12xf32>
        %b = block.load %B[%vi, %vj] : memref<8x12xf32>
        %s = arith.addf %a, %b : f32
        block.store %s, %C[%vi, %vj] : memref<8x12xf32>
      }
    }
  }
  func.return
}
""")
    tiles = "split{loop=i factors=-1,4},split{loop=j factors=-1,4},reorder{loops=i_0,j_0,i_1,j_1}"
    module = xtir.transform(add, tiles + ",tensorize{loop=i_1 intrin=vadd4x4}")
    assert '"vadd4x4_row"' in str(module)
    a, b = rng_arrays((8, 12), (8, 12))
    c = np.full((8, 12), np.nan, dtype=np.float32)
    xtir.evaluate(module, a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)
    # copy8 is 8 wide: the 4-wide j_1 nest does not match
    with pytest.raises(XtirPassError, match='loop "j_1" has extent 4 where the intrinsic\'s loop "i" has 8'):
        xtir.transform(add, tiles + ",tensorize{loop=j_1 intrin=copy8}")

    twice = xtir.parse("""
func.func @main(%A: memref<32xf32>, %B: memref<32xf32>) {
  block.for %i = 0 to 32 "i" {
    block.block "twice"(%vi = spatial(32, %i)) {
      %a = block.load %A[%vi] : memref<32xf32>
      %s = arith.addf %a, %a : f32
      block.store %s, %B[%vi] : memref<32xf32>
    }
  }
  func.return
}
""")
    module = xtir.transform(twice, 'cache-read{block=twice index=0 scope="shared"},split{loop=ax0 factors=-1,8},'
                                   "tensorize{loop=ax0_1 intrin=copy8}")
    assert '"copy8_lanes"' in str(module)
    (a,) = rng_arrays((32,))
    b = np.full((32,), np.nan, dtype=np.float32)
    xtir.evaluate(module, a, b)
    np.testing.assert_allclose(b, a + a, rtol=1e-6)


def test_duplicate_registration() -> None:
    name = unique_name("dup")
    fs = functions(ROW_SUM4)
    first = intrinsics.register(name, fs["desc"], fs["impl"])
    with pytest.raises(XtirError, match=f'tensor intrinsic "{name}" is already registered '
                                        r"\(pass override=True to replace it\)"):
        intrinsics.register(name, fs["desc"], fs["impl"])
    assert intrinsics.get(name) is first
    second = intrinsics.register(name, fs["desc"], fs["impl"], override=True)
    assert intrinsics.get(name) is second


def test_duplicate_builtin_registration() -> None:
    intrinsics.registered()  # the builtins are loaded
    with pytest.raises(XtirError, match='tensor intrinsic "tmm16" is already registered'):
        intrinsics.register_file(ROOT / "examples" / "tmm16_intrin.mlir")


def test_mismatched_signatures() -> None:
    fs = functions(ROW_SUM4 + """
func.func @impl_other(%A: memref<4x4xf32, "*">, %C: memref<4xf32, "local">) {
  func.return
}
""")
    name = unique_name("mismatch")
    with pytest.raises(XtirError) as info:
        intrinsics.register(name, fs["desc"], fs["impl_other"])
    assert str(info.value) == (
        f'tensor intrinsic "{name}": the description takes (memref<4x4xf32, "*">, memref<4xf32, "*">) '
        'but the implementation takes (memref<4x4xf32, "*">, memref<4xf32, "local">); they must match')
    assert name not in intrinsics.registered()


def test_register_module_without_pairs() -> None:
    module = xtir.parse(ROW_SUMS)
    with pytest.raises(XtirError, match="no tensor intrinsics found: define them as @NAME_desc and @NAME_impl"):
        intrinsics.register_module(module)


def test_register_module_desc_without_impl() -> None:
    name = unique_name("lonely")
    module = xtir.parse(ROW_SUM4.replace("@desc", f"@{name}_desc"))
    with pytest.raises(XtirError, match=f"tensor intrinsic\\(s\\) {name}: a @NAME_desc function needs a @NAME_impl"):
        intrinsics.register_module(module)
    assert name not in intrinsics.registered()


def test_get_unknown_lists_registered() -> None:
    name = unique_name("listed")
    fs = functions(ROW_SUM4)
    intrinsics.register(name, fs["desc"], fs["impl"])
    with pytest.raises(XtirPassError) as info:
        intrinsics.get("nope")
    message = str(info.value)
    assert message.startswith('tensor intrinsic "nope" is not registered; registered: ')
    listed = message.split("registered: ")[-1].split(", ")
    assert {"tmm16", "fill_zero16", "dma_copy16", name} <= set(listed)
    assert listed == sorted(listed)


def test_unknown_intrinsic_in_pipeline() -> None:
    with pytest.raises(XtirPassError, match='tensor intrinsic "nope" is not registered'):
        xtir.transform(xtir.parse(ROW_SUMS), "tensorize{block=sum intrin=nope}")


# A refused tensorize leaves the IR as it was ------------------------------------------

@pytest.mark.parametrize(
    "schedule,options,message",
    [
        # the blockized loop would carry the init: refused on the probe copy before
        # blockizing the real loop
        ("split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
         "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1}",
         {"loop": "i_1", "intrin": "tmm16"}, 'block "matmul_o" has an init'),
        # decomposed, but the tiles are still in "global"
        ("split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
         "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},decompose-reduction{block=matmul loop=k_0}",
         {"loop": "i_1", "intrin": "tmm16"}, 'C is in scope "global"'),
        ("split{loop=i factors=-1,16},split{loop=j factors=-1,16},split{loop=k factors=-1,16},"
         "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},decompose-reduction{block=matmul loop=k_0}",
         {"loop": "i_1_init", "intrin": "fill_zero16"}, 'C is in scope "global"'),
        # the tile is 8 wide
        ("split{loop=i factors=-1,8},split{loop=j factors=-1,8},split{loop=k factors=-1,8},"
         "reorder{loops=i_0,j_0,k_0,i_1,j_1,k_1},decompose-reduction{block=matmul loop=k_0}",
         {"loop": "i_1", "intrin": "tmm16"}, 'loop "i_1" has extent 8'),
        ("", {"block": "matmul", "intrin": "tmm16"}, 'block "matmul" has an init'),
        ("", {"loop": "i", "block": "matmul", "intrin": "tmm16"}, "got both block= and loop=; give one"),
        ("", {"loop": "i", "intrin": "nope"}, 'tensor intrinsic "nope" is not registered'),
    ],
    ids=["loop_with_init", "loop_scope", "loop_init_scope", "loop_extent", "block_with_init", "both", "unknown"],
)
def test_refused_tensorize_leaves_ir_unchanged(scaled, schedule: str, options: dict[str, str], message: str) -> None:
    module = scaled("matmul", {"1024": "32"})
    if schedule:
        module = xtir.transform(module, schedule)
    before = str(module)
    with pytest.raises(XtirPassError, match=message):
        TensorizePass(**options).apply(make_context(), module)
    assert str(module) == before


def test_transform_leaves_input_untouched_on_refusal(scaled) -> None:
    module = scaled("matmul", {"1024": "32"})
    before = str(module)
    with pytest.raises(XtirPassError, match='block "matmul" has an init'):
        xtir.transform(module, "tensorize{block=matmul intrin=tmm16}")
    assert str(module) == before


# xtir-opt --intrinsics ---------------------------------------------------------------

def run_opt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(XTIR_OPT), *args], capture_output=True, text=True, cwd=ROOT)


def test_opt_missing_intrinsics_file(tmp_path: Path) -> None:
    result = run_opt(str(ROOT / "examples" / "matmul.mlir"), f"--intrinsics={tmp_path / 'missing.mlir'}")
    assert result.returncode == 1
    assert result.stderr.startswith("xtir-opt: error:")
    assert "missing.mlir" in result.stderr
    assert result.stdout == ""


def test_opt_intrinsics_file_without_pairs() -> None:
    result = run_opt(str(ROOT / "examples" / "matmul.mlir"), f"--intrinsics={ROOT / 'examples' / 'matmul.mlir'}")
    assert result.returncode == 1
    assert result.stderr.startswith("xtir-opt: error: no tensor intrinsics found")


def test_opt_intrinsics_file() -> None:
    result = run_opt(
        str(USER_INTRINSICS),
        f"--intrinsics={USER_INTRINSICS}", f"--intrinsics={ROOT / 'examples' / 'tmm16_intrin.mlir'}",
    )
    # the file registers (tmm16 is replaced by the identical example) and prints back
    assert result.returncode == 0, result.stderr
    assert "func.func @vadd4x4_desc" in result.stdout



def test_translate_takes_intrinsics_files_as_opt_does() -> None:
    """A schedule tensorized with a user intrinsic translates (xtir-translate --intrinsics)."""
    pipeline = ("split{func=add loop=i factors=-1,4},split{func=add loop=j factors=-1,4},"
                "reorder{func=add loops=i_0,j_0,i_1,j_1},tensorize{func=add loop=i_1 intrin=vadd4x4}")
    source = ROOT / "tests" / "filecheck" / "passes" / "tensorize.mlir"
    result = subprocess.run([str(XTIR_OPT.with_name("xtir-translate")), str(source),
                             "--entry", "add", "--target", "llvm", f"--intrinsics={USER_INTRINSICS}", "-p", pipeline],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert 'define void @"xtir.add"' in result.stdout

# Registry order and argument checks --------------------------------------------------

def test_builtin_name_taken_before_builtins_load() -> None:
    """In a fresh process, registering a builtin's name first is a duplicate, not replaced later."""
    code = f"""
import xtir
from xtir import intrinsics
from xtir.errors import XtirError
fs = {{op.sym_name.data: op for op in xtir.parse_file({str(USER_INTRINSICS)!r}).ops}}
try:
    intrinsics.register("fill_zero16", fs["copy8_desc"], fs["copy8_impl"])
except XtirError:
    print("refused")
else:
    print("kept" if intrinsics.get("fill_zero16").desc.sym_name.data == "copy8_desc" else "replaced")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "refused", result.stdout


def test_user_tmm16_keeps_other_builtins() -> None:
    """A file that redefines tmm16 leaves fill_zero16 and dma_copy16 registered."""
    result = run_opt(str(ROOT / "examples" / "matmul.mlir"), f"--intrinsics={ROOT / 'examples' / 'tmm16_intrin.mlir'}",
                     "-p", "tensorize{block=matmul intrin=fill_zero16}")
    assert 'does not match tensor intrinsic "fill_zero16"' in result.stderr, result.stderr


def test_impl_uses_argument_unused_by_description() -> None:
    """tensorize could not tell which buffer such an argument is: refused at registration."""
    name = unique_name("unused_arg")
    fs = functions("""
func.func @desc(%dst: memref<4xf32, "*">, %src: memref<4xf32, "*">, %extra: memref<4xf32, "*">) {
  block.for %i = 0 to 4 "i" {
    block.block "cp4"(%vi = spatial(4, %i)) {
      %x = block.load %src[%vi] : memref<4xf32, "*">
      block.store %x, %dst[%vi] : memref<4xf32, "*">
    }
  }
  func.return
}
func.func @impl(%dst: memref<4xf32, "*">, %src: memref<4xf32, "*">, %extra: memref<4xf32, "*">) {
  block.for %i = 0 to 4 "i" {
    block.block "cp4_impl"(%vi = spatial(4, %i)) {
      %x = block.load %extra[%vi] : memref<4xf32, "*">
      block.store %x, %dst[%vi] : memref<4xf32, "*">
    }
  }
  func.return
}
""")
    with pytest.raises(XtirError, match="the implementation uses argument %extra, which the description never"):
        intrinsics.register(name, fs["desc"], fs["impl"])
