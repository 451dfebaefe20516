"""The shared end-to-end run: one warehouse (under .state/pytest) built in
three invocations, a first build on part of the sample landing, an
incremental build after landing all of it, and a re-run with nothing new.
Results are read by `python -m python_helpers export` in its own process,
so dbt and the tests never hold the embedded metastore at the same time.

conftest.py starts `BackgroundRuns` at the first test and turns it into the
session-scoped `runs` fixture, so every test module that checks these
tables shares one run, built while the other tests run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import flattened_smt
import property_histories as prop
import property_transactions as proptx
from docs_server import DocsServer
from fixtures.samples_snapshots import STOCK_NOTIFICATIONS as STOCK_PREFIXES
from project_paths import EXPECTED, ORDERS_TOPIC, PRODUCTS_TOPIC, PROJECT, SAMPLE_LANDING
from project_runs import export_options

from bench.statements import statements_per_node
from python_helpers import connectors
from python_helpers.land.crash_points import AFTER_RAW_APPEND

STATE = PROJECT / ".state" / "pytest"
# `make test-thrift`: the same runs against a local Spark Thrift server (the
# profile's `cluster` target): landing, dbt and exports all go through it
THRIFT = os.environ.get("CDC_DBT_TARGET") == "cluster"
FULL_TESTS = ("--vars", "{cdc_test_scope: all}")  # dbt tests check every row
# the first build builds every model and seed and runs the unit tests, not
# the data tests: the second build runs all of them over every row of both
# landings (FULL_TESTS), the first build's rows included — in the first
# build they checked the same rows once more, 42 % of its dbt time
# (with the same vars as the later runs: dbt parses the project once, and
# reads it from that partial parse after)
FIRST_BUILD = ("build", "--exclude-resource-type", "test", *FULL_TESTS)
PRODUCTS_FILE = SAMPLE_LANDING / PRODUCTS_TOPIC / "flink-pg-products-schema-include.jsonl"
ORDERS_FILE = SAMPLE_LANDING / ORDERS_TOPIC / "orders-kcat.jsonl"
FLINK_EXPECTED = EXPECTED / "flink-pg-products-schema-include.expected.txt"
CHBENCH_EXPECTED = EXPECTED / "rw-chbench-FINAL_STATE_COUNTS.txt"
# CH-benCHmark topics (real RisingWave corpus): table -> primary key
CHBENCH = {
    "customer": ("c_id", "c_d_id", "c_w_id"),
    "district": ("d_id", "d_w_id"),
    "neworder": ("no_o_id", "no_d_id", "no_w_id"),
    "warehouse": ("w_id",),
}
DOCS_TOPIC = "PostgreSQL_server.public.customers"
DOCS_FILE = SAMPLE_LANDING / DOCS_TOPIC / "docs-customers-kcat.jsonl"
DOCS = "cdc_current.postgres__postgresql_server_public_customers"
STG_DOCS = "cdc_staging.stg_postgres__postgresql_server_public_customers"
QUARANTINE_DOCS = "cdc_staging.stg_postgres__postgresql_server_public_customers__quarantine"
COUPONS_FILE = SAMPLE_LANDING / "shop.public.coupons" / "coupons-kcat.jsonl"
COUPONS_TOAST_FILE = SAMPLE_LANDING / "shop.public.coupons" / "coupons-toast-kcat.jsonl"
COUPONS_STATE = "cdc_current.postgres__shop_public_coupons__state"
COUPONS = "cdc_current.postgres__shop_public_coupons"
PRODUCTS = "cdc_current.postgres__fullfillment_inventory_products"
ORDERS = "cdc_current.postgres__shop_public_orders"
STG_ORDERS = "cdc_staging.stg_postgres__shop_public_orders"
QUARANTINE_ORDERS = "cdc_staging.stg_postgres__shop_public_orders__quarantine"
STG_PRODUCTS = "cdc_staging.stg_postgres__fullfillment_inventory_products"
QUARANTINE_PRODUCTS = "cdc_staging.stg_postgres__fullfillment_inventory_products__quarantine"
RAW_ORDERS = "cdc_landing.shop_public_orders"
RAW_PRODUCTS = "cdc_landing.fullfillment_inventory_products"
NEWER_HALF_FILE = "neworder-newer-half-kcat.jsonl"
NEWER_HALF_FROM = 60  # creates of 30 live keys, then 45 deliveries (deletes)
CHBENCH_TABLES = {name: f"cdc_current.postgres__postgres_tpcch_{name}" for name in CHBENCH}
NEWORDER_STATE = "cdc_current.postgres__postgres_tpcch_neworder__state"
# the same current state with soft deletes (config(cdc_soft_deletes=true))
NEWORDER_SOFT = "cdc_current.postgres__postgres_tpcch_neworder__with_deletes"
# property tests of the merge (test_merge_properties.py): generated histories
PROPERTY_EXAMPLES = int(os.environ.get("CDC_PROPERTY_EXAMPLES", "200"))
PROPERTY_SEED = int(os.environ.get("CDC_PROPERTY_SEED", "20261122"))
PROPERTY_TABLES = {
    "current": "cdc_current.postgres__proptest_public_items",
    "state": "cdc_current.postgres__proptest_public_items__state",
    "history": "cdc_history.postgres__proptest_public_items__history",
    "as_of": "cdc_examples.proptest_items_as_of",
    "label_history": "cdc_examples.proptest_items_label_history",
    "changes": "cdc_changes.postgres__proptest_public_items__changes",
    "totals": "cdc_examples.proptest_label_totals",
    "quarantine": "cdc_staging.stg_postgres__proptest_public_items__quarantine",
    "raw": "cdc_landing.proptest_public_items",
    "duplicates": "cdc_landing._landing_duplicates",
}
# the crash test kills the second build here: while landing the sample
# topics (three landed, the fourth under way) and while dbt merges (the
# first current-state table merged, the others not)
LANDING_KILL = r"^\[3/\d+\] "
DBT_KILL = r" OK created sql (cdc_)?incremental model cdc_current\."
# SCD type 2 history models (`history: true` in the topics' declarations, topics/)
HISTORY = {
    "neworder": "cdc_history.postgres__postgres_tpcch_neworder__history",
    "coupons": "cdc_history.postgres__shop_public_coupons__history",
    "sqlserver": "cdc_history.sqlserver__server1_testdb_dbo_customers__history",
    "accounts": "cdc_history.mysql__shopdb_shop_accounts__history",
}
# SQL Server, MySQL and Huawei CDL topics (model names follow the topic)
SQLSERVER_TOPIC = "server1.testDB.dbo.customers"
SQLSERVER_FILE = SAMPLE_LANDING / SQLSERVER_TOPIC / "sqlserver-docs-customers-kcat.jsonl"
SQLSERVER = "cdc_current.sqlserver__server1_testdb_dbo_customers"
STG_SQLSERVER = "cdc_staging.stg_sqlserver__server1_testdb_dbo_customers"
QUARANTINE_SQLSERVER = "cdc_staging.stg_sqlserver__server1_testdb_dbo_customers__quarantine"
MYSQL_FILE = SAMPLE_LANDING / "dbserver1.inventory.customers" / "rw-mysql-customers-schema.jsonl"
MYSQL_EXPECTED = EXPECTED / "rw-mysql-customers-schema.expected.txt"
MYSQL = "cdc_current.mysql__dbserver1_inventory_customers"
MYSQL_NOSCHEMA = "cdc_current.mysql__noschema_inventory_customers"
ACCOUNTS_FILE = SAMPLE_LANDING / "shopdb.shop.accounts" / "accounts-kcat.jsonl"
ACCOUNTS = "cdc_current.mysql__shopdb_shop_accounts"
# the table options of issue 25 on MySQL and SQL Server (tests in
# test_table_options_end_to_end.py): one accounts sequence on each, its
# topic declaring ignore_null_updates: [owner], a history tracking balance
# and a change feed
OPTION_TOPICS = {
    "mysql": ("shopdb.shop.accounts", "mysql__shopdb_shop_accounts"),
    "sqlserver": ("server1.testDB.dbo.accounts", "sqlserver__server1_testdb_dbo_accounts"),
}
OPTION_FILES = {
    connector: SAMPLE_LANDING / topic / "accounts-kcat.jsonl"
    for connector, (topic, _) in OPTION_TOPICS.items()
}
OPTION_TABLES = {
    connector: {
        "current": f"cdc_current.{model}",
        "history": f"cdc_history.{model}__history",
        "changes": f"cdc_changes.{model}__changes",
    }
    for connector, (_, model) in OPTION_TOPICS.items()
}
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
# vanished keys (issue 24; tests in test_snapshots_end_to_end.py): one
# sequence on three connectors' topics declaring snapshot_deletes, and a
# topic that does not declare it (a filtered snapshot)
STOCK_MODELS = {
    "postgresql": ("shop.public.stock", "postgres__shop_public_stock"),
    "mysql": ("shopdb.shop.stock", "mysql__shopdb_shop_stock"),
    "sqlserver": ("server1.testDB.dbo.stock", "sqlserver__server1_testdb_dbo_stock"),
}
STOCK_FILES = {
    connector: SAMPLE_LANDING / topic / "stock-resnapshot-kcat.jsonl"
    for connector, (topic, _) in STOCK_MODELS.items()
}
STOCK_TABLES = {
    connector: {
        "current": f"cdc_current.{model}",
        "state": f"cdc_current.{model}__state",
        "history": f"cdc_history.{model}__history",
    }
    for connector, (_, model) in STOCK_MODELS.items()
}
# each stock connector's notification topic (the incremental snapshots'
# table scans): its file, its snapshot-scans model, the table's data
# collection (STOCK_PREFIXES: each one's topic prefix, the fixture writer's)
STOCK_NOTIFICATIONS = {
    connector: SAMPLE_LANDING / f"{prefix}.notifications" / "stock-notifications-kcat.jsonl"
    for connector, prefix in STOCK_PREFIXES.items()
}
STOCK_SCANS = {
    connector: f"cdc_current.debezium__{prefix}_notifications"
    for connector, prefix in STOCK_PREFIXES.items()
}
STOCK_COLLECTIONS = {
    connector: topic.removeprefix(STOCK_PREFIXES[connector] + ".")
    for connector, (topic, _) in STOCK_MODELS.items()
}
STOCK_FILTERED_FILE = SAMPLE_LANDING / "shop.public.stock_filtered" / "stock-filtered-kcat.jsonl"
STOCK_FILTERED = "cdc_current.postgres__shop_public_stock_filtered"
# transaction-consistent views (issue 24; tests in
# test_transactions_end_to_end.py): one sequence of five transactions over
# three tables, on three connectors
BANK_TOPICS = {
    "postgresql": (
        "bank",
        ["bank.public.orders", "bank.public.order_lines", "bank.public.payments"],
    ),
    "mysql": ("bankdb", ["bankdb.shop.orders", "bankdb.shop.order_lines", "bankdb.shop.payments"]),
    "sqlserver": (
        "bank1",
        ["bank1.testDB.dbo.orders", "bank1.testDB.dbo.order_lines", "bank1.testDB.dbo.payments"],
    ),
}
BANK_FILE = "bank-transactions-kcat.jsonl"
# lines of each file in the first build: BEGIN/END of 801-803; 801's and
# 803's order and line, 802's order; the snapshot read of payments
BANK_FIRST_LINES = {"transaction": 6, "orders": 3, "order_lines": 2, "payments": 1}


def bank_file(topic: str) -> Path:
    return SAMPLE_LANDING / topic / BANK_FILE


def bank_tables(connector: str, topic: str) -> dict[str, str]:
    """The current, consistent and state tables of a bank topic."""
    model = f"{connectors.lookup(connector).folder}__{topic.replace('.', '_').lower()}"
    return {
        "current": f"cdc_current.{model}",
        "consistent": f"cdc_current.{model}__consistent",
        "state": f"cdc_current.{model}__state",
    }


def bank_progress(connector: str) -> str:
    return f"{bank_transactions(connector)}__progress"


def bank_transactions(connector: str) -> str:
    """The analysts' transactions table of a bank connector's transaction topic."""
    return f"cdc_current.debezium__{BANK_TOPICS[connector][0]}_transaction"


# property tests of the consistent views (test_transaction_properties.py):
# random transactions over two tables (property_transactions.py)
PROPTX_TABLES = {topic: bank_tables(proptx.CONNECTOR, topic) for topic in proptx.TOPICS.values()}
PROPTX_HISTORIES = max(1, PROPERTY_EXAMPLES // 4)
BANK_TABLES = [
    *(
        table
        for connector, (_, topics) in BANK_TOPICS.items()
        for topic in topics
        for table in bank_tables(connector, topic).values()
    ),
    *(bank_progress(connector) for connector in BANK_TOPICS),
    *(bank_transactions(connector) for connector in BANK_TOPICS),
]
# the corpus all-types events, payload-only, with hand-written value schemas
# (tests in test_corpus_types.py)
FLINKCDC_FULL_TYPES = "cdc_current.mysql__flinkcdc_full_types"
SQLSERVER_FULL_TYPES = "cdc_current.sqlserver__seatunnel_full_types_1"
QUARANTINE_SQLSERVER_FULL_TYPES = "cdc_staging.stg_sqlserver__seatunnel_full_types_1__quarantine"
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


# one column per paired type fixture (tests in test_types_end_to_end.py)
TYPES_TABLES = {
    "staging": "cdc_staging.stg_postgres__typesdemo_public_all_types",
    "current": "cdc_current.postgres__typesdemo_public_all_types",
}


CONNECTOR_TABLES = [
    *TYPES_TABLES.values(),
    *(table for topic in MONGO_TOPICS for table in mongo_tables(topic).values()),
    SEATUNNEL,
    QUARANTINE_SEATUNNEL,
    RAW_SEATUNNEL,
    FLINKCDC_FULL_TYPES,
    SQLSERVER_FULL_TYPES,
    QUARANTINE_SQLSERVER_FULL_TYPES,
    TRANSACTIONS,
    RW_TRANSACTIONS,
    STG_TABLEA,
    SCHEMA_HISTORY,
    RW_SCHEMA_HISTORY,
    *(table for tables in STOCK_TABLES.values() for table in tables.values()),
    *STOCK_SCANS.values(),
    *(table for tables in OPTION_TABLES.values() for table in tables.values()),
    STOCK_FILTERED,
    *BANK_TABLES,
    "cdc_current.sqlserver__server1_testdb_dbo_tablea",
    "cdc_current.sqlserver__server1_testdb_dbo_tablea__consistent",
    "cdc_current.sqlserver__server1_testdb_dbo_stock__consistent",
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
# flattened topics (ExtractNewRecordState, issue 44): their landing files,
# and their current-state and staging views
FLATTENED_FILES = {
    topic: SAMPLE_LANDING / topic / name
    for topic, name in (
        (flattened_smt.PG_TOPIC, flattened_smt.PG_FILE),
        (flattened_smt.MYSQL_TOPIC, flattened_smt.MYSQL_FILE),
        (flattened_smt.PLAIN_TOPIC, flattened_smt.PLAIN_FILE),
    )
}
FLATTENED = {
    topic: f"cdc_current.flattened__{topic.replace('.', '_')}" for topic in FLATTENED_FILES
}
STG_FLATTENED = {
    topic: f"cdc_staging.stg_flattened__{topic.replace('.', '_')}" for topic in FLATTENED_FILES
}
QUARANTINE_FLATTENED = {topic: f"{name}__quarantine" for topic, name in STG_FLATTENED.items()}
QUARANTINE_SUMMARY = "cdc_ops.cdc_quarantine_summary"
QUARANTINE_TABLES = [
    QUARANTINE_DOCS,
    QUARANTINE_ORDERS,
    QUARANTINE_PRODUCTS,
    QUARANTINE_SQLSERVER,
    QUARANTINE_CDL_V1,
    QUARANTINE_SEATUNNEL,
    QUARANTINE_SQLSERVER_FULL_TYPES,
]
ALL_TABLES = [
    QUARANTINE_SUMMARY,
    *CONNECTOR_TABLES,
    *FLATTENED.values(),
    *STG_FLATTENED.values(),
    *QUARANTINE_FLATTENED.values(),
    "cdc_landing._run_metrics",
    COUPONS,
    DOCS,
    STG_DOCS,
    QUARANTINE_DOCS,
    *CHBENCH_TABLES.values(),
    NEWORDER_STATE,
    NEWORDER_SOFT,
    COUPONS_STATE,
    *HISTORY.values(),
    *PROPERTY_TABLES.values(),
    *(table for tables in PROPTX_TABLES.values() for table in tables.values()),
    PRODUCTS,
    ORDERS,
    STG_ORDERS,
    QUARANTINE_ORDERS,
    STG_PRODUCTS,
    QUARANTINE_PRODUCTS,
    RAW_ORDERS,
    RAW_PRODUCTS,
]


# the third run re-runs the models of these topics and everything built on
# them with nothing new landed (they must change nothing): the merges with
# the most involved incremental logic — delete markers, TOAST and partial
# updates, truncates, vanished keys of complete and incremental snapshots,
# history, the change feed and the models reading it, consistent views,
# MongoDB's replay — and the tables the re-run test compares. (Re-running
# every model, `--all`, took 4 of the suite's minutes and grew with each
# sample topic.) Their views are left as the second build made them: a
# view holds no rows of its own to change, and re-creating the 56 of them
# took a third of this run's dbt time.
RERUN_TOPICS = (
    ORDERS_TOPIC,
    PRODUCTS_TOPIC,
    "postgres.tpcch.neworder",
    "shop.public.coupons",
    *(topic for topic, _ in OPTION_TOPICS.values()),
    "proptest.public.items",
    *(topic for topic, _ in STOCK_MODELS.values()),
    *(f"{prefix}.notifications" for prefix in STOCK_PREFIXES.values()),
    "proptx.transaction",
    "bank.transaction",
    "mongo2.shop.customers",
)
RERUN = (
    "-s",
    *(f"config.meta.cdc_topic:{topic}+" for topic in RERUN_TOPICS),
    "--exclude",
    "config.materialized:view",
)


def _env() -> dict[str, str]:
    return os.environ | {"CDC_STATE_DIR": str(STATE), "DBT_PROFILES_DIR": "profiles"}


def _run(*args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        args, cwd=PROJECT, env=_env() | (env or {}), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise AssertionError(
            f"{' '.join(args)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        )
    return done.stdout


def _helpers(*args: str, env: dict[str, str] | None = None) -> str:
    return _run(sys.executable, "-m", "python_helpers", *args, env=env)


def dbt_show(query: str) -> list[dict[str, Any]]:
    """The rows of ``query`` (a select, Jinja allowed) on the shared runs'
    warehouse, every row: `dbt show --inline`."""
    shown = _helpers(
        "dbt",
        "show",
        "--inline",
        query,
        "--limit",
        "-1",
        "--output",
        "json",
        "--quiet",
        *FULL_TESTS,  # the runs' vars: dbt reads the project from its partial parse
    )
    rows: list[dict[str, Any]] = json.loads(shown[shown.index("{") :])["show"]
    return rows


# a query of names and values written as Spark variables (issue 53)
SUBSTITUTION_QUERY = (
    "select '${env:HOME}' as `${spark.app.name}`, '${system:user.name}' as plain_value"
)


def killed_run(when: str, *args: str) -> list[str]:
    """Start ``python -m python_helpers <args>`` and SIGKILL it, with its
    Spark JVM (the whole process group), as soon as a line of its output
    matches ``when``: a crash at that point. Returns the output lines up to
    the kill; fails if the process ends before the line comes."""
    command = [sys.executable, "-m", "python_helpers", *args]
    process = subprocess.Popen(
        command,
        cwd=PROJECT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        seen.append(line.rstrip("\n"))
        if re.search(when, line):
            os.killpg(process.pid, signal.SIGKILL)
            break
    process.wait()
    _wait_for_group_to_die(process.pid)
    if not seen or not re.search(when, seen[-1]):
        raise AssertionError(f"{' '.join(command)} ended before /{when}/:\n" + "\n".join(seen))
    return seen


def crashed_run(point: str, *args: str) -> list[str]:
    """Run ``python -m python_helpers <args>`` with the test hook that makes
    it SIGKILL itself at ``point`` (python_helpers.land.crash_points); fails
    unless it died so. Returns its output lines."""
    from python_helpers.land.crash_points import CRASH_AT

    command = [sys.executable, "-m", "python_helpers", *args]
    process = subprocess.Popen(
        command,
        cwd=PROJECT,
        env=_env() | {CRASH_AT: point},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output, _ = process.communicate()
    _wait_for_group_to_die(process.pid)
    if process.returncode != -signal.SIGKILL:
        raise AssertionError(f"{' '.join(command)} did not die at {point}:\n{output}")
    return output.splitlines()


def _wait_for_group_to_die(group: int) -> None:
    """The JVM of a killed group may outlive its parent for a moment: wait
    until none of the group is left (the metastore is theirs until then)."""
    for _ in range(600):
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise AssertionError(f"process group {group} still alive a minute after SIGKILL")


def _export(tables: list[str] = ALL_TABLES) -> dict[str, Any]:
    return _exported(json.loads(_helpers("export", *tables).splitlines()[-1]))


def _run_and_export(
    landing: Path,
    scratch: Path,
    *dbt_args: str,
    options: tuple[str, ...] = (),
    logs: Path | None = None,
) -> tuple[dict[str, Any], str]:
    """`python -m python_helpers run` with ALL_TABLES exported by the same
    process after dbt (one Spark start-up less than a separate export);
    also its output. ``logs``: dbt's log folder for this run."""
    out = scratch / "export.json"
    output = _helpers(
        "run",
        "--landing",
        str(landing),
        *options,
        *export_options(out, ALL_TABLES),
        "--",
        *dbt_args,
        env={"DBT_LOG_PATH": str(logs)} if logs else None,
    )
    return _exported(json.loads(out.read_text(encoding="utf-8"))), output


