"""Kafka Connect schema trees: parse the JSON blocks and merge versions.

A JsonConverter with ``schemas.enable=true`` embeds, in every message, a
schema block describing the payload. This module turns those blocks into a
small immutable tree and merges the versions seen over a topic's history so
that a column added later appears (as optional) in one combined schema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

PRIMITIVE_TYPES = frozenset(
    {
        "int8",
        "int16",
        "int32",
        "int64",
        "float",
        "double",
        "boolean",
        "string",
        "bytes",
    }
)
# The JsonConverter spells FLOAT32/FLOAT64 as "float"/"double"; accept the
# Connect enum names as well.
_TYPE_ALIASES = {"float32": "float", "float64": "double"}
COMPLEX_TYPES = frozenset({"struct", "array", "map"})

# Widening order used when two versions disagree on a numeric type.
_NUMERIC_RANK = {"int8": 0, "int16": 1, "int32": 2, "int64": 3}
_FLOAT_RANK = {"float": 0, "double": 1}


class SchemaError(ValueError):
    """A schema block is not a valid Kafka Connect schema."""


@dataclass(frozen=True)
class ConnectSchema:
    """One node of a Kafka Connect schema.

    ``fields`` is set for structs, ``items`` for arrays, ``keys``/``values``
    for maps. ``name`` is the logical type name (for example
    ``org.apache.kafka.connect.data.Decimal``) or the record name of a struct.
    """

    type: str
    optional: bool = True
    name: str | None = None
    version: int | None = None
    parameters: tuple[tuple[str, str], ...] = ()
    fields: tuple[ConnectField, ...] = ()
    items: ConnectSchema | None = None
    keys: ConnectSchema | None = None
    values: ConnectSchema | None = None

    def parameter(self, key: str) -> str | None:
        """Return one schema parameter (for example a decimal's scale)."""
        return dict(self.parameters).get(key)

    def field_named(self, name: str) -> ConnectField | None:
        """Return the struct field called ``name``, if any."""
        for candidate in self.fields:
            if candidate.name == name:
                return candidate
        return None


@dataclass(frozen=True)
class ConnectField:
    """A named field of a struct schema."""

    name: str
    schema: ConnectSchema = field(compare=True)


def parse_schema(block: Mapping[str, Any], path: str = "$") -> ConnectSchema:
    """Parse one JSON schema block (as the JsonConverter writes it)."""
    if not isinstance(block, Mapping):
        raise SchemaError(f"{path}: a schema must be a JSON object")
    raw_type = str(block.get("type", "")).lower()
    type_name = _TYPE_ALIASES.get(raw_type, raw_type)
    if type_name not in PRIMITIVE_TYPES | COMPLEX_TYPES:
        raise SchemaError(f"{path}: unknown Kafka Connect type {type_name!r}")
    params = block.get("parameters") or {}
    if not isinstance(params, Mapping):
        raise SchemaError(f"{path}: parameters must be an object")
    node = ConnectSchema(
        type=str(type_name),
        optional=_flag(block.get("optional", False)),
        name=block.get("name"),
        version=block.get("version"),
        parameters=tuple(sorted((str(k), str(v)) for k, v in params.items())),
    )
    if type_name == "struct":
        fields = []
        for index, raw in enumerate(block.get("fields") or []):
            name, field_block = _field_entry(raw, f"{path}.fields[{index}]")
            fields.append(ConnectField(name, parse_schema(field_block, f"{path}.{name}")))
        node = replace(node, fields=tuple(fields))
    elif type_name == "array":
        if "items" not in block:
            raise SchemaError(f"{path}: array without 'items'")
        node = replace(node, items=parse_schema(block["items"], f"{path}[]"))
    elif type_name == "map":
        if "keys" not in block or "values" not in block:
            raise SchemaError(f"{path}: map without 'keys'/'values'")
        node = replace(
            node,
            keys=parse_schema(block["keys"], f"{path}.keys"),
            values=parse_schema(block["values"], f"{path}.values"),
        )
    return node


def _flag(value: object) -> bool:
    """``optional`` as JSON boolean, or as the text the Debezium docs show."""
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value)


