"""Schema blocks in, Spark DDL out: paired fixtures plus merge rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from project_paths import FIXTURES

from python_helpers.cli import main
from python_helpers.schema.connect_schema import (
    ConnectSchema,
    SchemaError,
    merge_schemas,
    parse_schema,
)
from python_helpers.schema.spark_types import decode_column, fields_ddl

SCHEMAS = FIXTURES / "schemas"
PAIRS = sorted(p.stem for p in SCHEMAS.glob("*.json"))


@pytest.mark.parametrize("name", PAIRS)
def test_schema_block_to_ddl(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    expected = (SCHEMAS / f"{name}.ddl").read_text(encoding="utf-8")
    assert main(["schema", str(SCHEMAS / f"{name}.json")]) == 0
    assert capsys.readouterr().out == expected


def test_fixture_pairs_exist() -> None:
    assert len(PAIRS) >= 3
    for name in PAIRS:
        assert (SCHEMAS / f"{name}.ddl").exists(), name


def _struct(*fields: dict[str, object]) -> ConnectSchema:
    return parse_schema({"type": "struct", "optional": False, "fields": list(fields)})


def test_logical_types_decode_to_native_spark_types() -> None:
    block = json.loads((SCHEMAS / "logical_types.json").read_text(encoding="utf-8"))
    schema = parse_schema(block)
    decoded = {f.name: decode_column(f.name, f.schema) for f in schema.fields}
    assert decoded["amount"].type == "decimal(12,2)"
    assert (decoded["amount"].decoder, decoded["amount"].scale) == ("decimal", 2)
    assert decoded["ordered_on"].type == "date"
    assert decoded["created_at"].type == "timestamp"
    assert decoded["created_at"].decoder == "timestamp_micros"
    assert decoded["updated_at"].decoder == "zoned_timestamp"
    assert decoded["attributes"].type == "string"
    assert decoded["blob"].type == "binary"
    assert decoded["tags"].type == "array<string>"
    assert decoded["counters"].type == "map<string, bigint>"


def test_decimal_without_precision_uses_spark_maximum() -> None:
    schema = _struct(
        {
            "type": "bytes",
            "optional": True,
            "name": "org.apache.kafka.connect.data.Decimal",
            "parameters": {"scale": "4"},
            "field": "price",
        }
    )
    assert decode_column("price", schema.fields[0].schema).type == "decimal(38,4)"


def test_merge_adds_later_column_as_optional() -> None:
    v1 = _struct({"type": "int32", "optional": False, "field": "id"})
    v2 = _struct(
        {"type": "int32", "optional": False, "field": "id"},
        {"type": "string", "optional": False, "field": "coupon"},
    )
    merged = merge_schemas(v1, v2)
    assert [f.name for f in merged.fields] == ["id", "coupon"]
    assert merged.fields[0].schema.optional is False
    assert merged.fields[1].schema.optional is True
    assert merge_schemas(v2, v1) == merged


def test_merge_widens_numbers_and_falls_back_to_string() -> None:
    ints = merge_schemas(
        _struct({"type": "int32", "optional": False, "field": "n"}),
        _struct({"type": "int64", "optional": False, "field": "n"}),
    )
    assert fields_ddl(ints) == "`n` bigint"
    mixed = merge_schemas(
        _struct({"type": "int32", "optional": False, "field": "n"}),
        _struct({"type": "double", "optional": False, "field": "n"}),
    )
    assert fields_ddl(mixed) == "`n` double"
    clash = merge_schemas(
        _struct({"type": "int32", "optional": False, "field": "n"}),
        _struct({"type": "boolean", "optional": False, "field": "n"}),
    )
    assert fields_ddl(clash) == "`n` string"


def test_merge_keeps_the_larger_decimal_scale() -> None:
    def dec(scale: str) -> ConnectSchema:
        return _struct(
            {
                "type": "bytes",
                "optional": False,
                "name": "org.apache.kafka.connect.data.Decimal",
                "parameters": {"scale": scale, "connect.decimal.precision": "10"},
                "field": "d",
            }
        )

    merged = merge_schemas(dec("2"), dec("4"))
    assert merged.fields[0].schema.parameter("scale") == "4"


def test_unknown_type_is_a_clear_error() -> None:
    with pytest.raises(SchemaError, match=r"\$\.x: unknown Kafka Connect type 'decimal'"):
        _struct({"type": "decimal", "optional": False, "field": "x"})


def test_cli_rejects_a_broken_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert main(["schema", str(broken)]) == 2
    assert "error:" in capsys.readouterr().err
