"""Quarantine at a glance, for ``report`` and ``report --check``.

The reasons come from the seed ``seeds/cdc_quarantine_reasons.csv`` (what
each means, whether it needs a person, what to do: read as a file, no
Spark). The per-topic figures come from the model ``cdc_quarantine_summary``
(every topic's quarantine by reason, oldest and newest landing, an example
record's coordinates: the table ``cdc_quarantine_counts``, which each build
keeps for the topics it builds, with the seed's meanings): a run reads
the rows of its topics that quarantined records or have rows kept already
(``to_read``) and keeps them in ``<state>/quarantine-summary.json``, which
``report`` shows without starting Spark.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from python_helpers.engine.sql_engine import SqlEngine
from python_helpers.escaping import spark_string
from python_helpers.project.quarantine_reasons import reasons

SUMMARY = "cdc_ops.cdc_quarantine_summary"
STORE = "quarantine-summary.json"
COUNTS_MODEL = "cdc_quarantine_counts"
# the var naming the base models whose topics a recount counts (the
# counts macro, macros/ops/cdc_quarantine_counts.sql, reads it)
RECOUNT_VAR = "cdc_quarantine_recount"


def expected(project: Path) -> set[str]:
    """The reasons that need no person (a tombstone after a delete)."""
    return {name for name, reason in reasons(project).items() if not reason.needs_attention}


def to_read(state: Path, quarantined: dict[str, int]) -> list[str]:
    """The topics of a run (``quarantined``: each one's quarantined records
    in it) whose kept rows may have changed: those that quarantined, and
    those with rows kept already (a `schema_not_covered` record staged after
    a sync, a rebuild: their counts change with nothing quarantined)."""
    kept = load(state)
    return sorted(topic for topic, count in quarantined.items() if count or topic in kept)


def refresh(engine: SqlEngine, state: Path, topics: Iterable[str]) -> None:
    """Read the summary's rows of ``topics`` and keep them (each topic's
    rows replaced: a topic without a row now has none kept)."""
    chosen = sorted(set(topics))
    if not chosen:
        return
    listed = ", ".join(spark_string(topic) for topic in chosen)
    rows = engine.sql(f"select * from {SUMMARY} where topic in ({listed})")
    kept = {topic: found for topic, found in load(state).items() if topic not in chosen}
    for row in rows:
        kept.setdefault(str(row["topic"]), []).append(
            {
                key: value if isinstance(value, (int, float, bool)) or value is None else str(value)
                for key, value in row.items()
            }
        )
    path = state / STORE
    fresh = path.with_suffix(".tmp")
    fresh.write_text(json.dumps(kept, sort_keys=True, indent=1), encoding="utf-8")
    os.replace(fresh, path)


def load(state: Path) -> dict[str, list[dict[str, Any]]]:
    """The kept summary rows, by topic (none before a run quarantined)."""
    path = state / STORE
    if not path.exists():
        return {}
    try:
        loaded: dict[str, list[dict[str, Any]]] = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {}
    return loaded


def recount_args(results: Iterable[Any]) -> list[str] | None:
    """After a build in which some topic failed: the dbt arguments that
    count the quarantine of the topics whose base model was built (dbt
    skipped the counts, which read every built topic's quarantine view, and
    the summary), else None. A failed topic stops only itself: the topics
    that built keep current counts."""
    built: list[str] = []
    skipped = False
    for item in results:
        node, status = item.node, str(item.status)
        meta = (getattr(node, "config", None) or {}).get("meta") or {}
        if node.name == COUNTS_MODEL:
            skipped = status == "skipped"
        elif status == "success" and meta.get("cdc_layer") == "base":
            built.append(str(node.name))
    if not (skipped and built):
        return None
    chosen = json.dumps({RECOUNT_VAR: sorted(built)})
    return ["run", "--select", COUNTS_MODEL, "cdc_quarantine_summary", "--vars", chosen]
