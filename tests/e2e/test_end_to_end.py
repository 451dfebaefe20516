"""End to end on real Spark and dbt: landing -> staging -> current state.

Every test reads the tables of the shared run (e2e_harness.py, the
session-scoped `runs` fixture of conftest.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from e2e_harness import (
    ACCOUNTS,
    ACCOUNTS_FILE,
    CDL_V1,
    CDL_V1_FILE,
    CDL_V2,
    CDL_V2_FILE,
    CHBENCH,
    CHBENCH_EXPECTED,
    CHBENCH_TABLES,
    COUPONS,
    COUPONS_FILE,
    COUPONS_STATE,
    COUPONS_TOAST_FILE,
    DBT_KILL,
    DOCS,
    FLINK_EXPECTED,
    HEARTBEATS_CDL_V1,
    HISTORY,
    LANDING_KILL,
    MYSQL,
    MYSQL_EXPECTED,
    MYSQL_FILE,
    MYSQL_NOSCHEMA,
    NEWER_HALF_FROM,
    NEWORDER_SOFT,
    NEWORDER_STATE,
    ORDERS,
    ORDERS_FILE,
    PRODUCTS,
    PRODUCTS_FILE,
    QUARANTINE_CDL_V1,
    QUARANTINE_DOCS,
    QUARANTINE_ORDERS,
    QUARANTINE_PRODUCTS,
    QUARANTINE_SEATUNNEL,
    QUARANTINE_SQLSERVER,
    RAW_CDL_V1,
    RAW_ORDERS,
    RAW_PRODUCTS,
    RAW_SEATUNNEL,
    RW_SCHEMA_HISTORY,
    RW_TRANSACTIONS,
    SCHEMA_HISTORY,
    SEATUNNEL,
    SQLSERVER,
    SQLSERVER_FILE,
    STG_CDL_V1,
    STG_CDL_V2,
    STG_DOCS,
    STG_ORDERS,
    STG_PRODUCTS,
    STG_SQLSERVER,
    STG_TABLEA,
    THRIFT,
    TRANSACTIONS,
    first_run_offsets,
)
from project_paths import SAMPLE_LANDING
from reference_model import (
    current_state,
    decode_date,
    decode_decimal,
    decode_micros,
    decode_millis,
    decode_zoned,
    events,
    expected_counts,
    flink_expected_final_state,
    history,
)

pytestmark = pytest.mark.spark


def _by(rows: list[dict[str, Any]], key: str) -> dict[Any, dict[str, Any]]:
    return {row[key]: row for row in rows}


def test_products_final_state_matches_flink_expected(runs: dict[str, Any]) -> None:
    expected = flink_expected_final_state(FLINK_EXPECTED)
    actual = _by(runs["second"][PRODUCTS]["rows"], "id")
    assert sorted(actual) == sorted(expected) == [*range(101, 111)]
    for row_id, (name, description, weight) in expected.items():
        row = actual[row_id]
        assert (row["name"], row["description"]) == (name, description), row_id
        assert float(row["weight"]) == pytest.approx(weight), row_id


def test_first_build_holds_the_snapshot_only(runs: dict[str, Any]) -> None:
    rows = _by(runs["first"][PRODUCTS]["rows"], "id")
    assert sorted(rows) == [*range(101, 110)]
    assert rows[106]["description"] == "16oz carpenter's hammer"
    assert all(r["_cdc_op"] == "r" and r["_cdc_is_snapshot"] for r in rows.values())


def test_orders_match_the_python_reference_model(runs: dict[str, Any]) -> None:
    expected = current_state(events(ORDERS_FILE), "order_id")
    actual = _by(runs["second"][ORDERS]["rows"], "order_id")
    assert sorted(actual) == sorted(expected) == [1, 3, 4, 5]
    for order_id, source in expected.items():
        row = actual[order_id]
        assert Decimal(str(row["amount"])) == decode_decimal(source["amount"], 2)
        assert row["ordered_on"] == decode_date(source["ordered_on"]).isoformat()
        created = decode_micros(source["created_at"])
        assert row["created_at"] == created.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
        if source["updated_at"] is None:
            assert row["updated_at"] is None
        else:
            updated = decode_zoned(source["updated_at"])
            assert row["updated_at"] == updated.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
        assert row["attributes"] == source["attributes"]
        assert row["status"] == source["status"]
        assert row.get("coupon") == source.get("coupon")


def test_typed_columns(runs: dict[str, Any]) -> None:
    types = runs["second"][ORDERS]["types"]
    assert {
        k: types[k]
        for k in (
            "order_id",
            "amount",
            "ordered_on",
            "created_at",
            "updated_at",
            "attributes",
            "coupon",
        )
    } == {
        "order_id": "int",
        "amount": "decimal(12,2)",
        "ordered_on": "date",
        "created_at": "timestamp",
        "updated_at": "timestamp",
        "attributes": "string",
        "coupon": "string",
    }
    assert types["_cdc_position"] == "array<bigint>"
    assert runs["second"][PRODUCTS]["types"]["weight"] == "double"


def test_negative_and_large_decimals_decode_exactly(runs: dict[str, Any]) -> None:
    staged = runs["second"][STG_ORDERS]["rows"]
    amounts = {(r["order_id"], r["_cdc_op"]): Decimal(str(r["amount"])) for r in staged}
    assert amounts[(2, "r")] == Decimal("-5.25")
    assert amounts[(2, "d")] == Decimal("-5.25")  # delete row image is `before`
    assert amounts[(3, "r")] == Decimal("999999999.99")


@pytest.mark.parametrize(
    ("raw", "staged", "quarantine"),
    [
        (RAW_ORDERS, STG_ORDERS, QUARANTINE_ORDERS),
        (RAW_PRODUCTS, STG_PRODUCTS, QUARANTINE_PRODUCTS),
    ],
)
def test_every_landed_record_is_accounted_for(
    runs: dict[str, Any], raw: str, staged: str, quarantine: str
) -> None:
    result = runs["second"]
    landed = len(result[raw]["rows"])
    assert landed == len(result[staged]["rows"]) + len(result[quarantine]["rows"])
    assert landed > 0


def test_bad_records_are_quarantined_with_reasons(runs: dict[str, Any]) -> None:
    rows = runs["second"][QUARANTINE_ORDERS]["rows"]
    reasons = sorted((r["_kafka_offset"], r["_quarantine_reason"]) for r in rows)
    assert reasons == [
        (6, "tombstone"),
        (7, "truncated_json"),
        (8, "unsupported_op"),
        (11, "malformed_json"),
        (12, "not_utf8"),
        (13, "oversized_value"),
        (14, "key_mismatch"),
        (15, "malformed_key"),
        (16, "unknown_connector"),
        # issue 21: each of these was staged, misnamed, or stopped the run
        (17, "nested_too_deep"),
        (18, "null_value"),
        (19, "duplicate_field"),
        (20, "missing_row_image"),
        (21, "schema_contradiction"),
        (22, "incompatible_schema_change"),
        (23, "incompatible_schema_change"),
        (24, "invalid_schema_block"),
    ]
    details = {r["_kafka_offset"]: r["_quarantine_detail"] for r in rows}
    assert details[17] == (
        "JSON nested 1500 levels deep, deeper than the 1000 levels the JSON reader reads"
    )
    assert details[18].startswith("the value is the JSON text null")
    assert details[19].startswith("the envelope names op more than once")
    assert details[20] == "op = u without an after image: nothing to apply"
    assert details[21].startswith("column status (declared bigint) contradicts the type its own")
    assert details[22].startswith(
        "column amount: the table has bytes (Decimal, scale 2), this schema version (md5 "
    )
    assert "declares int32; kept out of the table" in details[22]
    assert "column ordered_on: the table has int32 (io.debezium.time.Date)" in details[23]
    assert details[24].endswith("unknown Kafka Connect type 'uint64'")
    assert details[8] == "op = x"
    assert details[7].startswith("not JSON (") and details[7].endswith(": 9)")
    assert details[12] == "bytes that are not UTF-8 in the kcat line (kept whole): kept as landed"
    assert details[13].startswith("the value is ") and "over the limit of 8192" in details[13]
    assert details[14] == "the Kafka key has order_id = 8, the row image order_id = 9"
    assert details[16].startswith("source.connector = oracle;")
    truncated = next(r for r in rows if r["_kafka_offset"] == 7)
    assert truncated["_kafka_value"].startswith('{"schema": {"type": "struct"}')
    # the bytes as landed, and the oversized value whole
    values = {r["_kafka_offset"]: r["_kafka_value"] for r in rows}
    assert "SHIPPED \ufffd\ufffd" in values[12] and len(values[13]) > 8192
    assert runs["second"][QUARANTINE_PRODUCTS]["rows"] == []


def test_landing_again_and_rerunning_changes_nothing(runs: dict[str, Any]) -> None:
    def key(row: dict[str, Any]) -> str:
        return json.dumps(row, sort_keys=True, default=str)

    for table in (PRODUCTS, ORDERS, RAW_ORDERS, RAW_PRODUCTS):
        second = sorted(map(key, runs["second"][table]["rows"]))
        third = sorted(map(key, runs["third"][table]["rows"]))
        assert second == third, table
    assert len(runs["second"][RAW_PRODUCTS]["rows"]) == 16


def test_source_metadata_is_flattened(runs: dict[str, Any]) -> None:
    row = _by(runs["second"][PRODUCTS]["rows"], "id")[110]
    assert (
        row["_cdc_source_connector"],
        row["_cdc_source_db"],
        row["_cdc_source_schema"],
        row["_cdc_source_table"],
    ) == ("postgresql", "postgres", "inventory", "products")
    assert row["_cdc_source_lsn"] == 34133344 and row["_cdc_source_tx_id"] == 606
    assert row["_cdc_position"] == [34133344, 13]
    assert row["_cdc_source_committed_at"] == "2020-07-29T08:23:02.228000Z"


@pytest.mark.parametrize("name", sorted(CHBENCH))
def test_chbench_tables_match_reference_model(runs: dict[str, Any], name: str) -> None:
    source = SAMPLE_LANDING / f"postgres.tpcch.{name}" / f"{name}.jsonl"
    keys = CHBENCH[name]
    expected = current_state(events(source), *keys)
    rows = runs["second"][CHBENCH_TABLES[name]]["rows"]
    actual = {tuple(r[k] for k in keys) if len(keys) > 1 else r[keys[0]]: r for r in rows}
    assert len(rows) == len(actual) == expected_counts(CHBENCH_EXPECTED)[name]
    assert sorted(actual, key=str) == sorted(expected, key=str)
    for key, source_row in expected.items():
        row = actual[key]
        for column, value in source_row.items():
            if isinstance(value, float):
                assert float(row[column]) == pytest.approx(value, rel=1e-6), (key, column)
            else:
                assert row[column] == value, (key, column)


def test_a_deleted_key_stays_deleted_when_its_older_events_land_later(
    runs: dict[str, Any],
) -> None:
    """Issue 9's report: the newer part of neworder (30 creates, then 45
    deletes) lands in the first build, the older creates (of the deleted
    keys among others) in the second. Each deleted key keeps a delete
    marker in the __state table, so the late creates change nothing and
    the view equals the source."""
    keys = CHBENCH["neworder"]
    every = events(SAMPLE_LANDING / "postgres.tpcch.neworder" / "neworder.jsonl")
    newer = [e for e in every if e["_offset"] >= NEWER_HALF_FROM]
    deleted = {tuple(e["before"][k] for k in keys) for e in newer if e["op"] == "d"}
    created_late = {
        tuple(e["after"][k] for k in keys) for e in every if e["_offset"] < NEWER_HALF_FROM
    }
    assert deleted and deleted <= created_late  # every delete meets an older create later

    def key_set(rows: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
        return {tuple(r[k] for k in keys) for r in rows}

    first = key_set(runs["first"][CHBENCH_TABLES["neworder"]]["rows"])
    assert first and first == set(current_state(newer, *keys))
    first_markers = [r for r in runs["first"][NEWORDER_STATE]["rows"] if r["_cdc_op"] == "d"]
    assert key_set(first_markers) == deleted
    current = key_set(runs["second"][CHBENCH_TABLES["neworder"]]["rows"])
    assert not current & deleted
    assert current == set(current_state(every, *keys))
    second_state = runs["second"][NEWORDER_STATE]["rows"]
    markers = [r for r in second_state if r["_cdc_op"] == "d"]
    assert key_set(markers) == deleted
    assert len(second_state) == len(key_set(second_state)) == len(current) + len(deleted)


@pytest.mark.skipif(THRIFT, reason="crash-tested on the embedded path only")
def test_builds_killed_mid_landing_and_mid_merge_lose_and_duplicate_nothing(
    runs: dict[str, Any],
) -> None:
    """The crash test: the second build was SIGKILLed (with its Spark JVM)
    once while landing and once while dbt was merging, then run again.
    Every other test of the second run checks the state it left against the
    references; here: the kills hit where intended, the run after them
    completed, and the raw tables hold each landed record exactly once."""
    landing, merging = runs["crashes"]["landing"], runs["crashes"]["dbt"]
    # the first attempt died after a topic's raw append committed and before
    # its manifest rows (the test hook): the next landing rolled that back
    appended = runs["crashes"]["raw_append"]
    assert not any(line.startswith("dbt build") for line in appended)
    assert any(line.endswith("an uncommitted batch rolled back") for line in landing + merging)
    assert re.search(LANDING_KILL, landing[-1])
    assert not any(line.startswith("dbt build") for line in landing)  # dbt never started
    assert re.search(DBT_KILL, merging[-1])
    assert any(line.startswith("dbt build") for line in merging)
    assert not any(line.startswith("done in") for line in landing + merging)
    orders_files = sorted(ORDERS_FILE.parent.glob("*.jsonl"))
    for raw, files in ((RAW_ORDERS, orders_files), (RAW_PRODUCTS, [PRODUCTS_FILE])):
        rows = runs["second"][raw]["rows"]
        coordinates = [(r["kafka_partition"], r["kafka_offset"]) for r in rows]
        assert len(coordinates) == len(set(coordinates)), raw
        assert len(rows) == sum(len(f.read_bytes().splitlines()) for f in files), raw


def test_soft_deletes_keep_deleted_keys_flagged(runs: dict[str, Any]) -> None:
    """A view with soft deletes (`config(cdc_soft_deletes=true)`, or the
    project var for every view) keeps the deleted keys, `is_deleted` true
    and `deleted_at` the delete's source commit time."""
    keys = CHBENCH["neworder"]
    every = events(SAMPLE_LANDING / "postgres.tpcch.neworder" / "neworder.jsonl")
    deletes = {tuple(e["before"][k] for k in keys): e for e in every if e["op"] == "d"}
    rows = runs["second"][NEWORDER_SOFT]["rows"]
    flagged = {tuple(r[k] for k in keys): r for r in rows if r["is_deleted"]}
    live = [r for r in rows if not r["is_deleted"]]
    assert set(flagged) == set(deletes)
    assert len(live) == len(runs["second"][CHBENCH_TABLES["neworder"]]["rows"])
    assert all(r["deleted_at"] is None for r in live)
    for key, row in flagged.items():
        assert row["deleted_at"] == decode_millis(deletes[key]["source"]["ts_ms"])
        assert row["_cdc_op"] == "d"


