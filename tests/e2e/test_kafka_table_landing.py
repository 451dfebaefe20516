"""Topics landed from a table in the Spark Kafka source's schema (issue 56).

In a project made by `init`, three sample topics — SQL Server customers
(kcat records with keys), MySQL customers (plain-form values, no key) and
PostgreSQL orders — are declared with `landing: {table: kafka.events}` and
written into that one table as Spark's Kafka source would land them
(tests/support/kafka_table.py). No landing folder holds them. A `run`
lands the table's rows, learns their schemas from them, generates the
models and builds them; the current states equal the plain-Python
reference of the same sample files. Then the rest of each topic is
appended to the table, with a record already landed (same partition and
offset) and a value that is not UTF-8: the next `run` lands only the new
offsets, drops the repeat into the ledger of duplicates, quarantines the
bad value with its reason, and the current states equal the reference of
every record. Both runs evaluate expressions as Spark does by default
(compiled), not as the rest of the suite (interpreted: tests/conftest.py).
"""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path
from typing import Any

import kafka_table
import pytest
from backlog import Backlog
from project_paths import PROJECT, SAMPLE_LANDING
from project_runs import USER_SPARK, export_options, free_port, run_in
from reference_model import current_state, events

from python_helpers.engine import thrift
from python_helpers.project.init_project import fresh_project

pytestmark = pytest.mark.spark

CLUSTER = os.environ.get("CDC_DBT_TARGET") == "cluster"
TABLE = "kafka.events"
# topic -> (its sample file, key column, compared columns, current table)
TOPICS = {
    "server1.testDB.dbo.customers": (
        "sqlserver-docs-customers-kcat.jsonl",
        "id",
        ("first_name", "last_name", "email"),
        "cdc_current.sqlserver__server1_testdb_dbo_customers",
    ),
    "dbserver1.inventory.customers": (
        "rw-mysql-customers-schema.jsonl",
        "id",
        ("first_name", "last_name", "email"),
        "cdc_current.mysql__dbserver1_inventory_customers",
    ),
    "shop.public.orders": (
        "orders-kcat.jsonl",
        "order_id",
        ("status", "coupon"),
        "cdc_current.postgres__shop_public_orders",
    ),
}
QUARANTINE = "cdc_staging.stg_postgres__shop_public_orders__quarantine"
RAW_TOPIC = "server1.testDB.dbo.customers"
RAW = "cdc_landing.server1_testdb_dbo_customers"
LEDGER = "cdc_landing._landing_duplicates"
BAD_OFFSET = 1000
GHOST, MISSING = "ghost.public.items", "kafka.not_written_yet"


def _declare(project: Path) -> None:
    """Each topic's declaration: the sample's settings that matter here
    and its landing."""
    settings = {"dbserver1.inventory.customers": "primary_key: id\n"}
    for topic in TOPICS:
        text = settings.get(topic, "") + f"landing: {{table: {TABLE}, topic: {topic}}}\n"
        (project / "topics" / f"{topic}.yml").write_text(text, encoding="utf-8")
    # a topic whose table does not exist (yet): the others land all the same
    (project / "topics" / f"{GHOST}.yml").write_text(f"landing: {{table: {MISSING}}}\n")


def _rows(topic: str) -> list[dict[str, Any]]:
    return kafka_table.kafka_rows(topic, SAMPLE_LANDING / topic / TOPICS[topic][0])


def _expected(topic: str, count: int | None) -> dict[Any, dict[str, Any]]:
    """The reference current state of the topic's first ``count`` records."""
    file, key, columns, _ = TOPICS[topic]
    offsets = {row["offset"] for row in _rows(topic)[:count]}
    changes = [e for e in events(SAMPLE_LANDING / topic / file) if e["_offset"] in offsets]
    state = current_state(changes, key)
    return {k: {c: row.get(c) for c in columns} for k, row in state.items()}


def _current(exported: dict[str, Any], topic: str) -> dict[Any, dict[str, Any]]:
    _, key, columns, table = TOPICS[topic]
    rows = [json.loads(row) for row in exported[table]["rows"]]
    return {row[key]: {c: row.get(c) for c in columns} for row in rows}


def _landed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("kafka-table")
    project = fresh_project(PROJECT, root / "project")
    state = project / ".state"
    landing = root / "landing"
    landing.mkdir()
    _declare(project)
    helpers = [sys.executable, "-m", "python_helpers"]
    run_in(project, state, *helpers, "jars")
    # the cluster lanes: a Thrift server of its own on the project's state
    # (every statement, the table's writes too, goes through it)
    port = free_port() if CLUSTER else None
    server = thrift.Server(state, port) if port is not None else None
    if server is not None:
        thrift.start(project, server)
    try:
        return _runs(project, state, root, landing, port)
    finally:
        if server is not None:
            thrift.stop(server)


