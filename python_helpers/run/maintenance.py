"""Table maintenance: compaction, snapshot expiry, orphan files.

Every merge into a merge-on-read table adds a data file and a delete file,
every landing and build adds snapshots: left alone, reads slow down and
storage grows without bound. After each run (``run``, each watch cycle)
the pipeline looks at the tables of the topics it touched, plus the
landing's own tables, with one statement over their ``snapshots``
metadata tables, and maintains those that pass the policy (``Policy``, the
``cdc_maintenance`` var of ``dbt_project.yml``):

- *compaction* (Iceberg's ``rewrite_data_files`` with every delete applied
  and dangling deletes removed) when a table has ``compact_delete_files`` delete files or
  ``compact_data_files`` data files, at most once every
  ``compact_every_minutes`` per table (under a steady stream every cycle
  passes the thresholds, and compacting the hot tables each cycle took a
  third of the watch's time: ``make bench-watch``). A pass rewrites every
  data file that has a delete. An append-only table (no delete file: the
  raw tables, a base table between replays) grows with every event, so a
  pass there only packs the files smaller than ``compact_small_file_mb`` and
  costs what was written since the last one (with Iceberg's default, every
  file under 384 MB counts as small: a 45-minute soak rewrote its raw and
  base tables whole every pass, 58-98 s and growing). A table with deletes
  (a state or history table: its size follows its keys, not its events) is
  rewritten by Iceberg's default sizes, and no delete file outlives the
  pass (the rewritten files take the rewrite's own sequence number, and a
  delete that matches no row commits the drop of the older delete files);
- *snapshot expiry* (``expire_snapshots``) when a table has more than
  ``max_snapshots`` snapshots, keeping the newest ``keep_snapshots``: the
  runs time travel can reach;
- *orphan files* (``remove_orphan_files``: files no snapshot references,
  left by a write that died before its commit) at most once every
  ``orphan_every_hours`` per table, only files older than
  ``orphan_min_age_hours`` (a write in flight is never that old).

``python -m python_helpers maintain`` runs all three on every table (or one
topic's) now, whatever the thresholds, and purges delete markers past
``cdc_marker_retention_days`` when that var is set.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from python_helpers.engine.sql_engine import SqlEngine
from python_helpers.escaping import spark_identifier, spark_string
from python_helpers.land.raw_tables import DUPLICATES_TABLE, MANIFEST_TABLE, RAW_SCHEMA
from python_helpers.naming import raw_table_name

PROCEDURES = "spark_catalog.system"
# when each table's orphans were last removed (and markers purged, tables
# compacted: keys MARKERS_KEY, COMPACTED_KEY)
ORPHANS_FILE = "maintenance-orphans.json"
COMPACTED_KEY = "<compacted>"
# the landing's own tables: every run appends to them
SHARED_TABLES = (
    f"{RAW_SCHEMA}.{MANIFEST_TABLE}",
    f"{RAW_SCHEMA}.{DUPLICATES_TABLE}",
    f"{RAW_SCHEMA}._run_metrics",
)


@dataclass(frozen=True)
class Policy:
    """When the pipeline maintains a table (``cdc_maintenance`` in
    ``dbt_project.yml`` overrides any of these)."""

    compact_delete_files: int = 8
    compact_data_files: int = 32
    compact_every_minutes: float = 10.0
    compact_small_file_mb: float = 32.0
    max_snapshots: int = 100
    keep_snapshots: int = 20
    orphan_every_hours: float = 24.0
    orphan_min_age_hours: float = 72.0


@dataclass(frozen=True)
class TableHealth:
    """A table as its newest snapshot's summary tells it."""

    table: str
    snapshots: int
    data_files: int
    delete_files: int


@dataclass
class Done:
    """What one maintenance pass did."""

    compacted: list[str]
    expired: dict[str, int]
    orphans: dict[str, int]
    seconds: float = 0.0

    def line(self) -> str:
        """One line for people; empty when nothing was done."""
        parts = []
        if self.compacted:
            parts.append(f"compacted {len(self.compacted)} table(s)")
        if self.expired:
            parts.append(f"expired {sum(self.expired.values())} snapshot(s)")
        if self.orphans:
            parts.append(f"removed {sum(self.orphans.values())} orphan file(s)")
        return f"maintenance: {', '.join(parts)} in {self.seconds:.1f}s" if parts else ""


