"""`cdc_quarantine_summary` (issue 45): every topic's quarantine by reason,
with the reason's meaning from the seed `cdc_quarantine_reasons`, read
after the shared run's second build and compared with the quarantine views
themselves (counted here, in Python) and with the seed's file."""

from __future__ import annotations

import csv
from collections import Counter
from typing import Any

import pytest
from e2e_harness import QUARANTINE_ORDERS, QUARANTINE_SUMMARY, QUARANTINE_TABLES
from project_paths import PROJECT

pytestmark = pytest.mark.spark

SEED = PROJECT / "seeds" / "cdc_quarantine_reasons.csv"
# the bad-input fixture: every reason a Debezium record of sample_landing/
# shop.public.orders is quarantined for (test_end_to_end lists them by offset)
ORDERS_REASONS = {
    "tombstone",
    "truncated_json",
    "unsupported_op",
    "malformed_json",
    "not_utf8",
    "oversized_value",
    "key_mismatch",
    "malformed_key",
    "unknown_connector",
    "nested_too_deep",
    "null_value",
    "duplicate_field",
    "missing_row_image",
    "schema_contradiction",
    "incompatible_schema_change",
    "invalid_schema_block",
}


def _seed() -> dict[str, dict[str, str]]:
    with SEED.open(encoding="utf-8", newline="") as handle:
        return {row["reason"]: row for row in csv.DictReader(handle)}


def _summary(runs: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    rows = runs["second"][QUARANTINE_SUMMARY]["rows"]
    keyed = {(row["topic"], row["reason"]): row for row in rows}
    assert len(keyed) == len(rows)
    return keyed


def test_the_summary_lists_every_reason_of_the_bad_input_with_its_meaning(
    runs: dict[str, Any],
) -> None:
    seed, summary = _seed(), _summary(runs)
    orders = {
        reason: row for (topic, reason), row in summary.items() if topic == "shop.public.orders"
    }
    assert set(orders) == ORDERS_REASONS
    for reason, row in orders.items():
        assert row["meaning"] == seed[reason]["meaning"], reason
        assert row["what_to_do"] == seed[reason]["what_to_do"], reason
        assert row["needs_attention"] is (seed[reason]["needs_attention"] == "true"), reason
    assert orders["tombstone"]["needs_attention"] is False
    assert orders["truncated_json"]["needs_attention"] is True


def test_the_summary_counts_what_the_quarantine_views_hold(runs: dict[str, Any]) -> None:
    summary = _summary(runs)
    checked = 0
    for table in QUARANTINE_TABLES:
        rows = runs["second"][table]["rows"]
        counted = Counter((row["_kafka_topic"], row["_quarantine_reason"]) for row in rows)
        topics = {topic for topic, _ in counted}
        theirs = {key: row for key, row in summary.items() if key[0] in topics}
        assert {key: row["records"] for key, row in theirs.items()} == dict(counted), table
        for (topic, reason), row in theirs.items():
            records = [
                r for r in rows if (r["_kafka_topic"], r["_quarantine_reason"]) == (topic, reason)
            ]
            landed = sorted(r["_landed_at"] for r in records)
            assert (row["oldest_landed_at"], row["newest_landed_at"]) == (landed[0], landed[-1])
            example = (
                row["example_kafka_partition"],
                row["example_kafka_offset"],
                row["example_landing_file"],
                row["example_landing_line"],
            )
            coordinates = {
                (r["_kafka_partition"], r["_kafka_offset"], r["_landing_file"], r["_landing_line"])
                for r in records
            }
            assert example in coordinates, (topic, reason)
            checked += 1
    assert checked >= len(ORDERS_REASONS)
    assert runs["second"][QUARANTINE_ORDERS]["rows"]
