"""The one builder of the suite's Kafka records and Connect schema fields:
records as `kcat -J` writes them (what the sample landings, the fixture
writers and the random histories produce), JSON written compact as the
JsonConverter writes it."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def compact(value: Any) -> str:
    """JSON without spaces, as Kafka Connect's JsonConverter writes it."""
    return json.dumps(value, separators=(",", ":"))


def compact_or_none(value: Any) -> str | None:
    """A key or value as its record holds it: compact JSON, or null (a
    tombstone, a record without key)."""
    return None if value is None else compact(value)


def field(kind: str, name: str, optional: bool = False, /, **extra: Any) -> dict[str, Any]:
    """A field of a Connect struct schema (``extra``: its other keys, a
    logical type's ``name`` among them)."""
    return {"type": kind, "optional": optional, **extra, "field": name}


def record(
    topic: str,
    partition: int,
    offset: int,
    ts: int,
    key: str | None,
    payload: str | None,
    *,
    tstype: bool = True,
    broker: bool = True,
) -> dict[str, Any]:
    """One `kcat -J` record; ``key`` and ``payload`` as the message's text
    (``tstype``/``broker``: whether the line carries kcat's timestamp type
    and broker id; the landing reads neither)."""
    line: dict[str, Any] = {"topic": topic, "partition": partition, "offset": offset}
    if tstype:
        line["tstype"] = "create"
    line["ts"] = ts
    if broker:
        line["broker"] = 1
    return line | {"key": key, "payload": payload}


def lines(records: Iterable[dict[str, Any]]) -> str:
    """The records as a kcat dump: one compact JSON object a line."""
    return "".join(compact(r) + "\n" for r in records)
