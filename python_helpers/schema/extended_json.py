"""Types of MongoDB documents written as extended JSON.

The Debezium MongoDB connector writes documents (``after``, ``before``,
``patch``, ``updateDescription.updatedFields``) as extended-JSON strings, in
the dialect its settings chose: legacy/strict (``{"$numberLong": "1"}``,
``{"$date": 1739455397970}``, ``{"$binary": "...", "$type": "00"}``),
canonical (``{"$numberInt": "1"}``, ``{"$date": {"$numberLong": "..."}}``)
or relaxed (plain numbers, ``{"$date": "2019-01-01T00:00:00Z"}``).

This module infers one type per field from every document seen and merges
them into a tree (``DocType``) that ``sync`` stores in the generated macro;
the dbt macros decode each field to its Spark type from that tree.

Merge rules (documented in docs/connectors.md):

* a field missing or ``null`` in a document takes the type of the others;
* ``int`` and ``long`` widen to ``long``; ``int``/``long`` with ``double``
  widen to ``double`` (exact for integers below 2**53);
* two documents merge field by field, two arrays merge their items, two
  decimals keep the larger scale;
* any other disagreement (string and number, document and array, ...)
  makes the field ``json``: its JSON text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from python_helpers.escaping import spark_identifier
from python_helpers.schema.column_names import nested_names

# Kinds and the Spark type each decodes to (doc/array/decimal are built).
SPARK_TYPES = {
    "null": "string",
    "bool": "boolean",
    "int": "int",
    "long": "bigint",
    "double": "double",
    "string": "string",
    "date": "timestamp",
    "oid": "string",
    "binary": "binary",
    "uuid": "string",
    "json": "string",
}
NUMERIC = ("int", "long", "double")
DECIMAL_PRECISION = 38
_INT32 = 1 << 31
# Extended-JSON wrappers that are not decoded to a column type of their own.
OPAQUE_WRAPPERS = frozenset(
    {
        "$timestamp",
        "$regularExpression",
        "$regex",
        "$options",
        "$code",
        "$scope",
        "$symbol",
        "$minKey",
        "$maxKey",
        "$undefined",
        "$dbPointer",
        "$ref",
        "$id",
    }
)


@dataclass(frozen=True)
class DocType:
    """The merged type of one value: ``kind`` with ``fields`` (doc),
    ``items`` (array) or ``scale`` (decimal)."""

    kind: str
    fields: tuple[tuple[str, DocType], ...] = ()
    items: DocType | None = None
    scale: int = 0

    def field(self, name: str) -> DocType | None:
        """The type of a document's field, if seen."""
        return dict(self.fields).get(name)

    def spark_type(self) -> str:
        """The Spark SQL type a value of this type decodes to."""
        if self.kind == "doc":
            names = nested_names(name for name, _ in self.fields)
            inner = ", ".join(
                f"{spark_identifier(names.get(name, name))}: {kind.spark_type()}"
                for name, kind in self.fields
            )
            return f"struct<{inner}>" if inner else "string"
        if self.kind == "array":
            return f"array<{(self.items or NULL).spark_type()}>"
        if self.kind == "decimal":
            return f"decimal({DECIMAL_PRECISION},{self.scale})"
        return SPARK_TYPES[self.kind]

    def to_json(self) -> dict[str, Any]:
        """A plain structure for the generated macro."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == "doc":
            out["fields"] = [[name, kind.to_json()] for name, kind in self.fields]
            if names := nested_names(name for name, _ in self.fields):
                out["names"] = names  # the fields' names in Spark (nested_names)
        if self.kind == "array":
            out["items"] = (self.items or NULL).to_json()
        if self.kind == "decimal":
            out["scale"] = self.scale
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DocType:
        """Read back ``to_json``'s structure."""
        kind = str(data["kind"])
        if kind == "doc":
            fields = tuple((str(n), cls.from_json(t)) for n, t in data.get("fields") or [])
            return cls(kind, fields=fields)
        if kind == "array":
            return cls(kind, items=cls.from_json(data.get("items") or {"kind": "null"}))
        return cls(kind, scale=int(data.get("scale") or 0))


