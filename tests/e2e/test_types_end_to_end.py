"""Every Kafka Connect / Debezium type of the paired fixtures
(fixtures/types/connect_types.json: schema block + value in, Spark type +
value out) decoded end to end: the sample topic typesdemo.public.all_types
has one column per fixture, two rows, and its staging view and
current-state table must hold exactly the expected types and values.

Values are compared as the export prints them (decimals and floats as
their exact text, timestamps in UTC with microseconds, binary as base64).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from e2e_harness import TYPES_TABLES
from project_paths import FIXTURES

pytestmark = pytest.mark.spark

FIXTURE = FIXTURES / "types" / "connect_types.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]


def _normalised(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


@pytest.mark.parametrize("layer", sorted(TYPES_TABLES))
@pytest.mark.parametrize("case", CASES, ids=[c["column"] for c in CASES])
def test_type_decodes_to_its_spark_type_and_value(
    runs: dict[str, Any], case: dict[str, Any], layer: str
) -> None:
    table = runs["second"][TYPES_TABLES[layer]]
    rows = sorted(table["rows"], key=lambda row: row["id"])
    assert [row["id"] for row in rows] == [1, 2]
    column = case["column"]
    assert table["types"][column].replace(" ", "") == case["spark_type"].replace(" ", "")
    assert [_normalised(row[column]) for row in rows] == case["expected"]
