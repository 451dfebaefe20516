"""The landing's Iceberg tables: one raw table per topic, the manifest of
landed files and the ledger of dropped duplicates — their columns and
properties, their creation, and raw tables of an older layout brought to
the newest."""

from __future__ import annotations

from python_helpers.engine.sql_engine import SqlEngine
from python_helpers.escaping import spark_string

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


# the raw tables' columns as of the newest layout: a landing finding raw
# tables of an older one (the manifest's property says) adds the columns
# they lack, once
RAW_LAYOUT_PROPERTY = "cdc.raw-columns"


def prepare(engine: SqlEngine) -> set[str]:
    """Create the landing database and the manifest tables; bring raw tables
    of an older layout to the newest (``RAW_LAYOUT_PROPERTY``): the tables
    of the landing database. One listing answers which tables exist, so a
    landing does not load the tables it only would have created (a
    ``create table if not exists`` of an existing Iceberg table reads its
    metadata: a second of a one-shot landing's start)."""
    engine.sql(f"create database if not exists {RAW_SCHEMA}")
    tables = raw_tables(engine)
    manifest = f"{RAW_SCHEMA}.{MANIFEST_TABLE}"
    landing_tables = ((MANIFEST_TABLE, MANIFEST_COLUMNS), (DUPLICATES_TABLE, DUPLICATE_COLUMNS))
    for name, columns in landing_tables:
        if name not in tables:
            create_table(engine, f"{RAW_SCHEMA}.{name}", columns)
            tables.add(name)
    layout = str(len(RAW_COLUMNS))
    rows = engine.sql(f"show tblproperties {manifest} ({spark_string(RAW_LAYOUT_PROPERTY)})")
    if rows and str(rows[0]["value"]) == layout:
        return tables
    for table in sorted(tables):
        if not table.startswith("_"):
            _add_missing_columns(engine, f"{RAW_SCHEMA}.{table}")
    engine.sql(
        f"alter table {manifest} set tblproperties"
        f" ({spark_string(RAW_LAYOUT_PROPERTY)} = {spark_string(layout)})"
    )
    return tables


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
