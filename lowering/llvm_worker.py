"""The LLVM worker: a child process that optimizes LLVM IR and compiles it to an object file.

LLVM reports some internal errors by aborting its process ("LLVM ERROR: ...", a failed
assertion, a segmentation fault). Running LLVM's optimizer and code generator here, in a
process of their own, means such a crash ends this process only: `xtir.lowering.jit` sees
the pipe close and raises an XtirError with what LLVM printed, and the user's process goes on.

Protocol: pickles on stdin (requests) and stdout (replies). A request is LLVM IR text; the
reply is one of
  ("ok", optimized IR, object file, [messages LLVM printed while optimizing])
  ("rejected", message)  the IR does not verify (a bug of xtir's code generation)
  ("broken", message)    O3 made IR that does not verify (an LLVM bug this program provokes)
Before replying "ok" the worker loads the object as `xtir.lowering.jit` will, so that a
crash in LLVM's loader happens here too.

Runs as a script, in an isolated Python (see `jit._BOOTSTRAP`), and imports only the standard
library and llvmlite, so that it starts in a fraction of a second; `jit.py` imports the
same functions.
"""

from __future__ import annotations

import functools
import os
import pickle
import re
import sys
from typing import Any

import llvmlite.binding as llvm


@functools.cache
def initialize() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


def host_target_machine() -> llvm.TargetMachine:
    """A new target machine for the host (CPU name and features, O3). Never shared: an MCJIT
    engine takes ownership of the target machine it is given and frees it with itself."""
    initialize()
    target = llvm.Target.from_default_triple()
    features = llvm.get_host_cpu_features()
    flags = features.flatten()
    if features.get("avx512f"):
        # LLVM tunes AVX-512 CPUs to 256-bit vectors (prefer-256-bit, for clock reasons on
        # old parts); the micro-kernels here are FMA-bound, so use the full 512 bits.
        flags += ",-prefer-256-bit"
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(), features=flags, opt=3, jit=True)


def load_object(obj: bytes) -> llvm.ExecutionEngine:
    """An MCJIT engine holding the machine code of an object file, relocated and ready to call."""
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), host_target_machine())
    engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
    engine.finalize_object()
    return engine


def optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine) -> None:
    """LLVM's new-pass-manager O3 pipeline, loop and SLP vectorization on."""
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(module, pb)


def _printed_during(action: Any) -> list[str]:
    """Run `action()`; the lines LLVM printed meanwhile on file descriptor 2 (the log file the
    JIT gave this process), without LLVM's `warning: <unknown>:0:0: ` prefix."""
    start = os.lseek(2, 0, os.SEEK_END)
    action()
    end = os.lseek(2, 0, os.SEEK_END)
    text = os.pread(2, end - start, start).decode(errors="replace")
    return [re.sub(r"^(warning|remark): <unknown>:0:0: ", "", line) for line in text.splitlines() if line]


def compile_ir(text: str, tm: llvm.TargetMachine) -> tuple[Any, ...]:
    """One request: verify, optimize, verify again, emit the object, load it once."""
    context = llvm.create_context()  # a context per module: LLVM's global one only grows
    try:
        module = llvm.parse_assembly(text, context)
    except RuntimeError as e:
        context.close()
        return ("rejected", str(e))
    try:
        return _compile_module(module, tm)
    finally:
        module.close()  # before its context, which would free it too
        context.close()


def _compile_module(module: llvm.ModuleRef, tm: llvm.TargetMachine) -> tuple[Any, ...]:
    try:
        module.verify()
    except RuntimeError as e:
        return ("rejected", str(e))
    messages = _printed_during(lambda: optimize(module, tm))
    try:
        module.verify()
    except RuntimeError as e:
        return ("broken", str(e))
    obj = tm.emit_object(module)
    load_object(obj).close()
    return ("ok", str(module), obj, messages)


def main() -> None:
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever else prints goes to the log, not into the replies
    tm = host_target_machine()
    while True:
        try:
            text = pickle.load(requests)
        except EOFError:  # the JIT closed the pipe (its process exits, or it let this worker go)
            return
        pickle.dump(compile_ir(text, tm), replies, protocol=pickle.HIGHEST_PROTOCOL)
        replies.flush()


if __name__ == "__main__":
    main()
