"""Dump tables of the warehouse as JSON (types and rows).

Used by the end-to-end tests (a separate process, so that dbt and the tests
never hold the embedded metastore at the same time) and handy for users.
Timestamps keep their microseconds; decimals are written as exact numbers.
The rows are rendered by Spark itself (`to_json`), through the target's SQL
engine, so an export from the Thrift server equals one from the embedded
Spark value for value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from python_helpers.engine.sql_engine import SqlEngine, each_at_once, open_engine
from python_helpers.escaping import spark_identifier

TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"


def column_types(engine: SqlEngine, table: str) -> dict[str, str]:
    """Column -> Spark type of ``table`` (`describe`, up to its first
    blank or `#` line: partitioning and details follow)."""
    types: dict[str, str] = {}
    for row in engine.sql(f"describe table {table}"):
        name = row["col_name"] or ""  # not stripped: a column may end in a space
        if not name.strip() or name.startswith("#"):
            break
        types[name] = row["data_type"]
    return types


# tables whose rows one statement reads: a union of their selects (a
# statement of its own costs each table a Spark job and its planning)
TABLES_PER_STATEMENT = 10


def export_tables(
    project: Path, tables: list[str], engine: SqlEngine | None = None
) -> dict[str, Any]:
    """``{table: {"types": {column: type}, "rows": [json text, ...]}}``."""
    engine = engine or open_engine(project)
    names = list(dict.fromkeys(tables))
    found = each_at_once(engine, lambda table: column_types(engine, table), names)
    types = dict(zip(names, found, strict=True))
    numbered = list(enumerate(names))
    parts = [
        numbered[start : start + TABLES_PER_STATEMENT]
        for start in range(0, len(numbered), TABLES_PER_STATEMENT)
    ]
    rows: dict[str, list[str]] = {name: [] for name in names}
    for part in each_at_once(engine, lambda part: engine.sql(_rows_sql(part, types)), parts):
        for row in part:
            rows[names[row["table_number"]]].append(row["row"])
    return {name: {"types": types[name], "rows": rows[name]} for name in names}


def _rows_sql(tables: list[tuple[int, str]], types: dict[str, dict[str, str]]) -> str:
    """The rows of some tables as JSON text, each with its table's number."""
    options = f"map('timestampFormat', \"{TIMESTAMP_FORMAT}\", 'ignoreNullFields', 'false')"
    return "\nunion all\n".join(
        f"select {number} as table_number,"
        f" to_json(struct({', '.join(spark_identifier(c) for c in types[table])}), {options})"
        f" as row from {table}"
        for number, table in tables
    )


def export_json(project: Path, tables: list[str]) -> str:
    """The export as one JSON document."""
    return json.dumps(export_tables(project, tables))
