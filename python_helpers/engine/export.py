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


def export_tables(
    project: Path, tables: list[str], engine: SqlEngine | None = None
) -> dict[str, Any]:
    """``{table: {"types": {column: type}, "rows": [json text, ...]}}``."""
    engine = engine or open_engine(project)
    options = f"map('timestampFormat', \"{TIMESTAMP_FORMAT}\", 'ignoreNullFields', 'false')"

    def exported(table: str) -> dict[str, Any]:
        types = column_types(engine, table)
        columns = ", ".join(spark_identifier(name) for name in types)
        rows = engine.sql(f"select to_json(struct({columns}), {options}) as row from {table}")
        return {"types": types, "rows": [r["row"] for r in rows]}

    return dict(zip(tables, each_at_once(engine, exported, tables), strict=True))


def export_json(project: Path, tables: list[str]) -> str:
    """The export as one JSON document."""
    return json.dumps(export_tables(project, tables))