def _field_entry(raw: object, path: str) -> tuple[str, Mapping[str, Any]]:
    """A struct field: JsonConverter's ``{"field": name, "type": ...}`` or
    the ``{"name": n, "index": i, "schema": {...}}`` form of the Debezium
    documentation's key examples."""
    if not isinstance(raw, Mapping):
        raise SchemaError(f"{path}: a field must be a JSON object")
    if "field" in raw:
        return str(raw["field"]), raw
    if "name" in raw and isinstance(raw.get("schema"), Mapping):
        return str(raw["name"]), raw["schema"]
    raise SchemaError(f"{path}: missing 'field'")


def merge_schemas(left: ConnectSchema, right: ConnectSchema) -> ConnectSchema:
    """Merge two versions of a schema into one that reads both.

    Struct fields are unioned in order of first appearance; a field missing
    from either side becomes optional. Integer and float types widen; any
    other disagreement falls back to ``string`` (the JSON text is kept, so no
    value is lost). Logical types must agree, or the plain type is used.
    """
    optional = left.optional or right.optional
    if left.type == "struct" and right.type == "struct":
        return replace(left, optional=optional, fields=_merge_fields(left, right))
    if left.type == "array" and right.type == "array":
        assert left.items is not None and right.items is not None
        items = merge_schemas(left.items, right.items)
        return replace(left, optional=optional, items=items)
    if left.type == "map" and right.type == "map":
        assert left.keys is not None and right.keys is not None
        assert left.values is not None and right.values is not None
        return replace(
            left,
            optional=optional,
            keys=merge_schemas(left.keys, right.keys),
            values=merge_schemas(left.values, right.values),
        )
    if left.type == right.type and left.name == right.name:
        return _merge_same_type(left, right, optional)
    return ConnectSchema(type=_widen(left.type, right.type), optional=optional)


def _merge_same_type(left: ConnectSchema, right: ConnectSchema, optional: bool) -> ConnectSchema:
    """Merge two nodes of one type and logical name (decimal scales may differ)."""
    if left.parameters == right.parameters:
        return replace(left, optional=optional)
    merged = dict(left.parameters)
    for key, value in right.parameters:
        old = merged.get(key)
        if old is not None and old != value and old.isdigit() and value.isdigit():
            merged[key] = str(max(int(old), int(value)))
        else:
            merged[key] = value
    return replace(left, optional=optional, parameters=tuple(sorted(merged.items())))


def _merge_fields(left: ConnectSchema, right: ConnectSchema) -> tuple[ConnectField, ...]:
    right_by_name = {f.name: f for f in right.fields}
    left_names = {f.name for f in left.fields}
    merged: list[ConnectField] = []
    for item in left.fields:
        other = right_by_name.get(item.name)
        if other is None:
            merged.append(ConnectField(item.name, replace(item.schema, optional=True)))
        else:
            merged.append(ConnectField(item.name, merge_schemas(item.schema, other.schema)))
    for item in right.fields:
        if item.name not in left_names:
            merged.append(ConnectField(item.name, replace(item.schema, optional=True)))
    return tuple(merged)


def _widen(left: str, right: str) -> str:
    if left in _NUMERIC_RANK and right in _NUMERIC_RANK:
        return max(left, right, key=_NUMERIC_RANK.__getitem__)
    if left in _FLOAT_RANK and right in _FLOAT_RANK:
        return max(left, right, key=_FLOAT_RANK.__getitem__)
    numeric = set(_NUMERIC_RANK) | set(_FLOAT_RANK)
    if left in numeric and right in numeric:
        return "double"
    return "string"


def to_block(schema: ConnectSchema) -> dict[str, Any]:
    """Serialise a schema back to the JsonConverter's block form."""
    block: dict[str, Any] = {"type": schema.type, "optional": schema.optional}
    if schema.name is not None:
        block["name"] = schema.name
    if schema.version is not None:
        block["version"] = schema.version
    if schema.parameters:
        block["parameters"] = dict(schema.parameters)
    if schema.type == "struct":
        block["fields"] = [to_block(f.schema) | {"field": f.name} for f in schema.fields]
    if schema.items is not None:
        block["items"] = to_block(schema.items)
    if schema.keys is not None:
        block["keys"] = to_block(schema.keys)
    if schema.values is not None:
        block["values"] = to_block(schema.values)
    return block


def compact_json(value: Any) -> str:
    """A block (or any JSON value) as one canonical line: no spaces, keys
    sorted (what the generated specs store and compare)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