def _exported(loaded: dict[str, Any]) -> dict[str, Any]:
    return {
        table: {
            "types": data["types"],
            "rows": [json.loads(r, parse_float=Decimal) for r in data["rows"]],
        }
        for table, data in loaded.items()
    }


# the first lines of these files land in the first build, the rest in the
# second: a newer position must survive an older event merged after it, a
# BEGIN must meet its END, a snapshot's end its start
FIRST_RUN_LINES = {
    SQLSERVER_FILE: 9,
    **{path: 4 for path in OPTION_FILES.values()},
    CDL_V1_FILE: 3,
    TRANSACTIONS_FILE: 1,
    # the first half of a re-snapshot: complete only in the second build
    **{path: 9 for path in STOCK_FILES.values()},
    # every notification: the second incremental snapshot's scan is
    # reported complete before its reads land (second build)
    **{path: 8 for path in STOCK_NOTIFICATIONS.values()},
    STOCK_FILTERED_FILE: 4,
    # a delete (tombstone) in the second build of a key the first created
    **{FLATTENED_FILES[topic]: lines for topic, lines in flattened_smt.FIRST_LINES.items()},
    **{
        bank_file(topic): BANK_FIRST_LINES[topic.rsplit(".", 1)[-1]]
        for prefix, topics in BANK_TOPICS.values()
        for topic in [f"{prefix}.transaction", *topics]
    },
}


