"""Which data topics a notification topic reports snapshot scans for.

A connector with ``notification.enabled.channels=sink`` writes its
notifications to the topic ``notification.sink.topic.name`` names, whatever
it is called; its table scans name each table as its ``data_collection``
(``schema.table`` for PostgreSQL, ``database.table`` for MySQL,
``database.schema.table`` for SQL Server), the part of the table's topic
after the connector's topic prefix. A notification topic speaks for the
prefix its declaration names (``notifications_for: <prefix>`` in
topics/<topic>.yml), else for its own name up to its last dot
(``shop.notifications`` -> ``shop``). Its members are the keyed row topics
of the project named ``<prefix>.<data_collection>`` that declare
``snapshot_deletes: true``; their merged models read its snapshot scans
(cdc_snapshot_deletes.sql) and depend on them (a notification landing
rebuilds them). The other topics of the prefix take no dependency: their
lineage stays their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from python_helpers import connectors
from python_helpers.schema.metadata_topics import CHANGES, NOTIFICATIONS
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.settings import Declaration


@dataclass(frozen=True)
class ScanSource:
    """Where a member topic's snapshot scans are reported."""

    notification_topic: str
    data_collection: str


def notification_prefix(topic: str, declared: Declaration | None) -> str:
    """The topic prefix a notification topic speaks for."""
    given = declared.notifications_for if declared is not None else None
    return given or topic.rpartition(".")[0] or topic


def _member(spec: TopicSpec, declared: Declaration | None) -> bool:
    return (
        declared is not None
        and declared.snapshot_deletes is True
        and spec.kind == CHANGES
        and bool(spec.primary_key)
        and connectors.shape_of(spec.connector) == connectors.ROWS
    )


def scan_sources(
    specs: dict[str, TopicSpec], declared: dict[str, Declaration]
) -> dict[str, ScanSource]:
    """The scan source of each member topic of ``specs``, by topic (the
    notification topic of the longest matching prefix, when two match)."""
    prefixes = {
        notification_prefix(topic, declared.get(topic)): topic
        for topic, spec in sorted(specs.items())
        if spec.kind == NOTIFICATIONS
    }
    found: dict[str, ScanSource] = {}
    for topic, spec in sorted(specs.items()):
        matching = [p for p in prefixes if topic.startswith(p + ".")]
        if not matching or not _member(spec, declared.get(topic)):
            continue
        prefix = max(matching, key=len)
        found[topic] = ScanSource(prefixes[prefix], topic.removeprefix(prefix + "."))
    return found
