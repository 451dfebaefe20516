"""The Debezium MongoDB connector: its envelope and its documents' types.

MongoDB events carry no row struct: the document is an extended-JSON string
(``after``, ``before``; 1.x oplog updates a ``patch`` and a ``filter``; 2.x
change-stream updates an ``updateDescription``). The envelope layout is
fixed by the connector, so it is read with a built-in schema (topics with
or without schema blocks alike), and the documents' field types are
inferred from every document ``sync`` sees (``extended_json``).
"""

from __future__ import annotations

from typing import Any

from python_helpers.connectors import DOCUMENTS, Connector
from python_helpers.escaping import spark_identifier
from python_helpers.schema.connect_schema import ConnectSchema, compact_json, parse_schema
from python_helpers.schema.extended_json import EMPTY_DOC, DocType, infer, loads, merge, set_path

KEY_FIELD = "_id"
# Staged types of the source fields the connector versions write.
SOURCE_TYPES = {
    "ts_ms": "bigint",
    "ts_us": "bigint",
    "ts_ns": "bigint",
    "ord": "int",
    "h": "bigint",
    "tord": "bigint",
    "txnNumber": "bigint",
    "wallTime": "bigint",
}
# What the source fields of its events mean (snake_case names).
SOURCE_DOCS = {
    "collection": "MongoDB collection.",
    "ord": "MongoDB order of the event within its second (`ts_ms`).",
    "rs": "MongoDB replica set.",
    "h": "MongoDB oplog entry hash (1.x oplog connector).",
    "tord": "MongoDB order within the transaction (1.x oplog connector).",
    "stxnid": "MongoDB transaction id (1.x oplog connector).",
    "lsid": "MongoDB logical session id of the transaction.",
    "txn_number": "MongoDB transaction number within the session.",
    "wall_time": "MongoDB wall-clock time of the change (`wallTime`, ms).",
}
# The change columns of a MongoDB staging model (besides CDC metadata).
STAGING_COLUMNS = {
    "_id": "Document id as text: an ObjectId as its 24 hex digits, a number as"
    " its decimal text, a string as itself, any other id as compact JSON.",
    "after_document": "`after`: the whole document after the change (creates,"
    " reads, 2.x updates in `change_streams_update_full` mode), extended JSON.",
    "before_document": "`before`: the document before the change (2.x pre-image"
    " modes only), extended JSON.",
    "patch": "`patch` (1.x oplog updates): `$set` / `$unset`, or a whole"
    " replacement document, extended JSON.",
    "patch_filter": "`filter` (1.x updates and deletes): the selection, extended JSON.",
    "updated_fields": "`updateDescription.updatedFields` (2.x): changed fields by"
    " (dotted) path, extended JSON.",
    "removed_fields": "`updateDescription.removedFields` (2.x): removed paths.",
    "truncated_arrays": "`updateDescription.truncatedArrays` (2.x): arrays cut to `size` elements.",
}
# The current-state model's own columns (besides the document's).
CURRENT_COLUMNS = {
    "_document": "The whole current document, compact extended JSON (fields in"
    " document order; what the typed columns do not show is here).",
    "_cdc_replay_issue": "Null when the document is exact. Otherwise why it may"
    " not be: `missing_base_document` (an update without a full document came"
    " before any create/read of this `_id`) or `unsupported_patch: ...` (an"
    " update the replay cannot apply, quarantined). Cleared by the next full"
    " document.",
}


def _text(name: str) -> dict[str, Any]:
    return {"type": "string", "optional": True, "field": name}


def envelope_schema(source_fields: list[str]) -> ConnectSchema:
    """The built-in value schema: every field the 1.x and 2.x envelopes
    have, the source block with the fields seen (read as text)."""
    description = {
        "type": "struct",
        "optional": True,
        "field": "updateDescription",
        "fields": [
            {
                "type": "array",
                "optional": True,
                "items": {"type": "string"},
                "field": "removedFields",
            },
            _text("updatedFields"),
            {
                "type": "array",
                "optional": True,
                "field": "truncatedArrays",
                "items": {
                    "type": "struct",
                    "optional": True,
                    "fields": [_text("field"), _text("size")],
                },
            },
        ],
    }
    transaction = {
        "type": "struct",
        "optional": True,
        "field": "transaction",
        "fields": [_text("id"), _text("total_order"), _text("data_collection_order")],
    }
    source = {
        "type": "struct",
        "optional": True,
        "field": "source",
        "fields": [_text(name) for name in source_fields],
    }
    fields = [_text(n) for n in ("before", "after", "patch", "filter")]
    fields += [description, source, _text("op"), _text("ts_ms"), transaction]
    return parse_schema({"type": "struct", "optional": False, "fields": fields})


