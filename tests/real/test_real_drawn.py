"""Drawn workloads against the real producer (issue 70, `make test-real`):
hypothesis draws histories of transactions on several tables
(tests/support/drawn_workloads.py); each history runs on a PostgreSQL 15
cluster of the test's own while Debezium 3.6.3's engine captures it, a
project made by `init` builds the topics, and every current-state table
must equal its source table as PostgreSQL holds it at the end.

Each example costs a capture and a build (about a minute and a half), so
the search is small (`CDC_REAL_EXAMPLES`, default 2) and does not shrink;
a failing example it finds is printed by hypothesis and kept here as a
named regression case (`@example`)."""

from __future__ import annotations

import os
import shutil
import time
from decimal import Decimal

import pytest
from drawn_workloads import TABLES, TRANSACTIONS, Step, schema, statements
from hypothesis import HealthCheck, Phase, example, given, settings
from postgres_cluster import Cluster, running_cluster
from project_paths import PROJECT
from real_compare import differences, exported_rows
from real_producer import MARKER_TABLE, build_landing, capture_during, connector_properties

pytestmark = pytest.mark.spark

EXAMPLES = int(os.environ.get("CDC_REAL_EXAMPLES", "2"))
PREFIX = "drawn"
ROOT = PROJECT / ".state" / "pytest-real-drawn"


def _view(table: int) -> str:
    return f"cdc_current.postgres__{PREFIX}_public_drawn_{table}"


def _build(scripts: list[str]) -> tuple[list[str], int]:
    """Run the drawn scripts under capture and build; the differences and
    how many records were captured."""
    if ROOT.exists():
        shutil.rmtree(ROOT / "run", ignore_errors=True)
    root = ROOT / "run"
    root.mkdir(parents=True)
    landing = root / "landing"

    def workload(cluster: Cluster) -> None:
        for script in scripts:
            cluster.sql(script)

    with running_cluster(ROOT / "postgres") as cluster:
        cluster.sql(f"create table {MARKER_TABLE} (n serial primary key, at timestamptz);")
        cluster.sql(schema())
        properties = connector_properties(cluster, PREFIX, "drawn", root / "offsets.dat", {})
        capture_during(cluster, landing, properties, workload)
        expected = {
            table: cluster.rows(f"select * from drawn_{table} order by id")
            for table in range(TABLES)
        }
    views = [_view(table) for table in range(TABLES)]
    _, _, exported = build_landing(root / "project", landing, views)
    found = []
    for table in range(TABLES):
        built = exported_rows(exported, _view(table))
        found += differences(f"drawn_{table}", ["id"], expected[table], built)
    records = sum(len(path.read_text().splitlines()) for path in landing.rglob("*.jsonl"))
    return found, records


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
@given(transactions=TRANSACTIONS)
# the regression cases: each failing example a search found, by name
@example(  # a key change and an update of a TOASTed neighbour in one transaction
    transactions=[
        [(0, 1, Step("rekey")), (0, 1, Step("name", ("moved",)))],
        [(1, 0, Step("amount", (Decimal("12345678901234567890.0123456789"),)))],
        [(2, 2, Step("reinsert", ("again",))), (0, 3, Step("delete"))],
        [(1, 1, Step("ratio", ("3.14159265358979323846264338327950288",)))],
        [(2, 0, Step("seen", ("-infinity",))), (1, 2, Step("note", (7,)))],
    ]
)
def test_drawn_histories_equal_the_source(transactions: list[list[tuple[int, int, Step]]]) -> None:
    started = time.monotonic()
    scripts = statements(transactions)
    found, records = _build(scripts)
    steps = sum(len(t) for t in transactions)
    print(
        f"drawn: {len(transactions)} transactions, {steps} steps on {TABLES} tables,"
        f" {records} records captured, {time.monotonic() - started:.0f} s"
    )
    assert found == [], "\n".join(found)