def first_run_offsets(path: Path) -> range | set[int]:
    """The Kafka offsets of ``path`` landed by the first build."""
    if path not in FIRST_RUN_LINES:
        return range(0)
    lines = path.read_text(encoding="utf-8").splitlines()[: FIRST_RUN_LINES[path]]
    return {int(json.loads(line)["offset"]) for line in lines}


def _partial_landing(root: Path) -> Path:
    """The first 9 product events (the snapshot), 5 order records, the
    first 100 lines of CH-benCHmark's customer topic and the *last* 120 of
    its neworder topic, and the first lines of a SQL Server, a MySQL, a CDL, a
    transaction and three MongoDB topics."""
    landing = root / "partial"
    parts = [(PRODUCTS_FILE, 9), (ORDERS_FILE, 5), (DOCS_FILE, 2), (COUPONS_FILE, 4)]
    # coupon 9's create: its TOASTed update (second build) keeps the stored code
    parts.append((COUPONS_TOAST_FILE, 1))
    parts += [(path, lines) for path, lines in FIRST_RUN_LINES.items()]
    for topic, lines in MONGO_FIRST_LINES.items():
        parts.append((SAMPLE_LANDING / topic / str(MONGO_TOPICS[topic]), lines))
    parts.append((SAMPLE_LANDING / "postgres.tpcch.customer" / "customer.jsonl", 100))
    for source, lines in parts:
        target = landing / source.parent.name / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        kept = source.read_text(encoding="utf-8").splitlines()[:lines]
        target.write_text("\n".join(kept) + "\n", encoding="utf-8")
    newer_half_first(landing)
    return landing


