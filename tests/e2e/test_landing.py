"""Landing contract on real Spark: kcat and plain files, nothing dropped,
idempotent, duplicates found across and within batches, grown files read
from where they stopped, uncommitted batches rolled back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import kcat
import pytest
from project_paths import ORDERS_TOPIC, PRODUCTS_TOPIC, copy_sample_topic

from python_helpers.engine.sql_engine import SessionEngine
from python_helpers.land import batch_sql
from python_helpers.land.file_plans import plan_files
from python_helpers.land.landing import count_lines, topic_files
from python_helpers.land.raw_store import land_all, landing_splits
from python_helpers.land.raw_tables import RAW_SCHEMA

pytestmark = pytest.mark.spark


def _write(path: Path, lines: list[str], end: str = "\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + end for line in lines), encoding="utf-8")


def _kcat(offset: int, payload: str | None, key: str | None = None, partition: int = 0) -> str:
    record = kcat.record(
        "t", partition, offset, 1000 + offset, key, payload, tstype=False, broker=False
    )
    return json.dumps(record)


def _rows(spark: Any, table: str) -> list[dict[str, Any]]:
    frame = spark.table(f"{RAW_SCHEMA}.{table}").orderBy("landing_file", "landing_line")
    return [row.asDict() for row in frame.collect()]


def test_plain_file_offsets_continue_across_files(fresh: Any, tmp_path: Path) -> None:
    _write(tmp_path / "t" / "a.jsonl", ['{"a": 1}', "", '{"a": 2}'], end="\r\n")
    _write(tmp_path / "t" / "b.jsonl", ['{"a": 3}'])
    land_all(SessionEngine(fresh), tmp_path)
    rows = _rows(fresh, "t")
    # no Kafka coordinates: no partition; the offset is the line's position
    assert [(r["kafka_partition"], r["kafka_offset"]) for r in rows] == [
        (None, 0),
        (None, 1),
        (None, 2),
        (None, 3),
    ]
    assert rows[1]["kafka_value"] is None  # empty line = tombstone
    assert rows[0]["kafka_value"] == '{"a": 1}'  # no \r left
    assert rows[3]["landing_file"] == "t/b.jsonl"


def test_kcat_file_keeps_key_timestamp_and_unreadable_lines(fresh: Any, tmp_path: Path) -> None:
    lines = [_kcat(5, '{"x":1}', '{"id":1}'), "{broken", "", _kcat(6, None)]
    _write(tmp_path / "t" / "dump.jsonl", lines)
    report = land_all(SessionEngine(fresh), tmp_path)[0]
    assert (report.read, report.landed, report.unreadable) == (3, 3, 1)
    rows = _rows(fresh, "t")
    assert [r["landing_line"] for r in rows] == [0, 1, 3]  # the empty line is no record
    assert (rows[0]["kafka_offset"], rows[0]["kafka_key"], rows[0]["kafka_timestamp_ms"]) == (
        5,
        '{"id":1}',
        1005,
    )
    assert rows[1]["landing_error"] is not None and rows[1]["kafka_value"] == "{broken"
    assert rows[2]["kafka_value"] is None and rows[2]["landing_error"] is None


def test_bytes_that_are_not_utf8_are_kept_as_read(fresh: Any, tmp_path: Path) -> None:
    kcat = _kcat(4, '{"x":"MARK"}', '{"id":1}').encode().replace(b"MARK", b"a\xffb")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.jsonl").write_bytes(kcat + b"\n" + _kcat(5, "{}").encode() + b"\n")
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "a.jsonl").write_bytes(b'{"x":"a\xffb"}\n')
    land_all(SessionEngine(fresh), tmp_path)
    # the JSON reader would have decoded FF to U+FFFD: the kcat line is kept
    # whole, bytes as read, with its coordinates and a landing error
    rows = fresh.sql(
        f"select kafka_offset, kafka_key, hex(kafka_value) as value, landing_error"
        f" from {RAW_SCHEMA}.t order by kafka_offset"
    ).collect()
    assert [(r.kafka_offset, r.kafka_key) for r in rows] == [(4, None), (5, None)]
    assert rows[0].value == kcat.hex().upper()
    assert "not UTF-8" in rows[0].landing_error and rows[1].landing_error is None
    plain = fresh.sql(f"select hex(kafka_value) as value, landing_error from {RAW_SCHEMA}.p")
    assert [(r.value, r.landing_error) for r in plain.collect()] == [
        (b'{"x":"a\xffb"}'.hex().upper(), None)
    ]


# plain and kcat files, two files of one topic (orders: its bad input), a
# MongoDB topic: what is checked does not grow with the sample's topics
TWICE = (PRODUCTS_TOPIC, ORDERS_TOPIC, "mongo2.shop.customers", "postgres.tpcch.customer")


def test_landing_twice_adds_nothing_and_reads_nothing(fresh: Any, tmp_path: Path) -> None:
    for topic in TWICE:
        copy_sample_topic(topic, tmp_path)
    first = {r.topic: r for r in land_all(SessionEngine(fresh), tmp_path)}
    second = {r.topic: r for r in land_all(SessionEngine(fresh), tmp_path)}
    assert sorted(first) == sorted(TWICE)
    assert first[PRODUCTS_TOPIC].landed == 16
    assert first[ORDERS_TOPIC].landed == first[ORDERS_TOPIC].read == 25  # 11 + 14 bad
    assert set(second) == set(first)
    for topic, again in second.items():  # every file of the first landing is skipped
        assert (again.read, again.files_unchanged) == (0, first[topic].files_read), topic
    batches = fresh.sql(
        f"select count(distinct landing_batch) from {RAW_SCHEMA}.shop_public_orders"
    ).first()[0]
    assert batches == 1


def test_overlapping_dumps_land_only_new_coordinates(fresh: Any, tmp_path: Path) -> None:
    _write(tmp_path / "l1" / "t" / "a.jsonl", [_kcat(0, "{}"), _kcat(1, "{}")])
    # b repeats offset 1 (landed before) and c repeats offset 2 of b (same batch)
    _write(tmp_path / "l2" / "t" / "b.jsonl", [_kcat(1, "{}"), _kcat(2, "{}")])
    _write(tmp_path / "l2" / "t" / "c.jsonl", [_kcat(2, "{}"), _kcat(0, "{}", partition=1)])
    land_all(SessionEngine(fresh), tmp_path / "l1")
    report = land_all(SessionEngine(fresh), tmp_path / "l2")[0]
    assert (report.read, report.landed, report.already_landed) == (4, 2, 2)
    rows = _rows(fresh, "t")
    assert sorted((r["kafka_partition"], r["kafka_offset"]) for r in rows) == [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
    ]
    batches = sorted({r["landing_batch"] for r in rows})
    assert len(batches) == 2 and batches[0] < batches[1]


def test_a_grown_file_is_read_from_its_last_line(fresh: Any, tmp_path: Path) -> None:
    path = tmp_path / "t" / "a.jsonl"
    _write(path, [_kcat(0, "{}"), _kcat(1, "{}")])
    land_all(SessionEngine(fresh), tmp_path)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(_kcat(2, "{}") + "\n" + _kcat(3, "{}") + "\n")
    report = land_all(SessionEngine(fresh), tmp_path)[0]
    # only the new lines: the last landed one ended with its newline (issue
    # 43: re-reading it made every append a duplicate repair, a merge)
    assert (report.read, report.landed, report.already_landed) == (2, 2, 0)
    assert [r["kafka_offset"] for r in _rows(fresh, "t")] == [0, 1, 2, 3]
    # a writer mid-line: the line without its newline yet is read again
    # once it ends (its first reading, a complete record, is a duplicate)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(_kcat(4, "{}"))
    assert land_all(SessionEngine(fresh), tmp_path)[0].landed == 1
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n" + _kcat(5, "{}") + "\n")
    report = land_all(SessionEngine(fresh), tmp_path)[0]
    assert (report.read, report.landed, report.already_landed) == (2, 1, 1)
    assert [r["kafka_offset"] for r in _rows(fresh, "t")] == [0, 1, 2, 3, 4, 5]


def test_an_uncommitted_batch_is_rolled_back_and_landed_again(fresh: Any, tmp_path: Path) -> None:
    _write(tmp_path / "t" / "a.jsonl", [_kcat(0, "{}"), _kcat(1, "{}")])
    land_all(SessionEngine(fresh), tmp_path)
    # a landing that died after writing rows but before its manifest rows
    fresh.sql(
        f"insert into {RAW_SCHEMA}.t select kafka_topic, kafka_partition, kafka_offset + 10,"
        " kafka_timestamp_ms, kafka_key, kafka_value, landing_file, landing_line,"
        f" landing_error, landing_batch + 1, kafka_headers from {RAW_SCHEMA}.t"
    )
    _write(tmp_path / "t" / "b.jsonl", [_kcat(2, "{}")])
    assert land_all(SessionEngine(fresh), tmp_path)[0].rolled_back == 1
    assert [r["kafka_offset"] for r in _rows(fresh, "t")] == [0, 1, 2]


def test_plan_skips_unchanged_files_and_counts_plain_lines(tmp_path: Path) -> None:
    _write(tmp_path / "t" / "a.jsonl", ["{}", "", "{}"])
    path = tmp_path / "t" / "b.jsonl"
    path.write_bytes(b"{}\r\n{}\r{}")
    assert count_lines(path) == 3
    plans, unchanged = plan_files(topic_files(tmp_path / "t"), {})
    assert unchanged == 0
    assert [(p.file.path.name, p.first_offset, p.start_line) for p in plans] == [
        ("a.jsonl", 0, 0),
        ("b.jsonl", 3, 0),
    ]


def _ledger(spark: Any) -> list[tuple[str, int, str]]:
    rows = spark.sql(
        f"select landing_file, landing_line, reason from {RAW_SCHEMA}._landing_duplicates"
        " order by landing_file, landing_line"
    ).collect()
    return [(r.landing_file, r.landing_line, r.reason) for r in rows]


def test_a_byte_order_mark_neither_changes_the_form_nor_loses_records(
    fresh: Any, tmp_path: Path
) -> None:
    """Finding 4 of issue 21: a kcat file starting with a BOM was read as
    plain form, its records given partition 0 and offsets 0, 1, 2..., and
    real records of partition 0 in another file were then dropped as
    already landed (a delete among them)."""
    _write(tmp_path / "t" / "a.jsonl", [_kcat(o, f'{{"n":{o}}}') for o in range(3)])
    bom = tmp_path / "t" / "b.jsonl"
    bom.write_text("\ufeff" + _kcat(7, '{"n":7}') + "\n" + _kcat(8, '{"n":8}') + "\n")
    report = land_all(SessionEngine(fresh), tmp_path)[0]
    assert (report.read, report.landed, report.already_landed) == (5, 5, 0)
    rows = _rows(fresh, "t")
    coordinates = sorted((r["kafka_partition"], r["kafka_offset"]) for r in rows)
    assert coordinates == [(0, 0), (0, 1), (0, 2), (0, 7), (0, 8)]
    assert all(r["landing_error"] is None for r in rows)
    assert rows[3]["kafka_value"] == '{"n":7}'  # the mark is no part of the record
    assert _ledger(fresh) == []


def test_a_garbled_first_line_does_not_make_a_kcat_file_plain(fresh: Any, tmp_path: Path) -> None:
    """A first line cut short: the file is still read in kcat form, so the
    other lines keep their coordinates and nothing collides."""
    _write(tmp_path / "t" / "a.jsonl", [_kcat(0, '{"n":0}'), _kcat(1, '{"n":1}')])
    _write(tmp_path / "t" / "b.jsonl", [_kcat(5, '{"n":5}')[:30], _kcat(3, '{"n":3}')])
    _write(tmp_path / "t" / "c.jsonl", ["\ufeff" + _kcat(9, '{"n":9}')[:20], _kcat(2, '{"n":2}')])
    assert [f.is_kcat for f in topic_files(tmp_path / "t")] == [True, True, True]
    report = land_all(SessionEngine(fresh), tmp_path)[0]
    # the cut-short lines are kept (unreadable, no coordinates), none dropped
    assert (report.read, report.landed, report.unreadable) == (6, 6, 2)
    offsets = sorted(r["kafka_offset"] for r in _rows(fresh, "t") if r["kafka_offset"] is not None)
    assert offsets == [0, 1, 2, 3]


def test_plain_lines_never_collide_with_kcat_records(fresh: Any, tmp_path: Path) -> None:
    """Plain-form lines have no coordinates: a kcat record of partition 0
    with the offset of a plain line's position lands too."""
    _write(tmp_path / "t" / "a-plain.jsonl", ['{"n":0}', '{"n":1}'])
    _write(tmp_path / "t" / "b-kcat.jsonl", [_kcat(0, '{"n":10}'), _kcat(1, '{"n":11}')])
    report = land_all(SessionEngine(fresh), tmp_path)[0]
    assert (report.read, report.landed, report.already_landed) == (4, 4, 0)


