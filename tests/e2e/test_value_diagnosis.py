"""The diagnosis of a value the generated schema does not read: which row
columns' JSON types are wrong (`_cdc_unreadable_columns`, the detail of a
`type_mismatch` or `schema_contradiction`). Since issue 71 it reads each
row image twice whatever the number of columns (a struct of the flat
columns with their types, and the same as strings) instead of once per
column; here it is compared, value by value, with the per-column reading
it replaced, written out in the query itself: a column is unreadable when
`from_json` of its image with that column alone marks the record corrupt.
The values put a wrong field before readable ones, JSON nulls, a nested
column, images in the JsonConverter's payload and at the top, and images
that are not JSON objects. One `dbt show` on the shared runs' warehouse."""

from __future__ import annotations

import json
from typing import Any

import pytest
from e2e_harness import dbt_show

pytestmark = pytest.mark.spark

COLUMNS = {"a": "int", "b": "string", "c": "array<int>", "d": "bigint", "e": "boolean"}
VALUES = [
    {"after": {"a": "x", "b": 1, "c": [1, "y"], "d": 5, "e": True}},
    {"after": {"a": 1, "b": "s", "c": [1], "d": "z", "e": None}},
    {"payload": {"before": {"a": None, "d": 7}, "after": {"a": 2, "e": "no"}}},
    {"before": {"c": {"not": "an array"}, "d": 1.5}, "after": None},
    {"after": 5},
    {"after": "text"},
    {"after": {"a": 1, "b": None, "c": None, "d": 9007199254740993, "e": False}},
]
# what the values above must give, by reading the JSON rules by hand
EXPECTED = [
    "column a, column c",
    "column d",
    "column e",
    "column c, column d",
    "column a, column b, column c, column d, column e",
    "column a, column b, column c, column d, column e",
    "",
]


def _sql_text(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _per_column(column: str, raw_type: str) -> str:
    """The reading the diagnosis replaced: the column alone, per image."""
    failed = " or ".join(
        f"from_json(coalesce(get_json_object(v, '$.payload.{image}'),"
        f" get_json_object(v, '$.{image}')), 'struct<`{column}`: {raw_type},"
        f" `_cdc_corrupt`: string>', map('columnNameOfCorruptRecord', '_cdc_corrupt'))"
        f"._cdc_corrupt is not null"
        for image in ("after", "before")
    )
    return f"if({failed}, 'column {column}', null)"


def test_the_columns_named_are_those_each_read_alone_finds() -> None:
    values = ", ".join(f"({n}, {_sql_text(json.dumps(v))})" for n, v in enumerate(VALUES))
    alone = ", ".join(_per_column(column, raw_type) for column, raw_type in COLUMNS.items())
    columns = json.dumps(COLUMNS)
    query = (
        f"select n, {{{{ _cdc_unreadable_columns({{}}, 'v', {columns}) }}}} as diagnosed,"
        f" concat_ws(', ', {alone}) as alone"
        f" from values {values} as t(n, v)"
    )
    rows: list[dict[str, Any]] = sorted(dbt_show(query), key=lambda r: r["n"])
    assert [r["diagnosed"] for r in rows] == [r["alone"] for r in rows]
    assert [r["diagnosed"] for r in rows] == EXPECTED
