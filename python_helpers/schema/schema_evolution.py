"""Judge a topic's schema versions one by one against its table.

Every distinct value schema block is a *version* (named by its
fingerprint). A version is merged into the topic's table schema when its
row columns can be applied in place — a column added or dropped, an
integer or float widened, a decimal's scale differing (decoded per
version). Any other change of a row column's type (int → string, Decimal →
int, a logical type that changes, a struct field that changes so) cannot
be: what happens then is the topic's policy, ``schema_changes`` in its
declaration (``topics/<topic>.yml``):

(A Decimal that keeps its scale, or shrinks it with its integer digits
still fitting, is merged; a larger scale is such a change.)

* ``quarantine`` (the default): the table keeps its type, and the records
  written with that version are quarantined as
  ``incompatible_schema_change``, naming the column and both types; no
  value the table's type rejects is ever admitted;
* ``widen``: the column is widened as far as both versions read (integer
  and float to double, anything else to string) and every record is
  staged; the topic's models must then be rebuilt
  (``dbt build --full-refresh --select <topic's base model>+``), since
  Iceberg cannot change such a column in place.

The established table schema is the first seen: the spec an earlier sync
stored, else the topic's first version in landing order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from python_helpers.schema.connect_schema import (
    ConnectField,
    ConnectSchema,
    compact_json,
    merge_schemas,
    parse_schema,
    to_block,
)
from python_helpers.schema.spark_types import DECIMAL, SPARK_MAX_PRECISION, raw_type

QUARANTINE = "quarantine"
WIDEN = "widen"
POLICIES = (QUARANTINE, WIDEN)
ROW_IMAGES = ("before", "after", "data")
_INTEGERS = frozenset({"int8", "int16", "int32", "int64"})
_FLOATS = frozenset({"float", "double"})


@dataclass(frozen=True)
class IncompatibleColumn:
    """A row column whose type a version changes in a way the table cannot
    take in place."""

    column: str
    table_type: str
    version_type: str
    version_schema: str  # the version's column schema block, compact JSON

    def to_spec(self) -> dict[str, str]:
        return {
            "column": self.column,
            "table_type": self.table_type,
            "version_type": self.version_type,
            "version_schema": self.version_schema,
        }

    @classmethod
    def from_spec(cls, item: dict[str, Any]) -> IncompatibleColumn:
        return cls(
            str(item["column"]),
            str(item["table_type"]),
            str(item["version_type"]),
            str(item["version_schema"]),
        )


def describe(schema: ConnectSchema) -> str:
    """A short human name of a column type: ``int32``, ``bytes (Decimal,
    scale 2)``, ``int32 (io.debezium.time.Date)``, ``struct``..."""
    if schema.name is None or schema.type == "struct":
        return schema.type
    short = schema.name.rsplit(".", 1)[-1] if schema.name.startswith("org.apache") else schema.name
    scale = schema.parameter("scale")
    return f"{schema.type} ({short}{f', scale {scale}' if scale is not None else ''})"


def _decimal_digits(schema: ConnectSchema) -> tuple[int, int]:
    """(digits before the point, scale) of a Decimal column (no precision
    parameter: Spark's largest)."""
    scale = int(schema.parameter("scale") or 0)
    precision = int(schema.parameter("connect.decimal.precision") or SPARK_MAX_PRECISION)
    return precision - scale, scale


def compatible(table: ConnectSchema, version: ConnectSchema) -> bool:
    """Whether ``version``'s type of a column can be applied in place to a
    table column of type ``table``. A Decimal may keep its scale (its
    precision widens in place) or shrink it when its integer digits still
    fit (its values are decoded with their own scale); a larger scale
    changes the column's type, which Iceberg cannot do in place."""
    if table.name == DECIMAL and version.name == DECIMAL and table.type == version.type:
        (table_digits, table_scale), (digits, scale) = map(_decimal_digits, (table, version))
        return scale == table_scale or (scale < table_scale and digits <= table_digits)
    if table.type != version.type or table.name != version.name:
        both_plain = table.name is None and version.name is None
        return both_plain and (
            {table.type, version.type} <= _INTEGERS or {table.type, version.type} <= _FLOATS
        )
    if table.type == "struct":
        by_name = {f.name: f.schema for f in version.fields}
        return all(compatible(f.schema, by_name[f.name]) for f in table.fields if f.name in by_name)
    pairs = (
        (table.items, version.items),
        (table.keys, version.keys),
        (table.values, version.values),
    )
    return all(left is None or right is None or compatible(left, right) for left, right in pairs)


def _row_columns(envelope: ConnectSchema) -> dict[str, ConnectSchema]:
    """Each row column's type as a version declares it (its row images
    agree; the first image naming a column gives its type)."""
    columns: dict[str, ConnectSchema] = {}
    for image in envelope.fields:
        if image.name in ROW_IMAGES and image.schema.type == "struct":
            for item in image.schema.fields:
                columns.setdefault(item.name, item.schema)
    return columns


def incompatible_columns(table: ConnectSchema, version: ConnectSchema) -> list[IncompatibleColumn]:
    """The row columns of ``version`` (an envelope schema) that the table
    envelope ``table`` cannot take in place."""
    established = _row_columns(table)
    found = []
    for name, schema in _row_columns(version).items():
        old = established.get(name)
        if old is not None and not compatible(old, schema):
            block = to_block(schema)
            text = compact_json(block)
            found.append(IncompatibleColumn(name, describe(old), describe(schema), text))
    return found


def version_raw_columns(envelope: ConnectSchema) -> dict[str, str]:
    """The row columns a version declares with a type other than text, as
    from_json types: a record is checked against its own version's types
    (a column declared as text cannot be: Spark reads any JSON token as
    text)."""
    out = {}
    for name, schema in _row_columns(envelope).items():
        try:
            spark_type = raw_type(schema)
        except ValueError:
            continue
        if spark_type != "string":
            out[name] = spark_type
    return out


def _keep_table_types(
    version: ConnectSchema, table: ConnectSchema, columns: set[str]
) -> ConnectSchema:
    """``version`` with the named row columns typed as the table has them."""
    established = _row_columns(table)
    images = []
    for image in version.fields:
        if image.name in ROW_IMAGES and image.schema.type == "struct":
            fields = tuple(
                ConnectField(f.name, replace(established[f.name], optional=f.schema.optional))
                if f.name in columns
                else f
                for f in image.schema.fields
            )
            image = ConnectField(image.name, replace(image.schema, fields=fields))
        images.append(image)
    return replace(version, fields=tuple(images))


def evolve(
    table: ConnectSchema | None, version: ConnectSchema, policy: str
) -> tuple[ConnectSchema, list[IncompatibleColumn]]:
    """The table schema after ``version`` is seen, and the columns that
    version changes incompatibly (under ``quarantine`` the table keeps
    their types; under ``widen`` they are widened and none is reported)."""
    if table is None:
        return version, []
    found = incompatible_columns(table, version) if policy == QUARANTINE else []
    if found:
        version = _keep_table_types(version, table, {item.column for item in found})
    return merge_schemas(table, version), found


def widen_with(table: ConnectSchema, found: list[IncompatibleColumn]) -> ConnectSchema:
    """The table schema with the incompatible versions' columns merged in
    (a topic whose policy became ``widen``)."""
    for item in found:
        column = parse_schema(json.loads(item.version_schema))
        images = []
        for image in table.fields:
            if image.name in ROW_IMAGES and image.schema.type == "struct":
                fields = tuple(
                    ConnectField(f.name, merge_schemas(f.schema, column))
                    if f.name == item.column
                    else f
                    for f in image.schema.fields
                )
                image = ConnectField(image.name, replace(image.schema, fields=fields))
            images.append(image)
        table = replace(table, fields=tuple(images))
    return table
