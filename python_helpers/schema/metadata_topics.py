"""Debezium's metadata topics: transaction boundaries and schema changes.

Besides one topic per table, a connector can write

* the **transaction metadata topic** (``<prefix>.transaction``): a BEGIN and
  an END event per transaction, with ``status``, ``id``, ``ts_ms`` and, on
  END, ``event_count`` and ``data_collections``;
* the **schema-change topic** (``<prefix>``): ``databaseName``,
  ``schemaName``, ``ddl`` and ``tableChanges`` (table id, type, columns,
  primary key) with the connector's ``source`` block;
* the **notification topic** (``notification.sink.topic.name``, Debezium
  2.3+, when ``notification.enabled.channels`` has ``sink``): ``id``,
  ``aggregate_type`` (``Initial Snapshot``, ``Incremental Snapshot``),
  ``type`` (``STARTED``, ``TABLE_SCAN_COMPLETED``, ``COMPLETED``, ...),
  ``additional_data`` (a map of text) and ``timestamp`` (epoch ms).

Their layout is fixed by Debezium, so they are recognised by their fields
(whether or not the events carry schema blocks: the examples in the wild
often have ``"schema": null``) and read with built-in schemas. Every leaf is
read as text and cast in SQL, as for the change events' metadata.
"""

from __future__ import annotations

from typing import Any

from python_helpers.schema.connect_schema import ConnectSchema, parse_schema

CHANGES = "changes"
TRANSACTIONS = "transactions"
SCHEMA_CHANGES = "schema_changes"
NOTIFICATIONS = "notifications"
KINDS = (CHANGES, TRANSACTIONS, SCHEMA_CHANGES, NOTIFICATIONS)
# how each metadata kind is named in model descriptions
KIND_LABELS = {
    TRANSACTIONS: "transaction metadata",
    SCHEMA_CHANGES: "schema-change",
    NOTIFICATIONS: "notification",
}
# the kinds whose events carry no source block: their models take the
# metadata connector's folder (connectors.metadata_connector)
SOURCELESS = (TRANSACTIONS, NOTIFICATIONS)

# Source fields a schema-change event may carry, with their staged types
# (PostgreSQL, SQL Server and MySQL fields together).
SOURCE_TYPES = {
    "version": "string",
    "connector": "string",
    "name": "string",
    "ts_ms": "bigint",
    "snapshot": "string",
    "db": "string",
    "sequence": "string",
    "schema": "string",
    "table": "string",
    "change_lsn": "string",
    "commit_lsn": "string",
    "event_serial_no": "bigint",
    "server_id": "bigint",
    "gtid": "string",
    "file": "string",
    "pos": "bigint",
    "row": "int",
    "thread": "bigint",
    "query": "string",
    "lsn": "bigint",
    "txId": "bigint",
    "xmin": "bigint",
}


def kind_of(payload: dict[str, Any]) -> str:
    """Which kind of topic a value payload belongs to."""
    if "status" in payload and "id" in payload and "before" not in payload:
        return TRANSACTIONS
    if {"id", "aggregate_type", "type"} <= payload.keys() and "before" not in payload:
        return NOTIFICATIONS
    if "databaseName" in payload and ("tableChanges" in payload or "ddl" in payload):
        return SCHEMA_CHANGES
    return CHANGES


def _text(name: str) -> dict[str, Any]:
    return {"type": "string", "optional": True, "field": name}


def _array(name: str, items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "optional": True, "items": items, "field": name}


def _struct(name: str | None, fields: list[dict[str, Any]]) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "struct", "optional": True, "fields": fields}
    return block | ({"field": name} if name else {})


TRANSACTION_BLOCK = _struct(
    None,
    [
        _text("status"),
        _text("id"),
        _text("event_count"),
        _array("data_collections", _struct(None, [_text("data_collection"), _text("event_count")])),
        _text("ts_ms"),
    ],
)

NOTIFICATION_BLOCK = _struct(
    None,
    [
        _text("id"),
        _text("aggregate_type"),
        _text("type"),
        {
            "type": "map",
            "optional": True,
            "keys": {"type": "string"},
            "values": {"type": "string", "optional": True},
            "field": "additional_data",
        },
        _text("timestamp"),
    ],
)

COLUMN_FIELDS = (
    "name",
    "jdbcType",
    "nativeType",
    "typeName",
    "typeExpression",
    "charsetName",
    "length",
    "scale",
    "position",
    "optional",
    "autoIncremented",
    "generated",
    "comment",
    "defaultValueExpression",
)


def schema_change_block(source_fields: list[str]) -> dict[str, Any]:
    """The schema-change value schema, with the source fields seen."""
    columns = _struct(
        None, [_text(n) for n in COLUMN_FIELDS] + [_array("enumValues", {"type": "string"})]
    )
    table = _struct(
        "table",
        [
            _text("defaultCharsetName"),
            _array("primaryKeyColumnNames", {"type": "string"}),
            _array("columns", columns),
            _text("comment"),
        ],
    )
    change = _struct(None, [_text("type"), _text("id"), table])
    return _struct(
        None,
        [
            _struct("source", [_text(n) for n in source_fields]),
            _text("ts_ms"),
            _text("databaseName"),
            _text("schemaName"),
            _text("ddl"),
            _array("tableChanges", change),
        ],
    )


def metadata_schema(kind: str, source_fields: list[str]) -> ConnectSchema:
    """The built-in value schema of a metadata topic."""
    if kind == TRANSACTIONS:
        return parse_schema(TRANSACTION_BLOCK)
    if kind == NOTIFICATIONS:
        return parse_schema(NOTIFICATION_BLOCK)
    known = [n for n in SOURCE_TYPES if n in source_fields]
    return parse_schema(schema_change_block(known + sorted(set(source_fields) - set(known))))