def test_dropped_duplicates_are_written_to_the_ledger(fresh: Any, tmp_path: Path) -> None:
    """Every line read is a raw row or a ledger row, with why it was dropped."""
    _write(tmp_path / "l1" / "t" / "a.jsonl", [_kcat(0, "{}"), _kcat(1, "{}")])
    _write(tmp_path / "l2" / "t" / "b.jsonl", [_kcat(1, "{}"), _kcat(2, "{}"), _kcat(2, "{}")])
    land_all(SessionEngine(fresh), tmp_path / "l1")
    report = land_all(SessionEngine(fresh), tmp_path / "l2")[0]
    assert (report.read, report.landed, report.already_landed) == (3, 1, 2)
    assert _ledger(fresh) == [
        ("t/b.jsonl", 0, "landed before"),
        ("t/b.jsonl", 2, "repeated in the batch"),
    ]
    assert len(_rows(fresh, "t")) + len(_ledger(fresh)) == 2 + 3


def test_many_topics_are_checked_together_each_on_its_own_records(
    fresh: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary, roll-back and duplicate checks read many topics' tables
    in one statement (issue 43): each topic's counts and ledger rows are its
    own, across more topics than one statement reads (three per statement
    here: the same statements as ten, on fewer tables)."""
    monkeypatch.setattr(batch_sql, "TABLES_PER_STATEMENT", 3)
    topics = [f"t{n:02d}" for n in range(batch_sql.TABLES_PER_STATEMENT + 3)]
    for number, topic in enumerate(topics):
        _write(tmp_path / "l1" / topic / "a.jsonl", [_kcat(0, "{}"), _kcat(1, "{}")])
        # the next landing: offset 1 again (landed before), and for every
        # third topic offset 2 twice (repeated in the batch)
        again = [_kcat(1, "{}"), _kcat(2, "{}")] + ([_kcat(2, "{}")] if number % 3 == 0 else [])
        _write(tmp_path / "l2" / topic / "b.jsonl", again)
    # a topic first seen in the second landing, its first batch with a repeat
    _write(tmp_path / "l2" / "new" / "a.jsonl", [_kcat(7, "{}"), _kcat(7, "{}")])
    land_all(SessionEngine(fresh), tmp_path / "l1")
    # the last topic's landing died before its commit: rolled back, once
    fresh.sql(
        f"insert into {RAW_SCHEMA}.{topics[-1]} select kafka_topic, kafka_partition,"
        " kafka_offset + 10, kafka_timestamp_ms, kafka_key, kafka_value, landing_file,"
        " landing_line, landing_error, landing_batch + 1, kafka_headers"
        f" from {RAW_SCHEMA}.{topics[-1]}"
    )
    reports = {r.topic: r for r in land_all(SessionEngine(fresh), tmp_path / "l2")}
    for number, topic in enumerate(topics):
        repeats = 1 if number % 3 == 0 else 0
        report = reports[topic]
        assert (report.read, report.landed, report.already_landed) == (2 + repeats, 1, 1 + repeats)
        assert report.rolled_back == (1 if topic == topics[-1] else 0), topic
        assert [r["kafka_offset"] for r in _rows(fresh, topic)] == [0, 1, 2], topic
    assert (reports["new"].read, reports["new"].landed, reports["new"].already_landed) == (2, 1, 1)
    ledger = fresh.sql(
        f"select raw_table, reason, count(*) as n from {RAW_SCHEMA}._landing_duplicates"
        " group by raw_table, reason"
    ).collect()
    counts = {(row.raw_table, row.reason): row.n for row in ledger}
    expected = {(topic, "landed before"): 1 for topic in topics}
    expected |= {(t, "repeated in the batch"): 1 for n, t in enumerate(topics) if n % 3 == 0}
    expected[("new", "repeated in the batch")] = 1
    assert counts == expected


def test_a_file_read_in_splits_keeps_every_line_and_its_number(
    fresh: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file larger than a split is read by several tasks (issue 54): each
    line keeps its place in the file — the plain form's offset, a sink's
    keys file joined by it, a grown file read from its last line — with
    lines of every length across the split boundaries, ``\\r\\n`` and a lone
    ``\\r`` among them, an empty line (a tombstone) and a byte-order mark."""
    monkeypatch.setattr(batch_sql, "SPLIT_BYTES", 1024)
    values = [
        "" if n % 37 == 5 else json.dumps({"n": n, "pad": "x" * (n * 7 % 300)}) for n in range(400)
    ]
    ends = ["\r\n" if n % 11 == 0 else "\r" if n % 29 == 3 else "\n" for n in range(400)]
    plain = tmp_path / "p" / "values.jsonl"
    plain.parent.mkdir(parents=True)
    plain.write_bytes(
        b"\xef\xbb\xbf" + b"".join((v + e).encode() for v, e in zip(values, ends, strict=True))
    )
    # a sink's file (named for partition 2 from offset 1000) with its keys file
    sink = tmp_path / "s" / "s+2+0000001000.json"
    sink.parent.mkdir(parents=True)
    sink.write_text("".join(v + "\n" for v in values), encoding="utf-8")
    keys = [json.dumps({"id": n, "pad": "k" * (n * 13 % 200)}) for n in range(400)]
    sink.with_name("s+2+0000001000.keys.json").write_text(
        "".join(k + "\n" for k in keys), encoding="utf-8"
    )
    assert count_lines(plain) == 400
    # the files are read in several splits: the count finds each one's lines
    engine = SessionEngine(fresh)
    with landing_splits(engine):
        for path in (plain, sink):
            found = batch_sql.first_lines(engine.sql(batch_sql.split_counts_sql(path)))
            assert len(found) > 10, path
    land_all(SessionEngine(fresh), tmp_path)
    expected = [(n, values[n] or None) for n in range(400)]
    rows = _rows(fresh, "p")
    assert [(r["kafka_offset"], r["kafka_value"]) for r in rows] == expected
    assert [r["landing_line"] for r in rows] == list(range(400))
    rows = _rows(fresh, "s")
    assert [(r["kafka_offset"] - 1000, r["kafka_value"]) for r in rows] == expected
    assert [r["kafka_partition"] for r in rows] == [2] * 400
    assert [r["kafka_key"] for r in rows] == keys
    # grown by lines that start new splits: only those are read
    more = [json.dumps({"n": n, "pad": "y" * (n % 90)}) for n in range(400, 480)]
    with plain.open("a", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in more))
    report = land_all(SessionEngine(fresh), tmp_path)
    assert [(r.topic, r.read, r.landed) for r in report if r.read] == [("p", 80, 80)]
    rows = _rows(fresh, "p")
    assert [(r["kafka_offset"], r["kafka_value"]) for r in rows] == expected + [
        (n, more[n - 400]) for n in range(400, 480)
    ]
