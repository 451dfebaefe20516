"""The run's counts per topic (python_helpers/run/metrics.py ``add_counts``)
on real Spark and Iceberg tables: each topic's numbers are its own, however
the statements split the topics (issue 43: a few tables a statement; a
statement that began with a state table's part lost its column names)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from python_helpers.engine.sql_engine import SessionEngine
from python_helpers.run import metrics
from python_helpers.run.metrics import TopicMetrics, TopicRelations

pytestmark = pytest.mark.spark

SCHEMA = "cdc_metrics_test"


def _tables(
    spark: Any, topic: int, staged: int, quarantined: int, deleted: int, tombstones: int
) -> None:
    spark.sql(f"create database if not exists {SCHEMA}")
    base, state = f"{SCHEMA}.base_{topic}", f"{SCHEMA}.state_{topic}"
    for name in (base, state):
        spark.sql(f"drop table if exists {name}")
    spark.sql(
        f"create table {base} (_staged_at timestamp, _quarantine_reason string,"
        " _cdc_source_committed_at timestamp) using iceberg"
    )
    spark.sql(f"create table {state} (_staged_at timestamp, _cdc_op string) using iceberg")
    rows = ["(current_timestamp(), null, timestamp'2026-01-02 03:04:05')"] * staged
    rows += ["(current_timestamp(), 'tombstone', null)"] * tombstones
    rows += ["(current_timestamp(), 'malformed_json', null)"] * quarantined
    spark.sql(f"insert into {base} values {', '.join(rows)}")
    keys = ["(current_timestamp(), 'u')"] * (staged - deleted) + [
        "(current_timestamp(), 'd')"
    ] * deleted
    spark.sql(f"insert into {state} values {', '.join(keys)}")


@pytest.mark.parametrize("per_statement", [1, 2, 10])
def test_each_topic_gets_its_own_counts_however_statements_split(
    spark: Any, monkeypatch: pytest.MonkeyPatch, per_statement: int
) -> None:
    since = datetime(2020, 1, 1, tzinfo=UTC)
    # staged, quarantined, deleted keys, tombstones
    expected = {"t1": (3, 1, 1, 1), "t2": (5, 0, 2, 2), "t3": (2, 2, 0, 0)}
    relations = {}
    for number, (topic, (staged, quarantined, deleted, tombstones)) in enumerate(expected.items()):
        _tables(spark, number, staged, quarantined, deleted, tombstones)
        relations[topic] = TopicRelations(
            f"{SCHEMA}.base_{number}", f"{SCHEMA}.state_{number}", True
        )
    monkeypatch.setattr(metrics, "PARTS_PER_STATEMENT", per_statement)
    rows = {topic: TopicMetrics(1, topic, since) for topic in expected}
    metrics.add_counts(SessionEngine(spark), rows, relations, since)
    for topic, (staged, quarantined, deleted, tombstones) in expected.items():
        row = rows[topic]
        counted = (row.records_staged, row.records_quarantined, row.records_tombstones)
        assert counted == (staged, quarantined, tombstones), topic
        assert (row.keys_inserted, row.keys_deleted, row.keys_updated) == (staged, deleted, 0)
        # a tombstone is not quarantined (issue 70)
        assert row.quarantined_by_reason == (
            {"malformed_json": quarantined} if quarantined else {}
        )
        assert row.newest_source_commit_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