def policy(project: Path) -> Policy:
    """The project's policy: the defaults, overridden by the
    ``cdc_maintenance`` var of ``dbt_project.yml``."""
    loaded = yaml.safe_load((project / "dbt_project.yml").read_text(encoding="utf-8")) or {}
    given: dict[str, Any] = (loaded.get("vars") or {}).get("cdc_maintenance") or {}
    known = {f.name: f.type for f in fields(Policy)}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(f"cdc_maintenance: unknown setting(s) {', '.join(unknown)}")
    defaults = Policy()
    values = {name: type(getattr(defaults, name))(value) for name, value in given.items()}
    return Policy(**values)


def marker_retention_days(project: Path) -> int | None:
    """``cdc_marker_retention_days`` of ``dbt_project.yml`` (None: keep markers)."""
    loaded = yaml.safe_load((project / "dbt_project.yml").read_text(encoding="utf-8")) or {}
    days = (loaded.get("vars") or {}).get("cdc_marker_retention_days")
    return None if days is None else int(days)


# the materializations of the tables a topic's models write: dbt's and the
# project's own (macros/materializations/cdc_incremental.sql)
TABLE_MATERIALIZATIONS = ("incremental", "cdc_incremental")


def topic_tables(nodes: dict[str, dict[str, Any]], topics: Iterable[str] | None) -> list[str]:
    """The Iceberg tables of ``topics`` (None: of every topic): their
    incremental models' (dbt's manifest nodes) and their raw tables."""
    wanted = None if topics is None else set(topics)
    tables: set[str] = set()
    for node in nodes.values():
        meta = (node.get("config") or {}).get("meta") or {}
        topic = meta.get("cdc_topic")
        table = (node.get("config") or {}).get("materialized") in TABLE_MATERIALIZATIONS
        if node["resource_type"] != "model" or not topic or not table:
            continue
        if wanted is None or topic in wanted:
            tables.add(str(node["relation_name"]))
            tables.add(f"{RAW_SCHEMA}.{raw_table_name(topic)}")
    return sorted(tables)


def existing(engine: SqlEngine, tables: Iterable[str]) -> list[str]:
    """Those of ``tables`` that exist (a topic whose build failed may have none)."""
    found = []
    by_schema: dict[str, list[str]] = {}
    for table in tables:
        schema, _, name = table.partition(".")
        by_schema.setdefault(schema, []).append(name)
    for schema, names in sorted(by_schema.items()):
        if not engine.sql(f"show databases like {spark_string(schema)}"):
            continue
        present = {row["tableName"] for row in engine.sql(f"show tables in {schema}")}
        found += [f"{schema}.{name}" for name in names if name in present]
    return found


def health(engine: SqlEngine, tables: list[str]) -> list[TableHealth]:
    """Snapshots, data and delete files of each table: one statement."""
    if not tables:
        return []
    query = "\nunion all\n".join(
        f"select {spark_string(t)} as name, count(*) as snapshots,"
        " max_by(summary['total-data-files'], committed_at) as data_files,"
        " max_by(summary['total-delete-files'], committed_at) as delete_files"
        f" from {t}.snapshots"
        for t in tables
    )
    return [
        TableHealth(
            row["name"],
            int(row["snapshots"]),
            int(row["data_files"] or 0),
            int(row["delete_files"] or 0),
        )
        for row in engine.sql(query)
    ]


