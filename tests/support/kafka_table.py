"""A table in the Spark Kafka source's schema, written from sample
landings: what `spark.readStream.format("kafka")` lands, one table for
several topics (issue 56: a Kafka table as a landing).

``kafka_rows`` turns a sample file into the source's rows (a kcat record
keeps its partition, offset, timestamp, key and headers; a plain-form line
is partition 0, offset = its line, no key); ``write`` appends rows to the
table in a project's warehouse, from a process of its own (the project's
embedded metastore admits one Spark process), through the project's target
(the embedded Spark, or the cluster's Thrift server), as
``python kafka_table.py TABLE ROWS_JSON``.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from project_runs import project_env

from python_helpers.escaping import spark_string

KAFKA_SCHEMA = (
    "key binary, value binary, topic string, partition int, offset bigint,"
    " timestamp timestamp, timestampType int,"
    " headers array<struct<key: string, value: binary>>"
)


def _bytes(text: str | None) -> str | None:
    return None if text is None else base64.b64encode(text.encode("utf-8")).decode()


def kafka_rows(topic: str, path: Path) -> list[dict[str, Any]]:
    """The rows the Kafka source would have landed of a sample file (bytes
    as base64, for JSON)."""
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        record = json.loads(line) if line.strip() else None
        if isinstance(record, dict) and "offset" in record and "payload" in record:
            headers = record.get("headers") or []
            rows.append(
                {
                    "key": _bytes(record.get("key")),
                    "value": _bytes(record.get("payload")),
                    "topic": topic,
                    "partition": int(record["partition"]),
                    "offset": int(record["offset"]),
                    "timestamp_ms": record.get("ts") or 0,
                    "headers": [
                        {"key": headers[i], "value": _bytes(headers[i + 1])}
                        for i in range(0, len(headers) - 1, 2)
                    ],
                }
            )
        else:  # a plain-form line: the value as the converter wrote it
            value = line if line.strip() else None
            rows.append(
                {
                    "key": None,
                    "value": _bytes(value),
                    "topic": topic,
                    "partition": 0,
                    "offset": line_no,
                    "timestamp_ms": 1_700_000_000_000 + line_no,
                    "headers": [],
                }
            )
    return rows


def write(
    project: Path, state: Path, table: str, rows: list[dict[str, Any]], port: int | None = None
) -> None:
    """Append ``rows`` to ``table`` (created in the Kafka source's schema if
    missing) in the warehouse of ``state``, from a process of its own,
    through the project's target (``port``: the cluster target's Thrift
    server; else the embedded Spark)."""
    payload = state.parent / "kafka-rows.json"
    payload.write_text(json.dumps(rows), encoding="utf-8")
    env = project_env(state) | ({"CDC_SPARK_PORT": str(port)} if port is not None else {})
    done = subprocess.run(
        [sys.executable, __file__, table, str(payload)],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _binary(text: str | None) -> str:
    return "cast(null as binary)" if text is None else f"unbase64('{text}')"


def _values(row: dict[str, Any]) -> str:
    headers = ", ".join(
        f"named_struct('key', {spark_string(h['key'])}, 'value', {_binary(h['value'])})"
        for h in row["headers"]
    )
    return (
        f"({_binary(row['key'])}, {_binary(row['value'])}, {spark_string(row['topic'])},"
        f" {int(row['partition'])}, {int(row['offset'])}L,"
        f" timestamp_millis({int(row['timestamp_ms'])}L), 0,"
        f" cast(array({headers}) as array<struct<key: string, value: binary>>))"
    )


def _main(table: str, rows_path: str) -> None:
    from python_helpers.engine.sql_engine import open_engine

    engine = open_engine(Path("."))
    rows = json.loads(Path(rows_path).read_text(encoding="utf-8"))
    engine.sql(f"create database if not exists {table.rsplit('.', 1)[0]}")
    engine.sql(f"create table if not exists {table} ({KAFKA_SCHEMA}) using iceberg")
    for start in range(0, len(rows), 200):
        values = ",\n".join(_values(row) for row in rows[start : start + 200])
        engine.sql(f"insert into {table} values\n{values}")


if __name__ == "__main__":
    _main(*sys.argv[1:3])
