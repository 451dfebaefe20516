"""The real-producer lane (`make test-real`, issue 70): the lane's workload
(tests/support/real_workloads.py: the compact case's changes, DDL
mid-stream, TRUNCATE, a table without a primary key, REPLICA IDENTITY FULL,
a partitioned table published through its root, one column per common
PostgreSQL type) captured by Debezium 3.6.3's engine from PostgreSQL 15
once per configuration users run (lane.py), all built by one `make run`
of a project made by `init`. Each configuration's current-state tables are
compared with the source tables as PostgreSQL holds them at the end.

Where the producer itself changes the data (a configuration's documented
behaviour, not the project's), the test asserts exactly that difference:
docs/guarantees.md lists them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lane import CONFIGURATIONS, TABLES, build, view
from pg_types import type_differences
from real_compare import differences, exported_rows

pytestmark = pytest.mark.spark

# (configuration, table) -> what the producer does to it
PRODUCER_CHANGES = {
    ("unwrap", "order_lines"): "ExtractNewRecordState drops TRUNCATE events",
    ("unwraprw", "order_lines"): "ExtractNewRecordState drops TRUNCATE events",
    ("unwrap", "keyless"): (
        "tombstone mode drops the delete; a keyless table's tombstone has no key"
    ),
}
DECIMALS = {"doubles": "double"}


@pytest.fixture(scope="module")
def lane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    built = build(Path(tmp_path_factory.mktemp("real-lane")))
    report = (
        f"real-producer lane: {len(CONFIGURATIONS)} configurations, {built['records']} records"
        f" captured in {built['seconds']['capture']:.0f} s, make run"
        f" {built['seconds']['make run']:.0f} s"
    )
    counts = ", ".join(f"{prefix} {n}" for prefix, n in built["per_configuration"].items())
    print(f"{report}\nrecords per configuration: {counts}")
    yield built


def _pairs() -> list[tuple[str, str]]:
    return [(prefix, table) for prefix in CONFIGURATIONS for table in [*TABLES, "keyless"]]


@pytest.mark.parametrize(("prefix", "table"), _pairs())
def test_each_table_equals_its_source(lane: dict[str, Any], prefix: str, table: str) -> None:
    key = TABLES.get(table, ["a"])
    columns = ["id", "c_varchar", "c_numeric_5_2", "c_tstz"] if table == "kinds" else None
    found = differences(
        table,
        key,
        lane["expected"][table],
        exported_rows(lane["exported"], view(prefix, table)),
        DECIMALS.get(prefix, "exact"),
        columns,
    )
    if (prefix, table) in PRODUCER_CHANGES:
        # every source row is right; the rows the producer never deleted remain
        assert found, f"{PRODUCER_CHANGES[prefix, table]}: expected a difference"
        assert all(re.match(rf"{table}: keys only in the table", line) for line in found), found
    else:
        assert found == [], "\n".join(found)


@pytest.mark.parametrize("prefix", ["plain", "txmeta", "noschema", "unwrap"])
def test_every_type_equals_postgresql_s_own_value(lane: dict[str, Any], prefix: str) -> None:
    """The types table, every column and row (edge values: infinities,
    the 64-bit bounds, empty arrays and strings, NaN-free floats at 1e300)
    against PostgreSQL's text of each value, read by the rules of
    tests/support/pg_types.py (docs/types.md)."""
    built = exported_rows(lane["exported"], view(prefix, "kinds"))
    found = type_differences(lane["expected"]["kinds_text"], built)
    assert found == [], "\n".join(found)


def test_the_run_counts_every_record(lane: dict[str, Any]) -> None:
    """Every record captured is landed and staged, quarantined or a
    tombstone, but those of the topics the run says it cannot land: the
    schemaless configuration's partition topics (Debezium's snapshot reads
    a partitioned table's rows twice, into the root's topic and into each
    partition's), which no declaration gives a schema."""
    found = re.search(
        r"(\d+) landed, (\d+) staged, (\d+) quarantined, (\d+) tombstones", lane["run"]
    )
    assert found is not None, lane["run"][-3000:]
    landed, staged, quarantined, tombstones = (int(n) for n in found.groups())
    refused = r"^not landing (\S+): sync generated no schema"
    not_landed = sorted(re.findall(refused, lane["run"], re.M))
    assert not_landed == ["noschema.public.measures_2025", "noschema.public.measures_2026"]
    left = sum(
        len((lane["landing"] / topic / "capture.jsonl").read_text().splitlines())
        for topic in not_landed
    )
    assert landed + left == lane["records"]
    assert landed == staged + quarantined + tombstones
    # the one record quarantined: unwrap's keyless delete (PRODUCER_CHANGES)
    assert quarantined == 1