# what the partial landing of the first build holds (e2e_harness)
FIRST_RUN_OFFSETS = {COUPONS_FILE: range(0, 4), COUPONS_TOAST_FILE: range(7, 8)}


def _in_first_run(path: Any, event: dict[str, Any]) -> bool:
    if path in FIRST_RUN_OFFSETS:
        return event["_offset"] in FIRST_RUN_OFFSETS[path]
    if path.parent.name == "postgres.tpcch.neworder":
        return bool(event["_offset"] >= NEWER_HALF_FROM)
    return event["_offset"] in first_run_offsets(path)


HISTORY_COLUMNS = (
    "valid_from_position",
    "valid_to_position",
    "opened_by_op",
    "closed_by_op",
    "is_current",
)


@pytest.mark.parametrize("run", ["first", "second", "third"])
@pytest.mark.parametrize(
    ("name", "keys", "files"),
    [
        (
            "neworder",
            CHBENCH["neworder"],
            [SAMPLE_LANDING / "postgres.tpcch.neworder" / "neworder.jsonl"],
        ),
        ("coupons", ("coupon_id",), [COUPONS_FILE, COUPONS_TOAST_FILE]),
        ("sqlserver", ("id",), [SQLSERVER_FILE]),
    ],
)
def test_history_equals_the_reference_versions_and_the_current_view(
    runs: dict[str, Any], run: str, name: str, keys: tuple[str, ...], files: list[Any]
) -> None:
    """SCD type 2, built incrementally: after each run the history equals
    the versions computed in Python from the events landed so far (late
    creates of neworder split nothing but add closed versions; coupons'
    truncate closes versions; TOAST placeholders take the previous value;
    SQL Server's reversed pair of one transaction and key change: versions
    in source order, not arrival order), and its open versions equal the
    current-state view. (MySQL's binlog rotation: the accounts history, in
    test_table_options_end_to_end.py.)"""
    landed = [e for f in files for e in events(f) if run != "first" or _in_first_run(f, e)]
    values = {"coupons": ["code"], "sqlserver": ["email"]}
    columns = list(keys) + values.get(name, [])

    def comparable(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(json.dumps(row[c], default=str) for c in columns + list(HISTORY_COLUMNS))

    expected = sorted(map(comparable, history(landed, *keys)))
    table = runs[run][HISTORY[name]]["rows"]
    assert sorted(map(comparable, table)) == expected
    current_view = {
        "neworder": CHBENCH_TABLES["neworder"],
        "coupons": COUPONS,
        "sqlserver": SQLSERVER,
    }[name]
    open_versions = sorted(tuple(r[c] for c in columns) for r in table if r["is_current"])
    assert open_versions == sorted(
        tuple(r[c] for c in columns) for r in runs[run][current_view]["rows"]
    )


def test_documentation_customers_events(runs: dict[str, Any]) -> None:
    """The Debezium docs' customers examples: create, update, delete with a
    key-only `before` (REPLICA IDENTITY DEFAULT), tombstone, truncate, message."""
    first = runs["first"][DOCS]["rows"]
    assert [(r["id"], r["first_name"], r["_cdc_op"]) for r in first] == [(1, "Anne Marie", "u")]
    staged = sorted(
        (r["_kafka_offset"], r["_cdc_op"], r["id"], r["first_name"])
        for r in runs["second"][STG_DOCS]["rows"]
    )
    assert staged == [
        (0, "c", 1, "Anne"),
        (1, "u", 1, "Anne Marie"),
        (2, "d", 1, None),
        (4, "t", None, None),
    ]
    quarantined = sorted(
        (r["_kafka_offset"], r["_quarantine_reason"], r["_quarantine_detail"])
        for r in runs["second"][QUARANTINE_DOCS]["rows"]
    )
    assert quarantined == [
        (3, "tombstone", None),
        (5, "unsupported_op", "op = m"),
    ]
    assert runs["second"][DOCS]["rows"] == []  # the incremental run applied the delete


def test_truncate_clears_older_rows(runs: dict[str, Any]) -> None:
    first = {r["coupon_id"]: r["discount"] for r in runs["first"][COUPONS]["rows"]}
    assert first == {
        1: Decimal("10.00"),
        2: Decimal("20.00"),
        3: Decimal("25.00"),
        9: Decimal("9.00"),
    }
    expected = current_state(events(COUPONS_FILE) + events(COUPONS_TOAST_FILE), "coupon_id")
    second = {r["coupon_id"]: r["discount"] for r in runs["second"][COUPONS]["rows"]}
    assert second == {k: decode_decimal(v["discount"], 2) for k, v in expected.items()}
    # coupon 9 was created after the truncate (first build), 5 never was
    assert second == {
        1: Decimal("15.00"),
        4: Decimal("5.00"),
        5: Decimal("1.00"),
        9: Decimal("9.50"),
    }


def test_unavailable_toast_values_keep_the_previous_value(runs: dict[str, Any]) -> None:
    """Updates whose `code` is Debezium's unavailable-value placeholder (an
    unchanged TOASTed column): coupon 1 takes the code of its create in the
    same batch, coupon 9 the code stored by the first build, coupon 5 (never
    seen before) null. The placeholder is staged as landed but never
    written to the state table or shown by the view."""
    expected = current_state(events(COUPONS_FILE) + events(COUPONS_TOAST_FILE), "coupon_id")
    codes = {k: v["code"] for k, v in expected.items()}
    assert codes == {1: "WELCOME", 4: "SUMMER", 5: None, 9: "AUTUMN"}
    for table in (COUPONS, COUPONS_STATE):
        assert {r["coupon_id"]: r["code"] for r in runs["second"][table]["rows"]} == codes
    first = {r["coupon_id"]: r["code"] for r in runs["first"][COUPONS]["rows"]}
    assert first[9] == "AUTUMN"


def _optional(decode: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else decode(value)


def _assert_matches_reference(
    rows: list[dict[str, Any]],
    expected: dict[Any, Any],
    key: str,
    decoders: dict[str, Callable[[Any], Any]] | None = None,
) -> None:
    actual = _by(rows, key)
    assert sorted(actual) == sorted(expected)
    for value, source_row in expected.items():
        for column, source_value in source_row.items():
            decode = (decoders or {}).get(column, lambda v: v)
            assert actual[value][column.lower()] == decode(source_value), (value, column)


def test_sqlserver_documentation_events_in_lsn_order(runs: dict[str, Any]) -> None:
    """The SQL Server docs' create/update/delete of customer 1005, a snapshot,
    two updates of one transaction delivered in reverse (same ts_ms) and a
    primary-key update (delete 1002 + create 1012 in one commit)."""
    rows = runs["second"][SQLSERVER]["rows"]
    _assert_matches_reference(rows, current_state(events(SQLSERVER_FILE), "id"), "id")
    by_id = _by(rows, "id")
    assert sorted(by_id) == [1001, 1003, 1004, 1012]
    first = _by(runs["first"][SQLSERVER]["rows"], "id")
    assert first[1001]["email"] == "sally@second.example"  # the later change, first batch
    assert by_id[1001]["email"] == "sally@second.example"  # the later change_lsn wins
    staged = {r["_kafka_offset"]: r for r in runs["second"][STG_SQLSERVER]["rows"]}
    create, update, delete = staged[4], staged[5], staged[6]
    assert (create["_cdc_op"], create["id"], create["email"]) == ("c", 1005, "john.doe@example.org")
    assert (update["_cdc_op"], update["email"]) == ("u", "noreply@example.org")
    assert (delete["_cdc_op"], delete["id"], delete["email"]) == ("d", 1005, "noreply@example.org")
    # LSNs as hex numbers: commit 00000027:00000758:0005, change ...:0003, serial "1"
    assert create["_cdc_position"] == [0x27, 0x758, 5, 0x27, 0x758, 3, 1, 4]
    assert update["_cdc_source_event_serial_no"] == 2  # "2" in the docs' JSON
    assert create["_cdc_source_commit_lsn"] == "00000027:00000758:0005"
    assert create["_cdc_source_committed_at"] == "2019-06-05T10:11:08.470000Z"
    assert staged[0]["_cdc_position"][:7] == [0x25, 0xD98, 0xA2, -1, -1, -1, -1]
    assert staged[0]["_cdc_is_snapshot"] and not create["_cdc_is_snapshot"]
    quarantined = sorted(
        (r["_kafka_offset"], r["_quarantine_reason"])
        for r in runs["second"][QUARANTINE_SQLSERVER]["rows"]
    )
    assert quarantined == [(7, "tombstone"), (11, "tombstone")]


def test_mysql_customers_match_risingwave_expected(runs: dict[str, Any]) -> None:
    expected = {}
    for line in MYSQL_EXPECTED.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            row_id, first, last, email = line.split(" ", 3)
            expected[int(row_id)] = (first, last, email)
    for table in (MYSQL, MYSQL_NOSCHEMA):
        rows = runs["second"][table]["rows"]
        actual = {r["id"]: (r["first_name"], r["last_name"], r["email"]) for r in rows}
        assert actual == expected, table
    rows = runs["second"][MYSQL]["rows"]
    _assert_matches_reference(rows, current_state(events(MYSQL_FILE), "id"), "id")
    assert _by(rows, "id")[1005]["_cdc_source_file"] == "mysql-bin.000003"


def test_mysql_binlog_rotation_orders_by_file_number(runs: dict[str, Any]) -> None:
    rows = runs["second"][ACCOUNTS]["rows"]
    _assert_matches_reference(
        rows,
        current_state(events(ACCOUNTS_FILE), "account_id", ignore_null=("owner",)),
        "account_id",
    )
    by_id = _by(rows, "account_id")
    assert {k: r["balance"] for k, r in by_id.items()} == {1: 80, 2: 65, 4: 10}
    # the .000010 update was merged first; the older .000009 one came later
    first = _by(runs["first"][ACCOUNTS]["rows"], "account_id")
    assert first[1]["balance"] == 70
    assert first[1]["_cdc_position"] == [10, 154, 0, 3]


def test_cdl_json_and_debezium_json_in_lsn_order(runs: dict[str, Any]) -> None:
    v1 = runs["second"][CDL_V1]["rows"]
    expected = current_state(events(CDL_V1_FILE), "id")
    # CDL's decimal text (com.xxx.cdc.data.Decimal) is an exact decimal(38,18)
    text_decimal = _optional(Decimal)
    _assert_matches_reference(
        v1, expected, "id", {"time1": decode_millis, "decimalNum": text_decimal}
    )
    assert [(r["id"], r["count1"], r["decimalnum"]) for r in v1] == [(34, 15, Decimal("0.001"))]
    assert runs["second"][CDL_V1]["types"]["decimalnum"] == "decimal(38,18)"
    first = _by(runs["first"][CDL_V1]["rows"], "id")
    assert first[34]["count1"] == 15  # the lower-lsn update merged after it lost
    assert v1[0]["time1"] == "2024-02-04T12:01:40.000000Z"
    v2 = runs["second"][CDL_V2]["rows"]
    _assert_matches_reference(
        v2, current_state(events(CDL_V2_FILE), "id"), "id", {"decimalNum": text_decimal}
    )
    assert [(r["id"], r["count1"], r["decimalnum"]) for r in v2] == [(35, 16, Decimal("1.5"))]
    # CDL's timestamp text (com.xxx.cdc.data.timestamp), wall clock read as UTC
    assert runs["second"][CDL_V2]["types"]["time1"] == "timestamp"
    staged = {r["id"]: r for r in runs["second"][STG_CDL_V2]["rows"]}
    assert (staged[37]["time1"], staged[37]["decimalnum"]) == (
        "2024-02-04T12:00:00.123456Z",
        Decimal("99.90"),
    )


def test_cdl_format_page_examples_staged_exactly(runs: dict[str, Any]) -> None:
    first = _by(runs["second"][STG_CDL_V1]["rows"], "_kafka_offset")[0]
    assert {k: first[k] for k in ("id", "count1", "time1", "decimalnum", "_cdc_op")} == {
        "id": 34,
        "count1": 13,
        "time1": None,
        "decimalnum": None,
        "_cdc_op": "c",
    }
    assert (first["_cdc_source_lsn"], first["_cdc_source_tx_id"]) == (163955221008, 57227595)
    assert first["_cdc_source_connector"] == "postgresql"
    assert (first["_cdc_source_schema"], first["_cdc_source_table"]) == ("public", "ct_pg2hudi")
    assert first["_cdc_source_committed_at"] == "2024-02-04T11:59:56.013000Z"
    assert first["_cdc_message_version"] == "1.0"
    assert first["_cdc_heartbeat_identifier"] == "279fb050-0143-45c1-b184-50bc48c2461c"
    assert first["_cdc_position"] == [163955221008, 0]
    second = _by(runs["second"][STG_CDL_V2]["rows"], "_kafka_offset")[0]
    assert (second["id"], second["count1"], second["_cdc_op"]) == (35, 14, "c")
    assert (second["_cdc_source_lsn"], second["_cdc_message_version"]) == (163955586912, "2.0")
    assert second["_cdc_is_snapshot"] is False  # "snapshot": "false", a string
    assert second["_cdc_processed_at"] == "2024-02-04T12:16:24.208000Z"


def test_cdl_heartbeats_are_counted_not_staged(runs: dict[str, Any]) -> None:
    result = runs["second"]
    heartbeats = result[HEARTBEATS_CDL_V1]["rows"]
    assert [(r["_kafka_offset"], r["_cdc_heartbeat_identifier"]) for r in heartbeats] == [
        (4, "8d0c5d3e-6f1e-4a51-9a43-6a2d1c7e0b11")
    ]
    quarantined = [
        (r["_quarantine_reason"], r["_quarantine_detail"])
        for r in result[QUARANTINE_CDL_V1]["rows"]
    ]
    assert quarantined == [("unsupported_op", "op = TRUNCATE")]
    landed = len(result[RAW_CDL_V1]["rows"])
    assert landed == 7 == len(result[STG_CDL_V1]["rows"]) + len(quarantined) + len(heartbeats)


def test_transactions_join_the_change_events(runs: dict[str, Any]) -> None:
    """The SQL Server docs' BEGIN/END pair and enriched event: the
    transaction table has one row per id, and the event joins to it."""
    transactions = _by(runs["second"][TRANSACTIONS]["rows"], "transaction_id")
    done = transactions["00000025:00000d08:0025"]
    assert (done["status"], done["event_count"]) == ("committed", 2)
    assert done["begun_at"] == "2017-02-07T20:49:37.125000Z"
    assert done["ended_at"] == "2017-02-07T20:49:37.691000Z"
    assert done["data_collections"] == [
        {"data_collection": "testDB.dbo.testDB.tablea", "event_count": 1},
        {"data_collection": "testDB.dbo.testDB.tableb", "event_count": 1},
    ]
    assert transactions["00000025:00000e10:0002"]["status"] == "open"
    # the first build saw the BEGIN only; the END merged later kept begun_at
    [first] = runs["first"][TRANSACTIONS]["rows"]
    assert (first["transaction_id"], first["status"]) == ("00000025:00000d08:0025", "open")
    assert first["begun_at"] == done["begun_at"]
    [event] = runs["second"][STG_TABLEA]["rows"]
    assert event["_cdc_transaction_id"] in transactions
    assert (event["_cdc_transaction_total_order"], event["_cdc_transaction_collection_order"]) == (
        1,
        1,
    )
    assert (event["pk"], event["aa"]) == ("2", "1")
    assert event["_cdc_processed_at"] == "2020-01-30T13:28:04.335000Z"  # "ts_ms" as a string


def test_risingwave_transaction_boundaries(runs: dict[str, Any]) -> None:
    """RisingWave's BEGIN/END messages: the GTID-style pair is one committed
    transaction of 11 events; the two Postgres-style ids are unpaired."""
    rows = _by(runs["second"][RW_TRANSACTIONS]["rows"], "transaction_id")
    gtid = rows["3E11FA47-71CA-11E1-9E33-C80AA9429562:23"]
    assert (gtid["status"], gtid["event_count"]) == ("committed", 11)
    assert [c["event_count"] for c in gtid["data_collections"]] == [5, 6]
    assert rows["35352:3962948040"]["status"] == "open"
    assert rows["35352:3962950064"]["begun_at"] is None


def test_schema_history(runs: dict[str, Any]) -> None:
    history = sorted(runs["second"][SCHEMA_HISTORY]["rows"], key=lambda r: r["_cdc_position"])
    assert [(r["change_type"], r["table_id"]) for r in history] == [
        ("CREATE", '"testDB"."dbo"."customers"'),
        ("ALTER", '"testDB"."dbo"."customers"'),
    ]
    create, alter = history
    assert [c["name"] for c in create["columns"]] == ["id", "first_name", "last_name", "email"]
    first = create["columns"][0]
    assert (first["jdbc_type"], first["type_name"], first["length"], first["scale"]) == (
        4,
        "int identity",
        10,
        0,
    )
    assert create["primary_key_columns"] == ["id"] and create["ddl"] is None
    assert [c["name"] for c in alter["columns"]][-1] == "phone"
    assert create["_cdc_position"][:3] == [0x25, 0xD98, 0xA2]
    [mysql] = runs["second"][RW_SCHEMA_HISTORY]["rows"]
    assert mysql["ddl"] == "ALTER TABLE test add column v2 varchar(32)"
    assert [(c["name"], c["jdbc_type"]) for c in mysql["columns"]] == [
        ("id", 4),
        ("v1", 2014),
        ("v2", 12),
    ]
    assert mysql["_cdc_position"] == [65, 234, 0, 0]  # binlog.000065, pos 234, row 0


def test_decimal_written_as_a_number_is_quarantined_not_misread(runs: dict[str, Any]) -> None:
    """SeaTunnel's MySQL all-types events declare Decimal (base64 bytes) but
    write plain numbers: each record is quarantined with the column named,
    instead of decoding garbage or failing the whole model."""
    result = runs["second"]
    quarantined = result[QUARANTINE_SEATUNNEL]["rows"]
    assert len(result[RAW_SEATUNNEL]["rows"]) == len(quarantined) == 3
    assert {r["_quarantine_reason"] for r in quarantined} == {"type_mismatch"}
    assert {r["_quarantine_detail"] for r in quarantined} == {
        "column f_bigint_unsigned is bytes (org.apache.kafka.connect.data.Decimal) but holds"
        " 987654321, not the base64 text the JsonConverter writes (a converter with"
        " decimal.format=NUMERIC writes numbers: then set `decimal_format: numeric` in"
        " topic.yml)"
    }
    assert result[SEATUNNEL]["rows"] == []


def test_show_prints_each_current_table_with_its_count_and_first_rows(
    runs: dict[str, Any],
) -> None:
    """`run --show` (what `make run` prints, through the SQL engine) lists
    the analysts' tables with their row counts, not the `__state` tables,
    and the first rows by the first column; after a run that selected its
    own models (the third: RERUN_TOPICS), the tables of those topics only,
    saying how many others it left out."""
    # after dbt's output: from "warehouse: ..." (embedded) or "server: ..." (Thrift)
    shown = "\n" + re.split(r"\n(?=(?:warehouse|server): )", runs["shown"], maxsplit=1)[1]
    for table in (ORDERS, COUPONS, PRODUCTS, CHBENCH_TABLES["neworder"]):
        assert f"\n{table}: {len(runs['third'][table]['rows'])} rows\n" in shown
    assert NEWORDER_STATE not in shown and COUPONS_STATE not in shown
    # topics the third run did not select
    assert all(f"\n{table}: " not in shown for table in (DOCS, SQLSERVER, MYSQL))
    assert re.search(r"\n\(the \d+ built by this run; \d+ others unchanged: ", shown), shown
    orders = runs["third"][ORDERS]
    first_column = next(c for c in orders["types"] if not c.startswith("_"))
    smallest = min(row[first_column] for row in orders["rows"])
    block = shown.split(f"\n{ORDERS}: ")[1].split("\n\n")[0]
    assert f"\n|{first_column}" in block
    assert re.search(rf"\n\|{re.escape(str(smallest))}\s*\|", block), block
    # nested values as JSON on either engine (the embedded one's rows would
    # print pyspark's Row(...))
    assert "Row(" not in shown and '|[{"data_collection":"' in shown


def test_spark_substitutes_nothing(runs: dict[str, Any]) -> None:
    """Spark's `${...}` substitution is off on the target (the profile's
    setting, which the Thrift server the project starts takes too): a name
    and a value written `${env:HOME}` or `${spark.app.name}` arrive as that
    text, never as the variable's value (issue 53). After the shared runs
    (on their target: a Thrift server is up only while they run)."""
    rows = runs["substitution"]
    assert rows == [{"${spark.app.name}": "${env:HOME}", "plain_value": "${system:user.name}"}]


# a model's look-up (macros/materializations/cdc_lookup.sql): what it
# reads from the rows first, in one pass over each table
LOOK_UP = "select looked.*, "


def test_an_incremental_run_costs_a_look_up_and_one_statement_per_model(
    runs: dict[str, Any],
) -> None:
    """Issue 54: in the second build (new records on every topic), each
    base and merged-state model sent its look-up and its insert or merge,
    read from dbt's debug log: no temporary view and no `describe`, except
    where the table's columns changed (then it altered the table). A state
    model may also apply a truncate (a delete) and look up the snapshots a
    `snapshot_deletes` topic completed."""
    statements = runs["second_statements"]
    base = {n: s for n, s in statements.items() if n.startswith("model.cdc.base_")}
    state = {n: s for n, s in statements.items() if n.endswith("__state")}
    assert len(base) >= 40 and len(state) >= 30, sorted(statements)
    built = base | state
    evolved = {n for n, s in built.items() if any(x.startswith("alter table") for x in s)}
    for node, sent in built.items():
        if node in evolved:
            continue
        assert not [s for s in sent if s.startswith(("describe", "create or replace temporary"))], (
            node,
            sent,
        )
        assert sent[0].startswith(LOOK_UP), (node, sent)
        extra = [s for s in sent[1:-1] if not (s.startswith("delete from") or "_cdc_position" in s)]
        assert extra == [] and len(sent) <= (2 if node in base else 6), (node, sent)
    assert len(evolved) <= 6, sorted(evolved)


# the third run's models that are not the project's materialization
# (dbt's `incremental` and `table`: they send their statements anyway)
DBT_MATERIALIZED = ("model.cdc.proptest_label_totals", "model.cdc.proptest_items_as_of")
COUNTS = "model.cdc.cdc_quarantine_counts"


def test_a_run_with_nothing_new_sends_its_look_ups_only(runs: dict[str, Any]) -> None:
    """Issue 71: the third run lands nothing new. Each model of the
    project's materialization it selects (base, state, history, change
    feed, transactions and their progress, the example label history)
    sends its look-up and nothing else: no merge, and none of the queries
    its select would cost (a `snapshot_deletes` topic's complete
    snapshots, a change feed's Iceberg snapshots, the landing manifest).
    The quarantine counts, current for every topic after the second
    build, send the two queries that find it and write nothing."""
    statements = runs["third_statements"]
    own = {n: s for n, s in statements.items() if n not in (*DBT_MATERIALIZED, COUNTS)}
    for layer in ("model.cdc.base_", "__state", "__history", "__changes", "__progress"):
        assert any(layer in node for node in own), (layer, sorted(own))
    assert "model.cdc.postgres__proptest_public_items__state" in own  # snapshot_deletes
    assert "model.cdc.proptest_items_label_history" in own
    for node, sent in own.items():
        assert len(sent) == 1 and sent[0].startswith(LOOK_UP), (node, sent)
    counts = statements[COUNTS]
    assert counts[0].startswith("select topic, cast(max(counted_at) as string) from "), counts
    assert len(counts) == 2 and all(s.startswith("select ") for s in counts), counts
    assert set(DBT_MATERIALIZED) <= set(statements)  # the run selected them


TRANSACTION_MODELS = ("_transaction", "__progress")  # a transaction topic's


def test_a_model_shaped_by_its_own_select_costs_a_look_up_its_columns_and_a_merge(
    runs: dict[str, Any],
) -> None:
    """Issue 54: the MongoDB current states, the transaction topics'
    transactions and their progress (the project's materialization, no
    longer dbt's `incremental`) sent, in the second build, their look-up,
    one statement reading their select's columns (no row) and their merge;
    a progress model also reads which raw tables the landing holds. No
    temporary view, no `describe` (dbt's `incremental`: 7 to 11)."""
    statements = runs["second_statements"]
    own = {
        node: sent
        for node, sent in statements.items()
        if node.startswith("model.cdc.mongodb__")
        or (node.startswith("model.cdc.debezium__") and node.endswith(TRANSACTION_MODELS))
    }
    assert len([n for n in own if n.startswith("model.cdc.mongodb__")]) >= 4, sorted(own)
    assert len([n for n in own if n.endswith("__progress")]) >= 5, sorted(own)
    for node, sent in own.items():
        assert not [s for s in sent if s.startswith(("describe", "create or replace temporary"))], (
            node,
            sent,
        )
        assert sent[0].startswith(LOOK_UP), (node, sent)
        assert any(s.startswith("select to_json(json_object_keys(") for s in sent[1:]), sent
        assert "merge into " in sent[-1] and len(sent) <= 4, (node, sent)
