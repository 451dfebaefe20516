"""Debezium's metadata topics (transaction boundaries, schema changes):
no source block names a connector, so they take this one's folder. They
stage events, not row images: no merge, no history."""

from __future__ import annotations

from python_helpers.connectors import METADATA, Connector

CONNECTOR = Connector(
    name="debezium", folder="debezium", title="Debezium metadata", shape=METADATA, history=False
)