# built on whichever of the suite's threads gets to it first (tests/support/backlog.py)
BACKGROUND_BUILD = _landed
# what it took in the suite (2026-11-29): the backlog runs the longest first
BUILD_SECONDS = 143


@pytest.fixture(scope="module")
def landed(backlog: Backlog) -> dict[str, Any]:
    return backlog.result(__name__)  # type: ignore[no-any-return]


def _runs(
    project: Path, state: Path, root: Path, landing: Path, port: int | None
) -> dict[str, Any]:
    """Two runs, each after writing rows into the Kafka table."""
    helpers = [sys.executable, "-m", "python_helpers"]
    halves = {topic: len(_rows(topic)) // 2 for topic in TOPICS}
    first = [row for topic in TOPICS for row in _rows(topic)[: halves[topic]]]
    kafka_table.write(project, state, TABLE, first, port)
    tables = [t for _, _, _, t in TOPICS.values()] + [QUARANTINE, RAW, LEDGER]
    out: dict[str, Any] = {"halves": halves}
    out["first_run"] = run_in(
        project, state, *helpers, "run", "--landing", str(landing),
        *export_options(root / "first.json", tables), "--", "build", port=port,
        extra_env=USER_SPARK,
    )  # fmt: skip
    out["first"] = json.loads((root / "first.json").read_text(encoding="utf-8"))
    rest = [row for topic in TOPICS for row in _rows(topic)[halves[topic] :]]
    old = _rows(RAW_TOPIC)[0]  # landed by the first run: below the landed offsets
    repeated = _rows(RAW_TOPIC)[-1]  # a new record the table holds twice
    bad = dict(_rows("shop.public.orders")[-1], offset=BAD_OFFSET)
    bad["value"] = base64.b64encode(b'{"payload": "\xff\xfe not UTF-8"}').decode()
    kafka_table.write(project, state, TABLE, [*rest, old, repeated, bad], port)
    out["second_run"] = run_in(
        project, state, *helpers, "run", "--landing", str(landing),
        *export_options(root / "second.json", tables), "--", "build", port=port,
        extra_env=USER_SPARK,
    )  # fmt: skip
    out["second"] = json.loads((root / "second.json").read_text(encoding="utf-8"))
    return out


def test_the_first_run_lands_and_models_the_tables_topics(landed: dict[str, Any]) -> None:
    """... and names the topic whose table it could not read."""
    assert f"warning: not landing {GHOST}: table {MISSING} not read: " in landed["first_run"]
    for topic in TOPICS:
        assert _current(landed["first"], topic) == _expected(topic, landed["halves"][topic]), topic


def test_the_next_run_lands_only_the_new_offsets(landed: dict[str, Any]) -> None:
    for topic in TOPICS:
        assert _current(landed["second"], topic) == _expected(topic, None), topic
    raw = [json.loads(row) for row in landed["second"][RAW]["rows"]]
    offsets = [row["kafka_offset"] for row in raw]
    assert sorted(offsets) == sorted({row["offset"] for row in _rows(RAW_TOPIC)})
    assert {row["landing_file"] for row in raw} == {f"{TABLE}#0"}
    assert all(row["landing_line"] == row["kafka_offset"] for row in raw)


def test_a_record_the_table_holds_twice_goes_to_the_ledger(landed: dict[str, Any]) -> None:
    """A new record written twice lands once (the other copy in the ledger);
    a record of an offset landed before is not read again at all."""
    ledger = [json.loads(row) for row in landed["second"][LEDGER]["rows"]]
    twice = _rows(RAW_TOPIC)[-1]["offset"]
    assert [
        (row["raw_table"], row["landing_file"], row["kafka_offset"], row["reason"])
        for row in ledger
    ] == [(RAW.split(".")[1], f"{TABLE}#0 (copy 2)", twice, "repeated in the batch")]


def test_a_value_that_is_not_utf8_is_quarantined_with_its_reason(landed: dict[str, Any]) -> None:
    quarantined = [json.loads(row) for row in landed["second"][QUARANTINE]["rows"]]
    bad = [row for row in quarantined if row["_kafka_offset"] == BAD_OFFSET]
    assert [(row["_quarantine_reason"], row["_quarantine_detail"]) for row in bad] == [
        ("not_utf8", "bytes that are not UTF-8 in the value: kept as landed")
    ]
    earlier = [json.loads(row) for row in landed["first"][QUARANTINE]["rows"]]
    assert not any(row["_kafka_offset"] == BAD_OFFSET for row in earlier)
