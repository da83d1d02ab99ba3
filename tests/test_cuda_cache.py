"""The cuda-cpu build cache: a kernel built once is loaded, not compiled, by later builds (in other
processes too); a changed kernel, emulation header, flag or compiler is compiled anew; builds of
one kernel at once all work; XTIR_NO_CACHE=1 compiles every time; the cache keeps to
$XTIR_CACHE_MAX_MB by evicting the least recently used libraries, never one being loaded."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
import time
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


def _entries(cache: Path) -> list[Path]:
    """The cache's libraries and build folders (not its lock file)."""
    return sorted(p for p in (cache / "cuda-cpu").iterdir() if p.name != ".lock")


def _libraries(cache: Path) -> set[Path]:
    return set((cache / "cuda-cpu").glob("*.so"))


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
    assert [p.suffix for p in _entries(tmp_path)] == [".so"]


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
    assert [p.suffix for p in _entries(tmp_path)] == [".so"]


def _build_new(factor: float, cache: Path) -> Path:
    """Build `_scale(factor)` (from the disk, as a new process would); its library's path."""
    cuda_emulation._loaded.clear()
    _check(xtir.build(_scale(factor), target="cuda-cpu"), factor)
    files = cuda_emulation.sources(BUILD.cuda_program(_scale(factor)))
    return cache / "cuda-cpu" / f"{cuda_emulation.cache_key(files, cuda_emulation.host_compiler())}.so"


def test_the_least_recently_used_libraries_are_evicted(compiles: list[str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    two, three = _build_new(2.0, tmp_path), _build_new(3.0, tmp_path)
    size = max(two.stat().st_size, three.stat().st_size)
    monkeypatch.setenv("XTIR_CACHE_MAX_MB", str(2.5 * size / 2**20))  # room for two libraries, not three
    now = time.time()
    os.utime(two, (now - 200, now - 200))
    os.utime(three, (now - 100, now - 100))
    assert _build_new(2.0, tmp_path) == two  # loaded from the disk: used now, so 3.0 is the oldest
    four = _build_new(4.0, tmp_path)
    assert _libraries(tmp_path) == {two, four}
    assert len(compiles) == 3
    _build_new(3.0, tmp_path)  # evicted: compiled again
    assert len(compiles) == 4
    assert _libraries(tmp_path) == {four, three}


def test_a_bound_of_zero_keeps_only_the_newest(compiles: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XTIR_CACHE_MAX_MB", "0")
    _build_new(2.0, tmp_path)
    three = _build_new(3.0, tmp_path)
    assert _libraries(tmp_path) == {three}
    monkeypatch.setenv("XTIR_CACHE_MAX_MB", "lots")
    with pytest.raises(xtir.XtirError, match="XTIR_CACHE_MAX_MB must be a size in MiB \\(a number >= 0\\), got 'lots'"):
        _build_new(5.0, tmp_path)
    assert len(compiles) == 2  # refused before compiling


def test_build_folders_of_killed_builds_are_removed(compiles: list[str], tmp_path: Path) -> None:
    (tmp_path / "cuda-cpu").mkdir()
    old, fresh = tmp_path / "cuda-cpu" / "build-old", tmp_path / "cuda-cpu" / "build-fresh"
    for folder in (old, fresh):
        folder.mkdir()
        (folder / "kernel.cu").write_text("// a build in progress, or killed\n")
    stale = time.time() - cuda_emulation.STALE_BUILD_SECONDS - 60
    os.utime(old, (stale, stale))
    library = _build_new(2.0, tmp_path)
    assert _entries(tmp_path) == sorted([fresh, library])


def test_eviction_waits_while_a_library_is_being_loaded(compiles: list[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another builder evicting everything while this one has found the library and not yet
    loaded it must wait; once loaded, the library works with its file gone."""
    library = _build_new(2.0, tmp_path)
    evictions: list[threading.Thread] = []

    class Interrupted(cuda_emulation.EmulatedModule):
        def __init__(self, *args, **kwargs) -> None:
            evictions.append(threading.Thread(target=cuda_emulation.evict, args=(tmp_path / "cuda-cpu", 0)))
            evictions[-1].start()
            evictions[-1].join(timeout=1.0)
            assert library.exists(), "evicted between finding and loading it"
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(cuda_emulation, "EmulatedModule", Interrupted)
    assert _build_new(2.0, tmp_path) == library
    evictions[0].join()
    assert not library.exists()  # evicted once the load was done
    f = xtir.build(_scale(2.0), target="cuda-cpu")  # in this process: the loaded library, no file needed
    _check(f, 2.0)
    assert len(compiles) == 1


_BUILD_SEVERAL_IN_A_CHILD = """
import sys
import numpy as np
import xtir
for text in sys.stdin.read().split("\\n//next\\n"):
    f = xtir.build(xtir.parse(text), target="cuda-cpu")
    a, b = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    f(a, b)
    assert np.allclose(b, a * float(text.split("arith.constant ")[1].split(" ")[0])), b
"""


def test_concurrent_builds_in_processes_that_evict(tmp_path: Path) -> None:
    """Processes building different kernels into a cache that holds about one: each evicts the
    others' libraries, and every build still works."""
    env = {**os.environ, "XTIR_CACHE_DIR": str(tmp_path), "XTIR_CACHE_MAX_MB": "0"}
    env.pop("XTIR_NO_CACHE", None)
    factors = [7.0, 8.0, 9.0]
    children = []
    for k in range(3):
        order = factors[k:] + factors[:k]
        child = subprocess.Popen([sys.executable, "-c", _BUILD_SEVERAL_IN_A_CHILD], stdin=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env)
        children.append((child, "\n//next\n".join(str(_scale(f)) for f in order)))
    for child, text in children:
        _, err = child.communicate(text, timeout=600)
        assert child.returncode == 0, err[-2000:]
    assert 1 <= len(_libraries(tmp_path)) <= 3
    assert not list((tmp_path / "cuda-cpu").glob("build-*"))
