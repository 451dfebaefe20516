"""`python -m python_helpers report --check` (issue 45): an exit code a
scheduler acts on, naming the topics that are stale, lagging or
quarantining, from the state folder alone (no Spark), with limits from the
topic's declaration, the project vars or the command's options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from project_paths import PROJECT

from python_helpers.run import alerts, prometheus, report

NOW = time.time()


def _project(tmp_path: Path, rows: list[dict[str, Any]], success: dict[str, float]) -> Path:
    project = tmp_path / "project"
    (project / "topics").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: cdc\nvars:\n  cdc_max_lag: 1h\n", encoding="utf-8"
    )
    state = project / ".state"
    state.mkdir()
    lines = [json.dumps({"run_id": 1, "quarantined_by_reason": "{}"} | row) for row in rows]
    (state / "run-metrics.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    totals = prometheus.load(state)
    for topic, ended in success.items():
        totals["topics"][topic] = {"counters": {}, "reasons": {}, "last_success": ended}
    (state / prometheus.TOTALS_FILE).write_text(json.dumps(totals), encoding="utf-8")
    return project


def _check(project: Path, *options: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"CDC_STATE_DIR": str(project / ".state"), "PYTHONPATH": str(PROJECT)}
    return subprocess.run(
        [sys.executable, "-m", "python_helpers", "report", "--check", *options],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_stale_a_lagging_and_a_quarantining_topic_fail_the_check(tmp_path: Path) -> None:
    rows = [
        {"topic": "fine", "lag_seconds": 30.0, "records_quarantined": 0},
        {"topic": "stale", "lag_seconds": 30.0, "records_quarantined": 0},
        {"topic": "lagging", "lag_seconds": 7200.0, "records_quarantined": 0},
        {
            "topic": "quarantining",
            "lag_seconds": 1.0,
            "records_quarantined": 2,
            "quarantined_by_reason": '{"malformed_json": 2}',
        },
    ]
    success = {"fine": NOW, "stale": NOW - 3 * 86400, "lagging": NOW, "quarantining": NOW}
    done = _check(_project(tmp_path, rows, success))
    assert done.returncode == 1, done.stdout + done.stderr
    named = {line.split(":", 1)[0] for line in done.stdout.splitlines()[:-1]}
    assert named == {"stale", "lagging", "quarantining"}
    assert "source lag 2.0 h > max_lag 60 min" in done.stdout
    assert "last successful run 3 days ago > max_staleness 24.0 h" in done.stdout
    assert "malformed_json" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("3 of 4 topic(s) need attention")


def test_within_the_limits_the_check_passes_and_a_declaration_wins(tmp_path: Path) -> None:
    rows = [{"topic": "t", "lag_seconds": 700.0, "records_quarantined": 0}]
    project = _project(tmp_path, rows, {"t": NOW})
    passed = _check(project)
    assert passed.returncode == 0 and "all 1 topic(s) within" in passed.stdout
    # an option tightens the project's limit...
    assert _check(project, "--max-lag", "5m").returncode == 1
    # ...a declaration sets the topic's own, over both
    (project / "topics" / "t.yml").write_text("max_lag: 20m\n", encoding="utf-8")
    assert _check(project, "--max-lag", "5m").returncode == 0
    (project / "topics" / "t.yml").write_text("max_lag: 10m\n", encoding="utf-8")
    assert "max_lag 10 min" in _check(project).stdout


def test_durations_read_as_people_write_them() -> None:
    assert [alerts.seconds(t) for t in ("45", "30s", "10m", "2h", "1.5d")] == [
        45,
        30,
        600,
        7200,
        129600,
    ]
    assert [alerts.human(s) for s in (5, 600, 7200, 3 * 86400)] == [
        "5 s",
        "10 min",
        "2.0 h",
        "3 days",
    ]


def test_tombstones_alone_raise_no_alert_the_seed_says_they_are_expected(
    tmp_path: Path,
) -> None:
    """A delete is followed by its tombstone: a topic that quarantined only
    tombstones (the seed's `needs_attention: false`) passes; one more
    reason that needs a person fails, naming that reason only."""
    rows = [
        {
            "topic": "deleting",
            "lag_seconds": 1.0,
            "records_quarantined": 3,
            "quarantined_by_reason": '{"tombstone": 3}',
        }
    ]
    project = _project(tmp_path, rows, {"deleting": NOW})
    (project / "seeds").mkdir()
    seed = PROJECT / "seeds" / "cdc_quarantine_reasons.csv"
    (project / "seeds" / seed.name).write_bytes(seed.read_bytes())
    passed = _check(project)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    rows[0] |= {
        "records_quarantined": 4,
        "quarantined_by_reason": '{"tombstone": 3, "null_value": 1}',
    }
    failed = _check(_project(tmp_path / "again", rows, {"deleting": NOW}))
    assert failed.returncode == 1
    # without the seed every reason counts; with it, only null_value
    (tmp_path / "again" / "project" / "seeds").mkdir()
    (tmp_path / "again" / "project" / "seeds" / seed.name).write_bytes(seed.read_bytes())
    named = _check(tmp_path / "again" / "project")
    assert named.returncode == 1
    assert "quarantined 1 record(s): null_value 1" in named.stdout


def test_a_quarantine_finding_names_its_reasons_and_the_kept_rows_follow_the_runs(
    tmp_path: Path,
) -> None:
    """The page lists a finding's reasons from the finding itself (not from
    its text); a run reads the summary again for the topics that quarantined
    and for those with rows kept (a replayed record can empty them)."""
    from python_helpers.run import quarantine

    row = {"lag_seconds": 1.0, "records_quarantined": 4}
    row["quarantined_by_reason"] = '{"tombstone": 3, "null_value": 1}'
    limits = {"t": {"max_lag": 3600.0, "max_staleness": 86400.0}}
    found = alerts.check({"t": row}, {"t": NOW}, limits, NOW, expected={"tombstone"})
    assert [(f.topic, f.reasons) for f in found] == [("t", ("null_value",))]
    assert quarantine.to_read(tmp_path, {"a": 2, "b": 0, "c": 0}) == ["a"]
    (tmp_path / quarantine.STORE).write_text(json.dumps({"b": [{"reason": "x"}]}))
    assert quarantine.to_read(tmp_path, {"a": 2, "b": 0, "c": 0}) == ["a", "b"]


def _metrics_row(run_id: int, topic: str, lag: float | None) -> dict[str, Any]:
    counts = ("records_landed", "records_staged", "records_quarantined")
    keys = ("keys_inserted", "keys_updated", "keys_deleted")
    return {
        "run_id": run_id,
        "topic": topic,
        "run_started_at": f"2026-11-28 00:0{run_id}:00",
        "lag_seconds": lag,
        "run_seconds": 1.0,
    } | dict.fromkeys((*counts, *keys), 1)


def test_a_run_of_a_healthy_topic_does_not_hide_one_days_behind() -> None:
    """A run's lag is the largest of every topic's lag as of its latest run:
    run 2 touches only the healthy topic, run 3 the late one again, caught up."""
    rows = [
        _metrics_row(1, "healthy", 2.0),
        _metrics_row(1, "late", 3 * 86400.0),
        _metrics_row(2, "healthy", 1.0),
        _metrics_row(3, "late", 5.0),
    ]
    lags = [line.lag_seconds for line in report.run_lines(rows)]
    assert lags == [3 * 86400.0, 3 * 86400.0, 5.0]
