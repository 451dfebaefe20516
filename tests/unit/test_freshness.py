"""Source freshness from what the landing noted (python_helpers/engine/freshness.py):
no query, dbt_project.yml's thresholds."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from python_helpers.engine import freshness

REPO = Path(__file__).resolve().parents[2]


def test_the_project_thresholds_and_the_newest_record_noted(tmp_path: Path) -> None:
    assert freshness.thresholds(REPO) == {"warn": 24 * 3600.0}
    now = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
    hour_ms = 3600 * 1000
    noon_ms = int(now.timestamp() * 1000)
    freshness.remember(tmp_path, [("a", noon_ms - 2 * hour_ms), ("b", noon_ms - 30 * hour_ms)])
    freshness.remember(tmp_path, [("a", noon_ms - 5 * hour_ms), ("b", None)])  # older: kept
    limits = {"warn": 24 * 3600.0, "error": 48 * 3600.0}
    rows = freshness.landed_rows(tmp_path, ["b", "a", "c"], limits, now)
    assert [(r.source, r.status, r.age_hours) for r in rows] == [
        ("a", "pass", 2.0),
        ("b", "warn", 30.0),
        ("c", "unknown", None),
    ]
    text = freshness.render(rows)
    assert "1 pass, 1 unknown, 1 warn" in text and "2026-11-27 10:00:00" in text
