"""Landing a topic from a table in the Spark Kafka source's schema.

On a cluster Kafka is usually landed already, by Spark's own Kafka source
(``spark.readStream.format("kafka")`` into a table of ``key`` and
``value`` (binary), ``topic``, ``partition``, ``offset``, ``timestamp``,
``timestampType`` and ``headers``), often one table for many topics. A topic
declared with ``landing: {table: <table>, topic: <Kafka topic>}`` is landed
from there, not from files: each landing reads the table's rows of that
Kafka topic past the offsets already landed, per partition, straight into
the topic's raw table (no copy through files), as one batch with the
landing's other topics.

The raw-table contract is the files' one: every record keeps its Kafka
coordinates; ``landing_file`` names the table and partition
(``<table>#<partition>``) and ``landing_line`` is the offset, so a record is
accounted for by file and line as a dump's is; a record the table holds
twice among its new rows lands once, the other copy (its file
``<table>#<partition> (copy 2)``) going to the ledger of duplicates, and a
row of an offset landed before is never read again (the table is the
topic's log, read past what was landed); a key or value that is not UTF-8
keeps its bytes and the base model quarantines it (``not_utf8``), as a
dump's. The manifest remembers, per partition, the next offset to read
(its ``lines``), committed with the batch.
"""

from __future__ import annotations

from dataclasses import dataclass

from python_helpers.engine.sql_engine import SqlEngine
from python_helpers.escaping import spark_string
from python_helpers.land.manifest import ManifestEntry


@dataclass(frozen=True)
class TableLanding:
    """A topic landed from a Kafka-source table."""

    topic: str  # the project's topic (its raw table, models)
    table: str  # [catalog.][database.]table, as declared
    kafka_topic: str  # its rows' `topic` value


# A partition's landing file is `<table>#<partition>` (a declared table
# name holds no `#`), a copy's `<table>#<partition> (copy N)`.
_MARK = "#"


def _partition(file: str, table: str | None = None) -> int | None:
    """The partition of landing file ``file`` (of ``table``, when given);
    none for a copy's file or another table's."""
    head, mark, tail = file.rpartition(_MARK)
    if not mark or not tail.isdigit() or (table is not None and head != table):
        return None
    return int(tail)


def next_offsets(landing: TableLanding, entries: dict[str, ManifestEntry]) -> dict[int, int]:
    """Per partition, the first offset not landed yet (the manifest's
    ``lines`` of the partition's entry)."""
    found: dict[int, int] = {}
    for file, entry in entries.items():
        partition = _partition(file, landing.table)
        if partition is not None:
            found[partition] = max(found.get(partition, 0), entry.lines)
    return found


def _new_rows(offsets: dict[int, int]) -> str:
    """The predicate of the rows past ``offsets`` (every row of a partition
    not landed from yet)."""
    if not offsets:
        return "true"
    cases = " ".join(f"when {p} then offset >= {o}L" for p, o in sorted(offsets.items()))
    return f"case partition {cases} else true end"


def has_headers(engine: SqlEngine, table: str) -> bool:
    """Whether ``table`` has the Kafka source's `headers` column (written
    only with its option `includeHeaders`)."""
    return any(str(row["col_name"]) == "headers" for row in engine.sql(f"describe table {table}"))


def records_select(
    landing: TableLanding, offsets: dict[int, int], batch: int, headers: bool = True
) -> str:
    """The select of the table's new records of the topic as rows of its
    raw table (``raw_tables.RAW_COLUMNS``, in that order); ``headers``:
    whether the table has the `headers` column."""
    table_literal = spark_string(f"{landing.table}{_MARK}")
    header_rows = (
        "transform(headers, h -> named_struct('key', h.key, 'value', cast(h.value as string)))"
        if headers
        else "cast(null as array<struct<key: string, value: string>>)"
    )
    return f"""
        select
            topic as kafka_topic,
            partition as kafka_partition,
            offset as kafka_offset,
            unix_millis(timestamp) as kafka_timestamp_ms,
            cast(key as string) as kafka_key,
            cast(value as string) as kafka_value,
            -- a copy of a record the table holds twice is told apart by its
            -- file (the ledger of duplicates takes it, keeping the first)
            concat({table_literal}, partition, if(copy > 1, concat(' (copy ', copy, ')'), ''))
                as landing_file,
            offset as landing_line,
            -- a value or key that is not UTF-8 keeps its bytes: the base
            -- model quarantines it (not_utf8), as a file's
            cast(null as string) as landing_error,
            {batch}L as landing_batch,
            {header_rows} as kafka_headers
        from (
            select *, row_number() over (
                partition by partition, offset order by timestamp, timestampType
            ) as copy
            from {landing.table}
            where topic = {spark_string(landing.kafka_topic)} and ({_new_rows(offsets)})
        )
        """


def with_new_rows_sql(table: str, reads: dict[str, dict[int, int]]) -> str:
    """Which of the Kafka topics of ``table`` have rows past their offsets
    (``reads``: Kafka topic -> per partition, the first offset not landed):
    one statement for them all, reading the coordinate columns only, so
    that a topic with nothing new sends no insert (no empty Iceberg commit
    a run)."""
    wanted = " or ".join(
        f"(topic = {spark_string(topic)} and ({_new_rows(offsets)}))"
        for topic, offsets in sorted(reads.items())
    )
    return f"select distinct topic from {table} where {wanted or 'false'}"


@dataclass(frozen=True)
class TableRead:
    """What one landing reads of a table-landed topic: its rows past
    ``offsets`` (per partition, the first offset not landed)."""

    landing: TableLanding
    offsets: dict[int, int]
    headers: bool  # whether the table has the `headers` column

    def select(self, batch: int) -> str:
        return records_select(self.landing, self.offsets, batch, self.headers)


def manifest_rows(raw_table: str, last_lines: dict[str, int], batch: int) -> list[str]:
    """The manifest rows of a table-landed topic's batch: per partition
    landed, the next offset to read (``last_lines``: the batch summary's,
    the highest offset + 1 per ``landing_file``)."""
    return [
        f"({spark_string(raw_table)}, {spark_string(file)}, 0L, 0L, '', {lines}L, {batch}L)"
        for file, lines in sorted(last_lines.items())
        if _partition(file) is not None  # not a copy's
    ]