def _document(text: Any) -> dict[str, Any] | None:
    parsed = loads(text) if isinstance(text, str) else None
    return parsed if isinstance(parsed, dict) else None


def observe(document: DocType | None, payload: dict[str, Any]) -> DocType:
    """Merge what one event says about the documents' field types: its full
    documents, the values a 1.x ``$set`` or a 2.x ``updatedFields`` writes
    (at their dotted paths), a 1.x replacement document."""
    merged = document or EMPTY_DOC

    def updated(merged: DocType, values: dict[str, Any]) -> DocType:
        for path, value in values.items():
            parts = path.split(".")
            if not any(part.startswith("$") for part in parts):  # positional: not replayed
                merged = set_path(merged, parts, infer(value))
        return merged

    for name in ("after", "before"):
        found = _document(payload.get(name))
        if found is not None:
            merged = merge(merged, infer(found))
    patch = _document(payload.get("patch"))
    if patch is not None:
        if any(key.startswith("$") for key in patch):
            sets = patch.get("$set")
            merged = updated(merged, sets if isinstance(sets, dict) else {})
        else:
            merged = merge(merged, infer(patch))
    description = payload.get("updateDescription")
    if isinstance(description, dict):
        merged = updated(merged, _document(description.get("updatedFields")) or {})
    return merged


def tagged_parse_type(kind: DocType, names: dict[str, str] | None = None) -> str:
    """The from_json type reading a *tagged* document (every JSON string's
    text prefixed with ``S``, see macros/connectors/mongodb): documents as
    structs, arrays as arrays, every other value as its JSON text.
    ``names``: top-level fields renamed for Spark (the type the parsed
    document is cast to, by position)."""
    if kind.kind == "doc" and kind.fields:
        renamed = names or {}
        inner = ", ".join(
            f"{spark_identifier('S' + renamed.get(name, name))}: {tagged_parse_type(t)}"
            for name, t in kind.fields
        )
        return f"struct<{inner}>"
    if kind.kind == "array":
        return f"array<{tagged_parse_type(kind.items or DocType('null'))}>"
    return "string"


def document_columns(
    document: DocType, names: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The typed columns of the current-state model: one per top-level
    field but ``_id``, with the Spark type and the type tree to decode;
    ``names``: fields renamed for Spark (their ``source_name`` kept)."""
    renamed = names or {}
    return [
        {"name": renamed.get(name, name)}
        | ({"source_name": name} if name in renamed else {})
        | {"type": kind.spark_type(), "doc_type": kind.to_json()}
        for name, kind in document.fields
        if name != KEY_FIELD
    ]


class MongoDb(Connector):
    """Documents replayed from the connector's patches."""

    def source_types(self, value_schema: ConnectSchema) -> dict[str, str]:
        source = value_schema.field_named("source")
        fields = [f.name for f in source.schema.fields] if source else []
        return {name: SOURCE_TYPES.get(name, "string") for name in fields}

    def builtin_value_schema(self, source_fields: list[str]) -> ConnectSchema:
        return envelope_schema(source_fields)

    def observe(self, document: DocType | None, payload: dict[str, Any]) -> DocType:
        return observe(document, payload)

    def document_columns(self, document: DocType, names: dict[str, str]) -> list[dict[str, Any]]:
        return document_columns(document, names)

    def document_spec(self, document: DocType, names: dict[str, str]) -> dict[str, Any]:
        """The Kafka key is ``{"id": <the id as text>}``; the staged change
        columns; the documents' typed columns and tagged parse types."""
        renamed = (
            {"column_names": dict(names), "document_row_type": tagged_parse_type(document, names)}
            if names
            else {}
        )
        return {
            "primary_key": [KEY_FIELD],
            "key_type": "struct<`id`: string>",
            "key_fields": ["id"],
            "columns": [{"name": name} for name in STAGING_COLUMNS],
            "document_columns": document_columns(document, names),
            "document_parse_type": tagged_parse_type(document),
            **renamed,
            "document": compact_json(document.to_json()),
        }


# documents are replayed from patches (macros/connectors/mongodb/), not merged
# as row images: no history model
CONNECTOR = MongoDb(
    name="mongodb",
    folder="mongodb",
    title="MongoDB",
    shape=DOCUMENTS,
    history=False,
    events_macro="cdc_mongodb_events",
    envelope="mongodb",
    source_docs=SOURCE_DOCS,
    key_field=KEY_FIELD,
    staging_columns=STAGING_COLUMNS,
    current_columns=CURRENT_COLUMNS,
    current_template="mongodb_current",
)
