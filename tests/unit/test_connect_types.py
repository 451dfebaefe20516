"""The type generator on the paired fixtures (no Spark): each schema block
of fixtures/types/connect_types.json gets its expected Spark type, at any
depth; a logical type the generator does not know stops sync with an error
naming the topic, the field path and the type."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from project_paths import FIXTURES

from python_helpers.project.sync import sync
from python_helpers.schema.connect_schema import parse_schema
from python_helpers.schema.spark_types import NUMERIC, decoder

FIXTURE = FIXTURES / "types" / "connect_types.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["column"] for c in CASES])
def test_generated_spark_type(case: dict[str, Any]) -> None:
    node = decoder(parse_schema(case["schema"]), case["column"])
    expected = case.get("generated_type", case["spark_type"])
    assert node.type.replace(" ", "").replace("`", "") == expected.replace(" ", "")


def test_nested_logical_types_carry_their_decoders() -> None:
    case = next(c for c in CASES if c["column"] == "c_nested")
    spec = decoder(parse_schema(case["schema"])).spec()
    assert spec["decoder"] == "array"
    fields = {f["name"]: f for f in spec["items"]["fields"]}
    assert fields["amount"]["decoder"] == "decimal" and fields["amount"]["scale"] == 2
    assert fields["at"]["decoder"] == "timestamp_micros"
    assert fields["days"]["items"]["decoder"] == "date"


def test_decimals_written_as_numbers_decode_from_their_text_at_any_depth() -> None:
    """decimal.format=NUMERIC (topic.yml `decimal_format: numeric`)."""
    case = next(c for c in CASES if c["column"] == "c_nested")
    spec = decoder(parse_schema(case["schema"]), decimal_format=NUMERIC).spec()
    amount = {f["name"]: f for f in spec["items"]["fields"]}["amount"]
    assert (amount["decoder"], amount["type"]) == ("number_decimal", "decimal(5,2)")
    assert amount["raw_type"] == "string"  # from_json reads a number token as its text


def test_plain_nested_values_are_read_as_they_are() -> None:
    block = {
        "type": "array",
        "items": {"type": "struct", "fields": [{"type": "int32", "field": "a"}]},
    }
    assert decoder(parse_schema(block)).decoder == "none"


def _topic_with_column(tmp_path: Path, column: dict[str, Any]) -> Path:
    row = {"type": "struct", "optional": True, "fields": [{"type": "int32", "field": "id"}, column]}
    schema = {
        "type": "struct",
        "fields": [
            row | {"field": "before"},
            row | {"field": "after"},
            {
                "type": "struct",
                "field": "source",
                "fields": [{"type": "string", "field": "connector"}],
            },
            {"type": "string", "field": "op"},
        ],
    }
    payload = {"before": None, "after": {"id": 1}, "source": {"connector": "postgresql"}, "op": "c"}
    key = {
        "schema": {"type": "struct", "fields": [{"type": "int32", "field": "id"}]},
        "payload": {"id": 1},
    }
    topic = tmp_path / "landing" / "srv.public.t"
    topic.mkdir(parents=True)
    line = {
        "topic": "srv.public.t",
        "partition": 0,
        "offset": 0,
        "tstype": "create",
        "ts": 1,
        "broker": 1,
        "key": json.dumps(key),
        "payload": json.dumps({"schema": schema, "payload": payload}),
    }
    (topic / "t.jsonl").write_text(json.dumps(line) + "\n")
    return tmp_path / "landing"


def test_unknown_logical_type_leaves_its_topic_out_naming_path_and_type(tmp_path: Path) -> None:
    unknown = {"type": "int64", "optional": True, "name": "io.debezium.time.Fortnight"}
    column = {
        "type": "array",
        "optional": True,
        "field": "spans",
        "items": {"type": "struct", "fields": [unknown | {"field": "length"}]},
    }
    landing = _topic_with_column(tmp_path, column)
    message = sync(tmp_path, landing).failed["srv.public.t"]
    assert "UnknownTypeError: topic srv.public.t" in message
    assert "spans[].length" in message
    assert "io.debezium.time.Fortnight" in message and "int64" in message


def test_logical_type_on_the_wrong_connect_type_leaves_its_topic_out(tmp_path: Path) -> None:
    column = {"type": "string", "optional": True, "name": "io.debezium.time.Date", "field": "d"}
    message = sync(tmp_path, _topic_with_column(tmp_path, column)).failed["srv.public.t"]
    assert re.search(r"srv\.public\.t: d: .*io\.debezium\.time\.Date", message), message