def newer_half_first(landing: Path) -> Path:
    """The newer part of the neworder topic (from line NEWER_HALF_FROM: new
    orders, then deliveries, i.e. deletes) as a kcat dump with the offsets
    the whole plain file gives those lines. The second build lands the
    whole file: the newer part is recognised as landed already, so only
    the older creates are new, 45 of them of keys already deleted — issue
    9's report: a late event must not bring a deleted key back."""
    source = SAMPLE_LANDING / "postgres.tpcch.neworder" / "neworder.jsonl"
    target = landing / source.parent.name / NEWER_HALF_FILE
    lines = source.read_text(encoding="utf-8").splitlines()
    records = [
        {
            "topic": source.parent.name,
            "partition": 0,
            "offset": offset,
            "key": None,
            "payload": lines[offset] if lines[offset].strip() else None,
        }
        for offset in range(NEWER_HALF_FROM, len(lines))
    ]
    prop.write_records(target, records)
    return target


def property_records(count: int, seed: int) -> prop.Delivery:
    """The generated histories of the property tests, as Kafka records."""
    drawn = prop.table_wide_first(prop.draw_histories(count, seed))
    events = [prop.simulate(prop.GENERATED_FROM + i, steps) for i, steps in enumerate(drawn)]
    return prop.deliver(events, seed, first_offset=prop.GENERATED_OFFSETS)


