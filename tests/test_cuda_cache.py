"""The cuda-cpu build cache: a kernel built once is loaded, not compiled, by later builds (in other
processes too); a changed kernel, emulation header, flag or compiler is compiled anew; builds of
one kernel at once all work; XTIR_NO_CACHE=1 compiles every time."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import xtir
from tests.test_cuda import THREADS
from xtir.lowering import cuda_emulation

BUILD = importlib.import_module("xtir.build")  # the module (xtir.build is also the function)


def _scale(factor: float) -> xtir.ModuleOp:
    return xtir.transform(xtir.parse(f"""func.func @main(%A: memref<64xf32>, %B: memref<64xf32>) {{
      block.for %i = 0 to 64 "i" {{
        block.block "B"(%vi = spatial(64, %i)) {{
          %a = block.load %A[%vi] : memref<64xf32>
          %k = arith.constant {factor} : f32
          %b = arith.mulf %a, %k : f32
          block.store %b, %B[%vi] : memref<64xf32>
        }}
      }}
      func.return
    }}"""), THREADS)


class _Forgetful(dict):
    """xtir.build's memo of built functions, keeping none: each build reaches the emulation."""

    def get(self, key: str, default: object = None) -> object:
        return default


@pytest.fixture
def compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A fresh cache directory and a fresh process (nothing loaded); the functions compiled, in order."""
    monkeypatch.setenv("XTIR_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("XTIR_NO_CACHE", raising=False)
    monkeypatch.setattr(cuda_emulation, "_loaded", {})
    monkeypatch.setattr(BUILD, "_CACHE", _Forgetful())
    compiled: list[str] = []
    real = cuda_emulation.compile_library

    def counting(files: dict[str, str], into: Path, function: str) -> None:
        compiled.append(function)
        real(files, into, function)

    monkeypatch.setattr(cuda_emulation, "compile_library", counting)
    return compiled


def _check(f, factor: float) -> None:
    a, b = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    f(a, b)
    np.testing.assert_array_equal(b, a * np.float32(factor))


def test_second_build_loads_the_cached_library(compiles: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _check(xtir.build(_scale(2.0), target="cuda-cpu"), 2.0)
    assert len(compiles) == 1
    _check(xtir.build(_scale(2.0), target="cuda-cpu"), 2.0)
    monkeypatch.setattr(cuda_emulation, "_loaded", {})  # as another process would: from the disk
    _check(xtir.build(_scale(2.0), target="cuda-cpu"), 2.0)
    assert len(compiles) == 1
    _check(xtir.build(_scale(3.0), target="cuda-cpu"), 3.0)  # another source
    assert len(compiles) == 2


def test_a_changed_header_flag_or_compiler_is_compiled_anew(compiles: list[str], tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    xtir.build(_scale(2.0), target="cuda-cpu")
    header = tmp_path / "header" / cuda_emulation.HEADER.name
    header.parent.mkdir()
    header.write_text(cuda_emulation.HEADER.read_text() + "\n// changed\n")
    monkeypatch.setattr(cuda_emulation, "HEADER", header)
    _check(xtir.build(_scale(2.0), target="cuda-cpu"), 2.0)
    assert len(compiles) == 2
    monkeypatch.setattr(cuda_emulation, "FLAGS", (*cuda_emulation.FLAGS, "-O1"))
    xtir.build(_scale(2.0), target="cuda-cpu")
    assert len(compiles) == 3
    monkeypatch.setattr(cuda_emulation, "_compiler_version", lambda compiler: "another compiler 1.0")
    xtir.build(_scale(2.0), target="cuda-cpu")
    assert len(compiles) == 4


def test_no_cache_compiles_every_time(compiles: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XTIR_NO_CACHE", "1")
    for _ in range(2):
        _check(xtir.build(_scale(2.0), target="cuda-cpu"), 2.0)
    assert len(compiles) == 2
    assert not (tmp_path / "cuda-cpu").exists()


def test_concurrent_builds_of_one_kernel(compiles: list[str], tmp_path: Path) -> None:
    """Threads building at once each get a working function; the cache holds one whole library
    and no build folder is left behind."""
    errors: list[BaseException] = []

    def build() -> None:
        try:
            _check(xtir.build(_scale(5.0), target="cuda-cpu"), 5.0)
        except BaseException as e:  # noqa: BLE001 (reported by the test thread)
            errors.append(e)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert [p.suffix for p in (tmp_path / "cuda-cpu").iterdir()] == [".so"]


_BUILD_IN_A_CHILD = """
import sys
import numpy as np
import xtir
f = xtir.build(xtir.parse(sys.stdin.read()), target="cuda-cpu")
a, b = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
f(a, b)
assert (b == a * 7).all()
"""


def test_concurrent_builds_in_processes(tmp_path: Path) -> None:
    """Processes building one kernel at once into one cache all get a working library."""
    env = {**os.environ, "XTIR_CACHE_DIR": str(tmp_path)}
    env.pop("XTIR_NO_CACHE", None)
    children = [subprocess.Popen([sys.executable, "-c", _BUILD_IN_A_CHILD], stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=env) for _ in range(3)]
    for child in children:
        _, err = child.communicate(str(_scale(7.0)), timeout=300)
        assert child.returncode == 0, err[-2000:]
    assert [p.suffix for p in (tmp_path / "cuda-cpu").iterdir()] == [".so"]
