"""Map Kafka Connect schemas to Spark SQL types.

Two views of every schema node are produced:

* the *raw* type: what ``from_json`` must read from the JSON the
  JsonConverter wrote (a Decimal is a base64 string there, a Date an int);
* the *decoded* column: the native Spark type a staging model exposes, and the
  decoder the dbt macro ``cdc_decode_column`` applies to get there.

Timestamps without a zone (Debezium Timestamp/MicroTimestamp/NanoTimestamp)
become Spark ``timestamp`` holding that wall-clock time read as UTC, which is
how Debezium encodes them: ``timestamp_ntz`` would be truer, but Hive
metastore views (the staging layer) silently turn it into ``timestamp``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from python_helpers.escaping import spark_identifier
from python_helpers.schema.column_names import is_plain_identifier
from python_helpers.schema.connect_schema import ConnectSchema, SchemaError

SPARK_MAX_PRECISION = 38

_PRIMITIVE_SPARK = {
    "int8": "tinyint",
    "int16": "smallint",
    "int32": "int",
    "int64": "bigint",
    "float": "float",
    "double": "double",
    "boolean": "boolean",
    "string": "string",
    "bytes": "string",  # base64 text in JSON
}

# Logical types of primitive nodes: name -> (Connect type, decoder, decoded
# Spark type). "none" keeps the JSON value as read; the others are applied
# by the macro cdc_decode_column (macros/types). Decimal and
# VariableScaleDecimal are handled apart (their type depends on parameters).
_LOGICAL: dict[str, tuple[str, str, str]] = {
    "org.apache.kafka.connect.data.Date": ("int32", "date", "date"),
    "org.apache.kafka.connect.data.Time": ("int32", "time_millis", "string"),
    "org.apache.kafka.connect.data.Timestamp": ("int64", "timestamp_millis", "timestamp"),
    "io.debezium.time.Date": ("int32", "date", "date"),
    "io.debezium.time.Time": ("int32", "time_millis", "string"),
    "io.debezium.time.MicroTime": ("int64", "time_micros", "string"),
    "io.debezium.time.NanoTime": ("int64", "time_nanos", "string"),
    "io.debezium.time.Timestamp": ("int64", "timestamp_millis", "timestamp"),
    "io.debezium.time.MicroTimestamp": ("int64", "timestamp_micros", "timestamp"),
    "io.debezium.time.NanoTimestamp": ("int64", "timestamp_nanos", "timestamp"),
    "io.debezium.time.ZonedTimestamp": ("string", "zoned_timestamp", "timestamp"),
    "io.debezium.time.ZonedTime": ("string", "none", "string"),
    "io.debezium.time.IsoDate": ("string", "iso_date", "date"),
    "io.debezium.time.IsoTime": ("string", "none", "string"),
    "io.debezium.time.IsoTimestamp": ("string", "iso_timestamp", "timestamp"),
    "io.debezium.time.Year": ("int32", "none", "int"),
    "io.debezium.time.MicroDuration": ("int64", "none", "bigint"),
    "io.debezium.time.NanoDuration": ("int64", "nanos_to_micros", "bigint"),
    "io.debezium.time.Interval": ("string", "none", "string"),
    "io.debezium.data.Json": ("string", "none", "string"),
    "io.debezium.data.Xml": ("string", "none", "string"),
    "io.debezium.data.Uuid": ("string", "none", "string"),
    "io.debezium.data.Enum": ("string", "none", "string"),
    "io.debezium.data.EnumSet": ("string", "enum_set", "array<string>"),
    "io.debezium.data.Ltree": ("string", "none", "string"),
    "io.debezium.data.Bits": ("bytes", "base64", "binary"),
    # Huawei MRS CDL: decimals and timestamps written as text
    "com.xxx.cdc.data.Decimal": ("string", "text_decimal", "decimal(38,18)"),
    "com.xxx.cdc.data.timestamp": ("string", "iso_timestamp", "timestamp"),
}
DECIMAL = "org.apache.kafka.connect.data.Decimal"
VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal"
# A decimal whose scale is not fixed by its schema (VariableScaleDecimal,
# CDL decimal text) lands in this type, as Flink CDC maps them.
UNBOUNDED_DECIMAL = "decimal(38,18)"
# The JsonConverter's decimal.format: a Decimal is written as base64 bytes
# (BASE64, Kafka's default) or as a JSON number (NUMERIC, Kafka >= 2.4).
BASE64 = "base64"
NUMERIC = "numeric"
DECIMAL_FORMATS = (BASE64, NUMERIC)
# Primitive nodes (any type) whose names are known not to be logical types.
_PLAIN_NAMES = frozenset({"io.debezium.data.Enum"})


class UnknownTypeError(SchemaError):
    """A schema node names a logical type the generator cannot decode."""


@dataclass(frozen=True)
class Decoder:
    """How one schema node is decoded: its raw (from_json) type, its Spark
    type and the decoder the macro applies; a struct, array or map whose
    descendants need decoding carries their decoders (``struct``,
    ``array``, ``map`` or, for a map with non-string keys, ``map_entries``)."""

    decoder: str
    raw_type: str
    type: str
    scale: int | None = None
    fields: tuple[tuple[str, Decoder], ...] = ()
    items: Decoder | None = None
    keys: Decoder | None = None
    values: Decoder | None = None

    def spec(self) -> dict[str, Any]:
        """The JSON form the generated macro holds (cdc_decode_column reads it)."""
        out: dict[str, Any] = {
            "decoder": self.decoder,
            "raw_type": self.raw_type,
            "type": self.type,
        }
        if self.scale is not None:
            out["scale"] = self.scale
        if self.fields:
            out["fields"] = [{"name": name} | child.spec() for name, child in self.fields]
        for role in ("items", "keys", "values"):
            child = getattr(self, role)
            if child is not None:
                out[role] = child.spec()
        return out


@dataclass(frozen=True)
class DecodedColumn:
    """One top-level column of a row image, as a staging model exposes it."""

    name: str
    raw_type: str
    type: str
    decoder: str
    optional: bool
    connect_type: str
    scale: int | None = None
    fields: list[dict[str, Any]] | None = None
    items: dict[str, Any] | None = None
    keys: dict[str, Any] | None = None
    values: dict[str, Any] | None = None


def raw_type(schema: ConnectSchema) -> str:
    """The Spark DDL type ``from_json`` uses to read this node's JSON."""
    if schema.type == "struct":
        inner = ", ".join(
            f"{spark_identifier(f.name)}: {raw_type(f.schema)}" for f in schema.fields
        )
        return f"struct<{inner}>"
    if schema.type == "array":
        assert schema.items is not None
        return f"array<{raw_type(schema.items)}>"
    if schema.type == "map":
        assert schema.keys is not None and schema.values is not None
        if schema.keys.type != "string":
            # The JsonConverter writes such maps as [[key, value], ...]:
            # read each pair's two values as JSON text (see map_entries).
            return "array<array<string>>"
        return f"map<string, {raw_type(schema.values)}>"
    return _PRIMITIVE_SPARK[schema.type]


