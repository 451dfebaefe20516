"""Land topic dumps into the raw Iceberg tables, with Spark.

Each topic lands in ``cdc_landing.<table>`` (Iceberg, one row per Kafka
record, the value kept as the text the JsonConverter wrote). A landing run
is one batch (``landing_batch``, strictly increasing) and works like this:

1. files whose size and modification time are unchanged since they were
   landed (the manifest table ``cdc_landing._landing_manifest`` remembers)
   are not read at all; a file that grew with its landed bytes unchanged
   is read from its last landed line on; anything else is read whole;
2. Spark reads each topic's files (one task per file, so every record
   keeps its line number), parses the kcat wrapper where there is one, and
   appends the records to the topic's raw table in one commit (one
   statement per topic, several topics' statements at once: Iceberg
   commits one table at a time, and a small topic's statement waits on its
   job's scheduling and its commit more than on the cores);
3. records whose identity — (partition, offset), or (file, line) for a line
   without coordinates (every plain-form line) — was already landed, or
   occurs twice in the batch, are found on the narrow coordinate columns
   (older files outside the batch's offset range are pruned by Iceberg's
   file statistics), written to the ledger ``cdc_landing._landing_duplicates``
   (what was dropped, and why) and deleted from the batch: every line read
   is a raw row or a ledger row. Only a batch with a repeat (its summary
   counts its coordinates) or whose table's older batches overlap its
   offsets or lines (one cheap statement: older files outside them are
   pruned) is checked. What can be asked of many tables at once (these
   checks, the batch's summary, the roll-back check of 4) is one statement
   for up to ``batch_sql.TABLES_PER_STATEMENT`` tables;
4. the manifest rows of the batch are written: this commits the batch. A
   batch found in a raw table without manifest rows (a landing that died
   between 2 and 4) is deleted at the start of the next landing, and its
   files land again.

Memory stays bounded whatever the size of the dumps: Python only hashes
files in chunks, Spark streams them.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from python_helpers.digest import file_digest, text_md5
from python_helpers.engine.sql_engine import SqlEngine, each_at_once
from python_helpers.escaping import spark_string
from python_helpers.land import batch_sql
from python_helpers.land.crash_points import AFTER_RAW_APPEND, crash_point
from python_helpers.land.landing import (
    LandingFile,
    count_lines,
    landing_paths,
    open_binary,
    topic_dirs,
    topic_files,
)
from python_helpers.naming import raw_table_name
from python_helpers.sequences import runs_of

_T = TypeVar("_T")
RAW_SCHEMA = batch_sql.RAW_SCHEMA
MANIFEST_TABLE = "_landing_manifest"
DUPLICATES_TABLE = "_landing_duplicates"
RAW_COLUMNS = (
    ("kafka_topic", "string"),
    ("kafka_partition", "int"),
    ("kafka_offset", "bigint"),
    ("kafka_timestamp_ms", "bigint"),
    ("kafka_key", "string"),
    ("kafka_value", "string"),
    ("landing_file", "string"),
    ("landing_line", "bigint"),
    ("landing_error", "string"),
    ("landing_batch", "bigint"),
    # the record's Kafka headers, in order (kcat -J's, a sink's headers file)
    ("kafka_headers", "array<struct<key: string, value: string>>"),
)
MANIFEST_COLUMNS = (
    ("raw_table", "string"),
    ("landing_file", "string"),
    ("file_size", "bigint"),
    ("file_mtime_ns", "bigint"),
    ("file_sha256", "string"),
    ("lines", "bigint"),
    ("landing_batch", "bigint"),
)
DUPLICATE_COLUMNS = (
    ("raw_table", "string"),
    ("landing_file", "string"),
    ("landing_line", "bigint"),
    ("kafka_partition", "int"),
    ("kafka_offset", "bigint"),
    ("landing_batch", "bigint"),
    ("reason", "string"),
)
TABLE_PROPERTIES = {
    "format-version": "2",
    "write.distribution-mode": "none",
    "write.delete.mode": "merge-on-read",
    "write.parquet.compression-codec": "zstd",
    # Landed values compress 20:1 (a schema block repeated on every line):
    # a large plain file, landed by one task, made one 60 MB file of one row
    # group, which the base model then decoded in one task (300k events:
    # 54.8 s against 15.5 s for the ceiling's whole job). Row groups and read
    # splits of 8 MB let a landing's data be decoded in parallel.
    "write.parquet.row-group-size-bytes": str(8 << 20),
    "read.split.target-size": str(8 << 20),
}
_UNSPLIT = str(1 << 40)  # bytes: larger than any dump, so one task per file


@dataclass(frozen=True)
class ManifestEntry:
    """What the manifest remembers of one landed file."""

    size: int
    mtime_ns: int
    sha256: str
    lines: int
    batch: int


@dataclass(frozen=True)
class FilePlan:
    """How one file is read in this batch."""

    file: LandingFile
    start_line: int
    first_offset: int  # plain files: offset of line 0
    size: int
    mtime_ns: int
    # what Spark reads: the file itself, or its decompressed copy
    # (``spark_readable``); likewise the sink's keys and headers files
    read: Path | None = None
    keys_read: Path | None = None
    headers_read: Path | None = None

    @property
    def spark_path(self) -> Path:
        return self.read or self.file.path


@dataclass(frozen=True)
class LandingReport:
    """What one landing run did for one topic."""

    topic: str
    table: str
    files_read: int
    files_unchanged: int
    read: int
    landed: int
    already_landed: int
    unreadable: int
    seconds: float
    rolled_back: int = 0  # uncommitted batches of a landing that died, deleted
    # the newest record landed, as the sources' loaded_at_field has it (its
    # Kafka timestamp, else its batch's time), ms since the epoch
    newest_ms: int | None = None


def _ddl(columns: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{name} {kind}" for name, kind in columns)


def _properties() -> str:
    return ", ".join(f"'{k}' = '{v}'" for k, v in TABLE_PROPERTIES.items())


def create_table(engine: SqlEngine, name: str, columns: tuple[tuple[str, str], ...]) -> None:
    """Create an Iceberg table of the landing's kind (``TABLE_PROPERTIES``)
    unless it exists."""
    engine.sql(
        f"create table if not exists {name} ({_ddl(columns)}) using iceberg"
        f" tblproperties ({_properties()})"
    )


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


def _numbered_by_folder(item: LandingFile) -> bool:
    """Whether a file's offsets are its lines' places across the folder's
    such files (plain form without a sink's name)."""
    return not item.is_kcat and item.sink is None


def spark_readable(path: Path | None, scratch: Path) -> Path | None:
    """``path``, or a decompressed copy of it under ``scratch`` where Spark
    cannot read it as it is: Spark reads ``.gz`` itself, not ``.zst`` (its
    codec needs Hadoop's native library)."""
    if path is None or not path.name.endswith(".zst"):
        return path
    scratch.mkdir(parents=True, exist_ok=True)
    # named by the file's path (the landing hashes its bytes once, for the
    # manifest), decompressed afresh each time: the file may have changed
    copy = scratch / f"{text_md5(str(path.resolve()))[:16]}-{path.name[: -len('.zst')]}"
    partial = copy.with_name(copy.name + ".partial")
    with open_binary(path) as source, partial.open("wb") as target:
        shutil.copyfileobj(source, target, 1 << 20)
    partial.replace(copy)
    return copy


def plan_files(
    files: list[LandingFile], manifest: dict[str, ManifestEntry], scratch: Path | None = None
) -> tuple[list[FilePlan], int]:
    """Which files to read and from which line; returns (plans, unchanged).
    A compressed file that changed is read whole (a compressed stream cannot
    be read from a byte on): the records it had already landed are found
    again and dropped by the duplicate check. Files Spark cannot read as
    they are get a decompressed copy under ``scratch``."""
    plans: list[FilePlan] = []
    unchanged = 0
    plain_offset = 0
    for item in files:
        stat = item.path.stat()
        entry = manifest.get(item.relative)
        start = 0
        if entry is not None and (entry.size, entry.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
            unchanged += 1
            plain_offset += entry.lines if _numbered_by_folder(item) else 0
            continue
        grown = entry is not None and stat.st_size > entry.size and not item.compressed
        if grown and entry is not None and file_digest(item.path, entry.size) == entry.sha256:
            # the lines after those landed; the last one again when it had no
            # newline yet (a writer was mid-line: it lands whole now, and its
            # partial copy, if readable, is a duplicate the repair drops).
            # Re-reading a whole last line made every append a duplicate
            # repair (a merge on the raw table: seconds a cycle, issue 43)
            start = entry.lines if _ends_a_line(item.path, entry.size) else max(entry.lines - 1, 0)
        where = scratch or Path(tempfile.gettempdir()) / "cdc-landing-decompressed"
        plans.append(
            FilePlan(
                item,
                start,
                plain_offset,
                stat.st_size,
                stat.st_mtime_ns,
                spark_readable(item.path, where),
                spark_readable(item.keys, where),
                spark_readable(item.headers, where),
            )
        )
        if _numbered_by_folder(item):
            plain_offset += count_lines(item.path)
    return plans, unchanged


def _ends_a_line(path: Path, size: int) -> bool:
    """Whether the first ``size`` bytes of ``path`` end with a newline."""
    if size <= 0:
        return False
    with path.open("rb") as handle:
        handle.seek(size - 1)
        return handle.read(1) == b"\n"


def _manifest_rows(
    table: str,
    plans: list[FilePlan],
    hashes: dict[str, Future[str]],
    summary: batch_sql.BatchSummary,
    batch: int,
) -> list[str]:
    """The manifest rows of a topic's batch (``commit`` writes them)."""
    return [
        f"({spark_string(table)}, {spark_string(p.file.relative)}, {p.size}L, {p.mtime_ns}L,"
        f" '{hashes[p.file.relative].result()}',"
        f" {max(summary.last_lines.get(p.file.relative, 0), p.start_line)}L, {batch}L)"
        for p in plans
    ]


def commit(engine: SqlEngine, rows: list[str]) -> None:
    """Write manifest rows (one Iceberg commit): this commits the batches of
    the topics they name; a topic's raw rows of a batch whose manifest rows
    were never written are rolled back by the next landing."""
    if not rows:
        return
    columns = ", ".join(name for name, _ in MANIFEST_COLUMNS)
    values = ",\n".join(rows)
    engine.sql(f"insert into {RAW_SCHEMA}.{MANIFEST_TABLE} ({columns}) values\n{values}")


@contextmanager
def one_task_per_file(engine: SqlEngine) -> Iterator[None]:
    """Spark reads each landing file whole, in one task (a line's number is
    its place in the file); the settings as they were after."""
    keys = ("spark.sql.files.maxPartitionBytes", "spark.sql.files.openCostInBytes")
    saved = {key: str(engine.sql(f"set {key}")[0]["value"]) for key in keys}
    for key in keys:
        engine.sql(f"set {key}={_UNSPLIT}")
    try:
        yield
    finally:
        for key, value in saved.items():
            engine.sql(f"set {key}={value}")


LAST_LANDING_FILE = "last-landing.json"


def landing_fingerprint(landing: Path, known_topics: Iterable[str]) -> dict[str, Any]:
    """What a landing looks like from outside: every dump file's size and
    modification time, and the raw tables the project knows. Taken before
    a landing reads anything, so a file that changes meanwhile is seen as
    changed next time."""
    files = {}
    for topic_dir in topic_dirs(landing):
        for path in landing_paths(topic_dir):
            stat = path.stat()
            below = path.relative_to(topic_dir).as_posix()
            files[f"{topic_dir.name}/{below}"] = [stat.st_size, stat.st_mtime_ns]
    return {
        "landing": str(landing.resolve()),
        "files": files,
        "tables": sorted({raw_table_name(t) for t in known_topics}),
        "topics": sorted(known_topics),
    }


def changed_topics(fingerprint: dict[str, Any], state: Path) -> set[str] | None:
    """The topics whose dump files differ from what this state folder's last
    landing saw (``landing_fingerprint``), plus known topics whose raw table
    that landing did not create; None when there is no such landing to
    compare with (then every topic is landed). An empty set: nothing to
    land, and Spark need not start. Any doubt answers None."""
    remembered = _remembered(state)
    if remembered is None or remembered.get("landing") != fingerprint["landing"]:
        return None
    old, new = _files_by_topic(remembered.get("files", {})), _files_by_topic(fingerprint["files"])
    changed = {topic for topic in old.keys() | new.keys() if old.get(topic) != new.get(topic)}
    tables = set(remembered.get("tables", ()))
    created = {t for t in fingerprint["topics"] if raw_table_name(t) not in tables}
    return changed | created


def clean_topics(state: Path) -> frozenset[str]:
    """The topics that had files in this state folder's last landing, which
    ran to the end (every batch before it committed or rolled back)."""
    remembered = _remembered(state) or {}
    return frozenset(_files_by_topic(remembered.get("files", {})))


def topics_with_records(fingerprint: dict[str, Any]) -> set[str]:
    """The topics of a landing (``landing_fingerprint``) with a dump file
    that is not empty."""
    return {
        topic
        for topic, files in _files_by_topic(fingerprint["files"]).items()
        if any(size > 0 for size, _ in files.values())
    }


def landed_topics(state: Path) -> set[str] | None:
    """``topics_with_records`` of this state folder's last landing (None:
    no landing ran to the end here)."""
    remembered = _remembered(state)
    return None if remembered is None else topics_with_records(remembered)


def _remembered(state: Path) -> dict[str, Any] | None:
    """The fingerprint the last landing that ran to the end noted, if any."""
    path = state / LAST_LANDING_FILE
    try:
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded


def _files_by_topic(files: dict[str, Any]) -> dict[str, dict[str, Any]]:
    grouped: dict[str, dict[str, Any]] = {}
    for name, stat in files.items():
        topic, _, file_name = name.partition("/")
        grouped.setdefault(topic, {})[file_name] = stat
    return grouped


def remember_landing(fingerprint: dict[str, Any], state: Path) -> None:
    """Note what a successful landing saw (see ``nothing_new``)."""
    state.mkdir(parents=True, exist_ok=True)
    text = json.dumps(fingerprint, sort_keys=True)
    (state / LAST_LANDING_FILE).write_text(text, encoding="utf-8")


def forget_landing(state: Path) -> None:
    """Before a landing starts: a run that dies leaves no stale note."""
    (state / LAST_LANDING_FILE).unlink(missing_ok=True)


def next_batch_id(manifest: dict[str, dict[str, ManifestEntry]]) -> int:
    """A strictly increasing batch id: epoch microseconds, or the last
    committed batch + 1."""
    last = max((e.batch for entries in manifest.values() for e in entries.values()), default=0)
    return max(time.time_ns() // 1000, last + 1)


# the raw tables' columns as of the newest layout: a landing finding raw
# tables of an older one (the manifest's property says) adds the columns
# they lack, once
RAW_LAYOUT_PROPERTY = "cdc.raw-columns"


def prepare(engine: SqlEngine) -> None:
    """Create the landing database and the manifest table; bring raw tables
    of an older layout to the newest (``RAW_LAYOUT_PROPERTY``)."""
    engine.sql(f"create database if not exists {RAW_SCHEMA}")
    manifest = f"{RAW_SCHEMA}.{MANIFEST_TABLE}"
    create_table(engine, manifest, MANIFEST_COLUMNS)
    create_table(engine, f"{RAW_SCHEMA}.{DUPLICATES_TABLE}", DUPLICATE_COLUMNS)
    layout = str(len(RAW_COLUMNS))
    rows = engine.sql(f"show tblproperties {manifest} ({spark_string(RAW_LAYOUT_PROPERTY)})")
    if rows and str(rows[0]["value"]) == layout:
        return
    for table in sorted(raw_tables(engine)):
        if not table.startswith("_"):
            _add_missing_columns(engine, f"{RAW_SCHEMA}.{table}")
    engine.sql(
        f"alter table {manifest} set tblproperties"
        f" ({spark_string(RAW_LAYOUT_PROPERTY)} = {spark_string(layout)})"
    )


def _add_missing_columns(engine: SqlEngine, table: str) -> None:
    """Add the raw columns a table of an older layout lacks (at the end:
    older rows read null there)."""
    present = {str(row["col_name"]) for row in engine.sql(f"describe table {table}")}
    missing = [(name, kind) for name, kind in RAW_COLUMNS if name not in present]
    if missing and {"kafka_value", "landing_batch"} <= present:  # a raw table
        engine.sql(f"alter table {table} add columns ({_ddl(tuple(missing))})")


def raw_tables(engine: SqlEngine) -> set[str]:
    """The tables of the landing database (one statement)."""
    return {str(row["tableName"]) for row in engine.sql(f"show tables in {RAW_SCHEMA}")}


def land_all(
    engine: SqlEngine,
    landing: Path,
    progress: Callable[[str], Any] | None = None,
    known_topics: Iterable[str] = (),
    modelled_only: bool = False,
    only: set[str] | None = None,
    clean: frozenset[str] = frozenset(),
    scratch: Path | None = None,
) -> list[LandingReport]:
    """Land every topic folder of ``landing`` as one batch (with
    ``modelled_only``, only those of ``known_topics``, the project's
    generated specs: a topic no model reads stays in its folder; with
    ``only``, only those topics: the others are as the last landing left
    them). Raw tables of ``known_topics`` that the landing has no folder
    for are created empty, so their models build. Topics in ``clean`` had
    files in the last landing, which ran to the end: none of their batches
    can be uncommitted, so they skip the roll-back check. Decompressed
    copies of files Spark cannot read as they are go to ``scratch`` (a
    temporary folder by default), removed when the landing ends."""
    with tempfile.TemporaryDirectory(prefix="cdc-landing-") as temporary:
        where = scratch or Path(temporary)
        try:
            return _land_all(
                engine, landing, progress, known_topics, modelled_only, only, clean, where
            )
        finally:
            shutil.rmtree(where, ignore_errors=True)


def _land_all(
    engine: SqlEngine,
    landing: Path,
    progress: Callable[[str], Any] | None,
    known_topics: Iterable[str],
    modelled_only: bool,
    only: set[str] | None,
    clean: frozenset[str],
    scratch: Path,
) -> list[LandingReport]:
    prepare(engine)
    known = set(known_topics)
    folders = [
        d
        for d in topic_dirs(landing)
        if (not modelled_only or d.name in known) and (only is None or d.name in only)
    ]
    existing = raw_tables(engine)
    without_folder = (known if only is None else known & only) - {d.name for d in folders}
    for topic in sorted(without_folder):
        if raw_table_name(topic) not in existing:
            create_table(engine, f"{RAW_SCHEMA}.{raw_table_name(topic)}", RAW_COLUMNS)
    manifest = read_manifest(engine)
    batch = next_batch_id(manifest)
    topics = _planned(folders, manifest, {raw_table_name(t): t for t in known}, scratch)
    reports: list[LandingReport] = []
    with ThreadPoolExecutor(max_workers=1) as hasher, one_task_per_file(engine):
        # the topics' batches are committed together (one manifest commit, not
        # one a topic), every ``COMMIT_EVERY`` topics
        for chunk in runs_of(topics, COMMIT_EVERY):
            commits: list[str] = []
            landed = _land_chunk(engine, chunk, batch, existing, clean, hasher, commits)
            commit(engine, commits)
            for report in landed:
                reports.append(report)
                if progress is not None:
                    progress(_progress_line(len(reports), len(topics), report))
    return reports


# topics landed between two manifest commits: a landing that dies re-lands at
# most this many topics' batches
COMMIT_EVERY = 50


@dataclass
class _Topic:
    """One topic folder of a landing, its files planned."""

    folder: Path
    table: str
    manifest: dict[str, ManifestEntry]
    plans: list[FilePlan]
    unchanged: int
    seconds: float  # its own statements so far
    rolled_back: int = 0

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def committed(self) -> int:
        """Its last committed batch (-1: none)."""
        return max((e.batch for e in self.manifest.values()), default=-1)


def _planned(
    folders: list[Path],
    manifest: dict[str, dict[str, ManifestEntry]],
    tables: dict[str, str],
    scratch: Path,
) -> list[_Topic]:
    """Each folder's files to read; two folders on one raw table refused."""
    topics = []
    for folder in folders:
        started = time.monotonic()
        table = raw_table_name(folder.name)
        if tables.setdefault(table, folder.name) != folder.name:
            raise ValueError(
                f"topics {tables[table]!r} and {folder.name!r} map to the "
                f"same raw table {table!r}; rename one folder"
            )
        entries = manifest.get(table, {})
        plans, unchanged = plan_files(topic_files(folder), entries, scratch / table)
        topics.append(_Topic(folder, table, entries, plans, unchanged, time.monotonic() - started))
    return topics


def _progress_line(number: int, of: int, report: LandingReport) -> str:
    return (
        f"[{number}/{of}] {report.topic}: {report.landed} new of "
        f"{report.read} read ({report.files_read} file(s) read, "
        f"{report.files_unchanged} unchanged) in {report.seconds:.1f}s"
        + (", an uncommitted batch rolled back" if report.rolled_back else "")
    )


def _land_chunk(
    engine: SqlEngine,
    chunk: list[_Topic],
    batch: int,
    existing: set[str],
    clean: frozenset[str],
    hasher: ThreadPoolExecutor,
    commits: list[str],
) -> list[LandingReport]:
    """Land the new records of some topic folders as batch ``batch``, their
    manifest rows put in ``commits``. Per topic: its table created if
    missing, one insert (``engine.statements_at_once`` topics at a time: a
    topic's seconds are its part of their wall time); for them all: the
    roll-back check, the summary and the duplicate check, one statement
    each. After a landing that ran to the end (``clean``: every batch it
    wrote was committed, and it rolled back any older one), no batch of a
    topic it landed can be uncommitted, nor of a table created now: those
    skip the roll-back check. Call it inside ``one_task_per_file``."""
    started = time.monotonic()
    doubtful = [t for t in chunk if t.table in existing and t.name not in clean]
    _roll_back_uncommitted(engine, doubtful)
    landing = [t for t in chunk if t.plans]
    hashes = {
        p.file.relative: hasher.submit(file_digest, p.file.path) for t in landing for p in t.plans
    }
    columns = ", ".join(name for name, _ in RAW_COLUMNS)

    def insert(topic: _Topic) -> tuple[str, float]:
        inserting = time.monotonic()
        if topic.table not in existing:
            create_table(engine, f"{RAW_SCHEMA}.{topic.table}", RAW_COLUMNS)
        if topic.plans:
            select = batch_sql.records_select(topic.name, topic.plans, batch)
            engine.sql(f"insert into {RAW_SCHEMA}.{topic.table} ({columns})\n{select}")
        return topic.table, time.monotonic() - inserting

    # each topic's insert is its own Spark job and Iceberg commit (Iceberg
    # commits one table at a time): several at once where the engine allows
    pool_started = time.monotonic()
    busy = dict(each_at_once(engine, insert, chunk))
    existing.update(busy)
    # a topic's part of the inserts' wall time, in proportion to its own
    own = _shares(busy, time.monotonic() - pool_started)
    if landing:
        crash_point(AFTER_RAW_APPEND)
    tables = [t.table for t in landing]
    summaries = batch_sql.summaries(
        [row for part in _parts(tables) for row in engine.sql(batch_sql.summaries_sql(part, batch))]
    )
    empty = batch_sql.BatchSummary(0, 0, {}, [])
    # a table's first batch (no manifest rows) can only hold repeats, which
    # the summary tells of; older batches are read only where they overlap
    # the batch's offsets or lines: most tables need no duplicate check
    older = {t.table: summaries[t.table] for t in landing if t.manifest and t.table in summaries}
    overlapping = {
        str(row["raw_table"])
        for part in _parts(list(older))
        for row in engine.sql(batch_sql.overlaps_sql({t: older[t] for t in part}, batch))
    }
    scopes = [
        batch_sql.DuplicateScope(table, summary, table in overlapping)
        for table, summary in summaries.items()
        if summary.repeats or table in overlapping
    ]
    dropped = _drop_duplicates(engine, scopes, batch)
    for topic in landing:
        summary = summaries.get(topic.table, empty)
        commits.extend(_manifest_rows(topic.table, topic.plans, hashes, summary, batch))
    # the statements for them all, shared out evenly
    shared = (time.monotonic() - started - sum(own.values())) / len(chunk)
    reports = []
    for topic in chunk:
        summary = summaries.get(topic.table, empty)
        duplicates = dropped.get(topic.table, 0)
        reports.append(
            LandingReport(
                topic.name,
                topic.table,
                len(topic.plans),
                topic.unchanged,
                summary.records,
                summary.records - duplicates,
                duplicates,
                summary.unreadable,
                topic.seconds + own.get(topic.table, 0.0) + shared,
                topic.rolled_back,
                summary.newest_ms,
            )
        )
    return reports


def _shares(seconds: dict[str, float], wall: float) -> dict[str, float]:
    """``wall`` shared out in proportion to ``seconds`` (statements that
    ran at the same time: their shares add up to the time they took)."""
    total = sum(seconds.values())
    return {key: wall * value / total if total else 0.0 for key, value in seconds.items()}


def _roll_back_uncommitted(engine: SqlEngine, topics: list[_Topic]) -> None:
    """Delete the batches of the topics' tables newer than their last
    committed one (one statement finds them)."""
    if not topics:
        return
    by_table = {t.table: t for t in topics}
    rows = [
        r for part in _parts(list(by_table)) for r in engine.sql(batch_sql.newest_batches_sql(part))
    ]
    for row in rows:
        topic = by_table[row["raw_table"]]
        if row["newest"] is None or row["newest"] <= topic.committed:
            continue
        newer = f"landing_batch > {topic.committed}"
        engine.sql(f"delete from {RAW_SCHEMA}.{topic.table} where {newer}")
        engine.sql(
            f"delete from {RAW_SCHEMA}.{DUPLICATES_TABLE}"
            f" where raw_table = {spark_string(topic.table)} and {newer}"
        )
        topic.rolled_back = 1


def _parts(items: list[_T]) -> Iterator[list[_T]]:
    """``items`` in runs of ``batch_sql.TABLES_PER_STATEMENT``."""
    return runs_of(items, batch_sql.TABLES_PER_STATEMENT)


def _drop_duplicates(
    engine: SqlEngine, scopes: list[batch_sql.DuplicateScope], batch: int
) -> dict[str, int]:
    """Delete the records of the tables' batch ``batch`` that were landed
    before or occur twice in it, each written to the ledger first; returns
    how many, per table that had any."""
    found: dict[str, int] = {}
    for part in _parts(scopes):
        rows = engine.sql(
            "select raw_table, count(*) as found from (select distinct raw_table,"
            f" landing_file, landing_line from ({batch_sql.duplicates_sql(part, batch)}))"
            " group by raw_table"
        )
        found.update({str(row["raw_table"]): int(row["found"]) for row in rows})
    # found again, over the tables that have some, into the ledger first
    for part in _parts([s for s in scopes if s.table in found]):
        engine.sql(
            f"""
            insert into {RAW_SCHEMA}.{DUPLICATES_TABLE}
            select raw_table, landing_file, landing_line, kafka_partition, kafka_offset,
                {batch}L, min(reason)
            from ({batch_sql.duplicates_sql(part, batch)})
            group by raw_table, landing_file, landing_line, kafka_partition, kafka_offset
            """
        )
    for table in found:
        engine.sql(
            f"""
            merge into {RAW_SCHEMA}.{table} as raw
            using (
                select distinct landing_file, landing_line from {RAW_SCHEMA}.{DUPLICATES_TABLE}
                where raw_table = {spark_string(table)} and landing_batch = {batch}
            ) as dup
            on raw.landing_batch = {batch} and raw.landing_file = dup.landing_file
                and raw.landing_line = dup.landing_line
            when matched then delete
            """
        )
    return found
