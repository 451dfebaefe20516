"""The state folder's log of the runs' metrics (python_helpers/run/metrics_log.py),
which ``report`` reads without starting Spark."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from python_helpers.run import metrics, metrics_log
from python_helpers.run.metrics import TopicMetrics


def _row(run_id: int, topic: str) -> dict[str, object]:
    started = datetime(2026, 11, 27, 6, 0, 0, 123457, tzinfo=UTC)
    row = TopicMetrics(run_id, topic, started, records_landed=3, quarantined_by_reason={"x": 1})
    return metrics.as_row(row)


def test_the_last_runs_come_back_oldest_first_as_the_table_gives_them(tmp_path: Path) -> None:
    assert metrics_log.read_runs(tmp_path, 5) is None  # no run wrote it: the table
    for run_id in (3, 1, 2):
        metrics_log.append(tmp_path, [_row(run_id, "b"), _row(run_id, "a")])
    rows = metrics_log.read_runs(tmp_path, 2)
    assert rows is not None
    assert [(r["run_id"], r["topic"]) for r in rows] == [(2, "a"), (2, "b"), (3, "a"), (3, "b")]
    assert rows[0]["run_started_at"] == "2026-11-27T06:00:00.123457Z"
    assert rows[0]["quarantined_by_reason"] == '{"x": 1}' and rows[0]["run_ended_at"] is None
    (tmp_path / metrics_log.LOG_FILE).open("a").write('{"run_id": 4, "topic"')  # cut by a crash
    assert len(metrics_log.read_runs(tmp_path, 9) or []) == 6


def test_a_log_past_its_size_keeps_the_newer_half_of_its_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(metrics_log, "MAX_BYTES", 4000)
    for run_id in range(1, 40):
        metrics_log.append(tmp_path, [_row(run_id, "t")])
    runs = [r["run_id"] for r in metrics_log.read_runs(tmp_path, 100) or []]
    assert runs == sorted(runs) and runs[-1] == 39 and 1 not in runs
    assert (tmp_path / metrics_log.LOG_FILE).stat().st_size <= 4000 + 600
