"""The landing manifest (``cdc_landing._landing_manifest``): what each
landed file was when it landed, per raw table. Read before a landing plans
its files; written last, as the landing's commit."""

from __future__ import annotations

import time
from dataclasses import dataclass

from python_helpers.engine.sql_engine import SqlEngine
from python_helpers.land.raw_tables import MANIFEST_COLUMNS, MANIFEST_TABLE, RAW_SCHEMA


@dataclass(frozen=True)
class ManifestEntry:
    """What the manifest remembers of one landed file."""

    size: int
    mtime_ns: int
    sha256: str
    lines: int
    batch: int


def read_manifest(engine: SqlEngine) -> dict[str, dict[str, ManifestEntry]]:
    """The newest manifest entry of every landed file, per raw table."""
    newest = ", ".join(
        f"max_by({name}, landing_batch) as {name}"
        for name in ("file_size", "file_mtime_ns", "file_sha256", "lines")
    )
    rows = engine.sql(
        f"select raw_table, landing_file, {newest}, max(landing_batch) as landing_batch"
        f" from {RAW_SCHEMA}.{MANIFEST_TABLE} group by raw_table, landing_file"
    )
    manifest: dict[str, dict[str, ManifestEntry]] = {}
    for row in rows:
        manifest.setdefault(row["raw_table"], {})[row["landing_file"]] = ManifestEntry(
            int(row["file_size"]),
            int(row["file_mtime_ns"]),
            row["file_sha256"],
            int(row["lines"]),
            int(row["landing_batch"]),
        )
    return manifest


def commit(engine: SqlEngine, rows: list[str]) -> None:
    """Write manifest rows (one Iceberg commit): this commits the batches of
    the topics they name; a topic's raw rows of a batch whose manifest rows
    were never written are rolled back by the next landing."""
    if not rows:
        return
    columns = ", ".join(name for name, _ in MANIFEST_COLUMNS)
    values = ",\n".join(rows)
    engine.sql(f"insert into {RAW_SCHEMA}.{MANIFEST_TABLE} ({columns}) values\n{values}")


def next_batch_id(manifest: dict[str, dict[str, ManifestEntry]]) -> int:
    """A strictly increasing batch id: epoch microseconds, or the last
    committed batch + 1."""
    last = max((e.batch for entries in manifest.values() for e in entries.values()), default=0)
    return max(time.time_ns() // 1000, last + 1)
