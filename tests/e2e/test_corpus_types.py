"""The real all-types events of other projects, decoded end to end to the
values their sources say they hold.

* MySQL: Flink CDC's expected Debezium events for its `full_types` table (a
  snapshot read, then `UPDATE full_types SET timestamp_c = '2020-07-17
  18:33:22'`). Expected values are the literals of the table's INSERT
  statement (flink-cdc `column_type_test.sql`), written out below, and, for
  the Decimal columns, the payload's own bytes decoded here in Python.
* SQL Server: SeaTunnel's Debezium event for `full_types_1`; expected values
  are the ones SeaTunnel's DebeziumJsonSerDeSchemaTest asserts for it.

Both topics are landed without schema blocks and read with hand-written
value schemas (sample_landing/<topic>/value-schema.json): see PROVENANCE.md.
Values are compared as the export prints them (decimals and floats as their
exact text, timestamps in UTC with microseconds, binary as base64).
"""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

import pytest
from e2e_harness import (
    FLINKCDC_FULL_TYPES,
    QUARANTINE_SQLSERVER_FULL_TYPES,
    SQLSERVER_FULL_TYPES,
)
from project_paths import SAMPLE_LANDING

pytestmark = pytest.mark.spark

FLINKCDC_TOPIC = SAMPLE_LANDING / "mysql_binlog_source.column_type_test.full_types"
B64_1 = base64.b64encode(b"\x01").decode()
B64_10 = base64.b64encode(b"\x10").decode()
# the INSERT's 'unhex(replace(uuid, '-', ''))' and b'00000100' * 8
UUID_BYTES = bytes.fromhex("651aed08390f4893b2f136923e7b7400")
BIT64 = bytes([0b00000100] * 8)

# column -> (Spark type, value after the update), from the INSERT literals
FLINKCDC_EXPECTED: dict[str, tuple[str, Any]] = {
    "id": ("decimal(20,0)", 1),
    "tiny_c": ("int", 127),
    "tiny_un_c": ("int", 255),
    "tiny_un_z_c": ("int", 255),
    "small_c": ("int", 32767),
    "small_un_c": ("int", 65535),
    "small_un_z_c": ("int", 65535),
    "medium_c": ("int", 8388607),
    "medium_un_c": ("int", 16777215),
    "medium_un_z_c": ("int", 16777215),
    "int_c": ("int", 2147483647),
    "int_un_c": ("bigint", 4294967295),
    "int_un_z_c": ("bigint", 4294967295),
    "int11_c": ("int", 2147483647),
    "big_c": ("bigint", 9223372036854775807),
    "big_un_c": ("decimal(20,0)", 18446744073709551615),
    "big_un_z_c": ("decimal(20,0)", 18446744073709551615),
    "varchar_c": ("string", "Hello World"),
    "char_c": ("string", "abc"),
    "real_c": ("float", Decimal("123.102")),
    "float_c": ("float", Decimal("123.102")),
    "float_un_c": ("float", Decimal("123.103")),
    "float_un_z_c": ("float", Decimal("123.104")),
    "double_c": ("double", Decimal("404.4443")),
    "double_un_c": ("double", Decimal("404.4444")),
    "double_un_z_c": ("double", Decimal("404.4445")),
    "decimal_c": ("decimal(8,4)", Decimal("123.4567")),
    "decimal_un_c": ("decimal(8,4)", Decimal("123.4568")),
    "decimal_un_z_c": ("decimal(8,4)", Decimal("123.4569")),
    "numeric_c": ("decimal(6,0)", 346),  # NUMERIC(6, 0) given 345.6
    "big_decimal_c": ("decimal(38,1)", Decimal("34567892.1")),  # DECIMAL(65, 1)
    "bit1_c": ("boolean", False),
    "tiny1_c": ("int", 1),
    "boolean_c": ("int", 1),
    "date_c": ("date", "2020-07-17"),
    "time_c": ("string", "18:00:22.000000"),
    "datetime3_c": ("timestamp", "2020-07-17T18:00:22.123000Z"),
    "datetime6_c": ("timestamp", "2020-07-17T18:00:22.123456Z"),
    "timestamp_c": ("timestamp", "2020-07-17T18:33:22.000000Z"),  # the update's value
    "file_uuid": ("binary", base64.b64encode(UUID_BYTES).decode()),
    "bit_c": ("binary", base64.b64encode(BIT64).decode()),
    "text_c": ("string", "text"),
    "tiny_blob_c": ("binary", B64_10),
    "blob_c": ("binary", B64_10),
    "medium_blob_c": ("binary", B64_10),
    "long_blob_c": ("binary", B64_10),
    "year_c": ("int", 2021),
    "enum_c": ("string", "red"),
    "set_c": ("array<string>", ["a", "b"]),
    "json_c": ("string", '{"key1":"value1"}'),  # as the binlog event renders it
    "varchar_len0_c": ("string", ""),
}

