"""The Spark SQL of one landing batch: reading a topic's files as raw rows,
and the checks that run over many topics' raw tables in one statement
(``raw_store`` orders them and writes the results).

A landing of many small topics pays per statement, not per byte, so what
can be asked of many tables at once is (issue 43): the summary of what each
topic's batch holds, and which of its records were landed before or occur
twice in it. Each is one ``union all`` over the tables of up to
``TABLES_PER_STATEMENT`` tables, every branch pruned to its own batch, under
one aggregate (a table read costs ≈ 35 ms so, against ≈ 80 ms alone, and more
in a wider union: every task of a statement carries its whole plan).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from python_helpers.escaping import spark_identifier, spark_string
from python_helpers.land.raw_tables import RAW_SCHEMA

if TYPE_CHECKING:
    from python_helpers.land.file_plans import FilePlan

KCAT_WRAPPER = (
    "struct<topic: string, partition: int, offset: bigint, ts: bigint, key: string,"
    " payload: string, headers: string, _unreadable: string>"
)
HEADER = "struct<key: string, value: string>"
TABLES_PER_STATEMENT = 10
# monotonically_increasing_id() is (partition index << 33) + row in partition
_ROW_IN_PARTITION = (1 << 33) - 1
# Spark reads a file in splits of at most this many bytes, each split one
# task (raw_store.landing_splits): a large file is read by every core. A
# line's number is its row in its split plus the lines of the splits before
# it, which one count per split of a larger file finds (``split_counts_sql``)
SPLIT_BYTES = 64 << 20

# the first lines of a file's splits: split start (byte) -> line number
Splits = dict[int, int]


def split_paths(plans: list[FilePlan]) -> list[Path]:
    """The files of ``plans`` (and their sinks' keys and headers files)
    that Spark reads in more than one split. A ``.gz`` file is read whole
    (its codec cannot start mid-stream): one split, whatever its size."""
    paths = [
        path
        for plan in plans
        for path in (plan.spark_path, plan.keys_read, plan.headers_read)
        if path is not None and not path.name.endswith(".gz")
    ]
    return [path for path in paths if path.stat().st_size > SPLIT_BYTES]


def split_counts_sql(path: Path) -> str:
    """How many lines each split of ``path`` holds (``block``, ``lines``)."""
    return (
        "select input_file_block_start() as block, count(*) as lines"
        f" from text.{spark_identifier(str(path.resolve()))} group by 1"
    )


def first_lines(rows: list[dict[str, Any]]) -> Splits:
    """``split_counts_sql``'s rows as each split's first line number."""
    found: Splits = {}
    total = 0
    for row in sorted(rows, key=lambda r: int(r["block"])):
        found[int(row["block"])] = total
        total += int(row["lines"])
    return found


def _line_number(splits: Splits | None) -> str:
    """A line's place in its file: its row in its split, plus the lines of
    the splits before it. A split the count did not see (the file grew past
    one more split boundary between the count and the read) gives no
    number, so its lines are not landed now: the manifest keeps the file's
    size as planned and its last landed line, and the next landing reads
    them (a file that grows is read from its last landed line)."""
    row = f"monotonically_increasing_id() & {_ROW_IN_PARTITION}"
    if not splits or set(splits) == {0}:
        return row
    starts = " ".join(f"when {block}L then {line}L" for block, line in sorted(splits.items()))
    # (``&`` binds less tightly than ``+`` in Spark SQL)
    return f"({row}) + (case input_file_block_start() {starts} end)"


def _lines(path: Path, splits: dict[Path, Splits]) -> str:
    """A file's lines, each with its place in the file."""
    return (
        # a byte-order mark (at the start of a file, or of any line of
        # files joined together) is no part of a record
        "select if(startswith(value, '\\uFEFF'), substr(value, 2), value) as line,"
        f" {_line_number(splits.get(path))} as line_no"
        f" from text.{spark_identifier(str(path.resolve()))}"
    )


def _companion(path: Path | None, alias: str, splits: dict[Path, Splits]) -> tuple[str, str]:
    """The column and join of a sink's keys or headers file, by line."""
    if path is None:
        return f"cast(null as string) as {alias}_line", ""
    return (
        f"{alias}.line as {alias}_line",
        f" left join ({_lines(path, splits)}) as {alias} on {alias}.line_no = v.line_no",
    )


def _scan(plan: FilePlan, splits: dict[Path, Splits]) -> str:
    """One file's lines, with how to read them (``line_no`` is the line's
    place in the file), and its sink's key and headers lines."""
    sink = plan.file.sink
    key_column, key_join = _companion(plan.keys_read, "key", splits)
    headers_column, headers_join = _companion(plan.headers_read, "headers", splits)
    return (
        f"select v.line, {spark_string(plan.file.below or plan.file.path.name)} as file_name,"
        f" {str(plan.file.is_kcat).lower()} as is_kcat,"
        f" {'cast(null as int)' if sink is None else f'{sink.partition}'} as sink_partition,"
        f" {plan.first_offset if sink is None else sink.start_offset}L as first_offset,"
        f" {plan.start_line}L as start_line, v.line_no, {key_column}, {headers_column}"
        f" from ({_lines(plan.spark_path, splits)}) as v{key_join}{headers_join}"
    )


# a kcat -J record's headers: ["name", "value", ...] (kcat's default) or
# {"name": ["value", ...]} (its map form); a sink's headers line: an array of
# {"key", "value"} objects, bare, under "headers", or as a JsonConverter
# payload
_KCAT_HEADERS = """
            case
                when kcat_header_list is not null and size(kcat_header_list) >= 2 then transform(
                    filter(sequence(0, size(kcat_header_list) - 2), i -> i % 2 = 0),
                    i -> named_struct('key', kcat_header_list[i],
                        'value', kcat_header_list[i + 1]))
                when kcat_header_map is not null then flatten(transform(
                    map_entries(kcat_header_map),
                    e -> transform(e.value, v -> named_struct('key', e.key, 'value', v))))
            end"""
_SINK_HEADERS = f"""
            case
                when startswith(ltrim(headers_line), '[')
                    then from_json(headers_line, 'array<{HEADER}>')
                when headers_line is not null then coalesce(
                    from_json(headers_line, 'struct<headers: array<{HEADER}>>').headers,
                    from_json(headers_line, 'struct<payload: array<{HEADER}>>').payload,
                    from_json(headers_line,
                        'struct<payload: struct<headers: array<{HEADER}>>>').payload.headers)
            end"""


def records_select(
    topic: str, plans: list[FilePlan], batch: int, splits: dict[Path, Splits] | None = None
) -> str:
    """The select of the records of one topic's planned files as rows of
    its raw table (``raw_tables.RAW_COLUMNS``, in that order); ``splits``:
    the first lines of the splits of the files read in more than one."""
    scans = "\n            union all\n            ".join(_scan(p, splits or {}) for p in plans)
    topic_literal = spark_string(topic)
    return f"""
        with lines as (
            {scans}
        ),
        wanted as (
            select * from lines
            where line_no >= start_line and (not is_kcat or trim(line) != '')
        ),
        parsed as (
            select
                wanted.*,
                case when is_kcat then from_json(line, '{KCAT_WRAPPER}',
                    map('columnNameOfCorruptRecord', '_unreadable')) end as kcat,
                -- the JSON reader decodes malformed UTF-8 to U+FFFD: such a
                -- line is kept whole, its bytes as read
                is_kcat and cast(line as binary) != encode(line, 'utf-8') as not_utf8
            from wanted
        ),
        headed as (
            select
                parsed.*,
                case when startswith(ltrim(kcat.headers), '[')
                    then from_json(kcat.headers, 'array<string>') end as kcat_header_list,
                case when startswith(ltrim(kcat.headers), '{{')
                    then from_json(kcat.headers, 'map<string, array<string>>')
                end as kcat_header_map
            from parsed
        )
        select
            case when is_kcat then coalesce(kcat.topic, {topic_literal})
                else {topic_literal} end as kafka_topic,
            -- a plain-form line has no Kafka coordinates unless its file is
            -- named as a sink names them (then its partition, and offset =
            -- the file's start offset + the line's place); otherwise no
            -- partition (it is never taken for a duplicate of a record that
            -- has them) and its offset is its position across the folder's
            -- plain files
            case when is_kcat then kcat.partition else sink_partition end as kafka_partition,
            case when is_kcat then kcat.offset else first_offset + line_no end as kafka_offset,
            kcat.ts as kafka_timestamp_ms,
            case
                when is_kcat then if(not_utf8, null, kcat.key)
                when trim(key_line) in ('', 'null') then null
                else key_line
            end as kafka_key,
            case
                when not is_kcat then if(trim(line) = '', null, line)
                when kcat._unreadable is not null or not_utf8 then line
                else kcat.payload
            end as kafka_value,
            concat({topic_literal}, '/', file_name) as landing_file,
            line_no as landing_line,
            case
                when not is_kcat then null
                when not_utf8 then 'kcat line with bytes that are not UTF-8: kept whole'
                when kcat._unreadable is not null
                    then 'unreadable kcat line: not a JSON object with the kcat fields'
                when kcat.partition is null or kcat.offset is null
                    then 'kcat line without a numeric partition/offset'
            end as landing_error,
            {batch}L as landing_batch,
            case when is_kcat then {_KCAT_HEADERS.strip()}
                else {_SINK_HEADERS.strip()} end as kafka_headers
        from headed
        """


def _union(branches: list[str]) -> str:
    return "\n            union all\n            ".join(branches)


def newest_batches_sql(tables: list[str]) -> str:
    """Each table's newest landing batch (``raw_table``, ``newest``)."""
    rows = _union(
        [
            f"select {spark_string(t)} as raw_table, landing_batch from {RAW_SCHEMA}.{t}"
            for t in tables
        ]
    )
    return f"select raw_table, max(landing_batch) as newest from ({rows}) group by raw_table"


@dataclass(frozen=True)
class BatchSummary:
    """Narrow facts about a topic's batch just written."""

    records: int
    unreadable: int
    last_lines: dict[str, int]
    ranges: list[tuple[int, int, int]]  # (partition, first offset, last offset)
    # the newest record landed, as the sources' loaded_at_field has it (its
    # Kafka timestamp, else its batch's time), ms since the epoch
    newest_ms: int | None = None
    # whether two of its records share a partition and offset
    repeats: bool = False
    # per file, the first and last line of its records without coordinates
    line_spans: dict[str, tuple[int, int]] = field(default_factory=dict)


def summaries_sql(tables: list[str], batch: int) -> str:
    """What each table's batch ``batch`` holds, per file and partition, and
    in all (``whole``: how many of its records have coordinates, and how
    many different ones, so that a batch without repeats needs no
    duplicate check when its table held nothing before)."""
    rows = _union(
        [
            f"select {spark_string(t)} as raw_table, landing_file, kafka_partition,"
            " kafka_offset, kafka_timestamp_ms, landing_line, landing_error, landing_batch"
            f" from {RAW_SCHEMA}.{t} where landing_batch = {batch}"
            for t in tables
        ]
    )
    return f"""
        select raw_table, landing_file, kafka_partition,
            grouping(landing_file) = 1 as whole,
            count(*) as records, count(landing_error) as unreadable,
            max(landing_line) as last_line,
            min(kafka_offset) as first_offset, max(kafka_offset) as last_offset,
            max(coalesce(kafka_timestamp_ms, landing_batch div 1000)) as newest_ms,
            count(if(kafka_partition is not null and kafka_offset is not null, 1, null))
                as with_coordinates,
            count(distinct kafka_partition, kafka_offset) as coordinates,
            min(if(kafka_partition is null or kafka_offset is null, landing_line, null))
                as first_by_line,
            max(if(kafka_partition is null or kafka_offset is null, landing_line, null))
                as last_by_line
        from (
            {rows}
        )
        group by grouping sets ((raw_table, landing_file, kafka_partition), (raw_table))
        """


def summaries(rows: list[dict[str, Any]]) -> dict[str, BatchSummary]:
    """``summaries_sql``'s rows as one summary per table (a table whose
    batch is empty has none)."""
    by_table: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_table.setdefault(row["raw_table"], []).append(row)
    found = {table: _summary(table_rows) for table, table_rows in by_table.items()}
    return {table: summary for table, summary in found.items() if summary.records}


def _summary(rows: list[dict[str, Any]]) -> BatchSummary:
    last_lines: dict[str, int] = {}
    spans: dict[int, tuple[int, int]] = {}
    line_spans: dict[str, tuple[int, int]] = {}
    repeats = False
    for row in rows:
        if row["whole"]:
            repeats = repeats or row["with_coordinates"] > row["coordinates"]
            continue
        file = row["landing_file"]
        last_lines[file] = max(last_lines.get(file, 0), row["last_line"] + 1)
        if row["first_by_line"] is not None:
            low, high = line_spans.get(file, (row["first_by_line"], row["last_by_line"]))
            line_spans[file] = (min(low, row["first_by_line"]), max(high, row["last_by_line"]))
        partition, first, last = row["kafka_partition"], row["first_offset"], row["last_offset"]
        if partition is not None and first is not None:
            low, high = spans.get(partition, (first, last))
            spans[partition] = (min(low, first), max(high, last))
    parts = [row for row in rows if not row["whole"]]
    return BatchSummary(
        records=sum(row["records"] for row in parts),
        unreadable=sum(row["unreadable"] for row in parts),
        last_lines=last_lines,
        ranges=[(p, low, high) for p, (low, high) in sorted(spans.items())],
        newest_ms=max(
            (int(r["newest_ms"]) for r in parts if r["newest_ms"] is not None), default=None
        ),
        repeats=repeats,
        line_spans=line_spans,
    )


def _older_predicate(summary: BatchSummary) -> str:
    """Where a table's older batches can hold a record of ``summary``'s
    batch: the same partition and offset range, or the same file and line
    range for records without coordinates (Iceberg prunes every older file
    outside them by its statistics)."""
    by_coordinates = [
        f"(kafka_partition = {p} and kafka_offset between {low} and {high})"
        for p, low, high in summary.ranges
    ]
    by_line = [
        f"((kafka_partition is null or kafka_offset is null) and landing_file = {spark_string(f)}"
        f" and landing_line between {low} and {high})"
        for f, (low, high) in sorted(summary.line_spans.items())
    ]
    return " or ".join(by_coordinates + by_line) or "false"


def overlaps_sql(summaries: dict[str, BatchSummary], batch: int) -> str:
    """How many rows of older batches each table holds where its batch's
    records could repeat them (``raw_table``, ``older``; a table without any
    has no row). Mostly none: a landing of new offsets reads no older file."""
    rows = _union(
        [
            f"select {spark_string(t)} as raw_table from {RAW_SCHEMA}.{t}"
            f" where landing_batch < {batch} and ({_older_predicate(summary)})"
            for t, summary in summaries.items()
        ]
    )
    return f"select raw_table, count(*) as older from ({rows}) group by raw_table"


@dataclass(frozen=True)
class DuplicateScope:
    """What a table's batch is checked for: repeats in it (``repeats``),
    records landed before (``older``: its older batches overlap it)."""

    table: str
    summary: BatchSummary
    older: bool


def _batch_rows(tables: list[str], batch: int, by_line: bool) -> str:
    """The batch's records identified by line (``by_line``) or the others."""
    test = "" if by_line else "not "
    return _union(
        [
            f"select {spark_string(t)} as raw_table, kafka_partition, kafka_offset,"
            f" landing_file, landing_line from {RAW_SCHEMA}.{t}"
            f" where landing_batch = {batch}"
            f" and {test}(kafka_partition is null or kafka_offset is null)"
            for t in tables
        ]
    )


def _repeated(scopes: list[DuplicateScope], batch: int) -> str:
    rows = _batch_rows([s.table for s in scopes], batch, by_line=False)
    return f"""
        select raw_table, landing_file, landing_line, kafka_partition, kafka_offset,
            'repeated in the batch' as reason
        from (
            select *, row_number() over (
                partition by raw_table, kafka_partition, kafka_offset
                order by landing_file, landing_line
            ) as occurrence
            from ({rows})
        )
        where occurrence > 1
        """


def _landed_before(scopes: list[DuplicateScope], batch: int, by_line: bool) -> str:
    """The batch's records (those identified ``by_line`` or the others)
    whose identity is among their table's older ones."""
    first, second = (
        ("landing_file", "landing_line") if by_line else ("kafka_partition", "kafka_offset")
    )
    older = _union(
        [
            f"select {spark_string(s.table)} as raw_table, {first}, {second}"
            f" from {RAW_SCHEMA}.{s.table}"
            f" where landing_batch < {batch} and ({_older_predicate(s.summary)})"
            for s in scopes
        ]
    )
    rows = _batch_rows([s.table for s in scopes], batch, by_line)
    return f"""
        select b.raw_table, b.landing_file, b.landing_line, b.kafka_partition, b.kafka_offset,
            'landed before' as reason
        from ({rows}) as b
        left semi join ({older}) as o
            on b.raw_table = o.raw_table and b.{first} = o.{first} and b.{second} = o.{second}
        """


def duplicates_sql(scopes: list[DuplicateScope], batch: int) -> str:
    """The records of the tables' batch ``batch`` that were landed before
    (same partition and offset; same file and line for a record without
    coordinates) or occur twice in it (all but the first, by file and
    line): ``raw_table``, ``landing_file``, ``landing_line``, the
    coordinates and the ``reason``; a record can be listed for both. Each
    kind reads only the tables that can have it."""
    parts = []
    if repeating := [s for s in scopes if s.summary.repeats]:
        parts.append(_repeated(repeating, batch))
    if by_coordinates := [s for s in scopes if s.older and s.summary.ranges]:
        parts.append(_landed_before(by_coordinates, batch, by_line=False))
    if by_line := [s for s in scopes if s.older and s.summary.line_spans]:
        parts.append(_landed_before(by_line, batch, by_line=True))
    return "\n        union all\n".join(parts) or (
        "select cast(null as string) as raw_table, cast(null as string) as landing_file,"
        " cast(null as bigint) as landing_line, cast(null as int) as kafka_partition,"
        " cast(null as bigint) as kafka_offset, cast(null as string) as reason where false"
    )
