"""End to end on real Spark and dbt: landing -> staging -> current state.

One warehouse (under .state/pytest) is shared by the whole module and built
in three dbt invocations: a first build on part of the sample landing, an
incremental build after landing all of it, and a re-run with nothing new.
Results are read by `python -m python_helpers export` in its own process,
so dbt and the tests never hold the embedded metastore at the same time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import ORDERS_TOPIC, PRODUCTS_TOPIC, PROJECT, SAMPLE_LANDING
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
)

pytestmark = pytest.mark.spark

STATE = PROJECT / ".state" / "pytest"
FULL_TESTS = ("--vars", "{cdc_test_scope: all}")  # dbt tests check every row
PRODUCTS_FILE = SAMPLE_LANDING / PRODUCTS_TOPIC / "flink-pg-products-schema-include.jsonl"
ORDERS_FILE = SAMPLE_LANDING / ORDERS_TOPIC / "orders-kcat.jsonl"
FLINK_EXPECTED = (
    Path(__file__).parent
    / "fixtures"
    / "expected"
    / ("flink-pg-products-schema-include.expected.txt")
)
CHBENCH_EXPECTED = (
    Path(__file__).parent / "fixtures" / "expected" / ("rw-chbench-FINAL_STATE_COUNTS.txt")
)
# CH-benCHmark topics (real RisingWave corpus): table -> primary key
CHBENCH = {
    "customer": ("c_id", "c_d_id", "c_w_id"),
    "district": ("d_id", "d_w_id"),
    "neworder": ("no_o_id", "no_d_id", "no_w_id"),
    "warehouse": ("w_id",),
}
DOCS_TOPIC = "PostgreSQL_server.public.customers"
DOCS_FILE = SAMPLE_LANDING / DOCS_TOPIC / "docs-customers-kcat.jsonl"
DOCS = "cdc_current.postgres__public_customers"
STG_DOCS = "cdc_staging.stg_postgres__public_customers"
QUARANTINE_DOCS = "cdc_staging.stg_postgres__public_customers__quarantine"
COUPONS_FILE = SAMPLE_LANDING / "shop.public.coupons" / "coupons-kcat.jsonl"
COUPONS = "cdc_current.postgres__public_coupons"
PRODUCTS = "cdc_current.postgres__inventory_products"
ORDERS = "cdc_current.postgres__public_orders"
STG_ORDERS = "cdc_staging.stg_postgres__public_orders"
QUARANTINE_ORDERS = "cdc_staging.stg_postgres__public_orders__quarantine"
STG_PRODUCTS = "cdc_staging.stg_postgres__inventory_products"
QUARANTINE_PRODUCTS = "cdc_staging.stg_postgres__inventory_products__quarantine"
RAW_ORDERS = "cdc_landing.shop_public_orders"
RAW_PRODUCTS = "cdc_landing.fullfillment_inventory_products"
CHBENCH_TABLES = {name: f"cdc_current.postgres__tpcch_{name}" for name in CHBENCH}
# SQL Server, MySQL and Huawei CDL topics (model names follow the topic)
SQLSERVER_TOPIC = "server1.testDB.dbo.customers"
SQLSERVER_FILE = SAMPLE_LANDING / SQLSERVER_TOPIC / "sqlserver-docs-customers-kcat.jsonl"
SQLSERVER = "cdc_current.sqlserver__server1_testdb_dbo_customers"
STG_SQLSERVER = "cdc_staging.stg_sqlserver__server1_testdb_dbo_customers"
QUARANTINE_SQLSERVER = "cdc_staging.stg_sqlserver__server1_testdb_dbo_customers__quarantine"
MYSQL_FILE = SAMPLE_LANDING / "dbserver1.inventory.customers" / "rw-mysql-customers-schema.jsonl"
MYSQL_EXPECTED = (
    Path(__file__).parent / "fixtures" / "expected" / ("rw-mysql-customers-schema.expected.txt")
)
MYSQL = "cdc_current.mysql__dbserver1_inventory_customers"
MYSQL_NOSCHEMA = "cdc_current.mysql__noschema_inventory_customers"
ACCOUNTS_FILE = SAMPLE_LANDING / "shopdb.shop.accounts" / "accounts-kcat.jsonl"
ACCOUNTS = "cdc_current.mysql__shopdb_shop_accounts"
CDL_V1_FILE = SAMPLE_LANDING / "cdl_json.public.ct_pg2hudi" / "cdl-json-1.0.jsonl"
CDL_V2_FILE = SAMPLE_LANDING / "cdl_debezium.public.ct_pg2hudi" / "cdl-debezium-2.0.jsonl"
CDL_V1 = "cdc_current.cdl__cdl_json_public_ct_pg2hudi"
CDL_V2 = "cdc_current.cdl__cdl_debezium_public_ct_pg2hudi"
STG_CDL_V1 = "cdc_staging.stg_cdl__cdl_json_public_ct_pg2hudi"
STG_CDL_V2 = "cdc_staging.stg_cdl__cdl_debezium_public_ct_pg2hudi"
QUARANTINE_CDL_V1 = "cdc_staging.stg_cdl__cdl_json_public_ct_pg2hudi__quarantine"
HEARTBEATS_CDL_V1 = "cdc_staging.stg_cdl__cdl_json_public_ct_pg2hudi__heartbeats"
RAW_CDL_V1 = "cdc_landing.cdl_json_public_ct_pg2hudi"
TRANSACTIONS = "cdc_current.debezium__server1_transaction"
TRANSACTIONS_FILE = (
    SAMPLE_LANDING / "server1.transaction" / "sqlserver-docs-transactions-kcat.jsonl"
)
RW_TRANSACTIONS = "cdc_current.debezium__rw_cdc_1001_transaction"
STG_TABLEA = "cdc_staging.stg_sqlserver__server1_testdb_dbo_tablea"
SCHEMA_HISTORY = "cdc_current.sqlserver__server1_schema_changes"
RW_SCHEMA_HISTORY = "cdc_current.mysql__rw_cdc_0_schema_changes"
SEATUNNEL = "cdc_current.mysql__seatunnel_all_types"
QUARANTINE_SEATUNNEL = "cdc_staging.stg_mysql__seatunnel_all_types__quarantine"
RAW_SEATUNNEL = "cdc_landing.mysql_cdc_1_mysql_cdc_mysql_cdc_e2e_source_table"
# MongoDB topics (tests in test_mongodb_end_to_end.py)
MONGO_TOPICS = {
    "mongo2.shop.customers": "mongo-2x-kcat.jsonl",
    "fullfillment1.inventory.inventory": "mongo-1x.jsonl",
    "mongodb_bigdata_test.bigdata_test.sync_test_table": "paimon-bson-events-kcat.jsonl",
    "rw_mongo.inventory.customers": None,
}
MONGO_FIRST_LINES = {
    "mongo2.shop.customers": 5,
    "fullfillment1.inventory.inventory": 6,
    "mongodb_bigdata_test.bigdata_test.sync_test_table": 3,
}


def mongo_tables(topic: str) -> dict[str, str]:
    """The current-state, staging and quarantine tables of a MongoDB topic."""
    entity = topic.replace(".", "_").lower()
    return {
        "current": f"cdc_current.mongodb__{entity}",
        "staging": f"cdc_staging.stg_mongodb__{entity}",
        "quarantine": f"cdc_staging.stg_mongodb__{entity}__quarantine",
    }


CONNECTOR_TABLES = [
    *(table for topic in MONGO_TOPICS for table in mongo_tables(topic).values()),
    SEATUNNEL,
    QUARANTINE_SEATUNNEL,
    RAW_SEATUNNEL,
    TRANSACTIONS,
    RW_TRANSACTIONS,
    STG_TABLEA,
    SCHEMA_HISTORY,
    RW_SCHEMA_HISTORY,
    SQLSERVER,
    STG_SQLSERVER,
    QUARANTINE_SQLSERVER,
    MYSQL,
    MYSQL_NOSCHEMA,
    ACCOUNTS,
    CDL_V1,
    CDL_V2,
    STG_CDL_V1,
    STG_CDL_V2,
    QUARANTINE_CDL_V1,
    HEARTBEATS_CDL_V1,
    RAW_CDL_V1,
]
ALL_TABLES = [
    *CONNECTOR_TABLES,
    COUPONS,
    DOCS,
    STG_DOCS,
    QUARANTINE_DOCS,
    *CHBENCH_TABLES.values(),
    PRODUCTS,
    ORDERS,
    STG_ORDERS,
    QUARANTINE_ORDERS,
    STG_PRODUCTS,
    QUARANTINE_PRODUCTS,
    RAW_ORDERS,
    RAW_PRODUCTS,
]


def _env() -> dict[str, str]:
    return os.environ | {"CDC_STATE_DIR": str(STATE), "DBT_PROFILES_DIR": "profiles"}


def _run(*args: str) -> str:
    done = subprocess.run(args, cwd=PROJECT, env=_env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(
            f"{' '.join(args)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        )
    return done.stdout


def _helpers(*args: str) -> str:
    return _run(sys.executable, "-m", "python_helpers", *args)


def _dbt(*args: str) -> str:
    return _run(str(Path(sys.executable).parent / "dbt"), *args)


def _export() -> dict[str, Any]:
    loaded = json.loads(_helpers("export", *ALL_TABLES).splitlines()[-1])
    return {
        table: {
            "types": data["types"],
            "rows": [json.loads(r, parse_float=Decimal) for r in data["rows"]],
        }
        for table, data in loaded.items()
    }


def _partial_landing(root: Path) -> Path:
    """The first 9 product events (the snapshot), 5 order records, the
    first 100 lines of two CH-benCHmark topics, and the first lines of a
    SQL Server, a MySQL, a CDL, a transaction and three MongoDB topics."""
    landing = root / "partial"
    parts = [(PRODUCTS_FILE, 9), (ORDERS_FILE, 5), (DOCS_FILE, 2), (COUPONS_FILE, 4)]
    # later events of these arrive in the second batch: a newer position must
    # survive an older event merged after it, a BEGIN must meet its END
    parts += [(SQLSERVER_FILE, 9), (ACCOUNTS_FILE, 4), (CDL_V1_FILE, 3), (TRANSACTIONS_FILE, 1)]
    for topic, lines in MONGO_FIRST_LINES.items():
        parts.append((SAMPLE_LANDING / topic / str(MONGO_TOPICS[topic]), lines))
    for name in ("neworder", "customer"):
        parts.append((SAMPLE_LANDING / f"postgres.tpcch.{name}" / f"{name}.jsonl", 100))
    for source, lines in parts:
        target = landing / source.parent.name / source.name
        target.parent.mkdir(parents=True)
        kept = source.read_text(encoding="utf-8").splitlines()[:lines]
        target.write_text("\n".join(kept) + "\n", encoding="utf-8")
        config = source.parent / "topic.yml"
        if config.exists():
            shutil.copy(config, target.parent / "topic.yml")
    return landing


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    shutil.rmtree(STATE, ignore_errors=True)
    _helpers("jars")
    partial = _partial_landing(tmp_path_factory.mktemp("landing"))
    _helpers("run", "--landing", str(partial), "--", "build", *FULL_TESTS)
    first = _export()
    _helpers("run", "--landing", str(SAMPLE_LANDING), "--", "build", *FULL_TESTS)
    second = _export()
    _dbt("run")
    third = _export()
    return {"first": first, "second": second, "third": third}


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
    assert reasons == [(6, "tombstone"), (7, "malformed_json"), (8, "unsupported_op")]
    assert {r["_quarantine_detail"] for r in rows if r["_kafka_offset"] == 8} == {"op = x"}
    malformed = next(r for r in rows if r["_kafka_offset"] == 7)
    assert malformed["_kafka_value"].startswith('{"schema": {"type": "struct"}')
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
    assert first == {1: Decimal("10.00"), 2: Decimal("20.00"), 3: Decimal("25.00")}
    expected = current_state(events(COUPONS_FILE), "coupon_id")
    second = {r["coupon_id"]: r["discount"] for r in runs["second"][COUPONS]["rows"]}
    assert second == {k: decode_decimal(v["discount"], 2) for k, v in expected.items()}
    assert second == {1: Decimal("12.50"), 4: Decimal("5.00")}


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
        rows, current_state(events(ACCOUNTS_FILE), "account_id"), "account_id"
    )
    by_id = _by(rows, "account_id")
    assert {k: r["balance"] for k, r in by_id.items()} == {1: 70, 2: 65}
    # the .000010 update was merged first; the older .000009 one came later
    first = _by(runs["first"][ACCOUNTS]["rows"], "account_id")
    assert first[1]["balance"] == 70
    assert by_id[1]["_cdc_position"] == [10, 154, 0, 3]


def test_cdl_json_and_debezium_json_in_lsn_order(runs: dict[str, Any]) -> None:
    v1 = runs["second"][CDL_V1]["rows"]
    expected = current_state(events(CDL_V1_FILE), "id")
    _assert_matches_reference(v1, expected, "id", {"time1": decode_millis})
    assert [(r["id"], r["count1"], r["decimalnum"]) for r in v1] == [(34, 15, "0.001")]
    first = _by(runs["first"][CDL_V1]["rows"], "id")
    assert first[34]["count1"] == 15  # the lower-lsn update merged after it lost
    assert v1[0]["time1"] == "2024-02-04T12:01:40.000000Z"
    v2 = runs["second"][CDL_V2]["rows"]
    _assert_matches_reference(v2, current_state(events(CDL_V2_FILE), "id"), "id")
    assert [(r["id"], r["count1"], r["decimalnum"]) for r in v2] == [(35, 16, "1.5")]


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
        " 987654321, not the base64 text the JsonConverter writes"
    }
    assert result[SEATUNNEL]["rows"] == []
