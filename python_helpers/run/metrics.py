"""What each run did, per topic, kept in the warehouse.

Every run that lands or builds something (``run``, ``make run``, each cycle
of a watch) appends one row per topic it touched to
``cdc_landing._run_metrics`` (one Iceberg commit per run), from what the
run already knows and three statements over what it just wrote:

- landed, already landed, unreadable: the landing's own report;
- staged and quarantined (by reason): rows of the topic's base model
  staged by this run's dbt (``_staged_at``, the start of the dbt
  invocation, is not before the run's first dbt call; Iceberg skips every
  older data file by its statistics);
- keys: rows of the topic's ``__state`` table written by this run (their
  ``_staged_at`` likewise), of which delete markers are the deleted keys;
  of the rows written, those that replaced a row are the updated keys (the
  position deletes of the Iceberg commits on the table since the run's
  first dbt call, by the engine's clock), the others were inserted. Topics
  without a state table (MongoDB, metadata topics) have no key counts;
- lag: the run's end minus the newest source commit time staged;
- seconds: the landing's per topic, dbt's per topic (its models and their
  tests), the whole run's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from python_helpers.engine.sql_engine import SqlEngine
from python_helpers.escaping import spark_string
from python_helpers.land.raw_store import LandingReport
from python_helpers.land.raw_tables import RAW_SCHEMA, create_table
from python_helpers.run.alerts import human
from python_helpers.schema.metadata_topics import SCHEMA_CHANGES
from python_helpers.sequences import runs_of

METRICS_TABLE = f"{RAW_SCHEMA}._run_metrics"
# a tombstone (a null value after a delete) is the base model's verdict
# `tombstone`: counted apart, not as quarantined (issue 70)
TOMBSTONE = "tombstone"
COLUMNS = (
    ("run_id", "bigint"),
    ("topic", "string"),
    ("run_started_at", "timestamp"),
    ("run_ended_at", "timestamp"),
    ("records_landed", "bigint"),
    ("records_already_landed", "bigint"),
    ("records_unreadable", "bigint"),
    ("records_staged", "bigint"),
    ("records_quarantined", "bigint"),
    ("quarantined_by_reason", "string"),
    ("records_tombstones", "bigint"),
    ("keys_inserted", "bigint"),
    ("keys_updated", "bigint"),
    ("keys_deleted", "bigint"),
    ("newest_source_commit_at", "timestamp"),
    ("lag_seconds", "double"),
    ("land_seconds", "double"),
    ("dbt_seconds", "double"),
    ("run_seconds", "double"),
)


@dataclass
class TopicMetrics:
    """One row of the metrics table."""

    run_id: int
    topic: str
    run_started_at: datetime
    run_ended_at: datetime | None = None
    records_landed: int = 0
    records_already_landed: int = 0
    records_unreadable: int = 0
    records_staged: int | None = None
    records_quarantined: int | None = None
    quarantined_by_reason: dict[str, int] = field(default_factory=dict)
    # Kafka's delete markers after a delete: expected, never quarantined
    records_tombstones: int | None = None
    keys_inserted: int | None = None
    keys_updated: int | None = None
    keys_deleted: int | None = None
    newest_source_commit_at: datetime | None = None
    lag_seconds: float | None = None
    land_seconds: float = 0.0
    dbt_seconds: float | None = None
    run_seconds: float | None = None


@dataclass(frozen=True)
class TopicRelations:
    """Where a built topic's rows are (relation names), from dbt's manifest."""

    base: str | None
    state: str | None
    # the base model has `_cdc_source_committed_at`: every change-event
    # topic's, and a schema-change topic's (meta.cdc_kind: its metadata kind)
    commit_time: bool


_NODES: dict[Path, tuple[tuple[int, int], dict[str, dict[str, Any]]]] = {}


def manifest_nodes(manifest_path: Path) -> dict[str, dict[str, Any]]:
    """The nodes of a dbt manifest by unique id (none when there is none).
    Kept while the file is unchanged: a watch's metrics and maintenance
    read it every cycle (17 MB at 100 topics)."""
    if not manifest_path.exists():
        return {}
    stat = manifest_path.stat()
    key = (stat.st_mtime_ns, stat.st_size)
    kept = _NODES.get(manifest_path)
    if kept is not None and kept[0] == key:
        return kept[1]
    nodes: dict[str, dict[str, Any]] = json.loads(manifest_path.read_text(encoding="utf-8"))[
        "nodes"
    ]
    _NODES.clear()
    _NODES[manifest_path] = (key, nodes)
    return nodes


def topic_relations(nodes: dict[str, dict[str, Any]]) -> dict[str, TopicRelations]:
    """The base and state relations of every topic of a dbt manifest's nodes."""
    found: dict[str, dict[str, Any]] = {}
    for node in nodes.values():
        meta = (node.get("config") or {}).get("meta") or {}
        layer, topic = meta.get("cdc_layer"), meta.get("cdc_topic")
        if node["resource_type"] == "model" and layer in ("base", "state") and topic:
            found.setdefault(topic, {})[layer] = node
    relations = {}
    for topic, layers in found.items():
        base, state = layers.get("base"), layers.get("state")
        relations[topic] = TopicRelations(
            base["relation_name"] if base else None,
            state["relation_name"] if state else None,
            bool(base and _has_commit_time(base)),
        )
    return relations


