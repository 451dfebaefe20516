"""``report --check``: which topics need attention, as an exit code a
scheduler can act on (issue 45).

A topic fails the check when its last run's source lag is over its
``max_lag``, when its last successful run ended longer ago than its
``max_staleness`` (or none is recorded here), or when its last run
quarantined records. Limits: the topic's declaration (``max_lag: 10m`` in
``topics/<topic>.yml``), else the project vars ``cdc_max_lag`` and
``cdc_max_staleness`` (dbt_project.yml), else the command's options. Reads
the state folder only (the runs' log and the Prometheus totals): no Spark.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([smhd]?)\s*\Z")
DEFAULTS = {"max_lag": "1h", "max_staleness": "1d"}


def seconds(text: Any) -> float:
    """A duration: a number of seconds, or `30s`, `10m`, `2h`, `1d`."""
    found = _DURATION.match(str(text))
    if found is None:
        raise ValueError(f"not a duration: {text!r} (a number of seconds, or 30s, 10m, 2h, 1d)")
    return float(found[1]) * UNITS[found[2] or "s"]


def human(value: float) -> str:
    """Seconds in the unit a person reads: s, min, h or days."""
    if value < 120:
        return f"{value:.0f} s"
    if value < 7200:
        return f"{value / 60:.0f} min"
    if value < 172800:
        return f"{value / 3600:.1f} h"
    return f"{value / 86400:.0f} days"


def project_limits(project: Path) -> dict[str, float]:
    """The project's own limits (vars ``cdc_max_lag``, ``cdc_max_staleness``)."""
    loaded = yaml.safe_load((project / "dbt_project.yml").read_text(encoding="utf-8")) or {}
    given = loaded.get("vars") or {}
    return {
        name: seconds(given[f"cdc_{name}"])
        for name in DEFAULTS
        if given.get(f"cdc_{name}") is not None
    }


def topic_limits(
    project: Path, topics: list[str], given: dict[str, str | None]
) -> dict[str, dict[str, float]]:
    """Each topic's limits: its declaration's, else the command's options
    (``given``), else the project vars, else DEFAULTS; a declaration that is
    not a duration raises ValueError naming its file."""
    from python_helpers.topic.topics import stored_settings

    base = {name: seconds(value) for name, value in DEFAULTS.items()}
    base |= project_limits(project)
    base |= {name: seconds(value) for name, value in given.items() if value is not None}
    limits = {}
    for topic in topics:
        declared = stored_settings(project, topic)
        try:
            limits[topic] = base | {
                name: seconds(declared[name]) for name in DEFAULTS if name in declared
            }
        except ValueError as error:
            raise ValueError(f"topics/{topic}.yml: {error}") from error
    return limits


@dataclass(frozen=True)
class Finding:
    topic: str
    why: str
    # the quarantine reasons that need a person, for a quarantining topic
    reasons: tuple[str, ...] = ()


def check(
    last_rows: dict[str, dict[str, Any]],
    last_success: dict[str, float],
    limits: dict[str, dict[str, float]],
    now: float | None = None,
    expected: set[str] | frozenset[str] = frozenset(),
) -> list[Finding]:
    """What is wrong, per topic: ``last_rows`` (each topic's row of its last
    run, as the runs' log keeps it), ``last_success`` (when its last
    successful run ended, seconds since the epoch), ``limits`` (per topic:
    ``max_lag``, ``max_staleness`` in seconds); ``expected``: quarantine
    reasons that need no person (the seed's, ``run.quarantine``: a
    tombstone after every delete), not counted."""
    now = time.time() if now is None else now
    found = []
    for topic in sorted(limits):
        limit = limits[topic]
        row = last_rows.get(topic) or {}
        lag = row.get("lag_seconds")
        if lag is not None and float(lag) > limit["max_lag"]:
            why = f"source lag {human(float(lag))} > max_lag {human(limit['max_lag'])}"
            found.append(Finding(topic, why))
        ended = last_success.get(topic)
        if ended is None:
            found.append(Finding(topic, "no successful run recorded in this state folder"))
        elif now - ended > limit["max_staleness"]:
            found.append(
                Finding(
                    topic,
                    f"last successful run {human(now - ended)} ago"
                    f" > max_staleness {human(limit['max_staleness'])}",
                )
            )
        reasons = quarantined_by_reason(row)
        needing = {r: n for r, n in sorted(reasons.items()) if r not in expected and n}
        if needing:
            listed = ", ".join(f"{reason} {count}" for reason, count in needing.items())
            why = f"its last run quarantined {sum(needing.values())} record(s): {listed}"
            found.append(Finding(topic, why, tuple(needing)))
    return found


def quarantined_by_reason(row: dict[str, Any]) -> dict[str, int]:
    """A metrics row's quarantined records by reason (all under "unknown"
    when the row has no breakdown); the report page reads it too."""
    given = row.get("quarantined_by_reason")
    try:
        reasons = json.loads(given) if isinstance(given, str) else dict(given or {})
    except ValueError:
        reasons = {}
    total = int(row.get("records_quarantined") or 0)
    if total and not reasons:
        return {"unknown": total}
    return {str(reason): int(count or 0) for reason, count in reasons.items()}


def last_rows(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each topic's row of the newest run that touched it."""
    newest: dict[str, dict[str, Any]] = {}
    for row in rows:  # oldest first
        newest[str(row["topic"])] = row
    return newest