def fields_ddl(schema: ConnectSchema) -> str:
    """DDL of a struct's fields, the form ``from_json`` takes as a schema."""
    if schema.type != "struct":
        raise ValueError("only a struct schema has a field list")
    return ", ".join(f"{spark_identifier(f.name)} {raw_type(f.schema)}" for f in schema.fields)


def describe(schema: ConnectSchema) -> str:
    """A short human description of a Connect type, for column docs."""
    text = schema.type
    if schema.name and schema.type != "struct":
        text += f" ({schema.name})"
    return text + ("" if schema.optional else ", not null")


def decoder(schema: ConnectSchema, path: str = "$", decimal_format: str = BASE64) -> Decoder:
    """Decide how one schema node is decoded, at any depth. A logical type
    the generator does not know raises UnknownTypeError naming ``path``.
    ``decimal_format`` is the JsonConverter's ``decimal.format``: Decimals
    are base64 bytes (BASE64, the default) or JSON numbers (NUMERIC)."""
    raw = raw_type(schema)
    if schema.type == "struct":
        if schema.name == VARIABLE_SCALE_DECIMAL:
            return Decoder("variable_decimal", raw, UNBOUNDED_DECIMAL)
        fields = tuple(
            (f.name, decoder(f.schema, f"{path}.{f.name}", decimal_format)) for f in schema.fields
        )
        if all(child.decoder == "none" for _, child in fields):
            return Decoder("none", raw, raw)
        inner = ", ".join(f"{spark_identifier(name)}: {child.type}" for name, child in fields)
        return Decoder("struct", raw, f"struct<{inner}>", fields=fields)
    if schema.type == "array":
        assert schema.items is not None
        items = decoder(schema.items, f"{path}[]", decimal_format)
        if items.decoder == "none":
            return Decoder("none", raw, raw)
        return Decoder("array", raw, f"array<{items.type}>", items=items)
    if schema.type == "map":
        assert schema.keys is not None and schema.values is not None
        keys = decoder(schema.keys, f"{path}.keys", decimal_format)
        values = decoder(schema.values, f"{path}.values", decimal_format)
        spark_type = f"map<{keys.type}, {values.type}>"
        if schema.keys.type != "string":
            return Decoder("map_entries", raw, spark_type, keys=keys, values=values)
        if values.decoder == "none":
            return Decoder("none", raw, raw)
        return Decoder("map", raw, spark_type, values=values)
    if schema.name == DECIMAL:
        _expect(schema, "bytes", path)
        scale = int(schema.parameter("scale") or 0)
        precision_text = schema.parameter("connect.decimal.precision")
        precision = int(precision_text) if precision_text else SPARK_MAX_PRECISION
        precision = min(max(precision, scale, 1), SPARK_MAX_PRECISION)
        scale = min(scale, precision)
        kind = "number_decimal" if decimal_format == NUMERIC else "decimal"
        return Decoder(kind, raw, f"decimal({precision},{scale})", scale)
    if schema.name is not None:
        if schema.name not in _LOGICAL:
            raise UnknownTypeError(
                f"{path}: logical type {schema.name!r} ({schema.type}) is not known to the"
                " generator; decoding it as plain text would be silent: add it to"
                " python_helpers/schema/spark_types.py"
            )
        connect_type, kind, spark_type = _LOGICAL[schema.name]
        _expect(schema, connect_type, path)
        return Decoder(kind, raw, spark_type)
    if schema.type == "bytes":
        return Decoder("base64", raw, "binary")
    return Decoder("none", raw, raw)


