"""Huawei MRS CDL (CDL JSON 1.0 and Debezium JSON 2.0). Position: source.lsn
where it has one, else source.ts_ms; the key is the unique block; heartbeats
are counted, not staged.

CDL's events name no Debezium connector: they are recognised by their
layout. CDL JSON 1.0 (``OPERATION``, ``data``, ``before``, ``TABLE_NAME``…)
is read as the Debezium envelope (macros/connectors/cdl/); Debezium JSON 2.0
is Debezium's layout plus ``message_version`` and the ``unique`` block.
"""

from __future__ import annotations

from typing import Any

from python_helpers.connectors import Connector
from python_helpers.schema.connect_schema import ConnectSchema
from python_helpers.schema.envelope import source_struct_types

CDL_JSON = "cdl_json"  # CDL JSON 1.0
CDL_DEBEZIUM = "cdl_debezium"  # CDL's Debezium JSON 2.0
# CDL JSON 1.0 read as the Debezium envelope: its source block.
CDL_JSON_SOURCE = {
    "connector": "string",
    "schema": "string",
    "table": "string",
    "ts_ms": "bigint",
    "lsn": "bigint",
    "txId": "bigint",
}
EXTRA_FIELDS = ("message_version", "message_type", "unique", "LOB_COLUMNS", "HEARTBEAT_IDENTIFIER")
_DEBEZIUM_MARKERS = frozenset({"before", "after", "op", "source"})


class Cdl(Connector):
    """CDL's two message versions."""

    def recognises(self, payload: dict[str, Any]) -> bool:
        if "OPERATION" in payload:
            return True
        return "message_version" in payload and bool(_DEBEZIUM_MARKERS & payload.keys())

    def envelope_of(self, value_schema: ConnectSchema) -> str:
        names = {f.name for f in value_schema.fields}
        if {"OPERATION", "data"} <= names:
            return CDL_JSON
        if "message_version" in names:
            return CDL_DEBEZIUM
        return super().envelope_of(value_schema)

    def layouts(self) -> tuple[str, ...]:
        return (CDL_JSON, CDL_DEBEZIUM)

    def envelope_fields(self, parsed: ConnectSchema) -> list[str]:
        names = [f.name for f in parsed.fields]
        if self.envelope_of(parsed) != CDL_JSON:
            return names
        return ["before", "after", "source", "op"] + [n for n in EXTRA_FIELDS if n in names]

    def row_images(self, value_schema: ConnectSchema) -> tuple[str, ...]:
        if self.envelope_of(value_schema) == CDL_JSON:
            return ("data", "before")
        return super().row_images(value_schema)

    def source_types(self, value_schema: ConnectSchema) -> dict[str, str]:
        if self.envelope_of(value_schema) == CDL_JSON:
            return dict(CDL_JSON_SOURCE)
        return source_struct_types(value_schema)

    def source_table(self, payload: dict[str, Any]) -> str | None:
        table = payload.get("TABLE_NAME")  # CDL JSON 1.0
        if not table:
            return None
        owner = payload.get("SEG_OWNER")
        return f"{owner}_{table}" if owner else str(table)

    def data_key(self, value_schema: ConnectSchema | None) -> tuple[str, ...]:
        """The ``unique`` block's fields: CDL's key."""
        unique = value_schema.field_named("unique") if value_schema else None
        if unique is not None and unique.schema.type == "struct":
            return tuple(f.name for f in unique.schema.fields)
        return ()


CONNECTOR = Cdl(name="cdl", folder="cdl", title="Huawei CDL")