def _has_commit_time(base: dict[str, Any]) -> bool:
    meta = (base.get("config") or {}).get("meta") or {}
    return meta.get("cdc_kind") in (None, SCHEMA_CHANGES)


def built_relations(
    relations: dict[str, TopicRelations], built: set[str]
) -> dict[str, TopicRelations]:
    """``relations`` without the tables dbt did not build in this run
    (``built``: the relation names of the models that succeeded): what this
    run staged is in those only, and a topic whose first build failed has
    no table to count from (one topic's failure leaves the others' counts)."""

    def kept(name: str | None) -> str | None:
        return name if name in built else None

    return {
        topic: TopicRelations(kept(rel.base), kept(rel.state), rel.commit_time)
        for topic, rel in relations.items()
    }


def dbt_seconds_by_topic(
    nodes: dict[str, dict[str, Any]], timings: dict[str, float]
) -> dict[str, float]:
    """Seconds dbt spent on each topic: its models and the tests on them
    (``timings``: node unique id -> execution seconds)."""

    def topic_of(node: dict[str, Any]) -> str | None:
        meta = (node.get("config") or {}).get("meta") or {}
        if meta.get("cdc_topic"):
            return str(meta["cdc_topic"])
        attached = node.get("attached_node")
        return topic_of(nodes[attached]) if attached in nodes else None

    seconds: dict[str, float] = {}
    for unique_id, elapsed in timings.items():
        topic = topic_of(nodes[unique_id]) if unique_id in nodes else None
        if topic is not None:
            seconds[topic] = seconds.get(topic, 0.0) + elapsed
    return seconds


def _literal(value: datetime) -> str:
    """A timestamp literal that means the same instant in any session time
    zone (a naive ``value`` is UTC)."""
    return f"timestamp_micros({_micros(value)})"


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(value: datetime) -> int:
    """Microseconds since the epoch, exactly (a naive ``value`` is UTC)."""
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return (aware - EPOCH) // timedelta(microseconds=1)


def _from_micros(value: Any) -> datetime | None:
    return None if value is None else EPOCH + timedelta(microseconds=int(value))


PARTS_PER_STATEMENT = 10


