"""``report``: the last runs, from the metrics table, as a table, JSON or a
page with two charts (lag and throughput per run).

Rows come from ``metrics.read_runs`` (one per run and topic); a run's line
adds its topics up. The page is one self-contained HTML file with inline
SVG: no script, no network, readable in any browser.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from python_helpers.escaping import html_text


@dataclass(frozen=True)
class RunLine:
    """One run, its topics added up."""

    run_id: int
    started: str
    topics: int
    landed: int
    staged: int
    quarantined: int
    upserted: int
    deleted: int
    lag_seconds: float | None  # the largest of its topics'
    seconds: float

    @property
    def per_second(self) -> float:
        """Records staged and quarantined per second of the run."""
        done = self.staged + self.quarantined
        return done / self.seconds if self.seconds else 0.0


def _sum(rows: Sequence[dict[str, Any]], name: str) -> int:
    return sum(int(row[name] or 0) for row in rows)


def run_lines(rows: Sequence[dict[str, Any]]) -> list[RunLine]:
    """The runs of ``rows``, oldest first."""
    by_run: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_run.setdefault(int(row["run_id"]), []).append(row)
    lines = []
    for run_id in sorted(by_run):
        topics = by_run[run_id]
        lags = [float(t["lag_seconds"]) for t in topics if t["lag_seconds"] is not None]
        deleted = _sum(topics, "keys_deleted")
        lines.append(
            RunLine(
                run_id=run_id,
                started=str(topics[0]["run_started_at"]),
                topics=len(topics),
                landed=_sum(topics, "records_landed"),
                staged=_sum(topics, "records_staged"),
                quarantined=_sum(topics, "records_quarantined"),
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
    "upserted",
    "deleted",
    "lag s",
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
            line.upserted,
            line.deleted,
            "-" if line.lag_seconds is None else f"{line.lag_seconds:.1f}",
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
        out.append(
            f"  {row['topic']}: {row['records_landed']} landed, {row['records_staged']} staged,"
            f" {row['records_quarantined']} quarantined{f' ({why})' if why else ''},"
            f" keys +{row['keys_inserted']} ~{row['keys_updated']} -{row['keys_deleted']}"
        )
    return "\n".join(out)


def render_json(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as JSON (one object per run and topic)."""
    return json.dumps(list(rows), indent=2, sort_keys=True, default=str)


WIDTH, HEIGHT, MARGIN = 720, 220, 48


def _chart(title: str, unit: str, values: list[float | None], css: str) -> str:
    """An SVG line chart of ``values`` (one per run, None: no point)."""
    known = [v for v in values if v is not None]
    top = max(known, default=0.0) or 1.0
    step = (WIDTH - 2 * MARGIN) / max(len(values) - 1, 1)
    points = [
        (MARGIN + i * step, HEIGHT - MARGIN - (v / top) * (HEIGHT - 2 * MARGIN))
        for i, v in enumerate(values)
        if v is not None
    ]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dots = "".join(f'<circle class="{css}" cx="{x:.1f}" cy="{y:.1f}" r="3"/>' for x, y in points)
    return (
        f"<figure><figcaption>{html_text(title)}</figcaption>"
        f'<svg class="chart" width="{WIDTH}" height="{HEIGHT}" role="img"'
        f' aria-label="{html_text(title)}">'
        f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - MARGIN}"'
        f' y2="{HEIGHT - MARGIN}" class="axis"/>'
        f'<line x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{HEIGHT - MARGIN}" class="axis"/>'
        f'<text x="4" y="{MARGIN}">{top:.1f} {html_text(unit)}</text>'
        f'<text x="4" y="{HEIGHT - MARGIN}">0</text>'
        f'<text x="{MARGIN}" y="{HEIGHT - 16}">run 1</text>'
        f'<text x="{WIDTH - MARGIN - 40}" y="{HEIGHT - 16}">run {len(values)}</text>'
        f'<polyline class="{css}" fill="none" points="{path}"/>{dots}</svg></figure>'
    )


def render_html(rows: Sequence[dict[str, Any]]) -> str:
    """A page with the lag and the throughput of each run, and the table."""
    lines = run_lines(rows)
    lag = _chart(
        "Source-to-table lag per run (largest of its topics)",
        "s",
        [line.lag_seconds for line in lines],
        "lag",
    )
    rate = _chart(
        "Throughput per run (records staged or quarantined per second)",
        "rec/s",
        [line.per_second for line in lines],
        "rate",
    )
    table = html_text(render_text(rows))
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>CDC runs</title><style>"
        "body{font-family:sans-serif;margin:2em} .axis{stroke:#888}"
        " polyline.lag{stroke:#c0392b;stroke-width:2} circle.lag{fill:#c0392b}"
        " polyline.rate{stroke:#2471a3;stroke-width:2} circle.rate{fill:#2471a3}"
        " text{font-size:11px;fill:#444} pre{font-size:12px}</style></head><body>"
        f"<h1>The last {len(lines)} run(s)</h1>{lag}{rate}<pre>{table}</pre></body></html>\n"
    )