SQLSERVER_EXPECTED: dict[str, tuple[str, Any]] = {
    "id": ("int", 1),
    "f1": ("boolean", True),
    "f4": ("int", 1),
    "f6": ("bigint", 1),
    "f7": ("float", Decimal("1.0")),
    "f9": ("double", Decimal("1.0")),
    "f10": ("decimal(18,0)", 1),
    "f11": ("decimal(38,18)", Decimal("1")),
    "f14": ("decimal(19,4)", Decimal("1")),  # money
    "f15": ("decimal(10,4)", Decimal("1")),  # smallmoney
    "f16": ("string", "1"),
    "f28": ("string", "1"),  # xml
    "f29": ("binary", B64_1),
    "f35": ("date", "2024-12-16"),
    "f36": ("string", "21:02:03.000000"),  # time(7): NanoTime
    "f37": ("string", "21:02:04.000000"),  # time(3): Time (ms)
    "f38": ("timestamp", "2024-12-16T21:02:05.000000Z"),  # datetime
    "f39": ("timestamp", "2024-12-16T21:02:07.000000Z"),  # datetime2(7): NanoTimestamp
    "f40": ("timestamp", "2024-12-16T21:02:08.000000Z"),  # datetime2(3)
    "f41": ("timestamp", "2024-12-16T21:02:09.799000Z"),  # datetimeoffset
    "f42": ("timestamp", "2024-12-16T21:02:11.349000Z"),  # datetimeoffset(3)
    "f43": ("timestamp", "2024-12-16T21:02:00.000000Z"),  # smalldatetime
}


def _decimal_from_payload(text: str, scale: int) -> Decimal:
    """A Kafka Connect Decimal as the converter wrote it: base64 of the
    big-endian two's complement unscaled value."""
    unscaled = int.from_bytes(base64.b64decode(text), "big", signed=True)
    return Decimal(unscaled).scaleb(-scale)


def _only_row(runs: dict[str, Any], table: str) -> tuple[dict[str, Any], dict[str, str]]:
    exported = runs["second"][table]
    assert len(exported["rows"]) == 1
    return exported["rows"][0], exported["types"]


def _check(row: dict[str, Any], types: dict[str, str], expected: dict[str, Any]) -> None:
    for column, (spark_type, value) in expected.items():
        assert (column, types[column]) == (column, spark_type)
        assert (column, row[column]) == (column, value)


def test_flinkcdc_mysql_full_types_decode_to_the_inserted_values(runs: dict[str, Any]) -> None:
    row, types = _only_row(runs, FLINKCDC_FULL_TYPES)
    _check(row, types, FLINKCDC_EXPECTED)
    geometry = {name for name in row if name.endswith("_c") and types[name].startswith("struct")}
    assert len(geometry) == 8
    assert row["point_c"]["x"] == row["point_c"]["y"] == 1  # POINT(1 1)
    events = (FLINKCDC_TOPIC / "flinkcdc-full-types-payload.jsonl").read_text().splitlines()
    after = json.loads(events[-1])["after"]
    for column in sorted(geometry):
        assert row[column]["wkb"] == after[column]["wkb"]
        assert row[column]["srid"] is None


def test_flinkcdc_decimals_equal_the_payload_bytes_decoded_independently(
    runs: dict[str, Any],
) -> None:
    row, _ = _only_row(runs, FLINKCDC_FULL_TYPES)
    events = (FLINKCDC_TOPIC / "flinkcdc-full-types-payload.jsonl").read_text().splitlines()
    after = json.loads(events[-1])["after"]
    scales = {"id": 0, "big_un_c": 0, "big_un_z_c": 0, "decimal_c": 4, "decimal_un_c": 4}
    scales |= {"decimal_un_z_c": 4, "numeric_c": 0, "big_decimal_c": 1}
    for column, scale in scales.items():
        assert Decimal(row[column]) == _decimal_from_payload(after[column], scale), column


def test_seatunnel_sqlserver_full_types_decode_to_seatunnels_asserted_values(
    runs: dict[str, Any],
) -> None:
    row, types = _only_row(runs, SQLSERVER_FULL_TYPES)
    _check(row, types, SQLSERVER_EXPECTED)
    # the columns SeaTunnel does not assert: each type family as its sibling
    for column in ("f2", "f3", "f5"):
        assert row[column] == 1
    for column in ("f12", "f13"):
        assert Decimal(row[column]) == 1
    assert {row[f"f{i}"] for i in range(16, 29)} == {"1"}
    assert {row[f"f{i}"] for i in range(29, 35)} == {B64_1}


def test_decimals_of_the_wrong_form_are_quarantined_naming_the_column(
    runs: dict[str, Any],
) -> None:
    """The hand-written id 2 event has base64 where the topic's converter
    writes numbers (decimal.format=NUMERIC): quarantined, never nulled."""
    rows = runs["second"][QUARANTINE_SQLSERVER_FULL_TYPES]["rows"]
    assert [(r["_quarantine_reason"], r["_kafka_offset"]) for r in rows] == [("type_mismatch", 0)]
    detail = rows[0]["_quarantine_detail"]
    assert detail.startswith("column f10 is bytes (org.apache.kafka.connect.data.Decimal)")
    assert "decimal_format: numeric" in detail
