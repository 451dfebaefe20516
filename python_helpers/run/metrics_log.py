"""The metrics rows of the last runs, kept beside the table in the state folder.

Every run that writes its rows to ``cdc_landing._run_metrics`` (``metrics``)
also appends them here, one JSON object per line, as ``metrics.read_runs``
returns them (timestamps as ISO text, UTC). ``report`` reads this file, so
it starts no Spark (seconds, not the JVM's and metastore's start-up); the
table stays the record of every run (``report --from-table`` reads it, as
does any SQL client). Past ``MAX_BYTES`` the file is rewritten with the
newer half of its runs (a write then a rename: a reader never sees half a
file).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

LOG_FILE = "run-metrics.jsonl"
MAX_BYTES = 16 * 1024 * 1024


def append(state: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Append ``rows`` (one run's, as ``metrics.read_runs`` gives them)."""
    lines = [json.dumps(row, sort_keys=True) + "\n" for row in rows]
    if not lines:
        return
    state.mkdir(parents=True, exist_ok=True)
    path = state / LOG_FILE
    with path.open("a", encoding="utf-8") as out:
        out.writelines(lines)
    if path.stat().st_size > MAX_BYTES:
        runs = sorted(_runs(path))
        kept = set(runs[len(runs) // 2 :])
        text = "".join(line for line in _lines(path) if _run_of(line) in kept)
        fresh = path.with_suffix(".tmp")
        fresh.write_text(text, encoding="utf-8")
        os.replace(fresh, path)


def read_runs(state: Path, runs: int) -> list[dict[str, Any]] | None:
    """The rows of the last ``runs`` runs, oldest first (by run, then
    topic); None when no run wrote the file."""
    path = state / LOG_FILE
    if not path.exists():
        return None
    rows = []
    for line in _lines(path):
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue  # a line cut by a crash mid-write: the table has it
    wanted = set(sorted({int(row["run_id"]) for row in rows})[-runs:]) if runs > 0 else set()
    kept = [row for row in rows if int(row["run_id"]) in wanted]
    return sorted(kept, key=lambda row: (int(row["run_id"]), str(row["topic"])))


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines(keepends=True) if line]


def _run_of(line: str) -> int | None:
    try:
        return int(json.loads(line)["run_id"])
    except (ValueError, KeyError, TypeError):
        return None


def _runs(path: Path) -> set[int]:
    return {run for line in _lines(path) if (run := _run_of(line)) is not None}
