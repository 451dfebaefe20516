"""Land topic dumps into the raw Iceberg tables, with Spark.

Each topic lands in ``cdc_landing.<table>`` (Iceberg, one row per Kafka
record, the value kept as the text the JsonConverter wrote). A landing run
is one batch (``landing_batch``, strictly increasing) and works like this:

1. files whose size and modification time are unchanged since they were
   landed (the manifest table ``cdc_landing._landing_manifest`` remembers)
   are not read at all; a file that grew with its landed bytes unchanged
   is read from its last landed line on; anything else is read whole;
2. Spark reads the files (one task per file, so every record keeps its line
   number), parses the kcat wrapper where there is one, and appends the
   records to the raw table in one commit, in file order;
3. records whose identity — (partition, offset), or (file, line) for a line
   without coordinates (every plain-form line) — was already landed, or
   occurs twice in the batch, are found on the narrow coordinate columns
   (older files outside the batch's offset range are pruned by Iceberg's
   file statistics), written to the ledger ``cdc_landing._landing_duplicates``
   (what was dropped, and why) and deleted from the batch: every line read
   is a raw row or a ledger row;
4. the manifest rows of the batch are written: this commits the batch. A
   batch found in a raw table without manifest rows (a landing that died
   between 2 and 4) is deleted at the start of the next landing, and its
   files land again.

Memory stays bounded whatever the size of the dumps: Python only hashes
files in chunks, Spark streams them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from python_helpers.digest import file_digest
from python_helpers.engine.sql_engine import SqlEngine, first_value
from python_helpers.escaping import spark_identifier, spark_string
from python_helpers.land.crash_points import AFTER_RAW_APPEND, crash_point
from python_helpers.land.landing import (
    LandingFile,
    count_lines,
    jsonl_paths,
    topic_dirs,
    topic_files,
)
from python_helpers.naming import raw_table_name

RAW_SCHEMA = "cdc_landing"
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
}
KCAT_WRAPPER = (
    "struct<topic: string, partition: int, offset: bigint, ts: bigint, key: string,"
    " payload: string, _unreadable: string>"
)
# monotonically_increasing_id() is (partition index << 33) + row in partition
_ROW_IN_PARTITION = (1 << 33) - 1
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


def _roll_back_uncommitted(engine: SqlEngine, table: str, committed: int) -> int:
    """Delete the batches of ``table`` newer than its last committed one."""
    newest = first_value(engine, f"select max(landing_batch) from {RAW_SCHEMA}.{table}")
    if newest is None or newest <= committed:
        return 0
    engine.sql(f"delete from {RAW_SCHEMA}.{table} where landing_batch > {committed}")
    engine.sql(
        f"delete from {RAW_SCHEMA}.{DUPLICATES_TABLE}"
        f" where raw_table = {spark_string(table)} and landing_batch > {committed}"
    )
    return 1


def plan_files(
    files: list[LandingFile], manifest: dict[str, ManifestEntry]
) -> tuple[list[FilePlan], int]:
    """Which files to read and from which line; returns (plans, unchanged)."""
    plans: list[FilePlan] = []
    unchanged = 0
    plain_offset = 0
    for item in files:
        stat = item.path.stat()
        entry = manifest.get(item.relative)
        start = 0
        if entry is not None and (entry.size, entry.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
            unchanged += 1
            plain_offset += entry.lines if not item.is_kcat else 0
            continue
        grown = entry is not None and stat.st_size > entry.size
        if grown and entry is not None and file_digest(item.path, entry.size) == entry.sha256:
            # the lines after those landed; the last one again when it had no
            # newline yet (a writer was mid-line: it lands whole now, and its
            # partial copy, if readable, is a duplicate the repair drops).
            # Re-reading a whole last line made every append a duplicate
            # repair (a merge on the raw table: seconds a cycle, issue 43)
            start = entry.lines if _ends_a_line(item.path, entry.size) else max(entry.lines - 1, 0)
        plans.append(FilePlan(item, start, plain_offset, stat.st_size, stat.st_mtime_ns))
        if not item.is_kcat:
            plain_offset += count_lines(item.path)
    return plans, unchanged


def _ends_a_line(path: Path, size: int) -> bool:
    """Whether the first ``size`` bytes of ``path`` end with a newline."""
    if size <= 0:
        return False
    with path.open("rb") as handle:
        handle.seek(size - 1)
        return handle.read(1) == b"\n"


def _file_literal_map(plans: list[FilePlan]) -> str:
    entries = ", ".join(
        f"{spark_string(p.file.path.name)}, named_struct('is_kcat', {str(p.file.is_kcat).lower()},"
        f" 'first_offset', {p.first_offset}L, 'start_line', {p.start_line}L)"
        for p in plans
    )
    return f"map({entries})"


def read_batch(engine: SqlEngine, topic: str, plans: list[FilePlan], batch: int) -> str:
    """The select of the records of the planned files as rows of the raw
    table (over the temporary view of their lines it creates)."""
    scans = "\n        union all\n        ".join(
        # a byte-order mark (at the start of a file, or of any line of
        # files joined together) is no part of a record
        "select if(startswith(value, '\\uFEFF'), substr(value, 2), value) as line,"
        " _metadata.file_name as file_name,"
        f" monotonically_increasing_id() & {_ROW_IN_PARTITION} as line_no"
        f" from text.{spark_identifier(str(p.file.path.resolve()))}"
        for p in plans
    )
    engine.sql(f"create or replace temporary view _cdc_landing_lines as\n        {scans}")
    topic_literal = spark_string(topic)
    return f"""
        with planned as (
            select lines.*, element_at({_file_literal_map(plans)}, lines.file_name) as plan
            from _cdc_landing_lines as lines
        ),
        wanted as (
            select * from planned
            where line_no >= plan.start_line and (not plan.is_kcat or trim(line) != '')
        ),
        parsed as (
            select
                wanted.*,
                case when plan.is_kcat then from_json(line, '{KCAT_WRAPPER}',
                    map('columnNameOfCorruptRecord', '_unreadable')) end as kcat,
                -- the JSON reader decodes malformed UTF-8 to U+FFFD: such a
                -- line is kept whole, its bytes as read
                plan.is_kcat and cast(line as binary) != encode(line, 'utf-8') as not_utf8
            from wanted
        )
        select
            case when plan.is_kcat then coalesce(kcat.topic, {topic_literal})
                else {topic_literal} end as kafka_topic,
            -- a plain-form line has no Kafka coordinates: no partition (it is
            -- never taken for a duplicate of a record that has them); its
            -- offset is its position across the folder's plain files
            case when plan.is_kcat then kcat.partition end as kafka_partition,
            case when plan.is_kcat then kcat.offset
                else plan.first_offset + line_no end as kafka_offset,
            kcat.ts as kafka_timestamp_ms,
            if(not_utf8, null, kcat.key) as kafka_key,
            case
                when not plan.is_kcat then if(trim(line) = '', null, line)
                when kcat._unreadable is not null or not_utf8 then line
                else kcat.payload
            end as kafka_value,
            concat({topic_literal}, '/', file_name) as landing_file,
            line_no as landing_line,
            case
                when not plan.is_kcat then null
                when not_utf8 then 'kcat line with bytes that are not UTF-8: kept whole'
                when kcat._unreadable is not null
                    then 'unreadable kcat line: not a JSON object with the kcat fields'
                when kcat.partition is null or kcat.offset is null
                    then 'kcat line without a numeric partition/offset'
            end as landing_error,
            {batch}L as landing_batch
        from parsed
        """


@dataclass(frozen=True)
class BatchSummary:
    """Narrow facts about a batch just written, from one scan of it."""

    records: int
    unreadable: int
    last_lines: dict[str, int]
    ranges: list[tuple[int, int, int]]  # (partition, first offset, last offset)
    newest_ms: int | None = None  # see LandingReport


def _summarise(engine: SqlEngine, table: str, batch: int) -> BatchSummary:
    rows = engine.sql(
        f"select landing_file, kafka_partition, count(*) as records,"
        " count(landing_error) as unreadable, max(landing_line) as last_line,"
        " min(kafka_offset) as first_offset, max(kafka_offset) as last_offset,"
        " max(coalesce(kafka_timestamp_ms, landing_batch div 1000)) as newest_ms"
        f" from {RAW_SCHEMA}.{table} where landing_batch = {batch}"
        " group by landing_file, kafka_partition"
    )
    last_lines: dict[str, int] = {}
    spans: dict[int, tuple[int, int]] = {}
    for row in rows:
        file = row["landing_file"]
        last_lines[file] = max(last_lines.get(file, 0), row["last_line"] + 1)
        partition, first, last = row["kafka_partition"], row["first_offset"], row["last_offset"]
        if partition is not None and first is not None:
            low, high = spans.get(partition, (first, last))
            spans[partition] = (min(low, first), max(high, last))
    return BatchSummary(
        records=sum(row["records"] for row in rows),
        unreadable=sum(row["unreadable"] for row in rows),
        last_lines=last_lines,
        ranges=[(p, low, high) for p, (low, high) in sorted(spans.items())],
        newest_ms=max(
            (int(r["newest_ms"]) for r in rows if r["newest_ms"] is not None), default=None
        ),
    )


def _repair_duplicates(engine: SqlEngine, table: str, batch: int, summary: BatchSummary) -> int:
    """Delete the records of ``batch`` that were landed before or occur
    twice in it; returns how many."""
    name = f"{RAW_SCHEMA}.{table}"
    in_range = " or ".join(
        f"(kafka_partition = {p} and kafka_offset between {lo} and {hi})"
        for p, lo, hi in summary.ranges
    )
    engine.sql(
        f"""
        create or replace temporary view _cdc_landing_duplicates as
        with batch_rows as (
            select kafka_partition, kafka_offset, landing_file, landing_line,
                kafka_partition is null or kafka_offset is null as by_line
            from {name} where landing_batch = {batch}
        ),
        older as (
            select kafka_partition, kafka_offset, cast(null as string) as landing_file,
                cast(null as bigint) as landing_line
            from {name}
            where landing_batch < {batch} and ({in_range or "false"})
            union all
            select null, null, landing_file, landing_line
            from {name}
            where landing_batch < {batch} and (kafka_partition is null or kafka_offset is null)
                and landing_file in (select landing_file from batch_rows where by_line)
        ),
        numbered as (
            select *, row_number() over (
                partition by kafka_partition, kafka_offset order by landing_file, landing_line
            ) as occurrence
            from batch_rows where not by_line
        )
        select landing_file, landing_line, kafka_partition, kafka_offset,
            'repeated in the batch' as reason
        from numbered where occurrence > 1
        union all
        select b.landing_file, b.landing_line, b.kafka_partition, b.kafka_offset,
            'landed before' as reason
        from batch_rows as b
        left semi join older as o on
            (not b.by_line and b.kafka_partition = o.kafka_partition
                and b.kafka_offset = o.kafka_offset)
            or (b.by_line and b.landing_file = o.landing_file
                and b.landing_line = o.landing_line)
        """
    )
    found = int(
        first_value(
            engine,
            "select count(*) from (select distinct landing_file, landing_line"
            " from _cdc_landing_duplicates)",
        )
    )
    if found:
        engine.sql(
            f"""
            insert into {RAW_SCHEMA}.{DUPLICATES_TABLE}
            select {spark_string(table)}, landing_file, landing_line, kafka_partition, kafka_offset,
                {batch}L, min(reason)
            from _cdc_landing_duplicates
            group by landing_file, landing_line, kafka_partition, kafka_offset
            """
        )
        engine.sql(
            f"""
            merge into {name} as raw
            using (select distinct landing_file, landing_line from _cdc_landing_duplicates) as dup
            on raw.landing_batch = {batch} and raw.landing_file = dup.landing_file
                and raw.landing_line = dup.landing_line
            when matched then delete
            """
        )
    return found


def _manifest_rows(
    table: str,
    plans: list[FilePlan],
    hashes: dict[str, Future[str]],
    summary: BatchSummary,
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


def land_topic(
    engine: SqlEngine,
    topic_dir: Path,
    batch: int,
    manifest: dict[str, ManifestEntry],
    hasher: ThreadPoolExecutor,
    after_clean_landing: bool = False,
    commits: list[str] | None = None,
) -> LandingReport:
    """Land the new records of one topic folder as batch ``batch``. After a
    landing that ran to the end (``after_clean_landing``: every batch it
    wrote was committed, and it rolled back any older one), no batch can be
    uncommitted: the roll-back check is skipped. ``commits``: the batch's
    manifest rows go there, for one commit of many topics (``commit``);
    None: committed here. Call it inside ``one_task_per_file``."""
    started = time.monotonic()
    topic = topic_dir.name
    table = raw_table_name(topic)
    create_table(engine, f"{RAW_SCHEMA}.{table}", RAW_COLUMNS)
    committed = max((e.batch for e in manifest.values()), default=-1)
    rolled_back = 0 if after_clean_landing else _roll_back_uncommitted(engine, table, committed)
    plans, unchanged = plan_files(topic_files(topic_dir), manifest)
    if not plans:
        seconds = time.monotonic() - started
        return LandingReport(topic, table, 0, unchanged, 0, 0, 0, 0, seconds, rolled_back)
    hashes = {p.file.relative: hasher.submit(file_digest, p.file.path) for p in plans}
    columns = ", ".join(name for name, _ in RAW_COLUMNS)
    select = read_batch(engine, topic, plans, batch)
    engine.sql(f"insert into {RAW_SCHEMA}.{table} ({columns})\n{select}")
    crash_point(AFTER_RAW_APPEND)
    summary = _summarise(engine, table, batch)
    duplicates = _repair_duplicates(engine, table, batch, summary)
    rows = _manifest_rows(table, plans, hashes, summary, batch)
    if commits is None:
        commit(engine, rows)
    else:
        commits.extend(rows)
    return LandingReport(
        topic,
        table,
        len(plans),
        unchanged,
        summary.records,
        summary.records - duplicates,
        duplicates,
        summary.unreadable,
        time.monotonic() - started,
        rolled_back,
        summary.newest_ms,
    )


LAST_LANDING_FILE = "last-landing.json"


def landing_fingerprint(landing: Path, known_topics: Iterable[str]) -> dict[str, Any]:
    """What a landing looks like from outside: every dump file's size and
    modification time, and the raw tables the project knows. Taken before
    a landing reads anything, so a file that changes meanwhile is seen as
    changed next time."""
    files = {}
    for topic_dir in topic_dirs(landing):
        for path in jsonl_paths(topic_dir):
            stat = path.stat()
            files[f"{topic_dir.name}/{path.name}"] = [stat.st_size, stat.st_mtime_ns]
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


def prepare(engine: SqlEngine) -> None:
    """Create the landing database and the manifest table."""
    engine.sql(f"create database if not exists {RAW_SCHEMA}")
    create_table(engine, f"{RAW_SCHEMA}.{MANIFEST_TABLE}", MANIFEST_COLUMNS)
    create_table(engine, f"{RAW_SCHEMA}.{DUPLICATES_TABLE}", DUPLICATE_COLUMNS)


def land_all(
    engine: SqlEngine,
    landing: Path,
    progress: Callable[[str], Any] | None = None,
    known_topics: Iterable[str] = (),
    modelled_only: bool = False,
    only: set[str] | None = None,
    clean: frozenset[str] = frozenset(),
) -> list[LandingReport]:
    """Land every topic folder of ``landing`` as one batch (with
    ``modelled_only``, only those of ``known_topics``, the project's
    generated specs: a topic no model reads stays in its folder; with
    ``only``, only those topics: the others are as the last landing left
    them). Raw tables of ``known_topics`` that the landing has no folder
    for are created empty, so their models build. Topics in ``clean`` had
    files in the last landing, which ran to the end: none of their batches
    can be uncommitted, so they skip the roll-back check."""
    prepare(engine)
    known = set(known_topics)
    folders = [
        d
        for d in topic_dirs(landing)
        if (not modelled_only or d.name in known) and (only is None or d.name in only)
    ]
    # land_topic creates the tables of the folders it lands
    without_folder = (known if only is None else known & only) - {d.name for d in folders}
    for topic in sorted(without_folder):
        create_table(engine, f"{RAW_SCHEMA}.{raw_table_name(topic)}", RAW_COLUMNS)
    manifest = read_manifest(engine)
    batch = next_batch_id(manifest)
    tables: dict[str, str] = {raw_table_name(t): t for t in known}
    reports = []
    # the topics' batches are committed together (one manifest commit, not
    # one a topic), every ``COMMIT_EVERY`` topics and when a topic fails
    commits: list[str] = []
    with ThreadPoolExecutor(max_workers=1) as hasher, one_task_per_file(engine):
        try:
            reports = _land_folders(
                engine, folders, batch, manifest, hasher, clean, tables, commits, progress
            )
        finally:
            commit(engine, commits)
    for view in ("_cdc_landing_lines", "_cdc_landing_duplicates"):
        engine.sql(f"drop view if exists {view}")
    return reports


# topics landed between two manifest commits: a landing that dies re-lands at
# most this many topics' batches
COMMIT_EVERY = 50


def _land_folders(
    engine: SqlEngine,
    folders: list[Path],
    batch: int,
    manifest: dict[str, dict[str, ManifestEntry]],
    hasher: ThreadPoolExecutor,
    clean: frozenset[str],
    tables: dict[str, str],
    commits: list[str],
    progress: Callable[[str], Any] | None,
) -> list[LandingReport]:
    reports = []
    for number, topic_dir in enumerate(folders, start=1):
        table = raw_table_name(topic_dir.name)
        if tables.setdefault(table, topic_dir.name) != topic_dir.name:
            raise ValueError(
                f"topics {tables[table]!r} and {topic_dir.name!r} map to the "
                f"same raw table {table!r}; rename one folder"
            )
        report = land_topic(
            engine,
            topic_dir,
            batch,
            manifest.get(table, {}),
            hasher,
            topic_dir.name in clean,
            commits,
        )
        if number % COMMIT_EVERY == 0:
            commit(engine, commits)
            commits.clear()
        if progress is not None:
            progress(
                f"[{number}/{len(folders)}] {report.topic}: {report.landed} new of "
                f"{report.read} read ({report.files_read} file(s) read, "
                f"{report.files_unchanged} unchanged) in {report.seconds:.1f}s"
                + (", an uncommitted batch rolled back" if report.rolled_back else "")
            )
        reports.append(report)
    return reports