def compact(engine: SqlEngine, table: str, small_file_mb: float | None = None) -> None:
    """Rewrite every data file that has a delete with its deletes applied,
    and pack small files together: those smaller than ``small_file_mb``
    (None: Iceberg's default, 75 % of the target file size, 512 MB); the
    delete files then left pointing at no live data file are dropped
    (``remove-dangling-deletes``). The rewritten files take the rewrite's
    own sequence number (``use-starting-sequence-number`` false): with
    Iceberg's default, the sequence number the rewrite started from, the
    delete files of the last commit before it had the same number as the new
    data files and were never dangling — six merges then a pass left three
    delete files beside one data file (issue 43). That default protects
    equality deletes committed during a rewrite; this project writes
    position deletes only, and a concurrent one fails the rewrite's
    validation instead. ``drop_dangling_deletes`` then drops them.
    ``rewrite_position_delete_files`` is not called: in Iceberg 1.10 it
    fails on any table with an array column
    (apache/iceberg#14619, ``Invalid partition field parent: list<long>``),
    and every state table has one, ``_cdc_position`` (``make bench-watch``
    hit it on most compactions)."""
    options = "map('delete-file-threshold', '1', 'min-input-files', '2',"
    options += " 'remove-dangling-deletes', 'true', 'use-starting-sequence-number', 'false'"
    if small_file_mb is not None:
        options += f", 'min-file-size-bytes', '{int(small_file_mb * 1024 * 1024)}'"
    options += ")"
    engine.sql(f"call {PROCEDURES}.rewrite_data_files(table => '{table}', options => {options})")


def drop_dangling_deletes(engine: SqlEngine, table: str) -> None:
    """Commit a row-level delete that matches no row: Iceberg drops, at such
    a commit, every delete file older than the table's oldest data file —
    the rewrite's own commit leaves them, and an unpartitioned table's
    ``remove-dangling-deletes`` does nothing but leave it to the next
    commit (Iceberg's RemoveDanglingDeletesSparkAction). A predicate no row
    meets that Spark does not fold to false (``where false`` commits nothing)."""
    column = str(engine.sql(f"describe {table}")[0]["col_name"])
    name = spark_identifier(column)
    engine.sql(f"delete from {table} where {name} is null and {name} is not null")


def expire(engine: SqlEngine, table: str, keep: int) -> None:
    """Expire every snapshot but the newest ``keep`` (and delete the files
    only they referenced)."""
    now = _literal(datetime.now(UTC))
    engine.sql(
        f"call {PROCEDURES}.expire_snapshots(table => '{table}', older_than => {now},"
        f" retain_last => {keep})"
    )


def remove_orphans(engine: SqlEngine, table: str, min_age_hours: float) -> int:
    """Delete files of ``table`` that no snapshot references and that are
    older than ``min_age_hours``: how many."""
    older = _literal(datetime.now(UTC) - timedelta(hours=min_age_hours))
    rows = engine.sql(
        f"call {PROCEDURES}.remove_orphan_files(table => '{table}', older_than => {older})"
    )
    return len(rows)


def _literal(moment: datetime) -> str:
    return f"timestamp '{moment.strftime('%Y-%m-%d %H:%M:%S.%f')}'"


def maintain(
    engine: SqlEngine,
    tables: list[str],
    rules: Policy,
    state: Path,
    force: bool = False,
    progress: Callable[[str], Any] | None = None,
) -> Done:
    """Maintain ``tables`` by ``rules`` (``force``: every step on every
    table). Without ``force`` only the tables that may have passed a
    threshold since their health was last read are looked at (``due``):
    most runs read none."""
    started = time.monotonic()
    done = Done([], {}, {})
    times = _read_orphan_times(state)
    now = time.time()
    looked_at = tables if force else due(state, tables, times, rules, now)
    seen = health(engine, existing(engine, looked_at)) if looked_at else []
    for table in seen:
        compacted_key = f"{COMPACTED_KEY} {table.table}"
        rested = now - times.get(compacted_key, 0.0) >= rules.compact_every_minutes * 60
        if force or (
            rested
            and (
                table.delete_files >= rules.compact_delete_files
                or table.data_files >= rules.compact_data_files
            )
        ):
            append_only = table.delete_files == 0
            compact(engine, table.table, rules.compact_small_file_mb if append_only else None)
            if not append_only:
                drop_dangling_deletes(engine, table.table)
            done.compacted.append(table.table)
            times[compacted_key] = now
        if force or table.snapshots > rules.max_snapshots:
            expire(engine, table.table, rules.keep_snapshots)
            done.expired[table.table] = max(0, table.snapshots - rules.keep_snapshots)
        # a table seen for the first time is due a period later
        last = times.setdefault(table.table, now)
        if force or now - last >= rules.orphan_every_hours * 3600:
            done.orphans[table.table] = remove_orphans(
                engine, table.table, rules.orphan_min_age_hours
            )
            times[table.table] = now
    _write_orphan_times(state, times)
    _note_health(state, seen, done, rules)
    if progress is not None:
        for after in health(engine, existing(engine, tables)):
            progress(
                f"{after.table}: {after.data_files} data file(s), {after.delete_files}"
                f" delete file(s), {after.snapshots} snapshot(s)"
            )
    done.orphans = {t: n for t, n in done.orphans.items() if n}
    done.expired = {t: n for t, n in done.expired.items() if n}
    done.seconds = time.monotonic() - started
    return done


