"""Which data topics a transaction-metadata topic speaks for.

Debezium writes a connector's BEGIN/END events to ``<prefix>.transaction``
and each table's change events to ``<prefix>.<data_collection>`` (the
``data_collection`` of the END's per-table counts: ``schema.table`` for
PostgreSQL, ``database.table`` for MySQL, ``database.schema.table`` for SQL
Server). A transaction topic's group is the keyed change-event topics of
the project named ``<prefix>.…`` whose connector emits transaction metadata
(one connector per group: a prefix is one connector's). The group gets a
transaction-progress model and each member a transaction-consistent view.
Topics renamed by a routing SMT are not found by their prefix: they stay
out of the group (their tables keep only the current view).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from python_helpers import connectors
from python_helpers.schema.metadata_topics import CHANGES, TRANSACTIONS
from python_helpers.topic.generate import TopicSpec

SUFFIX = ".transaction"


@dataclass(frozen=True)
class TransactionGroup:
    """A transaction topic and the data topics whose transactions it reports."""

    topic: str
    prefix: str
    connector: str
    members: tuple[str, ...]

    @property
    def match(self) -> str:
        """How the connector's records of one transaction are matched
        (``Connector.transaction_match``)."""
        return str(connectors.lookup(self.connector).transaction_match)


def _eligible(spec: TopicSpec) -> bool:
    return (
        spec.kind == CHANGES
        and bool(spec.primary_key)
        and connectors.unsupported(spec.connector) is None
        and connectors.lookup(spec.connector).transaction_match is not None
    )


def transaction_groups(specs: dict[str, TopicSpec]) -> dict[str, TransactionGroup]:
    """The group of each transaction topic of ``specs`` that has members,
    by transaction topic."""
    groups: dict[str, TransactionGroup] = {}
    for topic, spec in sorted(specs.items()):
        if spec.kind != TRANSACTIONS or not topic.endswith(SUFFIX):
            continue
        prefix = topic.removesuffix(SUFFIX)
        found = [
            other
            for name, other in sorted(specs.items())
            if name.startswith(prefix + ".") and _eligible(other)
        ]
        if not found:
            continue
        connector = Counter(other.connector for other in found).most_common(1)[0][0]
        members = tuple(other.topic for other in found if other.connector == connector)
        groups[topic] = TransactionGroup(topic, prefix, connector, members)
    return groups


def member_groups(groups: dict[str, TransactionGroup]) -> dict[str, TransactionGroup]:
    """The group of each member topic."""
    return {member: group for group in groups.values() for member in group.members}
