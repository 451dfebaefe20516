"""What one run did, gathered while it runs, then kept in the metrics table.

``run`` (and each cycle of a watch) makes one: the landing's reports give
the first rows; each dbt invocation adds the topics it builds and the
seconds of its nodes; ``keep`` counts what dbt wrote and appends the rows
(``metrics``).
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from python_helpers.engine.watch_endpoint import state_dir
from python_helpers.run import metrics, metrics_log, quarantine
from python_helpers.run.metrics import TopicMetrics


class RunRecord:
    """What a run did, per topic, for the metrics table (``run.metrics``)."""

    def __init__(self, rows: dict[str, TopicMetrics]) -> None:
        self.rows = rows
        self.run_id = next(iter(rows.values())).run_id if rows else None
        self.since: datetime | None = None
        self.timings: dict[str, float] = {}
        self.built: set[str] = set()  # relation names of the models built

    def dbt_starts(self, topics: list[str]) -> None:
        """dbt is about to build ``topics``: each gets a row."""
        now = datetime.now(UTC)
        self.since = self.since or now
        if self.run_id is None:
            self.run_id = time.time_ns() // 1000
        for topic in topics:
            self.rows.setdefault(topic, TopicMetrics(self.run_id, topic, now))

    def dbt_done(self, result: Any) -> None:
        """Keep the seconds of every node dbt ran."""
        for node in getattr(result.result, "results", None) or []:
            self.timings[node.node.unique_id] = float(node.execution_time or 0.0)
            if str(node.status) == "success" and getattr(node.node, "relation_name", None):
                self.built.add(str(node.node.relation_name))

    def keep(self, run_seconds: float) -> None:
        """Count what the run wrote and append the rows to the metrics table
        (a failure to do so is reported, and changes nothing else)."""
        from python_helpers.engine.sql_engine import open_engine

        if not self.rows:
            return
        try:
            engine = open_engine(Path("."))
            if self.since is not None:
                nodes = metrics.manifest_nodes(Path("target") / "manifest.json")
                relations = metrics.built_relations(metrics.topic_relations(nodes), self.built)
                metrics.add_counts(engine, self.rows, relations, self.since)
                for topic, seconds in metrics.dbt_seconds_by_topic(nodes, self.timings).items():
                    if topic in self.rows:
                        self.rows[topic].dbt_seconds = seconds
            metrics.finish(self.rows, datetime.now(UTC), run_seconds)
            metrics.write(engine, self.rows.values())
            metrics_log.append(state_dir(), [metrics.as_row(m) for m in self.rows.values()])
        except Exception as error:  # noqa: BLE001 - the run's data is committed already
            print(f"warning: the run's metrics were not written: {error}", file=sys.stderr)
            return
        print(metrics.summary_line(list(self.rows.values())))
        self._keep_quarantine(engine)

    def _keep_quarantine(self, engine: Any) -> None:
        """The quarantine summary of the run's topics whose rows may have
        changed (``quarantine.to_read``), for ``report``; a failure is
        reported."""
        try:
            quarantined = {t: row.records_quarantined or 0 for t, row in self.rows.items()}
            topics = quarantine.to_read(state_dir(), quarantined)
            if not topics:
                return
            quarantine.refresh(engine, state_dir(), topics)
        except Exception as error:  # noqa: BLE001 - the run's data is committed already
            line = str(error).strip().splitlines()[:1]
            print(
                f"warning: {quarantine.SUMMARY} was not read: {line[0] if line else error}",
                file=sys.stderr,
            )
