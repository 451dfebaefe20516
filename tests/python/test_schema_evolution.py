"""A topic whose schema evolves after the first build keeps building.

On a copy of the project (sync rewrites generated files): version 1 of
`evo.public.items` is synced, landed and built; then events of version 2
land — a new optional column, an int32 widened to int64, a decimal with a
larger precision, a required column made optional — and sync + build run
again, and once more. Older rows read null in the new column; every value
keeps its type and digits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import PROJECT
from reference_model import decimal_base64

from python_helpers.project_copy import project_copy

pytestmark = pytest.mark.spark

TOPIC = "evo.public.items"
CURRENT = "cdc_current.postgres__evo_public_items"
BASE = "cdc_staging.base_postgres__evo_public_items"


def _decimal(precision: int) -> dict[str, Any]:
    return {
        "type": "bytes",
        "optional": True,
        "name": "org.apache.kafka.connect.data.Decimal",
        "version": 1,
        "parameters": {"scale": "2", "connect.decimal.precision": str(precision)},
    }


def _row(version: int) -> dict[str, Any]:
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
    key_schema = {
        "type": "struct",
        "optional": False,
        "fields": [{"type": "int32", "optional": False, "field": "item_id"}],
    }
    key = json.dumps({"schema": key_schema, "payload": {"item_id": item_id}})
    record = {"topic": TOPIC, "partition": 0, "offset": offset, "ts": 0, "key": key}
    return json.dumps(record | {"payload": value})


V1 = [
    (1, "r", {"item_id": 1, "qty": 5, "price": "1.50"}),
    (2, "r", {"item_id": 2, "qty": 7, "price": "9999.99"}),
    (3, "c", {"item_id": 3, "qty": 1, "price": "-0.25"}),
]
V2 = [
    (1, "u", {"item_id": 1, "qty": 1 << 40, "price": "123456.78", "color": "red"}),
    (4, "c", {"item_id": 4, "qty": None, "price": "0.01", "color": None}),
]


def _lines(events: list[tuple[int, str, dict[str, Any]]], version: int, first: int) -> str:
    lines = []
    for number, (item_id, op, row) in enumerate(events, start=first):
        after = row | {"price": decimal_base64(Decimal(row["price"]), 2)}
        lines.append(_kcat(number, _value(version, op, 1000 + number, after), item_id))
    return "\n".join(lines) + "\n"


def _run(project: Path, state: Path, *args: str) -> str:
    env = os.environ | {
        "CDC_STATE_DIR": str(state),
        "DBT_PROFILES_DIR": "profiles",
        "PYTHONPATH": str(PROJECT),
    }
    done = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout[-4000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def evolved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("evolution")
    project = project_copy(PROJECT, PROJECT / ".state" / "pytest-evolution" / "project")
    state = project / ".state"
    landing = root / "landing" / TOPIC
    landing.mkdir(parents=True)
    (landing / "a-v1.jsonl").write_text(_lines(V1, 1, 0), encoding="utf-8")
    helpers = [sys.executable, "-m", "python_helpers"]
    dbt = str(Path(sys.executable).parent / "dbt")
    _run(project, state, *helpers, "jars")
    for _ in range(2):
        _run(project, state, *helpers, "sync", "--landing", str(root / "landing"))
        _run(project, state, *helpers, "land", "--landing", str(root / "landing"))
        _run(project, state, dbt, "build", "--vars", "{cdc_test_scope: all}")
        (landing / "b-v2.jsonl").write_text(_lines(V2, 2, len(V1)), encoding="utf-8")
    again = _run(project, state, dbt, "build")  # a later run keeps working
    exported = _run(project, state, *helpers, "export", CURRENT, BASE)
    loaded = json.loads(exported.splitlines()[-1])
    return {"build": again} | {
        table: {"types": data["types"], "rows": [json.loads(r) for r in data["rows"]]}
        for table, data in loaded.items()
    }


def test_new_and_widened_columns_reach_the_tables(evolved: dict[str, Any]) -> None:
    for table in (CURRENT, BASE):
        types = evolved[table]["types"]
        assert (types["qty"], types["price"], types["color"]) == (
            "bigint",
            "decimal(8,2)",
            "string",
        ), table


def test_current_state_after_the_evolution(evolved: dict[str, Any]) -> None:
    rows = {r["item_id"]: r for r in evolved[CURRENT]["rows"]}
    assert sorted(rows) == [1, 2, 3, 4]
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
    assert len(base) == len(V1) + len(V2)
    old = [r for r in base if r["_kafka_offset"] < len(V1)]
    assert old and all(r["color"] is None for r in old)
    assert "PASS=" in evolved["build"] and "ERROR=0" in evolved["build"]
