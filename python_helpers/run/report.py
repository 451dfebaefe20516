"""``report``: the last runs, from the metrics table, as a table or JSON
(the page: ``report_page``).

Rows come from ``metrics.read_runs`` (one per run and topic); a run's line
adds its topics up. Durations are written in the unit a person reads (s,
min, h, days), a lag beside the source time it was measured against.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from python_helpers.run.alerts import human


@dataclass(frozen=True)
class RunLine:
    """One run, its topics added up."""

    run_id: int
    started: str
    topics: int
    landed: int
    staged: int
    quarantined: int
    # a delete's tombstone: expected, not quarantined
    tombstones: int
    upserted: int
    deleted: int
    # the largest lag of every topic as of this run: a topic's lag from its
    # latest run up to this one (a run touching only a healthy topic must
    # not hide another that is days behind)
    lag_seconds: float | None
    seconds: float

    @property
    def per_second(self) -> float:
        """Records staged and quarantined per second of the run."""
        done = self.staged + self.quarantined
        return done / self.seconds if self.seconds else 0.0


def _sum(rows: Sequence[dict[str, Any]], name: str) -> int:
    """A count added up (a row written before the column was added has none)."""
    return sum(int(row.get(name) or 0) for row in rows)


def run_lines(rows: Sequence[dict[str, Any]]) -> list[RunLine]:
    """The runs of ``rows``, oldest first."""
    by_run: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_run.setdefault(int(row["run_id"]), []).append(row)
    lines = []
    latest: dict[str, float] = {}  # each topic's lag as of its latest run so far
    for run_id in sorted(by_run):
        topics = by_run[run_id]
        for topic in topics:
            if topic["lag_seconds"] is not None:
                latest[str(topic["topic"])] = float(topic["lag_seconds"])
        lags = list(latest.values())
        deleted = _sum(topics, "keys_deleted")
        lines.append(
            RunLine(
                run_id=run_id,
                started=str(topics[0]["run_started_at"]),
                topics=len(topics),
                landed=_sum(topics, "records_landed"),
                staged=_sum(topics, "records_staged"),
                quarantined=_sum(topics, "records_quarantined"),
                tombstones=_sum(topics, "records_tombstones"),
                upserted=_sum(topics, "keys_inserted") + _sum(topics, "keys_updated") - deleted,
                deleted=deleted,
                lag_seconds=max(lags) if lags else None,
                seconds=max(float(t["run_seconds"] or 0.0) for t in topics),
            )
        )
    return lines


HEADER = (
    "run",
    "started (UTC)",
    "topics",
    "landed",
    "staged",
    "quarantined",
    "tombstones",
    "upserted",
    "deleted",
    "lag",
    "run s",
)


def render_text(rows: Sequence[dict[str, Any]]) -> str:
    """The runs as a table, then the topics of the newest run."""
    lines = run_lines(rows)
    if not lines:
        return "no runs recorded yet: `make run` records one per run that lands or builds"
    out = ["  ".join(f"{h:>12}" if i > 1 else f"{h:<24}" for i, h in enumerate(HEADER))]
    for line in lines:
        cells = [
            str(line.run_id),
            line.started[:19],
            line.topics,
            line.landed,
            line.staged,
            line.quarantined,
            line.tombstones,
            line.upserted,
            line.deleted,
            "-" if line.lag_seconds is None else human(line.lag_seconds),
            f"{line.seconds:.1f}",
        ]
        out.append(
            "  ".join(f"{c:>12}" if i > 1 else f"{c:<24}" for i, c in enumerate(map(str, cells)))
        )
    newest = [row for row in rows if int(row["run_id"]) == lines[-1].run_id]
    out.append("")
    out.append(f"topics of run {lines[-1].run_id}:")
    for row in newest:
        reasons = json.loads(row["quarantined_by_reason"] or "{}")
        why = ", ".join(f"{reason}: {count}" for reason, count in sorted(reasons.items()))
        lag = row.get("lag_seconds")
        source = str(row.get("newest_source_commit_at") or "")[:19].replace("T", " ")
        lagged = f", lag {human(float(lag))} (source time {source} UTC)" if lag is not None else ""
        out.append(
            f"  {row['topic']}: {row['records_landed']} landed, {row['records_staged']} staged,"
            f" {row['records_quarantined']} quarantined{f' ({why})' if why else ''},"
            f" {row.get('records_tombstones') or 0} tombstones,"
            f" keys +{row['keys_inserted']} ~{row['keys_updated']} -{row['keys_deleted']}{lagged}"
        )
    return "\n".join(out)


def render_json(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as JSON (one object per run and topic)."""
    return json.dumps(list(rows), indent=2, sort_keys=True, default=str)
