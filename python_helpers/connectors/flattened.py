"""Debezium change events flattened by the ExtractNewRecordState SMT
(``transforms=unwrap``): the value is the row itself. What the SMT kept of
the envelope comes as fields of the value (``add.fields``: ``__op``,
``__lsn``, ``__source_ts_ms``…) or as headers (``add.headers``, the same
names); a delete is a tombstone (``delete.tombstone.handling.mode``
``tombstone``, the default, or ``delete-to-tombstone``), a row with
``__deleted: "true"`` (``rewrite``, ``rewrite-with-tombstone``; 1.x's
``delete.handling.mode=rewrite``), or both.

Read as a Debezium envelope (macros/connectors/flattened/): the row is
``after`` (``before`` for a delete), the kept metadata its ``source``. The
position is the source position the SMT kept — PostgreSQL's ``lsn``,
MySQL's ``file``/``pos``/``row``, SQL Server's ``commit_lsn``/
``change_lsn``/``event_serial_no`` — then the Kafka offset; a tombstone,
which carries none, takes that of the newest earlier record of its key
(docs/guarantees.md). Recognised by the ``__`` fields the SMT adds, or
declared with ``connector: flattened`` in the topic's declaration.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from python_helpers.connectors import Connector
from python_helpers.schema.connect_schema import ConnectField, ConnectSchema, parse_schema, to_block
from python_helpers.schema.envelope import row_schema

# the SMT's default add.fields.prefix / add.headers.prefix
PREFIX = "__"
# the metadata read from a value's fields (or its headers, the same names):
# each source field under its plain name and as `source.<field>` (the SMT
# names a struct's field `__source_<field>`)
SOURCE_TYPES = {
    "lsn": "bigint",
    "file": "string",
    "pos": "bigint",
    "row": "bigint",
    "commit_lsn": "string",
    "change_lsn": "string",
    "event_serial_no": "bigint",
    "ts_ms": "bigint",
    "snapshot": "string",
    "db": "string",
    "schema": "string",
    "table": "string",
}
# envelope fields the SMT can keep (add.fields=op,ts_ms): the operation,
# when the connector processed the change, and the rewrite's delete flag
ENVELOPE_FIELDS = ("op", "ts_ms", "deleted")
ENVELOPE_MARKERS = frozenset({"op", "before", "after", "source", "payload"})
# the Debezium envelope's fields the macros read (cdc_normalize__flattened)
ENVELOPE = ("before", "after", "source", "op", "ts_ms")


def metadata_names() -> list[str]:
    """Every field or header name the staging reads metadata from."""
    names = [PREFIX + name for name in ENVELOPE_FIELDS]
    for name in SOURCE_TYPES:
        names += [PREFIX + name, f"{PREFIX}source_{name}"]
    return list(dict.fromkeys(names))


def is_metadata(field: str) -> bool:
    """Whether a value field is metadata the SMT added (not a row column)."""
    return field.startswith(PREFIX)


def recognises(payload: dict[str, Any]) -> bool:
    """Whether a value payload looks like the SMT's output: a row with
    metadata fields (``__op``, ``__deleted``…) and no envelope. A row
    without any (no ``add.fields``) cannot be told from other JSON: such a
    topic declares ``connector: flattened``."""
    if ENVELOPE_MARKERS & payload.keys() or "OPERATION" in payload:
        return False
    return any(isinstance(name, str) and is_metadata(name) for name in payload)


def as_envelope(block: dict[str, Any]) -> dict[str, Any]:
    """A flattened value's schema block as the Debezium envelope block the
    rest of the project reads: its row columns (every field that is not
    metadata) as ``before`` and ``after``. The metadata fields are left
    out: the staging reads them by name (``metadata_names``)."""
    fields = block.get("fields")
    if block.get("type") != "struct" or not isinstance(fields, list):
        return block
    row = [f for f in fields if not (isinstance(f, dict) and is_metadata(str(f.get("field"))))]
    image = {k: v for k, v in block.items() if k != "field"} | {"fields": row, "optional": True}
    return {
        "type": "struct",
        "optional": False,
        "name": f"{block.get('name') or 'flattened'}.Envelope",
        "fields": [image | {"field": "before"}, image | {"field": "after"}],
    }


class Flattened(Connector):
    """Rows flattened by the SMT, read as the Debezium envelope."""

    def recognises(self, payload: dict[str, Any]) -> bool:
        return recognises(payload)

    def value_block(self, block: dict[str, Any]) -> dict[str, Any]:
        return as_envelope(block)

    def value_schema(self, schema: ConnectSchema) -> ConnectSchema:
        """A declared topic's rows without metadata fields: as the envelope."""
        if schema.field_named("after") is not None:
            return schema
        return parse_schema(as_envelope(to_block(schema)))

    def parsed_value(self, value_schema: ConnectSchema) -> ConnectSchema:
        """The row's columns, then every metadata field the staging can
        read (as text)."""
        row = row_schema(value_schema)
        text = ConnectSchema("string", optional=True)
        kept = tuple(ConnectField(name, text) for name in metadata_names())
        return replace(row, fields=row.fields + kept)

    def envelope_fields(self, parsed: ConnectSchema) -> list[str]:
        return list(ENVELOPE)

    def source_types(self, value_schema: ConnectSchema) -> dict[str, str]:
        return dict(SOURCE_TYPES)


CONNECTOR = Flattened(
    name="flattened",
    folder="flattened",
    title="Flattened (ExtractNewRecordState)",
    envelope="flattened",
    tombstone_deletes=True,
    undetectable="a topic of ExtractNewRecordState rows without __ metadata fields",
)
