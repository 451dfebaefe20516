"""A deterministic generator of realistic PostgreSQL-connector landings.

Topic ``bench.public.accounts``: Debezium 2.x PostgreSQL events with the
JsonConverter's schema blocks (key and value), in kcat ``-J`` form, one file
per Kafka partition (4 partitions, a key always in the same one). Columns
cover the types the staging models decode: int64 key, text, a
``Decimal(14,2)``, a ``Date``, a ``MicroTimestamp``, a ``ZonedTimestamp``,
``Json`` and a boolean. The stream is a snapshot read (``r``) of every key,
then a mix of updates, deletes and re-creates, over ``n // 10`` keys.

``generate(root, n, increment)`` writes the first ``n`` events to
``root/landing/<topic>/`` and the next ``increment`` events of the same
stream to ``root/increment/<topic>/`` (files named so they sort after).
With ``plain=True`` each part is one plain-form file instead (the bare
values, one a line: the shape of a single dump or a sink's file).
"""

from __future__ import annotations

import base64
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TextIO

TOPIC = "bench.public.accounts"
PARTITIONS = 4
SEED = 20261122
EPOCH_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
WORDS = (
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
)


def _field(kind: str, field_name: str, optional: bool = True, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "optional": optional, **extra, "field": field_name}


ROW_FIELDS = [
    _field("int64", "account_id", optional=False, default=0),
    _field("string", "owner_name"),
    _field("string", "email"),
    _field(
        "bytes",
        "balance",
        name="org.apache.kafka.connect.data.Decimal",
        version=1,
        parameters={"scale": "2", "connect.decimal.precision": "14"},
    ),
    _field("int32", "opened_on", name="io.debezium.time.Date", version=1),
    _field("int64", "updated_at", name="io.debezium.time.MicroTimestamp", version=1),
    _field("string", "synced_at", name="io.debezium.time.ZonedTimestamp", version=1),
    _field("string", "profile", name="io.debezium.data.Json", version=1),
    _field("boolean", "is_active"),
    _field("string", "notes"),
]
SOURCE_FIELDS = [
    _field("string", "version", optional=False),
    _field("string", "connector", optional=False),
    _field("string", "name", optional=False),
    _field("int64", "ts_ms", optional=False),
    _field(
        "string",
        "snapshot",
        name="io.debezium.data.Enum",
        version=1,
        parameters={"allowed": "true,last,false,incremental"},
        default="false",
    ),
    _field("string", "db", optional=False),
    _field("string", "sequence"),
    _field("string", "schema", optional=False),
    _field("string", "table", optional=False),
    _field("int64", "txId"),
    _field("int64", "lsn"),
    _field("int64", "xmin"),
]
ROW = {"type": "struct", "fields": ROW_FIELDS, "optional": True, "name": f"{TOPIC}.Value"}
VALUE_SCHEMA = {
    "type": "struct",
    "fields": [
        {**ROW, "field": "before"},
        {**ROW, "field": "after"},
        {
            "type": "struct",
            "fields": SOURCE_FIELDS,
            "optional": False,
            "name": "io.debezium.connector.postgresql.Source",
            "field": "source",
        },
        _field("string", "op", optional=False),
        _field("int64", "ts_ms"),
        {
            "type": "struct",
            "fields": [
                _field("string", "id", optional=False),
                _field("int64", "total_order", optional=False),
                _field("int64", "data_collection_order", optional=False),
            ],
            "optional": True,
            "name": "event.block",
            "version": 1,
            "field": "transaction",
        },
    ],
    "optional": False,
    "name": f"{TOPIC}.Envelope",
    "version": 1,
}
KEY_SCHEMA = {
    "type": "struct",
    "fields": [_field("int64", "account_id", optional=False, default=0)],
    "optional": False,
    "name": f"{TOPIC}.Key",
}


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def decimal_base64(cents: int) -> str:
    """Kafka Connect Decimal: unscaled value, big-endian two's complement."""
    length = max(1, (cents.bit_length() + 8) // 8)
    return base64.b64encode(cents.to_bytes(length, "big", signed=True)).decode()


@dataclass
class _Stream:
    rng: random.Random
    keys: int
    lsn: int = 23_000_000
    tx: int = 500
    clock_ms: int = EPOCH_MS
    events: int = 0

    def row(self, key: int) -> dict[str, Any]:
        rng = self.rng
        updated = self.clock_ms * 1000 + rng.randrange(1000)
        synced = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(milliseconds=self.clock_ms - EPOCH_MS)
        zone = timezone(timedelta(hours=rng.choice((-5, 0, 1, 9))))
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(8, 40)))
        return {
            "account_id": key,
            "owner_name": f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()}",
            "email": f"user{key}@example.com",
            "balance": decimal_base64(rng.randrange(-5_000_000, 900_000_000_000)),
            "opened_on": 18_000 + rng.randrange(2_500),
            "updated_at": updated,
            "synced_at": synced.astimezone(zone)
            .isoformat(timespec="microseconds")
            .replace("+00:00", "Z"),
            "profile": _compact({"tier": rng.choice(("gold", "silver")), "score": rng.random()}),
            "is_active": rng.random() < 0.9,
            "notes": words,
        }

    def envelope(self, op: str, key: int, before: Any, after: Any) -> dict[str, Any]:
        self.lsn += 8 * (1 + self.rng.randrange(64))
        self.tx += 1
        self.clock_ms += 1 + self.rng.randrange(20)
        self.events += 1
        return {
            "before": before,
            "after": after,
            "source": {
                "version": "2.7.3.Final",
                "connector": "postgresql",
                "name": "bench",
                "ts_ms": self.clock_ms,
                "snapshot": "true" if op == "r" else "false",
                "db": "bench",
                "sequence": _compact([str(self.lsn - 8), str(self.lsn)]),
                "schema": "public",
                "table": "accounts",
                "txId": self.tx,
                "lsn": self.lsn,
                "xmin": None,
            },
            "op": op,
            "ts_ms": self.clock_ms + 3,
            "transaction": None,
        }


