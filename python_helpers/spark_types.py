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

from python_helpers.connect_schema import ConnectSchema

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

# logical name -> (decoder, decoded Spark type); decimal is handled apart.
_LOGICAL = {
    "io.debezium.time.Date": ("date", "date"),
    "org.apache.kafka.connect.data.Date": ("date", "date"),
    "io.debezium.time.Timestamp": ("timestamp_millis", "timestamp"),
    "org.apache.kafka.connect.data.Timestamp": ("timestamp_millis", "timestamp"),
    "io.debezium.time.MicroTimestamp": ("timestamp_micros", "timestamp"),
    "io.debezium.time.NanoTimestamp": ("timestamp_nanos", "timestamp"),
    "io.debezium.time.ZonedTimestamp": ("zoned_timestamp", "timestamp"),
    "io.debezium.time.Time": ("time_millis", "string"),
    "org.apache.kafka.connect.data.Time": ("time_millis", "string"),
    "io.debezium.time.MicroTime": ("time_micros", "string"),
    "io.debezium.time.NanoTime": ("time_nanos", "string"),
    "io.debezium.data.Json": ("none", "string"),
}
DECIMAL = "org.apache.kafka.connect.data.Decimal"


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


def quote_identifier(name: str) -> str:
    """Backtick-quote a field name for Spark DDL."""
    return "`" + name.replace("`", "``") + "`"


def raw_type(schema: ConnectSchema) -> str:
    """The Spark DDL type ``from_json`` uses to read this node's JSON."""
    if schema.type == "struct":
        inner = ", ".join(
            f"{quote_identifier(f.name)}: {raw_type(f.schema)}" for f in schema.fields
        )
        return f"struct<{inner}>"
    if schema.type == "array":
        assert schema.items is not None
        return f"array<{raw_type(schema.items)}>"
    if schema.type == "map":
        assert schema.keys is not None and schema.values is not None
        if schema.keys.type != "string":
            # The JsonConverter writes such maps as [[key, value], ...]:
            # keep the JSON text rather than guess.
            return "string"
        return f"map<string, {raw_type(schema.values)}>"
    return _PRIMITIVE_SPARK[schema.type]


def fields_ddl(schema: ConnectSchema) -> str:
    """DDL of a struct's fields, the form ``from_json`` takes as a schema."""
    if schema.type != "struct":
        raise ValueError("only a struct schema has a field list")
    return ", ".join(f"{quote_identifier(f.name)} {raw_type(f.schema)}" for f in schema.fields)


def describe(schema: ConnectSchema) -> str:
    """A short human description of a Connect type, for column docs."""
    text = schema.type
    if schema.name and schema.type != "struct":
        text += f" ({schema.name})"
    return text + ("" if schema.optional else ", not null")


def decode_column(name: str, schema: ConnectSchema) -> DecodedColumn:
    """Decide the native Spark type of one top-level row-image column."""
    raw = raw_type(schema)

    def column(spark_type: str, decoder: str, scale: int | None = None) -> DecodedColumn:
        return DecodedColumn(
            name=name,
            raw_type=raw,
            type=spark_type,
            decoder=decoder,
            optional=schema.optional,
            connect_type=describe(schema),
            scale=scale,
        )

    if schema.name == DECIMAL and schema.type == "bytes":
        scale = int(schema.parameter("scale") or 0)
        precision_text = schema.parameter("connect.decimal.precision")
        precision = int(precision_text) if precision_text else SPARK_MAX_PRECISION
        precision = min(max(precision, scale, 1), SPARK_MAX_PRECISION)
        scale = min(scale, precision)
        return column(f"decimal({precision},{scale})", "decimal", scale)
    if schema.name in _LOGICAL:
        decoder, spark_type = _LOGICAL[schema.name]
        return column(spark_type, decoder)
    if schema.type == "bytes":
        return column("binary", "base64")
    return column(raw, "none")
