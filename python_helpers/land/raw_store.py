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
files in chunks, Spark streams them. The tables are ``raw_tables``'s, the
manifest ``manifest``'s, step 1 is ``file_plans``, the statements of 2–3
are ``batch_sql``'s; this module orders them.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from python_helpers.digest import file_digest
from python_helpers.engine.sql_engine import SqlEngine, each_at_once
from python_helpers.escaping import spark_string
from python_helpers.land import batch_sql, kafka_tables
from python_helpers.land.crash_points import AFTER_RAW_APPEND, crash_point
from python_helpers.land.file_plans import FilePlan, plan_files
from python_helpers.land.kafka_tables import TableLanding
from python_helpers.land.landing import (
    topic_dirs,
    topic_files,
)
from python_helpers.land.manifest import ManifestEntry, commit, next_batch_id, read_manifest
from python_helpers.land.raw_tables import (
    DUPLICATES_TABLE,
    RAW_COLUMNS,
    RAW_SCHEMA,
    create_table,
    prepare,
)
from python_helpers.naming import raw_table_name
from python_helpers.sequences import runs_of

_T = TypeVar("_T")
# bytes: larger than any dump, so no two files (or splits) share a task
_APART = str(1 << 40)


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


@contextmanager
def landing_splits(engine: SqlEngine) -> Iterator[None]:
    """Spark reads each landing file in splits of ``batch_sql.SPLIT_BYTES``
    (a small file whole), each split a task of its own: a large file is read
    by every core, and a row's place in its task is its place in its split.
    The settings as they were after."""
    wanted = {
        "spark.sql.files.maxPartitionBytes": str(batch_sql.SPLIT_BYTES),
        "spark.sql.files.openCostInBytes": _APART,
    }
    saved = {key: str(engine.sql(f"set {key}")[0]["value"]) for key in wanted}
    for key, value in wanted.items():
        engine.sql(f"set {key}={value}")
    try:
        yield
    finally:
        for key, value in saved.items():
            engine.sql(f"set {key}={value}")


def land_all(
    engine: SqlEngine,
    landing: Path,
    progress: Callable[[str], Any] | None = None,
    known_topics: Iterable[str] = (),
    modelled_only: bool = False,
    only: set[str] | None = None,
    clean: frozenset[str] = frozenset(),
    scratch: Path | None = None,
    tables: dict[str, TableLanding] | None = None,
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
    temporary folder by default), removed when the landing ends. The
    topics of ``tables`` are landed from their Kafka-source tables
    (kafka_tables), in the same batch, whatever ``only`` says: their
    folders, if any, are not read."""
    with tempfile.TemporaryDirectory(prefix="cdc-landing-") as temporary:
        where = scratch or Path(temporary)
        try:
            return _land_all(
                engine,
                landing,
                progress,
                known_topics,
                modelled_only,
                only,
                clean,
                where,
                tables or {},
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
    tables: dict[str, TableLanding],
) -> list[LandingReport]:
    existing = prepare(engine)
    known = set(known_topics)
    folders = [
        d
        for d in topic_dirs(landing)
        if (not modelled_only or d.name in known)
        and (only is None or d.name in only)
        and d.name not in tables
    ]
    without_folder = (known if only is None else known & only) - {d.name for d in folders}
    without_folder -= set(tables)
    for topic in sorted(without_folder):
        if raw_table_name(topic) not in existing:
            create_table(engine, f"{RAW_SCHEMA}.{raw_table_name(topic)}", RAW_COLUMNS)
    manifest = read_manifest(engine)
    batch = next_batch_id(manifest)
    topics = _planned(folders, manifest, {raw_table_name(t): t for t in known}, scratch)
    topics += _from_tables(engine, tables, manifest, {t.table for t in topics})
    reports: list[LandingReport] = []
    with ThreadPoolExecutor(max_workers=1) as hasher, landing_splits(engine):
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
    # landed from a Kafka-source table, not from files
    source: kafka_tables.TableRead | None = None

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


def _from_tables(
    engine: SqlEngine,
    tables: dict[str, TableLanding],
    manifest: dict[str, dict[str, ManifestEntry]],
    taken: set[str],
) -> list[_Topic]:
    """The table-landed topics, each with what to read of its table: the
    rows past the offsets its manifest rows say were landed; a topic whose
    table has none reads nothing (one look-up a source table finds them)."""
    offsets: dict[str, dict[int, int]] = {}
    for topic, source in tables.items():
        if raw_table_name(topic) in taken:
            raise ValueError(
                f"topic {topic!r} maps to the raw table of another topic: {raw_table_name(topic)!r}"
            )
        offsets[topic] = kafka_tables.next_offsets(source, manifest.get(raw_table_name(topic), {}))
    by_table: dict[str, dict[str, list[str]]] = {}  # source table -> Kafka topic -> topics
    for topic, source in tables.items():
        by_table.setdefault(source.table, {}).setdefault(source.kafka_topic, []).append(topic)
    fresh: set[str] = set()
    for table, topics in sorted(by_table.items()):
        reads = {kafka: offsets[names[0]] for kafka, names in topics.items() if len(names) == 1}
        fresh |= {name for names in topics.values() if len(names) > 1 for name in names}
        try:
            rows = engine.sql(kafka_tables.with_new_rows_sql(table, reads)) if reads else []
        except Exception as error:  # noqa: BLE001 - one table's trouble stops no other topic
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            names = ", ".join(sorted(n for ns in topics.values() for n in ns))
            print(f"warning: not landing {names}: table {table} not read: {first}")
            fresh -= {n for ns in topics.values() for n in ns}
            continue
        fresh |= {topics[str(row["topic"])][0] for row in rows}
    wanted = {tables[topic].table for topic in fresh}
    headers = {table: kafka_tables.has_headers(engine, table) for table in sorted(wanted)}
    found = []
    for topic, source in sorted(tables.items()):
        table = raw_table_name(topic)
        read = (
            kafka_tables.TableRead(source, offsets[topic], headers[source.table])
            if topic in fresh
            else None
        )
        found.append(
            _Topic(Path(topic), table, manifest.get(table, {}), [], 0, 0.0,
                   source=read)
        )  # fmt: skip
    return found


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
    skip the roll-back check. Call it inside ``landing_splits``."""
    started = time.monotonic()
    doubtful = [t for t in chunk if t.table in existing and t.name not in clean]
    _roll_back_uncommitted(engine, doubtful)
    landing = [t for t in chunk if t.plans or t.source]
    hashes = {
        p.file.relative: hasher.submit(file_digest, p.file.path) for t in landing for p in t.plans
    }
    columns = ", ".join(name for name, _ in RAW_COLUMNS)

    def insert(topic: _Topic) -> tuple[str, float]:
        inserting = time.monotonic()
        if topic.table not in existing:
            create_table(engine, f"{RAW_SCHEMA}.{topic.table}", RAW_COLUMNS)
        if topic.source is not None:
            select = topic.source.select(batch)
            engine.sql(f"insert into {RAW_SCHEMA}.{topic.table} ({columns})\n{select}")
        elif topic.plans:
            # a file read in several splits: first the lines of each split
            splits = {
                path: batch_sql.first_lines(engine.sql(batch_sql.split_counts_sql(path)))
                for path in batch_sql.split_paths(topic.plans)
            }
            select = batch_sql.records_select(topic.name, topic.plans, batch, splits)
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
        if topic.source is not None:
            commits.extend(kafka_tables.manifest_rows(topic.table, summary.last_lines, batch))
        else:
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
