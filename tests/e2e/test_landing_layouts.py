"""What real pipelines write, landed on real Spark (issue 44): Kafka
Connect storage-sink layouts (partition folders, ``<topic>+<p>+<offset>``
names, keys and headers files), compressed dumps (gzip, zstd), and kcat's
headers, with the duplicate check holding across forms."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import kcat
import pytest
import zstandard

from python_helpers.engine.sql_engine import SessionEngine
from python_helpers.land.raw_store import land_all
from python_helpers.land.raw_tables import (
    MANIFEST_TABLE,
    RAW_COLUMNS,
    RAW_LAYOUT_PROPERTY,
    RAW_SCHEMA,
)

pytestmark = pytest.mark.spark

TOPIC = "shop.public.orders"
TABLE = "shop_public_orders"


def _text(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")


def _put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    elif path.name.endswith(".zst"):
        data = zstandard.ZstdCompressor().compress(data)
    path.write_bytes(data)


def _value(n: int) -> str:
    return json.dumps({"op": "c", "after": {"id": n}}, separators=(",", ":"))


def _kcat(offset: int, partition: int = 0, headers: Any = None) -> str:
    record = kcat.record(
        TOPIC, partition, offset, 1000 + offset, None, _value(offset), headers=headers
    )
    return json.dumps(record)


def _rows(spark: Any) -> list[dict[str, Any]]:
    frame = spark.table(f"{RAW_SCHEMA}.{TABLE}").orderBy("kafka_partition", "kafka_offset")
    return [row.asDict(recursive=True) for row in frame.collect()]


def _headers(row: dict[str, Any]) -> list[tuple[str, str | None]] | None:
    found = row["kafka_headers"]
    return None if found is None else [(h["key"], h["value"]) for h in found]


def _sink_landing(root: Path) -> None:
    """An S3 sink's layout: partition folders, gzipped values with keys and
    headers files, a partition without them, and what a sink leaves that
    is no record (a temporary folder, a marker file)."""
    folder = root / TOPIC
    p0 = folder / "partition=0"
    _put(p0 / f"{TOPIC}+0+0000000000.json.gz", _text([_value(n) for n in range(3)]))
    keys = ['{"id":0}', "null", '{"id":2}']
    _put(p0 / f"{TOPIC}+0+0000000000.keys.json.gz", _text(keys))
    headers = [
        '[{"key":"__op","value":"c"},{"key":"trace","value":"a"},{"key":"trace","value":"b"}]',
        "[]",
        '{"headers":[{"key":"__op","value":"u"}]}',
    ]
    _put(p0 / f"{TOPIC}+0+0000000000.headers.json.gz", _text(headers))
    _put(folder / "partition=1" / f"{TOPIC}+1+0000000005.json", _text([_value(5), _value(6)]))
    _put(folder / "+tmp" / f"{TOPIC}+1+0000000007.json", _text([_value(7)]))
    _put(folder / "partition=1" / "_SUCCESS", b"")


def test_a_sink_layout_lands_with_the_coordinates_its_names_give(
    fresh: Any, tmp_path: Path
) -> None:
    _sink_landing(tmp_path)
    report = land_all(SessionEngine(fresh), tmp_path)[0]
    assert (report.files_read, report.read, report.landed) == (2, 5, 5)
    rows = _rows(fresh)
    assert [(r["kafka_partition"], r["kafka_offset"]) for r in rows] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 5),
        (1, 6),
    ]
    assert [r["kafka_key"] for r in rows] == ['{"id":0}', None, '{"id":2}', None, None]
    assert [_headers(r) for r in rows] == [
        [("__op", "c"), ("trace", "a"), ("trace", "b")],
        [],
        [("__op", "u")],
        None,
        None,
    ]
    assert rows[0]["landing_file"] == f"{TOPIC}/partition=0/{TOPIC}+0+0000000000.json.gz"
    assert [r["kafka_value"] for r in rows] == [_value(n) for n in (0, 1, 2, 5, 6)]


def test_forms_mixed_in_one_topic_land_each_record_once(fresh: Any, tmp_path: Path) -> None:
    """A zstd kcat dump repeating two of the sink file's records (same
    partition and offsets) beside it: the repeats are dropped, one new
    record lands; the sink file re-written under its name lands nothing new."""
    _sink_landing(tmp_path)
    _put(tmp_path / TOPIC / "dump.jsonl.zst", _text([_kcat(o) for o in (1, 2, 3)]))
    engine = SessionEngine(fresh)
    report = land_all(engine, tmp_path)[0]
    assert (report.read, report.landed, report.already_landed) == (8, 6, 2)
    assert [(r["kafka_partition"], r["kafka_offset"]) for r in _rows(fresh)] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 5),
        (1, 6),
    ]
    rewritten = tmp_path / TOPIC / "partition=1" / f"{TOPIC}+1+0000000005.json"
    _put(rewritten, _text([_value(5), _value(6)]))
    again = land_all(engine, tmp_path)[0]
    assert (again.files_read, again.read, again.landed, again.already_landed) == (1, 2, 0, 2)
    ledger = fresh.sql(f"select count(*) as n from {RAW_SCHEMA}._landing_duplicates").collect()[0][
        "n"
    ]
    assert ledger == 4  # every line read is a raw row or a ledger row


def test_a_compressed_dump_that_grows_is_read_again_whole(fresh: Any, tmp_path: Path) -> None:
    """A gzip stream cannot be read from a byte on: the grown file is read
    whole, its records landed before are found again and dropped."""
    path = tmp_path / TOPIC / "dump.jsonl.gz"
    _put(path, _text([_kcat(o) for o in range(3)]))
    engine = SessionEngine(fresh)
    assert land_all(engine, tmp_path)[0].landed == 3
    # appended as a second gzip member, as `... | gzip >> dump.jsonl.gz` does
    with path.open("ab") as handle:
        handle.write(gzip.compress(_text([_kcat(3), _kcat(4)])))
    report = land_all(engine, tmp_path)[0]
    assert (report.read, report.landed, report.already_landed) == (5, 2, 3)
    assert [r["kafka_offset"] for r in _rows(fresh)] == [0, 1, 2, 3, 4]


def test_kcat_headers_are_kept_in_order_in_both_of_its_forms(fresh: Any, tmp_path: Path) -> None:
    lines = [
        _kcat(0, headers=["__debezium.context.connectorName", "inventory", "h", None]),
        _kcat(1, headers={"h": ["1", "2"], "g": ["x"]}),
        _kcat(2),
    ]
    _put(tmp_path / TOPIC / "dump.jsonl", _text(lines))
    land_all(SessionEngine(fresh), tmp_path)
    assert [_headers(r) for r in _rows(fresh)] == [
        [("__debezium.context.connectorName", "inventory"), ("h", None)],
        [("h", "1"), ("h", "2"), ("g", "x")],
        None,
    ]


def test_raw_tables_of_the_older_layout_get_the_headers_column(fresh: Any, tmp_path: Path) -> None:
    """A warehouse landed before headers were kept: its raw tables gain the
    column (older rows read null) and land on."""
    engine = SessionEngine(fresh)
    _put(tmp_path / TOPIC / "dump.jsonl", _text([_kcat(0)]))
    land_all(engine, tmp_path)
    fresh.sql(f"alter table {RAW_SCHEMA}.{TABLE} drop column kafka_headers")
    fresh.sql(
        f"alter table {RAW_SCHEMA}.{MANIFEST_TABLE} unset tblproperties ('{RAW_LAYOUT_PROPERTY}')"
    )
    _put(tmp_path / TOPIC / "more.jsonl", _text([_kcat(1, headers=["a", "b"])]))
    assert land_all(engine, tmp_path)[0].landed == 1
    columns = [c.name for c in fresh.table(f"{RAW_SCHEMA}.{TABLE}").schema]
    assert columns == [name for name, _ in RAW_COLUMNS]
    assert [_headers(r) for r in _rows(fresh)] == [None, [("a", "b")]]