def add_counts(
    engine: SqlEngine,
    rows: dict[str, TopicMetrics],
    relations: dict[str, TopicRelations],
    since: datetime,
) -> None:
    """What dbt wrote since ``since``, per topic, one statement for every
    few topics (``PARTS_PER_STATEMENT`` table reads): staged, quarantined
    (by reason) and the newest source commit time (base rows); keys written
    and deleted (state rows); keys replaced (the position deletes of the
    state table's commits)."""
    stamp = _literal(since)
    parts = []
    for topic in sorted(rows):
        relation = relations.get(topic)
        if relation is None:
            continue
        name = spark_string(topic)
        if relation.base is not None:
            newest = (
                "unix_micros(max(_cdc_source_committed_at))"
                if relation.commit_time
                else "cast(null as bigint)"
            )
            parts.append(
                f"select 'base' as kind, {name} as topic, _quarantine_reason as reason,"
                f" count(*) as n, {newest} as newest, 0L as deleted"
                f" from {relation.base} where _staged_at >= {stamp} group by _quarantine_reason"
            )
        if relation.state is not None:
            parts.append(
                f"select 'state' as kind, {name} as topic, null as reason, count(*) as n,"
                " null as newest, count_if(_cdc_op = 'd') as deleted"
                f" from {relation.state} where _staged_at >= {stamp}"
            )
            parts.append(
                f"select 'replaced' as kind, {name} as topic, null as reason, coalesce(sum(cast("
                "coalesce(summary['added-position-deletes'], '0') as bigint)), 0) as n,"
                " null as newest, 0L as deleted"
                f" from {relation.state}.snapshots where committed_at >= {stamp}"
            )
    replaced: dict[str, int] = {}
    # a few parts a statement: every task of a statement carries its whole
    # plan, so one union of 300 parts (100 topics) took 29.5 s (issue 43);
    # every part names its columns (a statement may start with any kind)
    found = [
        row
        for run in runs_of(parts, PARTS_PER_STATEMENT)
        for row in engine.sql("\nunion all\n".join(run))
    ]
    for row in found:
        metrics, records = rows[row["topic"]], int(row["n"] or 0)
        if row["kind"] == "base":
            _add_staged(metrics, row["reason"], records, _from_micros(row["newest"]))
        elif row["kind"] == "state":
            metrics.keys_inserted, metrics.keys_deleted = records, int(row["deleted"] or 0)
        else:
            replaced[row["topic"]] = records
    for topic, metrics in rows.items():
        relation = relations.get(topic)
        if relation is not None and relation.base is not None:
            metrics.records_staged = metrics.records_staged or 0
            metrics.records_quarantined = metrics.records_quarantined or 0
            metrics.records_tombstones = metrics.records_tombstones or 0
        if metrics.keys_inserted is not None:  # written: inserted + replaced
            updated = min(replaced.get(topic, 0), metrics.keys_inserted)
            metrics.keys_inserted, metrics.keys_updated = metrics.keys_inserted - updated, updated


def _add_staged(
    metrics: TopicMetrics, reason: str | None, records: int, newest: datetime | None
) -> None:
    if reason is None:
        metrics.records_staged = (metrics.records_staged or 0) + records
        if newest is not None and (
            metrics.newest_source_commit_at is None or newest > metrics.newest_source_commit_at
        ):
            metrics.newest_source_commit_at = newest
        return
    if reason == TOMBSTONE:
        metrics.records_tombstones = (metrics.records_tombstones or 0) + records
        return
    metrics.records_quarantined = (metrics.records_quarantined or 0) + records
    reasons = metrics.quarantined_by_reason
    reasons[reason] = reasons.get(reason, 0) + records


def from_landing(
    run_id: int, started: datetime, reports: Iterable[LandingReport]
) -> dict[str, TopicMetrics]:
    """A row per topic the landing touched (read anything or rolled back)."""
    rows = {}
    for report in reports:
        if not (report.read or report.rolled_back):
            continue
        rows[report.topic] = TopicMetrics(
            run_id,
            report.topic,
            started,
            records_landed=report.landed,
            records_already_landed=report.already_landed,
            records_unreadable=report.unreadable,
            land_seconds=report.seconds,
        )
    return rows


def finish(rows: dict[str, TopicMetrics], ended: datetime, run_seconds: float) -> None:
    """Stamp the run's end, its seconds and each topic's lag."""
    for metrics in rows.values():
        metrics.run_ended_at = ended
        metrics.run_seconds = run_seconds
        if metrics.newest_source_commit_at is not None:
            metrics.lag_seconds = (ended - metrics.newest_source_commit_at).total_seconds()


def _value(value: Any, kind: str) -> str:
    if value is None:
        return f"cast(null as {kind})"
    if isinstance(value, datetime):
        return _literal(value)
    if isinstance(value, dict):
        return spark_string(json.dumps(value, sort_keys=True))
    if isinstance(value, str):
        return spark_string(value)
    return repr(value) + ("L" if kind == "bigint" else "")


