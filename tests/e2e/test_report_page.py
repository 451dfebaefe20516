"""`report --html` (issue 45): a page worth opening, checked in Chromium.

A state folder as twenty runs of four topics leave it (the runs' log, the
Prometheus totals, the quarantine summary a run keeps) and a project with
the seed of quarantine reasons: one topic quarantines malformed JSON
(needs a person) and tombstones (expected), one is stale, one lags two
years behind its source, one has a name that is HTML. The real CLI writes
the page from the state folder alone; Chromium opens it at 1280 × 800:
what needs attention comes first, with the reason's meaning and what to
do; every topic has its four charts; durations are in human units with
the source time beside the lag; nothing scrolls sideways; the HTML name is
shown as text (no element made of it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from project_paths import PROJECT
from report_pages import read_report_page

from python_helpers.run import prometheus

# with the end-to-end tests (a real Chromium, like test_docs_site); no Spark
pytestmark = pytest.mark.spark

NOW = datetime.now(UTC)
QUARANTINING = "shop.public.orders"
STALE = "shop.public.customers"
LAGGING = "legacy.public.archive_" + "x" * 150  # long, no break: must wrap
HOSTILE = 'shop.<img src=x onerror="document.title=1">.<b>bold</b>'
TOPICS = (QUARANTINING, STALE, LAGGING, HOSTILE)
RUNS = 20


def _row(run: int, topic: str) -> dict[str, Any]:
    started = NOW - timedelta(minutes=5 * (RUNS - run))
    reasons = (
        {"malformed_json": 1, "tombstone": 2} if topic == QUARANTINING and run % 4 == 0 else {}
    )
    lag = 2 * 365 * 86400.0 if topic == LAGGING else 30.0 + run
    return {
        "run_id": 1_800_000_000_000_000 + run,
        "topic": topic,
        "run_started_at": started.isoformat(),
        "run_ended_at": (started + timedelta(seconds=20)).isoformat(),
        "records_landed": 100 + run,
        "records_already_landed": 0,
        "records_unreadable": 0,
        "records_staged": 100 + run - sum(reasons.values()),
        "records_quarantined": sum(reasons.values()),
        "quarantined_by_reason": json.dumps(reasons),
        "keys_inserted": 10 + run,
        "keys_updated": 5,
        "keys_deleted": 2,
        "newest_source_commit_at": (started - timedelta(seconds=lag)).isoformat(),
        "lag_seconds": lag,
        "land_seconds": 2.0,
        "dbt_seconds": 12.0,
        "run_seconds": 20.0,
    }


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    project = tmp_path_factory.mktemp("report") / "project"
    (project / "topics").mkdir(parents=True)
    (project / "seeds").mkdir()
    seed = PROJECT / "seeds" / "cdc_quarantine_reasons.csv"
    (project / "seeds" / seed.name).write_bytes(seed.read_bytes())
    (project / "dbt_project.yml").write_text(
        "name: cdc\nvars:\n  cdc_max_lag: 1h\n  cdc_max_staleness: 1d\n", encoding="utf-8"
    )
    state = project / ".state"
    state.mkdir()
    # the stale topic's last run was three days ago, the others' this hour
    rows = [
        _row(run, topic)
        for run in range(1, RUNS + 1)
        for topic in TOPICS
        if topic != STALE or run <= 3
    ]
    (state / "run-metrics.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
    )
    totals = prometheus.load(state)
    for topic in TOPICS:
        ended = NOW - timedelta(days=3) if topic == STALE else NOW
        totals["topics"][topic] = {"counters": {}, "reasons": {}, "last_success": ended.timestamp()}
    (state / prometheus.TOTALS_FILE).write_text(json.dumps(totals), encoding="utf-8")
    summary = {
        QUARANTINING: [
            {
                "topic": QUARANTINING,
                "reason": reason,
                "records": count,
                "oldest_landed_at": (NOW - timedelta(days=9)).isoformat(),
                "newest_landed_at": NOW.isoformat(),
                "example_kafka_partition": 0,
                "example_kafka_offset": 4242,
                "example_landing_file": f"{QUARANTINING}/0.jsonl",
                "example_landing_line": 17,
            }
            for reason, count in (("malformed_json", 7), ("tombstone", 12))
        ]
    }
    (state / "quarantine-summary.json").write_text(json.dumps(summary), encoding="utf-8")
    html_path = project / "report.html"
    env = os.environ | {"CDC_STATE_DIR": str(state), "PYTHONPATH": str(PROJECT)}
    done = subprocess.run(
        [sys.executable, "-m", "python_helpers", "report", "--html", str(html_path)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        "output": done.stdout,
        "html": html_path.read_text(encoding="utf-8"),
        "path": html_path,
    }


def test_the_page_opens_with_what_needs_attention_and_fits_the_screen(
    page: dict[str, Any],
) -> None:
    shown = read_report_page(page["path"], "run-report-page.png")
    width, visible = shown["widths"]
    assert width <= visible, f"scrolls sideways: {width} > {visible}"
    assert max(shown["chart_rights"]) <= visible
    # what needs attention, first: the quarantining, stale and lagging topics
    attention = shown["attention"]
    assert attention.startswith("Needs attention: 3 of 4 topic(s)")
    assert "malformed_json 1" in attention and "tombstone" not in attention.split("What to do")[0]
    assert "not JSON" in attention and "What to do:" in attention
    assert "last successful run 3 days ago" in attention
    assert "source lag 730 days > max_lag 60 min" in attention
    assert shown["topics"][0] in (QUARANTINING, STALE, LAGGING)
    # every topic: lag, throughput, keys changed, quarantined; plus the two of all runs
    assert sorted(shown["topics"]) == sorted(TOPICS)
    assert shown["charts"] == 2 + 4 * len(TOPICS)
    assert shown["lag_points"] >= RUNS and shown["run_rate_points"] == RUNS
    assert shown["quarantine_bars"] == 2 * (RUNS // 4)  # malformed_json and tombstone, stacked
    # the HTML name is text: no element made of it, nothing ran
    assert HOSTILE in shown["topics"] and shown["injected"] == 0
    assert shown["title"] == "CDC report"


def test_durations_read_in_human_units_with_the_source_time(page: dict[str, Any]) -> None:
    html = page["html"]
    assert "lag 730 days (source time " in html
    assert "lag 50 s (source time " in html  # the newest run of the others: 30 + 20 s
    assert "89727184" not in html and "63072000" not in html  # no raw seconds
    # the quarantine summary a run kept: counts, landings, the newest record
    assert "partition 0, offset 4242" in html and "line 17" in html
    assert "(expected)" in html  # tombstones: the seed says they need no person


def test_written_text_is_escaped(page: dict[str, Any]) -> None:
    assert "<img" not in page["html"] and "&lt;img src=x" in page["html"]
    assert "<b>bold</b>" not in page["html"]
