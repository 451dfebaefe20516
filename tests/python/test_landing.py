"""Landing contract: kcat and plain files, nothing dropped, idempotent."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ORDERS_TOPIC, PRODUCTS_TOPIC, SAMPLE_LANDING

from python_helpers.landing import read_topic
from python_helpers.raw_store import land_all


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _kcat(offset: int, payload: str | None, key: str | None = None) -> str:
    record = {
        "topic": "t",
        "partition": 0,
        "offset": offset,
        "ts": 1000 + offset,
        "key": key,
        "payload": payload,
    }
    return json.dumps(record)


def test_plain_file_offsets_continue_across_files(tmp_path: Path) -> None:
    _write(tmp_path / "t" / "a.jsonl", ['{"a": 1}', "", '{"a": 2}'])
    _write(tmp_path / "t" / "b.jsonl", ['{"a": 3}'])
    records = list(read_topic(tmp_path / "t"))
    assert [(r.kafka_partition, r.kafka_offset) for r in records] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
    ]
    assert records[1].kafka_value is None  # empty line = tombstone
    assert records[3].landing_file == "t/b.jsonl"


def test_kcat_file_keeps_key_timestamp_and_unreadable_lines(tmp_path: Path) -> None:
    _write(
        tmp_path / "t" / "dump.jsonl", [_kcat(5, '{"x":1}', '{"id":1}'), "{broken", _kcat(6, None)]
    )
    records = list(read_topic(tmp_path / "t"))
    assert len(records) == 3
    assert (records[0].kafka_offset, records[0].kafka_key, records[0].kafka_timestamp_ms) == (
        5,
        '{"id":1}',
        1005,
    )
    assert records[1].landing_error is not None and records[1].kafka_value == "{broken"
    assert records[2].kafka_value is None


def test_landing_twice_adds_nothing(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    first = {r.topic: r for r in land_all(SAMPLE_LANDING, raw)}
    second = {r.topic: r for r in land_all(SAMPLE_LANDING, raw)}
    assert first[PRODUCTS_TOPIC].landed == 16
    assert first[ORDERS_TOPIC].landed == first[ORDERS_TOPIC].read == 11
    assert all(r.landed == 0 and r.already_landed == r.read for r in second.values())
    stored = sum(1 for _ in (raw / "shop_public_orders").glob("batch-*.jsonl"))
    assert stored == 1


def test_overlapping_dump_lands_only_new_offsets(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    _write(tmp_path / "l1" / "t" / "a.jsonl", [_kcat(0, "{}"), _kcat(1, "{}")])
    _write(tmp_path / "l2" / "t" / "b.jsonl", [_kcat(1, "{}"), _kcat(2, "{}")])
    land_all(tmp_path / "l1", raw)
    report = land_all(tmp_path / "l2", raw)[0]
    assert (report.read, report.landed, report.already_landed) == (2, 1, 1)
    rows = [
        json.loads(line)
        for p in sorted((raw / "t").glob("*.jsonl"))
        for line in p.read_text().splitlines()
    ]
    assert sorted(r["kafka_offset"] for r in rows) == [0, 1, 2]
    batches = sorted({r["landing_batch"] for r in rows})
    assert len(batches) == 2 and batches[0] < batches[1]