# the metrics tables known to have every column (per engine), and the
# columns added since the table's first layout: a table of an older
# layout gets them once (an older row reads null)
_CURRENT: set[int] = set()
ADDED_COLUMNS = (("records_tombstones", "bigint"),)


def _prepare(engine: SqlEngine) -> None:
    """Create the table, or add the columns an older one lacks (once per
    engine)."""
    if id(engine) in _CURRENT:
        return
    create_table(engine, METRICS_TABLE, COLUMNS)
    present = {str(row["col_name"]) for row in engine.sql(f"describe table {METRICS_TABLE}")}
    missing = [(name, kind) for name, kind in ADDED_COLUMNS if name not in present]
    if missing:
        listed = ", ".join(f"{name} {kind}" for name, kind in missing)
        engine.sql(f"alter table {METRICS_TABLE} add columns ({listed})")
    _CURRENT.add(id(engine))


def write(engine: SqlEngine, rows: Iterable[TopicMetrics]) -> int:
    """Append the rows (one commit); returns how many."""
    listed = list(rows)
    _prepare(engine)
    if not listed:
        return 0
    values = ",\n".join(
        "(" + ", ".join(_value(asdict(m)[name], kind) for name, kind in COLUMNS) + ")"
        for m in listed
    )
    names = ", ".join(name for name, _ in COLUMNS)
    engine.sql(f"insert into {METRICS_TABLE} ({names}) values\n{values}")
    return len(listed)


def as_row(metrics: TopicMetrics) -> dict[str, Any]:
    """``metrics`` as ``read_runs`` returns a row: timestamps as ISO text
    (UTC), the reasons as the table's JSON text."""
    row: dict[str, Any] = {}
    for name, kind in COLUMNS:
        value = getattr(metrics, name)
        if kind == "timestamp":
            value = _iso(value)
        elif isinstance(value, dict):
            value = json.dumps(value, sort_keys=True)
        row[name] = value
    return row


def _iso(stamp: datetime | None) -> str | None:
    """ISO text in UTC, to the microsecond (a naive ``stamp`` is UTC)."""
    if stamp is None:
        return None
    exact = _from_micros(_micros(stamp))
    assert exact is not None
    return exact.isoformat().replace("+00:00", "Z")


def read_runs(engine: SqlEngine, runs: int) -> list[dict[str, Any]]:
    """The rows of the last ``runs`` runs, oldest first; timestamps as ISO
    text (UTC), the same from every engine."""
    schema, _, table = METRICS_TABLE.partition(".")
    if not engine.sql(f"show tables in {schema} like '{table}'"):
        return []  # no run recorded yet
    _prepare(engine)
    stamps = [name for name, kind in COLUMNS if kind == "timestamp"]
    columns = ", ".join(
        f"unix_micros({name}) as {name}" if name in stamps else name for name, _ in COLUMNS
    )
    query = (
        f"select {columns} from {METRICS_TABLE} where run_id in"
        f" (select distinct run_id from {METRICS_TABLE} order by run_id desc limit {runs})"
        " order by run_id, topic"
    )
    rows = engine.sql(query)
    for row in rows:
        for name in stamps:
            row[name] = _iso(_from_micros(row[name]))
    return rows


def _total(rows: list[TopicMetrics], name: str) -> int:
    return sum(getattr(row, name) or 0 for row in rows)


def summary_line(rows: list[TopicMetrics]) -> str:
    """One line of what a run did: topics, records, keys, lag, seconds."""
    lags = [row.lag_seconds for row in rows if row.lag_seconds is not None]
    seconds = max((row.run_seconds or 0.0 for row in rows), default=0.0)
    upserted = _total(rows, "keys_inserted") + _total(rows, "keys_updated")
    deleted = _total(rows, "keys_deleted")
    lag = f"lag {human(max(lags))}" if lags else "lag -"
    return (
        f"run {rows[0].run_id if rows else '-'}: {len(rows)} topic(s),"
        f" {_total(rows, 'records_landed')} landed, {_total(rows, 'records_staged')} staged,"
        f" {_total(rows, 'records_quarantined')} quarantined,"
        f" {_total(rows, 'records_tombstones')} tombstones,"
        f" keys {upserted - deleted} upserted / {deleted} deleted, {lag}, {seconds:.1f}s"
    )
