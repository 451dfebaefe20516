"""`dbt source freshness` in the same process as a run, summarised.

dbt prints a line per source table; `make run` prints this table instead:
each raw landing, the newest Kafka timestamp landed for it, its age and
dbt's verdict against the thresholds in dbt_project.yml.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Freshness:
    source: str
    newest: datetime | None
    age_hours: float | None
    status: str


def freshness_rows(result: Any) -> list[Freshness]:
    """The rows of a `dbt source freshness` result (dbtRunnerResult.result)."""
    rows = []
    for item in getattr(result, "results", None) or []:
        node = item.node
        newest = getattr(item, "max_loaded_at", None)
        age = getattr(item, "age", None)
        rows.append(
            Freshness(
                source=f"{node.source_name}.{node.name}",
                newest=newest,
                age_hours=None if age is None else age / 3600,
                status=str(getattr(item.status, "value", item.status)),
            )
        )
    return sorted(rows, key=lambda row: row.source)


def render(rows: list[Freshness]) -> str:
    """A plain-text table of ``rows`` and a count per status."""
    if not rows:
        return "source freshness: no source has a freshness threshold"
    width = max(len(row.source) for row in rows)
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