def property_transactions(count: int, seed: int) -> tuple[dict[str, str], dict[str, str]]:
    """The generated transactions of the consistent views' property tests:
    per topic, the kcat lines of the first landing and of the rest."""
    records = proptx.simulate(
        proptx.draw(count, seed), first_index=proptx.GENERATED_FROM, open_last=True
    )
    return proptx.kcat_lines(records, seed, first_offset=proptx.GENERATED_OFFSETS)


def _write_lines(landing: Path, name: str, lines: dict[str, str]) -> None:
    for topic, text in lines.items():
        (landing / topic).mkdir(parents=True, exist_ok=True)
        (landing / topic / name).write_text(text, encoding="utf-8")


def _full_landing(
    root: Path, delivery: prop.Delivery, transactions: tuple[dict[str, str], dict[str, str]]
) -> Path:
    """The sample landing (topic folders linked) plus the generated records
    of the property-test topics."""
    landing = root / "full"
    landing.mkdir()
    generated = {prop.TOPIC, prop.NOTIFICATIONS_TOPIC, *transactions[0]}
    for topic in sorted(p for p in SAMPLE_LANDING.iterdir() if p.is_dir()):
        if topic.name in generated:
            shutil.copytree(topic, landing / topic.name)
        else:
            link_topic(topic, landing / topic.name)
    prop.write_records(landing / prop.TOPIC / "generated-first-kcat.jsonl", delivery.first)
    prop.write_records(landing / prop.TOPIC / "generated-rest-kcat.jsonl", delivery.rest)
    notices = landing / prop.NOTIFICATIONS_TOPIC
    prop.write_records(notices / "generated-first-kcat.jsonl", delivery.notices_first)
    prop.write_records(notices / "generated-rest-kcat.jsonl", delivery.notices_rest)
    _write_lines(landing, "generated-first-kcat.jsonl", transactions[0])
    _write_lines(landing, "generated-rest-kcat.jsonl", transactions[1])
    return landing


