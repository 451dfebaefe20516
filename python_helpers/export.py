"""Dump tables of the local warehouse as JSON (types and rows).

Used by the end-to-end tests (a separate process, so that dbt and the tests
never hold the embedded metastore at the same time) and handy for users.
Timestamps keep their microseconds; decimals are written as exact numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from python_helpers.spark_session import local_spark

TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"


def export_tables(project: Path, tables: list[str]) -> dict[str, Any]:
    """``{table: {"types": {column: type}, "rows": [json text, ...]}}``."""
    from pyspark.sql import functions as F

    spark = local_spark(project)
    result: dict[str, Any] = {}
    for table in tables:
        frame = spark.table(table)
        options = {"timestampFormat": TIMESTAMP_FORMAT, "ignoreNullFields": "false"}
        rows = frame.select(F.to_json(F.struct(*frame.columns), options).alias("row"))
        result[table] = {
            "types": {f.name: f.dataType.simpleString() for f in frame.schema.fields},
            "rows": [r.row for r in rows.collect()],
        }
    return result


def export_json(project: Path, tables: list[str]) -> str:
    """The export as one JSON document."""
    return json.dumps(export_tables(project, tables))
