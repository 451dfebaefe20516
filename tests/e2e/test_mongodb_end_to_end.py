"""MongoDB end to end: 1.x oplog and 2.x change-stream topics, landed in two
batches (the first lines, then all), replayed into current state and
checked against the Python reference model (mongo_reference.py), the seed
documents' examples and the corpus projects' expected results.

Shares the warehouse and the three dbt invocations of e2e_harness.py
(its session-scoped `runs` fixture).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from e2e_harness import MONGO_FIRST_LINES, MONGO_TOPICS, mongo_tables
from mongo_reference import loads, read_topic, replay
from project_paths import EXPECTED, SAMPLE_LANDING

pytestmark = pytest.mark.spark

MONGO2 = "mongo2.shop.customers"
MONGO1 = "fullfillment1.inventory.inventory"
PAIMON = "mongodb_bigdata_test.bigdata_test.sync_test_table"
RW = "rw_mongo.inventory.customers"


def _ordered(text: str) -> str:
    """A JSON text re-serialised, key order kept, numbers exact."""
    return json.dumps(loads(text), default=str)


def _rows(result: dict[str, Any], topic: str, layer: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = result[mongo_tables(topic)[layer]]["rows"]
    return rows


@pytest.mark.parametrize("run", ["first", "second", "third"])
@pytest.mark.parametrize("topic", sorted(MONGO_TOPICS))
def test_current_state_matches_the_reference_replay(
    runs: dict[str, Any], topic: str, run: str
) -> None:
    """Every document, its replay issue, op and position, after each build
    (the second applies the rest of the history on the stored state)."""
    lines = MONGO_FIRST_LINES.get(topic) if run == "first" else None
    if run == "first" and lines is None:
        expected: dict[str, Any] = {}  # not in the first landing
    else:
        expected = replay(read_topic(SAMPLE_LANDING / topic, lines))
    actual = {r["_id"]: r for r in _rows(runs[run], topic, "current")}
    assert sorted(actual) == sorted(expected)
    for doc_id, want in expected.items():
        row = actual[doc_id]
        assert _ordered(row["_document"]) == json.dumps(want["document"], default=str), doc_id
        assert row["_cdc_replay_issue"] == want["issue"], doc_id
        assert row["_cdc_op"] == want["op"], doc_id
        assert row["_cdc_position"] == want["position"], doc_id


@pytest.mark.parametrize("topic", sorted(MONGO_TOPICS))
def test_every_record_is_staged_or_quarantined_with_the_reference_reason(
    runs: dict[str, Any], topic: str
) -> None:
    events = read_topic(SAMPLE_LANDING / topic)
    staged = sorted(r["_kafka_offset"] for r in _rows(runs["second"], topic, "staging"))
    quarantined = sorted(
        (r["_kafka_offset"], r["_quarantine_reason"], r["_quarantine_detail"])
        for r in _rows(runs["second"], topic, "quarantine")
    )
    assert staged == [e.offset for e in events if e.reason is None]
    want = [(e.offset, e.reason, e.detail) for e in events if e.reason is not None]
    assert [q[:2] for q in quarantined] == [w[:2] for w in want]
    for (_, reason, detail), (_, _, want_detail) in zip(quarantined, want, strict=True):
        if reason == "unsupported_patch":
            assert detail == want_detail
    assert len(staged) + len(quarantined) == len(events)


def test_unsupported_patches_are_quarantined_and_flagged() -> None:
    """The limits of patch replay, as the reference model sees them too."""
    events = read_topic(SAMPLE_LANDING / MONGO1)
    assert {e.detail for e in events if e.reason == "unsupported_patch"} == {
        "update operator $inc",
        "oplog diff format ($v: 2, MongoDB 5.0+)",
        "positional path items.$.qty",
    }


def test_flags_in_the_table(runs: dict[str, Any]) -> None:
    rows = {r["_id"]: r for r in _rows(runs["second"], MONGO1, "current")}
    assert rows["7"]["_cdc_replay_issue"] == "unsupported_patch: update operator $inc"
    assert rows["7"]["sku"] == "G2"  # the later $set still applied
    assert rows["8"]["_cdc_replay_issue"] is None  # cleared by a replacement document
    assert rows["9"]["_cdc_replay_issue"] == "unsupported_patch: positional path items.$.qty"
    assert "10" not in rows  # deleted by its filter
    # a real 1.x patch with no earlier document: applied to {"_id": <filter's _id>}
    zeromicro = rows["5eb626b3452cd570b405bf7d"]
    assert zeromicro["_cdc_replay_issue"] == "missing_base_document"
    assert zeromicro["_document"] == '{"_id":{"$oid":"5eb626b3452cd570b405bf7d"},"b":3.0}'
    assert zeromicro["b"] == 3.0


def test_seed_2x_examples_are_staged_exactly(runs: dict[str, Any]) -> None:
    staged = {r["_kafka_offset"]: r for r in _rows(runs["second"], MONGO2, "staging")}
    create, update, delete = staged[0], staged[1], staged[2]
    assert {create["_id"], update["_id"], delete["_id"]} == {"1004"}
    assert (create["_cdc_op"], update["_cdc_op"], delete["_cdc_op"]) == ("c", "u", "d")
    assert create["after_document"] == (
        '{"_id" : {"$numberLong" : "1004"},"first_name" : "Anne",'
        '"last_name" : "Kretchmar","email" : "annek@noanswer.org"}'
    )
    assert update["updated_fields"] == '{"first_name": "Anne Marie"}'
    assert update["removed_fields"] is None and update["_cdc_source_txn_number"] == 1
    assert json.loads(update["before_document"])["first_name"] == "unknown"
    assert delete["after_document"] is None and delete["_cdc_is_snapshot"] is True
    # positions as printed: ts_ms then ord (31, 1, 6), the offset last
    positions = [create["_cdc_position"], update["_cdc_position"], delete["_cdc_position"]]
    assert positions == [[1558965508000, 31, 0], [1558965508000, 1, 1], [1558965508000, 6, 2]]


def test_seed_1x_examples_are_staged_exactly(runs: dict[str, Any]) -> None:
    staged = {r["_kafka_offset"]: r for r in _rows(runs["second"], MONGO1, "staging")}
    read, update, delete = staged[1], staged[2], staged[3]
    assert (read["_cdc_op"], update["_cdc_op"], delete["_cdc_op"]) == ("r", "u", "d")
    assert {read["_id"], update["_id"], delete["_id"]} == {"1004"}  # the filter names it
    assert update["patch"] == '{"$set":{"first_name":"Anne Marie"}}'
    assert update["patch_filter"] == delete["patch_filter"] == '{"_id" : {"$numberLong" : "1004"}}'
    assert update["after_document"] is None and delete["patch"] is None


def test_typed_columns(runs: dict[str, Any]) -> None:
    result = runs["second"][mongo_tables(MONGO2)["current"]]
    types = result["types"]
    assert {k: types[k] for k in ("_id", "age", "balance", "joined", "tags", "score")} == {
        "_id": "string",
        "age": "bigint",  # int32 and $numberLong
        "balance": "decimal(38,2)",
        "joined": "timestamp",  # three $date dialects
        "tags": "array<string>",
        "score": "double",  # double and int32
    }
    assert types["address"] == "struct<city:string,zip:string,geo:struct<lat:double,lng:double>>"
    assert types["misc"] == "string"  # string in one document, int in another: JSON text
    rows = {r["_id"]: r for r in result["rows"]}
    ada = rows["65a1f0c2e4b0a1b2c3d4e5f6"]
    assert ada["address"] == {
        "city": "Paris",
        "zip": "N1",
        "geo": {"lat": Decimal("48.85"), "lng": Decimal("2.35")},
    }
    assert ada["tags"] == ["a", "B"]  # tags.1 set, tags.4 appended, cut to 2
    assert (ada["age"], ada["balance"], ada["visits"]) == (37, Decimal("12.50"), 9000000000)
    assert ada["score"] is None  # removed
    assert ada["joined"] == "2023-11-14T22:13:20.000000Z"
    assert ada["manager"] == "65a1f0c2e4b0a1b2c3d4e5ff"  # $oid as hex
    assert ada["token"] == "b84dbfe2-fe4c-4953-a225-990ea3700f29"  # binary subtype 4
    carol = rows["carol"]
    assert carol["joined"] == "2020-09-13T12:26:40.000000Z"  # canonical $date
    assert carol["profile"] == {"bio": None, "langs": ["en", "no"], "location": {"city": "Oslo"}}
    assert rows['{"a":1,"b":"x"}']["name"] == "Dee"  # a document id as compact JSON


def _millis(value: int) -> str:
    moment = datetime.fromtimestamp(value / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"


def test_every_bson_type_of_the_paimon_document(runs: dict[str, Any]) -> None:
    """Paimon's all-types document: where Paimon gives each field as a
    string (paimon-bson-events.expected.txt), ours are typed."""
    result = runs["second"][mongo_tables(PAIMON)["current"]]
    row = {r["_id"]: r for r in result["rows"]}["596e275826f08b2730779e1f"]
    types = result["types"]
    assert row["id"] == "596e275826f08b2730779e1f"
    assert (row["name"], row["age"], types["age"]) == ("Sally", 25, "int")
    assert (row["created_time"], types["created_time"]) == (1735934393769, "bigint")
    assert (row["updated_time"], types["updated_time"]) == (1735934393769, "bigint")
    assert (row["deleted_time"], types["deleted_time"]) == (_millis(1735934393769), "timestamp")
    assert row["register_time"] == '{"$timestamp":{"t":1736997330,"i":2}}'
    assert [row["double_nan"], row["double_inf"], row["double_ninf"]] == [
        "NaN",
        "Infinity",
        "-Infinity",
    ]
    assert (row["double_zero"], types["double_zero"]) == (0.0, "double")
    assert (row["boolean_true"], row["boolean_false"]) == (True, False)
    assert row["array"] == ["a", "b", "c"]
    assert row["array_mix"] == ['"1"', "2", '{"$numberLong":"1735934393769"}']
    assert (row["decimal"], types["decimal"]) == (Decimal("3.14"), "decimal(38,2)")
    assert row["decimal_nan"] is None  # Spark decimals have no NaN; _document keeps it
    assert row["regex"] == '{"$regularExpression":{"pattern":"^pass$","options":"i"}}'
    assert row["symbol"] == '{"$symbol":"symbol"}' and row["code"] == '{"$code":"function(){}"}'
    assert row["null"] is None
    assert (row["binary"], types["binary"]) == ("uE2/4v5MSVOiJZkOo3APKQ==", "binary")
    assert row["uuid"] == "b84dbfe2-fe4c-4953-a225-990ea3700f29"
    context = row["context"]
    assert context["city"] == "Shanghai" and context["args"] == [1, 2]
    assert context["location"] == {"lat": Decimal("31.2304"), "lon": Decimal("121.4737")}
    assert (context["start_time"], context["end_time"]) == (0, 1735934393769)
    assert context["nan"] == "NaN"


def test_paimon_events_match_paimon_expected(runs: dict[str, Any]) -> None:
    """Insert then the two updates (first build): the afterEvent row; then
    the deletes (by ObjectId key, by string key, with a pre-image)."""
    first = {r["_id"]: r for r in _rows(runs["first"], PAIMON, "current")}
    row = first["67ab25755c0d5ac87eb8c632"]
    assert (row["created_at"], row["created_by"], row["tags"]) == (
        1736207571013,
        "peter",
        ["succeed"],
    )
    assert row["updated_at"] == _millis(1739455397970)
    second = {r["_id"] for r in _rows(runs["second"], PAIMON, "current")}
    assert second == {"596e275826f08b2730779e1f"}  # 67ab... deleted
    assert "67ab" in (EXPECTED / "paimon-bson-events.expected.txt").read_text()


def test_risingwave_customers_match_risingwave_expected(runs: dict[str, Any]) -> None:
    """The same four snapshot reads with and without schema blocks."""
    expected_text = (EXPECTED / "rw-mongo-customers-schema.expected.txt").read_text()
    strong = [
        line.split()
        for line in expected_text.split("strong_schema")[-1].splitlines()
        if line[:1].isdigit()
    ]
    rows = {r["_id"]: r for r in _rows(runs["second"], RW, "current")}
    assert sorted(rows) == [s[0] for s in strong]
    for doc_id, email, first_name, last_name in strong:
        row = rows[doc_id]
        assert (row["email"], row["first_name"], row["last_name"]) == (
            email,
            first_name,
            last_name,
        )
    staged = _rows(runs["second"], RW, "staging")
    assert len(staged) == 8  # four with schema blocks, four without


def test_rerun_with_nothing_new_changes_nothing(runs: dict[str, Any]) -> None:
    for topic in MONGO_TOPICS:
        table = mongo_tables(topic)["current"]
        second = sorted(
            json.dumps(r, sort_keys=True, default=str) for r in runs["second"][table]["rows"]
        )
        third = sorted(
            json.dumps(r, sort_keys=True, default=str) for r in runs["third"][table]["rows"]
        )
        assert second == third, topic
