"""A topic whose schema evolves after the first build keeps building.

On a copy of the project (sync rewrites generated files): version 1 of
`evo.public.items` is synced, landed and built; then events of version 2
land — a new optional column, an int32 widened to int64, a decimal with a
larger precision, a required column made optional — and sync + build run
again, and once more. Older rows read null in the new column; every value
keeps its type and digits.

Drift that sync has not seen is detected, never staged as nulls: between
the second and third build, events of a version 3 (one more column) and of
a version 4 (the price's scale grows to 3) land and dbt runs without a sync;
they are quarantined as `schema_not_covered` (naming the command to run),
and a value whose JSON contradicts its own known schema block as
`schema_contradiction` naming the column (sync cannot help it). The next
`run` (sync, then an ordinary build: no full refresh) replays the version 3
event from quarantine into the tables; the version 4 event changes a
column's type in a way the table cannot take in place, and is quarantined
as `incompatible_schema_change` (the default policy).
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import kcat
import pytest
from backlog import Backlog
from kcat import field
from project_paths import PROJECT
from project_runs import export_options, run_in
from reference_model import decimal_base64

from python_helpers.project.init_project import fresh_project

pytestmark = pytest.mark.spark

TOPIC = "evo.public.items"
CURRENT = "cdc_current.postgres__evo_public_items"
BASE = "cdc_staging.base_postgres__evo_public_items"


def _decimal(precision: int, scale: int = 2) -> dict[str, Any]:
    return {
        "type": "bytes",
        "optional": True,
        "name": "org.apache.kafka.connect.data.Decimal",
        "version": 1,
        "parameters": {"scale": str(scale), "connect.decimal.precision": str(precision)},
    }


def _row(version: int) -> dict[str, Any]:
    if version == 3:  # one more column
        row = _row(2)
        return row | {
            "fields": [*row["fields"], {"type": "int32", "optional": True, "field": "size"}]
        }
    if version == 4:  # the price's scale grows to 3
        row = _row(3)
        fields = [
            f if f["field"] != "price" else {**_decimal(9, 3), "field": "price"}
            for f in row["fields"]
        ]
        return row | {"fields": fields}
    fields = [
        {"type": "int32", "optional": False, "field": "item_id"},
        {"type": "int32" if version == 1 else "int64", "optional": version == 2, "field": "qty"},
        {**_decimal(6 if version == 1 else 8), "field": "price"},
    ]
    if version == 2:
        fields.append({"type": "string", "optional": True, "field": "color"})
    return {"type": "struct", "optional": True, "fields": fields, "name": f"{TOPIC}.Value"}


def _value(version: int, op: str, lsn: int, after: dict[str, Any]) -> str:
    source = {"connector": "postgresql", "schema": "public", "table": "items", "lsn": lsn}
    source_schema = {
        "type": "struct",
        "optional": False,
        "field": "source",
        "fields": [
            {"type": "string", "optional": False, "field": "connector"},
            {"type": "string", "optional": False, "field": "schema"},
            {"type": "string", "optional": False, "field": "table"},
            {"type": "int64", "optional": True, "field": "lsn"},
        ],
    }
    schema = {
        "type": "struct",
        "optional": False,
        "fields": [
            {**_row(version), "field": "before"},
            {**_row(version), "field": "after"},
            source_schema,
            {"type": "string", "optional": False, "field": "op"},
        ],
    }
    payload = {"before": None, "after": after, "source": source, "op": op}
    return json.dumps({"schema": schema, "payload": payload})


def _kcat(offset: int, value: str, item_id: int) -> str:
    key_schema = {"type": "struct", "optional": False, "fields": [field("int32", "item_id")]}
    key = json.dumps({"schema": key_schema, "payload": {"item_id": item_id}})
    return json.dumps(kcat.record(TOPIC, 0, offset, 0, key, value, tstype=False, broker=False))


V1 = [
    (1, "r", {"item_id": 1, "qty": 5, "price": "1.50"}),
    (2, "r", {"item_id": 2, "qty": 7, "price": "9999.99"}),
    (3, "c", {"item_id": 3, "qty": 1, "price": "-0.25"}),
]
V2 = [
    (1, "u", {"item_id": 1, "qty": 1 << 40, "price": "123456.78", "color": "red"}),
    (4, "c", {"item_id": 4, "qty": None, "price": "0.01", "color": None}),
]
V3 = [(5, "c", {"item_id": 5, "qty": 2, "price": "3.12", "color": "blue", "size": 42})]
V4 = [(7, "c", {"item_id": 7, "qty": 2, "price": "3.125", "color": "blue", "size": 43})]
# a known (version 2) schema, but qty holds text: it contradicts its own block
MISMATCH = [(6, "c", {"item_id": 6, "qty": "lots", "price": "1.00", "color": None})]


def _lines(events: list[tuple[int, str, dict[str, Any]]], version: int, first: int) -> str:
    lines = []
    scale = 3 if version == 4 else 2
    for number, (item_id, op, row) in enumerate(events, start=first):
        after = row | {"price": decimal_base64(Decimal(row["price"]), scale)}
        lines.append(_kcat(number, _value(version, op, 1000 + number, after), item_id))
    return "\n".join(lines) + "\n"


def _evolve(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("evolution")
    project = fresh_project(PROJECT, PROJECT / ".state" / "pytest-evolution" / "project")
    state = project / ".state"
    landing = root / "landing" / TOPIC
    landing.mkdir(parents=True)
    (landing / "a-v1.jsonl").write_text(_lines(V1, 1, 0), encoding="utf-8")
    helpers = [sys.executable, "-m", "python_helpers"]
    dbt = str(Path(sys.executable).parent / "dbt")
    run_in(project, state, *helpers, "jars")
    # sync + land + build in one process (`run`): one Spark start-up each
    run = [*helpers, "run", "--landing", str(root / "landing"), "--"]
    for _ in range(2):
        run_in(project, state, *run, "build", "--vars", "{cdc_test_scope: all}")
        (landing / "b-v2.jsonl").write_text(_lines(V2, 2, len(V1)), encoding="utf-8")
    drifted = (
        _lines(V3, 3, len(V1) + len(V2))
        + _lines(MISMATCH, 2, len(V1) + len(V2) + 1)
        + _lines(V4, 4, len(V1) + len(V2) + 2)
    )
    (landing / "c-v3.jsonl").write_text(drifted, encoding="utf-8")
    run_in(project, state, *helpers, "land", "--landing", str(root / "landing"))
    run_in(project, state, dbt, "run", "--select", BASE.split(".")[1])  # no sync
    before_sync = _export(project, state, BASE)
    out = root / "export.json"
    exports = export_options(out, (CURRENT, BASE))
    # sync, then an ordinary build: the quarantined version 3 event is replayed
    replayed = run_in(project, state, *run[:-1], *exports, "--", "build")
    replayed_tables = _tables(out.read_text(encoding="utf-8"))
    # topic.yml now says how to evolve: the next run rebuilds the topic's
    # models by itself and stages the version 4 event (price: scale 3)
    (landing / "topic.yml").write_text("schema_changes: widen\n", encoding="utf-8")
    widened = run_in(project, state, *run[:-1], *exports, "--", "build")
    return {
        "build": replayed,  # a later run keeps working
        "replayed": replayed,
        "widened_output": widened,
        "drift": before_sync[BASE],
        "widened": _tables(out.read_text(encoding="utf-8")),
    } | replayed_tables


# built on whichever of the suite's threads gets to it first (tests/support/backlog.py)
BACKGROUND_BUILD = _evolve
# what it took in the suite (2026-11-29): the backlog runs the longest first
BUILD_SECONDS = 176


@pytest.fixture(scope="module")
def evolved(backlog: Backlog) -> dict[str, Any]:
    return backlog.result(__name__)  # type: ignore[no-any-return]


def _export(project: Path, state: Path, *tables: str) -> dict[str, Any]:
    exported = run_in(project, state, sys.executable, "-m", "python_helpers", "export", *tables)
    return _tables(exported.splitlines()[-1])


def _tables(exported: str) -> dict[str, Any]:
    loaded = json.loads(exported)
    return {
        table: {"types": data["types"], "rows": [json.loads(r) for r in data["rows"]]}
        for table, data in loaded.items()
    }


def test_new_and_widened_columns_reach_the_tables(evolved: dict[str, Any]) -> None:
    for table in (CURRENT, BASE):
        types = evolved[table]["types"]
        assert (types["qty"], types["price"], types["color"], types["size"]) == (
            "bigint",
            "decimal(8,2)",
            "string",
            "int",
        ), table


def test_current_state_after_the_evolution(evolved: dict[str, Any]) -> None:
    rows = {r["item_id"]: r for r in evolved[CURRENT]["rows"]}
    assert sorted(rows) == [1, 2, 3, 4, 5]  # 5: the drifted event, replayed after sync
    assert (rows[1]["qty"], Decimal(str(rows[1]["price"])), rows[1]["color"]) == (
        1 << 40,
        Decimal("123456.78"),
        "red",
    )
    assert (rows[2]["qty"], Decimal(str(rows[2]["price"])), rows[2]["color"]) == (
        7,
        Decimal("9999.99"),
        None,
    )
    assert Decimal(str(rows[3]["price"])) == Decimal("-0.25")
    assert rows[4]["qty"] is None


def test_older_rows_read_null_in_the_new_column(evolved: dict[str, Any]) -> None:
    base = evolved[BASE]["rows"]
    assert len(base) == len(V1) + len(V2) + len(V3) + len(MISMATCH) + len(V4)
    old = [r for r in base if r["_kafka_offset"] < len(V1)]
    assert old and all(r["color"] is None for r in old)
    assert "PASS=" in evolved["build"] and "ERROR=0" in evolved["build"]


def test_drift_sync_has_not_seen_is_quarantined_not_nulled(evolved: dict[str, Any]) -> None:
    by_offset = {r["_kafka_offset"]: r for r in evolved["drift"]["rows"]}
    drifted_at = len(V1) + len(V2)
    rows = {5: by_offset[drifted_at], 6: by_offset[drifted_at + 1], 7: by_offset[drifted_at + 2]}
    assert rows[5]["_quarantine_reason"] == rows[7]["_quarantine_reason"] == "schema_not_covered"
    assert "python -m python_helpers sync" in rows[5]["_quarantine_detail"]
    assert rows[5]["_quarantine_detail"].endswith(
        "the next run (`make run`, or sync then dbt build) stages it"
    )
    assert rows[5]["_kafka_value"] is not None  # the record as landed, nothing lost
    assert rows[6]["_quarantine_reason"] == "schema_contradiction"
    assert rows[6]["_quarantine_detail"].startswith(
        "column qty contradicts the type its own schema block (md5 "
    )
    earlier = [r for offset, r in by_offset.items() if offset < drifted_at]
    assert earlier and all(r["_quarantine_reason"] is None for r in earlier)


def test_after_sync_the_drifted_event_is_replayed_without_a_full_refresh(
    evolved: dict[str, Any],
) -> None:
    """Issue 21: a record quarantined as schema_not_covered is staged by the
    next run once sync knows its version, merged like any late event; the
    base model keeps one row per landed record."""
    assert "--full-refresh" not in evolved["replayed"] and "ERROR=0" in evolved["replayed"]
    base = {r["_kafka_offset"]: r for r in evolved[BASE]["rows"]}
    assert len(base) == len(evolved[BASE]["rows"])  # the quarantine row was replaced
    drifted = base[len(V1) + len(V2)]
    assert (drifted["_quarantine_reason"], drifted["size"]) == (None, 42)
    current = {r["item_id"]: r for r in evolved[CURRENT]["rows"]}
    assert current[5]["size"] == 42 and current[1]["size"] is None
    assert evolved[CURRENT]["types"]["price"] == "decimal(8,2)"
    prices = {k: Decimal(str(r["price"])) for k, r in current.items()}
    assert prices == {
        1: Decimal("123456.78"),
        2: Decimal("9999.99"),
        3: Decimal("-0.25"),
        4: Decimal("0.01"),
        5: Decimal("3.12"),
    }
    mismatch = base[len(V1) + len(V2) + 1]
    assert mismatch["_quarantine_reason"] == "schema_contradiction"  # still: its JSON is wrong
    assert 6 not in current
    # a larger scale cannot be applied in place: kept out, the table keeps its type
    scaled = base[len(V1) + len(V2) + 2]
    assert scaled["_quarantine_reason"] == "incompatible_schema_change"
    assert "column price: the table has bytes (Decimal, scale 2)" in scaled["_quarantine_detail"]
    assert "declares bytes (Decimal, scale 3)" in scaled["_quarantine_detail"]
    assert 7 not in current


def test_once_topic_yml_says_widen_the_next_run_rebuilds_and_stages_it(
    evolved: dict[str, Any],
) -> None:
    """Issue 21: the records of the version the table could not take are
    staged by the next run once the topic's declaration says how to evolve
    (`schema_changes: widen`): `run` rebuilds the topic's models from the raw
    landing by itself (the column's type changes, which Iceberg cannot do in
    place), so nobody has to find the command."""
    output = evolved["widened_output"]
    assert "its models are rebuilt from the raw landing by the next `run`" in output
    assert "--full-refresh --select config.meta.cdc_topic:evo.public.items+" in output
    assert "ERROR=0" in output
    tables = evolved["widened"]
    assert tables[CURRENT]["types"]["price"] == "decimal(9,3)"
    current = {r["item_id"]: r for r in tables[CURRENT]["rows"]}
    assert sorted(current) == [1, 2, 3, 4, 5, 7]
    assert Decimal(str(current[7]["price"])) == Decimal("3.125")
    assert Decimal(str(current[5]["price"])) == Decimal("3.12")
    reasons = [r["_quarantine_reason"] for r in tables[BASE]["rows"] if r["_quarantine_reason"]]
    assert reasons == ["schema_contradiction"]  # the one record whose JSON is wrong