def _events(n: int) -> Any:
    """(key, value payload or None for a tombstone) in stream order."""
    keys = max(1, n // 10)
    stream = _Stream(random.Random(SEED), keys)
    rows: dict[int, dict[str, Any] | None] = {}
    for key in range(1, keys + 1):
        rows[key] = stream.row(key)
        yield key, stream.envelope("r", key, None, rows[key])
    while True:
        key = stream.rng.randrange(1, keys + 1)
        current = rows[key]
        if current is None:
            rows[key] = stream.row(key)
            yield key, stream.envelope("c", key, None, rows[key])
        elif stream.rng.random() < 0.08:
            rows[key] = None
            yield key, stream.envelope("d", key, current, None)
        else:
            rows[key] = stream.row(key)
            yield key, stream.envelope("u", key, current, rows[key])


_VALUE_HEAD = '{"schema":' + _compact(VALUE_SCHEMA) + ',"payload":'
_KEY_HEAD = '{"schema":' + _compact(KEY_SCHEMA) + ',"payload":'


def _kcat_line(partition: int, offset: int, key: int, payload: dict[str, Any], ts: int) -> str:
    record = {
        "topic": TOPIC,
        "partition": partition,
        "offset": offset,
        "tstype": "create",
        "ts": ts,
        "broker": 1,
        "key": _KEY_HEAD + _compact({"account_id": key}) + "}",
        "payload": _VALUE_HEAD + _compact(payload) + "}",
    }
    return _compact(record)


def _plain(folder: Path, name: str, count: int, stream: Any) -> None:
    with (folder / name).open("w", encoding="utf-8") as handle:
        for _ in range(count):
            _, payload = next(stream)
            handle.write(_VALUE_HEAD + _compact(payload) + "}\n")


def generate(root: Path, n: int, increment: int, plain: bool = False) -> dict[str, int]:
    """Write the landing and the increment; returns their sizes in bytes."""
    sizes: dict[str, int] = {}
    offsets = [0] * PARTITIONS
    stream = _events(n + increment)
    for number, (part, count) in enumerate((("landing", n), ("increment", increment))):
        folder = root / part / TOPIC
        folder.mkdir(parents=True, exist_ok=True)
        if plain:
            # named so that the increment sorts after the landing's file
            _plain(folder, f"dump-{number:03d}.jsonl", count, stream)
            sizes[part] = sum(p.stat().st_size for p in folder.glob("*.jsonl"))
            continue
        handles: list[TextIO] = [
            (folder / f"{part}-p{p}.jsonl").open("w", encoding="utf-8") for p in range(PARTITIONS)
        ]
        try:
            for _ in range(count):
                key, payload = next(stream)
                partition = key % PARTITIONS
                ts = payload["ts_ms"] + 5
                handles[partition].write(
                    _kcat_line(partition, offsets[partition], key, payload, ts) + "\n"
                )
                offsets[partition] += 1
        finally:
            for handle in handles:
                handle.close()
        sizes[part] = sum(p.stat().st_size for p in folder.glob("*.jsonl"))
    return sizes