# the topics the crashed attempts of the second build land (and dbt builds,
# narrowed to them): the second build lands the other topics after them
CRASH_TOPICS = (
    PRODUCTS_TOPIC,
    ORDERS_TOPIC,
    "postgres.tpcch.neworder",
    "shop.public.coupons",
    prop.TOPIC,
)


def link_topic(source: Path, target: Path) -> None:
    """A topic folder put in another landing without copying its bytes:
    its files hard-linked (a symbolic link out of a landing is refused)."""
    shutil.copytree(source, target, copy_function=os.link)


def _crash_landing(root: Path, full: Path) -> Path:
    """The full landing's CRASH_TOPICS alone (linked): what the crashed
    attempts land; the crash points are reached as soon on it, at a
    fraction of the work."""
    landing = root / "crashing"
    landing.mkdir()
    for topic in CRASH_TOPICS:
        link_topic(full / topic, landing / topic)
    return landing


class BackgroundRuns:
    """`build_runs` on a thread, started at once: its work is done by dbt
    and Spark in other processes, so the tests that do not need it run
    meanwhile (the random histories too: they are drawn in a subprocess).
    With ``docs``, the thread then starts `make docs` on the runs'
    warehouse (docs_server): the site is generated while the other tests
    still run, and served until ``stop``. Then it runs ``then`` (the
    modules' builds no test has reached yet)."""

    def __init__(
        self, scratch: Path, docs: bool = False, then: Callable[[], None] = lambda: None
    ) -> None:
        self._then = then  # what the thread does once the runs (and site) are built
        self._result: dict[str, Any] | None = None
        self._error: BaseException | None = None
        self.docs: DocsServer | BaseException | None = None
        self.started = time.monotonic()
        self.seconds: float | None = None  # how long building them took
        self.steps: dict[str, float] = {}  # and each of its steps
        self._done = threading.Event()
        self._thread = threading.Thread(
            target=self._build, args=(scratch, docs), name="shared-runs", daemon=True
        )
        self._thread.start()

    def _build(self, scratch: Path, docs: bool) -> None:
        try:
            delivery = property_records(PROPERTY_EXAMPLES, PROPERTY_SEED)
            self._result = build_runs(scratch, delivery)
            self.steps = self._result["seconds"]
        except BaseException as error:  # re-raised in every test that needs the runs
            self._error = error
        finally:
            self.seconds = time.monotonic() - self.started
        if docs and self._error is None and not THRIFT:
            started = time.monotonic()
            try:
                self.docs = DocsServer(STATE)
            except BaseException as error:  # re-raised by the docs-site tests
                self.docs = error
            self.steps["docs site"] = time.monotonic() - started
        self._done.set()
        # then the modules' builds no test has reached yet (tests/support/
        # backlog.py): the other thread would otherwise run them alone
        self._then()

    def ready(self) -> bool:
        """Whether the runs (and the docs site) are built."""
        return self._done.is_set()

    def result(self) -> dict[str, Any]:
        """The runs, once built (waits); raises what building them raised."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def docs_url(self) -> str:
        """Where the docs site of the runs' warehouse is served (waits)."""
        self.result()
        if isinstance(self.docs, BaseException):
            raise self.docs
        assert self.docs is not None, "the runs were started without their docs site"
        return self.docs.url

    def stop(self) -> None:
        """Stop the docs server, if the thread started one."""
        self._thread.join()
        if isinstance(self.docs, DocsServer):
            self.docs.stop()


