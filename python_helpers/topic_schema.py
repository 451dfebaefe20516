"""Collect what a topic's events say about themselves.

Scans the landed values (and keys) of one topic, keeps every distinct
embedded schema block, merges them, and notes the connector and the source
table named in the events.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from python_helpers.connect_schema import ConnectSchema, merge_schemas, parse_schema
from python_helpers.landing import LandedRecord


@dataclass
class TopicSchemas:
    """Merged schemas and facts gathered from one topic's events."""

    topic: str
    value_schema: ConnectSchema | None = None
    key_schema: ConnectSchema | None = None
    connector: str | None = None
    source_table: str | None = None
    events: int = 0
    events_with_schema: int = 0
    _seen_blocks: set[str] = field(default_factory=set, repr=False)

    def add_value_schema(self, block: dict[str, Any]) -> None:
        """Merge one value schema block (parsed once per distinct block)."""
        self.value_schema = self._merged(self.value_schema, block)

    def add_key_schema(self, block: dict[str, Any]) -> None:
        """Merge one key schema block."""
        self.key_schema = self._merged(self.key_schema, block)

    def _merged(self, current: ConnectSchema | None, block: dict[str, Any]) -> ConnectSchema:
        text = json.dumps(block, sort_keys=True)
        parsed = parse_schema(block)
        if current is None:
            self._seen_blocks.add(text)
            return parsed
        if text in self._seen_blocks:
            return current
        self._seen_blocks.add(text)
        return merge_schemas(current, parsed)


def _json_object(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _envelope(parsed: dict[str, Any]) -> tuple[dict[str, Any] | None, Any]:
    """Split a JsonConverter message into (schema block, payload)."""
    if "schema" in parsed and "payload" in parsed:
        schema = parsed["schema"]
        return (schema if isinstance(schema, dict) else None), parsed["payload"]
    return None, parsed


def source_table_name(source: dict[str, Any]) -> str | None:
    """``schema_table`` (or ``db_table``) named by a Debezium source block."""
    table = source.get("table") or source.get("collection")
    if not table:
        return None
    owner = source.get("schema") or source.get("db")
    return f"{owner}_{table}" if owner else str(table)


def collect(topic: str, records: Iterable[LandedRecord]) -> TopicSchemas:
    """Scan a topic's records and gather its schemas and source facts."""
    result = TopicSchemas(topic)
    for record in records:
        parsed = _json_object(record.kafka_value)
        if parsed is None:
            continue
        result.events += 1
        schema, payload = _envelope(parsed)
        if schema is not None:
            result.events_with_schema += 1
            result.add_value_schema(schema)
        if isinstance(payload, dict) and isinstance(payload.get("source"), dict):
            source = payload["source"]
            result.connector = result.connector or source.get("connector")
            result.source_table = result.source_table or source_table_name(source)
        key = _json_object(record.kafka_key)
        if key is not None:
            key_schema, _ = _envelope(key)
            if key_schema is not None:
                result.add_key_schema(key_schema)
    return result