def check_decodable(topic: str, row: ConnectSchema) -> None:
    """Stop with an error naming the topic, the field path and the type
    when a column of ``row`` (at any depth) has a type with no decoder."""
    for item in row.fields:
        try:
            decoder(item.schema, item.name)
        except UnknownTypeError as error:
            raise UnknownTypeError(f"topic {topic}: {error}") from None


def unkept_nested_fields(row: ConnectSchema) -> list[str]:
    """The paths of nested struct fields (below a top-level column) whose
    names the Hive metastore cannot keep in a column's type text
    (column_names.is_plain_identifier): such a table would break its schema's listing."""

    def walk(schema: ConnectSchema | None, path: str) -> list[str]:
        if schema is None:
            return []
        found = []
        for item in schema.fields:
            if not is_plain_identifier(item.name):
                found.append(f"{path}.{item.name}")
            found += walk(item.schema, f"{path}.{item.name}")
        return found + walk(schema.items, path + "[]") + walk(schema.values, path + "{}")

    return [p for item in row.fields for p in walk(item.schema, item.name)]


def _expect(schema: ConnectSchema, connect_type: str, path: str) -> None:
    if schema.type != connect_type and schema.name not in _PLAIN_NAMES:
        raise UnknownTypeError(
            f"{path}: logical type {schema.name!r} on a {schema.type} value"
            f" (expected {connect_type})"
        )


def decode_column(name: str, schema: ConnectSchema, decimal_format: str = BASE64) -> DecodedColumn:
    """Decide the native Spark type of one top-level row-image column."""
    node = decoder(schema, name, decimal_format)
    nested = node.spec()
    return DecodedColumn(
        name=name,
        raw_type=node.raw_type,
        type=node.type,
        decoder=node.decoder,
        optional=schema.optional,
        connect_type=describe(schema),
        scale=node.scale,
        fields=nested.get("fields"),
        items=nested.get("items"),
        keys=nested.get("keys"),
        values=nested.get("values"),
    )
