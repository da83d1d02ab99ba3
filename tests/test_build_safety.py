"""xtir.build and compiled calls never take the process down, and never touch memory they
should not (issue 17, items 8-14, 17, 21).

What used to crash runs in a child process (`isolated`), so that a regression fails the test
instead of killing pytest.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import xtir
from tests.test_build import matmul
from xtir.build import lower_to_llvm
from xtir.lowering.memref_to_llvm import STACK_BUDGET

ROOT = Path(__file__).resolve().parent.parent


def isolated(code: str, timeout: float = 600) -> str:
    """Run `code` in a new Python process (the repository on its path); its stdout. Fails the
    test, with what the process printed, unless it exits normally."""
    prelude = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)
    assert done.returncode == 0, f"exit status {done.returncode}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    return done.stdout


def scf_matmul(n: int, name: str = "main", parallel: bool = False) -> str:
    """C = A · Bᵀ as an scf loop nest in a function `name` (its i loop parallel on request)."""
    return matmul(n, "parallel" if parallel else None).replace("@main(", f"@{name}(")


# ----------------------------------------------------------------------------------------
# 9, 14: threads; engines own nothing shared


def test_builds_and_calls_in_many_threads_while_functions_are_freed() -> None:
    """Six threads build distinct programs (half with a parallel loop), call them, and drop
    them (the cache cleared, engines freed) while the others build and call. MCJIT engines
    used to share one TargetMachine, which the first engine freed took with it."""
    out = isolated("""
        import gc, threading
        import numpy as np, xtir
        from tests.test_build_safety import scf_matmul
        build_module = sys.modules["xtir.build"]
        errors = []

        def work(k):
            rng = np.random.default_rng(k)
            try:
                for r in range(4):
                    n = 5 + k + 7 * r
                    f = xtir.build(xtir.parse(scf_matmul(n, parallel=k % 2 == 1)))
                    a, b = rng.standard_normal((2, n, n), dtype=np.float32)
                    c = np.zeros((n, n), np.float32)
                    f(a, b, c)
                    if not np.allclose(c, a @ b.T, rtol=1e-4, atol=1e-4):
                        errors.append(f"wrong result for n={n}")
                    build_module._CACHE.clear()
                    del f
                    gc.collect()
            except Exception as e:
                errors.append(repr(e))

        threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(errors or "ok")
    """)
    assert out.strip() == "ok"


def test_implicit_builders_in_two_threads() -> None:
    """xDSL's ImplicitBuilder (which adds the terminator of a parsed scf.for, for one) swaps
    Operation.__post_init__ in and out; two threads inside at once (A enters, B enters, A
    leaves, B leaves) left a hook installed that the next ImplicitBuilder wrapped again, and
    its ops were inserted twice (ValueError while parsing or lowering in threads)."""
    out = isolated("""
        import threading, xtir
        from xdsl.builder import ImplicitBuilder
        from xdsl.dialects import arith
        from xdsl.ir import Block
        a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

        def a():
            with ImplicitBuilder(Block()):
                a_in.set()
                b_in.wait()
            a_out.set()

        def b():
            a_in.wait()
            with ImplicitBuilder(Block()):
                b_in.set()
                a_out.wait()

        threads = [threading.Thread(target=a), threading.Thread(target=b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        block = Block()
        with ImplicitBuilder(block):
            arith.ConstantOp.from_int_and_width(1, 32)
        print(len(block.ops))
    """)
    assert out.strip() == "1"


def test_a_freed_function_leaves_the_next_build_working() -> None:
    out = isolated("""
        import gc, numpy as np, xtir
        from tests.test_build_safety import scf_matmul
        f = xtir.build(xtir.parse(scf_matmul(4)))
        sys.modules["xtir.build"]._CACHE.clear()
        del f
        gc.collect()
        g = xtir.build(xtir.parse(scf_matmul(5)))
        a = np.ones((5, 5), np.float32)
        c = np.zeros((5, 5), np.float32)
        g(a, a.copy(), c)
        print(c[0, 0])
    """)
    assert out.strip() == "5.0"


# ----------------------------------------------------------------------------------------
# 10, 11: names


@pytest.mark.parametrize("name", ["fé", "a b", "9lives", 'q\\"uote', "new\\nline"])
def test_names_that_cannot_be_symbols_are_refused_and_the_next_build_works(name: str) -> None:
    """A non-ASCII name raised UnicodeEncodeError after the engine was made; freeing that
    engine freed the shared TargetMachine and the next build aborted the process."""
    out = isolated(f"""
        import numpy as np, xtir
        from tests.test_build_safety import scf_matmul
        text = scf_matmul(3).replace("@main", '@"' + {name!r} + '"')
        try:
            xtir.build(xtir.parse(text))
        except xtir.XtirError as e:
            print("refused:", str(e).splitlines()[0])
        f = xtir.build(xtir.parse(scf_matmul(3)))
        c = np.zeros((3, 3), np.float32)
        f(np.ones((3, 3), np.float32), np.ones((3, 3), np.float32), c)
        print("next build:", c[0, 0])
    """)
    assert "cannot be a symbol of machine code" in out, out
    assert "next build: 3.0" in out


def runtime_user(name: str) -> str:
    """A function that uses the runtime: a parallel loop (GOMP_parallel, omp_get_*), a scratch
    row per iteration too big for the stack budget (aligned_alloc, free), tanh (libm's tanhf),
    a copy loop (which LLVM may turn into memcpy)."""
    n = STACK_BUDGET // 4 + 16
    return f"""
func.func @{name}(%A: memref<4x{n}xf32>, %B: memref<4x{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cn = arith.constant {n} : index
  scf.for %i = %c0 to %c4 step %c1 {{
    %row = memref.alloca() : memref<{n}xf32>
    scf.for %j = %c0 to %cn step %c1 {{
      %a = memref.load %A[%i, %j] : memref<4x{n}xf32>
      %t = math.tanh %a : f32
      memref.store %t, %row[%j] : memref<{n}xf32>
    }} {{xtir.loop_name = "j"}}
    scf.for %j = %c0 to %cn step %c1 {{
      %t = memref.load %row[%j] : memref<{n}xf32>
      memref.store %t, %B[%i, %j] : memref<4x{n}xf32>
    }} {{xtir.loop_name = "j"}}
  }} {{xtir.loop_name = "i", xtir.loop_kind = "parallel"}}
  func.return
}}
"""


RUNTIME_NAMES = ["GOMP_parallel", "omp_get_thread_num", "omp_get_num_threads", "aligned_alloc", "free", "memcpy",
                 "memset", "tanhf", "xtir_tmm16", "main_i_parallel", "main_i_parallel_omp"]


def test_functions_named_like_runtime_symbols() -> None:
    """Each name used to collide with the runtime symbol (SIGSEGV, or an IndexError)."""
    out = isolated(f"""
        import numpy as np, xtir
        from tests.test_build_safety import runtime_user
        for name in {RUNTIME_NAMES!r}:
            f = xtir.build(xtir.parse(runtime_user(name)))
            a = np.random.default_rng(0).standard_normal(f.signature.function_type.inputs.data[0].get_shape(), dtype=np.float32)
            b = np.zeros_like(a)
            f(a, b)
            print(name, np.allclose(b, np.tanh(a), rtol=1e-5, atol=1e-6))
    """)
    assert out.split() == [w for name in RUNTIME_NAMES for w in (name, "True")]


def test_all_functions_of_the_module_are_mangled() -> None:
    text = runtime_user("free") + scf_matmul(4, name="memcpy")
    f = xtir.build(xtir.parse(text), entry="free")
    defined = re.findall(r'^define .*@"?([^"(]+)"?\(', f.llvm_ir, re.M)
    assert defined and all(d.startswith("xtir.") for d in defined), defined
    assert f.name == "free"


def test_microkernel_names_do_not_collide() -> None:
    """The seed's tensorized matmul in a function named like the micro-kernel, next to one named
    like the kernel's declaration at the scf level."""
    out = isolated("""
        import numpy as np, xtir
        from tests.test_build import seed_pipeline
        from tests.test_build_safety import scf_matmul
        text = open("examples/matmul.mlir").read().replace("1024", "32")
        tensorized = str(xtir.transform(xtir.parse(text), seed_pipeline())).rstrip().removesuffix("}")
        for name, other in (("xtir_tmm16", "xtir_tmm16_0"), ("xtir_tmm16_0", "xtir_tmm16")):
            module = xtir.parse(tensorized.replace("@main", "@" + name) + scf_matmul(2, name=other) + "}")
            f = xtir.build(module, entry=name)
            rng = np.random.default_rng(0)
            a, b = rng.standard_normal((2, 32, 32), dtype=np.float32)
            c = np.zeros((32, 32), np.float32)
            f(a, b, c)
            print(name, np.allclose(c, a @ b.T, rtol=1e-4, atol=1e-4))
    """)
    assert out.split() == ["xtir_tmm16", "True", "xtir_tmm16_0", "True"]


# ----------------------------------------------------------------------------------------
# 12: the stack


def many_scratch_buffers(sizes: list[int], parallel: bool) -> str:
    """B[o, k] = the sum of 2 * A[k, :sizes[k]], through a scratch buffer of sizes[k] floats for
    each k, all alive at once in each iteration of a loop o."""
    count, width = len(sizes), max(sizes)
    kind = ', xtir.loop_kind = "parallel"' if parallel else ""
    lines = [f"func.func @main(%A: memref<{count}x{width}xf32>, %B: memref<2x{count}xf32>) {{",
             "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index", "  %c2 = arith.constant 2 : index",
             "  %zero = arith.constant 0.0 : f32", "  %two = arith.constant 2.0 : f32",
             "  scf.for %o = %c0 to %c2 step %c1 {"]
    for k, n in enumerate(sizes):
        lines += [f"    %k{k} = arith.constant {k} : index",
                  f"    %n{k} = arith.constant {n} : index",
                  f"    %buf{k} = memref.alloca() : memref<{n}xf32>",
                  f"    scf.for %j = %c0 to %n{k} step %c1 {{",
                  f"      %a = memref.load %A[%k{k}, %j] : memref<{count}x{width}xf32>",
                  "      %d = arith.mulf %a, %two : f32",
                  f"      memref.store %d, %buf{k}[%j] : memref<{n}xf32>",
                  '    } {xtir.loop_name = "fill"}']
    for k, n in enumerate(sizes):
        lines += [f"    %s{k} = scf.for %j = %c0 to %n{k} step %c1 iter_args(%acc = %zero) -> (f32) {{",
                  f"      %v = memref.load %buf{k}[%j] : memref<{n}xf32>",
                  "      %t = arith.addf %acc, %v : f32",
                  "      scf.yield %t : f32",
                  '    } {xtir.loop_name = "sum"}',
                  f"    memref.store %s{k}, %B[%o, %k{k}] : memref<2x{count}xf32>"]
    lines += [f'  }} {{xtir.loop_name = "o"{kind}}}', "  func.return", "}"]
    return "\n".join(lines)


def stack_bytes(llvm_ir: str) -> list[int]:
    """The bytes of stack each function of the IR allocates for scratch buffers."""
    sizes = {"float": 4, "double": 8, "half": 2, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "i1": 1}
    totals = []
    for body in llvm_ir.split("\ndefine ")[1:]:
        found = re.findall(r"alloca (\w+), i64 (\d+)", body)
        totals.append(sum(sizes[t] * int(n) for t, n in found if t in sizes))
    return totals


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
def test_many_scratch_buffers_fit_the_stack_budget(parallel: bool) -> None:
    """40 buffers of 240 KB, each under the old per-buffer limit, took 9.6 MB of an 8 MiB
    stack (SIGSEGV); now a function's scratch buffers take at most STACK_BUDGET bytes of
    stack and the others come from the heap, freed on the way out."""
    out = isolated(f"""
        import numpy as np, xtir
        from tests.test_build_safety import many_scratch_buffers, stack_bytes
        f = xtir.build(xtir.parse(many_scratch_buffers([60_000] * 40, {parallel})))
        ir = f.llvm_ir
        print(max(stack_bytes(ir)), ir.count('call ccc ptr @"aligned_alloc"'), ir.count('call ccc void @"free"'))
        a = np.random.default_rng(0).standard_normal((40, 60_000), dtype=np.float32)
        b = np.zeros((2, 40), np.float32)
        f(a, b)
        want = (2 * a.astype(np.float64)).sum(axis=1)
        print(np.allclose(b, want, rtol=1e-3, atol=1e-2))
    """)
    stack, allocs, frees, right = out.split()
    assert int(stack) <= STACK_BUDGET
    # every heap buffer is freed at both returns: the early one after a NULL, and the normal one
    assert int(allocs) == 39 and int(frees) == 2 * 39
    assert right == "True"


def test_small_buffers_stay_on_the_stack_first() -> None:
    """The budget goes to the smallest buffers (register tiles), the big one to the heap."""
    f = xtir.build(xtir.parse(many_scratch_buffers([STACK_BUDGET // 4, 10, 12], False)))
    assert re.findall(r"alloca float, i64 (\d+)", f.llvm_ir) == ["12", "10"]
    assert f.llvm_ir.count('call ccc ptr @"aligned_alloc"') == 1
    assert f.llvm_ir.count('call ccc void @"free"') == 2  # at the early return after a NULL, and the normal one
    a = np.random.default_rng(0).standard_normal((3, STACK_BUDGET // 4), dtype=np.float32)
    b = np.zeros((2, 3), np.float32)
    f(a, b)
    want = [2 * a[k, :n].astype(np.float64).sum() for k, n in enumerate([STACK_BUDGET // 4, 10, 12])]
    np.testing.assert_allclose(b, [want, want], rtol=1e-4, atol=1e-3)


# ----------------------------------------------------------------------------------------
# 8: layouts


@pytest.mark.parametrize("layout", ["strided<[2]>", "strided<[1], offset: 3>", "affine_map<(d0) -> (d0 * 2)>"])
def test_parameters_with_a_layout_are_refused(layout: str) -> None:
    """The evaluator ignored the layout, the JIT honoured it and read past the numpy array."""
    text = f"""
func.func @main(%A: memref<4xf32, {layout}>, %B: memref<4xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {{
    %a = memref.load %A[%i] : memref<4xf32, {layout}>
    memref.store %a, %B[%i] : memref<4xf32>
  }} {{xtir.loop_name = "i"}}
  func.return
}}
"""
    module = xtir.parse(text)
    with pytest.raises(xtir.XtirError, match=r"parameter 0 has type .*; buffer parameters must have the row-major layout"):
        xtir.build(module)
    with pytest.raises(xtir.XtirEvaluationError, match="buffer parameters must have the row-major layout"):
        xtir.evaluate(module, np.zeros(4, np.float32), np.zeros(4, np.float32))


def test_row_major_strides_spelled_out_are_accepted() -> None:
    text = scf_matmul(3).replace("%C: memref<3x3xf32>", "%C: memref<3x3xf32, strided<[3, 1]>>").replace(
        "memref.store %sum, %C[%i, %j] : memref<3x3xf32>", "memref.store %sum, %C[%i, %j] : memref<3x3xf32, strided<[3, 1]>>")
    a, b, c = np.ones((3, 3), np.float32), np.ones((3, 3), np.float32), np.zeros((3, 3), np.float32)
    xtir.build(xtir.parse(text))(a, b, c)
    np.testing.assert_array_equal(c, np.full((3, 3), 3, np.float32))


STRIDED_SCRATCH = """
func.func @main(%A: memref<8xf32>, %B: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %T = memref.alloca() : memref<8xf32, strided<[3], offset: 2>>
  scf.for %i = %c0 to %c8 step %c1 {
    %a = memref.load %A[%i] : memref<8xf32>
    memref.store %a, %T[%i] : memref<8xf32, strided<[3], offset: 2>>
  } {xtir.loop_name = "i"}
  scf.for %i = %c0 to %c8 step %c1 {
    %t = memref.load %T[%i] : memref<8xf32, strided<[3], offset: 2>>
    memref.store %t, %B[%i] : memref<8xf32>
  } {xtir.loop_name = "i"}
  func.return
}
"""


def test_a_scratch_buffer_with_a_layout_gets_all_the_memory_it_reaches() -> None:
    """Its accesses reach element 2 + 7 * 3 = 23: it used to get 8 elements."""
    lowered = str(lower_to_llvm(xtir.parse(STRIDED_SCRATCH)))
    assert "llvm.mlir.constant(24) : i64" in lowered and "llvm.alloca" in lowered
    a, b = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    xtir.build(xtir.parse(STRIDED_SCRATCH))(a, b)
    np.testing.assert_array_equal(b, a)


# ----------------------------------------------------------------------------------------
# 17, 21 and other refusals


def test_bf16_is_refused() -> None:
    """xDSL's translation to LLVM IR raised LLVMTranslationException (not an XtirError)."""
    text = """
func.func @main(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %T = memref.alloca() : memref<4xbf16>
  %a = memref.load %A[%c0] : memref<4xf32>
  %h = arith.truncf %a : f32 to bf16
  memref.store %h, %T[%c0] : memref<4xbf16>
  func.return
}
"""
    with pytest.raises(xtir.XtirPassError, match="element type bf16 is not supported on the CPU"):
        xtir.build(xtir.parse(text))


@pytest.mark.parametrize("element", ["f80", "f128", "complex<f32>", "complex<f64>", "tf32", "f8E4M3FN", "bf16"])
def test_scratch_buffers_of_element_types_without_lowering_are_refused(element: str) -> None:
    """A scratch buffer of f80 or complex<f32> (which numpy-facing parameters cannot have) made the
    build raise xDSL's ValueError ("no bit width for complex<f32>") or an LLVM translation error."""
    text = f"""func.func @main(%A: memref<4xf32>) {{
  %T = block.alloc : memref<4x{element}>
  block.for %i = 0 to 4 "i" {{
    block.block "B"(%v = spatial(4, %i)) {{
      %x = block.load %T[%v] : memref<4x{element}>
      block.store %x, %T[%v] : memref<4x{element}>
    }}
  }}
  func.return
}}"""
    with pytest.raises(xtir.XtirPassError, match=f"check-llvm-target: element type {re.escape(element)} is not supported "
                       "on the CPU"):
        xtir.build(xtir.parse(text))


@pytest.mark.parametrize("element", ["bf16", "vector<4xf32>", "complex<f32>", "i3", "f80"])
def test_parameters_numpy_has_no_dtype_for_are_refused(element: str) -> None:
    """They used to build (bf16 with an LLVMTranslationException), and no call could pass an array."""
    text = f"func.func @main(%A: memref<4x{element}>) {{\n  func.return\n}}"
    with pytest.raises(xtir.XtirError, match=f"parameter 0 has type .*; numpy has no dtype for {re.escape(element)}"):
        xtir.build(xtir.parse(text))


def test_function_without_arguments_returning_a_value_is_refused() -> None:
    text = "func.func @main() -> f32 {\n  %c = arith.constant 1.0 : f32\n  func.return %c : f32\n}"
    with pytest.raises(xtir.XtirError, match="function 'main' returns values"):
        xtir.build(xtir.parse(text))


def test_a_private_entry_function_builds() -> None:
    """Its LLVM function was internal, so it had no address: the call jumped to 0 (SIGSEGV)."""
    out = isolated("""
        import numpy as np, xtir
        from tests.test_build_safety import scf_matmul
        f = xtir.build(xtir.parse(scf_matmul(3).replace("func.func @main", "func.func private @main")))
        c = np.zeros((3, 3), np.float32)
        f(np.ones((3, 3), np.float32), np.ones((3, 3), np.float32), c)
        print(c[0, 0])
    """)
    assert out.strip() == "3.0"


def test_a_call_of_an_undefined_function_is_refused() -> None:
    """MCJIT left the unresolved symbol at address 0; the call jumped there (SIGSEGV)."""
    out = isolated("""
        import numpy as np, xtir
        text = '''
        func.func private @no_such_function(f32) -> f32
        func.func @main(%A: memref<4xf32>) {
          %c0 = arith.constant 0 : index
          %a = memref.load %A[%c0] : memref<4xf32>
          %b = func.call @no_such_function(%a) : (f32) -> f32
          memref.store %b, %A[%c0] : memref<4xf32>
          func.return
        }
        '''
        try:
            xtir.build(xtir.parse(text))(np.zeros(4, np.float32))
        except xtir.XtirError as e:
            print(e)
    """)
    assert "calls 'no_such_function', which is defined nowhere in this process" in out


# ----------------------------------------------------------------------------------------
# 13: LLVM crashes


SCALABLE_VECTORS = """
define void @f(ptr %p) {
  %v = load <vscale x 4 x i32>, ptr %p
  %w = add <vscale x 4 x i32> %v, %v
  store <vscale x 4 x i32> %w, ptr %p
  ret void
}
"""


def test_an_llvm_crash_is_an_xtir_error_and_the_next_build_works() -> None:
    """IR that verifies but makes x86 code generation abort (scalable vectors): LLVM dies in
    the worker process, the build raises, a new worker compiles the next program."""
    out = isolated(f"""
        import numpy as np, xtir
        from xtir.lowering.jit import compile_in_worker
        from tests.test_build_safety import scf_matmul
        try:
            compile_in_worker({SCALABLE_VECTORS!r}, "f")
        except xtir.XtirError as e:
            print(e)
        f = xtir.build(xtir.parse(scf_matmul(2)))
        c = np.zeros((2, 2), np.float32)
        f(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32), c)
        print("next build:", c[0, 0])
    """)
    assert re.search(r"LLVM crashed compiling f \(its worker process ended with signal SIGABRT\)", out), out
    assert "LLVM ERROR: Cannot implicitly convert a scalable size" in out
    assert "next build: 2.0" in out


def test_a_forked_child_builds_with_its_own_worker() -> None:
    out = isolated("""
        import os, numpy as np, xtir
        from tests.test_build_safety import scf_matmul
        xtir.build(xtir.parse(scf_matmul(2)))
        pid = os.fork()
        if pid == 0:
            f = xtir.build(xtir.parse(scf_matmul(3)))
            c = np.zeros((3, 3), np.float32)
            f(np.ones((3, 3), np.float32), np.ones((3, 3), np.float32), c)
            os._exit(0 if c[0, 0] == 3 else 1)
        _, status = os.waitpid(pid, 0)
        g = xtir.build(xtir.parse(scf_matmul(4)))
        print(os.waitstatus_to_exitcode(status), g.name)
    """)
    assert out.split() == ["0", "main"]


# ----------------------------------------------------------------------------------------
# the classes above, at random


RUNTIME_SYMBOLS = ["GOMP_parallel", "GOMP_barrier", "omp_get_thread_num", "omp_get_num_threads", "aligned_alloc",
                   "malloc", "free", "memcpy", "memset", "memmove", "tanhf", "expf", "sqrtf", "abort", "exit",
                   "xtir_tmm16", "xtir_tmm16_0", "llvm.memcpy", "main_o_parallel", "main_o_parallel_omp"]


def random_case(r: random.Random) -> tuple[str, list[int], bool]:
    """A function name (a runtime symbol, a fresh identifier or one that cannot be a symbol),
    scratch buffer sizes (over the stack budget together, or one alone, or small) and whether
    the loop around them is parallel."""
    kind = r.random()
    if kind < 0.5:
        name = r.choice(RUNTIME_SYMBOLS)
    elif kind < 0.8:
        name = r.choice("_abcXYZ") + "".join(r.choice("abc_$.019") for _ in range(r.randint(0, 12)))
    else:
        name = r.choice(["é", " ", "-", "/", "{", "\\\\22", "0"]) + r.choice(["f", "main", ""])
    sizes = [r.choice([1, 7, 64, 1000, 30_000, STACK_BUDGET // 4 + 1]) for _ in range(r.randint(1, 12))]
    return name, sizes, r.random() < 0.5


def test_random_names_and_scratch_buffers_built_and_called_in_threads() -> None:
    out = isolated("""
        import random, threading, numpy as np, xtir
        from tests.test_build_safety import random_case, many_scratch_buffers
        problems, counts = [], {"ran": 0, "refused": 0}

        def work(seed):
            r = random.Random(seed)
            for _ in range(5):
                name, sizes, parallel = random_case(r)
                text = many_scratch_buffers(sizes, parallel).replace("@main", '@"' + name + '"', 1)
                try:
                    f = xtir.build(xtir.parse(text))
                except xtir.XtirError as e:
                    counts["refused"] += 1
                    if "cannot be a symbol of machine code" not in str(e):
                        problems.append((name, sizes, str(e)[:300]))
                    continue
                except Exception as e:
                    problems.append((name, sizes, repr(e)))
                    continue
                a = np.random.default_rng(seed).standard_normal((len(sizes), max(sizes)), dtype=np.float32)
                b = np.zeros((2, len(sizes)), np.float32)
                f(a, b)
                want = [2 * a[k, :n].astype(np.float64).sum() for k, n in enumerate(sizes)]
                if not np.allclose(b, [want, want], rtol=1e-3, atol=1e-2):
                    problems.append((name, sizes, "wrong result"))
                counts["ran"] += 1

        threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(problems or counts)
    """)
    counts = eval(out)  # noqa: S307 - our own child's output
    assert isinstance(counts, dict), counts
    assert counts["ran"] >= 8 and counts["refused"] >= 1, counts
