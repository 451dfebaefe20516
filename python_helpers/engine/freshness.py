"""Source freshness, as `make run` prints it: each raw landing, the newest
Kafka timestamp landed for it, its age and the verdict against the
thresholds in dbt_project.yml (``sources: cdc: +freshness``).

A run does not ask dbt (`dbt source freshness` scans each raw table whole:
its loaded_at_field is an expression; 14 s of a newcomer's first run): the
landing notes each topic's newest record as it lands it (``remember``, a
file in the state folder), so the table costs nothing. `dbt source
freshness` keeps working, with the same thresholds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml

FRESHNESS_FILE = "source-freshness.json"
PERIOD_SECONDS = {"minute": 60, "hour": 3600, "day": 86400}


@dataclass(frozen=True)
class Freshness:
    source: str
    newest: datetime | None
    age_hours: float | None
    status: str


def remember(state: Path, newest: Iterable[tuple[str, int | None]]) -> None:
    """Note each topic's newest record landed (ms since the epoch), keeping
    the newer of it and what was noted before."""
    known = _noted(state)
    changed = False
    for topic, ms in newest:
        if ms is not None and ms > known.get(topic, -1):
            known[topic] = ms
            changed = True
    if changed:
        state.mkdir(parents=True, exist_ok=True)
        (state / FRESHNESS_FILE).write_text(json.dumps(known, sort_keys=True), encoding="utf-8")


def _noted(state: Path) -> dict[str, int]:
    """What the landings noted: per topic, its newest record (ms)."""
    path = state / FRESHNESS_FILE
    noted: dict[str, int] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return noted


def thresholds(project: Path) -> dict[str, float]:
    """``warn`` and ``error`` ages in seconds from dbt_project.yml's
    ``sources: <project>: +freshness`` (those it sets)."""
    loaded = yaml.safe_load((project / "dbt_project.yml").read_text(encoding="utf-8")) or {}
    name = loaded.get("name")
    given = ((loaded.get("sources") or {}).get(name) or {}).get("+freshness") or {}
    found = {}
    for level in ("warn", "error"):
        after = given.get(f"{level}_after") or {}
        if after.get("count") is not None and after.get("period") in PERIOD_SECONDS:
            found[level] = float(after["count"]) * PERIOD_SECONDS[after["period"]]
    return found


def landed_rows(
    state: Path, topics: Iterable[str], limits: dict[str, float], now: datetime | None = None
) -> list[Freshness]:
    """The freshness of ``topics`` from what the landing noted: ``pass``,
    ``warn`` or ``error`` by ``limits`` (``thresholds``); ``unknown`` for a
    topic landed before the landing noted it (`dbt source freshness` says)."""
    known = _noted(state)
    moment = now or datetime.now(UTC)
    rows = []
    for topic in sorted(set(topics)):
        ms = known.get(topic)
        if ms is None:
            rows.append(Freshness(topic, None, None, "unknown"))
            continue
        newest = datetime.fromtimestamp(ms / 1000, UTC)
        age = (moment - newest).total_seconds()
        status = "pass"
        for level in ("warn", "error"):
            if level in limits and age > limits[level]:
                status = level
        rows.append(Freshness(topic, newest, age / 3600, status))
    return rows


def render(rows: list[Freshness]) -> str:
    """A plain-text table of ``rows`` and a count per status."""
    if not rows:
        return "source freshness: no source has a freshness threshold"
    width = max(len(row.source) for row in rows + [Freshness("raw landing", None, None, "")])
    lines = [f"{'raw landing':<{width}}  {'newest Kafka timestamp':<26}  {'age':>10}  status"]
    for row in rows:
        newest = row.newest.strftime("%Y-%m-%d %H:%M:%S") if row.newest else "-"
        age = "-" if row.age_hours is None else _age(row.age_hours)
        lines.append(f"{row.source:<{width}}  {newest:<26}  {age:>10}  {row.status}")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.status] = counts.get(row.status, 0) + 1
    tally = ", ".join(f"{count} {status}" for status, count in sorted(counts.items()))
    lines.append(
        f"source freshness: {len(rows)} raw landings ({tally}); thresholds in dbt_project.yml"
    )
    return "\n".join(lines)


def _age(hours: float) -> str:
    if hours < 48:
        return f"{hours:.1f} h"
    return f"{hours / 24:.0f} d"
