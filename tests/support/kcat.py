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
    headers: list[str | None] | dict[str, list[str | None]] | None = None,
) -> dict[str, Any]:
    """One `kcat -J` record; ``key`` and ``payload`` as the message's text
    (``tstype``/``broker``: whether the line carries kcat's timestamp type
    and broker id; the landing reads neither). ``headers`` as kcat prints
    them: a list of name, value, name, value… (its default), or a map of
    name to values; kcat leaves the field out for a record without any."""
    line: dict[str, Any] = {"topic": topic, "partition": partition, "offset": offset}
    if tstype:
        line["tstype"] = "create"
    line["ts"] = ts
    if broker:
        line["broker"] = 1
    if headers is not None:
        line["headers"] = headers
    return line | {"key": key, "payload": payload}


def lines(records: Iterable[dict[str, Any]]) -> str:
    """The records as a kcat dump: one compact JSON object a line."""
    return "".join(compact(r) + "\n" for r in records)
