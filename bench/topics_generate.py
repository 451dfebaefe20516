"""A deterministic landing of a whole database: many PostgreSQL topics.

Topic ``bench.public.t<NNN>`` is table ``t<NNN>`` with its own columns: an
int64 key ``id``, a text ``name``, a ``Decimal(12,2)`` ``amount``, a
``MicroTimestamp`` ``updated_at`` and ``NNN % 5`` int64 columns ``c1..``.
Each topic's stream is a snapshot read (``r``) of every key, then creates,
updates and deletes, in kcat ``-J`` form (one partition), key and value
with the JsonConverter's schema blocks.

``generate(root, topics, events)`` writes ``root/landing/<topic>/``;
``one_more(root, topic, offset)`` writes one new event of a topic to a new
file that sorts after the others.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

SEED = 20261124
EPOCH_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def topic_name(number: int) -> str:
    return f"bench.public.t{number:03d}"


def extra_columns(number: int) -> list[str]:
    return [f"c{i}" for i in range(1, number % 5 + 1)]


def _field(kind: str, field_name: str, optional: bool = True, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "optional": optional, "field": field_name, **extra}


def _row_schema(number: int) -> dict[str, Any]:
    fields = [
        _field("int64", "id", optional=False),
        _field("string", "name"),
        _field(
            "bytes",
            "amount",
            name="org.apache.kafka.connect.data.Decimal",
            version=1,
            parameters={"scale": "2", "connect.decimal.precision": "12"},
        ),
        _field("int64", "updated_at", name="io.debezium.time.MicroTimestamp", version=1),
        *[_field("int64", column) for column in extra_columns(number)],
    ]
    return {"type": "struct", "fields": fields, "optional": True, "name": f"t{number:03d}.Value"}


def _value_schema(number: int) -> dict[str, Any]:
    row = _row_schema(number)
    source = {
        "type": "struct",
        "optional": False,
        "name": "io.debezium.connector.postgresql.Source",
        "fields": [
            _field("string", "version", optional=False),
            _field("string", "connector", optional=False),
            _field("string", "name", optional=False),
            _field("int64", "ts_ms", optional=False),
            _field("string", "db", optional=False),
            _field("string", "schema", optional=False),
            _field("string", "table", optional=False),
            _field("int64", "txId"),
            _field("int64", "lsn"),
        ],
        "field": "source",
    }
    return {
        "type": "struct",
        "optional": False,
        "name": f"t{number:03d}.Envelope",
        "fields": [
            row | {"field": "before"},
            row | {"field": "after"},
            source,
            _field("string", "op", optional=False),
            _field("int64", "ts_ms"),
        ],
    }


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _decimal(cents: int) -> str:
    length = max(1, (cents.bit_length() + 8) // 8)
    return base64.b64encode(cents.to_bytes(length, "big", signed=True)).decode()


class _Topic:
    """One topic's event stream."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.rng = random.Random(SEED + number)
        self.clock_ms = EPOCH_MS
        self.lsn = 1_000_000
        self.value_head = '{"schema":' + _compact(_value_schema(number)) + ',"payload":'
        key_schema = {
            "type": "struct",
            "optional": False,
            "name": f"t{number:03d}.Key",
            "fields": [_field("int64", "id", optional=False)],
        }
        self.key_head = '{"schema":' + _compact(key_schema) + ',"payload":'

    def row(self, key: int) -> dict[str, Any]:
        rng = self.rng
        return {
            "id": key,
            "name": f"name {rng.randrange(10**6)}",
            "amount": _decimal(rng.randrange(-(10**6), 10**9)),
            "updated_at": self.clock_ms * 1000 + rng.randrange(1000),
            **{column: rng.randrange(10**9) for column in extra_columns(self.number)},
        }

    def line(self, offset: int, op: str, key: int, before: Any, after: Any) -> str:
        self.clock_ms += 1 + self.rng.randrange(50)
        self.lsn += 8 * (1 + self.rng.randrange(64))
        payload = {
            "before": before,
            "after": after,
            "source": {
                "version": "2.7.3.Final",
                "connector": "postgresql",
                "name": "bench",
                "ts_ms": self.clock_ms,
                "db": "bench",
                "schema": "public",
                "table": f"t{self.number:03d}",
                "txId": 500 + offset,
                "lsn": self.lsn,
            },
            "op": op,
            "ts_ms": self.clock_ms + 2,
        }
        record = {
            "topic": topic_name(self.number),
            "partition": 0,
            "offset": offset,
            "tstype": "create",
            "ts": self.clock_ms + 5,
            "broker": 1,
            "key": self.key_head + _compact({"id": key}) + "}",
            "payload": self.value_head + _compact(payload) + "}",
        }
        return _compact(record)

    def lines(self, events: int) -> list[str]:
        keys = max(1, events // 4)
        rows: dict[int, dict[str, Any] | None] = {}
        out: list[str] = []
        for key in range(1, keys + 1):
            rows[key] = self.row(key)
            out.append(self.line(len(out), "r", key, None, rows[key]))
        while len(out) < events:
            key = self.rng.randrange(1, keys + 1)
            current = rows[key]
            if current is None:
                rows[key] = self.row(key)
                out.append(self.line(len(out), "c", key, None, rows[key]))
            elif self.rng.random() < 0.1:
                rows[key] = None
                out.append(self.line(len(out), "d", key, current, None))
            else:
                rows[key] = self.row(key)
                out.append(self.line(len(out), "u", key, current, rows[key]))
        return out


def generate(root: Path, topics: int, events: int) -> int:
    """Write ``topics`` topics of ``events`` events; returns the bytes written."""
    size = 0
    for number in range(1, topics + 1):
        folder = root / "landing" / topic_name(number)
        folder.mkdir(parents=True, exist_ok=True)
        text = "\n".join(_Topic(number).lines(events)) + "\n"
        (folder / "p0.jsonl").write_text(text, encoding="utf-8")
        size += len(text.encode())
    return size


def one_more(root: Path, number: int, events: int) -> None:
    """One new event (an update of key 1) after the topic's ``events``."""
    stream = _Topic(number)
    stream.lines(events)  # the same clock and positions as the landing's
    row = stream.row(1)
    line = stream.line(events, "u", 1, None, row)
    (root / "landing" / topic_name(number) / "p1-more.jsonl").write_text(line + "\n")


def row_type(number: int) -> str:
    """The Spark type of a topic's row image, as the ceiling reads it."""
    extra = "".join(f", `{c}`: bigint" for c in extra_columns(number))
    return (
        "struct<`id`: bigint, `name`: string, `amount`: string, `updated_at`: bigint" + extra + ">"
    )
