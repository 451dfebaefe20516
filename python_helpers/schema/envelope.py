"""The Debezium change-event envelope, as every connector's value is read.

A change event's value is an envelope around row images (``before``,
``after``; CDL JSON 1.0's ``data``) and metadata (``source``, ``op``,
``ts_ms``, ``transaction``...). Connectors whose values have another layout
turn theirs into this one (``python_helpers.connectors``); the functions
here read it: the row images' merged type, and the envelope as ``from_json``
parses it.
"""

from __future__ import annotations

from dataclasses import replace

from python_helpers.schema.connect_schema import ConnectField, ConnectSchema, merge_schemas
from python_helpers.schema.spark_types import raw_type

# Row images: Debezium's before/after, and CDL JSON 1.0's data (= after).
ROW_IMAGE_FIELDS = ("before", "after", "data")
# Envelope fields parsed with their declared types; every other envelope
# field (source, transaction, ts_ms, op, ...) is read leniently as text and
# cast where it is used, because connectors and documents disagree on
# whether e.g. event_serial_no or total_order is a JSON number or a string.
STRICT_FIELDS = (*ROW_IMAGE_FIELDS, "unique")


class SpecError(ValueError):
    """A topic's schema cannot be turned into a staging spec."""


def row_schema(envelope: ConnectSchema) -> ConnectSchema:
    """The row-image struct: ``before`` and ``after`` (or ``data``) merged."""
    images = [f.schema for f in envelope.fields if f.name in ROW_IMAGE_FIELDS]
    if not images or any(image.type != "struct" for image in images):
        raise SpecError("the value schema has no before/after row structs")
    merged = images[0]
    for image in images[1:]:
        merged = merge_schemas(merged, image)
    return replace(merged, optional=True)


def lenient(schema: ConnectSchema) -> ConnectSchema:
    """The same shape with every primitive read as text (Spark's from_json
    reads any JSON number, boolean or string into a string field)."""
    if schema.type == "struct":
        fields = tuple(ConnectField(f.name, lenient(f.schema)) for f in schema.fields)
        return replace(schema, fields=fields)
    if schema.type == "array" and schema.items is not None:
        return replace(schema, items=lenient(schema.items))
    if schema.type == "map" and schema.values is not None:
        return replace(schema, values=lenient(schema.values))
    return ConnectSchema("string", optional=True)


def envelope_for_parsing(envelope: ConnectSchema) -> ConnectSchema:
    """The envelope as from_json reads it: the row images sharing one merged
    row type, metadata fields lenient (see STRICT_FIELDS)."""
    row = row_schema(envelope)
    fields = tuple(
        ConnectField(f.name, row)
        if f.name in ROW_IMAGE_FIELDS
        else f
        if f.name in STRICT_FIELDS
        else ConnectField(f.name, lenient(f.schema))
        for f in envelope.fields
    )
    return replace(envelope, fields=fields)


def source_struct_types(envelope: ConnectSchema) -> dict[str, str]:
    """The declared Spark type of each field of the envelope's ``source``
    struct (none when it has no struct there)."""
    source = envelope.field_named("source")
    if source is None or source.schema.type != "struct":
        return {}
    return {f.name: raw_type(f.schema) for f in source.schema.fields}
