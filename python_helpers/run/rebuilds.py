"""Topics whose models must be rebuilt from the raw landing.

When a topic's schema_changes policy becomes ``widen``, the versions it had
quarantined widen column types in a way no incremental build can apply to
an Iceberg table (int -> string, a larger decimal scale...). ``sync`` notes
such topics here (in the state folder, so a run that dies before the
rebuild leaves the note); ``run`` rebuilds their models (a full refresh of
every model of the topic, selected by its ``cdc_topic`` meta) before its
ordinary build, then forgets them. Nobody has to find the command.
"""

from __future__ import annotations

import json
from pathlib import Path

PENDING_FILE = "pending-rebuilds.json"


def pending(state: Path) -> list[str]:
    """The topics waiting for a rebuild, sorted."""
    path = state / PENDING_FILE
    if not path.exists():
        return []
    return sorted(json.loads(path.read_text(encoding="utf-8")))


def add(state: Path, topics: list[str]) -> None:
    """Note ``topics`` as waiting for a rebuild."""
    if not topics:
        return
    state.mkdir(parents=True, exist_ok=True)
    merged = sorted(set(pending(state)) | set(topics))
    (state / PENDING_FILE).write_text(json.dumps(merged), encoding="utf-8")


def done(state: Path) -> None:
    """Every noted rebuild ran."""
    (state / PENDING_FILE).unlink(missing_ok=True)


def selectors(topics: list[str]) -> list[str]:
    """dbt selectors of every model of ``topics`` and their descendants."""
    return [f"config.meta.cdc_topic:{topic}+" for topic in topics]
