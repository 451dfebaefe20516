"""``report --html FILE``: the page an operator opens (issue 45).

From the state folder alone (no Spark, like ``report``): what needs
attention first (``run.alerts``' findings, each quarantine reason with its
meaning and what to do, from the seed), then the runs' lag and throughput,
then one section per topic over the last runs — its lag beside the source
time it was measured against, throughput, keys changed and quarantined
records by reason per run, and its quarantine summary (the model
``cdc_quarantine_summary``'s rows that runs kept, ``run.quarantine``).

One self-contained HTML file: inline SVG charts, no script, no network.
Every name and value from the data goes through ``html_text``. Charts
scale to the page (``viewBox``), tables wrap long names: nothing scrolls
sideways on a laptop screen (checked at 1280 px in Chromium).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from python_helpers.escaping import html_text
from python_helpers.project.quarantine_reasons import Reason
from python_helpers.run.alerts import Finding, human, quarantined_by_reason
from python_helpers.run.metrics import TOMBSTONE
from python_helpers.run.report import run_lines

WIDTH, HEIGHT, PAD = 720, 200, 44
PALETTE = ("#d35400", "#8e44ad", "#c0392b", "#16a085", "#f39c12", "#7f8c8d")
REASON_COLOURS = len(PALETTE)
SMALL_WIDTH, SMALL_HEIGHT, SMALL_PAD = 360, 140, 34

STYLE = """
body{font-family:system-ui,sans-serif;margin:0 auto;padding:1em 1.5em;max-width:1200px;
color:#222;line-height:1.4;overflow-wrap:anywhere}
h1{font-size:1.5em;margin:.2em 0} h2{font-size:1.2em;margin:1.4em 0 .4em}
h3{font-size:1.05em;margin:0 0 .3em;overflow-wrap:anywhere}
.muted{color:#666} .attention li{margin:.3em 0} .ok{color:#1e7b34}
.attention .why{color:#a12} .attention .todo{color:#444;font-size:.92em}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:.6em}
figure{margin:0;min-width:0} figcaption{font-size:.85em;color:#444}
svg.chart{width:100%;height:auto;display:block;background:#fafafa}
.axis{stroke:#999} text{font-size:11px;fill:#555}
polyline.lag{stroke:#c0392b;stroke-width:2} circle.lag{fill:#c0392b}
polyline.rate{stroke:#2471a3;stroke-width:2} circle.rate{fill:#2471a3}
rect.inserted{fill:#27ae60} rect.updated{fill:#2471a3} rect.deleted{fill:#7f8c8d}
section.topic{border:1px solid #ddd;border-radius:6px;padding:.8em;margin:.8em 0}
section.topic.needs{border-color:#c0392b}
table{border-collapse:collapse;width:100%;table-layout:fixed;font-size:.88em}
th,td{border-bottom:1px solid #e3e3e3;padding:.25em .4em;text-align:left;vertical-align:top;
overflow-wrap:anywhere}
.legend span{display:inline-block;margin-right:1em;font-size:.85em}
.swatch{display:inline-block;width:.8em;height:.8em;margin-right:.3em;vertical-align:middle}
.inserted-swatch{background:#27ae60} .updated-swatch{background:#2471a3}
.deleted-swatch{background:#7f8c8d}
""" + "".join(
    f"rect.q{i}{{fill:{colour}}} .q{i}-swatch{{background:{colour}}}\n"
    for i, colour in enumerate(PALETTE)
)


@dataclass(frozen=True)
class Page:
    """What the page shows."""

    rows: Sequence[dict[str, Any]]  # metrics rows of the last runs, oldest first
    findings: Sequence[Finding]
    summary: dict[str, list[dict[str, Any]]]  # cdc_quarantine_summary rows by topic
    reasons: dict[str, Reason]  # the seed's
    topics: int  # how many topics the project declares
    now: datetime


def _number(value: Any) -> float:
    return float(value or 0)


def _when(value: Any) -> str:
    """A stored timestamp as people read it (UTC, to the minute)."""
    text = str(value or "")
    return text[:16].replace("T", " ") + " UTC" if text else "-"


def _rate(value: float) -> str:
    return f"{value:.0f} rec/s" if value >= 10 else f"{value:.2f} rec/s"


def _scale(values: Sequence[float | None], width: int, height: int, pad: int) -> Any:
    known = [v for v in values if v is not None]
    top = max(known, default=0.0) or 1.0
    step = (width - 2 * pad) / max(len(values) - 1, 1)

    def point(index: int, value: float) -> tuple[float, float]:
        return pad + index * step, height - pad - (value / top) * (height - 2 * pad)

    return top, step, point


def _frame(width: int, height: int, pad: int, top_label: str, runs: int, title: str) -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img"'
        f' aria-label="{html_text(title)}">'
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}"'
        ' class="axis"/>'
        f'<line x1="{pad}" y1="{pad / 2}" x2="{pad}" y2="{height - pad}" class="axis"/>'
        f'<text x="2" y="{pad / 2 + 4}">{html_text(top_label)}</text>'
        f'<text x="2" y="{height - pad}">0</text>'
        f'<text x="{pad}" y="{height - pad / 3}">run 1</text>'
        f'<text x="{width - pad - 44}" y="{height - pad / 3}">run {runs}</text>'
    )


def line_chart(
    title: str,
    values: Sequence[float | None],
    css: str,
    label: Any,
    small: bool = False,
) -> str:
    """A line chart of ``values`` (one per run; None: no point); ``label``
    writes the top of the scale."""
    width, height, pad = (SMALL_WIDTH, SMALL_HEIGHT, SMALL_PAD) if small else (WIDTH, HEIGHT, PAD)
    top, _, point = _scale(values, width, height, pad)
    points = [point(i, v) for i, v in enumerate(values) if v is not None]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dots = "".join(f'<circle class="{css}" cx="{x:.1f}" cy="{y:.1f}" r="3"/>' for x, y in points)
    return (
        f"<figure><figcaption>{html_text(title)}</figcaption>"
        + _frame(width, height, pad, label(top), len(values), title)
        + f'<polyline class="{css}" fill="none" points="{path}"/>{dots}</svg></figure>'
    )


def bar_chart(title: str, series: Sequence[tuple[str, str, Sequence[float]]], runs: int) -> str:
    """Stacked bars per run: ``series`` is (css class, label, values per
    run); the label is text (a quarantine reason from the data)."""
    width, height, pad = SMALL_WIDTH, SMALL_HEIGHT, SMALL_PAD
    totals = [sum(values[i] for _, _, values in series) for i in range(runs)]
    top, step, point = _scale(totals, width, height, pad)
    bar = max(min(step * 0.6, 24.0), 2.0)
    rects = []
    for index in range(runs):
        base = 0.0
        for css, _, values in series:
            if values[index] <= 0:
                continue
            x, y_top = point(index, base + values[index])
            _, y_low = point(index, base)
            rects.append(
                f'<rect class="{css}" x="{x - bar / 2:.1f}" y="{y_top:.1f}" width="{bar:.1f}"'
                f' height="{max(y_low - y_top, 0.5):.1f}"/>'
            )
            base += values[index]
    legend = "".join(
        f'<span><i class="swatch {css}-swatch"></i>{html_text(label)}</span>'
        for css, label, _ in series
    )
    return (
        f"<figure><figcaption>{html_text(title)}</figcaption>"
        + _frame(width, height, pad, f"{top:.0f}", runs, title)
        + "".join(rects)
        + f'</svg><div class="legend">{legend}</div></figure>'
    )


def _by_reason(ordered: list[dict[str, Any] | None]) -> list[tuple[str, str, list[float]]]:
    """Quarantined records per run, a series per reason (the most frequent
    REASON_COLOURS - 1, the rest as "other"); one empty series when none."""
    per_run = [quarantined_by_reason(r) if r else {} for r in ordered]
    totals: dict[str, int] = {}
    for reasons in per_run:
        for name, count in reasons.items():
            totals[name] = totals.get(name, 0) + count
    names = sorted(totals, key=lambda n: (-totals[n], n))
    shown = names if len(names) <= REASON_COLOURS else names[: REASON_COLOURS - 1]
    series = [
        (f"q{i}", name, [float(reasons.get(name, 0)) for reasons in per_run])
        for i, name in enumerate(shown)
    ]
    if len(shown) < len(names):
        other = [float(sum(c for n, c in r.items() if n not in shown)) for r in per_run]
        series.append((f"q{len(shown)}", "other reasons", other))
    return series or [("q0", "quarantined", [0.0] * len(ordered))]


def _attention(page: Page) -> str:
    if not page.findings:
        return (
            '<section class="attention"><h2>Needs attention</h2><p class="ok">Nothing: all'
            f" {page.topics} topic(s) within their limits, no quarantined record that needs"
            " a person in their last runs.</p></section>"
        )
    items = []
    for finding in page.findings:
        todo = "".join(
            f'<div class="todo"><code>{html_text(name)}</code>: {html_text(reason.meaning)}'
            f" <b>What to do:</b> {html_text(reason.what_to_do)}</div>"
            for name in finding.reasons
            if (reason := page.reasons.get(name)) is not None
        )
        items.append(
            f'<li><a href="#{_anchor(finding.topic)}"><b>{html_text(finding.topic)}</b></a>:'
            f' <span class="why">{html_text(finding.why)}</span>{todo}</li>'
        )
    bad = len({f.topic for f in page.findings})
    return (
        f'<section class="attention"><h2>Needs attention: {bad} of {page.topics} topic(s)</h2>'
        f"<ol>{''.join(items)}</ol></section>"
    )


def _anchor(topic: str) -> str:
    """A fragment id for a topic (its characters as code points: any name)."""
    return "topic-" + "-".join(f"{ord(c):x}" for c in topic)


def _topic_section(
    topic: str, rows: list[dict[str, Any]], runs: list[int], page: Page, needs: bool
) -> str:
    by_run = {int(row["run_id"]): row for row in rows}
    ordered = [by_run.get(run) for run in runs]
    newest = rows[-1]
    lag = newest.get("lag_seconds")
    ended = newest.get("run_ended_at") or newest.get("run_started_at")
    source = newest.get("newest_source_commit_at")
    lag_text = (
        f"lag {human(float(lag))} (source time {_when(source)})"
        if lag is not None
        else "lag - (nothing staged with a source time)"
    )
    lags = [
        None if r is None or r.get("lag_seconds") is None else float(r["lag_seconds"])
        for r in ordered
    ]
    rates = [
        None
        if r is None or not _number(r.get("run_seconds"))
        else (
            _number(r.get("records_staged"))
            + _number(r.get("records_quarantined"))
            + _number(r.get("records_tombstones"))
        )
        / _number(r.get("run_seconds"))
        for r in ordered
    ]
    keys = [
        (name, name, [_number(r.get(f"keys_{name}")) if r else 0.0 for r in ordered])
        for name in ("inserted", "updated", "deleted")
    ]
    quarantined = _by_reason(ordered)
    charts = (
        line_chart("Source-to-table lag", lags, "lag", lambda top: human(top), small=True)
        + line_chart(
            "Throughput (records staged, quarantined or tombstones / s)",
            rates,
            "rate",
            _rate,
            small=True,
        )
        + bar_chart("Keys changed", keys, len(runs))
        + bar_chart("Quarantined records, by reason", quarantined, len(runs))
    )
    return (
        f'<section class="topic{" needs" if needs else ""}" id="{_anchor(topic)}">'
        f"<h3>{html_text(topic)}</h3>"
        f'<p class="muted">last run {_when(ended)}'
        f" · {html_text(lag_text)} · in {len(rows)} of the last {len(runs)} run(s)</p>"
        f'<div class="charts">{charts}</div>' + _quarantine_table(topic, rows, page) + "</section>"
    )


def _quarantine_table(topic: str, rows: list[dict[str, Any]], page: Page) -> str:
    recent: dict[str, int] = {}
    for row in rows:
        for name, count in quarantined_by_reason(row).items():
            recent[name] = recent.get(name, 0) + count
    # a delete's tombstone is counted as such, not as quarantined
    summary = {
        str(r["reason"]): r for r in page.summary.get(topic, []) if r["reason"] != TOMBSTONE
    }
    names = sorted(set(recent) | set(summary))
    if not names:
        return '<p class="muted">Quarantine: empty.</p>'
    body = []
    for name in names:
        reason = page.reasons.get(name)
        kept = summary.get(name) or {}
        example = (
            f"partition {kept.get('example_kafka_partition')}, offset"
            f" {kept.get('example_kafka_offset')} ({kept.get('example_landing_file')} line"
            f" {kept.get('example_landing_line')})"
            if kept
            else "-"
        )
        span = (
            f"{_when(kept.get('oldest_landed_at'))} – {_when(kept.get('newest_landed_at'))}"
            if kept
            else "-"
        )
        body.append(
            "<tr>"
            f"<td><code>{html_text(name)}</code></td>"
            f"<td>{recent.get(name, 0)}</td>"
            f"<td>{html_text(kept.get('records', '-'))}</td>"
            f"<td>{html_text(span)}</td>"
            f"<td>{html_text(example)}</td>"
            f"<td>{html_text(reason.meaning if reason else 'not in the seed')}"
            + (f" <b>What to do:</b> {html_text(reason.what_to_do)}" if reason else "")
            + (" <i>(expected)</i>" if reason and not reason.needs_attention else "")
            + "</td></tr>"
        )
    return (
        "<table><colgroup><col style='width:14%'><col style='width:7%'><col style='width:7%'>"
        "<col style='width:17%'><col style='width:19%'><col style='width:36%'></colgroup>"
        "<thead><tr><th>quarantine reason</th><th>these runs</th><th>all landings</th>"
        "<th>oldest – newest landing</th><th>newest record</th><th>meaning</th></tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def render(page: Page) -> str:
    """The whole page."""
    lines = run_lines(page.rows)
    runs = [line.run_id for line in lines]
    overview = line_chart(
        "Source-to-table lag per run (the largest of every topic's, as of its latest run)",
        [line.lag_seconds for line in lines],
        "lag",
        lambda top: human(top),
    ) + line_chart(
        "Throughput per run (records staged or quarantined per second)",
        [line.per_second for line in lines],
        "rate",
        _rate,
    )
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for row in page.rows:
        by_topic.setdefault(str(row["topic"]), []).append(row)
    first = list(dict.fromkeys(f.topic for f in page.findings))
    rest = sorted(
        (t for t in by_topic if t not in first),
        key=lambda t: (-int(by_topic[t][-1]["run_id"]), t),
    )
    sections = "".join(
        _topic_section(topic, by_topic[topic], runs, page, topic in first)
        for topic in [*first, *rest]
        if topic in by_topic
    )
    span = f"{_when(lines[0].started)} to {_when(lines[-1].started)}" if lines else "no run yet"
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>CDC report</title><style>{STYLE}</style></head><body>"
        f"<h1>CDC report: the last {len(lines)} run(s)</h1>"
        f'<p class="muted">{html_text(span)} · {len(by_topic)} topic(s) touched of'
        f" {page.topics} · written {_when(page.now.astimezone(UTC).isoformat())}</p>"
        + _attention(page)
        + f'<h2>All topics</h2><div class="charts" id="runs">{overview}</div>'
        + f"<h2>Per topic</h2>{sections}</body></html>\n"
    )