# per table, the runs left before its health is worth reading again
DUE_FILE = "maintenance-due.json"
# commits a run makes to one table at most (a merge and a truncate's
# pre-hook delete; a landing's insert and its duplicate repair)
COMMITS_PER_RUN = 2
# data files one commit adds, as the project writes (one task per merge or
# small batch; a larger batch writes more: its compaction comes a few runs
# later, never skipped)
FILES_PER_COMMIT = 2


def due(
    state: Path, tables: list[str], times: dict[str, float], rules: Policy, now: float
) -> list[str]:
    """Those of ``tables`` (each touched by this run) whose health may have
    passed a threshold: the runs left noted when it was last read ran out,
    or its orphan removal is due. Counts this run for the others; a table
    not seen before is due the next run that touches it."""
    left = _read_json(state / DUE_FILE)
    found = []
    for table in tables:
        if table not in left:
            # never read: new (a first build), or new to this state folder.
            # Its health is read the next run that touches it: a first build
            # of 100 topics read 400 new tables' snapshots, 30 s (issue 43)
            left[table] = 1
            continue
        runs = int(left[table]) - 1
        orphans = table in times and now - times[table] >= rules.orphan_every_hours * 3600
        if runs <= 0 or orphans:
            found.append(table)
        else:
            left[table] = runs
    _write_json(state / DUE_FILE, left)
    return found


def _note_health(state: Path, seen: list[TableHealth], done: Done, rules: Policy) -> None:
    """Note, per table read, the runs before it can pass a threshold: each
    run adds at most COMMITS_PER_RUN snapshots and delete files and
    FILES_PER_COMMIT data files a commit. A table left over a threshold
    (compacted less than ``compact_every_minutes`` ago) is read next run."""
    left = _read_json(state / DUE_FILE)
    for table in seen:
        if table.table in done.compacted or table.table in done.expired:
            left[table.table] = 1  # read again next run: what the pass left
            continue
        per_run = COMMITS_PER_RUN * FILES_PER_COMMIT
        runs = min(
            (rules.compact_delete_files - table.delete_files) // COMMITS_PER_RUN,
            (rules.compact_data_files - table.data_files) // per_run,
            (rules.max_snapshots - table.snapshots) // COMMITS_PER_RUN,
        )
        left[table.table] = max(1, runs)
    _write_json(state / DUE_FILE, left)


def _read_json(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return loaded


def _write_json(path: Path, value: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, sort_keys=True), encoding="utf-8")


MARKERS_KEY = "<delete markers>"


def markers_due(state: Path, rules: Policy) -> bool:
    """Whether the pipeline's purge of old delete markers is due (once every
    ``orphan_every_hours``, the first a period after the first ask); notes
    it as done when it is."""
    times = _read_orphan_times(state)
    now = time.time()
    last = times.setdefault(MARKERS_KEY, now)
    due = now - last >= rules.orphan_every_hours * 3600
    if due:
        times[MARKERS_KEY] = now
    _write_orphan_times(state, times)
    return due


def _read_orphan_times(state: Path) -> dict[str, float]:
    return _read_json(state / ORPHANS_FILE)


def _write_orphan_times(state: Path, times: dict[str, float]) -> None:
    _write_json(state / ORPHANS_FILE, dict(times))