def build_runs(scratch: Path, delivery: prop.Delivery) -> dict[str, Any]:
    """Run the three invocations (the second one killed twice on the way)
    and export every table after each; with THRIFT, on a Thrift server
    started on the state folder for them."""
    shutil.rmtree(STATE, ignore_errors=True)
    _helpers("jars")
    if not THRIFT:
        return _build_runs(scratch, delivery)
    from python_helpers.engine import thrift

    server = thrift.Server(STATE, thrift.cluster_port(PROJECT))
    thrift.start(PROJECT, server)
    try:
        return _build_runs(scratch, delivery)
    finally:
        thrift.stop(server)


@contextmanager
def _timed(seconds: dict[str, float], step: str) -> Iterator[None]:
    """Note in ``seconds`` how long the block took, as ``step``."""
    started = time.monotonic()
    yield
    seconds[step] = time.monotonic() - started


def _build_runs(scratch: Path, delivery: prop.Delivery) -> dict[str, Any]:
    partial = _partial_landing(scratch)
    prop.write_records(partial / prop.TOPIC / "generated-first-kcat.jsonl", delivery.first)
    prop.write_records(
        partial / prop.NOTIFICATIONS_TOPIC / "generated-first-kcat.jsonl", delivery.notices_first
    )
    transactions = property_transactions(PROPTX_HISTORIES, PROPERTY_SEED)
    _write_lines(partial, "generated-first-kcat.jsonl", transactions[0])
    # --all: every topic, those the partial landing has no record for too
    # (a run leaves them out; here their empty tables are part of the check)
    seconds: dict[str, float] = {}  # each step's, printed at the suite's end
    with _timed(seconds, "first build"):
        first, _ = _run_and_export(partial, scratch, *FIRST_BUILD, options=("--all",))
    full = _full_landing(scratch, delivery, transactions)
    crashing = _crash_landing(scratch, full)
    second_build = ("run", "--landing", str(crashing), "--", "build", *FULL_TESTS)
    # crash test: the second build dies right after a topic's raw append
    # commits (before its manifest rows: issue 21), is killed while landing
    # and again while dbt merges, before it runs to the end (issue 9); the
    # attempts land CRASH_TOPICS, the build that completes all of them
    # (not on a server: it goes on with a killed client's statement)
    with _timed(seconds, "three crashed runs"):
        crashes = (
            {
                "raw_append": crashed_run(AFTER_RAW_APPEND, *second_build),
                "landing": killed_run(LANDING_KILL, *second_build),
                "dbt": killed_run(DBT_KILL, *second_build),
            }
            if not THRIFT
            else {}
        )
    # its dbt log: the statements each model sent (issue 54)
    second_logs = scratch / "second-logs"
    with _timed(seconds, "second build"):
        second, _ = _run_and_export(full, scratch, "build", *FULL_TESTS, logs=second_logs)
    statements = statements_per_node(
        (second_logs / "dbt.log").read_text(encoding="utf-8").splitlines()
    )
    # nothing new to land: dbt re-runs the models of RERUN_TOPICS anyway
    # (and must change nothing); `--show` prints the current-state tables
    third_logs = scratch / "third-logs"
    with _timed(seconds, "third run"):
        # with the second build's vars: dbt reads the project from its
        # partial parse (other vars make it parse every file again)
        third, shown = _run_and_export(
            full, scratch, "run", *RERUN, *FULL_TESTS, options=("--show",), logs=third_logs
        )
    third_statements = statements_per_node(
        (third_logs / "dbt.log").read_text(encoding="utf-8").splitlines()
    )
    sample = json_lines(SAMPLE_LANDING / prop.TOPIC / prop.SAMPLE_FILE)
    # the landing each record came in: re-sent copies keep the first landed
    first_landed = [r | {"_batch": 1} for r in delivery.first]
    landed = {
        "first": first_landed,
        "second": first_landed + [r | {"_batch": 2} for r in sample + delivery.rest],
    }
    landed["third"] = landed["second"]
    sample_notices = json_lines(
        SAMPLE_LANDING / prop.NOTIFICATIONS_TOPIC / prop.SAMPLE_NOTIFICATIONS_FILE
    )
    notices = {
        "first": delivery.notices_first,
        "second": delivery.notices_first + sample_notices + delivery.notices_rest,
    }
    notices["third"] = notices["second"]
    samples = {
        topic: (SAMPLE_LANDING / topic / proptx.SAMPLE_FILE).read_text(encoding="utf-8")
        for topic in transactions[0]
    }
    transaction_lines = {
        "first": transactions[0],
        "second": {t: samples[t] + transactions[0][t] + transactions[1][t] for t in samples},
    }
    transaction_lines["third"] = transaction_lines["second"]
    # on the runs' target (a Thrift server is up only now): text that
    # Spark's variable substitution would replace, as a name and as values
    substitution = dbt_show(SUBSTITUTION_QUERY)
    return {
        "substitution": substitution,
        "first": first,
        "second": second,
        "second_statements": statements,
        "third_statements": third_statements,
        "third": third,
        "property_records": landed,
        "property_notices": notices,
        "transaction_lines": transaction_lines,
        "crashes": crashes,
        "shown": shown,
        "seconds": seconds,
    }


def json_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