NULL = DocType("null")
JSON = DocType("json")
EMPTY_DOC = DocType("doc")


def _decimal_scale(text: str) -> int:
    mantissa = text.lower().split("e")[0]
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(text.lower().split("e")[1]) if "e" in text.lower() else 0
    return max(0, min(DECIMAL_PRECISION, digits - exponent))


def _wrapper_type(value: dict[str, Any]) -> DocType | None:
    """The type of an extended-JSON wrapper object, or None for a document."""
    keys = set(value)
    if not keys or not all(k.startswith("$") for k in keys):
        return None
    if keys == {"$oid"}:
        return DocType("oid")
    if keys == {"$numberLong"}:
        return DocType("long")
    if keys == {"$numberInt"}:
        return DocType("int")
    if keys == {"$numberDouble"}:
        return DocType("double")
    if keys == {"$numberDecimal"}:
        return DocType("decimal", scale=_decimal_scale(str(value["$numberDecimal"])))
    if keys == {"$date"}:
        return DocType("date")
    if keys == {"$uuid"}:
        return DocType("uuid")
    if "$binary" in keys:
        binary = value["$binary"]
        subtype = value.get("$type") if not isinstance(binary, dict) else binary.get("subType")
        return DocType("uuid") if str(subtype).lstrip("0") == "4" else DocType("binary")
    return JSON


def infer(value: Any) -> DocType:
    """The type of one parsed extended-JSON value."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return DocType("bool")
    if isinstance(value, int):
        return DocType("int") if -_INT32 <= value < _INT32 else DocType("long")
    if isinstance(value, float):
        return DocType("double")
    if isinstance(value, str):
        return DocType("string")
    if isinstance(value, list):
        items = NULL
        for item in value:
            items = merge(items, infer(item))
        return DocType("array", items=items)
    if isinstance(value, dict):
        wrapper = _wrapper_type(value)
        if wrapper is not None:
            return wrapper
        return DocType("doc", fields=tuple((k, infer(v)) for k, v in value.items()))
    return JSON


def merge(left: DocType, right: DocType) -> DocType:
    """The type that holds values of both (see the module's rules)."""
    if left.kind == "null":
        return right
    if right.kind == "null":
        return left
    if left.kind == right.kind:
        if left.kind == "doc":
            fields = dict(left.fields)
            for name, kind in right.fields:
                fields[name] = merge(fields[name], kind) if name in fields else kind
            return replace(left, fields=tuple(fields.items()))
        if left.kind == "array":
            return replace(left, items=merge(left.items or NULL, right.items or NULL))
        if left.kind == "decimal":
            return replace(left, scale=max(left.scale, right.scale))
        return left
    if left.kind in NUMERIC and right.kind in NUMERIC:
        return DocType(max(left.kind, right.kind, key=NUMERIC.index))
    return JSON


def set_path(document: DocType, path: list[str], value: DocType) -> DocType:
    """Merge ``value`` in at a dotted path (an update's ``a.b.c``). A
    numeric component under an array addresses its items."""
    if not path:
        return merge(document, value)
    head, rest = path[0], path[1:]
    if document.kind == "array" and head.isdigit():
        return replace(document, items=set_path(document.items or NULL, rest, value))
    if document.kind == "null":
        document = EMPTY_DOC
    if document.kind != "doc":
        return JSON if document.kind != "json" else document
    child = document.field(head) or NULL
    fields = dict(document.fields)
    fields[head] = set_path(child, rest, value)
    return replace(document, fields=tuple(fields.items()))


def loads(text: str) -> Any:
    """Parse one extended-JSON text (None when it is not JSON)."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def canonical(value: Any) -> str:
    """Compact JSON text, keys in document order."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
