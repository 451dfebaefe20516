"""What ``report``, ``report --check`` and ``report --html`` cost at scale.

A state folder as ``--topics`` topics over ``--runs`` runs leave it (the
runs' log, the Prometheus totals, the kept quarantine summary; every
fifth topic quarantining, every tenth stale) in a project with the seed of
quarantine reasons; each command is run ``--repeat`` times through the real
CLI (a new Python process each: what a scheduler pays), the median kept.
No Spark: the three read the state folder alone.

    python -m bench.report [--topics 500] [--runs 20] [--repeat 3] [--save]

prints a table and, with ``--save``, writes it to
``bench/results/report-<topics>x<runs>.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.run import machine
from python_helpers.run import prometheus

PROJECT = Path(__file__).resolve().parents[1]
RESULTS = PROJECT / "bench" / "results"


def _row(run: int, runs: int, topic: str, index: int, now: datetime) -> dict[str, Any]:
    started = now - timedelta(minutes=5 * (runs - run))
    reasons = {"malformed_json": 1, "tombstone": 3} if index % 5 == 0 else {}
    return {
        "run_id": 1_800_000_000_000_000 + run,
        "topic": topic,
        "run_started_at": started.isoformat(),
        "run_ended_at": (started + timedelta(seconds=30)).isoformat(),
        "records_landed": 50,
        "records_already_landed": 0,
        "records_unreadable": 0,
        "records_staged": 50 - sum(reasons.values()),
        "records_quarantined": sum(reasons.values()),
        "quarantined_by_reason": json.dumps(reasons),
        "keys_inserted": 20,
        "keys_updated": 10,
        "keys_deleted": 1,
        "newest_source_commit_at": (started - timedelta(seconds=40)).isoformat(),
        "lag_seconds": 40.0 + index,
        "land_seconds": 1.0,
        "dbt_seconds": 5.0,
        "run_seconds": 30.0,
    }


def make_state(root: Path, topics: int, runs: int) -> Path:
    """The project folder (its state in ``.state``)."""
    now = datetime.now(UTC)
    project = root / "project"
    (project / "topics").mkdir(parents=True)
    (project / "seeds").mkdir()
    seed = PROJECT / "seeds" / "cdc_quarantine_reasons.csv"
    (project / "seeds" / seed.name).write_bytes(seed.read_bytes())
    (project / "dbt_project.yml").write_text("name: cdc\n", encoding="utf-8")
    state = project / ".state"
    state.mkdir()
    names = [f"server1.inventory.table_{i:04d}" for i in range(topics)]
    with (state / "run-metrics.jsonl").open("w", encoding="utf-8") as out:
        for run in range(1, runs + 1):
            for index, topic in enumerate(names):
                out.write(json.dumps(_row(run, runs, topic, index, now)) + "\n")
    totals = prometheus.load(state)
    for index, topic in enumerate(names):
        ended = now - timedelta(days=3) if index % 10 == 0 else now
        totals["topics"][topic] = {"counters": {}, "reasons": {}, "last_success": ended.timestamp()}
    (state / prometheus.TOTALS_FILE).write_text(json.dumps(totals), encoding="utf-8")
    summary = {
        topic: [
            {
                "topic": topic,
                "reason": "malformed_json",
                "records": runs,
                "oldest_landed_at": (now - timedelta(days=2)).isoformat(),
                "newest_landed_at": now.isoformat(),
                "example_kafka_partition": 0,
                "example_kafka_offset": 99,
                "example_landing_file": f"{topic}/0.jsonl",
                "example_landing_line": 3,
            }
        ]
        for index, topic in enumerate(names)
        if index % 5 == 0
    }
    (state / "quarantine-summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return project


def timed(project: Path, args: list[str], repeat: int) -> float:
    env = os.environ | {"CDC_STATE_DIR": str(project / ".state"), "PYTHONPATH": str(PROJECT)}
    seconds = []
    for _ in range(repeat):
        started = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "python_helpers", "report", *args],
            cwd=project,
            env=env,
            capture_output=True,
            check=False,
        )
        seconds.append(time.monotonic() - started)
    return statistics.median(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=500)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        project = make_state(Path(scratch), args.topics, args.runs)
        page = project / "report.html"
        rows = [
            ("report (text)", timed(project, ["--runs", str(args.runs)], args.repeat)),
            ("report --check", timed(project, ["--check"], args.repeat)),
            (
                "report --html",
                timed(project, ["--runs", str(args.runs), "--html", str(page)], args.repeat),
            ),
        ]
        size = page.stat().st_size
    lines = [
        f"# report at {args.topics} topics × {args.runs} runs",
        "",
        f"Workload: a state folder of {args.topics * args.runs} metrics rows ({args.topics}"
        f" topics, {args.runs} runs; every fifth topic quarantining, every tenth stale);"
        f" each command a new process, median of {args.repeat}. Machine: {machine()}.",
        "",
        "| command | seconds (median) |",
        "| --- | ---: |",
        *(f"| `{name}` | {seconds:.2f} |" for name, seconds in rows),
        "",
        f"The page: {size / 1e6:.1f} MB.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / f"report-{args.topics}x{args.runs}.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
