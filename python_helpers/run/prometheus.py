"""The runs' metrics in Prometheus' text format (issue 45).

Every run (a one-shot ``run`` or a watch's cycle) adds what it did to the
totals kept in the state folder (``prometheus.json``: counters since the
state folder began, the last run's gauges) and writes them as
``<state>/metrics/cdc.prom`` (a write then a rename: a reader never sees
half a file) for node_exporter's textfile collector; a watch also serves the
same text on ``/metrics`` (``metrics_http``). Names follow Prometheus'
conventions: base units in the name, ``_total`` for counters, labels
``topic``, ``reason``, ``step``, ``outcome``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

TOTALS_FILE = "prometheus.json"
TEXTFILE = Path("metrics") / "cdc.prom"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# counter name -> (help, the metrics row's field)
COUNTERS = {
    "cdc_records_landed_total": ("Records landed into the topic's raw table.", "records_landed"),
    "cdc_records_already_landed_total": (
        "Records read again and dropped as already landed (the duplicates ledger).",
        "records_already_landed",
    ),
    "cdc_records_unreadable_total": (
        "Landed lines that are not a readable Kafka record (kept, quarantined).",
        "records_unreadable",
    ),
    "cdc_records_staged_total": ("Records staged as change events.", "records_staged"),
    "cdc_records_tombstones_total": (
        "Tombstones (Kafka's null value after a delete): expected, not quarantined.",
        "records_tombstones",
    ),
    "cdc_keys_inserted_total": ("Keys inserted into the topic's state table.", "keys_inserted"),
    "cdc_keys_updated_total": ("Keys updated in the topic's state table.", "keys_updated"),
    "cdc_keys_deleted_total": ("Keys deleted from the topic's state table.", "keys_deleted"),
}
QUARANTINED = "cdc_records_quarantined_total"


def _escape(text: str) -> str:
    """A label value as the text format writes it."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(**labels: str) -> str:
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items()) + "}"


def _number(value: float) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


def load(state: Path) -> dict[str, Any]:
    """The totals so far (empty ones for a new state folder)."""
    try:
        loaded: dict[str, Any] = json.loads((state / TOTALS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        loaded = {}
    loaded.setdefault("topics", {})
    loaded.setdefault("runs", {"success": 0, "failure": 0})
    return loaded


def add_run(
    totals: dict[str, Any], rows: Iterable[dict[str, Any]], ok: bool, seconds: float, ended: float
) -> dict[str, Any]:
    """``totals`` with one run added: its rows (``metrics.as_row``), whether
    it succeeded, its duration and end (seconds since the epoch)."""
    totals["runs"]["success" if ok else "failure"] += 1
    totals["last_run"] = {"seconds": seconds, "ended": ended, "success": 1 if ok else 0}
    for row in rows:
        topic = totals["topics"].setdefault(str(row["topic"]), {"counters": {}, "reasons": {}})
        for _, field in COUNTERS.values():
            topic["counters"][field] = topic["counters"].get(field, 0) + int(row.get(field) or 0)
        for reason, count in (row.get("quarantined_by_reason") or {}).items():
            topic["reasons"][reason] = topic["reasons"].get(reason, 0) + int(count)
        gauges = topic.setdefault("gauges", {})
        for name in ("lag_seconds", "land_seconds", "dbt_seconds"):
            if row.get(name) is not None:
                gauges[name] = float(row[name])
        if ok:
            topic["last_success"] = ended
    return totals


def render(totals: dict[str, Any]) -> str:
    """The totals in Prometheus' text exposition format."""
    out: list[str] = []

    def family(name: str, kind: str, text: str, samples: list[tuple[str, float]]) -> None:
        out.extend([f"# HELP {name} {text}", f"# TYPE {name} {kind}"])
        out.extend(f"{name}{labels} {_number(value)}" for labels, value in samples)

    topics = sorted(totals["topics"].items())
    for name, (text, field) in COUNTERS.items():
        samples = [(_labels(topic=t), v["counters"].get(field, 0)) for t, v in topics]
        family(name, "counter", text, samples)
    quarantined = [
        (_labels(topic=t, reason=reason), count)
        for t, v in topics
        for reason, count in sorted(v["reasons"].items())
    ]
    family(QUARANTINED, "counter", "Records quarantined, by reason.", quarantined)
    lag = [
        (_labels(topic=t), v["gauges"]["lag_seconds"])
        for t, v in topics
        if "lag_seconds" in v.get("gauges", {})
    ]
    family(
        "cdc_source_lag_seconds",
        "gauge",
        "The last run's end minus the newest source commit time it staged.",
        lag,
    )
    steps = [
        (_labels(topic=t, step=step), v["gauges"][f"{step}_seconds"])
        for t, v in topics
        for step in ("land", "dbt")
        if f"{step}_seconds" in v.get("gauges", {})
    ]
    family("cdc_step_duration_seconds", "gauge", "Seconds of the topic's last run, by step.", steps)
    success = [(_labels(topic=t), v["last_success"]) for t, v in topics if "last_success" in v]
    family(
        "cdc_last_success_timestamp_seconds",
        "gauge",
        "When the last successful run that touched the topic ended.",
        success,
    )
    runs = [(_labels(outcome=k), v) for k, v in sorted(totals["runs"].items())]
    family("cdc_runs_total", "counter", "Runs (one-shot runs and watch cycles), by outcome.", runs)
    last = totals.get("last_run")
    if last is not None:
        family(
            "cdc_run_duration_seconds", "gauge", "The last run's duration.", [("", last["seconds"])]
        )
        family(
            "cdc_last_run_timestamp_seconds",
            "gauge",
            "When the last run ended.",
            [("", last["ended"])],
        )
        family(
            "cdc_last_run_success",
            "gauge",
            "1 when the last run succeeded, else 0.",
            [("", last["success"])],
        )
    return "\n".join(out) + "\n"


def _replace(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = path.with_name(path.name + ".tmp")
    fresh.write_text(text, encoding="utf-8")
    os.replace(fresh, path)


def record(state: Path, rows: Iterable[dict[str, Any]], ok: bool, seconds: float) -> str:
    """Add one run to the state folder's totals and rewrite its textfile;
    returns the text written."""
    totals = add_run(load(state), rows, ok, seconds, time.time())
    _replace(state / TOTALS_FILE, json.dumps(totals, sort_keys=True))
    text = render(totals)
    _replace(state / TEXTFILE, text)
    return text


def current_text(state: Path) -> str:
    """What the textfile holds now (the totals' text when there is none)."""
    try:
        return (state / TEXTFILE).read_text(encoding="utf-8")
    except OSError:
        return render(load(state))
