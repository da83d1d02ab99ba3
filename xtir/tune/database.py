"""The tuning database: every measured candidate, in SQLite (the standard library's sqlite3).

A record is a workload (`workload_key`: a structural hash of the function and the search
space's name), the target, the decision trace
(JSON), the concrete pipeline, the latency in seconds and when it was measured. A later run
on the same workload and target reads them back: it measures no pipeline twice and starts
its search from the best known.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp, StringAttr

from xtir.errors import XtirError
from xtir.passes.analysis.navigation import select_function

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    workload TEXT NOT NULL, target TEXT NOT NULL, decisions TEXT NOT NULL, pipeline TEXT NOT NULL,
    latency REAL NOT NULL, measured_at REAL NOT NULL, PRIMARY KEY (workload, target, pipeline));
"""


@dataclass(frozen=True)
class Record:
    decisions: str
    pipeline: str
    latency: float


def workload_hash(module: ModuleOp, func_name: str | None) -> str:
    """A structural hash of the function: its printed form with the function renamed and every
    value but the arguments numbered by position, so that whitespace, comments, the function's
    name and SSA names do not count. The arguments keep their names, and loops and blocks
    theirs: the recorded pipelines name them (`split{loop=i}`, the `A_shared` of a cache-read)."""
    function = select_function(module, func_name).clone()
    function.sym_name = StringAttr("workload")
    for op in function.walk():
        if op is not function:
            for value in (*op.results, *(arg for region in op.regions for block in region.blocks for arg in block.args)):
                value.name_hint = None
    return hashlib.sha256(str(function).encode()).hexdigest()[:16]


def workload_key(module: ModuleOp, func_name: str | None, space_name: str) -> str:
    """The database's workload: the function's structural hash and the space searched (the target is a column)."""
    return f"{workload_hash(module, func_name)}:{space_name}"


class Database:
    def __init__(self, path: str | Path):
        try:
            self._db = sqlite3.connect(str(path))
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as e:  # a missing directory, a file that is not a database
            raise XtirError(f"tuning database {path}: {e}") from None

    def add(self, workload: str, target: str, record: Record) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?)",
                             (workload, target, record.decisions, record.pipeline, record.latency, time.time()))

    def records(self, workload: str, target: str) -> list[Record]:
        """The workload's records, fastest first."""
        rows = self._db.execute("SELECT decisions, pipeline, latency FROM records WHERE workload = ? AND target = ? "
                                "ORDER BY latency", (workload, target))
        return [Record(*row) for row in rows]

    def close(self) -> None:
        self._db.close()
